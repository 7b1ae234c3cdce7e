"""Lecture 10's kernels against the references, ratios measured in one run.

Run on demand (``.venv/bin/python benchmarks/bench_structured.py``; ``--quick`` for smaller
sizes):

* the spectrum kernel, k = 8, on 3000 sequences of length 101 (the package's DNA data):
  ``spectrum_kernel`` against scikit-learn's ``CountVectorizer`` over character 8-grams plus
  the sparse product ``F F^T`` (the target: a ratio of at most 1);
* the (8, 1)-mismatch kernel on the same sequences (the target: within 10 s on a 2-core
  machine), checked equal on 300 sequences to the product of the explicit neighbourhood
  features ``Phi Phi^T`` (``mismatch_features``), whose time is printed beside it;
* the Weisfeiler-Lehman subtree kernel, h = 5, on 200 graphs of 20 nodes against GraKeL's
  ``WeisfeilerLehman(n_iter=5)`` (the target: a ratio of at most 1), the Gram matrices
  checked equal.

The runs are interleaved (``timing.interleaved``) so that a busy machine hurts both alike;
the load average is printed with the times.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from kernelcourse.structured import mismatch_features, mismatch_kernel, spectrum_kernel, wl_subtree_kernel
from kernelcourse.structured.datasets import dna_motif_sequences, planted_graphs
from timing import interleaved


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="300 sequences and 50 graphs")
    args = parser.parse_args(argv)
    n_seq, n_graphs = (300, 50) if args.quick else (3000, 200)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    from sklearn.feature_extraction.text import CountVectorizer
    seqs, _ = dna_motif_sequences(n=n_seq, random_state=0)

    def sklearn_spectrum():
        F = CountVectorizer(analyzer="char", ngram_range=(8, 8), lowercase=False).fit_transform(seqs)
        return (F @ F.T).toarray()

    assert np.array_equal(spectrum_kernel(seqs, k=8), sklearn_spectrum())
    t = interleaved({"ours": lambda: spectrum_kernel(seqs, k=8), "sklearn": sklearn_spectrum}, repeat=3)
    print(f"spectrum k=8, {n_seq} x 101: ours {t['ours']:.3f} s, CountVectorizer + F F^T "
          f"{t['sklearn']:.3f} s, ratio {t['ours'] / t['sklearn']:.2f}")

    def features_product(strings):
        Phi = mismatch_features(strings, 8, 1)
        return (Phi @ Phi.T).toarray()

    few = seqs[:300]
    assert np.array_equal(mismatch_kernel(few, k=8, m=1), features_product(few))
    t = interleaved({"ours": lambda: mismatch_kernel(few, k=8, m=1),
                     "features": lambda: features_product(few)}, repeat=3)
    print(f"mismatch k=8, m=1, {len(few)} x 101: ours {t['ours']:.3f} s, Phi Phi^T "
          f"{t['features']:.3f} s, ratio {t['ours'] / t['features']:.2f}")
    start = time.perf_counter()
    cpu = time.process_time()
    mismatch_kernel(seqs, k=8, m=1)
    wall = time.perf_counter() - start
    print(f"mismatch k=8, m=1, {n_seq} x 101: {wall:.2f} s wall, "
          f"{time.process_time() - cpu:.2f} s CPU, {wall / 10:.2f} of the 10 s target; "
          f"load average {os.getloadavg()[0]:.1f}")

    import grakel
    graphs, _ = planted_graphs(n=n_graphs, n_nodes=20, random_state=0)
    theirs_in = [[{(i, j) for i, j in g.edges()} | {(j, i) for i, j in g.edges()},
                  dict(enumerate(g.labels))] for g in graphs]

    def grakel_wl():
        wl = grakel.WeisfeilerLehman(n_iter=5, base_graph_kernel=grakel.VertexHistogram)
        return wl.fit_transform(theirs_in)

    assert np.allclose(wl_subtree_kernel(graphs, h=5), grakel_wl())
    t = interleaved({"ours": lambda: wl_subtree_kernel(graphs, h=5), "grakel": grakel_wl}, repeat=3)
    print(f"WL h=5, {n_graphs} graphs of 20 nodes: ours {t['ours']:.3f} s, GraKeL {t['grakel']:.3f} s, "
          f"ratio {t['ours'] / t['grakel']:.2f}")


if __name__ == "__main__":
    main()
