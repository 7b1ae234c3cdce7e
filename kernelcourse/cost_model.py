"""The cost of the six ways to learn with a kernel: the lecture's table, measured (lecture 2.6-2.7, 2.10).

:mod:`kernelcourse.sgd` runs the six ways; this module holds what they cost. The table's
big-Theta formulas for computation and memory (:func:`cost_table`, evaluated at given sizes
by :func:`predicted_cost`), the measurement of one way's time and peak memory on a synthetic
problem (:func:`measure_way`) with the slope of log cost against log size
(:func:`growth_exponent`), and lecture 2.7's demo with its timing (:func:`lecture_demo`,
:func:`time_demo`, :func:`demo_timing_report`).
"""
from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np

from kernelcourse._validation import as_rng, as_vector, check_choice, check_positive_int
from kernelcourse.kernels import RBF
from kernelcourse.sgd import WAYS, sample_indices, sgd_cached_features
from kernelcourse.sgd.ways import _logistic_derivative, _primal_sgd, _rff_row_function

__all__ = ["cost_table", "predicted_cost", "format_cost_table", "growth_exponent", "measure_way",
           "lecture_demo", "time_demo", "demo_timing_report"]

_DESCRIPTIONS = {
    "features": "1. features on the fly, SGD on w",
    "cached_features": "2. cached features, SGD on w",
    "kernel": "3. kernel on the fly, SGD on u",
    "gram": "4. cached Gram matrix, SGD on u",
    "rff": "5. random features on the fly, SGD on w",
    "rff_cached": "6. cached random features, SGD on w",
}


# ----------------------------------------------------------------------------- the cost model

#: the lecture's table, extended with the two random-feature ways: (computation, memory)
_COST = {
    "features": ("d D T", "D", lambda n, d, D, T: d * D * T, lambda n, d, D, T: D),
    "cached_features": ("n d D + D T", "n D", lambda n, d, D, T: n * d * D + D * T,
                        lambda n, d, D, T: n * D),
    "kernel": ("n d T", "n", lambda n, d, D, T: n * d * T, lambda n, d, D, T: n),
    "gram": ("n^2 d + n T", "n^2", lambda n, d, D, T: n * n * d + n * T, lambda n, d, D, T: n * n),
    "rff": ("d D + d D T", "d D + D", lambda n, d, D, T: d * D + d * D * T,
            lambda n, d, D, T: d * D + D),
    "rff_cached": ("n d D + D T", "n D + d D", lambda n, d, D, T: n * d * D + D * T,
                   lambda n, d, D, T: n * D + d * D),
}


def cost_table():
    """The lecture's table: for each way its computation and memory, as big-Theta formulas.

    Returns a list of dicts with keys ``way``, ``description``, ``computation`` and
    ``memory`` (on top of the training set). ``n`` examples in ``d`` dimensions,
    features of dimension ``D``, ``T`` SGD steps; a feature vector costs ``d D``
    and a kernel value ``d``. For the random-feature ways ``D`` is the number of
    random features and drawing ``Omega`` costs ``d D``.
    """
    return [{"way": w, "description": _DESCRIPTIONS[w], "computation": f"O({_COST[w][0]})",
             "memory": f"O({_COST[w][1]}) + training set"} for w in WAYS]


def predicted_cost(way, n, d, D, T):
    """The table's formulas evaluated at given sizes (constants taken as 1).

    Returns
    -------
    operations : float
        Arithmetic operations, e.g. ``n^2 d + n T`` for the Gram matrix.
    memory : float
        Numbers stored besides the training set, e.g. ``n^2``.
    """
    check_choice(way, "way", WAYS)
    sizes = [check_positive_int(v, name) for v, name in ((n, "n"), (d, "d"), (D, "D"), (T, "T"))]
    return float(_COST[way][2](*sizes)), float(_COST[way][3](*sizes))


def format_cost_table(n=None, d=None, D=None, T=None) -> str:
    """The cost table as plain text; with sizes given, the predicted figures as two more columns."""
    rows = cost_table()
    given = None not in (n, d, D, T)
    lines = [f"{'way':<42}{'computation':<18}{'memory':<30}" + ("operations    memory" if given else "")]
    for r in rows:
        line = f"{r['description']:<42}{r['computation']:<18}{r['memory']:<30}"
        if given:
            ops, mem = predicted_cost(r["way"], n, d, D, T)
            line += f"{ops:<14.2e}{mem:.2e}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def growth_exponent(sizes, values) -> float:
    """The slope ``p`` of the least-squares line through ``(log size, log value)``: value ~ size^p."""
    sizes, values = as_vector(sizes, "sizes"), as_vector(values, "values")
    if sizes.shape != values.shape or sizes.size < 2:
        raise ValueError(f"need at least two (size, value) pairs of equal length; got sizes with shape "
                         f"{sizes.shape} and values with shape {values.shape}")
    if np.any(sizes <= 0) or np.any(values <= 0):
        raise ValueError("sizes and values must be positive to take logarithms")
    if np.ptp(sizes) == 0:
        raise ValueError(f"sizes must take at least two different values; got sizes={sizes.tolist()}")
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


def _synthetic_problem(n, d, random_state=0):
    rng = np.random.default_rng(random_state)
    X = rng.uniform(size=(n, d))
    y = np.where(np.sin(6 * X[:, 0]) + X[:, -1] > 0.8, 1.0, -1.0)
    return X, y


def measure_way(way, n, d, D, T, repeats=1, random_state=0, clock="wall", min_total=0.0,
                memory=True):
    """Train on a synthetic problem in the given way; measure time and peak memory.

    The kernel is ``RBF(gamma=1/d)`` for the ways on ``u`` and the random-feature
    ways; for ``'features'`` and ``'cached_features'`` the features are random
    Fourier features of width ``D`` drawn beforehand and used as an exact feature
    map (the kernel is then ``psi(x).psi(z)``), so that ``D`` can be chosen freely.

    Parameters
    ----------
    clock : {'wall', 'cpu'}
        ``time.perf_counter`` or ``time.process_time`` (CPU seconds of this
        process, less disturbed when other jobs share the machine).
    min_total : float
        Keep repeating the timed run past ``repeats`` until the runs add up to at least
        this many seconds (at most 20 runs): a short run, which one interruption can
        double, is then timed often enough for its best to be undisturbed.
    memory : bool
        Whether to trace the peak memory in a run of its own (slow for the ways whose
        steps allocate many small objects); without it ``peak_bytes`` is None.

    Returns
    -------
    seconds : float
        The best of the runs.
    peak_bytes : int or None
        The peak of memory allocated during one run (``tracemalloc``), with the
        training set (the table's "+ training set") counted in every way: the
        ways run through :class:`KernelSGD` keep a copy of it, and for the first
        two ways, which only read it, its size is added.
    """
    from kernelcourse.random_features import RandomFourierFeatures  # both estimators import
    from kernelcourse.sgd import KernelSGD                          # scikit-learn: loaded here

    check_choice(way, "way", WAYS)
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu'; got clock={clock!r}")
    D, repeats = check_positive_int(D, "D"), check_positive_int(repeats, "repeats")
    as_rng(random_state)                          # checked here; the parts below draw from it afresh
    timer = time.perf_counter if clock == "wall" else time.process_time
    X, y = _synthetic_problem(check_positive_int(n, "n"), check_positive_int(d, "d"), random_state)
    indices = sample_indices(n, T, random_state)
    gamma = 1.0 / d
    rff = RandomFourierFeatures(gamma, D, random_state).fit(X)

    def run():
        if way == "features":
            return _primal_sgd(_rff_row_function(X, rff), n, y.tolist(), indices, 0.1,
                               _logistic_derivative, D)
        if way == "cached_features":
            return sgd_cached_features(rff.transform(X), y, indices)
        return KernelSGD(RBF(gamma), way=way, n_components=D, random_state=random_state).fit(
            X, y, indices=indices)

    best, total, runs = math.inf, 0.0, 0
    while runs < repeats or (total < min_total and runs < max(20, repeats)):
        start = timer()
        run()
        spent = timer() - start
        best, total, runs = min(best, spent), total + spent, runs + 1
    if not memory:
        return best, None
    tracemalloc.start()
    try:
        run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    if way in ("features", "cached_features"):
        peak += X.nbytes
    return best, max(int(peak), 1)


# ----------------------------------------------------------------------------- the demo

def lecture_demo(way="gram", n=1024, gamma=100.0, alpha=0.1, n_iter=None, random_state=0):
    """Lecture 2.7: RBF kernel logistic regression by SGD on the two disks and a band.

    Trains on ``two_disks_and_band(n, random_state)`` with ``RBF(gamma)``, step
    ``alpha`` and ``n_iter = 20 n`` steps, tests on a fresh draw
    (seed ``random_state + 1``).

    Returns
    -------
    model : KernelSGD
    train_accuracy, test_accuracy : float
    """
    from kernelcourse.datasets import two_disks_and_band
    from kernelcourse.sgd import KernelSGD  # its base classes import scikit-learn: loaded here

    X, y = two_disks_and_band(n=n, random_state=random_state)
    X_test, y_test = two_disks_and_band(n=n, random_state=random_state + 1)
    model = KernelSGD(RBF(gamma), way=way, alpha=alpha, n_iter=n_iter,
                      random_state=random_state).fit(X, y)
    return model, model.score(X, y), model.score(X_test, y_test)


def time_demo(ways=("gram", "kernel"), n=1024, gamma=100.0, alpha=0.1, repeats=2, random_state=0):
    """CPU seconds of lecture 2.7's training in each way, beside the cost model's operations.

    Fits :class:`KernelSGD` on ``two_disks_and_band(n, random_state)`` with ``RBF(gamma)``
    and ``T = 20 n`` steps, ``repeats`` times per way, the ways taken in turns, and keeps
    each way's fastest run. The clock is ``time.process_time``: the CPU seconds of this
    process (all its threads), which other jobs on a shared machine disturb far less than
    the wall clock.

    Returns a dict with ``seconds`` and ``operations`` (:func:`predicted_cost`, ``D``
    being irrelevant to the exact ways), each a dict by way, and ``n``, ``d``, ``T``,
    ``repeats``.
    """
    from kernelcourse.datasets import two_disks_and_band
    from kernelcourse.sgd import KernelSGD  # its base classes import scikit-learn: loaded here

    for way in ways:
        check_choice(way, "way", WAYS)
    n, repeats = check_positive_int(n, "n"), check_positive_int(repeats, "repeats")
    X, y = two_disks_and_band(n=n, random_state=random_state)
    T = 20 * n
    seconds = dict.fromkeys(ways, math.inf)
    for _ in range(repeats):
        for way in ways:
            model = KernelSGD(RBF(gamma), way=way, alpha=alpha, random_state=random_state)
            start = time.process_time()
            model.fit(X, y)
            seconds[way] = min(seconds[way], time.process_time() - start)
    d = X.shape[1]
    return {"seconds": seconds, "n": n, "d": d, "T": T, "repeats": repeats,
            "operations": {way: predicted_cost(way, n, d, 1, T)[0] for way in ways}}


def demo_timing_report(timing, slow="kernel", fast="gram", gain=1.2) -> str:
    """The timings of :func:`time_demo` as text, and one sentence computed from them.

    The sentence compares the measured ratio ``seconds[slow] / seconds[fast]`` with the
    cost model's ratio of operations: it says the predicted gain showed when the measured
    ratio is at least ``gain``, and says plainly that it did not show otherwise.
    """
    lines = [f"{_DESCRIPTIONS[way]:36s} {t:7.3f} CPU s" for way, t in timing["seconds"].items()]
    measured = timing["seconds"][slow] / timing["seconds"][fast]
    model = timing["operations"][slow] / timing["operations"][fast]
    ratio = (f"{slow} / {fast}: {measured:.2f} measured (best of {timing['repeats']} runs each), "
             f"{model:.2f} in the cost model's operations")
    if measured >= gain:
        verdict = (f"here {fast} was {measured:.1f} times as fast as {slow}: the gain the model "
                   f"predicts shows on this machine")
    else:
        verdict = (f"here {fast} was not clearly faster than {slow} (a ratio of {measured:.2f}, "
                   f"below {gain}): the gain the model predicts did not show in this run")
    return "\n".join(lines + [ratio, verdict])
