"""Lecture 10's questions: the set's shape, the references against the package and against the
definitions (brute force), and answers written as students write them: right ones by other
routes earn full marks in every seed, wrong ones the same points in every seed, named by their
diagnosis. (The reference earning full marks in 100 seeds and every named mistake diagnosed as
itself are tests/test_grading_verdicts.py's, for every set.)"""
import itertools
from collections import Counter

import networkx as nx
import numpy as np
import pytest

from kernelcourse import structured as st
from kernelcourse.grading.questions import all_questions

from verdict_support import grade

QUESTIONS = {qid: q for qid, q in all_questions().items() if q.set_name in ("ex10", "l10")}
SEEDS = range(12)


@pytest.fixture(params=[pytest.param((0, 1), id="quick"),
                        pytest.param(SEEDS, id="seeds", marks=pytest.mark.slow)])
def seeds(request):
    """Two seeds in the quick loop, all of SEEDS in the full run."""
    return request.param


def _grade(qid, answer, seeds):
    """The points and the diagnosis name of an answer in every seed (asserting both are the same)."""
    results = [grade(qid, answer, seed) for seed in seeds]
    points = {round(r.points, 9) for r in results}
    named = {r.diagnosis.name if r.diagnosis else None for r in results}
    assert len(points) == 1 and len(named) == 1, (qid, points, named)
    return points.pop(), named.pop()


def _args(qid, seed=0):
    return [c.args for c in QUESTIONS[qid].make_cases(seed)]


def test_ex10_has_eight_questions_four_of_kinds_that_need_understanding():
    ex10 = [q for q in QUESTIONS.values() if q.set_name == "ex10"]
    assert len(ex10) >= 8
    assert sum(q.kind in ("predict", "witness", "fix", "parameter", "choice") for q in ex10) >= 4
    assert {"l10.cp1", "l10.cp2"} <= set(QUESTIONS)
    assert {q.section for q in ex10} >= {"10.1", "10.2", "10.3", "10.4", "10.6", "10.7"}
    assert all(q.fixed_cases is not None and q.make_fixed_cases() for q in QUESTIONS.values())
    assert all(len(q.diagnoses) >= 3 for q in ex10)


# --------------------------------------------------------------------- references, oracles
def _graph(A, labels):
    return st.Graph(np.asarray(A), labels=list(labels))


def test_string_references_equal_the_package_and_brute_force():
    q1, q2, q3, q4 = (QUESTIONS[f"ex10.q{i}"] for i in (1, 2, 3, 4))
    strings = ["GATTACA", "ATTACCA", "CATCAT", "AAAAAA"]
    for k in (1, 2, 3):
        K = st.spectrum_kernel(strings, k=k)
        assert np.allclose(q1.reference(K), st.spectrum_kernel(strings, k=k, normalize=True), atol=1e-12)
        Phi = np.array([q2.reference(s, k, "ACGT") for s in strings])
        assert np.array_equal(Phi @ Phi.T, K)
    for s, t, k, m in _args("ex10.q3") + _args("ex10.q3", 1):
        brute = 0
        for b in map("".join, itertools.product("ACGT", repeat=k)):
            near = set(st.mismatch_neighbourhood(b, m))
            brute += sum(s[i:i + k] in near for i in range(len(s) - k + 1)) * \
                sum(t[i:i + k] in near for i in range(len(t) - k + 1))
        assert q3.reference(s, t, k, m) == brute
    for s, t, n, lam in _args("ex10.q4") + _args("ex10.q4", 1):
        brute = sum(lam ** (i[-1] - i[0] + 1 + j[-1] - j[0] + 1)
                    for i in itertools.combinations(range(len(s)), n)
                    for j in itertools.combinations(range(len(t)), n)
                    if all(s[a] == t[b] for a, b in zip(i, j)))
        assert np.isclose(q4.reference(s, t, n, lam), brute, rtol=1e-12, atol=0)


def test_graph_references_equal_the_definitions():
    q5, q6, q7, q8 = (QUESTIONS[f"ex10.q{i}"] for i in (5, 6, 7, 8))
    for A, la, B, lb in _args("ex10.q5") + _args("ex10.q5", 1):
        # node pairs that agree on their label, and on their label and neighbours' multiset
        def sig(M, labels, v):
            return labels[v], sorted(labels[u] for u in np.flatnonzero(np.asarray(M)[v]))
        pairs = sum((la[v] == lb[w]) + (sig(A, la, v) == sig(B, lb, w))
                    for v in range(len(la)) for w in range(len(lb)))
        assert q5.reference(A, la, B, lb) == pairs
    for A, la, B, lb in _args("ex10.q7") + _args("ex10.q7", 1):
        def keys(M, labels):
            d = dict(nx.all_pairs_shortest_path_length(nx.from_numpy_array(np.asarray(M))))
            return [(tuple(sorted((labels[u], labels[v]))), d[u][v])
                    for u, v in itertools.combinations(range(len(labels)), 2) if v in d[u]]
        brute = sum(x == y for x in keys(A, la) for y in keys(B, lb))
        assert q7.reference(A, la, B, lb) == brute
    for A, la, B, lb in _args("ex10.q8") + _args("ex10.q8", 1):
        lam = q8.reference(A, la, B, lb)
        g, h = _graph(A, la), _graph(B, lb)
        assert np.isfinite(st.random_walk_pair(g, h, 0.99 * lam))
        with pytest.raises(ValueError, match="diverges"):
            st.random_walk_pair(g, h, 1.01 * lam)
    for n in (6, 7, 8):
        A, B = q6.reference(n)
        g, h = _graph(A, [0] * n), _graph(B, [0] * n)
        assert np.isclose(st.wl_subtree_kernel([g, h], h=n, normalize=True)[0, 1], 1.0)
        assert not nx.is_isomorphic(nx.from_numpy_array(A), nx.from_numpy_array(B))


# --------------------------------------------------------------------- answers as students write them
def test_honest_answers_by_other_routes_earn_full_marks(seeds):
    def normalized_gram(K):
        d = np.diag(K)
        return np.asarray(K, float) / np.sqrt(np.outer(d, d))

    def spectrum_vector(s, k, alphabet):
        c = Counter(s[i:i + k] for i in range(len(s) - k + 1))
        return np.array([c["".join(u)] for u in itertools.product(alphabet, repeat=k)])

    def wl_one_round(A, labels_a, B, labels_b):
        def features(M, labels):
            G = nx.from_numpy_array(np.asarray(M))
            return Counter(labels) + Counter(
                labels[v] + "|" + "".join(sorted(labels[u] for u in G[v])) for v in G)
        fa, fb = features(A, labels_a), features(B, labels_b)
        return sum(fa[x] * fb[x] for x in fa)

    def wl_twins(n):
        def cycles(*sizes):
            return nx.to_numpy_array(nx.disjoint_union_all([nx.cycle_graph(c) for c in sizes]), dtype=int)
        return (cycles(3, 3), cycles(6)) if n == 6 else (cycles(4, n - 4), cycles(n))

    def shortest_path_value(A, labels_a, B, labels_b):
        def counts(M, labels):
            d = dict(nx.all_pairs_shortest_path_length(nx.from_numpy_array(np.asarray(M))))
            return Counter((min(labels[u], labels[v]), max(labels[u], labels[v]), d[u][v])
                           for u in d for v in d[u] if u < v)
        ca, cb = counts(A, labels_a), counts(B, labels_b)
        return sum(ca[x] * cb[x] for x in ca)

    def largest_lambda(A, labels_a, B, labels_b):
        pairs = [(u, w) for u in range(len(labels_a)) for w in range(len(labels_b))
                 if labels_a[u] == labels_b[w]]
        Ax = np.array([[A[u][v] * B[w][x] for v, x in pairs] for u, w in pairs], float)
        return 1 / max(abs(np.linalg.eigvals(Ax)))

    for qid, answer in (("ex10.q1", normalized_gram), ("ex10.q2", spectrum_vector),
                        ("ex10.q5", wl_one_round), ("ex10.q6", wl_twins),
                        ("ex10.q7", shortest_path_value), ("ex10.q8", largest_lambda)):
        assert _grade(qid, answer, seeds) == (QUESTIONS[qid].points, None), qid


def test_wrong_answers_as_students_write_them(seeds):
    def normalized_gram(K):
        d = np.diag(K)
        return K / np.outer(d, d)                                  # no square root
    assert _grade("ex10.q1", normalized_gram, seeds) == (0.0, "no square root")

    def spectrum_vector(s, k, alphabet):
        return np.array([s.count("".join(u)) for u in itertools.product(alphabet, repeat=k)])
    points, name = _grade("ex10.q2", spectrum_vector, seeds)
    assert points < QUESTIONS["ex10.q2"].points and name == "str.count"

    def mismatch_value(s, t, k, m):                               # pairs of close windows
        ws = [s[i:i + k] for i in range(len(s) - k + 1)]
        wt = [t[i:i + k] for i in range(len(t) - k + 1)]
        return sum(sum(a != b for a, b in zip(u, v)) <= m for u in ws for v in wt)
    assert _grade("ex10.q3", mismatch_value, seeds) == (0.0, "close windows")

    def shortest_path_value(A, labels_a, B, labels_b):            # (u, v) and (v, u)
        def counts(M, labels):
            d = dict(nx.all_pairs_shortest_path_length(nx.from_numpy_array(np.asarray(M))))
            return Counter((min(labels[u], labels[v]), max(labels[u], labels[v]), d[u][v])
                           for u in d for v in d[u] if u != v)
        ca, cb = counts(A, labels_a), counts(B, labels_b)
        return sum(ca[x] * cb[x] for x in ca)
    assert _grade("ex10.q7", shortest_path_value, seeds) == (0.0, "ordered pairs")

    def largest_lambda(A, labels_a, B, labels_b):                  # labels ignored
        return 1 / (max(abs(np.linalg.eigvalsh(np.asarray(A, float))))
                    * max(abs(np.linalg.eigvalsh(np.asarray(B, float)))))
    assert _grade("ex10.q8", largest_lambda, seeds) == (0.0, "labels ignored")

    def wl_twins(n):                                               # a cycle and a path
        C = nx.to_numpy_array(nx.cycle_graph(n), dtype=int)
        return C, nx.to_numpy_array(nx.path_graph(n), dtype=int)
    assert _grade("ex10.q6", wl_twins, seeds) == (0.0, "degrees differ")

    def subsequence_value(s, t, n, lam):                           # the given code, unfixed
        S, T = len(s), len(t)
        Kp = [[1.0] * (T + 1) for _ in range(S + 1)]
        for _ in range(1, n):
            Kpp = [[0.0] * (T + 1) for _ in range(S + 1)]
            new = [[0.0] * (T + 1) for _ in range(S + 1)]
            for a in range(1, S + 1):
                for b in range(1, T + 1):
                    hit = lam ** 2 * Kp[a - 1][b - 1] if s[a - 1] == t[b - 1] else 0.0
                    Kpp[a][b] = Kpp[a][b - 1] + hit
                    new[a][b] = lam * new[a - 1][b] + Kpp[a][b]
            Kp = new
        return sum(lam ** 2 * Kp[a - 1][b - 1] for a in range(1, S + 1) for b in range(1, T + 1)
                   if s[a - 1] == t[b - 1])
    assert _grade("ex10.q4", subsequence_value, seeds) == (0.0, "the given code")

    def structured_true_or_false(key):                            # WL taken for complete
        return key in ("mismatch psd", "wl complete", "normalised diagonal", "lam one")
    points, name = _grade("ex10.q9", structured_true_or_false, seeds)
    assert points < QUESTIONS["ex10.q9"].points and name == "WL is complete"
