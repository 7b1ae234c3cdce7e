"""Graphs as data (lecture 10.5): a small labelled graph type and its conversions.

A :class:`Graph` holds a symmetric 0/1 adjacency matrix ``A`` (no self-loops) and one
label per node. Two graphs are isomorphic when some permutation ``P`` gives
``P A P^T = A'`` and carries labels to labels; no algorithm is known that decides this in
polynomial time, and a kernel that told every pair of non-isomorphic graphs apart would
decide it (Gaertner, Flach and Wrobel, *On graph kernels: hardness results and efficient
alternatives*, COLT 2003). The kernels of :mod:`~kernelcourse.structured.graph_kernels` give
up completeness for speed.

networkx is needed only by :meth:`Graph.from_networkx` and :meth:`Graph.to_networkx`, and
only when a user passes or asks for a networkx graph.
"""
from __future__ import annotations

import itertools

import numpy as np

__all__ = ["Graph", "as_graphs", "path_graph", "cycle_graph", "is_isomorphic"]


class Graph:
    """An undirected graph with labelled nodes.

    Parameters
    ----------
    adjacency : array-like of shape (n, n)
        Symmetric, entries 0 or 1, zero diagonal.
    labels : sequence of length n, optional
        One hashable label per node; all ``0`` when omitted (an unlabelled graph).

    Examples
    --------
    >>> g = Graph([[0, 1], [1, 0]], labels=["C", "O"])
    >>> g.n_nodes, g.edges()
    (2, [(0, 1)])
    """

    def __init__(self, adjacency, labels=None):
        A = np.asarray(adjacency)
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"adjacency must be a square matrix; got shape {A.shape}")
        if A.dtype.kind not in "biuf" or not np.all(np.isin(A, (0, 1))):
            raise ValueError("adjacency must hold only 0 and 1")
        A = A.astype(float)
        if not np.array_equal(A, A.T):
            i, j = np.argwhere(A != A.T)[0]
            raise ValueError(f"adjacency must be symmetric (an undirected graph); A[{i}, {j}] = "
                             f"{A[i, j]:g} but A[{j}, {i}] = {A[j, i]:g}")
        if np.any(np.diag(A)):
            raise ValueError(f"adjacency must have a zero diagonal (no self-loops); "
                             f"nodes with loops: {np.flatnonzero(np.diag(A)).tolist()}")
        n = A.shape[0]
        labels = [0] * n if labels is None else list(labels)
        if len(labels) != n:
            raise ValueError(f"labels must give one label per node: {n} nodes, {len(labels)} labels")
        for i, lab in enumerate(labels):
            try:
                hash(lab)
            except TypeError:
                raise TypeError(f"labels[{i}] = {lab!r} is not hashable") from None
        self.adjacency = A
        self.labels = labels

    @property
    def n_nodes(self) -> int:
        return self.adjacency.shape[0]

    @property
    def n_edges(self) -> int:
        return int(self.adjacency.sum() // 2)

    def edges(self) -> list[tuple[int, int]]:
        """The edges ``(i, j)`` with ``i < j``, in order."""
        i, j = np.nonzero(np.triu(self.adjacency, 1))
        return list(zip(i.tolist(), j.tolist()))

    def neighbours(self, i: int) -> list[int]:
        """The nodes adjacent to node ``i``."""
        return np.flatnonzero(self.adjacency[i]).tolist()

    def degrees(self) -> np.ndarray:
        return self.adjacency.sum(axis=1)

    def laplacian(self) -> np.ndarray:
        """``L = D - A``, with ``D`` the diagonal of degrees (10.8)."""
        return np.diag(self.degrees()) - self.adjacency

    @classmethod
    def from_edges(cls, n: int, edges, labels=None) -> "Graph":
        """The graph on nodes ``0..n-1`` with the given edges ``(i, j)``."""
        A = np.zeros((n, n))
        for i, j in edges:
            if not (0 <= i < n and 0 <= j < n) or i == j:
                raise ValueError(f"edge ({i}, {j}) is not between two distinct nodes of 0..{n - 1}")
            A[i, j] = A[j, i] = 1
        return cls(A, labels)

    @classmethod
    def from_networkx(cls, G, label: str = "label") -> "Graph":
        """A :class:`Graph` from a networkx graph; node attribute ``label`` gives the labels
        (``0`` where a node has none); nodes are taken in ``G.nodes`` order."""
        nx = _networkx()
        if not isinstance(G, nx.Graph) or G.is_directed():
            raise TypeError(f"from_networkx needs an undirected networkx.Graph; got {type(G).__name__}")
        nodes = list(G.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        edges = [(index[u], index[v]) for u, v in G.edges if u != v]
        return cls.from_edges(len(nodes), edges, [G.nodes[v].get(label, 0) for v in nodes])

    def to_networkx(self, label: str = "label"):
        """This graph as a ``networkx.Graph`` with node attribute ``label``."""
        nx = _networkx()
        G = nx.Graph()
        G.add_nodes_from((i, {label: lab}) for i, lab in enumerate(self.labels))
        G.add_edges_from(self.edges())
        return G

    def __eq__(self, other):
        return (isinstance(other, Graph) and np.array_equal(self.adjacency, other.adjacency)
                and self.labels == other.labels)

    def __repr__(self):
        return f"Graph(n_nodes={self.n_nodes}, n_edges={self.n_edges})"


def _networkx():
    try:
        import networkx
    except ImportError:
        raise ImportError("converting from or to networkx needs the networkx package, which is "
                          "not installed: pip install networkx") from None
    return networkx


def as_graphs(X, name: str = "X") -> list[Graph]:
    """``X`` as a list of :class:`Graph`; one graph alone or other objects are refused."""
    if isinstance(X, Graph):
        raise TypeError(f"{name} must be a list of graphs, not one Graph: wrap it as [{name}]")
    try:
        X = list(X)
    except TypeError:
        raise TypeError(f"{name} must be a list of Graph; got {type(X).__name__}") from None
    for i, g in enumerate(X):
        if not isinstance(g, Graph):
            raise TypeError(f"{name} must be a list of Graph; {name}[{i}] is a {type(g).__name__} "
                            "(Graph.from_networkx converts a networkx graph)")
    return X


def path_graph(n: int, labels=None) -> Graph:
    """The path ``0 - 1 - ... - (n-1)``."""
    return Graph.from_edges(n, [(i, i + 1) for i in range(n - 1)], labels)


def cycle_graph(n: int, labels=None) -> Graph:
    """The cycle ``0 - 1 - ... - (n-1) - 0`` (``n >= 3``)."""
    if n < 3:
        raise ValueError(f"a cycle needs at least 3 nodes; got n={n}")
    return Graph.from_edges(n, [(i, (i + 1) % n) for i in range(n)], labels)


def is_isomorphic(g: Graph, h: Graph) -> bool:
    """Whether ``g`` and ``h`` are isomorphic as labelled graphs, by trying every
    permutation that keeps labels (``n!`` of them at worst: small graphs only)."""
    if g.n_nodes != h.n_nodes or g.n_edges != h.n_edges or sorted(map(repr, g.labels)) != sorted(map(repr, h.labels)):
        return False
    if g.n_nodes > 10:
        raise ValueError(f"is_isomorphic tries every permutation: at most 10 nodes; got {g.n_nodes}")
    A, B = g.adjacency, h.adjacency
    for perm in itertools.permutations(range(g.n_nodes)):
        if all(g.labels[i] == h.labels[p] for i, p in enumerate(perm)) and \
                np.array_equal(A, B[np.ix_(perm, perm)]):
            return True
    return False
