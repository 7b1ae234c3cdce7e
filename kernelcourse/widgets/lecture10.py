"""Widgets for lecture 10: Weisfeiler-Lehman relabelling step by step, and the mismatch
kernel's accuracy and cost against k and m.

* :func:`wl_relabel_widget` (10.5-10.6): pick a pair of graphs and a round ``i``; the two
  graphs drawn with every node coloured and numbered by its compressed label of round ``i``
  (one palette for both), and the label counts of that round side by side, with
  ``k_WL`` summed over rounds ``0..i``. Computation: :func:`wl_state`.
* :func:`mismatch_cost_widget` (10.3): move ``k`` and ``m``; left the cost (k-mer
  neighbours visited, :func:`~kernelcourse.structured.mismatch_neighbourhood_size` times the
  number of k-mers) against ``k`` for m = 0, 1, 2; right the test accuracy of kernel ridge
  with the normalised (k, m)-mismatch kernel on the package's DNA data against ``k``, for
  m = 0 (the spectrum kernel) and m = 1. Computation: :func:`mismatch_grid`.

Every picture is a function of the controls only: each pair of graphs has its figure drawn
whole once, when the widget is built, and a move redraws only what the state changes over it
(nodes, labels, bars; no axis limit follows a move within a pair); the accuracy grid is
computed once per process (``functools.lru_cache``).
"""
from __future__ import annotations

import functools

import numpy as np

from kernelcourse.structured import (Graph, cycle_graph, mismatch_kernel, mismatch_neighbourhood_size,
                                     wl_relabel)
from kernelcourse.structured.datasets import dna_motif_sequences, planted_graphs
from kernelcourse.widgets import FigureView, interactive_figure

__all__ = ["PAIRS", "graph_pair", "circle_layout", "wl_state", "wl_count_top", "plot_wl_state",
           "relabel_wl_state",
           "wl_relabel_widget",
           "mismatch_grid", "plot_mismatch_state", "mark_mismatch_state", "mismatch_cost_widget"]

#: the pairs of graphs of the relabelling widget
PAIRS = ("two triangles, a hexagon", "a ring, a chain (same labels)", "two planted graphs")
_PALETTE = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb",
            "#ee8866", "#99ddff", "#44bb99", "#eedd88", "#ffaabb"]


def graph_pair(name: str) -> tuple[Graph, Graph]:
    """The two graphs of the pair ``name`` (one of :data:`PAIRS`)."""
    if name == PAIRS[0]:
        return Graph.from_edges(6, [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]), cycle_graph(6)
    if name == PAIRS[1]:
        labels = list("NCOCNC")
        ring = Graph.from_edges(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (2, 5)], labels)
        chain = Graph.from_edges(6, [(0, 1), (1, 2), (2, 3), (3, 4), (2, 5)], labels)
        return ring, chain
    if name == PAIRS[2]:
        graphs, y = planted_graphs(n=4, n_nodes=10, random_state=5)
        return graphs[int(np.argmax(y))], graphs[int(np.argmin(y))]
    raise ValueError(f"pair must be one of {list(PAIRS)}; got {name!r}")


def circle_layout(g: Graph) -> np.ndarray:
    """Node positions on a circle, in node order, shape (n, 2)."""
    t = 2 * np.pi * np.arange(g.n_nodes) / max(g.n_nodes, 1)
    return np.c_[np.cos(t), np.sin(t)]


def wl_state(pair: str, round_: int) -> dict:
    """The labels of round ``round_`` of both graphs, their counts and ``k_WL`` up to it."""
    g, h = graph_pair(pair)
    rounds, _ = wl_relabel([g, h], round_)
    labels = rounds[round_]
    kinds = sorted(set(labels[0].tolist()) | set(labels[1].tolist()))
    counts = np.array([[np.sum(lab == c) for c in kinds] for lab in labels])
    k = np.zeros((2, 2))
    for lab_round in rounds:
        all_kinds = sorted(set(lab_round[0].tolist()) | set(lab_round[1].tolist()))
        F = np.array([[np.sum(lab == c) for c in all_kinds] for lab in lab_round], float)
        k += F @ F.T
    return {"pair": pair, "round": round_, "graphs": (g, h), "labels": labels, "kinds": kinds,
            "counts": counts, "K": k, "normalized": k[0, 1] / np.sqrt(k[0, 0] * k[1, 1])}


#: the last round of the relabelling widget
ROUNDS = 4


@functools.lru_cache(maxsize=None)
def wl_count_top(pair: str) -> int:
    """The largest number of nodes sharing a label, in either graph of ``pair``, over the rounds
    ``0..ROUNDS``: the top of the counts' scale at every round of the pair."""
    return int(max(wl_state(pair, r)["counts"].max() for r in range(ROUNDS + 1)))


def plot_wl_state(state, axes, view=None) -> dict:
    """Draw :func:`wl_state` on three axes: graph 1, graph 2, the label counts.

    Returns the artists that change from round to round of the pair, for
    :func:`relabel_wl_state`: each graph's ``nodes``, ``texts`` (their labels) and ``titles``;
    the counts' ``bars``, the counts axes' ``title``. With a
    :class:`~kernelcourse.widgets.FigureView` ``view``, these (and the counts' x axis, whose
    ticks are the round's labels) are its moving artists; what the pair fixes (the edges, the
    labels of the input, the counts' scale, which holds every round: :func:`wl_count_top`)
    is its background.
    """
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    graphs = {"nodes": [], "texts": [], "titles": []}
    for ax, g, name in zip(axes[:2], state["graphs"], ("G", "G'")):
        pos = circle_layout(g)
        for i, j in g.edges():
            ax.plot(*pos[[i, j]].T, color="#555555", lw=1.5, zorder=1)
        graphs["nodes"].append(ax.scatter(pos[:, 0], pos[:, 1], s=520, c=["white"] * g.n_nodes,
                                          edgecolors="black", zorder=2))
        graphs["texts"].append([ax.text(x, y, "", ha="center", va="center", fontsize=11, zorder=3)
                                for x, y in pos])
        for v, (x, y) in enumerate(pos):
            ax.text(1.28 * x, 1.28 * y, str(g.labels[v]), ha="center", va="center", fontsize=9,
                    color="#333333")
        ax.set_xlim(-1.5, 1.5)
        ax.set_ylim(-1.5, 1.5)
        ax.set_aspect("equal")
        ax.axis("off")
        graphs["titles"].append(ax.set_title(" ", fontsize=11))
    ax = axes[2]
    # the counts of both graphs side by side: one collection of bars each, reshaped per round
    graphs["bars"] = [ax.add_collection(PolyCollection([], facecolors=colour, edgecolors="none",
                                                       linewidths=0), autolim=False)
                      for colour in ("#4477aa", "#ee6677")]
    ax.set_xlabel("compressed label")
    ax.set_ylabel("nodes")
    # a row above the tallest bar of every round for the legend
    ax.set_ylim(0, 1.3 * max(1, wl_count_top(state["pair"])))
    ax.legend(handles=[Patch(facecolor="#4477aa", label="G"), Patch(facecolor="#ee6677", label="G'")],
              fontsize=9, loc="upper center", ncol=2)
    graphs["title"] = ax.set_title(" ", fontsize=11)
    if view is not None:
        view.animate(*graphs["nodes"], *(t for texts in graphs["texts"] for t in texts),
                     *graphs["titles"], *graphs["bars"], ax.xaxis, graphs["title"])
    relabel_wl_state(graphs, state, axes)
    return graphs


def relabel_wl_state(graphs, state, axes) -> None:
    """Show round ``state["round"]`` on the graphs drawn (same pair): the nodes' colours and
    labels, and the label counts (bars, ticks, limits) on ``axes[2]``."""
    colour = {c: _PALETTE[i % len(_PALETTE)] for i, c in enumerate(state["kinds"])}
    for b, (lab, name) in enumerate(zip(state["labels"], ("G", "G'"))):
        graphs["nodes"][b].set_facecolors([colour[c] for c in lab.tolist()])
        for text, c in zip(graphs["texts"][b], lab.tolist()):
            text.set_text(str(c))
        graphs["titles"][b].set_text(f"{name}: labels of round {state['round']}")
    ax = axes[2]
    x = np.arange(len(state["kinds"]))
    for bars, left, counts in zip(graphs["bars"], (x - 0.4, x), state["counts"]):
        bars.set_verts([[(a, 0), (a + 0.4, 0), (a + 0.4, c), (a, c)] for a, c in zip(left, counts)])
    # upright labels while they fit side by side, turned a quarter when there are many
    ax.set_xticks(x, [str(c) for c in state["kinds"]], fontsize=9,
                  rotation=0 if len(x) <= 10 else 90)
    pad = 0.05 * (len(x) - 0.2)             # the bars span -0.4 .. len(x) - 0.6
    ax.set_xlim(-0.4 - pad, len(x) - 0.6 + pad)
    K = state["K"]
    graphs["title"].set_text(f"k(G, G') = {K[0, 1]:.0f}, normalised {state['normalized']:.3f}")


def wl_relabel_widget(pair=PAIRS[0], round_=1):
    """Widget: Weisfeiler-Lehman relabelling of two graphs, one round at a time.

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"pair": Dropdown, "round_": IntSlider}``, ``view``; ``result`` is
        the dict of :func:`wl_state` plus ``figure``.
    """
    import ipywidgets as W

    controls = {
        "pair": W.Dropdown(options=list(PAIRS), value=pair, description="graphs"),
        "round_": W.IntSlider(value=round_, min=0, max=ROUNDS, description="round i",
                              continuous_update=False),
    }
    view = FigureView(1, 3, figsize=(8.4, 3.2))
    graphs: dict = {}

    def draw(pair, round_, show=True):
        state = wl_state(pair, round_)
        if view.use(pair):                 # each pair its own figure, drawn whole once
            graphs[pair] = plot_wl_state(state, view.axes, view)
        else:                              # its nodes' colours and labels, the counts
            relabel_wl_state(graphs[pair], state, view.axes)
        view.render(show=show)
        return state

    def update(pair, round_):
        state = draw(pair, round_)
        print(f"k_WL summed over rounds 0..{round_}: k(G, G) = {state['K'][0, 0]:.0f}, "
              f"k(G', G') = {state['K'][1, 1]:.0f}, k(G, G') = {state['K'][0, 1]:.0f}")
        return dict(state, figure=view.fig)

    widget = interactive_figure(update, view, controls)
    view.draw_scenes(PAIRS, pair, lambda other: draw(other, round_, show=False))
    return widget


# ---------------------------------------------------------------------------
# the mismatch kernel against k and m
# ---------------------------------------------------------------------------

#: the k and m of the grid
KS = (3, 4, 5, 6, 7, 8, 9)
MS = (0, 1, 2)


@functools.lru_cache(maxsize=2)
def mismatch_grid(n=400, length=101, lam=1.0, random_state=0) -> dict:
    """Test accuracy (kernel ridge, normalised kernel, half the sequences to train) for every
    ``k`` of :data:`KS` and ``m`` in 0, 1, and the cost ``n_kmers |N_m|`` for m = 0, 1, 2."""
    seqs, y = dna_motif_sequences(n=n, length=length, random_state=random_state)
    half = n // 2
    accuracy = np.full((len(MS), len(KS)), np.nan)
    for a, m in enumerate(MS[:2]):
        for b, k in enumerate(KS):
            K = mismatch_kernel(seqs, k=k, m=m, normalize=True)
            alpha = np.linalg.solve(K[:half, :half] + lam * np.eye(half), y[:half])
            accuracy[a, b] = np.mean(np.sign(K[half:, :half] @ alpha) == y[half:])
    cost = np.array([[n * (length - k + 1) * mismatch_neighbourhood_size(k, m, 4) for k in KS]
                     for m in MS], float)
    return {"accuracy": accuracy, "cost": cost, "n": n}


def plot_mismatch_state(grid, k, m, axes) -> dict:
    """Cost and accuracy against k, the current (k, m) marked.

    Returns the artists that follow (k, m), for :func:`mark_mismatch_state`: the two
    square markers and the right axes' title; everything else is the same at every (k, m).
    """
    colours = ("#4477aa", "#ee6677", "#228833")
    ax = axes[0]
    for a, mm in enumerate(MS):
        ax.semilogy(KS, grid["cost"][a], "o-", color=colours[a], label=f"m = {mm}")
    cost_mark, = ax.semilogy([k], [1.0], "s", ms=14, mfc="none", mec="black", mew=2)
    ax.set_xlabel("k")
    ax.set_ylabel("k-mer neighbours visited")
    ax.set_title("cost: n_kmers x |N_m(k)|", fontsize=11)
    # room above the lines for the legend, which stays in the upper left
    low, high = np.nanmin(grid["cost"]), np.nanmax(grid["cost"])
    ax.set_ylim(low / 2, high * 30)
    ax.legend(fontsize=9, loc="upper left")
    ax = axes[1]
    for a, mm in enumerate(MS[:2]):
        ax.plot(KS, grid["accuracy"][a], "o-", color=colours[a],
                label="m = 0 (spectrum)" if mm == 0 else f"m = {mm}")
    accuracy_mark, = ax.plot([k], [0.5], "s", ms=14, mfc="none", mec="black", mew=2)
    ax.set_ylim(0.4, 0.95)
    ax.set_xlabel("k")
    ax.set_ylabel("test accuracy")
    ax.set_title(" ", fontsize=11)
    ax.legend(fontsize=9, loc="upper center", ncol=2)
    marks = {"cost": cost_mark, "accuracy": accuracy_mark, "title": ax.title}
    mark_mismatch_state(marks, grid, k, m)
    return marks


def mark_mismatch_state(marks, grid, k, m) -> None:
    """Move :func:`plot_mismatch_state`'s markers and title to (k, m)."""
    a, b = MS.index(m), KS.index(k)
    marks["cost"].set_data([k], [grid["cost"][a, b]])
    acc = grid["accuracy"][a, b]
    marks["accuracy"].set_visible(bool(np.isfinite(acc)))
    if np.isfinite(acc):
        marks["accuracy"].set_data([k], [acc])
        marks["title"].set_text(f"k = {k}, m = {m}: test accuracy {acc:.3f}")
    else:
        marks["title"].set_text(f"k = {k}, m = {m}: not computed here (cost)")


def mismatch_cost_widget(k=5, m=1):
    """Widget: the (k, m)-mismatch kernel's cost and test accuracy against k.

    Returns
    -------
    ipywidgets.interactive
        ``controls`` = ``{"k": IntSlider, "m": IntSlider}``, ``view``; ``result`` holds
        ``accuracy`` and ``cost`` at (k, m) and ``figure``.
    """
    import ipywidgets as W

    grid = mismatch_grid()
    controls = {
        "k": W.IntSlider(value=k, min=KS[0], max=KS[-1], description="k", continuous_update=False),
        "m": W.IntSlider(value=m, min=0, max=2, description="m", continuous_update=False),
    }
    view = FigureView(1, 2, figsize=(8.4, 3.4))
    # the curves are the same at every (k, m): drawn once, under the moving marks
    marks = plot_mismatch_state(grid, k, m, view.axes)
    view.animate(*marks.values())

    def update(k, m):
        mark_mismatch_state(marks, grid, k, m)
        view.render()
        a, b = MS.index(m), KS.index(k)
        print(f"|N_{m}| = {mismatch_neighbourhood_size(k, m, 4)} neighbours per {k}-mer; "
              f"cost {grid['cost'][a, b]:.3g}")
        return {"accuracy": grid["accuracy"][a, b], "cost": grid["cost"][a, b], "figure": view.fig}

    return interactive_figure(update, view, controls)
