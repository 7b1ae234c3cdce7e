"""Lecture 7, the KKT conditions measured: how far each point is from its condition (ex7.q6),
the offsets allowed when no multiplier is free (ex7.q7), the duality gap as a bound on the
distance to the optimum (ex7.q9)."""
from __future__ import annotations

import functools

import numpy as np

from ....kernels import Linear
from ....svm import dual_objective, offset, offset_interval, smo
from ...model import Case, Diagnosis, Question
from .._typed import drawn_like
from ._common import _fixed, _partial, _problem


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
