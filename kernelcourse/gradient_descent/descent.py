"""The runs of kernelised gradient descent (lecture 1.2-1.4): the dual run on a Gram matrix, the
primal run on explicit features, their steps and losses, and the largest stable step (the
lecture's math is told in :mod:`kernelcourse.gradient_descent`). The estimator
:class:`~kernelcourse.gradient_descent.KernelGD` is in :mod:`.estimator`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernelcourse._progress import Progress
from kernelcourse._validation import (as_2d, as_finite, as_real, as_targets, as_vector, check_eigenvalues_psd,
                                      check_nonnegative_int, check_positive, check_square, check_symmetric, gram)
from kernelcourse.kernels import as_kernel

__all__ = ["squared_loss", "dual_gradient", "kernel_gd_step", "primal_gd_step", "largest_stable_step",
           "kernel_gradient_descent", "primal_gradient_descent", "w_from_alpha", "decision_function",
           "GDRun"]


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------

def _as_vector(v, n, name):
    return as_vector(v, name, n, f"to match the {n} samples")


def _check_step(step):
    return check_positive(step, "step")


# ---------------------------------------------------------------------------
# one step
# ---------------------------------------------------------------------------

def squared_loss(K, y, alpha):
    """The squared loss written with the kernel matrix only.

    .. math:: \\ell(\\alpha) = \\sum_{i=1}^n \\Big(\\sum_{j=1}^n \\alpha_j K_{ij} - y_i\\Big)^2
       = \\|K \\alpha - y\\|^2

    Parameters
    ----------
    K : array-like of shape (n, n)
        Kernel matrix ``K_ij = k(x_i, x_j)``.
    y : array-like of shape (n,)
        Targets.
    alpha : array-like of shape (n,)
        Coefficients of ``w = sum_j alpha_j phi(x_j)``.

    Returns
    -------
    float
    """
    K = check_square(K)
    y = as_targets(y, K.shape[0])
    alpha = _as_vector(alpha, K.shape[0], "alpha")
    r = K @ alpha - y
    return float(r @ r)


def dual_gradient(K, y, alpha):
    """The lecture's ``gamma_i = 2 (sum_j alpha_j K_ij - y_i)``, for all i at once.

    These are the coefficients of the gradient in feature space,
    ``d loss / d w = sum_i gamma_i phi(x_i)``.

    Parameters
    ----------
    K : array-like of shape (n, n)
    y : array-like of shape (n,)
    alpha : array-like of shape (n,)

    Returns
    -------
    gamma : ndarray of shape (n,)
        ``2 (K alpha - y)``.
    """
    K = check_square(K)
    y = as_targets(y, K.shape[0])
    alpha = _as_vector(alpha, K.shape[0], "alpha")
    return 2.0 * (K @ alpha - y)


def kernel_gd_step(K, y, alpha, step):
    """One step of kernelised gradient descent: ``alpha - 2 s (K alpha - y)``.

    .. math:: \\alpha_i^{t+1} = \\alpha_i^t - 2 s \\Big(\\sum_{j=1}^n \\alpha_j^t K_{ij} - y_i\\Big)

    It moves ``w = sum_i alpha_i phi(x_i)`` exactly as one gradient step on
    ``sum_i (w . phi(x_i) - y_i)^2`` with step size ``s`` would. Costs ``O(n^2)``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Kernel matrix.
    y : array-like of shape (n,)
        Targets.
    alpha : array-like of shape (n,)
        Current coefficients (not modified).
    step : float
        Step size ``s > 0``.

    Returns
    -------
    alpha_next : ndarray of shape (n,)

    Examples
    --------
    >>> K = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> kernel_gd_step(K, [1.0, -1.0], np.zeros(2), 0.1)
    array([ 0.2, -0.2])
    """
    step = _check_step(step)
    gradient = dual_gradient(K, y, alpha)          # checks K, y and alpha
    return as_real(alpha, "alpha") - step * gradient


def primal_gd_step(Phi, y, w, step):
    """One gradient step on ``sum_i (w . phi(x_i) - y_i)^2`` in feature space.

    .. math:: w_{t+1} = w_t - s \\sum_{i=1}^n 2 (w_t^\\top \\phi(x_i) - y_i) \\phi(x_i)
       = w_t - 2 s \\Phi^\\top (\\Phi w_t - y)

    Parameters
    ----------
    Phi : array-like of shape (n, D)
        Explicit features, row i is ``phi(x_i)``.
    y : array-like of shape (n,)
    w : array-like of shape (D,)
        Current weights (not modified).
    step : float
        Step size ``s > 0``.

    Returns
    -------
    w_next : ndarray of shape (D,)
    """
    Phi = as_2d(Phi, "Phi")
    y = as_targets(y, Phi.shape[0])
    w = _as_vector(w, Phi.shape[1], "w")
    step = _check_step(step)
    return w - step * 2.0 * (Phi.T @ (Phi @ w - y))


def largest_stable_step(K):
    """``1 / lambda_max(K)``: gradient descent on the squared loss converges for smaller steps.

    The residual obeys ``r_{t+1} = (I - 2 s K) r_t``; its eigenvalues
    ``1 - 2 s lambda_k`` stay inside (-1, 1] exactly when ``s < 1 / lambda_max``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        A positive semi-definite kernel matrix.

    Returns
    -------
    float
    """
    K = check_square(K)
    check_symmetric(K, "K")
    eigenvalues = np.linalg.eigvalsh((K + K.T) / 2.0)
    check_eigenvalues_psd(eigenvalues, "K")
    lam_max = float(eigenvalues[-1])
    if lam_max <= 0:
        raise ValueError(f"K has no positive eigenvalue (largest {lam_max:.3g}); no step makes progress")
    return 1.0 / lam_max


# ---------------------------------------------------------------------------
# whole runs
# ---------------------------------------------------------------------------

@dataclass
class GDRun:
    """The result of a gradient descent run.

    Attributes
    ----------
    coef : ndarray
        The final coefficients (``alpha`` for a dual run, ``w`` for a primal run).
    path : ndarray of shape (n_steps + 1, len(coef)) or None
        ``path[t]`` is the coefficient vector after ``t`` steps (``path[0]`` the
        start); None when the run was made with ``record=False``.
    losses : ndarray of shape (n_steps + 1,)
        The squared loss after each step, ``losses[0]`` at the start.
    step : float
        The step size used.
    """

    coef: np.ndarray
    path: np.ndarray | None
    losses: np.ndarray
    step: float


def _diverged(t, step, losses):
    return ValueError(
        f"gradient descent diverged at step {t} (loss {losses[t - 1]:.3g} and growing) with step={step!r}; "
        "use a step below 1 / lambda_max(K) (see largest_stable_step)")


def kernel_gradient_descent(K, y, step, n_steps, alpha0=None, record=True, progress=False):
    """Run kernelised gradient descent on a Gram matrix (lecture 1.4).

    Repeats ``alpha^{t+1} = alpha^t - 2 s (K alpha^t - y)`` for ``n_steps``
    steps from ``alpha^0`` (zero by default, matching ``w_0 = 0``), which is
    gradient descent on ``sum_i (w . phi(x_i) - y_i)^2`` carried out on the
    coefficients of ``w = sum_i alpha_i phi(x_i)``. Closed form:
    ``alpha^t = alpha^0 - s sum_{r<t} gamma^r``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Kernel matrix ``K_ij = k(x_i, x_j)``.
    y : array-like of shape (n,)
        Targets (labels -1/+1 or any real values).
    step : float
        Step size ``s > 0``; below :func:`largest_stable_step` the loss decreases.
    n_steps : int
        Number of steps (>= 0).
    alpha0 : array-like of shape (n,), optional
        Starting coefficients; zeros by default.
    record : bool, default True
        Keep ``alpha`` after every step in ``GDRun.path``.
    progress : bool, default False
        Show a progress bar (in a notebook) or line (on stderr) over the steps.

    Returns
    -------
    GDRun
        ``coef`` is the final ``alpha``.

    Raises
    ------
    ValueError
        On mismatched shapes, a non-positive step, or when the run diverges
        (the loss overflows) because the step is too large.
    """
    K = check_square(K)
    n = K.shape[0]
    y = as_targets(y, n)
    step = _check_step(step)
    n_steps = check_nonnegative_int(n_steps, "n_steps")
    alpha = np.zeros(n) if alpha0 is None else _as_vector(alpha0, n, "alpha0").copy()
    path = np.empty((n_steps + 1, n)) if record else None
    losses = np.empty(n_steps + 1)
    with np.errstate(over="ignore", invalid="ignore"), \
            Progress(n_steps, "gradient descent", enabled=progress) as bar:
        for t in range(n_steps + 1):
            r = K @ alpha - y                  # r_i = w_t . phi(x_i) - y_i
            losses[t] = r @ r
            if not np.isfinite(losses[t]):
                raise _diverged(t, step, losses)
            if record:
                path[t] = alpha
            if t < n_steps:
                alpha = alpha - step * 2.0 * r  # alpha_i <- alpha_i - s gamma_i
                bar.update()
    return GDRun(coef=alpha, path=path, losses=losses, step=step)


def primal_gradient_descent(Phi, y, step, n_steps, w0=None, record=True):
    """Run gradient descent on explicit features, for comparison (lecture 1.2).

    Repeats ``w_{t+1} = w_t - 2 s Phi^T (Phi w_t - y)`` for ``n_steps`` steps
    from ``w_0`` (zero by default): gradient descent on
    ``sum_i (w . phi(x_i) - y_i)^2``. Each step costs ``O(n D)``.

    Parameters
    ----------
    Phi : array-like of shape (n, D)
        Row i is ``phi(x_i)``.
    y : array-like of shape (n,)
    step : float
        Step size ``s > 0``.
    n_steps : int
        Number of steps (>= 0).
    w0 : array-like of shape (D,), optional
        Starting weights; zeros by default.
    record : bool, default True
        Keep ``w`` after every step in ``GDRun.path``.

    Returns
    -------
    GDRun
        ``coef`` is the final ``w``.
    """
    Phi = as_2d(Phi, "Phi")
    n, D = Phi.shape
    y = as_targets(y, n)
    step = _check_step(step)
    n_steps = check_nonnegative_int(n_steps, "n_steps")
    w = np.zeros(D) if w0 is None else _as_vector(w0, D, "w0").copy()
    path = np.empty((n_steps + 1, D)) if record else None
    losses = np.empty(n_steps + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(n_steps + 1):
            r = Phi @ w - y
            losses[t] = r @ r
            if not np.isfinite(losses[t]):
                raise _diverged(t, step, losses)
            if record:
                path[t] = w
            if t < n_steps:
                w = w - step * 2.0 * (Phi.T @ r)
    return GDRun(coef=w, path=path, losses=losses, step=step)


def w_from_alpha(Phi, alpha):
    """``w = sum_i alpha_i phi(x_i) = Phi^T alpha``, for one alpha or a whole path.

    Parameters
    ----------
    Phi : array-like of shape (n, D)
        Row i is ``phi(x_i)``.
    alpha : array-like of shape (n,) or (T, n)
        One coefficient vector, or one per row (a path).

    Returns
    -------
    ndarray of shape (D,) or (T, D)
    """
    Phi = as_2d(Phi, "Phi")
    alpha = as_finite(alpha, "alpha")
    if alpha.ndim not in (1, 2) or alpha.shape[-1] != Phi.shape[0]:
        raise ValueError(
            f"alpha must have shape ({Phi.shape[0]},) or (T, {Phi.shape[0]}) to match Phi with shape "
            f"{Phi.shape}; got shape {alpha.shape}")
    return alpha @ Phi


def _gram(kernel, X, Z=None):
    return gram(as_kernel(kernel, np.shape(X)[1]), X, Z)


def decision_function(kernel, X_train, alpha, X):
    """The prediction ``h(x) = sum_j alpha_j k(x_j, x)`` for every row of ``X``.

    Parameters
    ----------
    kernel : kernel object or callable
        ``kernel(X, Z)`` returns the Gram matrix.
    X_train : array-like of shape (n, d)
        The training inputs ``x_j``.
    alpha : array-like of shape (n,)
        Their coefficients.
    X : array-like of shape (m, d)
        Where to predict.

    Returns
    -------
    ndarray of shape (m,)
    """
    X_train = as_2d(X_train, "X_train")
    alpha = _as_vector(alpha, X_train.shape[0], "alpha")
    X = as_2d(X, "X")
    if X.shape[1] != X_train.shape[1]:
        raise ValueError(
            f"X must have the {X_train.shape[1]} features of X_train; got X with shape {X.shape} "
            f"and X_train with shape {X_train.shape}")
    return _gram(kernel, X, X_train) @ alpha
