"""Lecture 10, sections 10.1-10.7: six statements on string and graph kernels, true or false
(ex10.q9)."""
from __future__ import annotations

from ...model import Case, Question, choice_parts
from ._common import GRAPHS, STRINGS

STATEMENTS = {
    "mismatch psd": ("The (k, m)-mismatch kernel is positive semi-definite for every m.", True),
    "wl complete": ("If Weisfeiler-Lehman relabelling with h = n gives two graphs of n nodes the same "
                    "label counts in every round, the graphs are isomorphic.", False),
    "normalised diagonal": ("After normalisation, k(s, s) = 1 for every string s that has at least one "
                            "k-mer, whatever its length.", True),
    "same spectrum": ("Two different strings never have the same k-spectrum feature vector.", False),
    "sp infinity": ("The shortest-path kernel counts the pairs of nodes in different components, with "
                    "the length infinity.", False),
    "lam one": ("With lam = 1 the subsequence kernel counts the pairs of occurrences of common "
                "subsequences of length n, however spread out they are.", True),
}

Q9 = Question(
    id="ex10.q9", title="true or false: kernels on strings and graphs", function="structured_true_or_false",
    points=2, kind="choice", section="10.1",
    fixed_cases=lambda: [Case((key,), label=f"{key} (fixed)") for key in STATEMENTS],
    forbidden=STRINGS + GRAPHS,
    **choice_parts({key: truth for key, (_, truth) in STATEMENTS.items()}, {
        "mismatch psd": ("mismatch not psd", "the mismatch kernel is an inner product of the feature "
                         "vectors (phi_b(s))_b, whatever m: every Gram matrix of it is positive "
                         "semi-definite"),
        "wl complete": ("WL is complete", "a cycle of six nodes and two triangles have the same WL "
                        "counts in every round (every node has degree 2) but are not isomorphic"),
        "normalised diagonal": ("normalised diagonal varies", "k(s, s) / sqrt(k(s, s) k(s, s)) is 1 "
                                "whenever k(s, s) > 0: normalising removes the length"),
        "same spectrum": ("spectrum is injective", "the spectrum forgets where the k-mers are: with "
                          "k = 1, AB and BA have the same counts"),
        "sp infinity": ("disconnected pairs counted", "a pair of nodes with no path between them has "
                        "no shortest path to count: such pairs are left out"),
        "lam one": ("gaps still weighted", "with lam = 1 every weight lam^(span) is 1: each pair of "
                    "occurrences adds 1, however long its spans"),
    }, label=str, argument="key"),
    hints=("for each statement, write the kernel as an inner product of features and ask what the "
           "features keep and what they forget",
           "three of the six statements are true"),
)
