"""Lecture 7, SMO: the clipped two-variable step (ex7.q1), a violating pair (ex7.q5) and Fan,
Chen and Lin's second-order choice of the second index (ex7.q10)."""
from __future__ import annotations

import functools

import numpy as np

from ....kernels import RBF
from ....svm import pair_step
from ...model import Case, Diagnosis, Property, Question
from .._typed import drawn_like
from ._common import _fixed, _partial, _problem


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
    # eta is 1 wherever the step is not clipped above, where dividing by eta, multiplying by
    # it or leaving it out agree; and the new a_j = 0.4 lies below one half, inside [0, H]
    ((0.4, 0.3, 1.0, -1.0, 0.1, 0.3, 2.0, 1.0), "labels differ, the step of E / eta with eta = 2 "
                                                "stays inside [L, H]"),
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
        # found by the question audit (kernelcourse grade --audit-questions ex7.q5): where a
        # slip in I_low's test or in v = y - K (a * y) picks a pair that does not climb
        _fixed(928, lambda rng: _pair_case(rng, 11) or Case(()), lambda c: bool(c.args),
               "11 points after a few SMO steps, the smallest v of a -1 label pinned at a = C"),
        _fixed(938, lambda rng: _pair_case(rng, 11) or Case(()), lambda c: bool(c.args),
               "11 points after a few SMO steps, the first index of I_up below all of I_low"),
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
        # found by the question audit (kernelcourse grade --audit-questions ex7.q10)
        _fixed(791, lambda rng: _second_case(rng, 12) or Case(()), lambda c: bool(c.args),
               "12 points: another curvature eta_ij (K_ii + K_jj - 2 K_ij) picks another j"),
        _fixed(792, lambda rng: _second_case(rng, 12) or Case(()), lambda c: bool(c.args),
               "12 points: another power of the violation v_i - v_j picks another j"),
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
