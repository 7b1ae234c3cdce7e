"""MAP estimates and their dual views (lecture 4.1-4.3 and 4.8): linear and logistic
regression in the primal and through the coefficients ``alpha``, the hinge loss's dual, and what
the kernel trick costs (the lecture's account is in :mod:`kernelcourse.dual`). The estimator
:class:`~kernelcourse.dual.MAPRegression` is in :mod:`.estimator`.
"""
from __future__ import annotations

import numpy as np

from kernelcourse._validation import (as_2d, as_labels, as_targets, as_vector, check_nonnegative, check_positive,
                                      check_positive_int, check_psd, check_square, check_symmetric, as_finite,
                                      psd_tolerance)
from kernelcourse.features import feature_dim_homogeneous

__all__ = ["ridge_ratio", "map_linear_objective", "map_linear_primal", "map_linear_alpha",
           "map_linear_dual", "map_linear_dual_objective", "dual_predict", "logistic_probability",
           "map_logistic_objective", "map_logistic_primal", "map_logistic_alpha",
           "kernel_trick_costs", "hinge_objective", "map_hinge_dual", "alpha_sparsity"]


# ----------------------------------------------------------------------------------------
# 4.1 MAP linear regression and its dual view
# ----------------------------------------------------------------------------------------
def _weights(w, d, name="w"):
    arr = as_finite(w, name)
    if arr.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match X's {d} features; "
                         f"got shape {arr.shape}")
    return arr


def ridge_ratio(sigma, lam):
    """Return the penalty ``sigma^2 / lambda^2`` that the Gaussian prior adds to ``K``.

    Parameters
    ----------
    sigma : float
        Noise standard deviation (``sigma**2`` is the noise variance), > 0.
    lam : float
        Prior standard deviation of each weight (``lam**2`` is the prior variance), > 0.

    Examples
    --------
    >>> ridge_ratio(sigma=0.5, lam=2.0)
    0.0625
    """
    sigma = check_positive(sigma, "sigma")
    lam = check_positive(lam, "lam")
    return sigma ** 2 / lam ** 2


def map_linear_objective(w, X, y, sigma, lam):
    """Negative log posterior of linear regression, up to a constant.

    ``E(w) = 1/(2 sigma^2) sum_i (w^T x_i - y_i)^2 + 1/(2 lambda^2) w^T w``.

    Parameters
    ----------
    w : array of shape (d,)
    X : array of shape (n, d)
    y : array of shape (n,)
    sigma, lam : float
        Noise and prior standard deviations (see the module docstring).

    Returns
    -------
    float
    """
    X = as_2d(X)
    y = as_targets(y, X.shape[0])
    w = _weights(w, X.shape[1])
    sigma, lam = check_positive(sigma, "sigma"), check_positive(lam, "lam")
    r = X @ w - y
    return float(r @ r / (2 * sigma ** 2) + w @ w / (2 * lam ** 2))


def map_linear_primal(X, y, sigma, lam):
    """MAP weights of linear regression, solved in the primal (feature space).

    Setting the gradient of :func:`map_linear_objective` to zero gives
    ``(X^T X + sigma^2/lambda^2 I) w = X^T y``, a ``d x d`` system solved by Cholesky.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)
    sigma, lam : float
        Noise and prior standard deviations (see the module docstring).

    Returns
    -------
    w : array of shape (d,)
    """
    from scipy.linalg import cho_factor, cho_solve  # loaded at the first solve: it takes a while

    X = as_2d(X)
    y = as_targets(y, X.shape[0])
    A = X.T @ X + ridge_ratio(sigma, lam) * np.eye(X.shape[1])
    return cho_solve(cho_factor(A), X.T @ y)


def map_linear_alpha(X, y, w, sigma, lam):
    """Dual coefficients read off a weight vector: ``alpha_i = (lambda^2/sigma^2)(y_i - w^T x_i)``.

    At the MAP weights, ``X^T alpha`` gives ``w`` back: each example is weighted in
    proportion to its residual. At any other ``w`` it does not.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)
    w : array of shape (d,)
        Usually :func:`map_linear_primal`'s answer.
    sigma, lam : float
        Noise and prior standard deviations.

    Returns
    -------
    alpha : array of shape (n,)
    """
    X = as_2d(X)
    y = as_targets(y, X.shape[0])
    w = _weights(w, X.shape[1])
    return (y - X @ w) / ridge_ratio(sigma, lam)


# ----------------------------------------------------------------------------------------
# 4.3 Solving regression in the dual
# ----------------------------------------------------------------------------------------
def map_linear_dual(K, y, sigma, lam):
    """Dual MAP coefficients ``alpha = (K + sigma^2/lambda^2 I)^-1 y``.

    ``K`` is the ``n x n`` Gram matrix ``K_ij = k(x_i, x_j)``; with ``k(x, z) = x^T z`` this is
    ``X X^T`` and ``X^T alpha`` equals :func:`map_linear_primal`. The system is solved by a
    Cholesky factorisation (``K`` is PSD, so ``K + sigma^2/lambda^2 I`` is positive definite).

    Parameters
    ----------
    K : array of shape (n, n)
        A PSD Gram matrix, e.g. ``X @ X.T`` or ``kernels.RBF(gamma)(X)``.
    y : array of shape (n,)
    sigma, lam : float
        Noise and prior standard deviations.

    Returns
    -------
    alpha : array of shape (n,)

    Raises
    ------
    ValueError
        If ``K`` is not symmetric positive semi-definite (its smallest eigenvalue below
        ``-1e-10 max(1, max |eigenvalue|) n``), checked before the solve.

    Examples
    --------
    >>> import numpy as np
    >>> map_linear_dual(np.eye(2), np.array([1.0, 2.0]), sigma=1.0, lam=1.0)
    array([0.5, 1. ])
    """
    from scipy.linalg import cho_factor, cho_solve  # loaded at the first solve: it takes a while

    K = check_square(K)
    y = as_targets(y, K.shape[0])
    ratio = ridge_ratio(sigma, lam)
    check_symmetric(K, "K")
    smallest = np.linalg.eigvalsh((K + K.T) / 2)
    tol = psd_tolerance(smallest)
    if smallest[0] < -tol:
        raise ValueError(
            "K must be positive semi-definite: K is not a PSD Gram matrix "
            f"(smallest eigenvalue {smallest[0]:.3g} < -{tol:.3g}, the tolerance)")
    A = K + ratio * np.eye(K.shape[0])
    try:
        factor = cho_factor(A)
    except np.linalg.LinAlgError:
        raise ValueError(
            "K + sigma^2/lam^2 I is not positive definite: K is not a PSD Gram matrix "
            f"(smallest eigenvalue {smallest[0]:.3g})") from None
    return cho_solve(factor, y)


def map_linear_dual_objective(alpha, K, y, sigma, lam):
    """The regression objective written in ``K`` alone, with ``w = X^T alpha``.

    ``1/(2 sigma^2) (K alpha - y)^T (K alpha - y) + 1/(2 lambda^2) alpha^T K alpha``; for
    ``K = X X^T`` it equals :func:`map_linear_objective` at ``w = X^T alpha``.

    Parameters
    ----------
    alpha : array of shape (n,)
    K : array of shape (n, n)
    y : array of shape (n,)
    sigma, lam : float
        Noise and prior standard deviations.

    Returns
    -------
    float
    """
    K = check_square(K)
    y = as_targets(y, K.shape[0])
    alpha = as_targets(alpha, K.shape[0], "alpha")
    sigma, lam = check_positive(sigma, "sigma"), check_positive(lam, "lam")
    r = K @ alpha - y
    return float(r @ r / (2 * sigma ** 2) + alpha @ K @ alpha / (2 * lam ** 2))


def dual_predict(K_test, alpha):
    """Predictions ``y(x) = k(x)^T alpha``, one per row of ``K_test``.

    Parameters
    ----------
    K_test : array of shape (n_test, n)
        ``K_test[t, i] = k(x_t, x_i)``: row ``t`` is ``k(x_t)^T``.
    alpha : array of shape (n,)
        Dual coefficients, e.g. from :func:`map_linear_dual`; then the prediction is
        ``k(x)^T (K + sigma^2/lambda^2 I)^-1 y``.
    """
    K_test = as_2d(K_test, "K_test")
    alpha = as_finite(alpha, "alpha")
    if alpha.shape != (K_test.shape[1],):
        raise ValueError(f"K_test has {K_test.shape[1]} columns (training points) but alpha has "
                         f"shape {alpha.shape}; expected ({K_test.shape[1]},)")
    return K_test @ alpha


def _linear_kernel(X, Z=None):
    X = as_2d(X)
    Z = X if Z is None else as_2d(Z, "Z")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X and Z must have the same number of features; got X with shape "
                         f"{X.shape} and Z with shape {Z.shape}")
    return X @ Z.T


# ----------------------------------------------------------------------------------------
# 4.2 MAP logistic regression and its dual view
# ----------------------------------------------------------------------------------------
def logistic_probability(X, y, w):
    """``P(y_i | x_i, w) = 1 / (1 + exp(-y_i w^T x_i))`` for labels in {-1, +1}.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,), labels in {-1, +1}
    w : array of shape (d,)

    Returns
    -------
    P : array of shape (n,)
        The probability the model gives to each example's own label.
    """
    from scipy.special import expit  # loaded at the first call: it takes a while

    X = as_2d(X)
    y = as_labels(y, X.shape[0])
    w = _weights(w, X.shape[1])
    return expit(y * (X @ w))


def map_logistic_objective(w, X, y, lam):
    """Negative log posterior of logistic regression, up to a constant.

    ``E(w) = sum_i log(1 + exp(-y_i w^T x_i)) + 1/(2 lambda^2) w^T w``, computed with
    ``logaddexp`` so that large margins neither overflow nor lose precision.

    Parameters
    ----------
    w : array of shape (d,)
    X : array of shape (n, d)
    y : array of shape (n,), labels in {-1, +1}
    lam : float
        Prior standard deviation.

    Returns
    -------
    float
    """
    X = as_2d(X)
    y = as_labels(y, X.shape[0])
    w = _weights(w, X.shape[1])
    lam = check_positive(lam, "lam")
    return float(np.sum(np.logaddexp(0.0, -y * (X @ w))) + w @ w / (2 * lam ** 2))


def _logistic_grad_hess(w, X, y, lam):
    from scipy.special import expit  # loaded at the first call: it takes a while

    p = expit(y * (X @ w))                       # P(y_i | x_i, w)
    grad = -X.T @ (y * (1 - p)) + w / lam ** 2
    hess = (X.T * (p * (1 - p))) @ X + np.eye(X.shape[1]) / lam ** 2
    return grad, hess


def map_logistic_primal(X, y, lam, tol=1e-12, max_iter=100):
    """MAP weights of logistic regression by Newton's method with backtracking.

    Minimises :func:`map_logistic_objective`, which is strictly convex (the prior adds
    ``I / lambda^2`` to the Hessian), until the gradient's largest entry is below ``tol``.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,), labels in {-1, +1}
    lam : float
        Prior standard deviation (``lam**2`` is the prior variance).
    tol : float
        Stop when ``max_j |dE/dw_j| <= tol``.

    Returns
    -------
    w : array of shape (d,)

    Raises
    ------
    RuntimeError
        If ``max_iter`` Newton steps do not reach ``tol``.
    """
    from scipy.linalg import cho_factor, cho_solve  # loaded at the first solve: it takes a while

    X = as_2d(X)
    y = as_labels(y, X.shape[0])
    lam = check_positive(lam, "lam")
    tol = check_positive(tol, "tol")
    max_iter = check_positive_int(max_iter, "max_iter")
    w = np.zeros(X.shape[1])
    E = map_logistic_objective(w, X, y, lam)
    for _ in range(max_iter):
        grad, hess = _logistic_grad_hess(w, X, y, lam)
        if np.max(np.abs(grad)) <= tol:
            return w
        step = cho_solve(cho_factor(hess), grad)
        decrease = grad @ step                      # predicted decrease of a full step, x2
        t = 1.0
        while t > 1e-10:
            E_new = map_logistic_objective(w - t * step, X, y, lam)
            # Armijo's test; close to the optimum the decrease drowns in the rounding of E,
            # where full Newton steps are safe (they converge quadratically there)
            if E_new <= E - 1e-4 * t * decrease or decrease <= 1e-13 * max(1.0, abs(E)):
                break
            t /= 2
        w, E = w - t * step, E_new
    grad, _ = _logistic_grad_hess(w, X, y, lam)
    if np.max(np.abs(grad)) <= tol:
        return w
    raise RuntimeError(f"Newton's method did not reach tol={tol} in {max_iter} steps "
                       f"(largest gradient entry {np.max(np.abs(grad)):.3g})")


def map_logistic_alpha(X, y, w, lam):
    """Dual coefficients of logistic regression: ``alpha_i = lambda^2 y_i (1 - P(y_i | x_i, w))``.

    At the MAP weights, ``X^T alpha = w``: examples the model already explains well
    (``P(y_i | x_i, w)`` near 1) get small weights, but none gets exactly zero.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,), labels in {-1, +1}
    w : array of shape (d,)
        Usually :func:`map_logistic_primal`'s answer.
    lam : float
        Prior standard deviation.

    Returns
    -------
    alpha : array of shape (n,)
    """
    lam = check_positive(lam, "lam")
    y_arr = as_labels(y, as_2d(X).shape[0])
    return lam ** 2 * y_arr * (1 - logistic_probability(X, y, w))


# ----------------------------------------------------------------------------------------
# 4.4 The kernel trick: explicit features against the kernel
# ----------------------------------------------------------------------------------------
def kernel_trick_costs(m, p):
    """Arithmetic operations to get ``k(x, z) = (x^T z)^p`` on ``R^m`` both ways.

    The explicit map is ``kernelcourse.features.homogeneous_polynomial_map``: one feature per
    monomial of degree ``p``, ``M = C(m + p - 1, p)`` of them (``(x1^2, sqrt(2) x1 x2, x2^2)``
    for ``m = p = 2``), which for fixed ``p`` grows as ``m^p / p!``.

    Returns
    -------
    dict with keys
        ``"M"``: the number of features;
        ``"explicit"``: ``2 M (p - 1)`` multiplications to build ``phi(x)`` and ``phi(z)``
        (each monomial is a product of ``p`` factors; the weights are taken as free), plus
        ``2 M - 1`` for their dot product: ``O(m^p)``;
        ``"kernel"``: ``2 m - 1`` for ``x^T z`` plus ``p - 1`` multiplications for the power:
        ``O(m)``.
    """
    m = check_positive_int(m, "m")
    p = check_positive_int(p, "p")
    M = feature_dim_homogeneous(m, p)
    return {"M": M, "explicit": 2 * M * (p - 1) + 2 * M - 1, "kernel": 2 * m - 1 + (p - 1)}


# ----------------------------------------------------------------------------------------
# 4.8 A preview of SVMs: the hinge loss gives sparse alpha
# ----------------------------------------------------------------------------------------
def hinge_objective(alpha, K, y, lam):
    """Regularised hinge loss of ``f = sum_i alpha_i k(x_i, .)``.

    ``E = sum_i max(0, 1 - y_i f(x_i)) + 1/(2 lambda^2) ||f||^2`` with ``||f||^2 = alpha^T K alpha``:
    the logistic loss of 4.2 with ``log(1 + exp(-m))`` replaced by ``max(0, 1 - m)``.

    Parameters
    ----------
    alpha : array of shape (n,)
    K : array of shape (n, n)
    y : array of shape (n,), labels in {-1, +1}
    lam : float
        Prior standard deviation (the penalty is ``1 / (2 lam^2)``).

    Returns
    -------
    float
    """
    K = check_square(K)
    y = as_labels(y, K.shape[0])
    alpha = as_targets(alpha, K.shape[0], "alpha")
    lam = check_positive(lam, "lam")
    f = K @ alpha
    return float(np.sum(np.maximum(0.0, 1 - y * f)) + alpha @ K @ alpha / (2 * lam ** 2))


def map_hinge_dual(K, y, lam, tol=1e-10, max_sweeps=10_000):
    """Minimiser of :func:`hinge_objective`, by coordinate ascent on its dual.

    As for the logistic loss, the minimiser is ``f = sum_i alpha_i k(x_i, .)`` with
    ``alpha_i = lambda^2 y_i g_i``, but now ``g_i`` is a subgradient of the hinge:
    ``g_i = 1`` when ``y_i f(x_i) < 1``, ``g_i = 0`` when ``y_i f(x_i) > 1``, and
    ``g_i`` in ``[0, 1]`` on the margin. Writing ``a_i = lambda^2 g_i``, the ``a`` maximise
    ``sum_i a_i - 1/2 sum_ij a_i a_j y_i y_j K_ij`` over the box ``0 <= a_i <= lambda^2``
    (an SVM without bias, ``C = lambda^2``). Each coordinate step maximises exactly and clips
    to the box; examples beyond the margin end with ``alpha_i = 0`` exactly. Coordinate
    ascent is simple but slow on ill-conditioned ``K``: it is meant for a few hundred points.

    Parameters
    ----------
    K : array of shape (n, n)
        A PSD Gram matrix.
    y : array of shape (n,), labels in {-1, +1}
    lam : float
        Prior standard deviation; ``C = lam^2`` bounds each ``|alpha_i|``.
    tol : float
        Stop when the largest violation of the optimality (KKT) conditions, the projected
        gradient of the dual, is below ``tol``.
    max_sweeps : int
        Passes over all coordinates before giving up.

    Returns
    -------
    alpha : array of shape (n,)
        Signed coefficients ``alpha_i = y_i a_i``.

    Raises
    ------
    RuntimeError
        If ``max_sweeps`` sweeps do not reach ``tol``.
    """
    K = check_psd(K, "K")              # the dual is concave, and coordinate ascent converges, for a PSD K
    y = as_labels(y, K.shape[0])
    C = check_positive(lam, "lam") ** 2
    tol = check_positive(tol, "tol")
    max_sweeps = check_positive_int(max_sweeps, "max_sweeps")
    Q = (y[:, None] * y[None, :]) * K
    a = np.zeros(K.shape[0])
    Qa = np.zeros(K.shape[0])
    for _ in range(max_sweeps):
        violation = 0.0
        for i in range(K.shape[0]):
            if Q[i, i] <= 0:
                continue
            G = Qa[i] - 1.0                       # derivative of the dual's negative at a_i
            pg = min(G, 0.0) if a[i] <= 0 else (max(G, 0.0) if a[i] >= C else G)
            violation = max(violation, abs(pg))
            if pg != 0.0:
                new = min(max(a[i] - G / Q[i, i], 0.0), C)
                Qa += (new - a[i]) * Q[:, i]
                a[i] = new
        if violation <= tol:
            return y * a + 0.0                    # + 0.0 turns -0.0 into 0.0
    raise RuntimeError(f"coordinate ascent did not reach tol={tol} in {max_sweeps} sweeps "
                       f"(largest KKT violation {violation:.3g})")


def alpha_sparsity(alpha, atol=0.0):
    """Fraction of dual coefficients with ``|alpha_i| <= atol`` (exact zeros by default)."""
    alpha = as_vector(alpha, "alpha")
    atol = check_nonnegative(atol, "atol")
    return float(np.mean(np.abs(alpha) <= atol))
