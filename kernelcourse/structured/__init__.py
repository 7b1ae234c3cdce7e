"""Kernels for structured data: strings, graphs, and the nodes of one graph (lecture 10).

A convolution kernel (Haussler, *Convolution kernels on discrete structures*, 1999) compares
two objects through their parts: k-mers and subsequences of strings, rooted subtrees, shortest
paths and walks of graphs. Each is an inner product of (often sparse) counts of parts, so it is
a kernel; normalising it, ``k(x, z) / sqrt(k(x, x) k(z, z))`` (``normalize=True``), keeps long
strings and large graphs from dominating (10.1).

The lecture's sections, one module each (every name is imported from
``kernelcourse.structured``):

* ``strings`` (10.2-10.4): :func:`spectrum_kernel`, :func:`mismatch_kernel`,
  :func:`subsequence_kernel`, and their parts (:func:`kmer_counts`,
  :func:`mismatch_neighbourhood`, :func:`mismatch_pair_count`, :func:`subsequence_pair`);
* ``graphs`` (10.5): the labelled :class:`Graph`, to and from networkx;
* ``graph_kernels`` (10.6-10.7): :func:`wl_subtree_kernel` (and :func:`wl_relabel`),
  :func:`shortest_path_kernel` (:func:`floyd_warshall`), :func:`random_walk_kernel`;
* ``node_kernels`` (10.8): :func:`diffusion_kernel`, :func:`regularized_laplacian_kernel`;
* ``objects``: the same kernels as kernel objects (:class:`SpectrumKernel`, ...) and
  :meth:`~StructuredKernel.indexed`, which hands them to the course's estimators.
"""
from .graph_kernels import (floyd_warshall, product_graph, random_walk_kernel, random_walk_pair,
                            shortest_path_features, shortest_path_kernel, wl_features, wl_relabel,
                            wl_subtree_kernel)
from .graphs import Graph, as_graphs, cycle_graph, is_isomorphic, path_graph
from .node_kernels import diffusion_kernel, laplacian, regularized_laplacian_kernel
from .objects import (IndexedKernel, MismatchKernel, RandomWalkKernel, ShortestPathKernel,
                      SpectrumKernel, StructuredKernel, SubsequenceKernel, WeisfeilerLehmanKernel)
from .strings import (DNA, as_strings, cosine_normalize, hamming_pair_counts, kmer_counts, kmers, mismatch_features,
                      mismatch_kernel, mismatch_neighbourhood, mismatch_neighbourhood_size,
                      mismatch_pair_count, spectrum_features, spectrum_kernel, subsequence_kernel,
                      subsequence_pair)

__all__ = [
    "spectrum_kernel", "mismatch_kernel", "subsequence_kernel", "subsequence_pair",
    "kmers", "kmer_counts", "spectrum_features", "mismatch_features", "mismatch_neighbourhood",
    "mismatch_neighbourhood_size", "mismatch_pair_count", "hamming_pair_counts", "cosine_normalize", "as_strings", "DNA",
    "Graph", "as_graphs", "path_graph", "cycle_graph", "is_isomorphic",
    "wl_relabel", "wl_features", "wl_subtree_kernel", "floyd_warshall", "shortest_path_features",
    "shortest_path_kernel", "product_graph", "random_walk_pair", "random_walk_kernel",
    "laplacian", "diffusion_kernel", "regularized_laplacian_kernel",
    "StructuredKernel", "SpectrumKernel", "MismatchKernel", "SubsequenceKernel",
    "WeisfeilerLehmanKernel", "ShortestPathKernel", "RandomWalkKernel", "IndexedKernel",
]
