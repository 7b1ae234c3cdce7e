"""Input checks shared by every module.

Every public function validates what a user gives it here, so that bad input
gets one kind of message everywhere: what is wrong, with the shapes or values
involved. Inputs are never modified in place: ``as_2d`` returns a new array
whenever it has to convert.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "as_2d",
    "as_pair",
    "as_labels",
    "check_positive",
    "check_nonnegative",
    "check_positive_int",
    "check_square",
]


def as_2d(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite 2-D float array of shape (n_samples, n_features).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, is empty, or holds NaN or inf.
    """
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array; got {type(X).__name__}: {exc}") from None
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
    arr = np.asarray(y, dtype=float)
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
    return arr


def _check_real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value!r}")


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


def check_square(K, name: str = "K") -> np.ndarray:
    """Return a Gram matrix as a finite square float array, or raise naming its shape."""
    arr = np.asarray(K, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) Gram matrix; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr
