"""Widgets for lecture 9: the two-sample test, the bandwidth against the power, HSIC.

Three builders, each wiring sliders to plain functions of this module (which the tests call
and check without a browser):

* :func:`two_sample_widget` (9.2-9.3): move and stretch the second sample; left the two
  samples, middle the witness function ``mu_X - mu_Y``, right the permutation null of the
  biased MMD^2 (log scale) with the statistic marked. Computation: :func:`two_sample_state`.
* :func:`bandwidth_power_widget` (9.4): move ``log10 gamma``; left the power of the test
  against ``gamma`` (measured once, over many draws), with the pooled median heuristic
  marked; right the witness of one draw at this ``gamma``. Computation: :func:`power_curve`.
* :func:`independence_widget` (9.5): move the noise of ``y = x^2 + noise``; left the paired
  sample, right HSIC's p-value and |correlation| against the noise (computed once).
  Computation: :func:`independence_curve`.

Every picture is a function of the sliders only: the draws are fixed by seeds, the
permutations too. The curves over a slider's whole range are computed once per process
(``functools.lru_cache``), so a move only looks them up.
"""
from __future__ import annotations

import functools

import numpy as np

from kernelcourse.kernels import RBF
from kernelcourse.mean_embeddings import (hsic_test, permutation_test_gram, pooled_median_gamma,
                                          power_against_gamma, witness)
from kernelcourse.widgets import FigureView, interactive_figure, new_figure

__all__ = [
    "two_sample_data", "two_sample_state", "two_sample_limits", "plot_two_sample_state",
    "update_two_sample_state",
    "two_sample_widget",
    "power_curve", "plot_power_state", "update_power_state", "bandwidth_power_widget",
    "independence_data", "independence_curve", "plot_independence_state",
    "update_independence_state", "independence_widget",
]

_WIDE = {"description_width": "initial"}

#: where the samples and the witness are drawn
GRID = np.linspace(-9.0, 9.0, 361)
#: histogram bins of the samples, and of the permutation null (log10 of MMD^2)
SAMPLE_BINS = np.linspace(-9.0, 9.0, 73)
NULL_BINS = np.linspace(-4.0, 0.5, 46)
#: the top of the null's count axis: the tallest bin of the null of :func:`two_sample_widget`
#: over every setting of its sliders holds 43 of the 200 permutations (tests check it)
NULL_TOP = 60


# ---------------------------------------------------------------------------
# (a) move and stretch one sample: the witness, MMD^2 and the null
# ---------------------------------------------------------------------------

def two_sample_data(n=100, random_state=0):
    """Two standard normal samples ``(x, z)``, each of shape (n,): ``X = x`` and
    ``Y = shift + scale * z`` (the same draws at every setting of the sliders)."""
    rng = np.random.default_rng(random_state)
    return rng.normal(size=n), rng.normal(size=n)


def two_sample_state(x, z, shift, scale, n_permutations=200, random_state=0):
    """The test of ``X = x`` against ``Y = shift + scale * z`` with the RBF kernel and the
    pooled median heuristic (biased MMD^2, so every value is positive and fits a log axis).

    Returns
    -------
    dict
        ``X``, ``Y`` (n, 1); ``gamma``; ``witness`` on :data:`GRID`; ``statistic``, ``null``,
        ``p_value``.
    """
    X = np.asarray(x, dtype=float)[:, None]
    Y = (shift + scale * np.asarray(z, dtype=float))[:, None]
    gamma = pooled_median_gamma(X, Y)
    kernel = RBF(gamma)
    Z = np.vstack([X, Y])
    result = permutation_test_gram(kernel(Z), len(X), n_permutations, "biased", random_state)
    return {"X": X, "Y": Y, "shift": float(shift), "scale": float(scale), "gamma": gamma,
            "witness": witness(X, Y, GRID[:, None], kernel), "statistic": result.statistic,
            "null": result.null, "p_value": result.p_value}


def _log_counts(values):
    return np.histogram(np.log10(np.maximum(values, 10.0 ** NULL_BINS[0])), bins=NULL_BINS)[0]


def two_sample_limits(x, z, shifts, scales):
    """The samples' panel's limits at every setting of the sliders: ``reach`` (the x axis is
    ``[-reach, reach]``, every point of ``X = x`` and of ``Y = shift + scale z`` inside it) and
    ``density`` (the top of the y axis, above the tallest histogram bar), each the widest over
    ``shifts`` x ``scales`` (the sliders' values), so that no move changes them.
    """
    x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
    shifts, scales = np.asarray(shifts, dtype=float), np.asarray(scales, dtype=float)
    far = max(float(np.max(np.abs(x))),
              float(np.max(np.abs(shifts[:, None, None] + scales[None, :, None] * z))))
    peak = np.histogram(x, SAMPLE_BINS, density=True)[0].max()
    for shift in shifts:
        for scale in scales:
            peak = max(peak, np.histogram(shift + scale * z, SAMPLE_BINS, density=True)[0].max())
    # half a unit beyond the farthest point, and a fifth above the tallest bar (the legend's row)
    return {"reach": float(np.ceil(2 * far + 1) / 2), "density": float(np.ceil(6.25 * peak) / 5)}


def plot_two_sample_state(state, axes=None, limits=None):
    """Three panels: the samples, the witness, the permutation null with the statistic.

    Returns the dict of artists :func:`update_two_sample_state` moves (``hist_x``, ``hist_y``,
    ``witness``, ``null``, ``statistic``, ``title``) and ``figure``. The x axes of the samples
    and the witness and the samples' y axis are fixed by ``limits`` (:func:`two_sample_limits`
    over the sliders' ranges; by default those of this state alone), the null's count axis by
    :data:`NULL_TOP`; the witness's y axis follows its values in coarse steps (:func:`_snap`): a
    function of the sliders' values, close to what is drawn, and unchanged by small moves.
    """
    if axes is None:
        _, axes = new_figure(1, 3, figsize=(8.4, 3.6))
    if limits is None:
        z = (state["Y"][:, 0] - state["shift"]) / state["scale"]
        limits = two_sample_limits(state["X"][:, 0], z, [state["shift"]], [state["scale"]])
    ax, ax2, ax3 = axes
    a = {"figure": ax.figure}
    a["hist_x"] = ax.stairs(np.zeros(len(SAMPLE_BINS) - 1), SAMPLE_BINS, color="C0", lw=1.5,
                            label="X (fixed)")
    a["hist_y"] = ax.stairs(np.zeros(len(SAMPLE_BINS) - 1), SAMPLE_BINS, color="C3", lw=1.5,
                            label="Y (moved)")
    ax.set_xlim(-limits["reach"], limits["reach"])
    ax.set_ylim(0.0, limits["density"])
    ax.set_xlabel("x")
    ax.set_ylabel("density (histogram)")
    ax.legend(fontsize=9, loc="upper left")
    ax2.axhline(0.0, color="0.6", lw=0.8, label="zero")
    a["witness"], = ax2.plot(GRID, np.zeros_like(GRID), color="C2", lw=2, label="witness")
    ax2.set_xlim(-limits["reach"], limits["reach"])
    ax2.set_ylim(-1.0, 1.0)
    # above the axes: the witness's bump moves with the shift, to wherever a legend inside sits
    ax2.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=2, borderaxespad=0.0)
    ax2.set_xlabel("t")
    ax2.set_ylabel(r"witness $\hat\mu_X(t) - \hat\mu_Y(t)$")
    a["null"] = ax3.stairs(np.zeros(len(NULL_BINS) - 1), NULL_BINS, fill=True, color="0.7",
                           label="permuted labels")
    a["statistic"] = ax3.axvline(0.0, color="C3", lw=2, label="observed")
    ax3.set_xlim(NULL_BINS[0], NULL_BINS[-1])
    ax3.set_ylim(0, NULL_TOP)
    ax3.set_xlabel(r"$\log_{10}$ MMD$^2_b$")
    ax3.set_ylabel("permutations")
    ax3.legend(fontsize=9, loc="upper left")
    a["title"] = ax.figure.suptitle("", fontsize=10)
    update_two_sample_state(a, state)
    return a


def _snap(value, steps):
    """The smallest of ``steps`` at least ``value`` (the last one if none is)."""
    return next((s for s in steps if value <= s), steps[-1])


def update_two_sample_state(artists, state):
    """Move the artists of :func:`plot_two_sample_state` to ``state`` (in place), and the y
    limits of the witness to its values, in coarse steps."""
    hx = np.histogram(state["X"][:, 0], SAMPLE_BINS, density=True)[0]
    hy = np.histogram(state["Y"][:, 0], SAMPLE_BINS, density=True)[0]
    artists["hist_x"].set_data(hx)
    artists["hist_y"].set_data(hy)
    artists["witness"].set_ydata(state["witness"])
    counts = _log_counts(state["null"])
    artists["null"].set_data(counts)
    w = _snap(1.3 * float(np.max(np.abs(state["witness"]))), (0.1, 0.2, 0.4, 0.7, 1.0))
    artists["witness"].axes.set_ylim(-w, w)
    s = np.log10(max(state["statistic"], 10.0 ** NULL_BINS[0]))
    artists["statistic"].set_xdata([s, s])
    artists["title"].set_text(
        f"Y = {state['shift']:+.2f} + {state['scale']:.2f} z; gamma (pooled median) = "
        f"{state['gamma']:.3g}: MMD^2_b = {state['statistic']:.4f}, p-value = {state['p_value']:.3f}")
    return artists


def _limits(fig):
    return [(ax.get_xlim(), ax.get_ylim()) for ax in fig.axes]


def two_sample_widget(shift=0.5, scale=1.0, n=100):
    """Widget: shift and stretch the second sample, watch the witness, MMD^2 and the null.

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"shift": FloatSlider, "scale": FloatSlider}``, ``view``; ``result``
        is the dict of :func:`two_sample_state` plus ``figure``.
    """
    import ipywidgets as W

    x, z = two_sample_data(n)
    shifts, scales = np.round(np.arange(-2.0, 2.01, 0.1), 6), np.round(np.arange(0.3, 2.51, 0.1), 6)
    controls = {
        "shift": W.FloatSlider(value=shift, min=shifts[0], max=shifts[-1], step=0.1,
                               description="shift of Y", continuous_update=False, style=_WIDE),
        "scale": W.FloatSlider(value=scale, min=scales[0], max=scales[-1], step=0.1,
                               description="scale of Y", continuous_update=False, style=_WIDE),
    }
    # the samples' panel holds every setting of the sliders: no move changes its limits
    limits = two_sample_limits(x, z, shifts, scales)
    view = FigureView(1, 3, figsize=(8.4, 3.6))
    artists = {}

    def update(shift, scale):
        state = two_sample_state(x, z, shift, scale)
        if not artists:
            artists.update(plot_two_sample_state(state, axes=view.axes, limits=limits))
            view.animate(*(artists[k] for k in ("hist_x", "hist_y", "witness", "null", "statistic",
                                                "title")))
            # the witness's y axis follows its values (in steps): a layer over the kept
            # background (frames, legends, the fixed axes), drawn anew only when its limits
            # move; the histograms, the witness and the statistic go on top
            view.animate(view.axes[1].yaxis, layer=True)
        before = _limits(view.fig)
        update_two_sample_state(artists, state)
        view.render(layer=_limits(view.fig) != before)
        state["figure"] = view.fig
        return state

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (b) the bandwidth against the power
# ---------------------------------------------------------------------------

#: log10 gamma on the bandwidth slider
LOG_GAMMAS = np.round(np.arange(-3.0, 2.61, 0.4), 6)


def _scale_draw(n, scale):
    def draw(rng):
        return rng.normal(size=(n, 1)), scale * rng.normal(size=(n, 1))
    return draw


@functools.lru_cache(maxsize=4)
def power_curve(n=40, scale=1.8, n_trials=40, n_permutations=99, random_state=0):
    """The power of the test of ``N(0, 1)`` against ``N(0, scale^2)`` at each gamma of
    :data:`LOG_GAMMAS` (samples of ``n`` each, ``n_trials`` draws), with the median heuristic
    and one draw's witness at every gamma.

    Returns
    -------
    dict
        ``log_gammas``, ``power``, ``median_gamma`` (the median of the pooled median
        heuristic over the draws), ``X``, ``Y`` (the first draw) and ``witnesses``
        (len(LOG_GAMMAS), len(GRID)).
    """
    draw = _scale_draw(n, scale)
    out = power_against_gamma(draw, 10.0 ** LOG_GAMMAS, n_trials=n_trials,
                              n_permutations=n_permutations, random_state=random_state)
    X, Y = draw(np.random.default_rng(random_state))
    witnesses = np.array([witness(X, Y, GRID[:, None], RBF(10.0 ** g)) for g in LOG_GAMMAS])
    return {"log_gammas": LOG_GAMMAS, "power": out["power"],
            "median_gamma": float(np.median(out["median_gammas"])), "X": X, "Y": Y,
            "witnesses": witnesses, "n": n, "scale": scale, "n_trials": n_trials}


def plot_power_state(curve, log_gamma, axes=None):
    """Left the power against log10 gamma, the median heuristic marked; right one draw's
    witness at ``log_gamma``. Returns the moving artists (``at``, ``witness``, ``title``)."""
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(8.4, 3.6))
    ax, ax2 = axes
    a = {"figure": ax.figure}
    ax.plot(curve["log_gammas"], curve["power"], "o-", color="C0", label="power (rejection rate)")
    ax.axvline(np.log10(curve["median_gamma"]), color="C1", ls="--", label="median heuristic")
    ax.axhline(0.05, color="0.5", ls=":", label="alpha = 0.05")
    a["at"], = ax.plot([], [], "o", color="C3", ms=12, mfc="none", mew=2)
    ax.set_xlim(LOG_GAMMAS[0] - 0.2, LOG_GAMMAS[-1] + 0.2)
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel(r"$\log_{10}\gamma$")
    ax.set_ylabel("power")
    ax.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=3, borderaxespad=0.0)
    ax2.axhline(0.0, color="0.6", lw=0.8)
    ax2.plot(curve["X"][:, 0], np.full(len(curve["X"]), -0.45), "|", color="C0", ms=10, label="X")
    ax2.plot(curve["Y"][:, 0], np.full(len(curve["Y"]), -0.52), "|", color="C3", ms=10, label="Y")
    a["witness"], = ax2.plot(GRID, np.zeros_like(GRID), color="C2", lw=2, label="witness")
    ax2.set_xlim(GRID[0], GRID[-1])
    ax2.set_ylim(-0.6, 0.6)
    ax2.set_xlabel("t")
    ax2.set_ylabel(r"$\hat\mu_X(t) - \hat\mu_Y(t)$")
    ax2.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=3, borderaxespad=0.0)
    a["title"] = ax.figure.suptitle("", fontsize=10)
    update_power_state(a, curve, log_gamma)
    return a


def _index(log_gamma):
    return int(np.argmin(np.abs(LOG_GAMMAS - log_gamma)))


def update_power_state(artists, curve, log_gamma):
    """Move the artists of :func:`plot_power_state` to ``log_gamma``."""
    i = _index(log_gamma)
    artists["at"].set_data([LOG_GAMMAS[i]], [curve["power"][i]])
    artists["witness"].set_ydata(curve["witnesses"][i])
    artists["title"].set_text(
        f"N(0, 1) against N(0, {curve['scale']}^2), n = {curve['n']} each, {curve['n_trials']} draws: "
        f"gamma = {10.0 ** LOG_GAMMAS[i]:.3g}, power {curve['power'][i]:.2f} "
        f"(median heuristic gamma = {curve['median_gamma']:.3g})")
    return artists


def bandwidth_power_widget(log_gamma=-2.2):
    """Widget: ``log10 gamma`` against the power of the test, the median heuristic marked.

    The power curve is measured once (:func:`power_curve`, cached); a move marks a point of
    it and shows the witness of one draw at that gamma.
    """
    import ipywidgets as W

    controls = {"log_gamma": W.FloatSlider(value=log_gamma, min=float(LOG_GAMMAS[0]),
                                           max=float(LOG_GAMMAS[-1]), step=0.4,
                                           description="log10 gamma", continuous_update=False,
                                           style=_WIDE)}
    view = FigureView(1, 2, figsize=(8.4, 3.6))
    artists = {}

    def update(log_gamma):
        curve = power_curve()
        if not artists:
            artists.update(plot_power_state(curve, log_gamma, axes=view.axes))
            view.animate(artists["at"], artists["witness"], artists["title"])
        update_power_state(artists, curve, log_gamma)
        view.render()
        i = _index(log_gamma)
        return {"log_gamma": float(LOG_GAMMAS[i]), "power": float(curve["power"][i]),
                "median_gamma": curve["median_gamma"], "figure": view.fig}

    return interactive_figure(update, view, controls)


# ---------------------------------------------------------------------------
# (c) a dependence that correlation misses
# ---------------------------------------------------------------------------

#: noise levels on the independence slider
NOISES = np.round(np.arange(0.0, 1.51, 0.05), 6)


def independence_data(n=100, random_state=0):
    """``x ~ U[-1, 1]`` and standard normal ``e``, each of shape (n,); ``y = x^2 + noise e``."""
    rng = np.random.default_rng(random_state)
    return rng.uniform(-1.0, 1.0, size=n), rng.normal(size=n)


@functools.lru_cache(maxsize=4)
def independence_curve(n=100, n_permutations=199, random_state=0):
    """HSIC's p-value (RBF kernels, median heuristic on x and on y) and |corr(x, y)| at each
    noise of :data:`NOISES`, on the same draws ``x``, ``e`` and the same permutations."""
    x, e = independence_data(n, random_state)
    p, corr = [], []
    for noise in NOISES:
        y = x**2 + noise * e
        p.append(hsic_test(x[:, None], y[:, None], n_permutations=n_permutations,
                           random_state=random_state).p_value)
        corr.append(abs(float(np.corrcoef(x, y)[0, 1])))
    return {"noises": NOISES, "p_value": np.array(p), "abs_corr": np.array(corr), "x": x, "e": e,
            "n_permutations": n_permutations}


def plot_independence_state(curve, noise, axes=None):
    """Left the paired sample at ``noise``; right the p-value and |correlation| against the
    noise (log scale). Returns the moving artists (``points``, ``at_p``, ``title``)."""
    if axes is None:
        _, axes = new_figure(1, 2, figsize=(8.4, 3.6))
    ax, ax2 = axes
    a = {"figure": ax.figure}
    a["points"] = ax.scatter(curve["x"], curve["x"] ** 2, s=10, color="C0", label="(x_i, y_i)")
    t = np.linspace(-1, 1, 101)
    ax.plot(t, t**2, color="0.5", lw=1, label="y = x^2")
    ax.set_xlim(-1.1, 1.1)
    ax.set_ylim(-4.5, 5.5)
    ax.set_xlabel("x")
    ax.set_ylabel("y = x^2 + noise")
    ax.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=2, borderaxespad=0.0)
    floor = 1.0 / (curve["n_permutations"] + 1)
    ax2.semilogy(curve["noises"], curve["p_value"], "o-", color="C0", ms=4, label="HSIC p-value")
    ax2.semilogy(curve["noises"], np.maximum(curve["abs_corr"], 1e-3), "s-", color="C2", ms=4,
                 label="|correlation|")
    ax2.axhline(0.05, color="0.5", ls=":", label="alpha = 0.05")
    a["at_p"], = ax2.plot([], [], "o", color="C3", ms=12, mfc="none", mew=2)
    ax2.set_xlim(NOISES[0] - 0.05, NOISES[-1] + 0.05)
    ax2.set_ylim(0.5 * min(floor, 1e-3), 1.5)
    ax2.set_xlabel("noise")
    ax2.set_ylabel("p-value, |correlation|")
    ax2.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=3, borderaxespad=0.0)
    a["title"] = ax.figure.suptitle("", fontsize=10)
    update_independence_state(a, curve, noise)
    return a


def _noise_index(noise):
    return int(np.argmin(np.abs(NOISES - noise)))


def update_independence_state(artists, curve, noise):
    """Move the artists of :func:`plot_independence_state` to ``noise``."""
    i = _noise_index(noise)
    y = curve["x"] ** 2 + NOISES[i] * curve["e"]
    artists["points"].set_offsets(np.column_stack([curve["x"], y]))
    artists["at_p"].set_data([NOISES[i]], [curve["p_value"][i]])
    artists["title"].set_text(f"noise = {NOISES[i]:.2f}: |correlation| = {curve['abs_corr'][i]:.3f}, "
                              f"HSIC p-value = {curve['p_value'][i]:.3f}")
    return artists


def independence_widget(noise=0.2):
    """Widget: the noise of ``y = x^2 + noise`` against HSIC's p-value (correlation beside it)."""
    import ipywidgets as W

    controls = {"noise": W.FloatSlider(value=noise, min=float(NOISES[0]), max=float(NOISES[-1]),
                                       step=0.05, description="noise", continuous_update=False,
                                       style=_WIDE)}
    view = FigureView(1, 2, figsize=(8.4, 3.6))
    artists = {}

    def update(noise):
        curve = independence_curve()
        if not artists:
            artists.update(plot_independence_state(curve, noise, axes=view.axes))
            view.animate(artists["points"], artists["at_p"], artists["title"])
        update_independence_state(artists, curve, noise)
        view.render()
        i = _noise_index(noise)
        return {"noise": float(NOISES[i]), "p_value": float(curve["p_value"][i]),
                "abs_corr": float(curve["abs_corr"][i]), "figure": view.fig}

    return interactive_figure(update, view, controls)
