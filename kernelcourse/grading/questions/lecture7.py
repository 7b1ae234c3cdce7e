"""Lecture 7 (support vector machines): exercise set ``ex7`` and the checkpoints ``l7.cp1``,
``l7.cp2`` of the lecture notebook.

The answers work on plain arrays: Gram matrices, labels in {-1, +1}, multipliers
``alpha`` in the box ``[0, C]``. The classic mistakes have their diagnoses: the box
forgotten when clipping, the offset taken from a support vector at the box, the labels
dropped from ``Q = (y y^T) o K``, and a step that breaks ``sum_i a_i y_i = 0``.

============  ======================  ====  ==========  ================================================
id            function                pts   kind        syllabus
============  ======================  ====  ==========  ================================================
l7.cp1        dual_objective          2     formula     7.3 sum_i a_i - 1/2 a^T Q a, Q = (y y^T) o K
l7.cp2        svm_offset              2     derive      7.4 b from the multipliers strictly inside the box
ex7.q1        clipped_pair_step       3     fix         7.6 SMO's two-variable step, clipped to the box
ex7.q2        svm_true_or_false       2     choice      7.4-7.6 five statements on KKT and SMO
ex7.q3        optimal_dual_value      2     predict     7.3 the optimal dual of two points, against C
ex7.q4        smallest_hard_margin_C  2     parameter   7.2 the smallest C that gives the hard margin back
ex7.q5        violating_pair          3     witness     7.6 a pair whose SMO step climbs the dual
ex7.q6        kkt_violation           3     derive      7.4 how far each point is from its KKT condition
============  ======================  ====  ==========  ================================================
"""
from __future__ import annotations

import warnings

import numpy as np

from ...kernels import RBF, Linear
from ...svm import dual_objective, offset, pair_step, smo
from ..core import Case, Diagnosis, Property, Question, choice_parts


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


# ===================================================================== l7.cp1
def _cases_dual(rng):
    cases = []
    for n in (4, 6, 9):
        _, y, K, C = _problem(rng, n)
        alpha = np.round(rng.uniform(0, C, size=n), 3)
        cases.append(Case((alpha, K, y), label=f"{n} points, random alpha"))
    return cases


def _dual_no_labels(alpha, K, y):
    return float(np.sum(alpha) - 0.5 * alpha @ K @ alpha)


def _dual_no_half(alpha, K, y):
    ay = alpha * y
    return float(np.sum(alpha) - ay @ K @ ay)


def _dual_one_label(alpha, K, y):
    return float(np.sum(alpha) - 0.5 * alpha @ (y[:, None] * K) @ alpha)


CP1 = Question(
    id="l7.cp1", title="the SVM dual objective", function="dual_objective", points=2, kind="formula",
    section="7.3", reference=dual_objective, cases=_cases_dual,
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
def _cases_offset(rng):
    cases = []
    for n in (8, 12, 16):
        for _ in range(20):
            _, y, K, C = _problem(rng, n)
            C = float(np.round(rng.uniform(0.3, 1.0), 2))
            alpha = _solved(K, y, C)
            free = (alpha > 0) & (alpha < C)
            if free.any() and (alpha >= C).any() and (alpha == 0).any():
                break
        cases.append(Case((alpha, K, y, C), label=f"{n} points, C = {C}"))
    return cases


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


CP2 = Question(
    id="l7.cp2", title="the offset b", function="svm_offset", points=2, kind="derive", section="7.4",
    reference=_reference_offset, cases=_cases_offset, rtol=1e-6, atol=1e-8,
    forbidden=("kernelcourse.svm.offset", "kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel",
               "kernelcourse.svm.SupportVectorClassifier"),
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
def _cases_step(rng):
    cases = []
    for label in ("different labels", "same labels", "different labels", "same labels", "random"):
        C = float(np.round(rng.uniform(0.5, 2.0), 2))
        a_i, a_j = np.round(rng.uniform(0, C, size=2), 3)
        y_i = 1.0
        y_j = -1.0 if label == "different labels" else 1.0 if label == "same labels" else float(rng.choice([-1, 1]))
        E_i, E_j = np.round(rng.normal(scale=3.0, size=2), 3)
        eta = float(np.round(rng.uniform(0.3, 2.0), 3))
        cases.append(Case((float(a_i), float(a_j), y_i, y_j, float(E_i), float(E_j), eta, C), label=label))
    # one step the box must cut
    cases.append(Case((0.9, 0.1, 1.0, -1.0, 5.0, -5.0, 0.5, 1.0), label="a long step, clipped"))
    return cases


def _reference_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    return pair_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C)


def _step_no_clip(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    new_j = alpha_j + y_j * (E_i - E_j) / eta
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def _step_box_of_j_only(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    new_j = min(C, max(0.0, alpha_j + y_j * (E_i - E_j) / eta))
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def _step_no_labels(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    a_i, new_j = _reference_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C)
    return alpha_i + (alpha_j - new_j), new_j


def _step_wrong_sign(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    a_i, new_j = _reference_step(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C)
    return alpha_i - y_i * y_j * (alpha_j - new_j), new_j


Q1 = Question(
    id="ex7.q1", title="SMO's clipped two-variable step", function="clipped_pair_step", points=3,
    kind="fix", section="7.6", reference=_reference_step, cases=_cases_step,
    forbidden=("kernelcourse.svm.pair_step", "kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel"),
    diagnoses=[
        Diagnosis("no box", "the new a_j must be clipped to [L, H]: without it a multiplier leaves "
                  "the box [0, C]", _step_no_clip),
        Diagnosis("box of a_j only", "clipping a_j to [0, C] is not enough: a_i moves too, so a_j "
                  "must stay in [L, H], where both stay in [0, C]", _step_box_of_j_only),
        Diagnosis("no labels", "a_i moves by y_i y_j (a_j_old - a_j_new); without the labels the step "
                  "breaks sum_i a_i y_i = 0 when y_i != y_j", _step_no_labels),
        Diagnosis("wrong sign", "a_i must move by y_i y_j (a_j_old - a_j_new), the opposite of a_j's "
                  "change times y_i y_j; your sign breaks sum_i a_i y_i = 0", _step_wrong_sign),
    ],
    hints=("the step moves along a_i y_i + a_j y_j = constant; both ends must stay in [0, C]",
           "for y_i != y_j: L = max(0, a_j - a_i), H = min(C, C + a_j - a_i); for y_i == y_j: "
           "L = max(0, a_i + a_j - C), H = min(C, a_i + a_j)"),
)


# ===================================================================== ex7.q2
#: the statements and whether each is true
STATEMENTS = {
    "box point": ("A training point with a_i = C lies on or inside the margin, or is misclassified.", True),
    "outside": ("A training point strictly outside the margin (y_i f(x_i) > 1) has a_i = 0.", True),
    "bound offset": ("The offset b may be computed from any support vector, also one with a_i = C.", False),
    "remove zero": ("Removing a training point with a_i = 0 and refitting changes the solution.", False),
    "one at a time": ("SMO could change a single multiplier per step instead of a pair.", False),
}


Q2 = Question(
    id="ex7.q2", title="true or false: KKT conditions and SMO", function="svm_true_or_false", points=2,
    kind="choice", section="7.4",
    **choice_parts({key: truth for key, (_, truth) in STATEMENTS.items()}, {
        "box point": ("box point outside", "a_i = C means the point pays slack: y_i f(x_i) <= 1, "
                      "on or inside the margin, possibly misclassified"),
        "outside": ("outside has alpha", "complementary slackness: y_i f(x_i) > 1 forces a_i = 0 "
                    "(its constraint is not active)"),
        "bound offset": ("b from a bound SV", "a support vector with a_i = C may lie inside the "
                         "margin; only 0 < a_i < C puts it on the margin, where y_i (f_i + b) = 1 "
                         "gives b"),
        "remove zero": ("zero multipliers matter", "a point with a_i = 0 enters neither w nor b; "
                        "the same multipliers still satisfy every KKT condition without it"),
        "one at a time": ("single multiplier", "sum_i a_i y_i = 0 ties the multipliers: changing "
                          "one alone breaks it, so SMO changes two"),
    }, label=str, argument="key"),
    hints=("recall the three KKT cases of 7.4: a_i = 0, 0 < a_i < C, a_i = C",
           "two of the five statements are true"),
)


# ===================================================================== ex7.q3
#: two points on a line: x_1 = 2 with y = +1 and x_2 = -1 with y = -1, the linear kernel
_X2 = np.array([[2.0], [-1.0]])
_Y2 = np.array([1.0, -1.0])


def _cases_predict(rng):
    Cs = [float(np.round(rng.uniform(0.02, 0.2), 3)), float(np.round(rng.uniform(0.05, 0.21), 3)),
          float(np.round(rng.uniform(0.3, 5.0), 2)), float(np.round(rng.uniform(0.01, 0.1), 3))]
    return [Case((C,), label=f"C = {C}") for C in Cs]


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


Q3 = Question(
    id="ex7.q3", title="the optimal dual value of two points", function="optimal_dual_value", points=2,
    kind="predict", section="7.3", reference=_reference_predict, cases=_cases_predict, rtol=1e-4, atol=1e-6,
    forbidden=("kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel", "kernelcourse.svm.dual_objective",
               "kernelcourse.svm.SupportVectorClassifier"),
    diagnoses=[
        Diagnosis("no box", "for small C the box binds: a_1 = a_2 = C, not the hard-margin 2/9",
                  _predict_no_box),
        Diagnosis("no half", "the dual is 2a - 1/2 (3a)^2 along a_1 = a_2 = a: you dropped the 1/2",
                  _predict_no_half),
        Diagnosis("no labels", "Q_12 = y_1 y_2 x_1 x_2 = (+1)(-1)(2)(-1) = 2: keep the labels in Q",
                  _predict_no_labels),
    ],
    hints=("sum_i a_i y_i = 0 forces a_1 = a_2 = a; write the dual as a function of a alone",
           "with w = 3a the dual is 2a - 9a^2/2 on 0 <= a <= C: its top is at a = 2/9"),
)


# ===================================================================== ex7.q4
def _cases_hard(rng):
    cases = []
    for n in (4, 6, 8):
        left = -np.sort(np.round(rng.uniform(0.3, 3.0, n // 2), 2))
        right = np.sort(np.round(rng.uniform(0.3, 3.0, n - n // 2), 2)) + float(np.round(rng.uniform(0, 1), 2))
        x = np.concatenate([left, right])
        y = np.concatenate([-np.ones(n // 2), np.ones(n - n // 2)])
        cases.append(Case((x, y), label=f"{n} points on a line"))
    return cases


def _hard_alpha_max(x, y):
    X = np.asarray(x, float)[:, None]
    return float(_solved(Linear()(X), np.asarray(y, float), 1e6).max())


def _reference_hard(x, y):
    return 1.05 * _hard_alpha_max(x, y)


def _in_range(C, case):
    C = float(C)
    low = _hard_alpha_max(*case.args)
    return low * (1 - 1e-6) <= C <= 1.2 * low


def _hard_margin_width(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    gap = x[y > 0].min() - x[y < 0].max()
    return gap / 2.0


def _hard_mean_alpha(x, y):
    X = np.asarray(x, float)[:, None]
    return float(_solved(Linear()(X), np.asarray(y, float), 1e6).mean())


def _hard_norm_sq(x, y):
    return 2.0 * _hard_alpha_max(x, y) + 1.0


Q4 = Question(
    id="ex7.q4", title="the smallest C that gives the hard margin back", function="smallest_hard_margin_C",
    points=2, kind="parameter", section="7.2", reference=_reference_hard, cases=_cases_hard,
    forbidden=("kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel", "kernelcourse.svm.kkt_groups",
               "kernelcourse.svm.SupportVectorClassifier"),
    compare_reference=False, rtol=1e-9, atol=1e-12,
    properties=[Property("range", _in_range, "C must give the hard-margin solution (no multiplier at the "
                         "box) and be at most 1.2 times the smallest such C")],
    diagnoses=[
        Diagnosis("margin", "C prices slack; it is not the margin's width (half the gap between the "
                  "classes)", _hard_margin_width),
        Diagnosis("mean multiplier", "every multiplier must fit in the box: C at least the largest "
                  "hard-margin multiplier, not their mean", _hard_mean_alpha),
        Diagnosis("far too large", "a huge C gives the hard margin too, but the target is the smallest "
                  "such C, within 20%", _hard_norm_sq),
    ],
    hints=("the soft margin equals the hard one as soon as the box cuts no multiplier of the hard margin",
           "on a line the two innermost points of the two classes are the support vectors: the margin "
           "gives w, and w = sum_i a_i y_i x_i gives their multiplier"),
)


# ===================================================================== ex7.q5
def _sets(alpha, y, C):
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    return up, low


def _v(alpha, K, y):
    return y - (alpha * y) @ K


def _reference_pair(alpha, K, y, C):
    up, low = _sets(alpha, y, C)
    v = _v(alpha, K, y)
    return int(np.argmax(np.where(up, v, -np.inf))), int(np.argmin(np.where(low, v, np.inf)))


def _pair_all_points(alpha, K, y, C):
    v = _v(alpha, K, y)
    return int(np.argmax(v)), int(np.argmin(v))


def _pair_wrong_sign(alpha, K, y, C):
    up, low = _sets(alpha, y, C)
    v = _v(alpha, K, y)
    return int(np.argmin(np.where(up, v, np.inf))), int(np.argmax(np.where(low, v, -np.inf)))


def _pair_same(alpha, K, y, C):
    i, _ = _reference_pair(alpha, K, y, C)
    return i, i


def _as_pair(pair, n):
    try:
        i, j = (int(t) for t in pair)
    except Exception:
        return None
    return (i, j) if 0 <= i < n and 0 <= j < n else None


def _is_violating(pair, case):
    alpha, K, y, C = case.args
    p = _as_pair(pair, len(y))
    if p is None or p[0] == p[1]:
        return False
    up, low = _sets(alpha, y, C)
    v = _v(alpha, K, y)
    return bool(up[p[0]] and low[p[1]] and v[p[0]] > v[p[1]] + 1e-12)


def _detect_box(pair, case):
    alpha, K, y, C = case.args
    p = _as_pair(pair, len(y))
    if p is None or p[0] == p[1]:
        return False
    up, low = _sets(alpha, y, C)
    return not (up[p[0]] and low[p[1]])


def _detect_direction(pair, case):
    alpha, K, y, C = case.args
    p = _as_pair(pair, len(y))
    if p is None or p[0] == p[1]:
        return False
    up, low = _sets(alpha, y, C)
    v = _v(alpha, K, y)
    return bool(up[p[0]] and low[p[1]] and v[p[0]] <= v[p[1]])


def _detect_same(pair, case):
    p = _as_pair(pair, len(case.args[2]))
    return p is not None and p[0] == p[1]


def _cases_pair(rng):
    cases = []
    while len(cases) < 4:
        n = int(rng.integers(8, 14))
        _, y, K, C = _problem(rng, n)
        alpha = _partial(K, y, C, int(rng.integers(2, 6)))
        case = Case((alpha, K, y, C), label=f"{n} points after a few SMO steps")
        up, low = _sets(alpha, y, C)
        v = _v(alpha, K, y)
        if v[up].max() - v[low].min() < 0.1:
            continue
        # each mistake must show on some case: keep cases where the global pair leaves the sets
        if len(cases) < 2 and not _detect_box(_pair_all_points(*case.args), case):
            continue
        cases.append(case)
    return cases


Q5 = Question(
    id="ex7.q5", title="a violating pair", function="violating_pair", points=3, kind="witness",
    section="7.6", reference=_reference_pair, cases=_cases_pair, compare_reference=False,
    forbidden=("kernelcourse.svm.violating_pair_gap", "kernelcourse.svm.smo",
               "kernelcourse.svm.smo_kernel", "kernelcourse.svm.decision_values"),
    properties=[Property("violating", _is_violating, "(i, j) must be two indices with i in I_up, j in "
                         "I_low and v_i > v_j, where v = y - f: then the step a_i += y_i t, "
                         "a_j -= y_j t with a small t > 0 raises the dual")],
    diagnoses=[
        Diagnosis("same index", "a pair needs two different multipliers: sum_i a_i y_i = 0 cannot "
                  "hold if one moves alone", _pair_same, detect=_detect_same),
        Diagnosis("box", "i must be able to move up (y_i a_i can grow: a_i < C for y_i = +1, a_i > 0 "
                  "for y_i = -1) and j down; you took points pinned at a bound of the box",
                  _pair_all_points, detect=_detect_box),
        Diagnosis("direction", "the pair must violate: v_i > v_j with v = y - f; yours makes the dual "
                  "fall (a sign of y or of the gradient turned)", _pair_wrong_sign, detect=_detect_direction),
    ],
    hints=("I_up = {y = +1, a < C} or {y = -1, a > 0}; I_low = {y = +1, a > 0} or {y = -1, a < C}",
           "score each index by y_i minus the kernel-weighted sum of the products alpha_j y_j; "
           "i is the best score over I_up, j the worst over I_low"),
)


# ===================================================================== ex7.q6
def _cases_kkt(rng):
    cases = []
    for n in (6, 10, 14):
        _, y, K, C = _problem(rng, n)
        alpha = _partial(K, y, C, int(rng.integers(3, 8)))
        alpha[int(rng.integers(n))] = C            # one multiplier at the box, at least
        b = float(np.round(rng.normal(scale=0.3), 3))
        margins = y * ((alpha * y) @ K + b)
        cases.append(Case((np.round(alpha, 6), np.round(margins, 6), C), label=f"{n} points"))
    return cases


def _reference_kkt(alpha, margins, C):
    alpha, m = np.asarray(alpha, float), np.asarray(margins, float)
    return np.where(alpha <= 0, np.maximum(0, 1 - m),
                    np.where(alpha >= C, np.maximum(0, m - 1), np.abs(1 - m)))


def _kkt_box_as_free(alpha, margins, C):
    alpha, m = np.asarray(alpha, float), np.asarray(margins, float)
    return np.where(alpha <= 0, np.maximum(0, 1 - m), np.abs(1 - m))


def _kkt_zero_as_free(alpha, margins, C):
    alpha, m = np.asarray(alpha, float), np.asarray(margins, float)
    return np.where(alpha >= C, np.maximum(0, m - 1), np.abs(1 - m))


def _kkt_swapped(alpha, margins, C):
    alpha, m = np.asarray(alpha, float), np.asarray(margins, float)
    return np.where(alpha <= 0, np.maximum(0, m - 1),
                    np.where(alpha >= C, np.maximum(0, 1 - m), np.abs(1 - m)))


Q6 = Question(
    id="ex7.q6", title="KKT violations", function="kkt_violation", points=3, kind="derive", section="7.4",
    reference=_reference_kkt, cases=_cases_kkt,
    forbidden=("kernelcourse.svm.kkt_violations", "kernelcourse.svm.kkt_groups"),
    diagnoses=[
        Diagnosis("box as free", "a_i = C allows y_i f(x_i) <= 1 (slack): only a margin above 1 violates",
                  _kkt_box_as_free),
        Diagnosis("zero as free", "a_i = 0 allows any y_i f(x_i) >= 1: only a margin below 1 violates",
                  _kkt_zero_as_free),
        Diagnosis("swapped", "a_i = 0 needs y_i f(x_i) >= 1 and a_i = C needs y_i f(x_i) <= 1; you "
                  "swapped the two", _kkt_swapped),
    ],
    hints=("three cases, one per group of a_i: 0, strictly inside (0, C), and C",
           "violation max(0, 1 - m) for a_i = 0, |1 - m| inside, max(0, m - 1) for a_i = C"),
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6]
