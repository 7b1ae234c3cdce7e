"""Exercise set 7 and lecture 7's checkpoints, through the real scoring path (issue 28):

* the fixed cases are the same in every run, the reference passes each of them, and each named
  mistake fails at least one of them;
* every case drawn is labelled, so a verdict names its case by its label (every diagnosis's
  mistake, as an answer, failing with identical points in 20 seeds, diagnosed as itself, beside
  a case where that mistake shows, and the reference's full marks in 100 seeds, are
  tests/test_grading_verdicts.py's);
* answers written as a student would (not the grader's mistakes) fail in every seed with the
  same points, named by the diagnosis that targets them, and right answers written another
  way pass in every seed.
"""
from __future__ import annotations

import numpy as np
import pytest

from kernelcourse.grading.model import transport
from kernelcourse.grading.questions import all_questions

from verdict_support import grade

QUESTIONS = {qid: q for qid, q in all_questions().items() if q.set_name in ("ex7", "l7")}
SEEDS = range(20)


def test_the_set_has_its_questions():
    assert [qid for qid in QUESTIONS if qid.startswith("ex7")] == [f"ex7.q{i}" for i in range(1, 13)]
    assert {"l7.cp1", "l7.cp2"} <= set(QUESTIONS)


@pytest.mark.parametrize("qid", list(QUESTIONS))
def test_fixed_cases_are_fixed_pass_the_reference_and_expose_every_named_mistake(qid):
    q = QUESTIONS[qid]
    fixed = q.make_fixed_cases()
    assert len(fixed) >= 2 and all(c.fixed and c.label for c in fixed)
    assert [transport.dumps(list(c.args)) for c in fixed] == \
        [transport.dumps(list(c.args)) for c in q.make_cases(12345)[:len(fixed)]]
    for case in fixed:
        ok, why = q.judge(q.expected(case), q.expected(case), case)
        assert ok, f"{qid}: the reference fails the fixed case {case.label!r}: {why}"
    for d in q.diagnoses:
        shows = [c.label for c in fixed
                 if not q.judge(transport.roundtrip(d.mistake(*c.copied()[0])), q.expected(c), c)[0]]
        assert shows, f"{qid}: no fixed case shows the mistake {d.name!r}"


@pytest.mark.parametrize("seeds", [pytest.param((0, 1), id="quick"),
                                   pytest.param(SEEDS, id="seeds", marks=pytest.mark.slow)])
@pytest.mark.parametrize("qid", list(QUESTIONS))
def test_every_case_is_labelled(qid, seeds):
    """A verdict names its case "case n (fixed|drawn, label)": every case has a label."""
    q = QUESTIONS[qid]
    for seed in seeds:
        unlabelled = [n for n, c in enumerate(q.make_cases(seed), 1) if not c.label]
        assert not unlabelled, f"{qid}, seed {seed}: cases {unlabelled} have no label"


# --------------------------------------------------------------------- answers as students write them
def _cp1_no_labels(alpha, K, y):
    return alpha.sum() - 0.5 * alpha @ K @ alpha


def _cp1_outer(alpha, K, y):                                  # right, written another way
    return float(np.sum(alpha) - 0.5 * np.sum(np.outer(alpha * y, alpha * y) * K))


def _cp1_one_side(alpha, K, y):
    return alpha.sum() - 0.5 * (alpha * y) @ K @ alpha


def _cp2_support(alpha, K, y, C):
    f = K @ (alpha * y)
    sv = alpha > 1e-8
    return np.mean(y[sv] - f[sv])


def _cp2_first_free(alpha, K, y, C):                          # right: any free point gives b
    k = int(np.flatnonzero((alpha > 0) & (alpha < C))[0])
    return float(y[k] - (alpha * y) @ K[:, k])


def _q1_naive_clip(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    new_j = np.clip(alpha_j + y_j * (E_i - E_j) / eta, 0, C)
    new_i = np.clip(alpha_i + y_i * y_j * (alpha_j - new_j), 0, C)
    return float(new_i), float(new_j)


def _q1_swapped(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):
    if y_i == y_j:
        lo, hi = max(0, alpha_j - alpha_i), min(C, C + alpha_j - alpha_i)
    else:
        lo, hi = max(0, alpha_i + alpha_j - C), min(C, alpha_i + alpha_j)
    new_j = min(max(alpha_j + y_j * (E_i - E_j) / eta, lo), hi)
    return alpha_i + y_i * y_j * (alpha_j - new_j), new_j


def _q1_by_sum(alpha_i, alpha_j, y_i, y_j, E_i, E_j, eta, C):   # right: clip on the conserved sum
    s = y_i * alpha_i + y_j * alpha_j
    new_j = alpha_j + y_j * (E_i - E_j) / eta
    for _ in range(2):                                          # a_i = y_i (s - y_j a_j) in [0, C]
        new_j = min(max(new_j, 0.0), C)
        new_i = y_i * (s - y_j * new_j)
        if new_i < 0 or new_i > C:
            target = 0.0 if new_i < 0 else C
            new_j = y_j * (s - y_i * target)
    return y_i * (s - y_j * new_j), new_j


def _q2_zero_d(key):
    return np.array(key in ("box point", "outside"))


def _q2_numpy_bool(key):
    return np.bool_(key in ("box point", "outside"))


def _q2_remove_true(key):
    return key in ("box point", "outside", "remove zero")


def _q2_all_true(key):
    return True


def _q3_no_min(C):
    return 2 * C - 4.5 * C ** 2


def _q3_hard(C):
    return 2 / 9


def _q4_huge(x, y):
    return 1e6


def _q4_half_gap(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return (x[y > 0].min() - x[y < 0].max()) / 2


def _q4_exact(x, y):                                          # right: the smallest C itself
    x, y = np.asarray(x), np.asarray(y)
    return 2 / (x[y > 0].min() - x[y < 0].max()) ** 2


def _q5_constant(alpha, K, y, C):
    return (0, 1)


def _q5_global(alpha, K, y, C):
    v = y - K @ (alpha * y)
    return int(np.argmax(v)), int(np.argmin(v))


def _q5_any(alpha, K, y, C):                                  # right: the first violating pair found
    v = y - K @ (alpha * y)
    n = len(y)
    for i in range(n):
        if (y[i] > 0 and alpha[i] < C) or (y[i] < 0 and alpha[i] > 0):
            for j in range(n):
                if j != i and ((y[j] > 0 and alpha[j] > 0) or (y[j] < 0 and alpha[j] < C)) and v[i] > v[j]:
                    return i, j


def _q6_box_as_free(alpha, margins, C):
    out = []
    for a, m in zip(alpha, margins):
        out.append(max(0.0, 1.0 - m) if a == 0 else abs(1.0 - m))
    return np.array(out)


def _q6_loops(alpha, margins, C):                             # right, with loops
    out = np.zeros(len(alpha))
    for i, (a, m) in enumerate(zip(alpha, margins)):
        if a <= 0:
            out[i] = max(0.0, 1 - m)
        elif a >= C:
            out[i] = max(0.0, m - 1)
        else:
            out[i] = abs(m - 1)
    return out


def _q7_by_label(alpha, K, y, C):
    v = y - K @ (alpha * y)
    return v[y > 0].max(), v[y < 0].min()


def _q7_loops(alpha, K, y, C):                                # right, with loops
    v = y - K @ (alpha * y)
    lo, hi = -np.inf, np.inf
    for i in range(len(y)):
        if (alpha[i] == 0) == (y[i] > 0):
            lo = max(lo, v[i])
        else:
            hi = min(hi, v[i])
    return lo, hi


def _q8_ordered(counts, scheme):
    k = len(counts)
    if scheme == "ovr":
        return [sum(counts)] * k
    return [counts[a] + counts[b] for a in range(k) for b in range(k) if a != b]


def _q8_right(counts, scheme):
    import itertools
    if len(counts) == 2:
        return [sum(counts)]
    if scheme == "ovr":
        return [sum(counts)] * len(counts)
    return [a + b for a, b in itertools.combinations(counts, 2)]


def _q9_at_zero(alpha, K, y, C):
    f = K @ (alpha * y)
    primal = 0.5 * (alpha * y) @ f + C * np.maximum(0, 1 - y * f).sum()
    return primal - (alpha.sum() - 0.5 * (alpha * y) @ f)


def _q9_grid(alpha, K, y, C):                                 # right: the kinks and their neighbours
    f = K @ (alpha * y)
    dual = alpha.sum() - 0.5 * (alpha * y) @ f
    bs = np.concatenate([y - f, y - f + 1e-3, y - f - 1e-3])
    return min(0.5 * (alpha * y) @ f + C * np.maximum(0, 1 - y * (f + b)).sum() for b in bs) - dual


def _q10_max_violating(alpha, K, y, C):
    v = y - K @ (alpha * y)
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    return int(np.argmin(np.where(low, v, np.inf)))


def _q10_loops(alpha, K, y, C):                               # right, with loops
    v = y - K @ (alpha * y)
    n = len(y)
    up = [k for k in range(n) if (y[k] > 0 and alpha[k] < C) or (y[k] < 0 and alpha[k] > 0)]
    i = max(up, key=lambda k: v[k])
    best, best_gain = None, -1.0
    for j in range(n):
        if ((y[j] > 0 and alpha[j] > 0) or (y[j] < 0 and alpha[j] < C)) and v[j] < v[i]:
            gain = (v[i] - v[j]) ** 2 / max(K[i, i] + K[j, j] - 2 * K[i, j], 1e-12)
            if gain > best_gain:
                best, best_gain = j, gain
    return best


def _q11_loops(y, C):
    """Right, written another way: Lagrange's conditions solved class by class, then the box."""
    y = list(y)
    n = len(y)
    sizes = {+1: sum(1 for v in y if v > 0), -1: sum(1 for v in y if v < 0)}
    a = {s: 2.0 * sizes[-s] / n for s in (+1, -1)}
    for s in (+1, -1):
        if a[s] > C:
            a[s], a[-s] = C, C * sizes[s] / sizes[-s]
    return np.array([a[1 if v > 0 else -1] for v in y])


def _q11_ones(y, C):
    """Every point a support vector at min(1, C), as for balanced classes."""
    return np.full(len(y), min(1.0, C))


def _q12_sum(alpha, C):
    """Right, written another way."""
    free = sum(1 for a in alpha if 0 < a < C)
    return sum(1 for a in alpha if a > 0) / len(alpha) if free else 1.0


def _q12_always(alpha, C):
    return float(np.mean(np.asarray(alpha) > 0))


#: (question, answer, the diagnosis that must name it, or "pass" for a right answer)
STUDENTS = [
    ("l7.cp1", _cp1_no_labels, "no labels"), ("l7.cp1", _cp1_one_side, "one label"),
    ("l7.cp1", _cp1_outer, "pass"),
    ("l7.cp2", _cp2_support, "bound support vectors"), ("l7.cp2", _cp2_first_free, "pass"),
    ("ex7.q1", _q1_naive_clip, "clip each"), ("ex7.q1", _q1_swapped, "label cases swapped"),
    ("ex7.q1", _q1_by_sum, "pass"),
    ("ex7.q2", _q2_zero_d, "pass"), ("ex7.q2", _q2_numpy_bool, "pass"),
    ("ex7.q2", _q2_remove_true, "zero multipliers matter"), ("ex7.q2", _q2_all_true, None),
    ("ex7.q3", _q3_no_min, None), ("ex7.q3", _q3_hard, "no box"),
    ("ex7.q4", _q4_huge, "far too large"), ("ex7.q4", _q4_half_gap, "margin"), ("ex7.q4", _q4_exact, "pass"),
    ("ex7.q5", _q5_constant, None), ("ex7.q5", _q5_global, "box"), ("ex7.q5", _q5_any, "pass"),
    ("ex7.q6", _q6_box_as_free, "box as free"), ("ex7.q6", _q6_loops, "pass"),
    ("ex7.q7", _q7_by_label, "by label only"), ("ex7.q7", _q7_loops, "pass"),
    ("ex7.q8", _q8_ordered, "ordered pairs"), ("ex7.q8", _q8_right, "pass"),
    ("ex7.q9", _q9_at_zero, "b = 0"), ("ex7.q9", _q9_grid, "pass"),
    ("ex7.q10", _q10_max_violating, "maximal violator"), ("ex7.q10", _q10_loops, "pass"),
    ("ex7.q11", _q11_loops, "pass"), ("ex7.q11", _q11_ones, "no balance"),
    ("ex7.q12", _q12_sum, "pass"), ("ex7.q12", _q12_always, "no condition"),
]


@pytest.mark.parametrize("qid, answer, named", STUDENTS, ids=[f"{q}-{a.__name__}" for q, a, _ in STUDENTS])
def test_answers_as_students_write_them(qid, answer, named):
    q = QUESTIONS[qid]
    points, lines = set(), []
    for seed in SEEDS:
        result = grade(qid, answer, seed)
        lines.append(result.line())
        if named == "pass":
            assert result.status == "passed", result.line()
            continue
        assert result.status == "failed", result.line()
        points.add(round(result.points, 12))
        if named is not None:
            assert result.diagnosis is not None and result.diagnosis.name == named, result.line()
    if named != "pass":
        assert len(points) == 1, f"{qid} {answer.__name__}: points {sorted(points)} over 20 seeds"


@pytest.mark.parametrize("seed", range(5))
def test_ex7_q11_reference_is_the_solvers_optimum_when_the_gram_matrix_is_the_identity(seed):
    from kernelcourse import svm
    q = QUESTIONS["ex7.q11"]
    for case in q.make_cases(seed):
        y, C = case.args
        run = svm.smo(np.eye(len(y)), y, C=C, tol=1e-12)
        assert np.abs(q.reference(y, C) - run.alpha).max() < 1e-8, case.label


def test_ex7_q12_reference_is_the_modules_bound_where_a_free_multiplier_fixes_b():
    from kernelcourse import svm
    q = QUESTIONS["ex7.q12"]
    for seed in range(5):
        for case in q.make_cases(seed):
            alpha, C = case.args
            free = np.any((alpha > 0) & (alpha < C))
            assert q.reference(alpha, C) == (svm.loo_bound(alpha) if free else 1.0), case.label
