"""Lecture 7, the dual problem: its objective (l7.cp1), the offset from the free multipliers
(l7.cp2), the optimal dual value of two points against C (ex7.q3), the smallest C that
gives the hard margin back (ex7.q4)."""
from __future__ import annotations

import functools

import numpy as np

from ....kernels import Linear
from ....svm import dual_objective, offset
from ...model import Case, Diagnosis, Property, Question
from .._typed import drawn_like
from ._common import _fixed, _groups, _problem, _solved


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
