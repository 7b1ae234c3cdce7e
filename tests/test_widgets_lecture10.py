"""Lecture 10's widgets: the plain functions against the package's math, the controls from pytest."""
import numpy as np
import pytest

from kernelcourse.structured import mismatch_neighbourhood_size, wl_subtree_kernel
from kernelcourse.widgets import lecture10 as L
from widget_checks import assert_same_as_drawn_anew, count_whole_draws


def test_wl_state_counts_the_labels_of_its_round_and_sums_the_kernel_over_rounds():
    for pair in L.PAIRS:
        g, h = L.graph_pair(pair)
        for i in range(4):
            state = L.wl_state(pair, i)
            assert state["counts"].sum(axis=1).tolist() == [g.n_nodes, h.n_nodes]
            assert np.array_equal(state["K"], wl_subtree_kernel([g, h], h=i))
    same = [L.wl_state(L.PAIRS[0], i) for i in range(4)]
    assert all(np.array_equal(s["counts"][0], s["counts"][1]) for s in same)
    ring_chain = L.wl_state(L.PAIRS[1], 1)
    assert not np.array_equal(ring_chain["counts"][0], ring_chain["counts"][1])
    with pytest.raises(ValueError, match="pair must be one of"):
        L.graph_pair("three squares")


def test_wl_widget_moves_with_its_controls():
    w = L.wl_relabel_widget()
    w.controls["round_"].value = 3
    assert w.result["round"] == 3 and w.view.image.value
    w.controls["pair"].value = L.PAIRS[2]
    assert w.result["pair"] == L.PAIRS[2]


@pytest.mark.slow
def test_mismatch_grid_costs_follow_the_neighbourhood_size_and_m_1_wins_at_k_8():
    grid = L.mismatch_grid()
    for a, m in enumerate(L.MS):
        for b, k in enumerate(L.KS):
            assert grid["cost"][a, b] == 400 * (101 - k + 1) * mismatch_neighbourhood_size(k, m, 4)
    assert np.isnan(grid["accuracy"][2]).all()
    k8 = L.KS.index(8)
    assert grid["accuracy"][1, k8] > grid["accuracy"][0, k8] + 0.05
    w = L.mismatch_cost_widget(k=8, m=1)
    assert w.result["accuracy"] == grid["accuracy"][1, k8]


def test_wl_count_top_holds_every_round_of_its_pair():
    for pair in L.PAIRS:
        counts = [L.wl_state(pair, r)["counts"] for r in range(L.ROUNDS + 1)]
        assert L.wl_count_top(pair) == max(int(c.max()) for c in counts)
    assert L.wl_count_top(L.PAIRS[0]) == 6           # round 0: six unlabelled nodes alike


def test_wl_widget_moves_draw_no_whole_figure_and_show_the_state():
    # each pair's figure is drawn whole once, when built; a move (a round, another pair, back
    # from the last round of the widest pair) redraws the moving artists over it, and the
    # picture equals that figure drawn anew at the same values
    w = L.wl_relabel_widget(pair=L.PAIRS[1], round_=1)
    draws = count_whole_draws(w)
    for control, value in (("round_", 4), ("pair", L.PAIRS[2]), ("round_", 0), ("pair", L.PAIRS[0]),
                           ("round_", 4), ("pair", L.PAIRS[2])):
        w.controls[control].value = value
        assert (w.result["pair"], w.result["round"]) == (w.controls["pair"].value,
                                                         w.controls["round_"].value)
    assert draws == []
    assert_same_as_drawn_anew(w, "planted graphs, round 4, after a move from round 0")
    ax = w.result["figure"].axes[2]
    assert ax.get_ylim()[1] >= 1.3 * w.result["counts"].max()
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(c) for c in w.result["kinds"]]
