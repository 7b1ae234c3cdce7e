"""Lecture 7 (support vector machines): exercise set ``ex7`` (questions 1-6; 7-10 are in
:mod:`.lecture7_more`) and the checkpoints ``l7.cp1``, ``l7.cp2`` of the lecture notebook.

The answers work on plain arrays: Gram matrices, labels in {-1, +1}, multipliers
``alpha`` in the box ``[0, C]``. Every question grades on fixed cases, the same in every
run, that expose each mistake it names and the edge cases (the corners of the box, the
cases of the labels, the regimes of a formula), and on drawn cases of the same types
(:func:`._typed.drawn_like`), so that an answer with a named mistake earns the same points
and the same diagnosis in every seed.

============  ======================  ====  ==========  ================================================
id            function                pts   kind        syllabus
============  ======================  ====  ==========  ================================================
l7.cp1        dual_objective          2     formula     7.3 sum_i a_i - 1/2 a^T Q a, Q = (y y^T) o K
l7.cp2        svm_offset              2     derive      7.4 b from the multipliers strictly inside the box
ex7.q1        clipped_pair_step       3     fix         7.6 SMO's two-variable step, clipped to the box
ex7.q2        svm_true_or_false       2     choice      7.4-7.9 six statements on KKT, SMO and the bound
ex7.q3        optimal_dual_value      2     predict     7.3 the optimal dual of two points, against C
ex7.q4        smallest_hard_margin_C  2     parameter   7.2 the smallest C that gives the hard margin back
============  ======================  ====  ==========  ================================================
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ...kernels import RBF, Linear
from ...svm import dual_objective, offset, pair_step, smo
from ..core import Case, Diagnosis, Property, Question
from ._typed import drawn_like


# --------------------------------------------------------------------- helpers
def _problem(rng, n, kernel="rbf"):
    """Points, labels (both present), a Gram matrix and a C."""
    X = np.round(rng.normal(size=(n, 2)), 3)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rng.shuffle(y)
    X = X + 0.8 * y[:, None]
    K = RBF(0.7)(X) if kernel == "rbf" else Linear()(X)
    C = float(np.round(rng.uniform(0.5, 3.0), 2))
    return X, y, K, C


def _solved(K, y, C):
    return smo(K, y, C=C, tol=1e-10).alpha


def _partial(K, y, C, steps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return smo(K, y, C=C, tol=1e-10, max_iter=steps, selection="max_violating").alpha


def _fixed(seed, make, accept, label, tries=500):
    """A fixed case: the first draw from ``default_rng(seed)`` that ``accept`` takes (the
    same in every run)."""
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        case = make(rng)
        if accept(case):
            case.label = label
            return case
    raise RuntimeError(f"no fixed case {label!r} from seed {seed}")


def _groups(alpha, C):
    return (alpha == 0), (alpha > 0) & (alpha < C), (alpha == C)


# ===================================================================== l7.cp1
def _dual_case(rng, n):
    _, y, K, C = _problem(rng, n)
    alpha = np.round(rng.uniform(0, C, size=n), 3)
    return Case((alpha, K, y), label=f"{n} points, random alpha")


@functools.lru_cache(maxsize=None)
def _fixed_dual():
    return (
        Case((np.array([0.5, 0.5]), np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([1.0, -1.0])),
             label="two points of opposite labels (dual 0.625)"),
        Case((np.zeros(4), np.eye(4) + 0.5, np.array([1.0, -1.0, 1.0, -1.0])),
             label="alpha = 0 (dual 0)"),
        _fixed(701, lambda rng: _dual_case(rng, 6), lambda case: True, "6 points, random alpha"),
    )


def _dual_no_labels(alpha, K, y):
    return float(np.sum(alpha) - 0.5 * alpha @ K @ alpha)


def _dual_no_half(alpha, K, y):
    ay = alpha * y
    return float(np.sum(alpha) - ay @ K @ ay)


def _dual_one_label(alpha, K, y):
    return float(np.sum(alpha) - 0.5 * alpha @ (y[:, None] * K) @ alpha)


CP1 = Question(
    id="l7.cp1", title="the SVM dual objective", function="dual_objective", points=2, kind="formula",
    section="7.3", reference=dual_objective, fixed_cases=_fixed_dual,
    cases=lambda rng: drawn_like(CP1, rng, [(_fixed_dual()[0], lambda r: _dual_case(r, 4)),
                                            (_fixed_dual()[2], lambda r: _dual_case(r, 9))]),
    forbidden=("kernelcourse.svm.dual_objective", "kernelcourse.svm.duality_gap"),
    diagnoses=[
        Diagnosis("no labels", "Q is K with the labels: Q_ij = y_i y_j K_ij; you used K alone",
                  _dual_no_labels),
        Diagnosis("no half", "the quadratic term carries a factor 1/2: sum a - 1/2 a^T Q a", _dual_no_half),
        Diagnosis("one label", "each entry of Q takes both labels, y_i and y_j, not only y_i",
                  _dual_one_label),
    ],
    hints=("the kernel enters through Q = (y y^T) o K only",
           "the quadratic term pairs every two products alpha_i y_i through K; form the vector "
           "of those products once"),
)


# ===================================================================== l7.cp2
def _offset_case(rng, n, want_bound=True):
    _, y, K, C = _problem(rng, n)
    C = float(np.round(rng.uniform(0.3, 1.0), 2))
    alpha = _solved(K, y, C)
    zero, free, box = _groups(alpha, C)
    if not free.any() or not zero.any() or box.any() != want_bound:
        return None
    return Case((alpha, K, y, C), label=f"{n} points, C = {C}")


@functools.lru_cache(maxsize=None)
def _fixed_offset():
    return (
        _fixed(702, lambda rng: _offset_case(rng, 12) or Case(()), lambda c: bool(c.args),
               "12 points with a_i = 0, free and at the box"),
        _fixed(703, lambda rng: _offset_case(rng, 8, want_bound=False) or Case(()), lambda c: bool(c.args),
               "8 points, none at the box (every support vector free)"),
    )


def _reference_offset(alpha, K, y, C):
    return offset(alpha, K, y, C)


def _offset_all_sv(alpha, K, y, C):
    v = y - (alpha * y) @ K
    return float(v[alpha > 0].mean())


def _offset_sign(alpha, K, y, C):
    f = (alpha * y) @ K
    free = (alpha > 0) & (alpha < C)
    return float((f - y)[free].mean())


def _offset_everyone(alpha, K, y, C):
    return float((y - (alpha * y) @ K).mean())


def _draw_offset(n, want_bound=True):
    def draw(rng):
        return _offset_case(rng, n, want_bound)
    return draw


CP2 = Question(
    id="l7.cp2", title="the offset b", function="svm_offset", points=2, kind="derive", section="7.4",
    reference=_reference_offset, fixed_cases=_fixed_offset, rtol=1e-6, atol=1e-8,
    cases=lambda rng: drawn_like(CP2, rng, [(_fixed_offset()[0], _draw_offset(16)),
                                            (_fixed_offset()[0], _draw_offset(10))]),
    forbidden=("kernelcourse.svm.offset", "kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel",
               "kernelcourse.svm.SupportVectorClassifier", "kernelcourse.svm_bounds.offset_interval"),
    diagnoses=[
        Diagnosis("bound support vectors", "a support vector with a_i = C may lie inside the margin, "
                  "where y_i f(x_i) < 1: only the free ones (0 < a_i < C) sit on it", _offset_all_sv),
        Diagnosis("sign", "on the margin y_i (f_i + b) = 1, so b = y_i - f_i, not f_i - y_i", _offset_sign),
        Diagnosis("every point", "only points on the margin fix b; a point with a_i = 0 may lie far "
                  "outside it", _offset_everyone),
    ],
    hints=("the points with 0 < a_i < C lie on the margin: y_i (f_i + b) = 1",
           "with f = (alpha * y) @ K, average y - f over the indices with 0 < alpha < C"),
)


# ===================================================================== ex7.q1
#: the fixed steps: (a_i, a_j, y_i, y_j, E_i, E_j, eta, C) and what each shows
_STEPS = [
    ((0.5, 0.3, 1.0, -1.0, -0.1, 0.1, 1.0, 1.0), "labels differ, the step stays inside [L, H]"),
    ((0.6, 0.2, 1.0, -1.0, -0.5, 0.5, 0.5, 1.0), "labels differ, clipped at H = C + a_j - a_i < C"),
    ((0.2, 0.7, 1.0, -1.0, 0.5, -0.5, 0.5, 1.0), "labels differ, clipped at L = a_j - a_i > 0"),
    ((0.3, 0.2, 1.0, 1.0, 2.0, -1.0, 1.0, 1.0), "same labels, clipped at H = a_i + a_j < C"),
    ((0.8, 0.6, 1.0, 1.0, -2.0, 1.0, 1.0, 1.0), "same labels, clipped at L = a_i + a_j - C > 0"),
    ((0.6, 0.3, -1.0, 1.0, 1.0, -1.0, 0.5, 1.0), "y_i = -1, labels differ, clipped at H = C + a_j - a_i < C"),
    ((0.2, 0.6, 1.0, -1.0, -2.0, 2.0, 1.0, 1.0), "labels differ, clipped at the corner a_j = C"),
    ((0.5, 0.2, 1.0, 1.0, -2.0, 1.0, 1.0, 2.0), "same labels, clipped at the corner a_j = 0"),
]


@functools.lru_cache(maxsize=None)
def _fixed_step():
    return tuple(Case(args, label=label) for args, label in _STEPS)


def _draw_step(y_i, y_j):
    def draw(rng):
        C = float(np.round(rng.uniform(0.5, 2.0), 2))
        a_i, a_j = (float(v) for v in np.round(rng.uniform(0.02, 0.98, size=2) * C, 3))
        E_i, E_j = (float(v) for v in np.round(rng.normal(scale=2.0, size=2), 3))
        eta = float(np.round(rng.uniform(0.3, 2.0), 3))
        return Case((a_i, a_j, y_i, y_j, E_i, E_j, eta, C), label=f"y_i = {y_i:+g}, y_j = {y_j:+g}, C = {C}")
    return draw


def _reference_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    return pair_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C)


def _step_no_clip(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    new_j = alpha_j + y_j * (E_i - E_j) / eta
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def _step_box_of_j_only(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    new_j = min(C, max(0.0, alpha_j + y_j * (E_i - E_j) / eta))
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def _step_clip_each(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    new_j = min(C, max(0.0, alpha_j + y_j * (E_i - E_j) / eta))
    return min(C, max(0.0, alpha_i + y_i * y_j * (alpha_j - new_j))), new_j


def _step_swapped_cases(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    if y_i == y_j:
        L, H = max(0.0, alpha_j - alpha_i), min(C, C + alpha_j - alpha_i)
    else:
        L, H = max(0.0, alpha_i + alpha_j - C), min(C, alpha_i + alpha_j)
    new_j = min(H, max(L, alpha_j + y_j * (E_i - E_j) / eta))
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def _step_no_labels(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    a_i, new_j = _reference_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C)
    return alpha_i + (alpha_j - new_j), new_j


def _step_wrong_sign(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    a_i, new_j = _reference_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C)
    return alpha_i - y_i * y_j * (alpha_j - new_j), new_j


Q1 = Question(
    id="ex7.q1", title="SMO's clipped two-variable step", function="clipped_pair_step", points=3,
    kind="fix", section="7.6", reference=_reference_step, fixed_cases=_fixed_step,
    cases=lambda rng: drawn_like(Q1, rng, [(_fixed_step()[k], _draw_step(*_STEPS[k][0][2:4]))
                                           for k in (1, 3, 4, 5)]),
    forbidden=("kernelcourse.svm.pair_step", "kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel"),
    diagnoses=[
        Diagnosis("no box", "the new a_j must be clipped to [L, H]: without it a multiplier leaves "
                  "the box [0, C]", _step_no_clip),
        Diagnosis("box of a_j only", "clipping a_j to [0, C] is not enough: a_i moves too, so a_j "
                  "must stay in [L, H], where both stay in [0, C]", _step_box_of_j_only),
        Diagnosis("clip each", "clipping a_i and a_j to [0, C] one after the other breaks "
                  "a_i y_i + a_j y_j = const: clip a_j to [L, H] and let a_i follow", _step_clip_each),
        Diagnosis("label cases swapped", "the bounds of the two label cases are swapped: for y_i != y_j "
                  "the difference a_j - a_i is kept, for y_i == y_j the sum a_i + a_j", _step_swapped_cases),
        Diagnosis("no labels", "a_i moves by y_i y_j (a_j_old - a_j_new); without the labels the step "
                  "breaks sum_i a_i y_i = 0 when y_i != y_j", _step_no_labels),
        Diagnosis("wrong sign", "a_i must move by y_i y_j (a_j_old - a_j_new), the opposite of a_j's "
                  "change times y_i y_j; your sign breaks sum_i a_i y_i = 0", _step_wrong_sign),
    ],
    hints=("the step moves along a_i y_i + a_j y_j = constant; both ends must stay in [0, C]",
           "write a_i as a function of a_j on that line, for y_i = y_j and for y_i != y_j, and ask "
           "for which a_j it lies in [0, C]"),
)


# ===================================================================== ex7.q2
#: the statements and whether each is true
STATEMENTS = {
    "box point": ("A training point with a_i = C lies on or inside the margin, or is misclassified.", True),
    "outside": ("A training point strictly outside the margin (y_i f(x_i) > 1) has a_i = 0.", True),
    "bound offset": ("The offset b may be computed from any support vector, also one with a_i = C.", False),
    "remove zero": ("When some multiplier is free (0 < a_i < C), removing a training point with a_i = 0 "
                    "and refitting changes the decision function f.", False),
    "one at a time": ("For the SVM with an offset b, SMO could change a single multiplier per step "
                      "instead of a pair.", False),
    "many SVs": ("A large C makes many support vectors, so a high #SV/n warns of overfitting.", False),
}
_TRUTH = {key: truth for key, (_, truth) in STATEMENTS.items()}
_WHY = {
    "box point": ("box point outside", "a_i = C means the point pays slack: y_i f(x_i) <= 1, on or "
                  "inside the margin, possibly misclassified"),
    "outside": ("outside has alpha", "complementary slackness: y_i f(x_i) > 1 forces a_i = 0 (its "
                "constraint is not active)"),
    "bound offset": ("b from a bound SV", "a support vector with a_i = C may lie inside the margin; only "
                     "0 < a_i < C puts it on the margin, where y_i (f_i + b) = 1 gives b"),
    "remove zero": ("zero multipliers matter", "a point with a_i = 0 enters neither w nor b; the other "
                    "multipliers still satisfy every KKT condition without it, and with a free "
                    "multiplier fixing b the solution f is the same"),
    "one at a time": ("single multiplier", "with an offset, sum_i a_i y_i = 0 ties the multipliers: "
                      "changing one alone breaks it, so SMO changes two (lecture 4.8's machine had "
                      "no offset, hence no such constraint)"),
    "many SVs": ("many SVs overfit", "a small C makes the most support vectors: it widens the margin "
                 "until most points sit inside it (7.8's table: 120 of 120 at C = 0.1, gamma = 0.03, "
                 "an underfitting model)"),
}


def _truth(answer):
    """True or False from a bool, a NumPy bool or a 0-d boolean array (None for anything else)."""
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    if isinstance(answer, np.ndarray) and answer.shape == () and answer.dtype == bool:
        return bool(answer)
    return None


def _reference_truth(key):
    return _TRUTH[key]


_reference_truth.answer_key = dict(_TRUTH)


def _all_right_but(statement):
    return lambda key: (not _TRUTH[key]) if key == statement else _TRUTH[key]


def _detect_truth(statement):
    return lambda answer, case: case.args[0] == statement and _truth(answer) == (not _TRUTH[statement])


@functools.lru_cache(maxsize=None)
def _fixed_truth():
    return tuple(Case((key,), label=f"statement {key!r}") for key in STATEMENTS)


def _cases_truth(rng):
    keys = list(STATEMENTS)
    return [Case((keys[i],), label=f"statement {keys[i]!r}") for i in rng.permutation(len(keys))]


Q2 = Question(
    id="ex7.q2", title="true or false: KKT conditions, SMO and the bound", function="svm_true_or_false",
    points=2, kind="choice", section="7.4", reference=_reference_truth, fixed_cases=_fixed_truth,
    cases=_cases_truth, compare_reference=False,
    properties=[Property("truth", lambda answer, case: _truth(answer) == _TRUTH[case.args[0]],
                         "not the truth value of this statement (answer True or False)")],
    diagnoses=[Diagnosis(name, message, _all_right_but(key), detect=_detect_truth(key))
               for key, (name, message) in _WHY.items()],
    hints=("recall the three KKT cases of 7.4 (a_i = 0, 0 < a_i < C, a_i = C), the constraint that "
           "the offset adds to the dual, and 7.8's table",
           "two of the six statements are true"),
)


# ===================================================================== ex7.q3
#: two points on a line: x_1 = 2 with y = +1 and x_2 = -1 with y = -1, the linear kernel
_X2 = np.array([[2.0], [-1.0]])
_Y2 = np.array([1.0, -1.0])
#: the fixed C: the box binds (below 1/9 and between 1/9 and 2/9), the kink 2/9, beyond it
_CS = [(0.05, "C = 0.05: the box binds"), (0.15, "C = 0.15: the box binds, above 1/9"),
       (2.0 / 9.0, "C = 2/9: the kink"), (1.0, "C = 1: beyond the kink"), (100.0, "C = 100")]


@functools.lru_cache(maxsize=None)
def _fixed_predict():
    return tuple(Case((C,), label=label) for C, label in _CS)


def _draw_C(low, high, digits=3):
    def draw(rng):
        C = float(np.round(rng.uniform(low, high), digits))
        return Case((C,), label=f"C = {C}")
    return draw


def _reference_predict(C):
    return dual_objective(_solved(Linear()(_X2), _Y2, C), Linear()(_X2), _Y2)


def _predict_no_box(C):
    return 2.0 / 9.0


def _predict_no_half(C):
    a = min(C, 1.0 / 9.0)          # max 2a - 9a^2
    return 2 * a - 9 * a * a


def _predict_no_labels(C):
    a = min(C, 2.0)                # a^T K a = a^2 for a_1 = a_2 = a: max 2a - a^2 / 2
    return 2 * a - 0.5 * a * a


def _predict_multiplier(C):
    return min(C, 2.0 / 9.0)


Q3 = Question(
    id="ex7.q3", title="the optimal dual value of two points", function="optimal_dual_value", points=2,
    kind="predict", section="7.3", reference=_reference_predict, fixed_cases=_fixed_predict,
    cases=lambda rng: drawn_like(Q3, rng, [(_fixed_predict()[0], _draw_C(0.01, 0.11)),
                                           (_fixed_predict()[1], _draw_C(0.112, 0.22)),
                                           (_fixed_predict()[3], _draw_C(0.3, 5.0, 2))]),
    rtol=1e-4, atol=1e-6,
    forbidden=("kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel", "kernelcourse.svm.dual_objective",
               "kernelcourse.svm.SupportVectorClassifier"),
    diagnoses=[
        Diagnosis("no box", "for small C the box binds: a_1 = a_2 = C, not the hard-margin 2/9",
                  _predict_no_box),
        Diagnosis("no half", "the dual is 2a - 1/2 (3a)^2 along a_1 = a_2 = a: you dropped the 1/2",
                  _predict_no_half),
        Diagnosis("no labels", "Q_12 = y_1 y_2 x_1 x_2 = (+1)(-1)(2)(-1) = 2: keep the labels in Q",
                  _predict_no_labels),
        Diagnosis("the multiplier", "that is the optimal multiplier a; the question asks for the dual's "
                  "value at it", _predict_multiplier),
    ],
    hints=("sum_i a_i y_i = 0 forces a_1 = a_2 = a; write the dual as a function of a alone",
           "the dual along a_1 = a_2 = a is a parabola in a; where is its top, and what if the box "
           "[0, C] cuts it off?"),
)


# ===================================================================== ex7.q4
def _line_case(left, right, label):
    x = np.concatenate([np.asarray(left, float), np.asarray(right, float)])
    y = np.concatenate([-np.ones(len(left)), np.ones(len(right))])
    return Case((x, y), label=label)


@functools.lru_cache(maxsize=None)
def _fixed_hard():
    return (
        _line_case([-1.0], [1.0], "two points, gap 2 (C = 1/2)"),
        _line_case([-2.0, -0.5, -3.1], [0.5, 1.7, 2.2], "six points, gap 1 (C = 2)"),
        _line_case([-0.9, -0.1], [0.3, 2.5], "four points, gap 0.4 (C = 12.5)"),
        _line_case([-2.6, -1.4], [0.2, 1.1, 3.0], "five points, gap 1.6"),
    )


def _draw_hard(n, low=0.3, high=3.0):
    def draw(rng):
        left = -np.sort(np.round(rng.uniform(low, high, n // 2), 2))
        right = np.sort(np.round(rng.uniform(low, high, n - n // 2), 2)) + float(np.round(rng.uniform(0, 1), 2))
        return _line_case(left, right, f"{n} points on a line")
    return draw


def _hard_alpha_max(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    return _hard_alpha_max_of(x.tobytes(), y.tobytes())


@functools.lru_cache(maxsize=4096)
def _hard_alpha_max_of(xb, yb):
    X, y = np.frombuffer(xb)[:, None], np.frombuffer(yb)
    return float(_solved(Linear()(X), y, 1e6).max())


def _reference_hard(x, y):
    return 1.05 * _hard_alpha_max(x, y)


def _in_range(C, case):
    C = float(C)
    low = _hard_alpha_max(*case.args)
    return low * (1 - 1e-6) <= C <= 1.2 * low


def _gap(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    return x[y > 0].min() - x[y < 0].max()


def _hard_margin_width(x, y):
    return _gap(x, y) / 2.0


def _hard_mean_alpha(x, y):
    return 4.0 / _gap(x, y) ** 2 / len(y)          # the two multipliers 2 / gap^2, averaged over n


def _hard_w(x, y):
    return 2.0 / _gap(x, y)


def _hard_half(x, y):
    return 1.0 / _gap(x, y) ** 2


def _hard_huge(x, y):
    return 1e6


def _detect_too_large(C, case):
    try:
        return float(C) > 1.2 * _hard_alpha_max(*case.args)
    except (TypeError, ValueError):
        return False


Q4 = Question(
    id="ex7.q4", title="the smallest C that gives the hard margin back", function="smallest_hard_margin_C",
    points=2, kind="parameter", section="7.2", reference=_reference_hard, fixed_cases=_fixed_hard,
    cases=lambda rng: drawn_like(Q4, rng, [(_fixed_hard()[1], _draw_hard(6)),
                                           (_fixed_hard()[3], _draw_hard(5))]),
    forbidden=("kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel", "kernelcourse.svm.kkt_groups",
               "kernelcourse.svm.SupportVectorClassifier"),
    compare_reference=False, rtol=1e-9, atol=1e-12,
    properties=[Property("range", _in_range, "C must give the hard-margin solution and be at most "
                         "1.2 times the smallest such C")],
    diagnoses=[
        Diagnosis("margin", "C prices slack; it is not the margin's width (half the gap between the "
                  "classes)", _hard_margin_width),
        Diagnosis("mean multiplier", "every multiplier must fit in the box: C at least the largest "
                  "hard-margin multiplier, not their mean", _hard_mean_alpha),
        Diagnosis("w for a", "2 / gap is ||w||, the slope of f; the multiplier follows from "
                  "w = sum_i a_i y_i x_i", _hard_w),
        Diagnosis("margin is the gap", "the margin 1 / ||w|| is half the gap between the classes, not "
                  "all of it: your ||w|| is half too small", _hard_half),
        Diagnosis("far too large", "a huge C gives the hard margin too, but the target is the smallest "
                  "such C, within 20%", _hard_huge, detect=_detect_too_large),
    ],
    hints=("the soft margin equals the hard one as soon as the box cuts no multiplier of the hard margin",
           "on a line the two innermost points of the two classes are the support vectors: the margin "
           "gives w, and w = sum_i a_i y_i x_i gives their multiplier"),
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4]
