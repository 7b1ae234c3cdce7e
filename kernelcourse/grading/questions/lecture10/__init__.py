"""Lecture 10 (kernels on strings and graphs): exercise set ``ex10`` and the checkpoints
``l10.cp1``, ``l10.cp2`` of the lecture notebook.

The classic mistakes have their diagnoses: k-mers as a set or counted by ``str.count``, the last
window forgotten, pairs of close windows where common neighbours belong, a subsequence
recursion that forgets to decay along one string, the Weisfeiler-Lehman signature without the
node's own label or without round 0, ordered pairs in the shortest-path kernel, and the
random-walk bound that ignores the labels.

Every question has fixed cases (the same in every run) and drawn ones (:func:`.._typed.drawn_like`)
on which each named mistake fares as on a fixed case: a mistake scores the same points in every
seed. Answers take strings as ``str`` and graphs as an adjacency matrix plus a list of labels.

============  ==========================  ====  ==========  ==========================================
id            function                    pts   kind        syllabus
============  ==========================  ====  ==========  ==========================================
l10.cp1       neighbourhood_size          2     derive      10.3 |N_m(u)| over an alphabet of a letters
l10.cp2       spectrum_value              2     derive      10.2 shared k-mers counted with multiplicity
ex10.q1       normalized_gram             2     derive      10.1 K_ij / sqrt(K_ii K_jj)
ex10.q2       spectrum_vector             2     derive      10.2 the k-mer counts, every k-mer
ex10.q3       mismatch_value              3     derive      10.3 sum_b phi_b(s) phi_b(t)
ex10.q4       subsequence_value           3     fix         10.4 Lodhi et al.'s recursion
ex10.q5       wl_one_round                3     predict     10.6 the WL kernel with h = 1
ex10.q6       wl_twins                    3     witness     10.6 non-isomorphic, WL-equal
ex10.q7       shortest_path_value         3     derive      10.7 pairs by end labels and length
ex10.q8       largest_lambda              2     parameter   10.7 1 / rho(A_x)
ex10.q9       structured_true_or_false    2     choice      10.1-10.7 six statements
============  ==========================  ====  ==========  ==========================================
"""
from __future__ import annotations

from .checkpoints import CP1, CP2
from .concepts import Q9
from .graphs import Q5, Q6, Q7, Q8
from .strings import Q1, Q2, Q3, Q4

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9]
