"""Nystroem against random Fourier features, and both against the best low rank (lecture 6.3)."""
from __future__ import annotations

import numpy as np

from .._validation import as_2d, as_counts, as_real
from ..random_features.approximation import _rng
from .approximation import approximation_error, rbf_gram_spectrum

__all__ = ["errors_against_components"]


def _check_gram_spectrum(gram_spectrum, n):
    if not isinstance(gram_spectrum, (tuple, list)) or len(gram_spectrum) != 2:
        raise TypeError(f"gram_spectrum must be the pair (K, spectrum) from rbf_gram_spectrum(X, gamma); "
                        f"got {type(gram_spectrum).__name__}")
    K, spectrum = as_real(gram_spectrum[0], "gram_spectrum"), as_real(gram_spectrum[1], "gram_spectrum")
    if K.shape != (n, n) or spectrum.shape != (n,):
        raise ValueError(f"gram_spectrum must hold K of shape ({n}, {n}) and its {n} eigenvalues for X's "
                         f"{n} rows; got shapes {K.shape} and {spectrum.shape}")
    return K, spectrum


def errors_against_components(X, gamma, components, random_state=0, gram_spectrum=None):
    """Relative errors ``||K - Phi Phi^T||_F / ||K||_F`` of Nystroem and random Fourier features (6.3).

    Both approximate the same RBF Gram matrix ``K`` of ``X``, with ``m``
    features each, for every ``m`` in ``components``; beside them stands the
    best any rank-``m`` approximation can do, ``sqrt(sum_{i>m} s_i^2) / ||K||_F``
    over the eigenvalues ``s_1 >= s_2 >= ...`` of ``K`` (Eckart and Young).
    Nystroem's error follows that floor when the spectrum decays fast; random
    features do not use the data and shrink like ``1 / sqrt(m)`` whatever the spectrum.

    Returns
    -------
    dict
        ``components`` (array of m), ``nystroem``, ``random_features``, ``best_rank``
        (arrays of relative errors) and ``spectrum`` (the eigenvalues of ``K``,
        largest first). ``gram_spectrum``: ``(K, spectrum)`` from
        :func:`rbf_gram_spectrum` for this ``X`` and ``gamma``, to reuse.
    """
    from ..kernels import RBF
    from ..random_features import RandomFourierFeatures  # both estimators import scikit-learn
    from .estimator import Nystroem

    X = as_2d(X, "X")
    components = np.array(as_counts(components, "components"))
    if components.max() > X.shape[0]:
        raise ValueError(f"every number of components must be at most n = {X.shape[0]}; "
                         f"got {components.tolist()}")
    kernel = RBF(gamma)
    K, spectrum = (rbf_gram_spectrum(X, gamma) if gram_spectrum is None
                   else _check_gram_spectrum(gram_spectrum, X.shape[0]))
    norm = np.linalg.norm(K)
    tail = np.sqrt(np.cumsum((spectrum ** 2)[::-1])[::-1])          # tail[m] = sqrt(sum_{i>=m} s_i^2)
    rng = _rng(random_state)
    out = {"components": components, "nystroem": [], "random_features": [],
           "best_rank": [float(tail[m]) / norm if m < len(tail) else 0.0 for m in components],
           "spectrum": spectrum}
    for m in components:
        Phi = Nystroem(kernel, int(m), rng).fit_transform(X)
        out["nystroem"].append(approximation_error(K, Phi) / norm)
        Z = RandomFourierFeatures(gamma, int(m), rng, n_threads=1).fit_transform(X)
        out["random_features"].append(approximation_error(K, Z) / norm)
    for key in ("nystroem", "random_features", "best_rank"):
        out[key] = np.asarray(out[key])
    return out
