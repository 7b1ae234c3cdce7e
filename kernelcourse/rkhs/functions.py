"""Functions of an RKHS, their inner products and norms, the reproducing property
(lecture 5.1-5.4), the representer theorem (5.9), and the RKHS as a completion (5.12).

An :class:`RKHSFunction` is a finite sum ``f = sum_i alpha_i K(x_i, .)``. The RKHS ``H_K``
itself is the *completion* of these finite sums under the norm ``sqrt(alpha^T K alpha)``
(Moore-Aronszajn): it also holds the limits of Cauchy sequences of finite sums, which for the
Gaussian kernel include functions that are no finite sum (:func:`riemann_bumps`). The inner
product ``<f, g> = alpha^T K beta`` is well defined, whatever expansion of ``f`` and ``g``
is used, because it equals ``sum_j beta_j f(x'_j)`` (:func:`inner_by_evaluation`). The
representer theorem (5.9) is what lets a learner compute with finite sums only.
"""

from __future__ import annotations

import numbers

import numpy as np

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
    """A finite sum ``f(.) = sum_i alpha_i K(x_i, .)`` in the RKHS of ``kernel``.

    These finite sums are dense in the RKHS, which is their completion (5.12); a learner
    needs no more than them by the representer theorem (5.9).

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
    import scipy.linalg   # at first use: it takes a while to load, and few checks need it
    alpha = scipy.linalg.solve(K + lam * np.eye(X.shape[0]), y, assume_a="pos")
    return RKHSFunction(kernel, X, alpha)



def orthogonal_to_span(g, X):
    """The part of ``g`` orthogonal to ``span{K(x_i, .)}``: ``g - P g``.

    ``P g = sum_i beta_i K(x_i, .)`` with ``K beta = g(X)``, so the remainder vanishes at
    every ``x_i`` (``<g - P g, K(x_i, .)> = g(x_i) - (K beta)_i = 0``): it changes no loss
    term and only adds to ``||f||^2``.
    """
    X = _check_function(g, "g")._as_inputs(X)
    import scipy.linalg
    beta = scipy.linalg.lstsq(g.kernel(X, X), g(X))[0]  # least squares: K may be near-singular
    return g - RKHSFunction(g.kernel, X, beta)



# ----------------------------------------------------------------------------------------
# 5.12 The RKHS as a completion (Moore-Aronszajn)
# ----------------------------------------------------------------------------------------
def projection_onto_span(g, X):
    """The orthogonal projection ``P g`` of ``g`` onto ``span{K(x_i, .)}``.

    ``P g = sum_i beta_i K(x_i, .)`` with ``K beta = g(X)`` (least squares when ``K`` is
    singular): the reproducing property gives ``<g, K(x_i, .)> = g(x_i)``, so ``P g`` depends
    on the values of ``g`` at the ``x_i`` only. When ``g`` already lies in the span, ``P g`` is
    ``g`` itself written on the new centres: another expansion of the same function.
    """
    X = _check_function(g, "g")._as_inputs(X)
    import scipy.linalg
    beta = scipy.linalg.lstsq(g.kernel(X, X), g(X))[0]
    return RKHSFunction(g.kernel, X, beta)


def inner_by_evaluation(f, g):
    """``<f, g> = sum_j beta_j f(x'_j)`` for ``g = sum_j beta_j K(x'_j, .)``.

    The same number as ``alpha^T K beta``, but computed from the *values* of ``f``: it does
    not depend on which expansion of ``f`` is used, which is why the inner product of the
    RKHS is well defined (symmetrically, it depends on ``g`` only through its values).
    """
    f, g = _check_function(f, "f"), _check_function(g, "g")
    f._check_same_space(g)
    if len(g) == 0:
        return 0.0
    return float(g.alpha @ f(g.centres))


def evaluation_bound(f, X):
    """``||f|| sqrt(K(x, x))`` for each row of ``X``: a bound on ``|f(x)|``.

    By the reproducing property and Cauchy-Schwarz,
    ``|f(x)| = |<f, K(x, .)>| <= ||f|| ||K(x, .)|| = ||f|| sqrt(K(x, x))``. So ``||f|| = 0``
    forces ``f = 0`` everywhere, and functions close in norm are close at every point
    (uniformly where ``K(x, x)`` is bounded): a Cauchy sequence in norm converges pointwise,
    which is how the limits that complete the space are functions.
    """
    f = _check_function(f, "f")
    X = f._as_inputs(X)
    return f.norm() * np.sqrt(np.maximum(_k_diag(f.kernel, X), 0.0))


def riemann_bumps(kernel, a, b, n):
    """``f_n = (b - a)/n sum_i K(t_i, .)`` over the ``n`` midpoints ``t_i`` of ``[a, b]``.

    A Riemann sum of the continuous superposition ``g(x) = int_a^b K(t, x) dt`` (inputs in
    one dimension). Every ``f_n`` is a finite sum of bumps; as ``n`` grows they form a Cauchy
    sequence in the RKHS norm whose limit ``g`` is no finite sum: it lies in the completion.
    """
    kernel = as_kernel(_check_kernel(kernel), 1)
    a, b = float(as_real(a, "a")), float(as_real(b, "b"))
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"the interval must have finite ends a < b; got a={a}, b={b}")
    n = check_positive_int(n, "n")
    t = a + (np.arange(n) + 0.5) * (b - a) / n
    return RKHSFunction(kernel, t[:, None], np.full(n, (b - a) / n))


def rbf_bump_integral(gamma, a, b, x):
    """``g(x) = int_a^b exp(-gamma (t - x)^2) dt``, in closed form with ``erf``.

    The limit of :func:`riemann_bumps` for ``RBF(gamma)`` in one dimension:
    ``sqrt(pi / (4 gamma)) [erf(sqrt(gamma) (b - x)) - erf(sqrt(gamma) (a - x))]``.
    """
    from scipy.special import erf

    gamma = check_positive(gamma, "gamma")
    a, b = float(as_real(a, "a")), float(as_real(b, "b"))
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"the interval must have finite ends a < b; got a={a}, b={b}")
    x = as_real(x, "x")
    if not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or inf")
    r = np.sqrt(gamma)
    return np.sqrt(np.pi / (4 * gamma)) * (erf(r * (b - x)) - erf(r * (a - x)))


def rbf_bump_integral_norm(gamma, a, b):
    """``||g||`` of :func:`rbf_bump_integral` in the RKHS of ``RBF(gamma)``.

    ``||g||^2 = int int exp(-gamma (s - t)^2) ds dt`` over ``[a, b]^2``
    ``= 2 [L sqrt(pi / (4 gamma)) erf(sqrt(gamma) L) - (1 - exp(-gamma L^2)) / (2 gamma)]``
    with ``L = b - a``: the limit of ``||f_n||^2 = w^2 1^T K 1`` of the Riemann sums.
    """
    from scipy.special import erf

    gamma = check_positive(gamma, "gamma")
    a, b = float(as_real(a, "a")), float(as_real(b, "b"))
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"the interval must have finite ends a < b; got a={a}, b={b}")
    L = b - a
    sq = 2 * (L * np.sqrt(np.pi / (4 * gamma)) * erf(np.sqrt(gamma) * L)
              - (1 - np.exp(-gamma * L * L)) / (2 * gamma))
    return float(np.sqrt(sq))
