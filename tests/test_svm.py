"""Lecture 7: the SVM's objectives and KKT conditions against their definitions, the course's
SMO against libsvm (scikit-learn's SVC, the test oracle) and against a direct primal solve."""
import itertools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.optimize import minimize
from sklearn.svm import SVC

from kernelcourse import svm
from kernelcourse.kernels import RBF, Linear


def _data(kind, n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    if kind == "separable":
        X = rng.normal(size=(n, 2)) * 0.5 + 2.0 * y[:, None]
    elif kind == "overlapping":
        X = rng.normal(size=(n, 2)) + 0.8 * y[:, None]
    else:  # "rbf": the XOR pattern, which no line separates
        X = rng.uniform(-1.5, 1.5, size=(n, 2))
        y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    return X, y


CASES = [("separable", Linear(), 1.0), ("overlapping", Linear(), 1.0), ("overlapping", Linear(), 0.05),
         ("rbf", RBF(gamma=1.0), 1.0), ("rbf", RBF(gamma=2.0), 10.0)]
IDS = [f"{kind}-{type(k).__name__}-C{C}" for kind, k, C in CASES]


def _oracle(K, y, C):
    model = SVC(C=C, kernel="precomputed", tol=1e-8).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    # scikit-learn's binary SVC has classes_[1] = +1 positive: its intercept is our b
    return alpha, float(model.intercept_[0]), model


# ------------------------------------------------------------------ against libsvm

@pytest.mark.parametrize("selection", svm.SELECTIONS)
@pytest.mark.parametrize("kind,kernel,C", CASES, ids=IDS)
def test_smo_matches_libsvm(kind, kernel, C, selection):
    X, y = _data(kind)
    K = kernel(X)
    run = svm.smo(K, y, C=C, tol=1e-8, selection=selection)
    alpha_ref, b_ref, model = _oracle(K, y, C)
    assert run.converged
    d, d_ref = svm.dual_objective(run.alpha, K, y), svm.dual_objective(alpha_ref, K, y)
    assert abs(d - d_ref) <= 1e-6 * abs(d_ref)
    assert_allclose(run.alpha.sum(), alpha_ref.sum(), rtol=1e-6)
    assert run.support().tolist() == sorted(model.support_.tolist())
    f = svm.decision_values(run.alpha, K, y, run.b)
    assert_allclose(f, model.decision_function(K), atol=1e-4)
    assert abs(run.b - b_ref) <= 1e-4


@pytest.mark.parametrize("kind,gamma,C", [("overlapping", 0.5, 1.0), ("rbf", 1.0, 1.0), ("rbf", 3.0, 100.0)])
def test_estimator_matches_svc_with_the_same_gamma(kind, gamma, C):
    X, y = _data(kind, n=120, seed=1)
    Xt, _ = _data(kind, n=50, seed=2)
    ours = svm.SupportVectorClassifier(C=C, kernel=RBF(gamma), tol=1e-8).fit(X, y)
    ref = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-8).fit(X, y)
    assert ours.support_.tolist() == sorted(ref.support_.tolist())
    order = np.argsort(ref.support_)
    assert_allclose(ours.dual_coef_[0], ref.dual_coef_[0][order], rtol=1e-4, atol=1e-6)
    assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    assert_allclose(ours.decision_function(Xt), ref.decision_function(Xt), atol=1e-4)
    assert (ours.predict(Xt) == ref.predict(Xt)).all()


def test_no_free_multiplier_gives_libsvm_midpoint_offset():
    X, y = _data("overlapping", n=60, seed=3)
    K = Linear()(X)
    run = svm.smo(K, y, C=1e-3, tol=1e-8)
    assert not np.any((run.alpha > 0) & (run.alpha < 1e-3))   # every multiplier at a bound
    alpha_ref, b_ref, _ = _oracle(K, y, 1e-3)
    assert_allclose(run.alpha, alpha_ref, atol=1e-12)
    assert abs(run.b - b_ref) <= 1e-8


@pytest.mark.parametrize("multiclass", ["ovo", "ovr"])
def test_multiclass_against_svc(multiclass):
    rng = np.random.default_rng(4)
    labels = np.repeat([3, 5, 7], 30)
    X = rng.normal(size=(90, 2)) + np.array([[0, 0], [2, 0], [0, 2]])[np.repeat([0, 1, 2], 30)]
    model = svm.SupportVectorClassifier(C=1.0, kernel=RBF(0.5), tol=1e-8, multiclass=multiclass).fit(X, labels)
    values = model.machine_values(X)
    if multiclass == "ovo":
        ref = SVC(C=1.0, kernel="rbf", gamma=0.5, tol=1e-8, decision_function_shape="ovo").fit(X, labels)
        # scikit-learn's pair (k, l) is positive for k; ours, like every binary machine, for l
        assert_allclose(values, -ref.decision_function(X), atol=1e-4)
        assert model.support_.tolist() == sorted(ref.support_.tolist())
        votes = np.floor(model.decision_function(X) + 0.5)
        assert (votes.sum(axis=1) == 3).all()
        clear = np.sort(votes, axis=1)[:, -2] < votes.max(axis=1)   # no tie in the votes
        assert clear.mean() > 0.9
        assert (model.predict(X)[clear] == ref.predict(X)[clear]).all()
    else:
        for k, c in enumerate(model.classes_):
            ref = SVC(C=1.0, kernel="rbf", gamma=0.5, tol=1e-8).fit(X, labels == c)
            assert_allclose(values[:, k], ref.decision_function(X), atol=1e-4)
        assert (model.predict(X) == model.classes_[values.argmax(axis=1)]).all()
        assert model.score(X, labels) > 0.8
    assert values.shape == (90, 3)


# ------------------------------------------------------------------ the definitions

@pytest.mark.parametrize("kind,kernel,C", CASES, ids=IDS)
def test_kkt_conditions_and_duality_gap_at_the_solution(kind, kernel, C):
    X, y = _data(kind)
    K = kernel(X)
    run = svm.smo(K, y, C=C, tol=1e-8)
    assert abs(run.alpha @ y) < 1e-10
    assert run.alpha.min() >= 0 and run.alpha.max() <= C
    assert svm.violating_pair_gap(run.alpha, K, y, C) <= 1e-8
    assert svm.kkt_violations(run.alpha, run.b, K, y, C).max() <= 1e-7
    primal = svm.primal_objective(run.alpha, run.b, K, y, C)
    gap = svm.duality_gap(run.alpha, run.b, K, y, C)
    assert 0 <= gap <= 1e-7 * max(1.0, primal)
    # at a = 0 the conditions fail and the gap is the whole primal C * n
    assert svm.duality_gap(np.zeros(len(y)), 0.0, K, y, C) == pytest.approx(C * len(y))
    assert svm.violating_pair_gap(np.zeros(len(y)), K, y, C) == pytest.approx(2.0)


def test_objectives_and_kkt_against_loops_over_the_definitions():
    X, y = _data("overlapping", n=12, seed=5)
    K, C = RBF(0.7)(X), 0.8
    rng = np.random.default_rng(6)
    alpha = rng.uniform(0, C, size=12)
    alpha[:3], alpha[3:5] = 0.0, C
    b = 0.3
    n = len(y)
    dual = sum(alpha) - 0.5 * sum(alpha[i] * alpha[j] * y[i] * y[j] * K[i, j] for i in range(n) for j in range(n))
    f = [sum(alpha[j] * y[j] * K[j, i] for j in range(n)) + b for i in range(n)]
    wsq = sum(alpha[i] * alpha[j] * y[i] * y[j] * K[i, j] for i in range(n) for j in range(n))
    primal = 0.5 * wsq + C * sum(max(0.0, 1 - y[i] * f[i]) for i in range(n))
    assert svm.dual_objective(alpha, K, y) == pytest.approx(dual, rel=1e-12)
    assert svm.primal_objective(alpha, b, K, y, C) == pytest.approx(primal, rel=1e-12)
    viol = []
    for i in range(n):
        m = y[i] * f[i]
        viol.append(max(0, 1 - m) if alpha[i] == 0 else max(0, m - 1) if alpha[i] == C else abs(1 - m))
    assert_allclose(svm.kkt_violations(alpha, b, K, y, C), viol, atol=1e-12)
    v = [y[i] - (f[i] - b) for i in range(n)]
    up = [i for i in range(n) if (y[i] > 0 and alpha[i] < C) or (y[i] < 0 and alpha[i] > 0)]
    low = [i for i in range(n) if (y[i] > 0 and alpha[i] > 0) or (y[i] < 0 and alpha[i] < C)]
    assert svm.violating_pair_gap(alpha, K, y, C) == pytest.approx(max(v[i] for i in up) - min(v[i] for i in low))
    assert svm.kkt_groups(alpha, C).tolist() == [0 if a == 0 else 2 if a == C else 1 for a in alpha]


def test_primal_objective_with_the_explicit_w_of_the_linear_kernel():
    X, y = _data("overlapping", n=30, seed=7)
    alpha = np.random.default_rng(8).uniform(0, 1, size=30)
    w = svm.primal_w(alpha, X, y)
    hinge = np.maximum(0, 1 - y * (X @ w - 0.2)).sum()
    assert svm.primal_objective(alpha, -0.2, Linear()(X), y, 2.0) == pytest.approx(0.5 * w @ w + 2.0 * hinge)


def _primal_qp(X, y, C):
    """min 1/2 |w|^2 + C sum xi  s.t.  y_i (w.x_i + b) >= 1 - xi_i, xi >= 0, by SLSQP."""
    n, d = X.shape

    scale = 1.0 / max(1.0, C)          # the same minimiser; SLSQP's line search fails at C = 1e4 unscaled

    def objective(z):
        return scale * (0.5 * z[:d] @ z[:d] + C * z[d + 1:].sum())

    def gradient(z):
        return scale * np.concatenate([z[:d], [0.0], np.full(n, C)])

    cons = [{"type": "ineq", "fun": lambda z: y * (X @ z[:d] + z[d]) - 1 + z[d + 1:],
             "jac": lambda z: np.hstack([y[:, None] * X, y[:, None], np.eye(n)])},
            {"type": "ineq", "fun": lambda z: z[d + 1:],
             "jac": lambda z: np.hstack([np.zeros((n, d + 1)), np.eye(n)])}]
    # (scipy 1.17's SLSQP stops short or at a wrong point on the C = 1e4 problem from slack 2;
    # started from zero slack it finds libsvm's w)
    z0 = np.concatenate([np.zeros(d + 1), np.full(n, 2.0 if C <= 1 else 0.0)])
    res = minimize(objective, z0, jac=gradient, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-12, "maxiter": 2000})
    assert res.success, res.message
    return res.x[:d], res.x[d], res.fun / scale


@pytest.mark.parametrize("kind,C", [("overlapping", 1.0), ("overlapping", 0.1), ("separable", 1e4)])
def test_w_from_the_dual_is_the_primal_solution(kind, C):
    X, y = _data(kind, n=40, seed=9)
    run = svm.smo(Linear()(X), y, C=C, tol=1e-9)
    w_primal, b_primal, value = _primal_qp(X, y, C)
    assert_allclose(svm.primal_w(run.alpha, X, y), w_primal, atol=1e-5)
    assert run.b == pytest.approx(b_primal, abs=1e-4)
    # strong duality: the dual's value is the primal's at the primal solver's (w, b); weak
    # duality bounds it by the primal at any (w, b), the solver's included (its reported value
    # may sit a constraint tolerance below: SLSQP allows slack a little short of the hinge)
    primal_at_qp = 0.5 * w_primal @ w_primal + C * np.maximum(0, 1 - y * (X @ w_primal + b_primal)).sum()
    dual = svm.dual_objective(run.alpha, Linear()(X), y)
    assert dual <= primal_at_qp * (1 + 1e-9) and value == pytest.approx(primal_at_qp, rel=1e-6)
    if C <= 1:   # with C = 1e4 the solver's slack of 1e-6 weighs 1e-2 in its value
        assert dual == pytest.approx(primal_at_qp, rel=1e-5)


def test_large_C_recovers_the_hard_margin():
    X, y = _data("separable", n=40, seed=10)
    K = Linear()(X)
    run = svm.smo(K, y, C=1e6, tol=1e-10)
    assert run.alpha.max() < 1e6                              # no slack: no multiplier at the box
    margins = y * svm.decision_values(run.alpha, K, y, run.b)
    assert margins.min() == pytest.approx(1.0, abs=1e-8)      # the closest points sit on the margin
    assert_allclose(margins[run.support()], 1.0, atol=1e-8)   # and they are the support vectors
    # the hard-margin primal: min 1/2 |w|^2 s.t. y (w.x + b) >= 1, no slack at all
    res = minimize(lambda z: 0.5 * z[:2] @ z[:2], np.zeros(3), jac=lambda z: np.array([z[0], z[1], 0.0]),
                   constraints=[{"type": "ineq", "fun": lambda z: y * (X @ z[:2] + z[2]) - 1,
                                 "jac": lambda z: np.hstack([y[:, None] * X, y[:, None]])}],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    assert res.success, res.message
    w, b = res.x[:2], res.x[2]
    assert_allclose(svm.primal_w(run.alpha, X, y), w, atol=1e-5)
    # the geometric margin is 1/|w|, the smallest distance of a point to the hyperplane
    dist = np.abs(X @ w + b) / np.linalg.norm(w)
    assert svm.geometric_margin(run.alpha, K, y) == pytest.approx(dist.min(), rel=1e-5)
    # and the same solution as C grows further
    run2 = svm.smo(K, y, C=1e8, tol=1e-10)
    assert_allclose(run2.alpha, run.alpha, atol=1e-6)


# ------------------------------------------------------------------ the step

def test_pair_step_keeps_the_constraint_and_maximises_the_dual_along_the_pair():
    rng = np.random.default_rng(11)
    X, y = _data("overlapping", n=10, seed=12)
    K, C = RBF(0.5)(X), 0.7
    for _ in range(40):
        alpha = rng.uniform(0, C, size=10) * (rng.uniform(size=10) > 0.3)
        i, j = rng.choice(10, size=2, replace=False)
        b = rng.normal()
        E = svm.decision_values(alpha, K, y, b) - y
        eta = K[i, i] + K[j, j] - 2 * K[i, j]
        ai, aj = svm.pair_step(alpha[i], alpha[j], y[i], y[j], E[i], E[j], eta, C)
        assert 0 <= ai <= C and 0 <= aj <= C
        assert ai * y[i] + aj * y[j] == pytest.approx(alpha[i] * y[i] + alpha[j] * y[j])
        # brute force over the feasible segment
        best = -np.inf
        for t in np.linspace(-C, C, 4001):
            a = alpha.copy()
            a[i] += y[i] * t
            a[j] -= y[j] * t
            if a[i] < 0 or a[i] > C or a[j] < 0 or a[j] > C:
                continue
            best = max(best, svm.dual_objective(a, K, y))
        new = alpha.copy()
        new[i], new[j] = ai, aj
        assert svm.dual_objective(new, K, y) >= best - 1e-9


@pytest.mark.parametrize("selection", svm.SELECTIONS)
def test_step_record(selection):
    X, y = _data("rbf", n=50, seed=13)
    K, C = RBF(1.0)(X), 2.0
    run = svm.smo(K, y, C=C, tol=1e-6, selection=selection, record=True)
    plain = svm.smo(K, y, C=C, tol=1e-6, selection=selection)
    assert plain.steps is None
    assert_allclose(run.alpha, plain.alpha, rtol=0, atol=0)           # recording changes nothing
    s = run.steps
    assert all(len(v) == run.n_iter for v in s.values())
    assert np.all(np.diff(s["dual"]) >= -1e-12)                        # SMO climbs the dual
    assert np.all(s["duality_gap"] >= -1e-12)                          # weak duality
    assert s["kkt_gap"][-1] == pytest.approx(run.gap)
    assert np.all((s["alpha_i"] >= 0) & (s["alpha_i"] <= C) & (s["alpha_j"] >= 0) & (s["alpha_j"] <= C))
    assert np.all(s["clipped"] == (s["t"] < s["t_free"]))
    assert s["clipped"].any() and not s["clipped"].all()
    # each recorded step is the run stopped there
    for k in (1, 7, run.n_iter // 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            part = svm.smo(K, y, C=C, tol=1e-6, selection=selection, max_iter=k)
        i, j = s["i"][k - 1], s["j"][k - 1]
        assert part.alpha[i] == s["alpha_i"][k - 1] and part.alpha[j] == s["alpha_j"][k - 1]
        assert s["dual"][k - 1] == pytest.approx(svm.dual_objective(part.alpha, K, y), rel=1e-12)
        assert s["primal"][k - 1] == pytest.approx(svm.primal_objective(part.alpha, part.b, K, y, C), rel=1e-12)
        assert s["kkt_gap"][k - 1] == pytest.approx(svm.violating_pair_gap(part.alpha, K, y, C), abs=1e-12)
        assert abs(part.alpha @ y) < 1e-12
    # the first pair of the maximal violating rule: argmax over I_up of v = y, argmin over I_low
    if selection == "max_violating":
        assert y[s["i"][0]] == 1 and y[s["j"][0]] == -1


def test_second_order_takes_fewer_steps():
    X, y = _data("rbf", n=300, seed=14)
    K = RBF(1.0)(X)
    first, second = (svm.smo(K, y, C=10.0, tol=1e-3, selection=s) for s in ("max_violating", "second_order"))
    assert second.n_iter < first.n_iter
    assert svm.dual_objective(second.alpha, K, y) == pytest.approx(svm.dual_objective(first.alpha, K, y), rel=1e-4)


def test_rows_on_demand_take_the_same_steps_as_the_cached_gram():
    X, y = _data("rbf", n=200, seed=15)
    table = RBF(1.0)(X)
    index = np.arange(200.0)[:, None]

    def lookup(A, B=None):            # a kernel whose every row is bit for bit the table's
        B = A if B is None else B
        return table[np.ix_(A[:, 0].astype(int), B[:, 0].astype(int))]

    cached = svm.smo_kernel(lookup, index, y, C=1.0, tol=1e-6, record=True)
    rows = svm.smo_kernel(lookup, index, y, C=1.0, tol=1e-6, record=True, cache_bytes=0, row_cache=16)
    assert cached.kernel_rows <= 200 and rows.kernel_rows >= cached.kernel_rows > 16
    assert rows.n_iter == cached.n_iter
    for key in cached.steps:
        assert (rows.steps[key] == cached.steps[key]).all(), key
    assert (rows.alpha == cached.alpha).all() and rows.b == cached.b
    # with the RBF kernel itself a row and the whole matrix differ in the last bits, so the
    # runs may part ways near the end; they reach the same solution
    a = svm.smo_kernel(RBF(1.0), X, y, C=1.0, tol=1e-8)
    b = svm.smo_kernel(RBF(1.0), X, y, C=1.0, tol=1e-8, cache_bytes=0, row_cache=16)
    assert (a.support() == b.support()).all()
    assert_allclose(svm.decision_values(a.alpha, table, y, a.b), svm.decision_values(b.alpha, table, y, b.b), atol=1e-6)
    est_rows = svm.SupportVectorClassifier(C=1.0, kernel=RBF(1.0), tol=1e-8, cache_bytes=0).fit(X, y)
    est = svm.SupportVectorClassifier(C=1.0, kernel=RBF(1.0), tol=1e-8).fit(X, y)
    assert_allclose(est_rows.decision_function(X), est.decision_function(X), atol=1e-6)


def test_max_iter_stops_with_a_warning():
    X, y = _data("rbf", n=60)
    with pytest.warns(RuntimeWarning, match="max_iter=3"):
        run = svm.smo(RBF(1.0)(X), y, max_iter=3)
    assert run.n_iter == 3 and not run.converged


# ------------------------------------------------------------------ bounds and model selection

def test_loo_bound_holds_for_the_leave_one_out_error():
    X, y = _data("overlapping", n=40, seed=16)
    kernel, C = RBF(0.5), 1.0
    model = svm.SupportVectorClassifier(C=C, kernel=kernel, tol=1e-6).fit(X, y)
    errors = 0
    for i in range(40):
        keep = np.arange(40) != i
        errors += svm.SupportVectorClassifier(C=C, kernel=kernel, tol=1e-6).fit(X[keep], y[keep]).predict(X[i:i + 1])[0] != y[i]
    alpha = np.zeros(40)
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    assert errors / 40 <= svm.loo_bound(alpha) == len(model.support_) / 40


def test_enclosing_ball_radius_against_a_direct_solve_of_the_smallest_ball():
    rng = np.random.default_rng(17)
    X = rng.normal(size=(25, 2)) * [1.0, 0.4] + [3.0, -2.0]   # off the origin: max ||x||^2 is far larger
    # the smallest circle directly: it passes through two points (as a diameter) or three
    # (their circumcircle); the smallest such circle holding every point
    best = np.inf
    for idx in itertools.chain(itertools.combinations(range(25), 2), itertools.combinations(range(25), 3)):
        P = X[list(idx)]
        if len(idx) == 2:
            c = P.mean(axis=0)
        else:
            A = 2 * (P[1:] - P[0])
            if abs(np.linalg.det(A)) < 1e-12:
                continue
            c = np.linalg.solve(A, np.sum(P[1:] ** 2, axis=1) - np.sum(P[0] ** 2))
        r2 = np.sum((P[0] - c) ** 2)
        if r2 < best and np.all(np.sum((X - c) ** 2, axis=1) <= r2 * (1 + 1e-12)):
            best = r2
    R2 = svm.enclosing_ball_radius(Linear()(X))
    assert R2 == pytest.approx(best, rel=1e-8)
    assert R2 < 0.2 * np.max(np.sum(X ** 2, axis=1))                  # not the ball about the origin
    assert svm.enclosing_ball_radius(Linear()(X + 100.0)) == pytest.approx(R2, rel=1e-6)   # translation
    # one point: radius 0; two points: half their distance
    assert svm.enclosing_ball_radius(Linear()(X[:2])) == pytest.approx(np.sum((X[0] - X[1]) ** 2) / 4)


def test_radius_margin_bound_is_four_R2_w2_over_n_and_bounds_the_hard_margin_loo_error():
    X, y = _data("separable", n=30, seed=17)
    K = Linear()(X)
    run = svm.smo(K, y, C=1e6, tol=1e-10)
    w = svm.primal_w(run.alpha, X, y)
    bound = svm.radius_margin_bound(run.alpha, K, y)
    assert bound == pytest.approx(4 * svm.enclosing_ball_radius(K) * (w @ w) / 30, rel=1e-9)
    errors = 0
    for i in range(30):
        keep = np.arange(30) != i
        out = svm.smo(K[np.ix_(keep, keep)], y[keep], C=1e6, tol=1e-10)
        f = (out.alpha * y[keep]) @ K[keep, i] + out.b
        errors += np.sign(f) != y[i]
    assert errors / 30 <= bound


def test_offset_interval_is_the_set_of_offsets_the_kkt_conditions_allow():
    X, y = _data("overlapping", n=60, seed=3)
    K = Linear()(X)
    run = svm.smo(K, y, C=1e-3, tol=1e-10)                     # every multiplier at a bound
    lo, hi = svm.offset_interval(run.alpha, K, y, 1e-3)
    assert lo < hi
    f = svm.decision_values(run.alpha, K, y)
    for b, ok in [(lo, True), (hi, True), (0.5 * (lo + hi), True), (lo - 1e-6, False), (hi + 1e-6, False)]:
        holds = svm.kkt_violations(run.alpha, b, K, y, 1e-3).max() <= 1e-9
        assert holds == ok, (b, lo, hi)
    assert run.b == pytest.approx(0.5 * (lo + hi))
    # with a free multiplier the interval is the one offset of the free points
    run = svm.smo(K, y, C=1.0, tol=1e-10)
    lo, hi = svm.offset_interval(run.alpha, K, y, 1.0)
    assert hi - lo < 1e-9 and run.b == pytest.approx(lo, abs=1e-9)
    # definition by a loop over the four kinds of bounded point
    alpha = np.where(np.arange(60) % 3 == 0, 0.0, 1e-3)
    v = y - svm.decision_values(alpha, K, y)
    need_above = [v[i] for i in range(60) if (alpha[i] == 0 and y[i] > 0) or (alpha[i] == 1e-3 and y[i] < 0)]
    need_below = [v[i] for i in range(60) if (alpha[i] == 0 and y[i] < 0) or (alpha[i] == 1e-3 and y[i] > 0)]
    assert svm.offset_interval(alpha, K, y, 1e-3) == (max(need_above), min(need_below))


def test_a_multiplier_a_rounding_error_inside_the_box_is_not_free():
    # 1-D points, every multiplier at the box C: the reduced problem of a leave-one-out refit
    X = np.array([[2.535], [1.975], [4.764], [-0.358]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    K, C = Linear()(X), 1.25333
    run = svm.smo(K, y, C=C, tol=1e-12)
    _, b_ref, model = _oracle(K, y, C)
    assert np.all(run.alpha == C)                                 # snapped onto the box
    assert run.b == pytest.approx(b_ref, abs=1e-6)                # libsvm's midpoint, -0.1419
    lo, hi = svm.offset_interval(run.alpha, K, y, C)
    assert run.b == pytest.approx(0.5 * (lo + hi)) and hi - lo > 1.5
    # one multiplier an ulp below C must not be taken as free (its v is an end of the interval)
    alpha = run.alpha.copy()
    alpha[0] = np.nextafter(C, 0)
    assert svm.offset(alpha, K, y, C) == pytest.approx(0.5 * (lo + hi), abs=1e-9)


def test_f_is_unique_while_the_multipliers_need_not_be():
    # every point twice: any split of a multiplier between the copies is optimal
    X, y = _data("overlapping", n=40, seed=21)
    X2, y2 = np.vstack([X, X]), np.r_[y, y]
    K2 = RBF(1.0)(X2)
    run = svm.smo(K2, y2, C=1.0, tol=1e-10)
    alpha_ref, b_ref, _ = _oracle(K2, y2, 1.0)
    f = svm.decision_values(run.alpha, K2, y2, run.b)
    assert_allclose(f, svm.decision_values(alpha_ref, K2, y2, b_ref), atol=1e-5)
    assert svm.dual_objective(run.alpha, K2, y2) == pytest.approx(svm.dual_objective(alpha_ref, K2, y2), rel=1e-9)
    # a second optimum: move each copy's multiplier onto the first copy where the box allows
    moved = run.alpha.copy()
    total = moved[:40] + moved[40:]
    moved[:40], moved[40:] = np.minimum(total, 1.0), total - np.minimum(total, 1.0)
    assert svm.dual_objective(moved, K2, y2) == pytest.approx(svm.dual_objective(run.alpha, K2, y2), rel=1e-12)
    assert_allclose(svm.decision_values(moved, K2, y2), svm.decision_values(run.alpha, K2, y2), atol=1e-12)
    assert np.count_nonzero(moved) != np.count_nonzero(run.alpha)   # another SV count, the same f


def test_cross_validation_against_a_loop():
    X, y = _data("rbf", n=60, seed=18)
    out = svm.cross_validate_svm(X, y, [0.1, 10.0], [0.5, 2.0], n_folds=3, random_state=0)
    order = np.random.default_rng(0).permutation(60)
    folds = np.array_split(order, 3)
    for a, C in enumerate([0.1, 10.0]):
        for g, gamma in enumerate([0.5, 2.0]):
            accs = []
            for fold in folds:
                train = np.setdiff1d(order, fold)
                ref = SVC(C=C, gamma=gamma, tol=1e-3).fit(X[train], y[train])
                accs.append(np.mean(ref.predict(X[fold]) == y[fold]))
            assert out["accuracy"][a, g] == pytest.approx(np.mean(accs), abs=1.5 / 60)
    best = np.unravel_index(out["accuracy"].argmax(), out["accuracy"].shape)
    assert (out["C"], out["gamma"]) == ([0.1, 10.0][best[0]], [0.5, 2.0][best[1]])


def test_refuses_bad_input():
    X, y = _data("rbf", n=20)
    K = RBF(1.0)(X)
    with pytest.raises(ValueError, match="both labels"):
        svm.smo(K, np.ones(20))
    with pytest.raises(ValueError, match="alpha must lie in the box"):
        svm.primal_objective(np.full(20, 2.0), 0.0, K, y, 1.0)
    with pytest.raises(ValueError, match="selection"):
        svm.smo(K, y, selection="random")
    with pytest.raises(ValueError, match="symmetric"):
        svm.smo(K + np.triu(np.ones((20, 20)), 1), y)
    with pytest.raises(ValueError, match="two classes"):
        svm.SupportVectorClassifier().fit(X, np.ones(20))
    assert list(itertools.combinations(range(3), 2)) == [(0, 1), (0, 2), (1, 2)]   # ovo's order
