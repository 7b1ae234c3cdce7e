"""Input checks shared by every module.

Every public function validates what a user gives it here, so that bad input
gets one kind of message everywhere: what is wrong, with the shapes or values
involved. Inputs are never modified in place: ``as_2d`` returns a new array
whenever it has to convert.
"""
from __future__ import annotations

import numbers
import sys

import numpy as np

__all__ = [
    "as_2d",
    "as_pair",
    "as_labels",
    "check_positive",
    "check_nonnegative",
    "check_positive_int",
    "check_square",
    "check_psd",
    "as_targets",
    "check_targets_shape",
    "as_finite",
    "as_real",
    "as_vector",
    "check_finite_real",
    "check_nonnegative_int",
    "check_unit_interval",
    "check_callable",
    "check_choice",
    "as_counts",
    "as_positives",
    "as_rng",
    "as_float_dtype",
    "check_symmetric",
    "check_eigenvalues_psd",
    "asymmetry",
    "psd_tolerance",
]


def as_real(X, name: str) -> np.ndarray:
    """``X`` as a float array (not copied when it already is one); complex and non-numbers raise."""
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array; got the string {X!r}")
    raw = np.asarray(X)
    if np.iscomplexobj(raw):
        raise TypeError(
            f"{name} must be real; got a complex array of shape {raw.shape} "
            "(taking the real part would silently drop the imaginary part)")
    if raw.dtype.kind in "USV":
        raise TypeError(
            f"{name} must be a numeric array; got dtype {raw.dtype} with shape "
            f"{raw.shape} (first entries: {raw.ravel()[:3].tolist()})")
    if raw.dtype.kind == "O":
        try:
            arr = raw.astype(float)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be a numeric array; got dtype {raw.dtype} with shape "
                f"{raw.shape} (first entries: {raw.ravel()[:3].tolist()})") from None
        return arr
    return np.asarray(raw, dtype=float)


def as_2d(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite 2-D float array of shape (n_samples, n_features).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, is empty, or holds NaN or inf.
    """
    arr = as_real(X, name)
    if arr.ndim != 2:
        hint = (" (for one sample use X.reshape(1, -1), for one feature X.reshape(-1, 1))"
                if arr.ndim == 1 else "")
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); "
            f"got {arr.ndim}-D with shape {arr.shape}{hint}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one sample and one feature; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"{name} contains NaN or inf (first at row {bad[0]}, column {bad[1]}: "
            f"{arr[bad[0], bad[1]]}); kernels need finite inputs")
    return arr


def as_pair(X, Z=None, names=("X", "Z")) -> tuple[np.ndarray, np.ndarray]:
    """Validate a pair of inputs for a kernel; ``Z`` defaults to ``X``.

    Raises
    ------
    ValueError
        If the two arrays do not have the same number of features.
    """
    X = as_2d(X, names[0])
    if Z is None:
        return X, X
    Z = as_2d(Z, names[1])
    if X.shape[1] != Z.shape[1]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same number of features; "
            f"got {names[0]} with shape {X.shape} and {names[1]} with shape {Z.shape}")
    return X, Z


def as_labels(y, n: int | None = None, name: str = "y", values=(-1, 1)) -> np.ndarray:
    """Return labels as a 1-D float array, checking their length and their values."""
    raw = np.asarray(y)
    if values is not None and raw.dtype.kind in "OUS":
        raise TypeError(
            f"{name} must hold the numeric labels {sorted(values)}; got dtype {raw.dtype} "
            f"(first entries: {raw.ravel()[:3].tolist()}); map the classes to {sorted(values)} first")
    arr = as_real(y, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels; got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} labels but there are {n} samples")
    if values is not None:
        bad = ~np.isin(arr, values)
        if np.any(bad):
            found = np.unique(arr[bad])[:5]
            raise ValueError(
                f"{name} must hold only the labels {sorted(values)}; found {found.tolist()}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one entry; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf (first at index {int(np.argmin(np.isfinite(arr)))})")
    return arr


def as_finite(v, name: str) -> np.ndarray:
    """Return ``v`` as a real float array with finite entries, or raise naming ``name``."""
    arr = as_real(v, name)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def as_vector(v, name: str, n: int | None = None, what: str = "") -> np.ndarray:
    """Return ``v`` as a finite, non-empty 1-D float array (of length ``n`` when given).

    ``what`` says what ``n`` counts, for the message (e.g. "to match the 6 samples").
    """
    arr = as_finite(v, name)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array; got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},){' ' + what if what else ''}; got shape {arr.shape}")
    return arr


def check_targets_shape(shape: tuple, n: int, name: str = "y", allow_2d: bool = False) -> None:
    """Raise unless targets of this shape fit ``n`` samples (the words of :func:`as_targets`,
    also for arrays not yet computed, such as a Dask array's)."""
    shapes = "1-D (n,) or 2-D (n, k)" if allow_2d else "1-D (n,)"
    if len(shape) not in ((1, 2) if allow_2d else (1,)):
        raise ValueError(f"{name} must be {shapes}; got shape {shape}")
    if shape[0] != n:
        raise ValueError(f"{name} has {shape[0]} entries but there are {n} samples; got shape {shape}")


def as_targets(y, n: int, name: str = "y", allow_2d: bool = False) -> np.ndarray:
    """Return real targets as a finite float array of shape (n,) (or (n, k) if ``allow_2d``).

    Raises
    ------
    TypeError
        If ``y`` is complex or not numeric.
    ValueError
        If ``y`` has the wrong shape or length, or holds NaN or inf.
    """
    arr = as_real(y, name)
    check_targets_shape(arr.shape, n, name, allow_2d)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _check_real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value!r}")


def check_finite_real(value, name: str) -> float:
    """Return ``value`` as a float, or raise if it is not a finite real number."""
    _check_real(value, name)
    return float(value)


def check_positive(value, name: str) -> float:
    """Return ``value`` as a float, or raise if it is not a finite number > 0."""
    _check_real(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be positive; got {name}={value!r}")
    return float(value)


def check_nonnegative(value, name: str) -> float:
    """Return ``value`` as a float, or raise if it is not a finite number >= 0."""
    _check_real(value, name)
    if value < 0:
        raise ValueError(f"{name} must be non-negative; got {name}={value!r}")
    return float(value)


def check_positive_int(value, name: str) -> int:
    """Return ``value`` as an int, or raise if it is not an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {name}={value!r}")
    return int(value)


def check_nonnegative_int(value, name: str) -> int:
    """Return ``value`` as an int, or raise if it is not an integer >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {name}={value!r}")
    return int(value)


def check_unit_interval(value, name: str) -> float:
    """Return ``value`` as a float, or raise if it does not lie strictly between 0 and 1."""
    _check_real(value, name)
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie strictly between 0 and 1; got {name}={value!r}")
    return float(value)


def check_callable(f, name: str, what: str = ""):
    """Return ``f``, or raise a TypeError naming ``name`` if it cannot be called."""
    if not callable(f):
        raise TypeError(f"{name} must be callable{what}; got {type(f).__name__}: {f!r}")
    return f


def check_choice(value, name: str, choices):
    """Return ``value``, or raise naming ``name`` and the choices if it is not one of them."""
    try:
        known = bool(value in choices)
    except (TypeError, ValueError):   # an array compared with the choices
        known = False
    if not known:
        raise ValueError(f"{name} must be one of {list(choices)}; got {name}={value!r}")
    return value


def _as_sequence(values, name, what):
    if isinstance(values, (str, bytes)) or not np.iterable(values):
        raise TypeError(f"{name} must be a sequence of {what}; got {type(values).__name__}: {values!r}")
    values = list(values)
    if not values:
        raise ValueError(f"{name} must hold at least one value; got an empty sequence")
    return values


def _each(check, values, name, item):
    out = []
    for v in values:
        try:
            out.append(check(v, item or name))
        except (TypeError, ValueError) as exc:
            if item is None:
                raise
            raise type(exc)(f"{exc} (an entry of {name})") from None
    return out


def as_counts(values, name: str, item: str | None = None) -> list[int]:
    """A non-empty sequence of positive integers as a list of ints, or raise naming ``name``
    (and ``item``, the name of one entry, when given)."""
    return _each(check_positive_int, _as_sequence(values, name, "positive integers"), name, item)


def as_positives(values, name: str, item: str | None = None) -> list[float]:
    """A non-empty sequence of finite numbers > 0 as a list of floats, or raise naming ``name``
    (and ``item``, the name of one entry, when given)."""
    return _each(check_positive, _as_sequence(values, name, "positive numbers"), name, item)


def as_rng(random_state, name: str = "random_state") -> np.random.Generator:
    """``np.random.default_rng(random_state)`` for None, a non-negative int seed, a Generator,
    a BitGenerator or a SeedSequence; anything else raises naming ``name``."""
    if isinstance(random_state, (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)) \
            or random_state is None:
        return np.random.default_rng(random_state)
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(f"{name} must be None, an int seed or a numpy.random.Generator; "
                        f"got {type(random_state).__name__}: {random_state!r}")
    if random_state < 0:
        raise ValueError(f"{name} must be a non-negative int seed; got {name}={random_state!r}")
    return np.random.default_rng(int(random_state))


def as_float_dtype(dtype, name: str = "dtype") -> np.dtype:
    """``np.dtype(dtype)`` for a floating-point dtype (float32, float64), or raise naming ``name``."""
    try:
        out = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a floating-point dtype such as np.float64 or np.float32; "
                        f"got {dtype!r}") from None
    if out.kind != "f":
        raise ValueError(f"{name} must be a floating-point dtype such as np.float64 or np.float32; "
                         f"got {name}={out}")
    return out


def check_square(K, name: str = "K") -> np.ndarray:
    """Return a Gram matrix as a finite square float array, or raise naming its shape."""
    arr = as_real(K, name)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) Gram matrix; got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must be at least 1 x 1; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def check_psd(K, name: str = "K", tol: float | None = None) -> np.ndarray:
    """Return ``K`` if it is a symmetric PSD Gram matrix, else raise with its smallest eigenvalue.

    ``K`` must be symmetric up to ``1e-10 max(1, max |K|)`` and its smallest eigenvalue
    must be ``>= -tol``, with ``tol = 1e-10 max(1, max |eigenvalue|) n`` by default
    (the rounding of an eigensolver on an ``n x n`` matrix).
    """
    K = check_square(K, name)
    check_symmetric(K, name)
    check_eigenvalues_psd(np.linalg.eigvalsh(K), name, tol)
    return K


def asymmetry(K) -> tuple[bool, float]:
    """``(symmetric, max |K - K^T|)`` for a square ``K``: symmetric means up to
    ``1e-10 max(1, max |K|)``, the rule of every symmetry check of the package."""
    asym = float(np.max(np.abs(K - K.T)))
    return asym <= 1e-10 * max(1.0, float(np.max(np.abs(K)))), asym


def psd_tolerance(eigenvalues) -> float:
    """The default PSD tolerance for an ``n x n`` matrix with these eigenvalues:
    ``1e-10 max(1, max |eigenvalue|) n``, which absorbs an eigensolver's rounding."""
    eig = np.asarray(eigenvalues)
    return 1e-10 * max(1.0, float(np.max(np.abs(eig)))) * eig.shape[0]


def check_symmetric(K, name: str = "K") -> None:
    """Raise unless the square ``K`` is symmetric up to ``1e-10 max(1, max |K|)``."""
    symmetric, asym = asymmetry(K)
    if not symmetric:
        raise ValueError(f"{name} must be symmetric; max |{name} - {name}^T| = {asym:.3g}")


def check_eigenvalues_psd(eigenvalues, name: str = "K", tol: float | None = None) -> None:
    """Raise the message of :func:`check_psd` when the smallest of the (ascending) eigenvalues
    of the ``n x n`` matrix ``name`` is below ``-tol`` (default ``1e-10 max(1, max |eigenvalue|) n``)."""
    eig = np.asarray(eigenvalues)
    if tol is None:
        tol = psd_tolerance(eig)
    if eig[0] < -tol:
        raise ValueError(
            f"{name} must be positive semi-definite; its smallest eigenvalue is {eig[0]:.6g} "
            f"< -{tol:.3g} (the tolerance)")


def gram(kernel, X, Z=None, name: str = "kernel") -> np.ndarray:
    """``kernel(X, Z)`` as a finite float array, checked for the shape (n_X, n_Z)."""
    K = kernel(X) if Z is None else kernel(X, Z)
    K = as_real(K, f"{name}(X{'' if Z is None else ', Z'})")
    want = (len(X), len(X) if Z is None else len(Z))
    if K.shape != want:
        raise ValueError(f"{name} must return a Gram matrix of shape {want}; got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} returned NaN or inf entries")
    return K


def check_array_input(X, name="X"):
    """The errors scikit-learn's estimator checks look for, before :func:`as_2d`.

    Sparse and complex input are refused (a cast to float would drop the
    imaginary part), objects that are not numbers give a ``TypeError``, and a
    1-D or featureless array says how to reshape. Returns a numpy array.
    """
    sparse = sys.modules.get("scipy.sparse")   # not loaded: X cannot be a sparse matrix
    if sparse is not None and sparse.issparse(X):
        raise TypeError(f"{name} is a sparse {type(X).__name__}: sparse input is not supported; "
                        f"pass a dense array ({name}.toarray())")
    arr = check_real(np.asarray(X), name)
    if arr.dtype == object:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold numbers only: {exc}") from None
    if arr.ndim == 1:
        raise ValueError(f"{name} must be a 2-D array of shape (n_samples, n_features); got 1-D "
                         f"with shape {arr.shape}. Reshape your data: {name}.reshape(1, -1) for "
                         f"one sample, {name}.reshape(-1, 1) for one feature")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 "
                         "is required.")
    return arr


def check_real(X, name="X"):
    """Refuse complex input, which a cast to float would silently make real; returns ``X``."""
    if np.iscomplexobj(X):
        raise ValueError(f"{name} must be real (Complex data not supported); got complex data "
                         f"of shape {np.shape(X)}")
    return X
