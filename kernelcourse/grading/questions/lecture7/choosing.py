"""Lecture 7, choosing the machine and bounding its error: the multipliers when the RBF's gamma is
so large that the Gram matrix is the identity (ex7.q11, 7.8), and the leave-one-out bound with the
condition under which the lecture proves it (ex7.q12, 7.9)."""
from __future__ import annotations

import functools

import numpy as np

from ...model import Case, Diagnosis, Question
from .._typed import drawn_like


# ===================================================================== ex7.q11
def _class_sizes(y):
    y = np.asarray(y, dtype=float)
    return int(np.sum(y > 0)), int(np.sum(y < 0))


def _multipliers(y, a_pos, a_neg):
    return np.where(np.asarray(y, dtype=float) > 0, a_pos, a_neg)


def _identity_pair(y, C):
    """The multipliers of the smaller and of the larger class, and whether +1 is the smaller."""
    n_pos, n_neg = _class_sizes(y)
    small, large = min(n_pos, n_neg), max(n_pos, n_neg)
    a_small = min(C, 2.0 * large / (small + large))
    return a_small, a_small * small / large, n_pos <= n_neg


def _reference_identity(y, C):
    """With K = I the dual is sum_i a_i - |a|^2 / 2 under sum_i a_i y_i = 0 and the box: every
    point of a class gets one multiplier (the problem is strictly concave and symmetric within a
    class); the smaller class gets 2 n_larger / n, the larger one what balances it, and the box
    caps the smaller class's multiplier, which is the larger of the two."""
    a_small, a_large, pos_small = _identity_pair(y, C)
    return _multipliers(y, a_small, a_large) if pos_small else _multipliers(y, a_large, a_small)


def _identity_balanced(y, C):
    return _multipliers(y, min(C, 1.0), min(C, 1.0))


def _identity_no_box(y, C):
    n_pos, n_neg = _class_sizes(y)
    n = n_pos + n_neg
    return _multipliers(y, 2.0 * n_neg / n, 2.0 * n_pos / n)


def _identity_swapped(y, C):
    a_small, a_large, pos_small = _identity_pair(y, C)
    return _multipliers(y, a_large, a_small) if pos_small else _multipliers(y, a_small, a_large)


def _identity_clip_each(y, C):
    return np.minimum(C, _identity_no_box(y, C))


#: (labels, C, what the case shows): balanced and unbalanced classes, the box above and below
#: the unclipped multipliers; labels in no order, so the answer's order is checked
_IDENTITY = [
    ([1, -1, -1, 1, -1, 1], 2.0, "balanced classes, the box above 1"),
    ([-1, 1, 1, -1, 1, -1, -1, 1], 0.4, "balanced classes, the box below 1"),
    ([1, -1, -1, -1, 1, -1, -1, -1, 1, -1], 3.0, "3 against 7, the box above both multipliers"),
    ([-1, -1, 1, -1, -1, 1, -1, 1, -1, -1], 1.0, "3 against 7, the box caps the smaller class"),
    ([1, 1, -1, 1, 1, 1, -1, 1], 0.5, "6 against 2, the box caps the smaller class"),
    ([1, 1, -1, 1, 1, 1, 1, 1, 1, 1], 5.0, "9 against 1, the box above both multipliers"),
]


@functools.lru_cache(maxsize=None)
def _fixed_identity():
    return tuple(Case((np.array(y, dtype=float), C), label=label) for y, C, label in _IDENTITY)


def _draw_identity(balanced, capped):
    def draw(rng):
        n_small = int(rng.integers(1, 8))
        n_large = n_small if balanced else n_small + int(rng.integers(1, 9))
        y = np.r_[np.ones(n_small), -np.ones(n_large)] * (1 if rng.random() < 0.5 else -1)
        rng.shuffle(y)
        top = 2.0 * n_large / (n_small + n_large)
        C = float(np.round(rng.uniform(0.2, 0.95) * top if capped else rng.uniform(1.05, 3.0) * top, 2))
        return Case((y, C), label=f"{n_small} against {n_large}, C = {C:g}")
    return draw


Q11 = Question(
    id="ex7.q11", title="the multipliers when gamma is huge", function="identity_gram_multipliers",
    points=3, kind="derive", section="7.8", reference=_reference_identity,
    fixed_cases=_fixed_identity,
    cases=lambda rng: drawn_like(Q11, rng, [(_fixed_identity()[0], _draw_identity(True, False)),
                                            (_fixed_identity()[1], _draw_identity(True, True)),
                                            (_fixed_identity()[2], _draw_identity(False, False)),
                                            (_fixed_identity()[3], _draw_identity(False, True))]),
    forbidden=("kernelcourse.svm.smo", "kernelcourse.svm.SupportVectorClassifier",
               "kernelcourse.svm.pair_step"),
    diagnoses=[
        Diagnosis("no balance", "each multiplier was found as if alone; the dual also asks "
                  "sum_i a_i y_i = 0, which ties the two classes' multipliers when their sizes "
                  "differ", _identity_balanced),
        Diagnosis("no box", "the multipliers are right without the box, but one of them is above C; "
                  "the box [0, C] caps it, and the constraint then moves the other",
                  _identity_no_box),
        Diagnosis("classes swapped", "the larger multiplier went to the larger class; balancing "
                  "sum_i a_i y_i = 0 needs the larger multiplier on the class with fewer points",
                  _identity_swapped),
        Diagnosis("each clipped alone", "both multipliers were clipped to the box on their own, which "
                  "breaks sum_i a_i y_i = 0; cap the smaller class's multiplier and let the "
                  "constraint give the other", _identity_clip_each),
    ],
    hints=("with K = I the dual's quadratic term is a plain sum of squares: by symmetry every point of "
           "a class ends with the same multiplier, so there are two numbers to find",
           "find the two numbers first without the box, from the constraint and the derivative of "
           "the objective; then ask which of them the box can cut, and what the constraint does then"),
)


# ===================================================================== ex7.q12
def _reference_loo(alpha, C):
    """#SV / n when a multiplier strictly inside the box fixes b (7.9), else the trivial 1."""
    alpha = np.asarray(alpha, dtype=float)
    if np.any((alpha > 0) & (alpha < C)):
        return np.count_nonzero(alpha > 0) / alpha.size
    return 1.0


def _loo_free_only(alpha, C):
    alpha = np.asarray(alpha, dtype=float)
    free = (alpha > 0) & (alpha < C)
    return np.count_nonzero(free) / alpha.size if np.any(free) else 1.0


def _loo_box_only(alpha, C):
    alpha = np.asarray(alpha, dtype=float)
    if np.any((alpha > 0) & (alpha < C)):
        return np.count_nonzero(alpha >= C) / alpha.size
    return 1.0


def _loo_unconditional(alpha, C):
    alpha = np.asarray(alpha, dtype=float)
    return np.count_nonzero(alpha > 0) / alpha.size


def _loo_count(alpha, C):
    alpha = np.asarray(alpha, dtype=float)
    if np.any((alpha > 0) & (alpha < C)):
        return float(np.count_nonzero(alpha > 0))
    return 1.0


#: (multipliers, C, what the case shows)
_LOO = [
    ([0.0, 0.3, 1.0, 0.0, 0.55, 0.0, 0.9, 0.0], 1.0, "3 free and 1 at the box among 8"),
    ([0.0, 2.0, 0.0, 0.0, 2.0, 2.0, 0.0], 2.0, "no free multiplier: 3 at the box, 4 at zero"),
    ([0.5, 0.5, 0.1, 0.5, 0.0, 0.5], 0.5, "1 free and 4 at the box among 6"),
    ([0.2, 0.7, 0.4, 0.05, 0.6], 0.8, "every point a free support vector"),
    ([0.0, 0.0, 0.0, 0.0], 1.0, "every multiplier zero: nothing fixes b"),
    ([0.0, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 0.25, "one support vector, at the box"),
]


@functools.lru_cache(maxsize=None)
def _fixed_loo():
    return tuple(Case((np.array(a, dtype=float), C), label=label) for a, C, label in _LOO)


def _draw_loo(free, at_box):
    def draw(rng):
        n = int(rng.integers(5, 16))
        C = float(np.round(rng.uniform(0.2, 3.0), 2))
        groups = rng.choice(3, size=n, p=[0.4, 0.35 if free else 0.0, 0.25 if free else 0.6]
                            if at_box else [0.4, 0.6, 0.0])
        alpha = np.where(groups == 0, 0.0, np.where(groups == 2, C, np.round(rng.uniform(0.05, 0.95, n) * C, 3)))
        return Case((alpha, C), label=f"{n} multipliers, C = {C:g}")
    return draw


Q12 = Question(
    id="ex7.q12", title="the leave-one-out bound and when it holds", function="loo_error_bound",
    points=3, kind="derive", section="7.9", reference=_reference_loo, fixed_cases=_fixed_loo,
    cases=lambda rng: drawn_like(Q12, rng, [(_fixed_loo()[0], _draw_loo(True, True)),
                                            (_fixed_loo()[1], _draw_loo(False, True)),
                                            (_fixed_loo()[3], _draw_loo(True, False))]),
    forbidden=("kernelcourse.svm.loo_bound", "kernelcourse.svm.kkt_groups"),
    diagnoses=[
        Diagnosis("free points only", "only the points with 0 < a_i < C were counted; a point at the "
                  "box is a support vector too, and leaving it out can change the machine",
                  _loo_free_only),
        Diagnosis("box points only", "only the points at a_i = C were counted; a free support vector "
                  "can be lost too when it is left out", _loo_box_only),
        Diagnosis("no condition", "the bound #SV/n was returned without its condition; the argument "
                  "needs the refit to return the same b, which holds when some multiplier is strictly "
                  "inside the box (7.4); without one, only the trivial bound 1 is proved",
                  _loo_unconditional),
        Diagnosis("a count, not a fraction", "the number of support vectors was returned; the bound "
                  "is on the fraction of leave-one-out errors, so divide by n", _loo_count),
    ],
    hints=("leaving out a point that plays no part in the solution: what does the refit return, and "
           "what must be unique for that argument to hold?",
           "7.4 says when the offset b is determined by the multipliers; the bound needs that case"),
)

QUESTIONS = [Q11, Q12]
