"""The kernel base class and its algebra: ``k1 + k2``, ``k1 * k2`` and ``c * k`` (lectures 2.4-2.5, 3.6).

A kernel is an object called as ``k(X, Z=None)``; ``+`` and ``*`` build the sum, product
and positive multiple of kernels, whose explicit features are the concatenation, the
tensor product and ``sqrt(c)`` times the features.
"""

from __future__ import annotations

import copy
import inspect
import numbers

import numpy as np

from .._validation import as_2d, as_pair, check_positive


def _cdist(X, Z, metric):
    """scipy's ``cdist``, imported at the first call: ``scipy.spatial`` loads much of scipy
    (seconds on a cold start), which a check that needs no distance-based kernel never uses."""
    from scipy.spatial.distance import cdist

    return cdist(X, Z, metric)


def _fmt(value):
    """Format a real parameter for a repr as a float, as Python prints it."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def _is_point(x):
    """Whether ``x`` is one point: a 1-D array (or list) of numbers."""
    if isinstance(x, np.ndarray):
        return x.ndim == 1 and x.dtype.kind in "biuf"
    return (isinstance(x, (list, tuple)) and len(x) > 0
            and all(isinstance(v, numbers.Real) for v in x))


def _no_features(kernel):
    return NotImplementedError(
        f"{kernel!r} has no finite explicit feature map in kernelcourse; "
        "use its Gram matrix k(X, Z) instead")


def _tensor_rows(F1, F2):
    """Row-wise tensor product: row i is vec(F1[i] outer F2[i]), shape (n, D1 * D2)."""
    n = F1.shape[0]
    return (F1[:, :, None] * F2[:, None, :]).reshape(n, F1.shape[1] * F2.shape[1])


class Kernel:
    """Base class: a kernel ``k(x, z)`` evaluated on whole data sets.

    Subclasses implement ``_gram(X, Z, symmetric)`` on validated 2-D arrays
    and ``_diag(X)``; those with a finite feature map implement
    ``_features(X)`` and ``feature_dim(d)``.
    """

    # -- parameters, the protocol of scikit-learn's estimators (and of its
    # Gaussian-process kernels): the constructor stores each argument untouched
    # under its own name, so that ``clone``, ``get_params`` and ``set_params``
    # (with ``k1__gamma`` reaching into the parts of a composed kernel) work.

    @classmethod
    def _param_names(cls):
        init = cls.__init__
        if init is object.__init__:
            return []
        return [p.name for p in inspect.signature(init).parameters.values()
                if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep=True):
        """The constructor's arguments by name; with ``deep``, also the parts' (``k1__gamma``)."""
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            out[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", v) for key, v in value.get_params().items())
        return out

    def set_params(self, **params):
        """Set parameters by name (``gamma=0.5``, ``k1__gamma=0.5``); returns ``self``.

        The new values are checked as the constructor checks them.
        """
        if not params:
            return self
        valid = self._param_names()
        direct, nested = {}, {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for kernel {self!r}; "
                                 f"valid parameters: {valid}")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                direct[name] = value
        old = {name: getattr(self, name) for name in direct}
        try:
            for name, value in direct.items():
                setattr(self, name, value)
            self._check_params()
        except (TypeError, ValueError):
            for name, value in old.items():   # an invalid value leaves the kernel as it was
                setattr(self, name, value)
            raise
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def _check_params(self):
        """Check the parameters (called by ``__init__`` and ``set_params``); raise if invalid."""

    def __call__(self, X, Z=None):
        """Gram matrix ``K[i, j] = k(x_i, z_j)`` of shape ``(n_X, n_Z)``.

        Parameters
        ----------
        X : array-like of shape (n_X, d)
        Z : array-like of shape (n_Z, d), optional
            Defaults to ``X`` (then ``K`` is symmetric and computed as such).

        Two 1-D arrays ``x`` and ``z`` of the same length are one pair of points:
        ``k(x, z)`` is then the number ``k(x, z)``. This is how scikit-learn's
        ``pairwise_kernels`` (used by its ``KernelRidge``) calls a callable kernel.
        """
        if Z is not None and _is_point(X) and _is_point(Z):
            return float(self._call(np.reshape(X, (1, -1)), np.reshape(Z, (1, -1)))[0, 0])
        return self._call(X, Z)

    def _call(self, X, Z):
        symmetric = Z is None or Z is X
        X, Z = as_pair(X, None if symmetric else Z)
        return self._gram(X, Z, symmetric)

    def diag(self, X):
        """``k(x_i, x_i)`` for every row of ``X``, shape ``(n,)``, without the Gram matrix."""
        return self._diag(as_2d(X))

    def features(self, X):
        """Explicit feature map ``phi(X)`` of shape ``(n, D)`` with ``phi(X) phi(Z)^T = k(X, Z)``.

        Raises
        ------
        NotImplementedError
            If the kernel has no finite feature map.
        """
        return self._features(as_2d(X))

    def _features(self, X):
        raise _no_features(self)

    def feature_dim(self, d):
        """Dimension ``D`` of :meth:`features` for inputs with ``d`` features."""
        raise _no_features(self)

    # -- hyperparameters for a Gaussian process (lecture 8.5): the positive parameters
    # a kernel can be differentiated in, on a log scale as scikit-learn's ``theta``.
    # ``_theta`` lists them by name; None means no analytic gradient is written.

    _theta = None

    def hyperparameters(self):
        """Names of the parameters ``theta = log(value)`` in which :meth:`gram_gradient`
        differentiates, by path for a composed kernel (``k1__gamma``, ``c``).

        Raises
        ------
        NotImplementedError
            For a kernel without an analytic gradient in its parameters.
        """
        if self._theta is None:
            raise NotImplementedError(
                f"{self!r} has no analytic gradient in its parameters in kernelcourse; keep its "
                "parameters fixed (optimizer=None) or build the kernel from RBF, Laplacian, "
                "Exponential, Matern, ExpSineSquared, Linear with +, * and c *")
        return list(self._theta)

    @property
    def theta(self):
        """``log`` of the values of :meth:`hyperparameters`, a 1-D array."""
        params = self.get_params()
        return np.log(np.array([float(params[n]) for n in self.hyperparameters()], dtype=float))

    def with_theta(self, theta):
        """A copy of the kernel with the hyperparameters ``exp(theta)``."""
        names = self.hyperparameters()
        theta = np.asarray(theta, dtype=float)
        if theta.shape != (len(names),) or not np.all(np.isfinite(theta)):
            raise ValueError(f"theta must hold {len(names)} finite log-parameters {names} of "
                             f"{self!r}; got shape {theta.shape}: {theta}")
        new = copy.deepcopy(self)
        if names:
            new.set_params(**{n: float(np.exp(t)) for n, t in zip(names, theta)})
        return new

    def gram_gradient(self, X):
        """The Gram matrix ``K`` on ``X`` and its derivatives in the log-parameters.

        Returns
        -------
        K : array (n, n)
        dK : array (n, n, p)
            ``dK[:, :, j] = dK / d log(theta_j)`` for the names of :meth:`hyperparameters`.
        """
        self.hyperparameters()
        return self._gram_gradient(as_2d(X))

    def _gram_gradient(self, X):
        return self._call(X, None), np.empty((X.shape[0], X.shape[0], 0))

    # construction rules as operators
    def __add__(self, other):
        if isinstance(other, Kernel):
            return Sum(self, other)
        return NotImplemented

    def __mul__(self, other):
        if isinstance(other, Kernel):
            return Product(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return ConstantScaled(other, self)
        return NotImplemented

    __rmul__ = __mul__

    def __repr__(self):
        return f"{type(self).__name__}()"


# ---------------------------------------------------------------------------
# Construction rules
# ---------------------------------------------------------------------------

#: scikit-learn's kernel names, which estimators take for a kernel (:func:`~kernelcourse.kernels.as_kernel`)
KERNEL_NAMES = ("linear", "poly", "polynomial", "rbf", "laplacian", "sigmoid")


def _check_kernel(k, name="k"):
    if isinstance(k, str):
        raise TypeError(f"{name} must be a kernelcourse Kernel; got str {k!r}: the names "
                        f"{list(KERNEL_NAMES)} are for estimators; here build the kernel, e.g. RBF(gamma=...)")
    if not isinstance(k, Kernel):
        raise TypeError(f"{name} must be a kernelcourse Kernel; got {type(k).__name__}: {k!r}")
    return k


def _child_features(parent, child, X):
    """``child.features(X)``; without a finite map, the error names parent and child."""
    try:
        return child.features(X)
    except NotImplementedError:
        raise NotImplementedError(
            f"{parent!r} has no finite explicit feature map in kernelcourse, because "
            f"{child!r} has none; use its Gram matrix k(X, Z) instead") from None


def _child_dim(parent, child, d):
    """``child.feature_dim(d)``; without a finite map, the error names parent and child."""
    try:
        return child.feature_dim(d)
    except NotImplementedError:
        raise NotImplementedError(
            f"{parent!r} has no finite explicit feature map in kernelcourse, because "
            f"{child!r} has none") from None


def _wrap(k, loose=()):
    """repr of a child kernel, parenthesised when it binds more loosely."""
    text = repr(k)
    return f"({text})" if isinstance(k, loose) else text


class _Combination(Kernel):
    """A rule that combines two kernels ``k1`` and ``k2`` (the sum and the product)."""

    def __init__(self, k1, k2):
        self.k1 = k1
        self.k2 = k2
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k1, "k1")
        _check_kernel(self.k2, "k2")


class Sum(_Combination):
    """Sum ``k(x, z) = k1(x, z) + k2(x, z)``; its features concatenate ``[phi1(x), phi2(x)]``."""

    def _call(self, X, Z):
        return self.k1(X, Z) + self.k2(X, Z)

    def diag(self, X):
        return self.k1.diag(X) + self.k2.diag(X)

    def features(self, X):
        F1, F2 = _child_features(self, self.k1, X), _child_features(self, self.k2, X)
        return np.hstack([F1, F2])

    def feature_dim(self, d):
        return _child_dim(self, self.k1, d) + _child_dim(self, self.k2, d)

    def hyperparameters(self):
        return ([f"k1__{n}" for n in self.k1.hyperparameters()]
                + [f"k2__{n}" for n in self.k2.hyperparameters()])

    def _gram_gradient(self, X):
        K1, dK1 = self.k1._gram_gradient(X)
        K2, dK2 = self.k2._gram_gradient(X)
        return K1 + K2, np.concatenate([dK1, dK2], axis=2)

    def __repr__(self):
        return f"{self.k1!r} + {self.k2!r}"


class Product(_Combination):
    """Product ``k(x, z) = k1(x, z) k2(x, z)``; its features are the tensor product
    ``phi1(x) (x) phi2(x)`` of dimension ``D1 * D2``."""

    def _call(self, X, Z):
        return self.k1(X, Z) * self.k2(X, Z)

    def diag(self, X):
        return self.k1.diag(X) * self.k2.diag(X)

    def features(self, X):
        F1, F2 = _child_features(self, self.k1, X), _child_features(self, self.k2, X)
        return _tensor_rows(F1, F2)

    def feature_dim(self, d):
        return _child_dim(self, self.k1, d) * _child_dim(self, self.k2, d)

    def hyperparameters(self):
        return ([f"k1__{n}" for n in self.k1.hyperparameters()]
                + [f"k2__{n}" for n in self.k2.hyperparameters()])

    def _gram_gradient(self, X):
        # the product rule: d(K1 K2) = dK1 K2 + K1 dK2, elementwise
        K1, dK1 = self.k1._gram_gradient(X)
        K2, dK2 = self.k2._gram_gradient(X)
        return K1 * K2, np.concatenate([dK1 * K2[:, :, None], K1[:, :, None] * dK2], axis=2)

    def __repr__(self):
        return f"{_wrap(self.k1, (Sum,))} * {_wrap(self.k2, (Sum, Product, ConstantScaled))}"


class ConstantScaled(Kernel):
    """Scaling by a constant ``k(x, z) = c k1(x, z)`` with ``c > 0``; written ``c * k1``.

    Its features are ``sqrt(c) phi1(x)``.
    """

    def __init__(self, c, k):
        self.c = c
        self.k = k
        self._check_params()

    def _check_params(self):
        check_positive(self.c, "c")
        _check_kernel(self.k)

    def _call(self, X, Z):
        return self.c * self.k(X, Z)

    def diag(self, X):
        return self.c * self.k.diag(X)

    def features(self, X):
        return np.sqrt(self.c) * _child_features(self, self.k, X)

    def feature_dim(self, d):
        return _child_dim(self, self.k, d)

    def hyperparameters(self):
        return ["c"] + [f"k__{n}" for n in self.k.hyperparameters()]

    def _gram_gradient(self, X):
        # d(c K) / d log c = c K
        K, dK = self.k._gram_gradient(X)
        return self.c * K, np.concatenate([(self.c * K)[:, :, None], self.c * dK], axis=2)

    def __repr__(self):
        return f"{_fmt(self.c)} * {_wrap(self.k, (Sum,))}"
