"""Lecture 7 (support vector machines), exercise set ``ex7``, questions 5-10: the KKT
conditions measured, SMO's pairs, the offset with no free multiplier, the duality gap as a
bound, and more than two classes (questions 1-4 and the checkpoints are in :mod:`.lecture7`).

============  ======================  ====  ==========  ================================================
id            function                pts   kind        syllabus
============  ======================  ====  ==========  ================================================
ex7.q5        violating_pair          3     witness     7.6 a pair whose SMO step climbs the dual
ex7.q6        kkt_violation           3     derive      7.4 how far each point is from its KKT condition
ex7.q7        offset_interval         3     derive      7.4 the offsets allowed when no multiplier is free
ex7.q8        machine_sizes           2     predict     7.10 one-vs-rest and one-vs-one: machines and sizes
ex7.q9        dual_gap_bound          3     derive      7.7 a bound on the dual's distance to its optimum
ex7.q10       second_order_j          3     derive      7.6 Fan, Chen and Lin's second index
============  ======================  ====  ==========  ================================================
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from ...kernels import RBF, Linear
from ...svm import dual_objective, offset, offset_interval, smo
from ..core import Case, Diagnosis, Property, Question
from ._typed import drawn_like
from .lecture7 import _fixed, _partial, _problem


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


def _pair_fixed(alpha, K, y, C):
    return 0, 1


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


def _clear(alpha, K, y, C, eps=1e-7):
    """No near-tie: every two values of v that an answer compares differ by more than eps (a
    pair violating by a rounding error is no pair, and an argmax must not hinge on one)."""
    up, low = _sets(alpha, y, C)
    v = _v(alpha, K, y)
    d = np.abs(v[:, None] - v[None, :])
    np.fill_diagonal(d, np.inf)
    both = (up | low)
    return bool(d[np.ix_(both, both)].min() > eps)


def _pair_case(rng, n=None):
    n = int(rng.integers(8, 14)) if n is None else n
    _, y, K, C = _problem(rng, n)
    alpha = _partial(K, y, C, int(rng.integers(2, 6)))
    up, low = _sets(alpha, y, C)
    v = _v(alpha, K, y)
    if v[up].max() - v[low].min() < 0.1 or not _clear(alpha, K, y, C):
        return None
    return Case((alpha, K, y, C), label=f"{n} points after a few SMO steps")


def _box_shows(case):
    return case is not None and _detect_box(_pair_all_points(*case.args), case)


@functools.lru_cache(maxsize=None)
def _fixed_pair():
    _, y, K, C = _problem(np.random.default_rng(705), 10)
    return (
        Case((np.zeros(10), K, y, C), label="10 points at the start, a = 0"),
        _fixed(706, lambda rng: _pair_case(rng, 12) or Case(()),
               lambda c: bool(c.args) and _box_shows(c), "12 points after a few SMO steps, some at the box"),
        _fixed(707, lambda rng: _pair_case(rng, 9) or Case(()),
               lambda c: bool(c.args) and not _box_shows(c), "9 points after a few SMO steps"),
    )


Q5 = Question(
    id="ex7.q5", title="a violating pair", function="violating_pair", points=3, kind="witness",
    section="7.6", reference=_reference_pair, fixed_cases=_fixed_pair, compare_reference=False,
    cases=lambda rng: drawn_like(Q5, rng, [(_fixed_pair()[1], _pair_case), (_fixed_pair()[2], _pair_case)]),
    forbidden=("kernelcourse.svm.violating_pair_gap", "kernelcourse.svm.smo",
               "kernelcourse.svm.smo_kernel", "kernelcourse.svm.decision_values"),
    properties=[Property("violating", _is_violating, "(i, j) is not a pair whose step "
                         "a_i += y_i t, a_j -= y_j t with a small t > 0 stays in the box and raises "
                         "the dual")],
    diagnoses=[
        Diagnosis("same index", "a pair needs two different multipliers: sum_i a_i y_i = 0 cannot "
                  "hold if one moves alone", _pair_same, detect=_detect_same),
        Diagnosis("box", "i must be able to move up (y_i a_i can grow: a_i < C for y_i = +1, a_i > 0 "
                  "for y_i = -1) and j down; you took points pinned at a bound of the box",
                  _pair_all_points, detect=_detect_box),
        Diagnosis("direction", "the dual's slope along the step is v_i - v_j with v = y - f: yours is "
                  "not positive, so the dual falls (a sign of y or of the gradient turned)",
                  _pair_wrong_sign, detect=_detect_direction),
        Diagnosis("a fixed pair", "a pair that climbs depends on the multipliers, K and y: the same "
                  "indices for every input climb only by chance", _pair_fixed),
    ],
    hints=("differentiate the dual along a_i += y_i t, a_j -= y_j t at t = 0: the slope is a difference "
           "of two numbers, one per index",
           "then ask, for each sign of y_i, which values of a_i let a_i + y_i t stay in [0, C] for a "
           "small t > 0 (and the same for j with -y_j t)"),
)


# ===================================================================== ex7.q6
@functools.lru_cache(maxsize=None)
def _fixed_kkt():
    C = 1.0
    return (
        Case((np.zeros(4), np.array([1.5, 0.4, 1.0, -0.3]), C), label="every a_i = 0"),
        Case((np.full(4, C), np.array([0.2, 1.7, 1.0, -0.5]), C), label="every a_i = C"),
        Case((np.array([0.3, 0.5, 0.9, 0.2]), np.array([1.0, 1.3, 0.6, 1.0]), C), label="every a_i free"),
        Case((np.array([0.0, 0.0, 0.5, 0.5, C, C, 0.0, C]),
              np.array([1.5, 0.4, 1.0, 1.3, 0.2, 1.7, 1.0, 1.0]), C), label="all three groups"),
    )


def _draw_kkt(group):
    def draw(rng):
        n = int(rng.integers(5, 10))
        C = float(np.round(rng.uniform(0.5, 3.0), 2))
        if group == "zero":
            alpha = np.zeros(n)
        elif group == "box":
            alpha = np.full(n, C)
        elif group == "free":
            alpha = np.round(rng.uniform(0.05, 0.95, n) * C, 4)
        else:
            alpha = np.round(rng.choice([0.0, 0.5, 1.0], n) * C, 4)
        margins = np.round(rng.normal(1.0, 0.8, n), 4)
        return Case((alpha, margins, C), label=f"{n} points, C = {C}")
    return draw


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


def _kkt_one_sided_free(alpha, margins, C):
    alpha, m = np.asarray(alpha, float), np.asarray(margins, float)
    return np.where(alpha <= 0, np.maximum(0, 1 - m),
                    np.where(alpha >= C, np.maximum(0, m - 1), np.maximum(0, 1 - m)))


Q6 = Question(
    id="ex7.q6", title="KKT violations", function="kkt_violation", points=3, kind="derive", section="7.4",
    reference=_reference_kkt, fixed_cases=_fixed_kkt,
    cases=lambda rng: drawn_like(Q6, rng, [(_fixed_kkt()[k], _draw_kkt(g))
                                           for k, g in enumerate(("zero", "box", "free", "mixed"))]),
    forbidden=("kernelcourse.svm.kkt_violations", "kernelcourse.svm.kkt_groups"),
    diagnoses=[
        Diagnosis("box as free", "a_i = C allows y_i f(x_i) <= 1 (slack): only a margin above 1 violates",
                  _kkt_box_as_free),
        Diagnosis("zero as free", "a_i = 0 allows any y_i f(x_i) >= 1: only a margin below 1 violates",
                  _kkt_zero_as_free),
        Diagnosis("swapped", "a_i = 0 needs y_i f(x_i) >= 1 and a_i = C needs y_i f(x_i) <= 1; you "
                  "swapped the two", _kkt_swapped),
        Diagnosis("free one-sided", "a free multiplier, 0 < a_i < C, puts its point exactly on the margin: "
                  "a margin above 1 violates too", _kkt_one_sided_free),
    ],
    hints=("complementary slackness gives one condition per group of a_i: 0, strictly inside (0, C), and C",
           "a_i > 0 makes the margin constraint active (y_i f = 1 - xi_i); a_i < C makes xi_i = 0"),
)



# ===================================================================== ex7.q7
def _interval_case(rng, n=None, balanced=False):
    n = int(rng.integers(8, 14)) if n is None else n
    _, y, K, _ = _problem(rng, n)
    C = float(np.round(rng.uniform(0.005, 0.05), 3))
    alpha = smo(K, y, C=C, tol=1e-12).alpha
    if np.any((alpha > 0) & (alpha < C)):
        return None
    if balanced != bool(np.all(alpha == C)):
        return None
    return Case((alpha, K, y, C), label=f"{n} points, C = {C}, no multiplier free")


@functools.lru_cache(maxsize=None)
def _fixed_interval():
    x = np.array([[2.535], [1.975], [4.764], [-0.358]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    return (
        Case((np.full(4, 1.25333), Linear()(x), y, 1.25333),
             label="4 points on a line, every a_i = C (b anywhere in [-0.953, 0.670])"),
        _fixed(710, lambda rng: _interval_case(rng, 10, balanced=True) or Case(()), lambda c: bool(c.args),
               "10 points, every a_i = C"),
        _fixed(711, lambda rng: _interval_case(rng, 11) or Case(()), lambda c: bool(c.args),
               "11 points, a_i = 0 or C"),
    )


def _reference_interval(alpha, K, y, C):
    return offset_interval(alpha, K, y, C)


def _interval_parts(alpha, K, y, C):
    v = y - (alpha * y) @ K
    return v, y > 0, alpha == 0


def _interval_reversed(alpha, K, y, C):
    lo, hi = _reference_interval(alpha, K, y, C)
    return hi, lo


def _interval_by_label(alpha, K, y, C):
    v, pos, _ = _interval_parts(alpha, K, y, C)
    return float(v[pos].max()), float(v[~pos].min())


def _interval_zero_only(alpha, K, y, C):
    v, pos, zero = _interval_parts(alpha, K, y, C)
    lo = v[pos & zero].max() if np.any(pos & zero) else -np.inf
    hi = v[~pos & zero].min() if np.any(~pos & zero) else np.inf
    return float(lo), float(hi)


def _interval_sign(alpha, K, y, C):
    lo, hi = offset_interval(alpha, K, -y, C)     # f - y in place of y - f
    return lo, hi


Q7 = Question(
    id="ex7.q7", title="the offsets allowed when no multiplier is free", function="offset_interval",
    points=3, kind="derive", section="7.4", reference=_reference_interval, fixed_cases=_fixed_interval,
    cases=lambda rng: drawn_like(Q7, rng, [(_fixed_interval()[1], lambda r: _interval_case(r, balanced=True)),
                                           (_fixed_interval()[2], _interval_case)]),
    rtol=1e-7, atol=1e-9,
    forbidden=("kernelcourse.svm_bounds.offset_interval", "kernelcourse.svm.offset", "kernelcourse.svm.smo",
               "kernelcourse.svm.smo_kernel", "kernelcourse.svm.SupportVectorClassifier",
               "kernelcourse.svm.kkt_violations", "kernelcourse.svm.violating_pair_gap",
               "kernelcourse.svm_bounds.offset_interval"),
    diagnoses=[
        Diagnosis("reversed", "the lower end is the largest v_i that bounds b from below, the upper "
                  "end the smallest that bounds it from above; yours are the other way round",
                  _interval_reversed),
        Diagnosis("by label only", "a point at the box needs y_i (f_i + b) <= 1, the opposite "
                  "inequality of a point with a_i = 0: which side a point bounds b from depends on "
                  "its label and on whether a_i is 0 or C", _interval_by_label),
        Diagnosis("zero multipliers only", "the points at the box bound b too, from the side "
                  "opposite to a point with a_i = 0 of the same label", _interval_zero_only),
        Diagnosis("sign", "y_i (f_i + b) compared with 1 gives b against y_i - f_i, not f_i - y_i",
                  _interval_sign),
    ],
    hints=("write the KKT condition of each group as an inequality on b, with f_i = sum_j a_j y_j K_ji",
           "for y_i = +1 and a_i = 0, y_i (f_i + b) >= 1 says b >= 1 - f_i; do the other three "
           "combinations of label and bound"),
)


# ===================================================================== ex7.q8
def _reference_machines(counts, scheme):
    counts = [int(c) for c in counts]
    if len(counts) == 2:
        return [sum(counts)]
    if scheme == "ovr":
        return [sum(counts)] * len(counts)
    return [a + b for a, b in itertools.combinations(counts, 2)]


def _machines_ordered_pairs(counts, scheme):
    counts = [int(c) for c in counts]
    if scheme == "ovr":
        return _reference_machines(counts, scheme)
    return [a + b for a, b in itertools.permutations(counts, 2)]


def _machines_class_only(counts, scheme):
    counts = [int(c) for c in counts]
    if scheme == "ovo":
        return _reference_machines(counts, scheme)
    return counts if len(counts) > 2 else [sum(counts)]


def _machines_ovo_all(counts, scheme):
    counts = [int(c) for c in counts]
    if scheme == "ovr":
        return _reference_machines(counts, scheme)
    return [sum(counts)] * (len(counts) * (len(counts) - 1) // 2)


def _machines_two_for_two(counts, scheme):
    counts = [int(c) for c in counts]
    if len(counts) == 2 and scheme == "ovr":
        return [sum(counts)] * 2
    return _reference_machines(counts, scheme)


_SCHEMES = [([50, 50, 50, 50], "ovo"), ([50, 50, 50, 50], "ovr"), ([3, 10, 100], "ovo"),
            ([3, 10, 100], "ovr"), ([30, 70], "ovr"), ([30, 70], "ovo")]


@functools.lru_cache(maxsize=None)
def _fixed_machines():
    return tuple(Case((counts, scheme), label=f"classes of {counts} points, {scheme}")
                 for counts, scheme in _SCHEMES)


def _draw_machines(scheme, two=False):
    def draw(rng):
        k = 2 if two else int(rng.integers(3, 7))
        counts = [int(c) for c in rng.integers(2, 200, size=k)]
        return Case((counts, scheme), label=f"classes of {counts} points, {scheme}")
    return draw


Q8 = Question(
    id="ex7.q8", title="how many machines, on how many points", function="machine_sizes", points=2,
    kind="predict", section="7.10", reference=_reference_machines, fixed_cases=_fixed_machines,
    cases=lambda rng: drawn_like(Q8, rng, [(_fixed_machines()[2], _draw_machines("ovo")),
                                           (_fixed_machines()[3], _draw_machines("ovr")),
                                           (_fixed_machines()[4], _draw_machines("ovr", two=True))]),
    forbidden=("kernelcourse.svm.SupportVectorClassifier",),
    diagnoses=[
        Diagnosis("ordered pairs", "the machine of the pair (k, l) is the machine of (l, k) with its "
                  "labels swapped: one-vs-one trains one per unordered pair", _machines_ordered_pairs),
        Diagnosis("one class only", "one-vs-rest trains class k against all the others: every machine "
                  "sees every point", _machines_class_only),
        Diagnosis("one-vs-one on all points", "one-vs-one trains each pair's machine on that pair's "
                  "points only", _machines_ovo_all),
        Diagnosis("two machines for two classes", "with two classes, 'class 1 against the rest' and "
                  "'class 2 against the rest' are one machine with its labels swapped (7.3: the same "
                  "multipliers); one machine suffices", _machines_two_for_two),
    ],
    hints=("count the machines first, then ask which points each one is trained on",
           "swapping every label of a binary problem gives the same multipliers (7.3)"),
)


# ===================================================================== ex7.q9
def _primal_at(alpha, K, y, C, b):
    f = (alpha * y) @ K
    return 0.5 * float((alpha * y) @ f) + C * float(np.maximum(0.0, 1.0 - y * (f + b)).sum())


def _reference_subopt(alpha, K, y, C):
    v = y - (alpha * y) @ K            # the hinge sum is convex and piecewise linear in b, kinked at v
    best = min(_primal_at(alpha, K, y, C, b) for b in v)
    return best - dual_objective(alpha, K, y)


def _subopt_b0(alpha, K, y, C):
    return _primal_at(alpha, K, y, C, 0.0) - dual_objective(alpha, K, y)


def _subopt_offset_rule(alpha, K, y, C):
    return _primal_at(alpha, K, y, C, offset(alpha, K, y, C)) - dual_objective(alpha, K, y)


def _subopt_no_C(alpha, K, y, C):
    v = y - (alpha * y) @ K
    f = (alpha * y) @ K
    best = min(0.5 * float((alpha * y) @ f) + float(np.maximum(0.0, 1.0 - y * (f + b)).sum()) for b in v)
    return best - dual_objective(alpha, K, y)


def _subopt_primal_only(alpha, K, y, C):
    return _reference_subopt(alpha, K, y, C) + dual_objective(alpha, K, y)


def _subopt_case(rng, n=None, steps=None):
    n = int(rng.integers(8, 14)) if n is None else n
    _, y, K, C = _problem(rng, n)
    alpha = _partial(K, y, C, int(rng.integers(2, 8)) if steps is None else steps)
    return Case((alpha, K, y, C), label=f"{n} points after a few SMO steps")


@functools.lru_cache(maxsize=None)
def _fixed_subopt():
    _, y, K, C = _problem(np.random.default_rng(712), 8)
    optimum = smo(K, y, C=C, tol=1e-12).alpha
    return (
        Case((np.zeros(8), K, y, C), label="8 points, a = 0 (the bound is 2C min(n_+, n_-))"),
        Case((optimum, K, y, C), label="8 points at the optimum (the bound is 0)"),
        _fixed(713, lambda rng: _subopt_case(rng, 10), lambda c: True, "10 points after a few SMO steps"),
    )


Q9 = Question(
    id="ex7.q9", title="how far below the optimum: a bound from the primal", function="dual_gap_bound",
    points=3, kind="derive", section="7.7", reference=_reference_subopt, fixed_cases=_fixed_subopt,
    cases=lambda rng: drawn_like(Q9, rng, [(_fixed_subopt()[2], _subopt_case),
                                           (_fixed_subopt()[2], _subopt_case)]),
    rtol=1e-6, atol=1e-8,
    forbidden=("kernelcourse.svm.duality_gap", "kernelcourse.svm.primal_objective",
               "kernelcourse.svm.dual_objective", "kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel",
               "kernelcourse.svm.SupportVectorClassifier"),
    diagnoses=[
        Diagnosis("b = 0", "any b gives a bound, and the question asks for the smallest: minimise the "
                  "primal over b, not only at b = 0", _subopt_b0),
        Diagnosis("the offset rule", "7.4's offset belongs to the optimum; for these multipliers another b "
                  "gives a smaller primal, hence a tighter bound", _subopt_offset_rule),
        Diagnosis("no C", "the primal charges C per unit of hinge loss: 1/2 ||w||^2 + C sum_i xi_i",
                  _subopt_no_C),
        Diagnosis("primal only", "the bound on D(a*) - D(a) is the primal minus the dual at a, not the "
                  "primal alone", _subopt_primal_only),
    ],
    hints=("weak duality: the optimal dual equals the optimal primal, which is at most the primal at any "
           "w and b; take w = sum_i a_i y_i phi(x_i)",
           "the primal at that w is convex and piecewise linear in b: where can its minimum lie?"),
)


# ===================================================================== ex7.q10
def _second_parts(alpha, K, y, C):
    up, low = _sets(alpha, y, C)
    v = _v(alpha, K, y)
    i = int(np.argmax(np.where(up, v, -np.inf)))
    eta = np.maximum(K[i, i] + np.diag(K) - 2.0 * K[i], 1e-12)
    return i, v, up, low, eta


def _reference_second(alpha, K, y, C):
    i, v, _, low, eta = _second_parts(alpha, K, y, C)
    gain = np.where(low & (v < v[i]), (v[i] - v) ** 2 / eta, -np.inf)
    return int(np.argmax(gain))


def _second_max_violating(alpha, K, y, C):
    _, v, _, low, _ = _second_parts(alpha, K, y, C)
    return int(np.argmin(np.where(low, v, np.inf)))


def _second_all_points(alpha, K, y, C):
    i, v, _, _, eta = _second_parts(alpha, K, y, C)
    gain = np.where(v < v[i], (v[i] - v) ** 2 / eta, -np.inf)
    return int(np.argmax(gain))


def _second_linear(alpha, K, y, C):
    i, v, _, low, eta = _second_parts(alpha, K, y, C)
    gain = np.where(low & (v < v[i]), (v[i] - v) / eta, -np.inf)
    return int(np.argmax(gain))


def _second_no_violation(alpha, K, y, C):
    i, v, _, low, eta = _second_parts(alpha, K, y, C)
    gain = np.where(low & (np.arange(len(v)) != i), (v[i] - v) ** 2 / eta, -np.inf)
    return int(np.argmax(gain))


def _second_case(rng, n=None):
    n = int(rng.integers(10, 16)) if n is None else n
    _, y, K, C = _problem(rng, n)
    K = RBF(float(np.round(rng.uniform(0.2, 1.0), 2)))(np.round(rng.normal(size=(n, 2)), 3) + 0.8 * y[:, None])
    alpha = _partial(K, y, C, int(rng.integers(2, 8)))
    i, v, up, low, eta = _second_parts(alpha, K, y, C)
    gain = np.sort(np.where(low & (v < v[i]), (v[i] - v) ** 2 / eta, -np.inf))
    if v[i] - v[low].min() < 0.1 or not _clear(alpha, K, y, C) or gain[-1] - gain[-2] < 1e-6 * gain[-1]:
        return None
    return Case((alpha, K, y, C), label=f"{n} points after a few SMO steps")


def _differs_from(mistake):
    return lambda case: bool(case.args) and mistake(*case.args) != _reference_second(*case.args)


@functools.lru_cache(maxsize=None)
def _fixed_second():
    return (
        _fixed(714, lambda rng: _second_case(rng, 12) or Case(()), _differs_from(_second_max_violating),
               "12 points: the second-order j is not the maximal violator"),
        _fixed(715, lambda rng: _second_case(rng, 14) or Case(()), _differs_from(_second_all_points),
               "14 points: a point outside I_low would gain more"),
        _fixed(716, lambda rng: _second_case(rng, 12) or Case(()), _differs_from(_second_no_violation),
               "12 points: a j with v_j > v_i would score higher"),
        _fixed(717, lambda rng: _second_case(rng, 12) or Case(()), _differs_from(_second_linear),
               "12 points: the violation unsquared picks another j"),
    )


Q10 = Question(
    id="ex7.q10", title="Fan, Chen and Lin's second index", function="second_order_j", points=3,
    kind="derive", section="7.6", reference=_reference_second, fixed_cases=_fixed_second,
    cases=lambda rng: drawn_like(Q10, rng, [(_fixed_second()[0], _second_case),
                                            (_fixed_second()[3], _second_case)]),
    forbidden=("kernelcourse.svm.smo", "kernelcourse.svm.smo_kernel",
               "kernelcourse.svm.SupportVectorClassifier"),
    diagnoses=[
        Diagnosis("maximal violator", "that is the maximal violating j (the smallest v over I_low); the "
                  "second-order rule weighs each candidate's violation by the curvature eta_ij",
                  _second_max_violating),
        Diagnosis("outside I_low", "j must be able to lower y_j a_j: y_j = +1 with a_j > 0 or y_j = -1 "
                  "with a_j < C (I_low)", _second_all_points),
        Diagnosis("linear gain", "the dual's gain along the pair is the top of a parabola, "
                  "(v_i - v_j)^2 / (2 eta_ij): square the violation", _second_linear),
        Diagnosis("not violating", "only a j with v_j < v_i makes the step climb; a larger v_j gives a "
                  "large square but the dual falls that way", _second_no_violation),
    ],
    hints=("i is the maximal violator; for a candidate j, how much does the dual gain at the top of "
           "the parabola along a_i += y_i t, a_j -= y_j t, ignoring the box?",
           "the parabola has slope v_i - v_j and curvature eta_ij = K_ii + K_jj - 2 K_ij at t = 0"),
)


QUESTIONS = [Q5, Q6, Q7, Q8, Q9, Q10]
