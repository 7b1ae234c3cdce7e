"""Lecture 9's questions: the set's shape and the named mistakes the issue asked for (the
reference earning full marks in 100 seeds, and every named mistake failing with the same points
in every seed and diagnosed as itself, are tests/test_grading_verdicts.py's, for every set)."""
import itertools
import math

import numpy as np
import pytest

from kernelcourse import mean_embeddings as me
from kernelcourse.grading.questions import all_questions
from kernelcourse.kernels import RBF

QUESTIONS = {qid: q for qid, q in all_questions().items() if q.set_name in ("ex9", "l9")}


def test_ex9_has_eight_questions_four_of_kinds_that_need_understanding():
    ex9 = [q for q in QUESTIONS.values() if q.set_name == "ex9"]
    assert len(ex9) >= 8
    assert sum(q.kind in ("predict", "witness", "fix", "parameter", "choice") for q in ex9) >= 4
    assert {"l9.cp1", "l9.cp2"} <= set(QUESTIONS)
    assert all(q.fixed_cases is not None and q.make_fixed_cases() for q in QUESTIONS.values())


def test_the_named_mistakes_of_the_issue_are_diagnosed():
    names = {(qid, d.name) for qid, q in QUESTIONS.items() for d in q.diagnoses}
    for wanted in [("l9.cp1", "diagonal kept"), ("l9.cp1", "m^2 not m(m-1)"), ("ex9.q7", "diagonal kept"),
                   ("ex9.q10", "no +1"), ("ex9.q1", "+1 on an enumeration"), ("ex9.q8", "mirror ignored"), ("ex9.q2", "one sample"), ("l9.cp2", "one side only"),
                   ("ex9.q3", "covariances"), ("ex9.q5", "shifted")]:
        assert wanted in names


def test_set_9_covers_every_section_9_1_to_9_8():
    sections = {q.section for q in QUESTIONS.values()}
    for wanted in ("9.1", "9.2", "9.3", "9.4", "9.5", "9.7", "9.8"):
        assert wanted in sections, wanted


def _case_args(qid):
    return [c.args for c in QUESTIONS[qid].make_cases(0)]


def test_new_references_equal_the_package():
    """ex9.q9 is power_criterion without its regulariser, ex9.q12 the package's KSD with the
    scores given, ex9.q11 mmd2 of the explicit feature means; ex9.q10's p-value is the same with
    the trace divided by n^2, (n - 1)^2 or nothing."""
    q9, q10, q11, q12 = (QUESTIONS[f"ex9.q{i}"] for i in (9, 10, 11, 12))
    for X, Y, gammas in _case_args("ex9.q9"):
        ours = [me.power_criterion(X, Y, RBF(g), regulariser=0.0)["criterion"] for g in gammas]
        np.testing.assert_allclose(q9.reference(X, Y, gammas), ours, rtol=1e-10)
    for X, S, gamma in _case_args("ex9.q12"):
        assert np.isclose(q12.reference(X, S, gamma), me.ksd(X, lambda Z: -Z, gamma), rtol=1e-10)
    for Phi, m, labels in _case_args("ex9.q11"):
        loop = [np.sum((Phi[a].mean(0) - Phi[~a].mean(0)) ** 2) for a in labels]
        np.testing.assert_allclose(q11.reference(Phi, m, labels), loop, rtol=1e-10)
    for K, L, perms in _case_args("ex9.q10"):
        n = len(K)
        for scale in (1 / n**2, 1 / (n - 1) ** 2):
            T = scale * me.hsic_from_gram(K, L) * n**2
            null = [scale * me.hsic_from_gram(K, L[np.ix_(p, p)]) * n**2 for p in perms]
            assert q10.reference(K, L, perms) == me.permutation_p_value(T, np.array(null))


@pytest.mark.slow
def test_exact_p_value_and_level_by_enumeration_and_simulation():
    """ex9.q1 against a loop over the splits with the package's statistic; ex9.q8's level
    against the rejection rate of that exact test over draws from one continuous law."""
    q1, q8 = QUESTIONS["ex9.q1"], QUESTIONS["ex9.q8"]
    for K, m in _case_args("ex9.q1"):
        N = len(K)
        T = me.mmd2_from_gram(K, m, "biased")
        vals = []
        for chosen in itertools.combinations(range(N), m):
            order = list(chosen) + [i for i in range(N) if i not in chosen]
            vals.append(me.mmd2_from_gram(K[np.ix_(order, order)], m, "biased"))
        assert np.isclose(q1.reference(K, m), np.mean(np.array(vals) >= T - 1e-9))
    rng = np.random.default_rng(0)
    for m, n, alpha in ((3, 3, 0.15), (3, 3, 0.05), (4, 3, 0.1)):
        rejections = 0
        for _ in range(400):
            Z = rng.normal(size=(m + n, 1))
            rejections += q1.reference(RBF(0.5)(Z), m) <= alpha + 1e-12
        level = q8.reference(1, alpha, m, n)
        sd = math.sqrt(level * (1 - level) / 400) + 1e-9
        assert abs(rejections / 400 - level) < 4 * sd + 1e-9, (m, n, alpha, rejections, level)
