"""Lecture 10's widgets: the plain functions against the package's math, the controls from pytest."""
import numpy as np
import pytest

from kernelcourse.structured import mismatch_neighbourhood_size, wl_subtree_kernel
from kernelcourse.widgets import lecture10 as L


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
