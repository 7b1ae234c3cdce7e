"""Seeded generators for the data sets the lectures use.

Every generator takes ``random_state`` (an int seed or a
``numpy.random.Generator``), so the same call always returns the same data,
and returns float arrays. Classification sets label their points -1 and +1.

===========================  =========================================  ========
generator                    what it is                                 lecture
===========================  =========================================  ========
``circles``                  a disk inside a ring                       1.7
``xor``                      the four quadrants, opposite ones alike    1.7
``two_disks_and_band``       two small disks and a curved band          2.7
``separable_with_margin``    linearly separable with a known margin     3.11
``synthetic_images``         grey images of one blob, target from its place  3.4
``smooth_regression``        a smooth function of d inputs, plus noise  6.5-6.6
``smooth_regression_dask``   the same, made chunk by chunk by Dask      6.5
===========================  =========================================  ========
"""
from __future__ import annotations

import numbers

import numpy as np

from kernelcourse._validation import as_2d, check_choice, check_nonnegative, check_positive, check_positive_int

__all__ = [
    "circles",
    "xor",
    "two_disks_and_band",
    "two_disks_and_band_label",
    "separable_with_margin",
    "synthetic_images",
    "smooth_regression",
    "smooth_regression_dask",
]


def _rng(random_state) -> np.random.Generator:
    """Turn an int seed or a Generator into a Generator (a Generator is used as is)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int seed; got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be an int seed or a numpy.random.Generator; "
        f"got {type(random_state).__name__}: {random_state!r}")


def _balanced_signs(n: int, rng: np.random.Generator) -> np.ndarray:
    """Return n labels in {-1, +1}, half of each (one more +1 when n is odd), shuffled."""
    y = np.where(np.arange(n) < (n + 1) // 2, 1.0, -1.0)
    return rng.permutation(y)


def circles(n: int = 200, noise: float = 0.1, factor: float = 0.5, random_state=0):
    """A disk of points inside a ring: no straight line separates them (lecture 1.7).

    The outer class lies on the circle of radius 1 (label -1), the inner class on
    the circle of radius ``factor`` (label +1), each point moved by Gaussian
    noise of standard deviation ``noise`` in each coordinate. The angles are
    drawn uniformly. An RBF kernel separates the two classes; a linear
    classifier cannot do better than chance by much.

    Parameters
    ----------
    n : int, default 200
        Number of points; ``n // 2`` on the outer circle, the rest inside.
    noise : float, default 0.1
        Standard deviation of the Gaussian noise added to each coordinate (>= 0).
    factor : float, default 0.5
        Radius of the inner circle, strictly between 0 and 1.
    random_state : int or numpy.random.Generator, default 0
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
        -1.0 for the outer ring, +1.0 for the inner circle.

    Examples
    --------
    >>> X, y = circles(n=100, random_state=1)
    >>> X.shape, sorted(set(y.tolist()))
    ((100, 2), [-1.0, 1.0])
    """
    n = check_positive_int(n, "n")
    noise = check_nonnegative(noise, "noise")
    factor = check_positive(factor, "factor")
    if factor >= 1:
        raise ValueError(f"factor is the inner radius and must lie in (0, 1); got factor={factor!r}")
    rng = _rng(random_state)
    y = _balanced_signs(n, rng)
    radius = np.where(y > 0, factor, 1.0)
    theta = rng.uniform(0.0, 2.0 * np.pi, size=n)
    X = radius[:, None] * np.column_stack([np.cos(theta), np.sin(theta)])
    X += noise * rng.standard_normal(size=(n, 2))
    return X, y


def xor(n: int = 200, noise: float = 0.1, random_state=0):
    """The XOR pattern: opposite quadrants share a label (lecture 1.7).

    Points are drawn uniformly in the square [-1, 1]^2 and labelled by the sign
    of the product of their coordinates, ``y = sign(x_1 x_2)`` (+1 in the first
    and third quadrants, -1 in the second and fourth); then Gaussian noise of
    standard deviation ``noise`` moves each coordinate, so points near the axes
    may cross into the neighbouring quadrant. No line separates the classes; a
    degree-2 polynomial kernel (which contains the feature ``x_1 x_2``) or an
    RBF kernel does.

    Parameters
    ----------
    n : int, default 200
        Number of points.
    noise : float, default 0.1
        Standard deviation of the Gaussian noise added after labelling (>= 0).
    random_state : int or numpy.random.Generator, default 0
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
        Labels in {-1.0, +1.0}.
    """
    n = check_positive_int(n, "n")
    noise = check_nonnegative(noise, "noise")
    rng = _rng(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
    X += noise * rng.standard_normal(size=(n, 2))
    return X, y


def two_disks_and_band_label(X) -> np.ndarray:
    """The labelling rule of lecture 2.7's data set, for points in the plane.

    A point ``x = (x_1, x_2)`` gets -1 when it lies in one of three regions and
    +1 otherwise:

    * the disk of radius 0.15 around (0.25, 0.75);
    * the disk of radius 0.15 around (0.75, 0.75);
    * the curved band ``x_2 < 0.4`` and ``||x - (0.5, 0.6)|| < 0.5`` and
      ``||x - (0.5, 0.55)|| > 0.3`` (a smile under the two disks).

    Parameters
    ----------
    X : array-like of shape (n, 2)

    Returns
    -------
    y : ndarray of shape (n,)
    """
    X = as_2d(X)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 features (points in the plane); got shape {X.shape}")

    def dist(c):
        return np.hypot(X[:, 0] - c[0], X[:, 1] - c[1])

    left_disk = dist((0.25, 0.75)) < 0.15
    right_disk = dist((0.75, 0.75)) < 0.15
    band = (X[:, 1] < 0.4) & (dist((0.5, 0.6)) < 0.5) & (dist((0.5, 0.55)) > 0.3)
    return np.where(left_disk | right_disk | band, -1.0, 1.0)


def two_disks_and_band(n: int = 1024, random_state=0):
    """Lecture 2.7's two-dimensional data set (see ``two_disks_and_band_label``).

    ``n`` points drawn uniformly in the unit square [0, 1]^2, labelled -1 inside
    two small disks (radius 0.15 around (0.25, 0.75) and (0.75, 0.75)) and a
    curved band below them, +1 everywhere else; no noise. About 28% of the
    points fall in the -1 regions. The lecture draws a training set and a test
    set of n = 1024 each: make them with two calls and different seeds.

    Parameters
    ----------
    n : int, default 1024
        Number of points.
    random_state : int or numpy.random.Generator, default 0
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n, 2)
        Points in the unit square.
    y : ndarray of shape (n,)
        Labels in {-1.0, +1.0}.

    Examples
    --------
    >>> X_train, y_train = two_disks_and_band(random_state=0)
    >>> X_test, y_test = two_disks_and_band(random_state=1)
    """
    n = check_positive_int(n, "n")
    rng = _rng(random_state)
    X = rng.uniform(0.0, 1.0, size=(n, 2))
    return X, two_disks_and_band_label(X)


def _unit_vector(d: int, rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(d)
    while np.linalg.norm(v) < 1e-12:  # pragma: no cover - probability zero
        v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


def separable_with_margin(n: int = 50, d: int = 2, margin: float = 0.1, radius: float = 1.0,
                          random_state=0):
    """Linearly separable data with a known margin, for Novikoff's theorem (lecture 3.11).

    Draws a unit vector ``w_star`` and ``n`` points in the ball of the given
    radius such that every point lies at least ``margin`` from the hyperplane
    ``<w_star, x> = 0`` on its own side:

    .. math:: y_i \\langle w^*, x_i \\rangle \\ge \\gamma, \\quad \\|x_i\\| \\le R,
       \\quad \\|w^*\\| = 1,

    with gamma = ``margin`` and R = ``radius``. The bound is attained: one point
    sits at distance ``margin`` (times ``1 + 1e-12``, so that rounding never
    takes a point below the margin), so ``min_i y_i <w_star, x_i> == margin`` to
    twelve digits and Novikoff's bound on the perceptron's updates is ``(R / gamma)^2`` with
    these very numbers. Labels are half +1 and half -1.

    Each point is built as ``y_i t_i w_star + v_i`` with ``t_i`` uniform in
    ``[margin, radius]`` and ``v_i`` orthogonal to ``w_star``, uniform in the
    (d-1)-ball of radius ``sqrt(radius^2 - t_i^2)``.

    Parameters
    ----------
    n : int, default 50
        Number of points.
    d : int, default 2
        Dimension of the points.
    margin : float, default 0.1
        The margin gamma, with 0 < margin <= radius.
    radius : float, default 1.0
        The radius R of the ball holding the points.
    random_state : int or numpy.random.Generator, default 0
        Seed or generator.

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Labels in {-1.0, +1.0}, ``y_i = sign(<w_star, x_i>)``.
    w_star : ndarray of shape (d,)
        The unit-norm separator through the origin.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    margin = check_positive(margin, "margin")
    radius = check_positive(radius, "radius")
    if margin > radius:
        raise ValueError(
            f"margin cannot exceed radius (no point of the ball is that far from the hyperplane); "
            f"got margin={margin!r} and radius={radius!r}")
    rng = _rng(random_state)
    w_star = _unit_vector(d, rng)
    y = _balanced_signs(n, rng)
    # distances to the hyperplane; a hair above margin so rounding in X @ w_star cannot dip below it
    t_min = min(margin * (1.0 + 1e-12), radius)
    t = rng.uniform(t_min, radius, size=n)
    t[rng.integers(n)] = t_min
    X = (y * t)[:, None] * w_star[None, :]
    if d > 1:
        # uniform in the (d-1)-ball orthogonal to w_star, of radius sqrt(R^2 - t^2)
        V = rng.standard_normal(size=(n, d))
        V -= np.outer(V @ w_star, w_star)
        norms = np.linalg.norm(V, axis=1, keepdims=True)
        V /= np.where(norms > 0, norms, 1.0)
        room = np.sqrt(np.maximum(radius**2 - t**2, 0.0))
        length = room * rng.uniform(size=n) ** (1.0 / (d - 1))
        X += length[:, None] * V
    return X, y, w_star


def synthetic_images(n: int = 200, side: int = 32, random_state=0, target: str = "x"):
    """Small grey images of one blob each, with a function of its position as target (lecture 3.4).

    A stand-in for the lecture's images example (32x32 pixels), small enough to
    run in seconds. Image i holds a Gaussian blob of width ``side / 8`` pixels
    centred at a random place ``(c_x, c_y)`` with both coordinates in
    ``[0.2, 0.8] * (side - 1)``, on light uniform noise:

    ``pixel = 0.85 * exp(-||p - c||^2 / (2 (side/8)^2)) + 0.15 * u,  u ~ U[0, 1]``

    so every pixel lies in [0, 1]. With ``u = c_x / (side - 1)`` and
    ``v = c_y / (side - 1)``, the blob's position scaled to [0, 1], the target is

    - ``target="x"``: ``u``, the horizontal position. It is nearly a *linear* function of
      the pixels (their intensity-weighted column centroid, whose total intensity is
      nearly constant), so ridge on the raw pixels already does well;
    - ``target="product"``: ``(u - 1/2)(v - 1/2)``, a product of the two coordinates, which
      the products of pixels of the quadratic kernel ``<x, z>^2`` can represent and the
      pixels alone cannot.

    Parameters
    ----------
    n : int, default 200
        Number of images.
    side : int, default 32
        Width and height of each image in pixels (at least 4).
    random_state : int or numpy.random.Generator, default 0
        Seed or generator.
    target : {"x", "product"}, default "x"
        Which function of the blob's position to return as ``y``.

    Returns
    -------
    X : ndarray of shape (n, side * side)
        The images, flattened row by row (``X[i].reshape(side, side)`` restores one).
    y : ndarray of shape (n,)
        ``u`` in [0.2, 0.8], or ``(u - 1/2)(v - 1/2)`` in [-0.09, 0.09].
    """
    n = check_positive_int(n, "n")
    target = check_choice(target, "target", ("x", "product"))
    side = check_positive_int(side, "side")
    if side < 4:
        raise ValueError(f"side must be at least 4 pixels; got side={side!r}")
    rng = _rng(random_state)
    centres = rng.uniform(0.2, 0.8, size=(n, 2)) * (side - 1)
    width = side / 8.0
    rows, cols = np.mgrid[0:side, 0:side]
    X = np.empty((n, side * side))
    for i, (cx, cy) in enumerate(centres):
        blob = np.exp(-((cols - cx) ** 2 + (rows - cy) ** 2) / (2.0 * width**2))
        X[i] = (0.85 * blob + 0.15 * rng.uniform(size=(side, side))).ravel()
    u, v = centres[:, 0] / (side - 1), centres[:, 1] / (side - 1)
    y = u if target == "x" else (u - 0.5) * (v - 0.5)
    return X, y


def smooth_regression(n: int = 1000, d: int = 10, noise: float = 0.1, random_state=0):
    """A smooth nonlinear function of ``d`` Gaussian inputs, with noise (lecture 6.5-6.6).

    ``x ~ N(0, I_d)`` and ``y = sin(a.x) + cos(c.x) / 2 + noise * e`` with two
    fixed directions ``a`` and ``c`` of norm 1 and 1/2 (the same for every seed,
    so that data sets of different sizes describe the same function) and
    ``e ~ N(0, 1)``. The noise level is the smallest test RMSE any fit can reach.
    Memory: ``8 n (d + 1)`` bytes (88 MB for n = 10^6, d = 10).

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    noise = check_nonnegative(noise, "noise")
    fixed = np.random.default_rng(12345)
    a = fixed.standard_normal(d)
    a /= np.linalg.norm(a)
    c = fixed.standard_normal(d)
    c *= 0.5 / np.linalg.norm(c)
    rng = _rng(random_state)
    X = rng.standard_normal((n, d))
    y = np.sin(X @ a) + 0.5 * np.cos(X @ c) + noise * rng.standard_normal(n)
    return X, y


def _smooth_regression_chunk(rows, d, noise, seed, i):
    # the Generator is made inside the task: a task computed twice (X, then y) draws the same rows
    return smooth_regression(rows, d, noise, np.random.default_rng([seed, i]))


def smooth_regression_dask(n: int = 1_000_000, d: int = 10, chunk_size: int = 50_000,
                           noise: float = 0.1, random_state=0):
    """:func:`smooth_regression` as Dask arrays whose chunks are made where they are computed.

    Chunk ``i`` holds ``smooth_regression(rows, d, noise, random_state=default_rng([random_state, i]))``:
    the same function, each chunk with its own seeded stream, so no process
    ever holds all ``n`` rows unless asked to (``X.compute()`` does). Dask is
    imported here, not with the package.

    Returns
    -------
    X : dask.array.Array of shape (n, d), chunks of ``chunk_size`` rows
    y : dask.array.Array of shape (n,)
    """
    import dask
    import dask.array as da

    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    noise = check_nonnegative(noise, "noise")
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(f"random_state must be an int seed here (one stream per chunk); "
                        f"got {type(random_state).__name__}: {random_state!r}")
    if random_state < 0:
        raise ValueError(f"random_state must be a non-negative int seed; got {random_state!r}")
    Xs, ys = [], []
    for i, start in enumerate(range(0, n, chunk_size)):
        rows = min(chunk_size, n - start)
        part = dask.delayed(_smooth_regression_chunk, pure=True, nout=2)(rows, d, noise,
                                                                        int(random_state), i)
        Xs.append(da.from_delayed(part[0], shape=(rows, d), dtype=float))
        ys.append(da.from_delayed(part[1], shape=(rows,), dtype=float))
    return da.concatenate(Xs), da.concatenate(ys)
