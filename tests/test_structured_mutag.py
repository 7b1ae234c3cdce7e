"""Lecture 10.9 on a real benchmark: the Weisfeiler-Lehman subtree kernel on MUTAG (188
nitro-aromatic compounds, mutagenic or not; Debnath et al., J. Med. Chem. 34, 1991), evaluated
as the notebook says a small graph set must be: nested cross-validation (h and the ridge's
lambda chosen inside each training fold), beside the majority class and the label histogram
(h = 0, the atoms' counts).

The data is the copy GraKeL's wheel ships with its own tests (GraKeL is under the new BSD
licence, and a test-only dependency here): nothing is downloaded. Read from the TU Dortmund
format (Morris et al., *TUDataset*, 2020): ``A`` (edges, 1-based node ids), the graph
indicator, the graph labels and the node labels.
"""
from pathlib import Path

import numpy as np
import pytest

from kernelcourse.structured import Graph, wl_subtree_kernel

grakel = pytest.importorskip("grakel")
DATA = Path(grakel.__file__).parent / "tests" / "data" / "MUTAG"


def _column(name):
    return [line for line in (DATA / f"MUTAG_{name}.txt").read_text().splitlines() if line.strip()]


def read_mutag():
    """``(graphs, y)``: the 188 graphs with atom-type labels and y in {-1, +1}."""
    indicator = np.array([int(v) for v in _column("graph_indicator")])
    atoms = np.array([int(v) for v in _column("node_labels")])
    y = np.array([int(v) for v in _column("graph_labels")])
    edges = np.array([[int(v) for v in line.split(",")] for line in _column("A")]) - 1
    graphs = []
    for g in range(1, indicator.max() + 1):
        nodes = np.flatnonzero(indicator == g)
        A = np.zeros((len(nodes), len(nodes)), dtype=int)
        own = edges[indicator[edges[:, 0]] == g] - nodes[0]
        A[own[:, 0], own[:, 1]] = 1
        graphs.append(Graph(A, labels=atoms[nodes].tolist()))
    return graphs, y


def _stratified_folds(index, y, k, rng):
    folds = [[] for _ in range(k)]
    for label in (-1, 1):
        for i, member in enumerate(rng.permutation(index[y[index] == label])):
            folds[i % k].append(member)
    return [np.sort(np.array(f)) for f in folds]


def _ridge_accuracy(K, y, train, test, lam):
    alpha = np.linalg.solve(K[np.ix_(train, train)] + lam * np.eye(len(train)), y[train])
    return np.mean(np.sign(K[np.ix_(test, train)] @ alpha) == y[test])


def _chosen(grams, y, train, grid, rng):
    inner = _stratified_folds(train, y, 5, rng)
    score = {p: np.mean([_ridge_accuracy(grams[p[0]], y, np.setdiff1d(train, f), f, p[1])
                         for f in inner]) for p in grid}
    return max(grid, key=lambda p: (score[p], -p[0], p[1]))   # ties: the simpler model


def test_mutag_is_read_whole():
    graphs, y = read_mutag()
    assert len(graphs) == 188 and sorted(np.unique(y)) == [-1, 1]
    assert (y == 1).sum() == 125                     # the published class sizes: 125 and 63
    assert sum(g.adjacency.sum() for g in graphs) == len(_column("A"))    # each edge listed both ways
    assert all((g.adjacency == g.adjacency.T).all() for g in graphs)


@pytest.mark.slow
def test_weisfeiler_lehman_beats_both_baselines_in_nested_cross_validation():
    graphs, y = read_mutag()
    grams = {h: wl_subtree_kernel(graphs, h=h, normalize=True) for h in range(5)}
    lams = (0.01, 0.1, 1.0)
    rng = np.random.default_rng(0)
    index = np.arange(len(y))
    wl, histogram, majority = [], [], []
    for test in _stratified_folds(index, y, 10, rng):
        train = np.setdiff1d(index, test)
        h, lam = _chosen(grams, y, train, [(h, lam) for h in range(1, 5) for lam in lams], rng)
        wl.append(_ridge_accuracy(grams[h], y, train, test, lam))
        _, lam0 = _chosen(grams, y, train, [(0, lam) for lam in lams], rng)
        histogram.append(_ridge_accuracy(grams[0], y, train, test, lam0))
        majority.append(np.mean(y[test] == (1 if y[train].mean() >= 0 else -1)))
    wl, histogram, majority = np.mean(wl), np.mean(histogram), np.mean(majority)
    # measured: 0.873, 0.743 and 0.665 (the outer folds' sd about 0.08, 0.12 and 0.01)
    assert majority == pytest.approx(125 / 188, abs=0.01)
    assert histogram > majority + 0.03
    assert wl > histogram + 0.08
