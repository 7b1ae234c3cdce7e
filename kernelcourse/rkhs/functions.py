"""Functions of an RKHS: ``f = sum_i alpha_i K(x_i, .)``, their inner products and norms,
the reproducing property (lecture 5.1-5.4), and the representer theorem (5.9)."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

from .._validation import as_2d, as_real, check_psd, gram, as_labels, check_positive, check_positive_int
from ..kernels import KERNEL_NAMES, as_kernel


LOSSES = ("squared", "hinge")
BUDGET_RULES = ("oldest", "smallest")
SCHEDULES = ("constant", "inv_sqrt")



def _check_kernel(kernel):
    if isinstance(kernel, str):
        raise TypeError(
            f"kernel={kernel!r}: this class needs a kernel object, not a name; the names "
            f"{list(KERNEL_NAMES)} map to kernelcourse.kernels objects (e.g. RBF(gamma=...))")
    if not callable(kernel):
        raise TypeError(f"kernel must be callable as kernel(X, Z); got {type(kernel).__name__}")
    return kernel




def _same_kernel(k1, k2):
    """Whether two kernel objects are the same function (same type and parameters, by repr)."""
    if k1 is k2:
        return True
    try:
        if k1 == k2:
            return True
    except Exception:  # an __eq__ that does not return a bool
        pass
    return type(k1) is type(k2) and repr(k1) == repr(k2)



def _k_diag(kernel, X):
    """``K(x_i, x_i)`` for every row of X (uses ``kernel.diag`` when it exists)."""
    diag = getattr(kernel, "diag", None)
    if diag is not None:
        return np.asarray(diag(X), dtype=float)
    return np.array([kernel(x[None, :], x[None, :])[0, 0] for x in X])



def _data(X, y, labels, names=("X", "y")):
    X = as_2d(X, names[0])
    y = as_labels(y, X.shape[0], name=names[1], values=(-1, 1) if labels else None)
    return X, y


def _check_function(f, name):
    """``f``, or a TypeError naming ``name`` when it is no RKHSFunction."""
    if not isinstance(f, RKHSFunction):
        raise TypeError(f"{name} must be an RKHSFunction (a function of the RKHS); "
                        f"got {type(f).__name__}")
    return f


def _point(x, name="x"):
    """One point ``x`` of shape (d,) or (1, d), as an array of shape (1, d)."""
    x = as_real(x, name)
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[0] != 1):
        raise ValueError(f"{name} must be a single point, of shape (d,) or (1, d); got shape {x.shape}")
    return as_2d(x.reshape(1, -1), name)



class RKHSFunction:
    """A function ``f(.) = sum_i alpha_i K(x_i, .)`` of the RKHS of ``kernel``.

    Parameters
    ----------
    kernel : callable
        ``kernel(X, Z)`` returns the Gram matrix ``K_ij = K(x_i, z_j)``.
    centres : array of shape (m, d)
        The points ``x_i`` the bumps sit on; ``m = 0`` (shape ``(0, d)``) is the zero function.
    alpha : array of shape (m,)
        The weight ``alpha_i`` of each bump.

    Notes
    -----
    Inner product and norm (lecture 5, section 3)::

        <f, g> = sum_i sum_j alpha_i beta_j K(x_i, x'_j) = alpha^T K beta,
        ||f||^2 = alpha^T K alpha.

    Examples
    --------
    >>> from kernelcourse.kernels import RBF
    >>> f = RKHSFunction(RBF(1.0), [[0.0], [1.0]], [1.0, -0.5])
    >>> round(float(f([[0.0]])[0]), 4)
    0.8161
    """

    __array_ufunc__ = None  # so that ``ndarray * f`` defers to RKHSFunction.__rmul__

    def __init__(self, kernel, centres, alpha):
        self.kernel = _check_kernel(kernel)
        centres = as_real(centres, "centres")
        if centres.ndim == 2 and centres.shape[0] == 0 and centres.shape[1] > 0:
            centres = centres.copy()
        else:
            centres = as_2d(centres, "centres").copy()
        alpha = np.array(as_real(alpha, "alpha"))
        if alpha.ndim != 1:
            raise ValueError(f"alpha must be a 1-D array of coefficients; got shape {alpha.shape}")
        if alpha.shape[0] != centres.shape[0]:
            raise ValueError(
                f"centres and alpha do not match: centres has {centres.shape[0]} rows "
                f"(shape {centres.shape}) but alpha has {alpha.shape[0]} coefficients")
        if not np.all(np.isfinite(alpha)):
            raise ValueError("alpha contains NaN or inf")
        self.centres = centres
        self.alpha = alpha

    @classmethod
    def zero(cls, kernel, n_features):
        """The zero function of ``H_K`` on inputs with ``n_features`` features (no bumps)."""
        n_features = check_positive_int(n_features, "n_features")
        return cls(kernel, np.empty((0, n_features)), np.empty(0))

    @property
    def n_features(self):
        return self.centres.shape[1]

    def __len__(self):
        """The number of bumps ``Q`` (what prediction costs: ``O(Q)`` kernel evaluations)."""
        return self.centres.shape[0]

    def __repr__(self):
        return f"RKHSFunction({len(self)} terms, kernel={self.kernel!r})"

    def _as_inputs(self, X, name="X"):
        X = as_2d(X, name)
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"{name} must have {self.n_features} features like the centres (shape "
                f"{self.centres.shape}); got {name} with shape {X.shape}")
        return X

    def __call__(self, X):
        """Evaluate ``f(x) = sum_i alpha_i K(x_i, x)`` at every row of X; returns shape (n,)."""
        X = self._as_inputs(X)
        if len(self) == 0:
            return np.zeros(X.shape[0])
        return self.kernel(X, self.centres) @ self.alpha

    def bumps(self, X):
        """The weighted bumps ``alpha_i K(x_i, x)`` one per row, shape (m, n); they sum to f(X)."""
        X = self._as_inputs(X)
        if len(self) == 0:
            return np.zeros((0, X.shape[0]))
        return self.alpha[:, None] * self.kernel(self.centres, X)

    def _check_same_space(self, other):
        if not isinstance(other, RKHSFunction):
            raise TypeError(f"expected an RKHSFunction; got {type(other).__name__}")
        if not _same_kernel(self.kernel, other.kernel):
            raise ValueError(
                f"the two functions live in different RKHSs: kernels {self.kernel!r} and {other.kernel!r}")
        if other.n_features != self.n_features:
            raise ValueError(
                f"the two functions take inputs of different sizes: centres with shapes "
                f"{self.centres.shape} and {other.centres.shape}")

    def __add__(self, other):
        """``f + g``: concatenate the bumps (or add coefficients when the centres coincide)."""
        self._check_same_space(other)
        if self.centres.shape == other.centres.shape and np.array_equal(self.centres, other.centres):
            return RKHSFunction(self.kernel, self.centres, self.alpha + other.alpha)
        return RKHSFunction(self.kernel, np.vstack([self.centres, other.centres]),
                            np.concatenate([self.alpha, other.alpha]))

    def __mul__(self, c):
        """``c f``: scale every coefficient by the real number ``c``."""
        if isinstance(c, RKHSFunction) or isinstance(c, bool) or not isinstance(c, numbers.Real):
            raise TypeError(
                f"an RKHS function can only be multiplied by a real number; got {type(c).__name__}")
        return RKHSFunction(self.kernel, self.centres, float(c) * self.alpha)

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-other)

    def inner(self, other):
        """The RKHS inner product ``<f, g> = alpha^T K beta`` with ``K_ij = K(x_i, x'_j)``."""
        self._check_same_space(other)
        if len(self) == 0 or len(other) == 0:
            return 0.0
        return float(self.alpha @ self.kernel(self.centres, other.centres) @ other.alpha)

    def norm(self):
        """The RKHS norm ``||f|| = sqrt(alpha^T K alpha)``."""
        return float(np.sqrt(max(self.inner(self), 0.0)))

    def merged(self):
        """The same function with bumps on identical centres combined into one."""
        if len(self) == 0:
            return self
        unique, inverse = np.unique(self.centres, axis=0, return_inverse=True)
        alpha = np.zeros(unique.shape[0])
        np.add.at(alpha, inverse.ravel(), self.alpha)
        return RKHSFunction(self.kernel, unique, alpha)



def kernel_section(kernel, x):
    """The function ``K(x, .)``: one bump of weight 1 on the point ``x``.

    It is the gradient of the evaluation functional ``E_x[f] = f(x)``, and by the
    reproducing property ``<f, K(x, .)> = f(x)``.
    """
    return RKHSFunction(kernel, _point(x), [1.0])



def representer_minimiser(kernel, X, y, lam):
    """The minimiser of ``sum_i (y_i - f(x_i))^2 + lam ||f||^2`` over the whole RKHS.

    By the representer theorem it is ``f* = sum_i alpha_i K(x_i, .)`` with
    ``alpha = (K + lam I)^-1 y``: kernel ridge regression.
    """
    X, y = _data(X, y, labels=False)
    lam = check_positive(lam, "lam")
    kernel = as_kernel(kernel, X.shape[1])
    K = check_psd(gram(kernel, X, X), "kernel(X, X)")
    alpha = scipy.linalg.solve(K + lam * np.eye(X.shape[0]), y, assume_a="pos")
    return RKHSFunction(kernel, X, alpha)



def orthogonal_to_span(g, X):
    """The part of ``g`` orthogonal to ``span{K(x_i, .)}``: ``g - P g``.

    ``P g = sum_i beta_i K(x_i, .)`` with ``K beta = g(X)``, so the remainder vanishes at
    every ``x_i`` (``<g - P g, K(x_i, .)> = g(x_i) - (K beta)_i = 0``): it changes no loss
    term and only adds to ``||f||^2``.
    """
    X = _check_function(g, "g")._as_inputs(X)
    beta = scipy.linalg.lstsq(g.kernel(X, X), g(X))[0]  # least squares: K may be near-singular
    return g - RKHSFunction(g.kernel, X, beta)
