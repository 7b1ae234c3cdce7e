"""Lecture 10's data sets: seeded, shaped as documented, and as hard as the lecture says (the
mismatch kernel beats the spectrum kernel on the DNA; WL beats the label histogram on the graphs)."""
import numpy as np
import pytest

from kernelcourse.structured import (mismatch_kernel, spectrum_kernel, wl_subtree_kernel)
from kernelcourse.structured.datasets import MOTIF, dna_motif_sequences, planted_graphs


def _ridge_accuracy(K, y, n_train, lam):
    alpha = np.linalg.solve(K[:n_train, :n_train] + lam * np.eye(n_train), y[:n_train])
    return float(np.mean(np.sign(K[n_train:, :n_train] @ alpha) == y[n_train:]))


def _near_motif(s, m):
    k = len(MOTIF)
    return max(sum(a == b for a, b in zip(s[i:i + k], MOTIF)) for i in range(len(s) - k + 1)) >= k - m


def test_dna_sequences_are_seeded_and_the_positives_hold_the_motif():
    seqs, y = dna_motif_sequences(n=400, label_noise=0.0, random_state=3)
    again, y2 = dna_motif_sequences(n=400, label_noise=0.0, random_state=3)
    assert seqs == again and np.array_equal(y, y2)
    assert len(seqs) == 400 and {len(s) for s in seqs} == {101} and set("".join(seqs)) == set("ACGT")
    assert (y == 1).sum() == 200
    near = np.array([_near_motif(s, 1) for s in seqs])
    assert near[y == 1].all()                    # every positive has a copy within one substitution
    assert near[y == -1].mean() < 0.1            # a negative has one only by chance
    exact = np.array([MOTIF in s for s in seqs])
    assert exact[y == 1].mean() < 0.1            # but a copy is seldom exact (degenerate motif)


def test_label_noise_flips_the_stated_fraction():
    _, clean = dna_motif_sequences(n=4000, length=20, label_noise=0.0, random_state=1)
    _, noisy = dna_motif_sequences(n=4000, length=20, label_noise=0.16, random_state=1)
    assert abs(np.mean(clean != noisy) - 0.16) < 0.02


@pytest.mark.slow
def test_mismatch_beats_spectrum_on_the_dna_as_on_binding_site_data():
    seqs, y = dna_motif_sequences(n=2000, random_state=0)
    spectrum = max(_ridge_accuracy(spectrum_kernel(seqs, k=k, normalize=True), y, 1000, lam)
                   for k in (6, 8) for lam in (1.0, 3.0))
    mismatch = max(_ridge_accuracy(mismatch_kernel(seqs, k=8, m=1, normalize=True), y, 1000, lam)
                   for lam in (1.0, 3.0))
    print(f"test accuracy: spectrum {spectrum:.3f}, mismatch {mismatch:.3f}")
    assert 0.62 <= spectrum <= 0.69
    assert 0.70 <= mismatch <= 0.77
    assert mismatch - spectrum >= 0.04


def test_planted_graphs_defeat_the_label_histogram_but_not_wl():
    graphs, y = planted_graphs(n=300, random_state=0)
    assert len(graphs) == 300 and all(g.n_nodes == 16 for g in graphs)
    again, _ = planted_graphs(n=300, random_state=0)
    assert all(a == b for a, b in zip(graphs, again))
    histogram = _ridge_accuracy(wl_subtree_kernel(graphs, h=0, normalize=True), y, 150, 1.0)
    wl = _ridge_accuracy(wl_subtree_kernel(graphs, h=3, normalize=True), y, 150, 1.0)
    assert histogram < 0.6 < 0.85 < wl


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="motif must be a non-empty string over ACGT"):
        dna_motif_sequences(motif="ACGU")
    with pytest.raises(ValueError, match="length=5 is shorter than the motif"):
        dna_motif_sequences(length=5)
    with pytest.raises(ValueError, match="n_nodes at least"):
        planted_graphs(n_nodes=5)
