"""Widgets for lecture 8: Gaussian processes.

* :func:`prior_widget` (8.1): pick a kernel (the zoo's, or one built with ``+`` and ``*``),
  move ``log10 length_scale`` and the signal variance; see five sample paths of the prior
  and the band of two standard deviations. Computation: :func:`prior_state`.
* :func:`posterior_widget` (8.2, 8.5): condition on twelve noisy points; move
  ``log10 length_scale`` and ``log10 noise``; see the posterior mean, the band of two
  standard deviations of ``f``, three posterior samples and the log marginal likelihood.
  Computation: :func:`posterior_state`.
* :func:`landscape_widget` (8.5): the log marginal likelihood over
  ``(log10 length_scale, log10 noise)`` of seven points drawn as in Rasmussen and Williams'
  figure 5.5, computed once on a grid, with its two local maxima (each grid maximum refined
  by L-BFGS), the current point, and the fit at the current point.
  Computation: :func:`landscape_grid`, :func:`landscape_optima`.

Each builder returns an ``ipywidgets.interactive`` whose ``controls`` maps argument names to
the controls and ``view`` is its :class:`~kernelcourse.widgets.FigureView`. The draws use
fixed seeds, so the picture is a function of the controls' values alone.
"""
from __future__ import annotations

import math

import numpy as np

from kernelcourse import gaussian_process as gp
from kernelcourse._validation import check_choice, check_positive
from kernelcourse.kernels import ExpSineSquared, Linear, Matern
from kernelcourse.widgets import FigureView, interactive_figure

__all__ = ["PRIOR_KERNELS", "prior_kernel", "prior_state", "prior_widget", "gp_data", "posterior_state",
           "posterior_widget", "two_optima_data", "landscape_grid", "landscape_optima", "landscape_widget"]

_WIDE = {"description_width": "initial"}
_X_PLOT = np.linspace(-5.0, 5.0, 160)[:, None]
#: the kernels of the prior widget: the zoo's and two built with + and *
PRIOR_KERNELS = ("RBF", "Matern 0.5", "Matern 1.5", "Matern 2.5", "periodic", "linear", "RBF + linear",
                 "RBF x periodic")


def prior_kernel(name, length_scale, variance):
    """The kernel ``variance * k`` named in :data:`PRIOR_KERNELS` (RBF is ``Matern(nu=inf)``; the
    linear kernel ``0.1 x z`` has no length-scale)."""
    check_choice(name, "name", PRIOR_KERNELS)
    length_scale = check_positive(length_scale, "length_scale")
    variance = check_positive(variance, "variance")
    base = {"RBF": Matern(length_scale, math.inf), "Matern 0.5": Matern(length_scale, 0.5),
            "Matern 1.5": Matern(length_scale, 1.5), "Matern 2.5": Matern(length_scale, 2.5),
            "periodic": ExpSineSquared(length_scale, 2.5),
            "linear": 0.1 * Linear(),                       # no length-scale: straight lines through 0
            "RBF + linear": Matern(length_scale, math.inf) + 0.1 * Linear(),
            "RBF x periodic": Matern(4.0 * length_scale, math.inf) * ExpSineSquared(1.0, 2.5)}[name]
    return variance * base


def prior_state(name, length_scale, variance, n_samples=5):
    """Sample paths of the prior on ``[-5, 5]`` (seed 0) and its standard deviation there."""
    kernel = prior_kernel(name, length_scale, variance)
    F = gp.prior_samples(kernel, _X_PLOT, n_samples=n_samples, random_state=0)
    return {"x": _X_PLOT[:, 0], "F": F, "std": np.sqrt(kernel.diag(_X_PLOT)), "kernel": kernel}


def _band(ax, x, mean, std, colour, label):
    return ax.fill_between(x, mean - 2 * std, mean + 2 * std, color=colour, alpha=0.2, lw=0, label=label)


def prior_widget(kernel="RBF", log_length_scale=0.0, variance=1.0):
    """Widget: sample paths of a GP prior as the kernel, its length-scale and its variance move."""
    import ipywidgets as W

    controls = {
        "kernel": W.Dropdown(options=PRIOR_KERNELS, value=kernel, description="kernel"),
        "log_length_scale": W.FloatSlider(value=log_length_scale, min=-1.0, max=1.0, step=0.1,
                                          description="log10 length_scale", continuous_update=False,
                                          style=_WIDE),
        "variance": W.FloatSlider(value=variance, min=0.25, max=4.0, step=0.25, description="variance",
                                  continuous_update=False, style=_WIDE)}
    view = FigureView(1, 1, figsize=(8.4, 3.9))
    ax = view.axes
    a = {}

    def update(kernel, log_length_scale, variance):
        length_scale = round(10.0 ** log_length_scale, 3)      # the slider's value, shown as it reads
        state = prior_state(kernel, length_scale, variance)
        x = state["x"]
        # the axis follows the prior: 3 of its largest standard deviations (one value per variance and kernel)
        top = float(np.ceil(3.0 * state["std"].max()))
        full = a.get("top") != top
        a["top"] = top
        if "lines" not in a:
            a["lines"] = [ax.plot(x, f, lw=1.2, color=f"C{i}", label="prior samples" if i == 0 else None)[0]
                          for i, f in enumerate(state["F"].T)]
            ax.set_xlim(-5, 5)
            ax.set_xlabel("x")
            ax.set_ylabel("f(x)")
            a["band"] = _band(ax, x, 0 * x, state["std"], "0.5", "prior mean +- 2 std")
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=9)
            a["title"] = ax.set_title("", fontsize=10)
            view.animate(*a["lines"], a["band"], a["title"])
        for line, f in zip(a["lines"], state["F"].T):
            line.set_ydata(f)
        view.forget(a["band"])
        a["band"] = _band(ax, x, 0 * x, state["std"], "0.5", None)
        view.animate(a["band"])
        ax.set_ylim(-top, top)
        scale = "no length-scale" if kernel == "linear" else f"length_scale {length_scale:.3g}"
        a["title"].set_text(f"prior samples: {kernel}, {scale}, variance {variance:.3g}")
        view.render(full=full)
        print(f"{kernel} kernel, {scale}, variance {variance:.3g}: prior standard deviation "
              f"{state['std'][80]:.3f} at x = 0, {state['std'][-1]:.3f} at x = 5")
        return state

    return interactive_figure(update, view, controls)


def gp_data(n=12, noise=0.1, random_state=0):
    """``n`` noisy observations of ``sin(1.5 x) + x / 4`` at points spread over ``[-4, 4]``."""
    rng = np.random.default_rng(random_state)
    X = np.sort(rng.uniform(-4.0, 4.0, n))[:, None]
    y = np.sin(1.5 * X[:, 0]) + X[:, 0] / 4.0 + math.sqrt(noise) * rng.standard_normal(n)
    return X, y


def two_optima_data(n=7, random_state=24):
    """``n`` points uniform on ``[-7.5, 7.5]`` and noisy values of one draw of the GP with the RBF
    kernel, length-scale 1, signal variance 1 and noise standard deviation 0.1 (the setting of
    Rasmussen and Williams 2006, figure 5.5): a data set whose evidence has two local maxima."""
    rng = np.random.default_rng(random_state)
    X = np.sort(rng.uniform(-7.5, 7.5, n))[:, None]
    f = gp.sample_gaussian(np.zeros(n), Matern(1.0, math.inf)(X), n_samples=1, random_state=rng)[:, 0]
    return X, f + 0.1 * rng.standard_normal(n)


def posterior_state(X, y, length_scale, noise, n_samples=3, x_plot=_X_PLOT):
    """The RBF GP's posterior on ``x_plot`` (default ``[-5, 5]``): mean, standard deviation of ``f``,
    samples (seed 1) and the log marginal likelihood of the data."""
    model = gp.GaussianProcessRegressor(Matern(check_positive(length_scale, "length_scale"), math.inf),
                                        noise=check_positive(noise, "noise"), optimizer=None).fit(X, y)
    mean, std = model.predict(x_plot, return_std=True)
    F = model.sample_y(x_plot, n_samples=n_samples, random_state=1)
    return {"x": x_plot[:, 0], "mean": mean, "std": std, "F": F,
            "lml": model.log_marginal_likelihood_, "length_scale": length_scale, "noise": noise}


def _draw_posterior(ax, view, a, state, X, y, samples=True):
    x = state["x"]
    if not a:
        ax.plot(X[:, 0], y, "k.", ms=9, label="data", zorder=5)
        a["mean"] = ax.plot(x, state["mean"], color="C3", lw=2, label="posterior mean")[0]
        a["samples"] = [ax.plot(x, f, color="C0", lw=0.9, alpha=0.8,
                                label="posterior samples" if i == 0 else None)[0]
                        for i, f in enumerate(state["F"].T)] if samples else []
        a["band"] = _band(ax, x, state["mean"], state["std"], "C3", "mean +- 2 std of f")
        ax.set_xlim(x[0], x[-1])
        ax.set_ylim(-3.5, 3.5)
        ax.set_xlabel("x")
        ax.set_ylabel("f(x)")
        if samples:
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=9)
        else:
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=9)
        a["title"] = ax.set_title("", fontsize=10)
        view.animate(a["mean"], *a["samples"], a["band"], a["title"])
    a["mean"].set_ydata(state["mean"])
    for line, f in zip(a["samples"], state["F"].T):
        line.set_ydata(f)
    view.forget(a["band"])
    a["band"] = _band(ax, x, state["mean"], state["std"], "C3", None)
    view.animate(a["band"])
    a["title"].set_text(f"length_scale {state['length_scale']:.3g}, noise {state['noise']:.3g}: "
                        f"log p(y|X) = {state['lml']:.2f}")


def posterior_widget(log_length_scale=0.0, log_noise=-1.0):
    """Widget: the posterior of a GP conditioned on noisy data as the length-scale and the noise move."""
    import ipywidgets as W

    X, y = gp_data()
    controls = {
        "log_length_scale": W.FloatSlider(value=log_length_scale, min=-1.5, max=1.0, step=0.1,
                                          description="log10 length_scale", continuous_update=False,
                                          style=_WIDE),
        "log_noise": W.FloatSlider(value=log_noise, min=-4.0, max=0.5, step=0.25, description="log10 noise",
                                   continuous_update=False, style=_WIDE)}
    view = FigureView(1, 1, figsize=(8.4, 3.9))
    a = {}

    def update(log_length_scale, log_noise):
        state = posterior_state(X, y, round(10.0 ** log_length_scale, 3), round(10.0 ** log_noise, 5))
        _draw_posterior(view.axes, view, a, state, X, y)
        view.render()
        print(f"log marginal likelihood {state['lml']:.3f}; largest posterior std of f on [-5, 5]: "
              f"{state['std'].max():.3f}")
        return state

    return interactive_figure(update, view, controls)


#: the grid of the landscape: log10 length_scale and log10 noise
LANDSCAPE_L = np.linspace(-0.6, 1.4, 41)
LANDSCAPE_NOISE = np.linspace(-3.5, 0.5, 41)
_X_WIDE = np.linspace(-8.0, 8.0, 160)[:, None]


def landscape_grid(X, y, log_l=LANDSCAPE_L, log_noise=LANDSCAPE_NOISE):
    """``log p(y | X)`` of the RBF GP (signal variance 1) on the grid, shape ``(len(log_noise), len(log_l))``.

    One eigendecomposition ``K = U diag(s) U^T`` per length-scale serves every noise:
    ``K + noise I = U diag(s + noise) U^T``, so ``log p = -1/2 sum_k (U^T y)_k^2 / (s_k + noise)
    - 1/2 sum_k log(s_k + noise) - n/2 log(2 pi)`` (the same value as Algorithm 2.1's).
    """
    noise = 10.0 ** np.asarray(log_noise, dtype=float)
    n = len(y)
    Z = np.empty((len(noise), len(log_l)))
    for j, ll in enumerate(log_l):
        s, U = np.linalg.eigh(Matern(10.0 ** ll, math.inf)(X))
        s = np.maximum(s, 0.0)[None, :] + noise[:, None]
        c2 = (U.T @ y) ** 2
        Z[:, j] = -0.5 * (c2[None, :] / s).sum(axis=1) - 0.5 * np.log(s).sum(axis=1) - 0.5 * n * math.log(2 * math.pi)
    return Z


def landscape_optima(X, y, Z=None):
    """The local maxima of the log marginal likelihood over ``(length_scale, noise)``, signal variance 1:
    each interior maximum of the grid, refined by L-BFGS from there; the distinct ones as
    ``(log10 l, log10 noise, value)``, best first."""
    Z = landscape_grid(X, y) if Z is None else Z
    found = []
    for ll, ln, _ in gp.grid_local_maxima(Z, LANDSCAPE_L, LANDSCAPE_NOISE):
        best = gp.maximise_marginal_likelihood(Matern(10.0 ** ll, math.inf), X, y, 10.0 ** ln,
                                               bounds=(1e-4, 1e2))[0]
        point = (math.log10(best.kernel.length_scale), math.log10(best.noise), best.log_marginal_likelihood)
        if all(abs(point[0] - p[0]) + abs(point[1] - p[1]) > 0.05 for p in found):
            found.append(point)
    return sorted(found, key=lambda p: -p[2])


def landscape_widget(log_length_scale=0.0, log_noise=-2.0):
    """Widget: the marginal likelihood landscape of :func:`two_optima_data`, with its two optima and
    the current point, and the fit there."""
    import ipywidgets as W

    X, y = two_optima_data()
    Z = landscape_grid(X, y)
    optima = landscape_optima(X, y, Z)
    controls = {
        "log_length_scale": W.FloatSlider(value=log_length_scale, min=-0.6, max=1.4, step=0.1,
                                          description="log10 length_scale", continuous_update=False,
                                          style=_WIDE),
        "log_noise": W.FloatSlider(value=log_noise, min=-3.5, max=0.5, step=0.25, description="log10 noise",
                                   continuous_update=False, style=_WIDE)}
    view = FigureView(1, 2, figsize=(8.4, 3.9))
    left, right = view.axes
    # contours below the top, and two close under the second maximum so that its own hill shows
    below_second = [optima[1][2] - 0.3, optima[1][2] - 1.0] if len(optima) > 1 else []
    levels = np.unique(np.round(np.concatenate([np.max(Z) - np.array([0.5, 1.5, 6, 12, 25, 50]), below_second]), 2))
    contours = left.contour(LANDSCAPE_L, LANDSCAPE_NOISE, Z, levels=levels, cmap="viridis", linewidths=1)
    left.clabel(contours, fontsize=9, fmt="%.0f")
    for k, (ll, ln, value) in enumerate(optima):
        left.plot([ll], [ln], marker="*", ms=14, color="C1" if k == 0 else "C2", ls="none",
                  label=f"{'global' if k == 0 else 'local'} max. {value:.2f}", zorder=4)
    left.set_xlabel("log10 length_scale")
    left.set_ylabel("log10 noise")
    # room for the current point's marker at every slider value: it is never cut at the edge
    left.set_xlim(LANDSCAPE_L[0] - 0.08, LANDSCAPE_L[-1] + 0.08)
    left.set_ylim(LANDSCAPE_NOISE[0] - 0.15, LANDSCAPE_NOISE[-1] + 0.15)
    a = {}

    def update(log_length_scale, log_noise):
        state = posterior_state(X, y, round(10.0 ** log_length_scale, 3), round(10.0 ** log_noise, 5),
                                n_samples=1, x_plot=_X_WIDE)
        if "point" not in a:
            a["point"] = left.plot([log_length_scale], [log_noise], "o", ms=9, color="C3", mec="k",
                                   label="current", zorder=5)[0]
            left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=9)
            left.set_title("log p(y | X), signal variance 1", fontsize=10)
            view.animate(a["point"])
        a["point"].set_data([log_length_scale], [log_noise])
        _draw_posterior(right, view, a.setdefault("fit", {}), state, X, y, samples=False)
        view.render()
        print(f"log p(y|X) = {state['lml']:.3f} here; the local maxima: "
              + "; ".join(f"l = {10 ** p[0]:.3g}, noise = {10 ** p[1]:.3g} ({p[2]:.2f})" for p in optima))
        return state

    return interactive_figure(update, view, controls, grid=Z, optima=optima)
