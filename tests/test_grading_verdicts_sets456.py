"""Verdicts of exercise sets 4, 5 and 6 that do not depend on luck.

* Every diagnosis's mistake already fails on the fixed cases alone, and is named there (that it
  fails under 20 seeds with the same points, named by its own diagnosis, and that the reference
  passes every fixed case, are tests/test_grading_verdicts.py's, for every set).
* Wrong answers written as students write them (not the grader's mistake functions) fail in every
  seed with the same points (two seeds in the quick loop, five in the full run), and the
  diagnosis meant for them is the one named; right answers written differently from the
  reference get full marks in every seed.

``tools/verdict_table.py`` prints the table of every mistake under 20 seeds.
"""
import math

import numpy as np
import pytest

from kernelcourse.grading import get_question
from kernelcourse.grading.questions import all_questions
from kernelcourse.grading.sealed.running import run_answer
from kernelcourse.grading.checking.scoring import score

from verdict_support import grade

SETS = ("ex4", "ex5", "ex6", "l4", "l5", "l6")
QUESTIONS = {qid: q for qid, q in all_questions().items() if q.set_name in SETS}


def test_every_question_of_the_sets_is_there():
    assert len(QUESTIONS) == 35


@pytest.mark.parametrize("qid", sorted(QUESTIONS))
def test_every_mistake_fails_on_the_fixed_cases_and_is_named_there(qid):
    q = QUESTIONS[qid]
    cases = q.make_fixed_cases()
    for diagnosis in q.diagnoses:
        result = score(q, cases, run_answer(diagnosis.mistake, cases, q.time_limit))
        assert result.status == "failed", f"{qid}: '{diagnosis.name}' passes the fixed cases"
        assert result.diagnosis is diagnosis, (diagnosis.name, result.line())


# ------------------------------------------------------------ answers written as students do
def _sig(t):
    return 1 / (1 + np.exp(-t))


def _rbf(X, Z, gamma):
    return np.exp(-gamma * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1))


def _cos(X, Z):
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    return X @ Z.T / np.linalg.norm(X, axis=1)[:, None] / np.linalg.norm(Z, axis=1)[None, :]


def _unit(X):
    X = np.asarray(X, float)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _quad(X, cross):
    m = X.shape[1]
    cols = [X[:, i] ** 2 for i in range(m)]
    cols += [cross * X[:, i] * X[:, j] for i in range(m) for j in range(i + 1, m)]
    return np.column_stack(cols)


def _kpca(K_new, K_train, k, centre_new, centre_train=True, root=True):
    m = len(K_train)
    J = np.eye(m) - 1.0 / m
    s, U = np.linalg.eigh(J @ K_train @ J if centre_train else K_train)
    s, U = s[::-1][:k], U[:, ::-1][:, :k]
    return centre_new(K_new, K_train) @ U / (np.sqrt(s) if root else s)


def _extension(K_new, K, k, mu_of, phi_of, reverse=True):
    n = K.shape[0]
    s, U = np.linalg.eigh(K)
    s, U = (s[::-1][:k], U[:, ::-1][:, :k]) if reverse else (s[:k], U[:, :k])
    mu, phi = mu_of(s, n), phi_of(U, n)
    return K_new @ phi / (n * mu)


def _step(alpha, centres, x_t, y_t, eta, lam, gamma, shrink, weight):
    fx = float(_rbf(x_t[None, :], centres, gamma)[0] @ alpha)
    return np.append(shrink(eta, lam, y_t * fx) * alpha, weight(eta, y_t, fx))


def _chunk_sums(Phi, y, c, stop=None):
    n, D = Phi.shape
    A, b = np.zeros((D, D)), np.zeros(D)
    for s in range(0, n if stop is None else stop(n, c), c):
        P = Phi[s:s + c]
        A, b = A + P.T @ P, b + P.T @ y[s:s + c]
    return A, b


def _nys_error(K, m, relative=True):
    L = K[:, :m]
    approx = L @ np.linalg.pinv(K[:m, :m]) @ L.T
    err = np.linalg.norm(K - approx)
    return err / np.linalg.norm(K) if relative else err


def _landmarks(X, gamma, target, relative=True, shift=0):
    K = _rbf(X, X, gamma)
    for m in range(1, len(X) + 1):
        if _nys_error(K, m, relative) <= target:
            return m + shift
    return len(X)


def _CANDIDATE_ANSWERS(**changed):
    """A student's answers to ex4.q7 (None: a kernel; else points), some of them changed."""
    answers = {"distance": [[0.0], [1.0]], "squared_distance": [[0.0], [2.0]], "exp_dot": None,
               "exp_minus_dot": [[1.0], [-1.0]], "rbf_times_poly": None, "dot_minus_one": [[0.0]],
               "square_plus_dot": None, "exp_quartic": [[0.0], [0.6], [1.2]]}
    answers.update(changed)
    return {k: None if v is None else np.array(v) for k, v in answers.items()}


def _witness(name, a, **changed):
    """A student's witness for ex4.q9's function ``name``, or the one given in ``changed``."""
    if name in changed:
        return np.array(changed[name])
    return np.array({"negative_coefficient": lambda: [[math.sqrt(a / 2)]],
                     "difference": lambda: [[0.0], [1 / math.sqrt(a)]],
                     "bilinear": lambda: [[1.0, -np.sign(a)]], "sigmoid": lambda: [[0.0]]}[name]())


#: (question, answer as a student writes it, the diagnosis that must be named or None)
WRONG = [
    ("l4.cp1", lambda K, y, s, l: np.linalg.solve(K + (l / s) ** 2 * np.eye(len(y)), y), "ratio inverted"),
    ("l4.cp1", lambda K, y, s, l: np.linalg.inv(K + s ** 2 / l ** 2) @ y, "every entry"),
    ("l4.cp1", lambda K, y, s, l: np.linalg.solve(K + s / l * np.eye(len(y)), y), "not squared"),
    ("l4.cp2", lambda X: np.c_[X[:, 0] ** 2, X[:, 0] * X[:, 1], X[:, 1] ** 2], "no sqrt 2"),
    ("l4.cp2", lambda X: np.c_[X[:, 0] ** 2, 2 * X[:, 0] * X[:, 1], X[:, 1] ** 2], "2 not sqrt 2"),
    ("l4.cp2", lambda X: np.c_[X[:, 0] ** 2, np.sqrt(2) * X[:, 0] * X[:, 1]], None),
    ("ex4.q1", lambda X, y, w, s, l: (y - X @ w) * s ** 2 / l ** 2, "ratio inverted"),
    ("ex4.q1", lambda X, y, w, s, l: (X @ w - y) * l ** 2 / s ** 2, "residual sign"),
    ("ex4.q1", lambda X, y, w, s, l: (y - X @ w) * l / s, "not squared"),
    ("ex4.q2", lambda X, y, w, l: l ** 2 * y * _sig(y * (X @ w)), "P not 1 - P"),
    ("ex4.q2", lambda X, y, w, l: l ** 2 * y * (1 - _sig(X @ w)), "P(y=+1)"),
    ("ex4.q2", lambda X, y, w, l: y * (1 - _sig(y * (X @ w))) / l ** 2, "1/lam^2"),
    ("ex4.q3", lambda K, y, Kt, s, l: Kt @ np.linalg.solve(K + l ** 2 / s ** 2 * np.eye(len(y)), y),
     "ratio inverted"),
    ("ex4.q3", lambda K, y, Kt, s, l: K @ np.linalg.solve(K + s ** 2 / l ** 2 * np.eye(len(y)), y),
     "training rows"),
    ("ex4.q3", lambda K, y, Kt, s, l: Kt @ np.linalg.solve(K, y), "no prior"),
    ("ex4.q4", lambda X: _quad(X, 1.0), "no sqrt 2"),
    ("ex4.q4", lambda X: np.einsum("ni,nj->nij", X, X).reshape(len(X), -1), "vec"),
    ("ex4.q4", lambda X: X ** 2, None),
    ("ex4.q5", lambda m, p: m ** p, "ordered"),
    ("ex4.q5", lambda m, p: math.comb(m + p, p), "all degrees"),
    ("ex4.q5", lambda m, p: math.comb(m, p), "no repeats"),
    ("ex4.q6", lambda S, T: np.exp([[len(s | t) for t in T] for s in S]), "union"),
    ("ex4.q6", lambda S, T: np.array([[len(s & t) for t in T] for s in S], float), "no exp"),
    ("ex4.q7", lambda name: _CANDIDATE_ANSWERS(distance=None)[name], "metric"),
    ("ex4.q7", lambda name: _CANDIDATE_ANSWERS(exp_quartic=[[0.0], [1.0]])[name], "two points"),
    ("ex4.q7", lambda name: _CANDIDATE_ANSWERS(exp_minus_dot=None)[name], "exp of a non-kernel"),
    ("ex4.q8", lambda name: {"sum": "a", "difference": "c", "product": "b", "count": "a"}[name],
     "matrix product"),
    ("ex4.q8", lambda name: {"sum": "a", "difference": "b", "product": "a", "count": "a"}[name],
     "difference never a kernel"),
    ("ex4.q9", lambda name, a: _witness(name, a, negative_coefficient=[[1.0]]),
     "negative everywhere"),
    ("ex4.q9", lambda name, a: _witness(name, a, sigmoid=[[2.0, 0.0]]), "sigmoid far from 0"),
    ("ex4.q9", lambda name, a: _witness(name, a, difference=[[1.0], [1.0]]), "repeated point"),
    ("ex4.q10", lambda X, Z: _cos(X, Z) ** 2, "squared cosine"),
    ("ex4.q10", lambda X, Z: np.abs(_cos(X, Z)), "absolute cosine"),
    ("ex4.q10", lambda X, Z: X @ Z.T / (X ** 2).sum(1)[:, None], "one side"),
    ("ex4.q10", lambda X, Z: _rbf(np.asarray(X, float), np.asarray(Z, float), 0.5), "sees lengths"),
    ("ex4.q10", lambda X, Z: X @ Z.T, "not normalised"),
    ("ex4.q11", lambda X, Z, s: np.exp(-(X ** 2).sum(1) / s ** 2)[:, None] * np.exp(X @ Z.T / s ** 2)
     * np.exp(-(Z ** 2).sum(1) / s ** 2)[None, :], "f with sigma^2"),
    ("ex4.q11", lambda X, Z, s: np.exp(-(X ** 2).sum(1) / s ** 2)[:, None] * np.exp(X @ Z.T / s ** 2)
     * np.exp(-(Z ** 2).sum(1) / (2 * s ** 2))[None, :], "half fixed"),
    ("ex4.q11", lambda X, Z, s: np.exp(-(X ** 2).sum(1) / s ** 2)[:, None]
     * np.exp(X @ Z.T / (2 * s ** 2)) * np.exp(-(Z ** 2).sum(1) / s ** 2)[None, :], "fixed the middle"),
    ("l5.cp1", lambda a, C, X, g: np.exp(-((X[:, None] - C[None]) ** 2).sum(-1) / g) @ a, "gamma divides"),
    ("l5.cp1", lambda a, C, X, g: _rbf(X, C, g).sum(1), "no alpha"),
    ("l5.cp2", lambda a, X, y, lam, g: -2 * (y - _rbf(X, X, g) @ a) + lam * a, "lam without 2"),
    ("l5.cp2", lambda a, X, y, lam, g: -2 * (y - _rbf(X, X, g) @ a), "no regulariser"),
    ("l5.cp2", lambda a, X, y, lam, g: -2 * (y - a) + 2 * lam * a, "alpha as f"),
    ("ex5.q1", lambda a, C, g: float(a @ _rbf(C, C, g) @ a), "squared"),
    ("ex5.q1", lambda a, C, g: float(np.sqrt(a @ a)), "euclidean"),
    ("ex5.q2", lambda a, X, b, Z, g: float(a @ b), "coefficients only"),
    ("ex5.q2", lambda a, X, b, Z, g: float(_rbf(X, Z, g).sum()), "no weights"),
    ("ex5.q3", lambda *c: _step(*c, lambda e, l, m: 1.0, lambda e, y, f: 2 * e * (y - f)), "no shrink"),
    ("ex5.q3", lambda *c: _step(*c, lambda e, l, m: 1 - 2 * e * l, lambda e, y, f: 2 * e * (f - y)),
     "residual sign"),
    ("ex5.q3", lambda *c: _step(*c, lambda e, l, m: 1 - e * l, lambda e, y, f: 2 * e * (y - f)),
     "shrink without 2"),
    ("ex5.q4", lambda *c: _step(*c, lambda e, l, m: 1 - 2 * e * l, lambda e, y, f: e * y), "always add"),
    ("ex5.q4", lambda *c: _step(*c, lambda e, l, m: 1 - 2 * e * l,
                                lambda e, y, f: e * y if y * f <= 0 else 0.0), "mistakes only"),
    ("ex5.q4", lambda *c: _step(*c, lambda e, l, m: 1 - 2 * e * l if m < 1 else 1.0,
                                lambda e, y, f: e * y if y * f < 1 else 0.0), "shrink only on errors"),
    ("ex5.q5", lambda a, C, x, g: float(a.sum()), "K(x, x)"),
    ("ex5.q5", lambda a, C, x, g: float(np.sqrt(a @ _rbf(C, C, g) @ a)), "norm"),
    ("ex5.q6", lambda s: {"unique": False, "values": True, "symmetry": False, "zero norm": True,
                          "limits": False}[s], "symmetry: true"),
    ("ex5.q6", lambda s: {"unique": True, "values": True, "symmetry": True, "zero norm": True,
                          "limits": False}[s], "unique: false"),
    ("ex5.q7", lambda a, X: a + 0.01 * np.linalg.svd(X)[0][:, -1], "too small a change"),
    ("ex5.q7", lambda a, X: np.linalg.svd(X)[0][:, -1], "only the change"),
    ("ex5.q7", lambda a, X: 2 * a, "rescaled"),
    ("ex5.q7", lambda a, X: a + np.linalg.eigh(X @ X.T)[1][:, -1], "largest eigenvector"),
    ("ex5.q8", lambda X, g, N: float(np.linalg.eigvalsh(_rbf(X, X, g))[-1]), "no scaling"),
    ("ex5.q8", lambda X, g, N: float(np.linalg.eigvalsh(_rbf(X, X, g))[-1]) / len(X),
     "operator eigenvalue"),
    ("ex5.q9", lambda Kn, K, k: _extension(Kn, K, k, lambda s, n: s, lambda U, n: np.sqrt(n) * U),
     "operator eigenvalue as lambda(K)"),
    ("ex5.q9", lambda Kn, K, k: _extension(Kn, K, k, lambda s, n: s, lambda U, n: U),
     "fixed the wrong line"),
    ("ex5.q9", lambda Kn, K, k: _extension(Kn, K, k, lambda s, n: s / np.sqrt(n),
                                           lambda U, n: np.sqrt(n) * U), "sqrt(n) short"),
    ("ex5.q9", lambda Kn, K, k: _extension(Kn, K, k, lambda s, n: s / n, lambda U, n: np.sqrt(n) * U,
                                           reverse=False), "smallest eigenpairs"),
    ("l6.cp1", lambda Knm, Kmm: Knm @ np.linalg.inv(Kmm), "K_mm^{-1}"),
    ("l6.cp1", lambda Knm, Kmm: np.linalg.solve(np.linalg.cholesky(Kmm), Knm.T).T, "Cholesky"),
    ("l6.cp2", lambda K: np.sort(np.linalg.eigvalsh(K))[::-1] / np.trace(K), "not centred"),
    ("l6.cp2", lambda K: np.linalg.eigvalsh(K - K.mean(0) - K.mean(1)[:, None] + K.mean())
     / np.trace(K - K.mean(0) - K.mean(1)[:, None] + K.mean()), "ascending"),
    ("ex6.q1", lambda X, O, b: np.cos(X @ O.T + b) @ np.cos(X @ O.T + b).T, "no sqrt(2/D)"),
    ("ex6.q1", lambda X, O, b: 2 / len(b) * np.cos(X @ O.T) @ np.cos(X @ O.T).T, "no offset"),
    ("ex6.q1", lambda X, O, b: 2 / X.shape[1] * np.cos(X @ O.T + b) @ np.cos(X @ O.T + b).T,
     "input dimension as D"),
    ("ex6.q2", lambda Knm, Kmm: Knm @ Knm.T, "no K_mm^{-1}"),
    ("ex6.q2", lambda Knm, Kmm: Knm @ Kmm @ Knm.T, "K_mm"),
    ("ex6.q3", lambda Kn, Kt, U, s: Kn @ U / np.sqrt(s), "not centred"),
    ("ex6.q3", lambda Kn, Kt, U, s: (Kn - Kn.mean(1, keepdims=True) - Kn.mean(0) + Kn.mean())
     @ U / np.sqrt(s), "own mean"),
    ("ex6.q3", lambda Kn, Kt, U, s: (Kn - Kn.mean(1, keepdims=True) - Kt.mean(0) + Kt.mean()) @ U / s,
     "divided by lambda"),
    ("ex6.q4", lambda P, y, lam, c: np.linalg.solve(_chunk_sums(P, y, c)[0] + lam * np.eye(P.shape[1])
                                                    * math.ceil(len(y) / c), _chunk_sums(P, y, c)[1]),
     "lam per chunk"),
    ("ex6.q4", lambda P, y, lam, c: np.linalg.solve(
        _chunk_sums(P, y, c, stop=lambda n, c: n - c + 1)[0] + lam * np.eye(P.shape[1]),
        _chunk_sums(P, y, c, stop=lambda n, c: n - c + 1)[1]), "last chunk dropped"),
    ("ex6.q4", lambda P, y, lam, c: np.linalg.solve(
        np.vstack([P[i] for i in range(len(y))]).T @ np.vstack([P[i] for i in range(len(y))])
        + lam * np.eye(P.shape[1]), np.vstack([P[i] for i in range(len(y))]).T @ y),
     "rows stacked"),
    ("ex6.q5", lambda n, c: float(np.polyfit(n, np.log(c), 1)[0]), "semi-log"),
    ("ex6.q5", lambda n, c: float(np.log(c[-1] / c[-2]) / np.log(n[-1] / n[-2])), "last two points"),
    ("ex6.q6", lambda X, g, t: len(X), "all points"),
    ("ex6.q6", lambda X, g, t: _landmarks(X, g, t, relative=False), "absolute error"),
    ("ex6.q6", lambda X, g, t: _landmarks(X, g, t, shift=-1), "one short"),
    ("ex6.q7", lambda d, p: math.comb(d + p - 1, p), "degree p only"),
    ("ex6.q7", lambda d, p: (d + 1) ** p, "ordered products"),
    ("ex6.q8", lambda s: {"all landmarks": True, "fast decay": False, "chunks": False,
                          "new mean": True, "memory": True}[s], "new mean: false"),
    ("ex6.q8", lambda s: {"all landmarks": False, "fast decay": False, "chunks": False,
                          "new mean": False, "memory": True}[s], "all landmarks: true"),
    ("ex6.q9", lambda Kn, Kt, k: _kpca(Kn, Kt, k, lambda A, B: A - A.mean(1, keepdims=True)
                                       - A.mean(0) + A.mean()), "own mean"),
    ("ex6.q9", lambda Kn, Kt, k: _kpca(Kn, Kt, k, lambda A, B: A - A.mean(1, keepdims=True)
                                       - A.mean(0) + A.mean(), root=False), "fixed the scaling"),
    ("ex6.q9", lambda Kn, Kt, k: _kpca(Kn, Kt, k, lambda A, B: A - A.mean(1, keepdims=True)
                                       - A.mean(0) + A.mean(), centre_train=False),
     "uncentred training"),
    ("ex6.q9", lambda Kn, Kt, k: _kpca(Kn, Kt, k, lambda A, B: A - A.mean(1, keepdims=True)
                                       - A.mean(0) + B.mean()), "own mean"),     # a partial fix
]


#: the seeds of the answers written as students do: two in the quick loop, five in the full run
STUDENT_SEEDS = [pytest.param((0, 1), id="quick"),
                 pytest.param(range(5), id="seeds", marks=pytest.mark.slow)]


@pytest.mark.parametrize("seeds", STUDENT_SEEDS)
@pytest.mark.parametrize("index", range(len(WRONG)),
                         ids=[f"{qid}-{name or 'unnamed'}" for qid, _, name in WRONG])
def test_a_student_wrong_answer_fails_every_seed_and_is_named(index, seeds):
    qid, answer, name = WRONG[index]
    points = set()
    for seed in seeds:
        result = grade(qid, answer, seed, detect_shortcuts=True)
        assert result.status == "failed", f"seed {seed}: {result.line()}"
        points.add(round(result.points, 9))
        if name is not None:
            assert result.diagnosis is not None and result.diagnosis.name == name, result.line()
    assert len(points) == 1, sorted(points)


def test_at_least_nine_in_ten_student_wrong_answers_get_a_diagnosis():
    meant = [name for _, _, name in WRONG]
    assert sum(n is not None for n in meant) >= 0.9 * len(meant)
    for qid in QUESTIONS:
        assert sum(q == qid for q, _, _ in WRONG) >= 2, f"{qid}: fewer than two wrong answers"


RIGHT = [
    ("ex4.q10", lambda X, Z: (1 + _cos(X, Z)) / 2),
    ("ex4.q10", lambda X, Z: np.exp(_cos(X, Z) - 1)),
    ("ex4.q10", lambda X, Z: _cos(X, Z) ** 3),
    ("ex4.q10", lambda X, Z: np.exp(-((_unit(X)[:, None] - _unit(Z)[None]) ** 2).sum(-1))),
    ("ex4.q8", lambda name: {"sum": " A", "difference": "C ", "product": "a", "count": "A"}[name]),
    ("ex5.q6", lambda s: np.bool_(s in ("values", "symmetry", "zero norm"))),
    ("ex5.q7", lambda a, X: a - 5 * np.linalg.svd(X)[0][:, -1]),
    ("ex5.q9", lambda Kn, K, k: _extension(Kn, K, k, lambda s, n: s / n, lambda U, n: np.sqrt(n) * U)),
    ("ex5.q9", lambda Kn, K, k: np.sqrt(len(K)) * Kn @ np.linalg.eigh(K)[1][:, ::-1][:, :k]
     / np.linalg.eigh(K)[0][::-1][:k]),
    ("ex6.q9", lambda Kn, Kt, k: _kpca(Kn, Kt, k, lambda A, B: A - A.mean(1, keepdims=True)
                                       - B.mean(0) + B.mean())),
    # the overall mean and each row's own mean add constants along 1, which U is orthogonal to
    ("ex6.q9", lambda Kn, Kt, k: _kpca(Kn, Kt, k, lambda A, B: A - B.mean(0))),
    ("ex6.q6", lambda X, g, t: _landmarks(X, g, t)),
    ("ex6.q7", lambda d, p: int(np.round(math.factorial(d + p) / math.factorial(d) / math.factorial(p)))),
]


@pytest.mark.parametrize("index", range(len(RIGHT)), ids=[qid for qid, _ in RIGHT])
def test_a_right_answer_written_differently_gets_full_marks_in_every_seed(index):
    qid, answer = RIGHT[index]
    for seed in range(5):
        result = grade(qid, answer, seed, detect_shortcuts=True)
        assert result.status == "passed", f"seed {seed}: {result.line()}"


def test_absolute_cosine_is_no_kernel_on_the_fixed_half_circle():
    """|cos| on the 8 directions k pi / 8: a negative Gram eigenvalue (-0.414), computed here from
    the angles, not from the grader's helpers; the grader fails it on that case for PSD."""
    q = get_question("ex4.q10")
    angles = np.arange(8) * np.pi / 8
    gram = np.abs(np.cos(angles[:, None] - angles[None, :]))
    assert np.linalg.eigvalsh(gram)[0] == pytest.approx(1 - math.sqrt(2), abs=1e-9)
    half_circle = q.make_fixed_cases()[0]
    ok, why = q.judge(np.abs(_cos(*half_circle.args)), None, half_circle)
    assert not ok and "PSD" in why
