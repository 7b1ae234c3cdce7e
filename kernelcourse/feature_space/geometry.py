"""Computing in feature space from kernel values alone (lecture 3.7-3.9), on arrays.

The functions of :mod:`kernelcourse.feature_space` (whose docstring states the formulas)
without its estimator classes: norms and distances of ``w = sum_i alpha_i phi(x_i)``, the
normalised kernel, the mean and its spread, centering, the centre-of-mass scores and the
distances to the mean. None imports scikit-learn.
"""
from __future__ import annotations

import numpy as np

from .._centering import _as_float_matrix, _centre_in_blocks, _check_finite_means, center_gram
from .._validation import (as_2d, as_finite, as_labels, as_vector, check_array_input, check_finite_real,
                           check_psd, check_square)

__all__ = [
    "weight_norm_squared",
    "feature_distance",
    "normalize_gram",
    "normalize_kernel_rows",
    "mean_norm",
    "mean_squared_distance_to_mean",
    "center_gram",
    "center_kernel_rows",
    "centre_of_mass_offset",
    "centre_of_mass_scores",
    "centre_of_mass_weight",
    "squared_distances_to_mean",
]


def _coefficients(alpha, m: int, name: str) -> np.ndarray:
    arr = as_finite(alpha, name)
    if arr.shape != (m,):
        raise ValueError(f"{name} must have shape ({m},) to match K of shape ({m}, {m}); "
                         f"got shape {arr.shape}")
    return arr


# ---------------------------------------------------------------- norms and distances
def weight_norm_squared(K, alpha) -> float:
    """Squared norm of ``w = sum_i alpha_i phi(x_i)``.

    .. math:: \\|w\\|^2 = \\sum_{i,j} \\alpha_i \\alpha_j \\kappa(x_i, x_j) = \\alpha^T K \\alpha
    """
    K = check_square(K, "K")
    alpha = _coefficients(alpha, K.shape[0], "alpha")
    return float(alpha @ K @ alpha)


def feature_distance(K, alpha, beta) -> float:
    """Distance between ``w_a = sum_i alpha_i phi(x_i)`` and ``w_b = sum_i beta_i phi(x_i)``.

    .. math:: d(w_a, w_b) = \\|w_a - w_b\\| = \\sqrt{(\\alpha - \\beta)^T K (\\alpha - \\beta)}

    Round-off can make the quadratic form slightly negative; it is clipped at 0.
    """
    K = check_square(K, "K")
    m = K.shape[0]
    diff = _coefficients(alpha, m, "alpha") - _coefficients(beta, m, "beta")
    return float(np.sqrt(max(diff @ K @ diff, 0.0)))


def _positive_diagonal(diag, name):
    diag = np.asarray(diag, dtype=float)
    if np.any(diag <= 0):
        i = int(np.argmax(diag <= 0))
        raise ValueError(f"cannot normalise: {name}[{i}] = k(x, x) = {float(diag[i])!r} is not positive "
                         f"(phi(x) = 0 has no direction)")
    return diag


def normalize_gram(K) -> np.ndarray:
    """Gram matrix of the normalised features ``phi(x)/||phi(x)||``.

    .. math:: \\hat K_{ij} = \\frac{K_{ij}}{\\sqrt{K_{ii} K_{jj}}}
    """
    K = check_square(K, "K")
    s = 1.0 / np.sqrt(_positive_diagonal(np.diag(K), "diag(K)"))
    return K * s[:, None] * s[None, :]


def normalize_kernel_rows(K_new, diag_new, diag_train) -> np.ndarray:
    """Normalised kernel values ``k(x, z) / sqrt(k(x, x) k(z, z))`` between new and training points.

    Parameters
    ----------
    K_new : array (p, m)
        ``K_new[a, i] = k(x_a, x_i)``.
    diag_new : array (p,)
        ``k(x_a, x_a)`` for the new points.
    diag_train : array (m,)
        ``k(x_i, x_i)`` for the training points.
    """
    K_new = as_2d(K_new, "K_new")
    p, m = K_new.shape
    diag_new = _positive_diagonal(as_vector(diag_new, "diag_new"), "diag_new")
    diag_train = _positive_diagonal(as_vector(diag_train, "diag_train"), "diag_train")
    if diag_new.shape != (p,) or diag_train.shape != (m,):
        raise ValueError(f"K_new has shape {K_new.shape} but diag_new has {diag_new.shape[0]} "
                         f"entries and diag_train {diag_train.shape[0]}")
    return K_new / np.sqrt(diag_new)[:, None] / np.sqrt(diag_train)[None, :]


def mean_norm(K) -> float:
    """Norm of the sample mean in feature space.

    .. math:: \\|\\phi_S\\| = \\Big\\|\\frac1m \\sum_i \\phi(x_i)\\Big\\| = \\frac1m \\sqrt{j^T K j}
    """
    K = check_square(K, "K")
    return float(np.sqrt(max(K.sum(), 0.0)) / K.shape[0])


def mean_squared_distance_to_mean(K) -> float:
    """Average squared distance of the sample to its mean in feature space.

    .. math:: \\hat E\\,\\|\\phi(x) - \\phi_S\\|^2 = \\frac1m \\mathrm{tr}(K) - \\frac1{m^2} j^T K j
    """
    K = check_psd(K, "K")
    m = K.shape[0]
    return float(np.trace(K) / m - K.sum() / m**2)


# ---------------------------------------------------------------- centering
def _square_gram(K, name):
    """``K`` as a float matrix, refused unless it is square."""
    K = _as_float_matrix(check_array_input(K, name), name)
    if K.shape[0] != K.shape[1]:
        bad = "" if np.all(np.isfinite(K)) else " that contains NaN or inf"
        raise ValueError(f"{name} must be a square (n, n) Gram matrix; got shape {K.shape}{bad}")
    return K


def _training_means(K, name):
    """The column means ``c_i = (1/m) sum_k K[k, i]`` of a checked square ``K`` and the grand
    mean ``g = j^T K j / m^2`` (one BLAS pass over ``K``)."""
    m = K.shape[0]
    column_means = np.ones(m) @ K / m
    _check_finite_means(column_means, K, name)
    return column_means, float(column_means.sum() / m)


def _new_rows(K_new, m):
    """New points' kernel rows as a float matrix; NaN or inf named before a wrong width."""
    K_new = _as_float_matrix(check_array_input(K_new, "K_new"), "K_new")
    if K_new.shape[1] != m and not np.all(np.isfinite(K_new)):
        raise ValueError(f"K_new contains NaN or inf (and has {K_new.shape[1]} columns, "
                         f"not one per training point ({m}))")
    return K_new


def _centre_new_rows(K_new, column_means, grand_mean):
    """``K_new[a, i] - r_a - c_i + g``: the row means ``r_a`` are each new point's own, the
    column means and the grand mean the training sample's."""
    m = column_means.shape[0]
    row_means = K_new @ np.ones(m) / m
    _check_finite_means(row_means, K_new, "K_new")
    # K - r_a - c_i + g, with g folded into the row shift: one blocked pass writing K.
    return _centre_in_blocks(K_new, row_means - grand_mean, column_means)


def center_kernel_rows(K_new, K_train) -> np.ndarray:
    """Centre new points' kernel rows ``K_new[a, i] = k(x_a, x_i)`` (shape (p, m)) with the
    training statistics of ``K_train`` (shape (m, m)), as :class:`GramCenterer` does."""
    column_means, grand_mean = _training_means(_square_gram(K_train, "K_train"), "K_train")
    m = column_means.shape[0]
    K_new = _new_rows(K_new, m)
    if K_new.shape[1] != m:
        raise ValueError(f"K_new must have one column per training point ({m}); got K_new with "
                         f"shape {K_new.shape} for K_train with shape {(m, m)}")
    return _centre_new_rows(K_new, column_means, grand_mean)


# ---------------------------------------------------------------- centre-of-mass classifier
def _class_masks(y):
    pos, neg = y > 0, y < 0
    if not pos.any() or not neg.any():
        raise ValueError(f"the centre-of-mass classifier needs both classes; got "
                         f"{int(pos.sum())} positive and {int(neg.sum())} negative labels")
    return pos, neg


def centre_of_mass_offset(K, y) -> float:
    """The offset ``b`` of the centre-of-mass classifier.

    .. math:: b = \\frac{1}{2 m_+^2} \\sum_{i,j \\in S_+} \\kappa(x_i, x_j)
                - \\frac{1}{2 m_-^2} \\sum_{i,j \\in S_-} \\kappa(x_i, x_j)
              = \\tfrac12 (\\|\\phi_{S_+}\\|^2 - \\|\\phi_{S_-}\\|^2)
    """
    K = check_square(K, "K")
    y = as_labels(y, K.shape[0])
    pos, neg = _class_masks(y)
    return float(K[np.ix_(pos, pos)].mean() / 2 - K[np.ix_(neg, neg)].mean() / 2)


def centre_of_mass_scores(K_new, y, b: float) -> np.ndarray:
    """Decision values ``(1/m_+) sum_{S+} k(x, x_i) - (1/m_-) sum_{S-} k(x, x_i) - b``.

    ``K_new[a, i] = k(x_a, x_i)`` against the training points with labels ``y``.
    The classifier is ``h(x) = sgn`` of this value; it equals
    ``(||phi(x) - phi_S-||^2 - ||phi(x) - phi_S+||^2) / 2``.
    """
    K_new = as_2d(K_new, "K_new")
    y = as_labels(y, K_new.shape[1], name="y")
    b = check_finite_real(b, "b")
    pos, neg = _class_masks(y)
    return K_new[:, pos].mean(axis=1) - K_new[:, neg].mean(axis=1) - b


def centre_of_mass_weight(Phi, y) -> np.ndarray:
    """The hyperplane's normal with explicit features: ``w = phi_S+ - phi_S-``.

    ``h(x) = sgn(<w, phi(x)> - b)`` is the centre-of-mass classifier.
    """
    Phi = as_2d(Phi, "Phi")
    y = as_labels(y, Phi.shape[0])
    pos, neg = _class_masks(y)
    return Phi[pos].mean(axis=0) - Phi[neg].mean(axis=0)


# ---------------------------------------------------------------- novelty detection
def squared_distances_to_mean(K_new, diag_new, K_train) -> np.ndarray:
    """``||phi(x) - phi_S||^2`` for new points, from kernel values only.

    .. math:: \\|\\phi(x) - \\phi_S\\|^2 = \\kappa(x, x) - \\frac2m \\sum_i \\kappa(x, x_i)
              + \\frac1{m^2} j^T K j

    Parameters
    ----------
    K_new : array (p, m), ``k(x_a, x_i)``
    diag_new : array (p,), ``k(x_a, x_a)``
    K_train : array (m, m), the training Gram matrix
    """
    K_train = check_square(K_train, "K_train")
    K_new = as_2d(K_new, "K_new")
    m = K_train.shape[0]
    diag_new = as_vector(diag_new, "diag_new")
    if K_new.shape[1] != m or diag_new.shape[0] != K_new.shape[0]:
        raise ValueError(f"K_new must have shape (p, {m}) and diag_new (p,); got K_new "
                         f"{K_new.shape} and diag_new {diag_new.shape}")
    d2 = diag_new - 2 * K_new.mean(axis=1) + K_train.sum() / m**2
    return np.maximum(d2, 0.0)
