"""Measured scaling (lecture 6.1): the power-law fit on exact powers, and the Gram's memory."""
import numpy as np
import pytest

from kernelcourse.scaling import measure_exact, power_law_exponent


def test_power_law_exponent_recovers_exact_powers():
    n = np.array([100, 200, 400, 800, 1600])
    for p in (1.0, 2.0, 3.0):
        got_p, got_c = power_law_exponent(n, 3.5 * n.astype(float) ** p)
        assert got_p == pytest.approx(p, abs=1e-10) and got_c == pytest.approx(3.5, rel=1e-9)
    # noise around n^2 moves the exponent only a little
    rng = np.random.default_rng(0)
    p, _ = power_law_exponent(n, n.astype(float) ** 2 * np.exp(0.05 * rng.standard_normal(5)))
    assert abs(p - 2) < 0.1


def test_power_law_exponent_rejects_bad_input():
    with pytest.raises(ValueError, match=r"n and cost must be positive"):
        power_law_exponent([1, 2], [1.0, 0.0])
    with pytest.raises(ValueError, match=r"same length, at least 2; got shapes \(3,\) and \(2,\)"):
        power_law_exponent([1, 2, 3], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"at least two different values"):
        power_law_exponent([5, 5], [1.0, 2.0])


def test_measure_exact_records_at_least_the_matrix_memory():
    r = measure_exact([1600, 3200], d=3, repeat=1, solve=False)
    assert list(r["n"]) == [1600, 3200]
    assert np.all(r["gram_bytes"] >= 8 * r["n"] ** 2)
    assert np.all(r["gram_bytes"] < 4 * 8 * r["n"] ** 2 + 1e6)       # no hidden (n, n, d) array
    assert np.all(r["gram_seconds"] > 0)
    assert measure_exact([300], d=3, repeat=1)["solve_seconds"][0] > 0
    # the memory grows as n^2 (exactly, up to the small fixed overhead)
    p, _ = power_law_exponent(r["n"], r["gram_bytes"])
    assert 1.9 < p < 2.1
    assert np.isnan(measure_exact([50], solve=False, repeat=1)["solve_seconds"][0])
