"""Lecture 10, sections 10.6-10.7: the Weisfeiler-Lehman kernel after one round (ex10.q5), two
graphs it cannot tell apart (ex10.q6), the shortest-path kernel (ex10.q7), and the largest lam
for which the random-walk series converges (ex10.q8)."""
from __future__ import annotations

from collections import Counter

import numpy as np

from ....structured import (is_isomorphic, product_graph, shortest_path_kernel, wl_features,
                            wl_subtree_kernel)
from ...model import Case, Diagnosis, Property, Question
from .._typed import drawn_like
from ._common import GRAPHS, connected_graph, graph


def _pair_case(rng, n_lo, n_hi, labels="CN"):
    n1, n2 = (int(v) for v in rng.integers(n_lo, n_hi + 1, size=2))
    A, la = connected_graph(rng, n1, int(rng.integers(0, 3)), labels)
    B, lb = connected_graph(rng, n2, int(rng.integers(0, 3)), labels)
    return Case((A, la, B, lb), label=f"graphs of {n1} and {n2} nodes")


def _fixed_pairs():
    """A triangle with a tail against a path, and a square with a chord against a star."""
    tri = np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]])
    path = np.array([[0, 1, 0, 0, 0], [1, 0, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 0]])
    sq = np.array([[0, 1, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1], [1, 0, 1, 0]])
    star = np.array([[0, 1, 1, 1, 1], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0]])
    return [Case((tri, ["C", "C", "N", "O"], path, ["C", "N", "C", "O", "C"]),
                 label="a triangle with a tail (C, C, N, O) and a path C-N-C-O-C"),
            Case((sq, ["C", "N", "C", "N"], star, ["C", "N", "N", "C", "N"]),
                 label="a square with a chord (C, N, C, N) and a star centred on C")]


def _fixed_wl():
    """The pairs above, two paths N-C-O and O-C-N numbered so that the middle C sees its
    neighbours in opposite orders, two graphs of 5 and 6 nodes (a value of two digits), and two
    of 4 nodes whose neighbours' labels tell a second graph read at the first one's nodes, or
    a label read as no neighbour (mutants of the stacked relabelling the audit found)."""
    path3 = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    case = _pair_case(np.random.default_rng(107), 5, 6, labels="CNO")
    small = _pair_case(np.random.default_rng(207), 4, 6, labels="CNO")
    return _fixed_pairs() + [Case((path3, ["N", "C", "O"], path3, ["O", "C", "N"]),
                                  label="the paths N-C-O and O-C-N"),
                             Case(case.args, label="two graphs of 5 and 6 nodes over C, N, O"),
                             Case(small.args, label="two graphs of 4 nodes over C, N, O")]


def _fixed_sp():
    """The square with a chord against the star, and two graphs of 6 nodes over C, N, O."""
    case = _pair_case(np.random.default_rng(100), 5, 6, labels="CNO")
    return [_fixed_pairs()[1], Case(case.args, label="two graphs of 6 nodes over C, N, O")]


# ===================================================================== ex10.q5
def _nbrs(A, v):
    return np.flatnonzero(np.asarray(A)[v]).tolist()


def _reference_wl(A, la, B, lb):
    return float(wl_subtree_kernel([graph(A, la)], [graph(B, lb)], h=1)[0, 0])


def _wl_counts(A, labels, own=True, ordered=False):
    sig = []
    for v in range(len(labels)):
        nb = [labels[u] for u in _nbrs(A, v)]
        nb = nb if ordered else sorted(nb)
        sig.append((labels[v] if own else None, tuple(nb)))
    return Counter(labels), Counter(sig)


def _dot(c, d):
    return float(sum(c[x] * d[x] for x in c))


def _wl_mistake(A, la, B, lb, *, round0=True, own=True, ordered=False):
    c0, c1 = _wl_counts(A, la, own, ordered)
    d0, d1 = _wl_counts(B, lb, own, ordered)
    return (_dot(c0, d0) if round0 else 0.0) + _dot(c1, d1)


def _wl_no_round0(A, la, B, lb):
    return _wl_mistake(A, la, B, lb, round0=False)


def _wl_no_own(A, la, B, lb):
    return _wl_mistake(A, la, B, lb, own=False)


def _wl_unsorted(A, la, B, lb):
    return _wl_mistake(A, la, B, lb, ordered=True)


Q5 = Question(
    id="ex10.q5", title="the Weisfeiler-Lehman kernel after one round", function="wl_one_round",
    points=3, kind="predict", section="10.6", reference=_reference_wl, fixed_cases=_fixed_wl,
    cases=lambda rng: drawn_like(Q5, rng, [(_fixed_wl()[0], lambda r: _pair_case(r, 4, 6, "CNO")),
                                           (_fixed_wl()[2], lambda r: _pair_case(r, 3, 5, "CNO"))]),
    rtol=0, atol=0, forbidden=GRAPHS,
    diagnoses=[
        Diagnosis("round 0 left out", "the feature vector after one round holds the counts of the "
                  "original labels as well as of the new ones: h = 1 adds two inner products",
                  _wl_no_round0),
        Diagnosis("own label left out", "a node's new label is its own label followed by the "
                  "multiset of its neighbours' labels; without its own label a C and an N with "
                  "the same neighbours would merge", _wl_no_own),
        Diagnosis("neighbours unsorted", "the neighbours' labels form a multiset: sort them, or the "
                  "new label depends on how the nodes are numbered", _wl_unsorted),
    ],
    hints=("after one round a node is known by (its label, the sorted labels of its neighbours)",
           "the kernel adds the inner product of the label counts of round 0 and that of round 1"),
)


# ===================================================================== ex10.q6
def _cycles(sizes):
    n = sum(sizes)
    A = np.zeros((n, n), dtype=int)
    start = 0
    for c in sizes:
        for i in range(c):
            a, b = start + i, start + (i + 1) % c
            A[a, b] = A[b, a] = 1
        start += c
    return A


def _reference_twins(n):
    return _cycles([n]), _cycles([3, n - 3])


def _as_graph(A):
    A = np.asarray(A)
    return graph(A, [0] * A.shape[0])


def _valid(out, n):
    A, B = (np.asarray(x) for x in out)
    return A.shape == B.shape == (n, n) and all(
        np.all(np.isin(M, (0, 1))) and np.array_equal(M, M.T) and not np.any(np.diag(M)) for M in (A, B))


def _non_isomorphic(g, h):
    ea = np.round(np.linalg.eigvalsh(g.adjacency), 8)
    eb = np.round(np.linalg.eigvalsh(h.adjacency), 8)
    if not np.array_equal(ea, eb):
        return True
    return not is_isomorphic(g, h)


def _twins_ok(out, case):
    n = case.args[0]
    if not _valid(out, n):
        return False
    g, h = (_as_graph(x) for x in out)
    F, G = wl_features([g], h=n, Z=[h])
    return bool(np.array_equal(F.toarray(), G.toarray()) and _non_isomorphic(g, h))


def _twins_same(n):
    A = _cycles([n])
    p = np.roll(np.arange(n), 1)
    return A, A[np.ix_(p, p)]


def _twins_path(n):
    A = _cycles([n])
    B = A.copy()
    B[0, n - 1] = B[n - 1, 0] = 0
    return A, B


def _twins_sizes(n):
    return _cycles([n]), _cycles([3, n - 2])


def _is_isomorphic_pair(out, case):
    n = case.args[0]
    if not _valid(out, n):
        return False
    g, h = (_as_graph(x) for x in out)
    return not _non_isomorphic(g, h)


def _degrees_differ(out, case):
    n = case.args[0]
    if not _valid(out, n):
        return False
    A, B = (np.asarray(x) for x in out)
    return sorted(A.sum(0).tolist()) != sorted(B.sum(0).tolist())


def _wrong_size(out, case):
    n = case.args[0]
    try:
        A, B = (np.asarray(x) for x in out)
    except (TypeError, ValueError):
        return False
    return A.ndim == B.ndim == 2 and (A.shape != (n, n) or B.shape != (n, n))


Q6 = Question(
    id="ex10.q6", title="two graphs Weisfeiler-Lehman cannot tell apart", function="wl_twins",
    points=3, kind="witness", section="10.6", reference=_reference_twins,
    fixed_cases=lambda: [Case((6,), label="6 nodes"), Case((8,), label="8 nodes")],
    cases=lambda rng: [Case((int(n),), label=f"{int(n)} nodes") for n in rng.integers(6, 9, size=2)],
    compare_reference=False, forbidden=GRAPHS,
    properties=[Property("WL twins", _twins_ok,
                         "two unlabelled graphs of n nodes each (adjacency matrices of 0s and 1s, "
                         "symmetric, zero diagonal), not isomorphic, whose Weisfeiler-Lehman label "
                         "counts agree after every round up to h = n")],
    diagnoses=[
        Diagnosis("isomorphic", "a renumbering of one graph is the same graph: WL cannot tell them "
                  "apart because nothing can; the two must differ in structure", _twins_same,
                  detect=_is_isomorphic_pair),
        Diagnosis("degrees differ", "the first round already counts each node's degree: two graphs "
                  "with different degree sequences are told apart at once", _twins_path,
                  detect=_degrees_differ),
        Diagnosis("wrong size", "both graphs must have exactly n nodes", _twins_sizes,
                  detect=_wrong_size),
    ],
    hints=("in a graph where every node has the same degree and the same label, what does one "
           "round of relabelling change?",
           "regular graphs of one degree and size all look alike to WL: pick two that are not "
           "isomorphic"),
)


# ===================================================================== ex10.q7
def _reference_sp(A, la, B, lb):
    return float(shortest_path_kernel([graph(A, la)], [graph(B, lb)])[0, 0])


def _dist(A):
    A = np.asarray(A)
    n = A.shape[0]
    D = np.where(A > 0, 1.0, np.inf)
    np.fill_diagonal(D, 0.0)
    for k in range(n):
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    return D


def _sp_counts(A, labels, ordered=False, self_pairs=False, lengths=True, edges_only=False):
    D = _dist(A)
    n = len(labels)
    c = Counter()
    for i in range(n):
        for j in range(n):
            if (i == j and not self_pairs) or (i > j and not ordered) or not np.isfinite(D[i, j]):
                continue
            if edges_only and D[i, j] != 1:
                continue
            ends = tuple(sorted((labels[i], labels[j])))
            c[ends + ((int(D[i, j]),) if lengths else ())] += 1
    return c


def _sp_mistake(**kw):
    def f(A, la, B, lb):
        return _dot(_sp_counts(A, la, **kw), _sp_counts(B, lb, **kw))
    return f


Q7 = Question(
    id="ex10.q7", title="the shortest-path kernel of two graphs", function="shortest_path_value",
    points=3, kind="derive", section="10.7", reference=_reference_sp, fixed_cases=_fixed_sp,
    cases=lambda rng: drawn_like(Q7, rng, [(_fixed_sp()[1], lambda r: _pair_case(r, 5, 6, "CNO"))] * 2),
    rtol=0, atol=0, forbidden=GRAPHS,
    diagnoses=[
        Diagnosis("ordered pairs", "each pair of nodes {u, v} counts once: (u, v) and (v, u) are "
                  "the same shortest path, and counting both multiplies the kernel by 4",
                  _sp_mistake(ordered=True)),
        Diagnosis("lengths ignored", "two paths match when their end labels agree and their lengths "
                  "are equal; without the length the kernel only counts label pairs",
                  _sp_mistake(lengths=False)),
        Diagnosis("edges only", "every pair of nodes joined by a path counts, with its shortest "
                  "length, not only the pairs joined by an edge", _sp_mistake(edges_only=True)),
        Diagnosis("self-pairs", "the pairs are of two different nodes: u = v, a path of length 0, "
                  "is left out", _sp_mistake(self_pairs=True)),
    ],
    hints=("first all the shortest-path lengths of each graph (Floyd-Warshall, or a breadth-first "
           "search from every node)",
           "the feature of a graph counts its pairs of nodes by (the two end labels, sorted; the "
           "length)"),
)


# ===================================================================== ex10.q8
def _rho(M):
    M = np.asarray(M, float)
    return float(np.max(np.abs(np.linalg.eigvalsh(M)))) if M.size else 0.0


def _reference_lam(A, la, B, lb):
    return 1.0 / _rho(product_graph(graph(A, la), graph(B, lb)))


def _lam_labels_ignored(A, la, B, lb):
    return 1.0 / (_rho(A) * _rho(B))


def _lam_degrees(A, la, B, lb):
    return 1.0 / (np.asarray(A).sum(0).max() * np.asarray(B).sum(0).max())


def _lam_sum(A, la, B, lb):
    return 1.0 / (_rho(A) + _rho(B))


def _draw_lam(rng):
    case = _pair_case(rng, 4, 6, labels="CN")
    A, la, B, lb = case.args
    if _rho(product_graph(graph(A, la), graph(B, lb))) == 0:
        return None
    return case


Q8 = Question(
    id="ex10.q8", title="where the random-walk series stops converging", function="largest_lambda",
    points=2, kind="parameter", section="10.7", reference=_reference_lam, fixed_cases=_fixed_pairs,
    cases=lambda rng: drawn_like(Q8, rng, [(_fixed_pairs()[0], _draw_lam), (_fixed_pairs()[1], _draw_lam)]),
    rtol=1e-8, atol=1e-12, forbidden=GRAPHS,
    diagnoses=[
        Diagnosis("labels ignored", "the walks counted are pairs of walks with the same labels: the "
                  "product graph keeps only the node pairs with equal labels, so its spectral radius "
                  "can be far below rho(A) rho(B)", _lam_labels_ignored),
        Diagnosis("degree bound", "the largest degrees bound the spectral radius from above, so "
                  "1 / (d_max d'_max) is only a safe lam, not the largest", _lam_degrees),
        Diagnosis("sum, not product", "the product graph's adjacency is a (masked) Kronecker product: "
                  "its eigenvalues multiply, they do not add", _lam_sum),
    ],
    hints=("the series sum_k lam^k A_x^k converges exactly when lam times the spectral radius of "
           "A_x is below 1",
           "build A_x on the pairs of nodes with equal labels: (u, u') ~ (v, v') when u ~ v and "
           "u' ~ v'"),
)
