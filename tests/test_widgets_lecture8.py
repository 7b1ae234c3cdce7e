"""Lecture 8's widgets: what each computes, against the package's tested functions."""
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from kernelcourse import gaussian_process as gp
from kernelcourse.kernels import RBF, Matern
from kernelcourse.widgets import lecture8 as L


@pytest.mark.parametrize("name", L.PRIOR_KERNELS)
def test_prior_state_draws_from_the_named_kernel(name):
    state = L.prior_state(name, 0.5, 2.0)
    kernel = L.prior_kernel(name, 0.5, 2.0)
    assert state["F"].shape == (160, 5)
    assert_allclose(state["std"], np.sqrt(np.diag(kernel(state["x"][:, None]))), rtol=1e-12)
    # the same draw as the package's sampler with seed 0: the picture depends on the controls only
    assert_allclose(state["F"], gp.prior_samples(kernel, state["x"][:, None], 5, random_state=0))
    assert_allclose(L.prior_state(name, 0.5, 2.0)["F"], state["F"])


def test_prior_kernels_are_what_their_names_say():
    x = np.linspace(-2, 2, 7)[:, None]
    assert_allclose(L.prior_kernel("RBF", 0.7, 1.5)(x), 1.5 * RBF(gamma=1 / (2 * 0.7 ** 2))(x), rtol=1e-12)
    assert_allclose(L.prior_kernel("Matern 0.5", 0.7, 1.0)(x), np.exp(-np.abs(x - x.T) / 0.7), rtol=1e-12)
    periodic = L.prior_kernel("periodic", 0.7, 1.0)
    assert_allclose(periodic(x, x + 2.5), periodic(x, x), rtol=1e-12)     # period 2.5


def test_posterior_state_is_the_regressors_posterior():
    X, y = L.gp_data()
    state = L.posterior_state(X, y, 0.8, 0.05)
    model = gp.GaussianProcessRegressor(Matern(0.8, math.inf), noise=0.05, optimizer=None).fit(X, y)
    mean, std = model.predict(state["x"][:, None], return_std=True)
    assert_allclose(state["mean"], mean, rtol=1e-12)
    assert_allclose(state["std"], std, rtol=1e-12)
    assert state["lml"] == pytest.approx(model.log_marginal_likelihood_, rel=1e-12)
    assert state["F"].shape == (160, 3)


def test_landscape_grid_equals_algorithm_2_1_and_the_optimum_is_its_top():
    X, y = L.gp_data()
    log_l, log_noise = np.array([-1.0, 0.0, 0.7]), np.array([-3.0, -1.0, 0.2])
    Z = L.landscape_grid(X, y, log_l, log_noise)
    for j, ll in enumerate(log_l):
        for i, ln in enumerate(log_noise):
            assert Z[i, j] == pytest.approx(gp.marginal_likelihood(Matern(10 ** ll, math.inf), X, y, 10 ** ln),
                                            rel=1e-9)
    optima = L.landscape_optima(X, y)
    best = optima[0]
    full = L.landscape_grid(X, y)
    # the optimum beats every grid point (up to the grid's resolution it is the top)
    assert best[2] >= full.max() - 1e-9
    assert best[2] - full.max() < 0.1
