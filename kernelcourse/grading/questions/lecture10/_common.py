"""Helpers shared by lecture 10's question modules: the package's names an answer may not call,
and small strings and graphs drawn for the cases (graphs as an adjacency matrix of 0s and 1s
plus a list of node labels, so that an answer needs no package type)."""
from __future__ import annotations

import numpy as np

from ....structured import Graph

S = "kernelcourse.structured."
#: every function or kernel object of the package that computes a string kernel
STRINGS = tuple(S + name for name in (
    "mismatch_neighbourhood_size", "mismatch_neighbourhood", "mismatch_pair_count", "mismatch_kernel",
    "mismatch_features", "spectrum_kernel", "spectrum_features", "kmer_counts", "kmers",
    "hamming_pair_counts", "subsequence_pair", "subsequence_kernel", "cosine_normalize",
    "SpectrumKernel", "MismatchKernel", "SubsequenceKernel"))
#: every function or kernel object of the package that computes a graph kernel
GRAPHS = tuple(S + name for name in (
    "wl_relabel", "wl_features", "wl_subtree_kernel", "floyd_warshall", "shortest_path_features",
    "shortest_path_kernel", "product_graph", "random_walk_pair", "random_walk_kernel",
    "is_isomorphic", "WeisfeilerLehmanKernel", "ShortestPathKernel", "RandomWalkKernel",
    "cosine_normalize"))


def graph(A, labels) -> Graph:
    return Graph(np.asarray(A), labels=list(labels))


def random_string(rng, alphabet, lo, hi) -> str:
    return "".join(rng.choice(list(alphabet), size=int(rng.integers(lo, hi + 1))))


def connected_graph(rng, n, extra, labels="CNO"):
    """A connected graph on n nodes (a random tree plus ``extra`` random edges) with labels
    drawn from ``labels``: ``(A, label list)``."""
    A = np.zeros((n, n), dtype=int)
    order = rng.permutation(n)
    for i in range(1, n):
        j = order[int(rng.integers(0, i))]
        A[order[i], j] = A[j, order[i]] = 1
    for _ in range(extra):
        i, j = (int(v) for v in rng.choice(n, size=2, replace=False))
        A[i, j] = A[j, i] = 1
    return A, [str(c) for c in rng.choice(list(labels), size=n)]
