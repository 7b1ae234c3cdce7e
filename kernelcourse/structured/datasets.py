"""Seeded data sets of strings and graphs for lecture 10, made by the package (nothing is
downloaded).

==========================  ==========================================================  =======
generator                   what it is                                                  lecture
==========================  ==========================================================  =======
``dna_motif_sequences``     DNA with a degenerate motif planted in the positives,        10.2-10.3,
                            decoys in both classes, and flipped labels                   10.10
``planted_graphs``          labelled random graphs, the positives holding a labelled    10.6, 10.9
                            ring that the negatives hold as a chain (same labels)
==========================  ==========================================================  =======

The DNA set mimics binding-site data: a transcription factor binds a short motif that occurs
with substitutions, so a planted copy seldom matches the motif exactly and exact k-mer counts
(the spectrum kernel) see less of it than counts up to one mismatch (the mismatch kernel).
"""
from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_positive_int
from .graphs import Graph

__all__ = ["dna_motif_sequences", "planted_graphs", "MOTIF"]

#: The motif planted in the positive sequences of :func:`dna_motif_sequences`.
MOTIF = "TGACGTCA"
_BASES = np.array(list("ACGT"))


def _check_noise(label_noise):
    label_noise = float(label_noise)
    if not 0.0 <= label_noise < 0.5:
        raise ValueError(f"label_noise is the fraction of flipped labels, in [0, 0.5); got {label_noise}")
    return label_noise


def _mutate(motif, n_subs, rng):
    """``motif`` with ``n_subs`` positions replaced by a different base."""
    letters = np.array(list(motif))
    for p in rng.choice(len(motif), size=n_subs, replace=False):
        letters[p] = rng.choice([b for b in "ACGT" if b != letters[p]])
    return "".join(letters)


def dna_motif_sequences(n: int = 600, length: int = 101, motif: str = MOTIF,
                        copies: int = 1, substitutions: int = 1, decoys: int = 1,
                        label_noise: float = 0.16, random_state=0):
    """DNA sequences, the positives holding ``copies`` copies of ``motif`` with
    ``substitutions`` random substitutions each.

    Every sequence starts as uniform random bases. A positive gets ``copies`` degenerate
    copies of ``motif`` at random places; every sequence, positive or negative, gets
    ``decoys`` copies of the motif with ``substitutions + 2`` substitutions (too far from the
    motif to be a binding site, close enough to confuse a loose match). Then a fraction
    ``label_noise`` of the labels is flipped (the experiment's errors), so no classifier
    passes ``1 - label_noise`` accuracy by much.

    Returns
    -------
    sequences : list of str
    y : array of shape (n,), labels -1 and +1 (half each before the flips)

    Examples
    --------
    >>> seqs, y = dna_motif_sequences(n=4, length=20, random_state=0)
    >>> len(seqs), len(seqs[0]), sorted(set(y.tolist())) == [-1, 1]
    (4, 20, True)
    """
    n = check_positive_int(n, "n")
    length = check_positive_int(length, "length")
    label_noise = _check_noise(label_noise)
    if not motif or set(motif) - set("ACGT"):
        raise ValueError(f"motif must be a non-empty string over ACGT; got {motif!r}")
    if length < len(motif):
        raise ValueError(f"length={length} is shorter than the motif ({len(motif)} bases)")
    if not 0 <= substitutions + 2 <= len(motif):
        raise ValueError(f"substitutions={substitutions} must lie in 0..{len(motif) - 2}")
    rng = as_rng(random_state)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    rng.shuffle(y)
    sequences = []
    for label in y:
        seq = _BASES[rng.integers(0, 4, size=length)]
        plants = [_mutate(motif, substitutions + 2, rng) for _ in range(decoys)]
        if label == 1:
            plants += [_mutate(motif, substitutions, rng) for _ in range(copies)]
        for word in plants:
            start = rng.integers(0, length - len(motif) + 1)
            seq[start:start + len(motif)] = list(word)
        sequences.append("".join(seq))
    flip = rng.random(n) < label_noise
    return sequences, np.where(flip, -y, y)


def _random_connected(n_nodes, extra_edges, rng):
    """A random tree on ``n_nodes`` nodes plus ``extra_edges`` random chords."""
    edges = {(int(rng.integers(0, v)), v) for v in range(1, n_nodes)}
    while extra_edges > 0:
        i, j = sorted(rng.choice(n_nodes, size=2, replace=False).tolist())
        if (i, j) not in edges:
            edges.add((i, j))
            extra_edges -= 1
    return edges


def planted_graphs(n: int = 200, n_nodes: int = 16, pattern=("N", "C", "O", "C", "N"),
                   label_noise: float = 0.1, random_state=0):
    """Labelled random graphs; each positive holds ``pattern`` as a ring, each negative the
    same labels as a chain (so both classes have the same label histogram).

    A graph is a random tree on ``n_nodes`` nodes plus ``n_nodes // 4`` chords, nodes labelled
    C (60%), N (20%), O (20%); the pattern's nodes replace the first ``len(pattern)`` nodes'
    labels and are wired as a ring (positives) or a path (negatives), joined to the tree by one
    edge. A fraction ``label_noise`` of the labels is flipped.

    Returns
    -------
    graphs : list of :class:`~kernelcourse.structured.Graph`
    y : array of shape (n,), labels -1 and +1
    """
    n = check_positive_int(n, "n")
    n_nodes = check_positive_int(n_nodes, "n_nodes")
    label_noise = _check_noise(label_noise)
    p = len(pattern)
    if p < 3 or n_nodes < p + 2:
        raise ValueError(f"the pattern needs at least 3 nodes and n_nodes at least len(pattern) + 2; "
                         f"got {p} and n_nodes={n_nodes}")
    rng = as_rng(random_state)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    rng.shuffle(y)
    graphs = []
    for label in y:
        rest = n_nodes - p
        edges = {(i + p, j + p) for i, j in _random_connected(rest, rest // 4, rng)}
        edges |= {(i, i + 1) for i in range(p - 1)}
        if label == 1:
            edges.add((0, p - 1))
        edges.add((int(rng.integers(0, p)), int(p + rng.integers(0, rest))))
        labels = list(pattern) + rng.choice(["C", "C", "C", "N", "O"], size=rest).tolist()
        perm = rng.permutation(n_nodes)              # hide the pattern's place
        inverse = np.argsort(perm)
        g = Graph.from_edges(n_nodes, [(int(inverse[i]), int(inverse[j])) for i, j in edges],
                             [labels[perm[v]] for v in range(n_nodes)])
        graphs.append(g)
    flip = rng.random(n) < label_noise
    return graphs, np.where(flip, -y, y)
