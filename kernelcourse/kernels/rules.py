"""The construction rules beyond ``+``, ``*`` and ``c *`` (lectures 3.6, 4.5-4.7): ``Exp``,
``PolynomialOf``, ``Scaled``, ``Bilinear``, ``Composed`` and ``Normalized``."""

from __future__ import annotations

import numpy as np

from .._validation import as_2d, as_real, check_positive_int, check_square, psd_tolerance
from .base import Kernel, _check_kernel, _child_dim, _child_features, _no_features, _tensor_rows


class Exp(Kernel):
    """Exponential of a kernel ``k(x, z) = exp(k1(x, z))`` (elementwise).

    A limit of polynomials with positive coefficients, so a kernel; its feature
    space is infinite-dimensional.
    """

    def __init__(self, k):
        self.k = k
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)

    def _call(self, X, Z):
        return np.exp(self.k(X, Z))

    def diag(self, X):
        return np.exp(self.k.diag(X))

    def features(self, X):
        raise _no_features(self)

    def __repr__(self):
        return f"Exp({self.k!r})"


class PolynomialOf(Kernel):
    """Polynomial of a kernel ``k(x, z) = sum_i coeffs[i] * k1(x, z) ** i`` (elementwise).

    Parameters
    ----------
    k : Kernel
    coeffs : sequence of float >= 0
        ``coeffs[0]`` is the constant term, ``coeffs[i]`` multiplies ``k1 ** i``.
        Non-negative coefficients keep the result a kernel.

    Its features stack ``sqrt(coeffs[i])`` times the ``i``-fold tensor power of
    ``phi1``, dimension ``sum_i D1 ** i``.
    """

    def __init__(self, k, coeffs):
        self.k = k
        self.coeffs = coeffs
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)
        coeffs = self.coeffs
        try:
            arr = as_real(coeffs, "coeffs")
        except (TypeError, ValueError):
            raise TypeError(f"coeffs must be a sequence of real numbers; got {coeffs!r}") from None
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"coeffs must be a non-empty 1-D sequence; got shape {arr.shape}")
        bad = [(i, float(c)) for i, c in enumerate(arr) if not np.isfinite(c) or c < 0]
        if bad:
            i, c = bad[0]
            raise ValueError(f"coeffs must be finite and non-negative for the result to be a "
                             f"kernel; got coeffs[{i}]={c!r}")
        self._coeffs = tuple(float(c) for c in arr)

    def _evaluate(self, K):
        out = np.zeros_like(K)
        power = np.ones_like(K)
        for i, c in enumerate(self._coeffs):
            if i > 0:
                power = power * K
            out += c * power
        return out

    def _call(self, X, Z):
        return self._evaluate(self.k(X, Z))

    def diag(self, X):
        return self._evaluate(self.k.diag(X))

    def features(self, X):
        F = _child_features(self, self.k, X)
        blocks, power = [], np.ones((F.shape[0], 1))
        for i, c in enumerate(self._coeffs):
            if i > 0:
                power = _tensor_rows(power, F)
            blocks.append(np.sqrt(c) * power)
        return np.hstack(blocks)

    def feature_dim(self, d):
        D = _child_dim(self, self.k, d)
        return sum(D ** i for i in range(len(self._coeffs)))

    def __repr__(self):
        return f"PolynomialOf({self.k!r}, coeffs={self._coeffs!r})"


def _func_name(f):
    return getattr(f, "__name__", type(f).__name__)


class Scaled(Kernel):
    """Function scaling ``k(x, z) = f(x) k1(x, z) f(z)`` for any real function ``f``.

    Parameters
    ----------
    k : Kernel
    f : callable
        Maps a 2-D array ``X`` of shape ``(n, d)`` to a 1-D array of ``n`` values.

    Its features are ``f(x) phi1(x)``. Also available as ``FunctionScaled``.
    """

    def __init__(self, k, f):
        self.k = k
        self.f = f
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)
        if not callable(self.f):
            raise TypeError(f"f must be callable, mapping X of shape (n, d) to n values; "
                            f"got {type(self.f).__name__}")

    def _f(self, X, name="X"):
        X = as_2d(X, name)
        fX = np.asarray(self.f(X), dtype=float)
        if fX.shape not in ((X.shape[0],), (X.shape[0], 1)):
            raise ValueError(f"f must return one value per row of {name} (shape ({X.shape[0]},)); "
                             f"got shape {fX.shape} for {name} with shape {X.shape}")
        return fX.reshape(-1)

    def _call(self, X, Z):
        fX = self._f(X)
        fZ = fX if Z is None else self._f(Z, "Z")
        return fX[:, None] * self.k(X, Z) * fZ[None, :]

    def diag(self, X):
        return self._f(X) ** 2 * self.k.diag(X)

    def features(self, X):
        return self._f(X)[:, None] * _child_features(self, self.k, X)

    def feature_dim(self, d):
        return _child_dim(self, self.k, d)

    def __repr__(self):
        return f"Scaled({self.k!r}, f={_func_name(self.f)})"


FunctionScaled = Scaled


class Bilinear(Kernel):
    """Bilinear kernel ``k(x, z) = x^T A z`` for a symmetric PSD matrix ``A``.

    Its features are ``L^T x`` with ``A = L L^T`` (``L = V sqrt(Lambda)`` from the
    eigendecomposition of ``A``), dimension ``d``.

    Parameters
    ----------
    A : array-like of shape (d, d), symmetric positive semi-definite
    """

    def __init__(self, A):
        self.A = A
        self._check_params()

    def _check_params(self):
        A = check_square(self.A, "A")
        if not np.allclose(A, A.T, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(A).max())):
            asym = np.abs(A - A.T).max()
            raise ValueError(f"A must be symmetric; got max |A - A^T| = {asym:.3g}")
        lam = np.linalg.eigvalsh(A)
        if lam[0] < -psd_tolerance(lam):
            raise ValueError(f"A must be positive semi-definite; its smallest eigenvalue is "
                             f"{lam[0]:.6g}")
        self._A = A.copy()   # a private copy: later changes to the caller's array do not leak in

    def _check_dim(self, X, name="X"):
        if X.shape[1] != self._A.shape[0]:
            raise ValueError(f"{name} must have {self._A.shape[0]} features to match A with "
                             f"shape {self._A.shape}; got {name} with shape {X.shape}")

    def _gram(self, X, Z, symmetric):
        self._check_dim(X)
        return X @ self._A @ Z.T

    def _diag(self, X):
        self._check_dim(X)
        return np.einsum("ij,jk,ik->i", X, self._A, X)

    def _features(self, X):
        self._check_dim(X)
        lam, V = np.linalg.eigh(self._A)
        L = V * np.sqrt(np.clip(lam, 0.0, None))
        return X @ L

    def feature_dim(self, d):
        d = check_positive_int(d, "d")
        if d != self._A.shape[0]:
            raise ValueError(f"d must be {self._A.shape[0]} to match A with shape "
                             f"{self._A.shape}; got d={d}")
        return d

    def __repr__(self):
        if self._A.size <= 9:
            return f"Bilinear(A={self._A.tolist()})"
        return f"Bilinear(A=<{self._A.shape[0]}x{self._A.shape[1]} matrix>)"


class Composed(Kernel):
    """Composition with a map ``k(x, z) = k1(phi(x), phi(z))``.

    Parameters
    ----------
    k : Kernel
        The kernel applied after the map.
    phi : callable
        Maps the inputs (e.g. an array of shape ``(n, d)``) to what ``k`` takes,
        one row per sample.

    Its features are ``phi1(phi(x))`` when ``k`` has a finite map.
    """

    def __init__(self, k, phi):
        self.k = k
        self.phi = phi
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)
        if not callable(self.phi):
            raise TypeError(f"phi must be callable; got {type(self.phi).__name__}")

    def _phi(self, X, name="X"):
        """``phi(X)``; an error of ``phi`` on ``Z`` says that it was ``Z``."""
        try:
            return self.phi(X)
        except (TypeError, ValueError) as exc:
            if name == "X" or type(exc) not in (TypeError, ValueError):
                raise
            raise type(exc)(f"phi({name}) raised: {exc}") from exc

    def _call(self, X, Z):
        return self.k(self._phi(X), None if Z is None else self._phi(Z, "Z"))

    def diag(self, X):
        return self.k.diag(self._phi(X))

    def features(self, X):
        return _child_features(self, self.k, self._phi(X))

    def feature_dim(self, d):
        d = check_positive_int(d, "d")
        mapped = np.asarray(self.phi(np.zeros((1, d))))
        return _child_dim(self, self.k, mapped.shape[1])

    def __repr__(self):
        return f"Composed({self.k!r}, phi={_func_name(self.phi)})"


class Normalized(Kernel):
    """Normalised kernel ``k(x, z) = k1(x, z) / sqrt(k1(x, x) k1(z, z))``.

    The cosine of the angle between ``phi1(x)`` and ``phi1(z)``: unit diagonal.
    Its features are ``phi1(x) / ||phi1(x)||``.
    """

    def __init__(self, k):
        self.k = k
        self._check_params()

    def _check_params(self):
        _check_kernel(self.k)

    def _norms(self, X, name):
        d = self.k.diag(X)
        if np.any(d <= 0):
            i = int(np.argmax(d <= 0))
            raise ValueError(f"cannot normalise {self.k!r}: k(x, x) = {float(d[i])!r} <= 0 "
                             f"at row {i} of {name}")
        return np.sqrt(d)

    def _call(self, X, Z):
        K = self.k(X, Z)                     # checks X and Z, each under its own name
        nX = self._norms(X, "X")
        nZ = nX if Z is None else self._norms(Z, "Z")
        return K / nX[:, None] / nZ[None, :]

    def diag(self, X):
        self._norms(X, "X")
        return np.ones(len(X))

    def features(self, X):
        return _child_features(self, self.k, X) / self._norms(X, "X")[:, None]

    def feature_dim(self, d):
        return _child_dim(self, self.k, d)

    def __repr__(self):
        return f"Normalized({self.k!r})"
