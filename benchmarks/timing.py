"""Timing helpers shared by the benchmarks (each script runs with this folder on its path)."""
import time

import numpy as np


def best_of(fn, repeat=5):
    """The shortest of ``repeat`` wall-clock times of ``fn()``, in seconds."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def interleaved(fns, repeat=5):
    """Best time of each function, the runs taken in turns so that a busy machine hurts all alike."""
    best = {name: np.inf for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best
