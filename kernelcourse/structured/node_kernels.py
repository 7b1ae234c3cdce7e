"""Kernels on the nodes of one graph (lecture 10.8): the diffusion kernel and the
regularised Laplacian.

With the graph Laplacian ``L = D - A`` (symmetric, PSD: ``f^T L f = sum_{i~j} (f_i - f_j)^2``):

* the diffusion kernel ``K = exp(-beta L) = V exp(-beta Lambda) V^T`` (Kondor and Lafferty,
  *Diffusion kernels on graphs and other discrete input spaces*, ICML 2002): heat spreading
  along the edges for a time ``beta``; ``K_ij`` is large for nodes joined by many short paths;
* the regularised Laplacian ``K = (I + beta L)^{-1}`` (Smola and Kondor, *Kernels and
  regularization on graphs*, COLT 2003).

Both are PSD by construction: functions ``r(lambda) > 0`` of the eigenvalues of ``L``.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_positive
from .graphs import Graph

__all__ = ["laplacian", "diffusion_kernel", "regularized_laplacian_kernel"]


def laplacian(graph) -> np.ndarray:
    """``L = D - A`` of a :class:`Graph` or of a symmetric adjacency matrix."""
    if not isinstance(graph, Graph):
        graph = Graph(graph)
    return graph.laplacian()


def _spectral(graph, r):
    lam, V = np.linalg.eigh(laplacian(graph))
    return (V * r(lam)) @ V.T


def diffusion_kernel(graph, beta: float = 1.0) -> np.ndarray:
    """``K = exp(-beta L)`` on the nodes of ``graph``, shape ``(n, n)``, from the
    eigendecomposition ``L = V Lambda V^T``.

    Examples
    --------
    >>> from kernelcourse.structured import path_graph
    >>> K = diffusion_kernel(path_graph(3), beta=0.5)
    >>> bool(K[0, 1] > K[0, 2])
    True
    """
    beta = check_positive(beta, "beta")
    return _spectral(graph, lambda lam: np.exp(-beta * lam))


def regularized_laplacian_kernel(graph, beta: float = 1.0) -> np.ndarray:
    """``K = (I + beta L)^{-1}`` on the nodes of ``graph``, shape ``(n, n)``."""
    beta = check_positive(beta, "beta")
    return _spectral(graph, lambda lam: 1.0 / (1.0 + beta * lam))
