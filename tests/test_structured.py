"""Lecture 10: kernels on strings, graphs and the nodes of a graph, against their definitions
(brute force over neighbourhoods, index tuples, relabellings and walks) and against
independent libraries (scikit-learn's CountVectorizer, GraKeL, networkx, SciPy's expm)."""
import itertools
from collections import Counter

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse

from kernelcourse.structured import (Graph, MismatchKernel, RandomWalkKernel, ShortestPathKernel,
                                     SpectrumKernel, SubsequenceKernel, WeisfeilerLehmanKernel,
                                     cycle_graph, diffusion_kernel, floyd_warshall, is_isomorphic,
                                     kmer_counts, mismatch_kernel, mismatch_neighbourhood,
                                     mismatch_neighbourhood_size, mismatch_pair_count, path_graph,
                                     random_walk_kernel, regularized_laplacian_kernel,
                                     shortest_path_features, shortest_path_kernel, spectrum_kernel, subsequence_kernel,
                                     wl_relabel, wl_subtree_kernel)


def _random_strings(rng, n, lo, hi, alphabet="ACGT"):
    return ["".join(rng.choice(list(alphabet), size=rng.integers(lo, hi + 1))) for _ in range(n)]


def _random_graph(rng, n, p=0.35, labels="abc"):
    A = np.triu((rng.random((n, n)) < p).astype(float), 1)
    return Graph(A + A.T, rng.choice(list(labels), size=n).tolist())


def _rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


# ---------------------------------------------------------------------------
# 10.2 spectrum
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_spectrum_kernel_equals_count_vectorizer_exactly(k):
    from sklearn.feature_extraction.text import CountVectorizer
    rng = np.random.default_rng(k)
    X = _random_strings(rng, 30, 0, 40)
    Z = _random_strings(rng, 12, 3, 25)
    cv = CountVectorizer(analyzer="char", ngram_range=(k, k), lowercase=False).fit(X + Z)
    FX, FZ = cv.transform(X), cv.transform(Z)
    assert_array_equal(spectrum_kernel(X, k=k), (FX @ FX.T).toarray())
    assert_array_equal(spectrum_kernel(X, Z, k=k), (FX @ FZ.T).toarray())


def test_spectrum_counts_overlapping_kmers_and_normalises():
    assert kmer_counts("AAAA", 2) == {"AA": 3}
    K = spectrum_kernel(["AAAA", "AAAAAAAA", "ACGT"], k=2, normalize=True)
    assert_allclose(np.diag(K), 1.0)
    assert K[0, 1] == pytest.approx(1.0)        # same direction, different lengths
    assert K[0, 2] == 0.0


# ---------------------------------------------------------------------------
# 10.3 mismatch
# ---------------------------------------------------------------------------

def _mismatch_brute(s, t, k, m, alphabet):
    total = 0
    for b in itertools.product(alphabet, repeat=k):
        def phi(x):
            return sum(sum(c != d for c, d in zip(x[i:i + k], b)) <= m for i in range(len(x) - k + 1))
        total += phi(s) * phi(t)
    return total


@pytest.mark.parametrize("k,m", [(1, 0), (2, 1), (3, 1), (3, 2), (4, 1)])
def test_mismatch_kernel_against_brute_force_over_all_of_A_to_the_k(k, m):
    rng = np.random.default_rng(10 * k + m)
    X = _random_strings(rng, 6, 0, 12)
    Z = _random_strings(rng, 4, 2, 10)
    want = np.array([[_mismatch_brute(s, t, k, m, "ACGT") for t in Z] for s in X], float)
    got = mismatch_kernel(X, Z, k=k, m=m)
    assert _rel(got, want) <= 1e-12 if want.any() else np.all(got == 0)
    sym = mismatch_kernel(X, k=k, m=m)
    assert_allclose(sym, [[_mismatch_brute(s, t, k, m, "ACGT") for t in X] for s in X], rtol=1e-12)


def test_mismatch_with_m_zero_is_the_spectrum_kernel():
    rng = np.random.default_rng(3)
    X = _random_strings(rng, 20, 5, 30)
    assert_array_equal(mismatch_kernel(X, k=4, m=0), spectrum_kernel(X, k=4))


def test_mismatch_neighbourhood_and_its_closed_form_counts():
    rng = np.random.default_rng(0)
    for k, m, alphabet in [(3, 1, "ACGT"), (4, 2, "ACGT"), (5, 1, "AB"), (4, 1, "ABCDE")]:
        a = len(alphabet)
        words = ["".join(w) for w in itertools.product(alphabet, repeat=k)]
        u = words[rng.integers(len(words))]
        N = mismatch_neighbourhood(u, m, alphabet)
        assert len(N) == len(set(N)) == mismatch_neighbourhood_size(k, m, a)
        assert set(N) == {w for w in words if sum(c != d for c, d in zip(u, w)) <= m}
        for v in words:
            d = sum(c != e for c, e in zip(u, v))
            common = len(set(N) & set(mismatch_neighbourhood(v, m, alphabet)))
            assert mismatch_pair_count(k, m, d, a) == common, (u, v, m)


def test_mismatch_refuses_characters_outside_its_alphabet():
    with pytest.raises(ValueError, match=r"X\[1\] holds characters \['N'\] outside the alphabet"):
        mismatch_kernel(["ACGT", "ACNT"], k=2, m=1)
    assert mismatch_kernel(["ab", "ba"], k=1, m=1, alphabet="ab")[0, 1] == 8.0


# ---------------------------------------------------------------------------
# 10.4 subsequence
# ---------------------------------------------------------------------------

def _subsequence_brute(s, t, n, lam):
    total = 0.0
    for i in itertools.combinations(range(len(s)), n):
        for j in itertools.combinations(range(len(t)), n):
            if all(s[a] == t[b] for a, b in zip(i, j)):
                total += lam ** (i[-1] - i[0] + 1 + j[-1] - j[0] + 1)
    return total


@pytest.mark.parametrize("n,lam", [(1, 0.5), (2, 0.5), (3, 0.8), (4, 0.3), (2, 1.0)])
def test_subsequence_kernel_against_brute_force_over_index_tuples(n, lam):
    rng = np.random.default_rng(n)
    X = _random_strings(rng, 5, 0, 9, "abc")
    Z = _random_strings(rng, 4, 1, 8, "abc")
    want = np.array([[_subsequence_brute(s, t, n, lam) for t in Z] for s in X])
    assert _rel(subsequence_kernel(X, Z, n=n, lam=lam), want) <= 1e-12
    assert _rel(subsequence_kernel(X, n=n, lam=lam),
                np.array([[_subsequence_brute(s, t, n, lam) for t in X] for s in X])) <= 1e-12


def test_subsequence_kernel_of_cat_and_car_as_lodhi_et_al_compute_it():
    # n = 2: "ca" is shared with span 2 in both: lam^4; "ct" / "cr", "at" / "ar" are not shared
    lam = 0.7
    assert subsequence_kernel(["cat"], ["car"], n=2, lam=lam)[0, 0] == pytest.approx(lam ** 4, rel=1e-14)
    assert subsequence_kernel(["cat"], n=2, lam=lam)[0, 0] == pytest.approx(2 * lam ** 4 + lam ** 6, rel=1e-14)


# ---------------------------------------------------------------------------
# 10.5-10.6 graphs and Weisfeiler-Lehman
# ---------------------------------------------------------------------------

def _wl_brute(graphs, h):
    """Relabelling by strings: a node's label of round i is the whole nested signature."""
    feats = [Counter() for _ in graphs]
    for gi, g in enumerate(graphs):
        lab = [repr(x) for x in g.labels]
        for i in range(h + 1):
            feats[gi].update((i, s) for s in lab)
            lab = ["(" + lab[v] + "|" + ",".join(sorted(lab[u] for u in g.neighbours(v))) + ")"
                   for v in range(g.n_nodes)]
    return np.array([[sum(a[key] * b[key] for key in a) for b in feats] for a in feats], float)


@pytest.mark.parametrize("h", [0, 1, 2, 4])
def test_wl_kernel_against_a_brute_force_relabelling(h):
    rng = np.random.default_rng(h)
    graphs = [_random_graph(rng, int(rng.integers(1, 9))) for _ in range(12)]
    assert_array_equal(wl_subtree_kernel(graphs, h=h), _wl_brute(graphs, h))
    assert_array_equal(wl_subtree_kernel(graphs[:5], graphs[5:], h=h), _wl_brute(graphs, h)[:5, 5:])


def test_wl_relabel_agrees_with_networkx_subtree_hashes():
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(7)
    graphs = [_random_graph(rng, 8) for _ in range(6)]
    rounds, _ = wl_relabel(graphs, 3)
    for gi, g in enumerate(graphs):
        hashes = nx.weisfeiler_lehman_subgraph_hashes(g.to_networkx(), node_attr="label", iterations=3)
        for i in range(1, 4):
            ours = rounds[i][gi]
            theirs = [hashes[v][i - 1] for v in range(g.n_nodes)]
            # the same partition of the nodes in every round
            assert len(set(zip(ours.tolist(), theirs))) == len(set(ours.tolist())) == len(set(theirs))


def test_wl_cannot_tell_two_triangles_from_a_hexagon():
    two_triangles = Graph.from_edges(6, [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)])
    hexagon = cycle_graph(6)
    assert not is_isomorphic(two_triangles, hexagon)
    K = wl_subtree_kernel([two_triangles, hexagon], h=5)
    assert K[0, 0] == K[0, 1] == K[1, 1]
    # the shortest-path kernel tells them apart (paths of length 3 exist only in the hexagon)
    S = shortest_path_kernel([two_triangles, hexagon], normalize=True)
    assert S[0, 1] == pytest.approx(36 / np.sqrt(36 * (36 + 36 + 9)))


def _grakel_graphs(graphs):
    return [[{(i, j) for i, j in g.edges()} | {(j, i) for i, j in g.edges()},
             dict(enumerate(g.labels))] for g in graphs]


def test_wl_and_shortest_path_equal_grakel():
    grakel = pytest.importorskip("grakel")
    rng = np.random.default_rng(11)
    graphs = [_random_graph(rng, int(rng.integers(3, 10)), p=0.5) for _ in range(15)]
    graphs = [g for g in graphs if g.n_edges > 0]
    for h in (1, 3):
        # GraKeL's n_iter counts the rounds after the first: its kernel sums rounds 0..n_iter
        wl = grakel.WeisfeilerLehman(n_iter=h, base_graph_kernel=grakel.VertexHistogram)
        assert_allclose(wl_subtree_kernel(graphs, h=h), wl.fit_transform(_grakel_graphs(graphs)),
                        rtol=1e-12)
    sp = grakel.ShortestPath(with_labels=True, algorithm_type="floyd_warshall")
    theirs = sp.fit_transform(_grakel_graphs(graphs))
    # GraKeL counts ordered pairs (u, v) with the labels in that order: a feature (a, b, d) with
    # a != b appears as (a, b, d) and (b, a, d), one with a == b twice under one name, so its
    # kernel weighs our features by 2 and 4
    Phi, vocabulary = shortest_path_features(graphs)
    weight = np.array([4.0 if a == b else 2.0 for a, b, _ in vocabulary])
    assert_allclose((Phi @ sparse.diags(weight) @ Phi.T).toarray(), theirs, rtol=1e-12)
    assert not np.allclose(shortest_path_kernel(graphs) * 2, theirs)


# ---------------------------------------------------------------------------
# 10.7 shortest path and random walks
# ---------------------------------------------------------------------------

def test_floyd_warshall_against_breadth_first_search():
    rng = np.random.default_rng(5)
    g = _random_graph(rng, 9, p=0.25)
    D = floyd_warshall(g)
    for s in range(g.n_nodes):
        dist, frontier = {s: 0}, [s]
        while frontier:
            frontier = [u for v in frontier for u in g.neighbours(v) if u not in dist
                        and not dist.__setitem__(u, dist[v] + 1)]
        for t in range(g.n_nodes):
            assert D[s, t] == dist.get(t, np.inf)


def _walk_label_sequences(g, length):
    """Counter of the label sequences of every walk with ``length`` edges."""
    out = Counter()

    def go(v, seq):
        if len(seq) == length + 1:
            out[tuple(seq)] += 1
            return
        for u in g.neighbours(v):
            go(u, seq + [g.labels[u]])
    for v in range(g.n_nodes):
        go(v, [g.labels[v]])
    return out


def test_random_walk_kernel_against_explicit_walk_counts():
    rng = np.random.default_rng(2)
    g, h = _random_graph(rng, 5, p=0.5, labels="ab"), _random_graph(rng, 4, p=0.6, labels="ab")
    lam, steps = 0.1, 5
    want = 0.0
    for k in range(steps + 1):
        a, b = _walk_label_sequences(g, k), _walk_label_sequences(h, k)
        want += lam ** k * sum(a[s] * b[s] for s in a)
    assert random_walk_kernel([g], [h], lam=lam, steps=steps)[0, 0] == pytest.approx(want, rel=1e-13)
    # the whole series: the truncation error past 5 steps is below lam^6 (n n' rho^6) / (1 - lam rho)
    full = random_walk_kernel([g], [h], lam=lam)[0, 0]
    assert want <= full <= want + 20 * 20 * (lam * 4) ** 6 / (1 - lam * 4)


def test_random_walk_series_refuses_a_lam_past_its_radius():
    tri = cycle_graph(3)
    with pytest.raises(ValueError, match=r"spectral radius is 4.*1/rho = 0.25"):
        random_walk_kernel([tri], lam=0.3)


# ---------------------------------------------------------------------------
# 10.8 diffusion
# ---------------------------------------------------------------------------

def test_diffusion_kernel_equals_scipy_expm_and_the_regularised_laplacian_its_inverse():
    from scipy.linalg import expm
    rng = np.random.default_rng(4)
    g = _random_graph(rng, 10)
    L = g.laplacian()
    for beta in (0.1, 1.0, 3.0):
        assert_allclose(diffusion_kernel(g, beta), expm(-beta * L), rtol=1e-10, atol=1e-13)
        assert_allclose(regularized_laplacian_kernel(g, beta) @ (np.eye(10) + beta * L), np.eye(10),
                        atol=1e-12)
        assert np.linalg.eigvalsh(diffusion_kernel(g, beta)).min() > 0


# ---------------------------------------------------------------------------
# kernel objects, normalisation, estimators, the graph type
# ---------------------------------------------------------------------------

def _all_kernel_inputs():
    rng = np.random.default_rng(9)
    strings = _random_strings(rng, 8, 4, 15)
    graphs = [_random_graph(rng, int(rng.integers(2, 7))) for _ in range(8)]
    return [(SpectrumKernel(k=2), strings), (MismatchKernel(k=3, m=1), strings),
            (SubsequenceKernel(n=2, lam=0.6), strings), (WeisfeilerLehmanKernel(h=2), graphs),
            (ShortestPathKernel(), graphs), (RandomWalkKernel(lam=0.05), graphs)]


@pytest.mark.parametrize("kernel,X", _all_kernel_inputs(), ids=lambda v: type(v).__name__)
def test_every_structured_kernel_is_symmetric_psd_and_normalisable(kernel, X):
    K = kernel(X)
    assert_allclose(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-9 * max(1.0, np.abs(K).max())
    assert_allclose(kernel.diag(X), np.diag(K))
    assert_allclose(kernel(X[:3], X[3:]), K[:3, 3:], rtol=1e-12)
    kernel.set_params(normalize=True)
    N = kernel(X)
    d = np.sqrt(np.diag(K))
    want = np.where(np.outer(d, d) > 0, K / np.where(np.outer(d, d) > 0, np.outer(d, d), 1), 0)
    assert_allclose(N, want, rtol=1e-12, atol=1e-15)


def test_estimators_take_a_structured_kernel_through_indices():
    from kernelcourse.ridge import KernelRidge
    from kernelcourse.svm import SupportVectorClassifier
    strings = ["AAAAAC", "AAAACA", "AAACAA", "GGGGGT", "GGGGTG", "GGGTGG", "AAAAAA", "GGGGGG"]
    y = np.array([1, 1, 1, -1, -1, -1, 1, -1])
    kernel = SpectrumKernel(k=2).indexed(strings)
    rows = np.arange(8)[:, None]
    svc = SupportVectorClassifier(C=10.0, kernel=kernel).fit(rows[:6], y[:6])
    assert_array_equal(svc.predict(rows[6:]), [1, -1])
    K = spectrum_kernel(strings, k=2)
    ridge = KernelRidge(kernel, lam=0.5).fit(rows[:6], y[:6])
    alpha = np.linalg.solve(K[:6, :6] + 0.5 * np.eye(6), y[:6])
    assert_allclose(ridge.predict(rows[6:]), K[6:, :6] @ alpha, rtol=1e-12)
    with pytest.raises(ValueError, match=r"holds 8.0, which is no index into the 8 objects"):
        kernel(np.array([[8.0]]))


def test_graph_type_checks_its_input_and_converts_to_and_from_networkx():
    with pytest.raises(ValueError, match=r"symmetric.*A\[0, 1\] = 1 but A\[1, 0\] = 0"):
        Graph([[0, 1], [0, 0]])
    with pytest.raises(ValueError, match="one label per node: 2 nodes, 3 labels"):
        Graph([[0, 1], [1, 0]], labels="abc")
    with pytest.raises(TypeError, match=r"X\[1\] is a str"):
        wl_subtree_kernel([path_graph(2), "ab"])
    nx = pytest.importorskip("networkx")
    g = Graph.from_edges(4, [(0, 1), (1, 2), (2, 3), (3, 1)], labels=list("CNOC"))
    back = Graph.from_networkx(g.to_networkx())
    assert back == g
    G = nx.Graph()
    G.add_edges_from([("x", "y"), ("y", "z")])
    assert Graph.from_networkx(G) == path_graph(3)


def test_strings_are_checked_by_name():
    with pytest.raises(TypeError, match="not one string"):
        spectrum_kernel("ACGT", k=2)
    with pytest.raises(TypeError, match=r"Z\[0\] is a int"):
        spectrum_kernel(["AC"], [3], k=1)


def test_mismatch_kernel_from_pairs_at_each_hamming_distance():
    from kernelcourse.structured import hamming_pair_counts
    rng = np.random.default_rng(12)
    X, Z = _random_strings(rng, 7, 3, 20), _random_strings(rng, 5, 3, 20)
    k, m = 4, 1
    S = hamming_pair_counts(X, Z, k=k, d_max=2 * m)
    for i, s in enumerate(X):
        for j, t in enumerate(Z):
            dist = Counter(sum(a != b for a, b in zip(u, v))
                           for u in [s[p:p + k] for p in range(len(s) - k + 1)]
                           for v in [t[q:q + k] for q in range(len(t) - k + 1)])
            assert [S[d, i, j] for d in range(3)] == [dist[d] for d in range(3)]
    from_pairs = sum(mismatch_pair_count(k, m, d) * S[d] for d in range(3))
    assert_array_equal(from_pairs, mismatch_kernel(X, Z, k=k, m=m))


@pytest.mark.parametrize("k, m", [(3, 0), (3, 1), (4, 2), (8, 1)])
def test_mismatch_kernel_from_pairs_equals_the_explicit_features(k, m, monkeypatch):
    """The kernel's pair route (``C_X M C_Z^T``, block by block) against the product of the
    explicit neighbourhood counts ``Phi_X Phi_Z^T``: the same integers, with and without the
    table of neighbours, for strings shorter than k and blocks of several strings."""
    import kernelcourse.structured.strings as strings_module
    from kernelcourse.structured import mismatch_features
    rng = np.random.default_rng(10 * k + m)
    X = _random_strings(rng, 40, 0, 30) + ["", "AC"]
    Z = _random_strings(rng, 23, 2, 30)
    F, G = mismatch_features(X, k, m, Z=Z)
    FF = mismatch_features(X, k, m)
    for table in (True, False):
        monkeypatch.setattr(strings_module, "_TABLE_MAX_ENTRIES", 1 << 25 if table else 0)
        assert_array_equal(mismatch_kernel(X, Z, k=k, m=m), (F @ G.T).toarray())
        assert_array_equal(mismatch_kernel(X, k=k, m=m), (FF @ FF.T).toarray())
        dX = np.asarray(F.multiply(F).sum(axis=1)).ravel()
        dZ = np.asarray(G.multiply(G).sum(axis=1)).ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            want = (F @ G.T).toarray() / np.sqrt(np.outer(dX, dZ))
        want[~np.isfinite(want)] = 0.0
        assert_allclose(mismatch_kernel(X, Z, k=k, m=m, normalize=True), want, rtol=1e-12)


def test_mismatch_kernel_past_the_pair_route_takes_the_features():
    """``a^k`` past 2^20 (k = 11 over ACGT): the explicit features, equal to the pair counts."""
    from kernelcourse.structured import hamming_pair_counts
    rng = np.random.default_rng(5)
    X, Z = _random_strings(rng, 6, 12, 30), _random_strings(rng, 4, 12, 30)
    Z[1] = X[0] + Z[1]                          # shared 11-mers, so the kernel is not all zero
    S = hamming_pair_counts(X, Z, k=11, d_max=2)
    want = sum(mismatch_pair_count(11, 1, d) * S[d] for d in range(3))
    assert_array_equal(mismatch_kernel(X, Z, k=11, m=1), want)


def test_wl_features_of_all_graphs_at_once_equal_the_relabelling_graph_by_graph():
    """The stacked relabelling (one ``np.unique`` over all nodes' signatures a round) against
    :func:`wl_relabel` (a dictionary of signatures, graph by graph): the same partition of the
    nodes in every round, so the same Gram matrix, with isolated nodes and an empty graph."""
    from kernelcourse.structured import wl_features
    from kernelcourse.structured.graph_kernels import _wl_stacked_labels
    rng = np.random.default_rng(21)
    graphs = [_random_graph(rng, int(rng.integers(1, 12)), p=0.3) for _ in range(25)]
    graphs += [Graph(np.zeros((0, 0))), Graph(np.zeros((3, 3)), ["a", "a", "b"])]
    h = 4
    rounds, dictionary = wl_relabel(graphs, h)
    owner, stacked = _wl_stacked_labels(graphs, h)
    for i in range(h + 1):
        theirs = np.concatenate(rounds[i])
        assert len(set(zip(stacked[i].tolist(), theirs.tolist()))) == len(set(theirs.tolist())) \
            == len(set(stacked[i].tolist()))
    rows = np.concatenate([np.full(len(lab), gi) for labels in rounds for gi, lab in enumerate(labels)])
    cols = np.concatenate([lab for labels in rounds for lab in labels])
    Phi = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(graphs), len(dictionary)))
    assert_array_equal(wl_subtree_kernel(graphs, h=h), (Phi @ Phi.T).toarray())
    F, G = wl_features(graphs[:10], h, graphs[10:])
    assert_array_equal((F @ G.T).toarray(), (Phi[:10] @ Phi[10:].T).toarray())
    assert wl_subtree_kernel([], h=2).shape == (0, 0)
