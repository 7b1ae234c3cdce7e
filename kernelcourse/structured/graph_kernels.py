"""Kernels between graphs (lecture 10.6-10.7): Weisfeiler-Lehman subtree, shortest path,
random walk.

Each function takes two lists of :class:`~kernelcourse.structured.graphs.Graph` ``X`` and
``Z`` (``Z`` defaults to ``X``) and returns the Gram matrix ``(len(X), len(Z))``:

* :func:`wl_subtree_kernel`: ``h`` rounds of relabelling each node by its label and the
  sorted labels of its neighbours, then the inner product of the label counts of all rounds
  (Shervashidze, Schweitzer, van Leeuwen, Mehlhorn and Borgwardt, *Weisfeiler-Lehman graph
  kernels*, JMLR 2011); ``O(h m)`` per graph with ``m`` edges;
* :func:`shortest_path_kernel`: Floyd-Warshall's all-pairs distances, then the inner
  product of the counts of ``(end label, end label, length)`` over the pairs of nodes
  (Borgwardt and Kriegel, *Shortest-path kernels on graphs*, ICDM 2005);
* :func:`random_walk_kernel`: ``sum_k lam^k 1^T A_x^k 1`` over the walks of the direct
  product graph ``A_x``, by one linear solve ``1^T (I - lam A_x)^{-1} 1`` (Gaertner, Flach and
  Wrobel, COLT 2003; Vishwanathan, Schraudolph, Kondor and Borgwardt, *Graph kernels*,
  JMLR 2010); the series converges when ``lam < 1 / rho(A_x)``.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_nonnegative_int, check_positive
from .graphs import Graph, as_graphs
from .strings import cosine_normalize

__all__ = ["wl_relabel", "wl_features", "wl_subtree_kernel", "floyd_warshall",
           "shortest_path_features", "shortest_path_kernel", "product_graph",
           "random_walk_kernel", "random_walk_pair"]


def _pair(X, Z):
    X = as_graphs(X, "X")
    return X, (None if Z is None else as_graphs(Z, "Z"))


def _gram_from_features(F, G, normalize, symmetric):
    K = (F @ G.T).toarray()
    if normalize:
        dX = np.asarray(F.multiply(F).sum(axis=1)).ravel()
        dZ = dX if symmetric else np.asarray(G.multiply(G).sum(axis=1)).ravel()
        K = cosine_normalize(K, dX, dZ)
    return K


# ---------------------------------------------------------------------------
# 10.6 The Weisfeiler-Lehman subtree kernel
# ---------------------------------------------------------------------------

def wl_relabel(graphs, h: int, dictionary: dict | None = None):
    """The labels of every node after ``0, 1, ..., h`` rounds of Weisfeiler-Lehman relabelling.

    Round 0 compresses each original label to an integer; round ``i`` gives node ``v`` the
    integer of the signature ``(label_{i-1}(v), sorted labels_{i-1} of v's neighbours)``.
    One ``dictionary`` from signature to integer is shared by every graph (and may be passed
    in to extend it), so equal integers mean equal rooted subtrees of depth ``i``.

    Returns
    -------
    labels : list of length h + 1 of lists (one int array per graph)
    dictionary : dict
        ``(round, signature) -> int``; round 0's signatures are the original labels.
    """
    graphs = as_graphs(graphs, "graphs")
    h = check_nonnegative_int(h, "h")
    dictionary = {} if dictionary is None else dictionary
    current = [np.array([dictionary.setdefault((0, lab), len(dictionary)) for lab in g.labels], dtype=int)
               for g in graphs]
    rounds = [current]
    neighbours = [[g.neighbours(v) for v in range(g.n_nodes)] for g in graphs]
    for i in range(1, h + 1):
        new = []
        for lab, nb in zip(current, neighbours):
            signatures = [(int(lab[v]), tuple(sorted(lab[nb[v]].tolist()))) for v in range(len(lab))]
            new.append(np.array([dictionary.setdefault((i, s), len(dictionary)) for s in signatures],
                                dtype=int))
        current = new
        rounds.append(current)
    return rounds, dictionary


def _wl_stacked_labels(graphs, h):
    """Every round's compressed labels of all the graphs' nodes at once, as :func:`wl_relabel`
    defines them (the same partition of the nodes in each round).

    The graphs are stacked into one block-diagonal graph. In each round, row ``v`` of a
    matrix holds ``v``'s label and then its neighbours' labels sorted (one sort of
    ``row * L + label`` over all the edges), padded with ``-1``; two nodes get the same new
    label exactly when their rows are equal, so ``np.unique`` over the rows relabels every
    graph in one call. Returns the graph of each node and a list of ``h + 1`` label arrays,
    round ``i``'s labels numbered ``0..L_i - 1``.
    """
    index: dict = {}
    label = np.array([index.setdefault(lab, len(index)) for g in graphs for lab in g.labels],
                     dtype=np.int64)
    sizes = np.array([g.n_nodes for g in graphs], dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(sizes)])
    edges = [np.nonzero(g.adjacency) for g in graphs]          # both directions, row-major
    rows = np.concatenate([i + f for (i, _), f in zip(edges, first)] + [np.zeros(0, np.int64)])
    cols = np.concatenate([j + f for (_, j), f in zip(edges, first)] + [np.zeros(0, np.int64)])
    n = int(first[-1])
    degree = np.bincount(rows, minlength=n)
    slot = 1 + np.arange(len(rows)) - np.repeat(np.cumsum(degree) - degree, degree)
    rounds = [label]
    for _ in range(h):
        L = int(label.max()) + 1 if n else 1
        neighbour_labels = np.sort(rows * L + label[cols]) - rows * L   # sorted within each row
        signature = np.full((n, 1 + int(degree.max(initial=0))), -1, dtype=np.int64)
        signature[:, 0] = label
        signature[rows, slot] = neighbour_labels
        label = np.unique(signature, axis=0, return_inverse=True)[1].reshape(-1)
        rounds.append(label)
    return np.repeat(np.arange(len(graphs)), sizes), rounds


def wl_features(X, h: int = 3, Z=None):
    """Sparse ``Phi[g, c]`` = how many nodes of graph ``g`` carry the compressed label ``c``
    in some round ``0..h``; ``Phi_X`` or ``(Phi_X, Phi_Z)`` over one dictionary.

    Computed for all graphs at once (:func:`_wl_stacked_labels`); :func:`wl_relabel` is the
    same relabelling graph by graph, with the signatures kept."""
    from scipy import sparse  # loaded at the first call: a first check of set 10 need not wait
    X, Z = _pair(X, Z)
    h = check_nonnegative_int(h, "h")
    graphs = X + ([] if Z is None else Z)
    owner, rounds = _wl_stacked_labels(graphs, h)
    offsets = np.cumsum([0] + [int(lab.max()) + 1 if lab.size else 0 for lab in rounds])
    cols = np.concatenate([lab + off for lab, off in zip(rounds, offsets)])
    rows = np.tile(owner, h + 1)
    Phi = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(graphs), int(offsets[-1])))
    return Phi if Z is None else (Phi[:len(X)], Phi[len(X):])


def wl_subtree_kernel(X, Z=None, h: int = 3, normalize: bool = False) -> np.ndarray:
    """``k(G, G') = sum_{i=0}^{h} <phi_i(G), phi_i(G')>``, the counts of the labels of round
    ``i`` (10.6). ``h = 0`` is the node-label histogram kernel.

    Examples
    --------
    >>> from kernelcourse.structured import path_graph
    >>> wl_subtree_kernel([path_graph(3)], h=1)
    array([[14.]])
    """
    if Z is None:
        F = wl_features(X, h)
        return _gram_from_features(F, F, normalize, True)
    F, G = wl_features(X, h, Z)
    return _gram_from_features(F, G, normalize, False)


# ---------------------------------------------------------------------------
# 10.7 The shortest-path kernel
# ---------------------------------------------------------------------------

def floyd_warshall(graph: Graph) -> np.ndarray:
    """All-pairs shortest-path lengths (edges of length 1; ``inf`` between components):
    ``D = min(D, D[:, k] + D[k, :])`` for every intermediate node ``k``, ``O(n^3)``."""
    A = graph.adjacency
    D = np.where(A > 0, 1.0, np.inf)
    np.fill_diagonal(D, 0.0)
    for k in range(graph.n_nodes):
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    return D


def _sp_keys(g: Graph):
    D = floyd_warshall(g)
    i, j = np.nonzero(np.triu(np.isfinite(D), 1))
    keys = []
    for a, b in zip(i.tolist(), j.tolist()):
        ends = sorted((g.labels[a], g.labels[b]), key=repr)
        keys.append((ends[0], ends[1], int(D[a, b])))
    return keys


def shortest_path_features(X, Z=None):
    """Sparse counts of ``(end label, end label, length)`` over the pairs ``{u, v}``,
    ``u != v``, joined by a path (the two labels sorted by their ``repr``).

    Returns ``(Phi_X, vocabulary)`` or ``(Phi_X, Phi_Z, vocabulary)``; ``vocabulary[j]`` is
    the ``(label, label, length)`` of column ``j``."""
    from scipy import sparse  # loaded at the first call: a first check of set 10 need not wait
    X, Z = _pair(X, Z)
    graphs = X + ([] if Z is None else Z)
    index: dict = {}
    rows, cols = [], []
    for gi, g in enumerate(graphs):
        for key in _sp_keys(g):
            rows.append(gi)
            cols.append(index.setdefault(key, len(index)))
    Phi = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(graphs), len(index)))
    vocabulary = list(index)
    return (Phi, vocabulary) if Z is None else (Phi[:len(X)], Phi[len(X):], vocabulary)


def shortest_path_kernel(X, Z=None, normalize: bool = False) -> np.ndarray:
    """``k(G, G') = sum_{(u, v) in G} sum_{(u', v') in G'} [ends' labels and lengths equal]``
    with the delta kernel on (end labels, length) (10.7): the inner product of
    :func:`shortest_path_features`."""
    if Z is None:
        F, _ = shortest_path_features(X)
        return _gram_from_features(F, F, normalize, True)
    F, G, _ = shortest_path_features(X, Z)
    return _gram_from_features(F, G, normalize, False)


# ---------------------------------------------------------------------------
# 10.7 The random-walk kernel
# ---------------------------------------------------------------------------

def product_graph(g: Graph, h: Graph) -> np.ndarray:
    """The direct product graph's adjacency ``A_x``: node ``(u, u')`` for every pair with equal
    labels, joined to ``(v, v')`` when ``u ~ v`` in ``g`` and ``u' ~ v'`` in ``h``. A walk of
    ``A_x`` is a pair of walks, one in each graph, with the same label sequence."""
    same = np.array([[a == b for b in h.labels] for a in g.labels], dtype=float).ravel()
    return np.kron(g.adjacency, h.adjacency) * same[:, None] * same[None, :]


def random_walk_pair(g: Graph, h: Graph, lam: float, steps: int | None = None) -> float:
    """``sum_{k=0}^{steps} lam^k 1^T A_x^k 1`` (on the nodes with matching labels); with
    ``steps=None`` the whole series ``1^T (I - lam A_x)^{-1} 1``, which needs
    ``lam < 1 / rho(A_x)``."""
    Ax = product_graph(g, h)
    same = np.array([[a == b for b in h.labels] for a in g.labels], dtype=float).ravel()
    if steps is not None:
        steps = check_nonnegative_int(steps, "steps")
        total, walk = same.sum(), same
        for _ in range(steps):
            walk = lam * (Ax @ walk)
            total += walk.sum()
        return float(total)
    keep = same > 0
    Ax = Ax[np.ix_(keep, keep)]
    if Ax.size:
        rho = float(np.max(np.abs(np.linalg.eigvalsh(Ax))))
        if lam * rho >= 1.0:
            raise ValueError(f"the random-walk series diverges: lam={lam} but the product graph's "
                             f"spectral radius is {rho:.6g}, so lam must be below 1/rho = "
                             f"{1.0 / rho:.6g}")
    ones = np.ones(Ax.shape[0])
    return float(ones @ np.linalg.solve(np.eye(Ax.shape[0]) - lam * Ax, ones))


def random_walk_kernel(X, Z=None, lam: float = 0.05, steps: int | None = None,
                       normalize: bool = False) -> np.ndarray:
    """The geometric random-walk kernel ``k(G, G') = sum_k lam^k 1^T A_x^k 1`` (10.7), or
    its first ``steps + 1`` terms; every entry solves one system of size ``n n'`` (a
    product graph), ``O(n^3 n'^3)`` by a dense solve."""
    X, Zg = _pair(X, Z)
    lam = check_positive(lam, "lam")
    symmetric = Zg is None
    Zg = X if symmetric else Zg
    K = np.zeros((len(X), len(Zg)))
    for i, g in enumerate(X):
        for j in range(i if symmetric else 0, len(Zg)):
            K[i, j] = random_walk_pair(g, Zg[j], lam, steps)
            if symmetric:
                K[j, i] = K[i, j]
    if normalize:
        dX = np.diag(K).copy() if symmetric else np.array([random_walk_pair(g, g, lam, steps) for g in X])
        dZ = dX if symmetric else np.array([random_walk_pair(g, g, lam, steps) for g in Zg])
        K = cosine_normalize(K, dX, dZ)
    return K
