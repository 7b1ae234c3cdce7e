"""Lecture 6 (kernel methods at scale: Nystroem, random features in chunks, kernel PCA):
exercise set ``ex6`` and the checkpoints ``l6.cp1``, ``l6.cp2`` of the lecture notebook.

Every answer works on plain arrays: kernel values against landmarks or
training points, frequencies and offsets already drawn, feature matrices, or
measured costs. Nothing here imports Dask: the chunked solve is the same sum
whether the chunks live on one machine or many.

============  ===========================  ====  =========  =======  ==================================
id            function                     pts   kind       section  asks for
============  ===========================  ====  =========  =======  ==================================
l6.cp1        nystroem_features            2     derive     6.2      the Nystroem features
l6.cp2        explained_variance           2     derive     6.4      kernel PCA's explained variance
ex6.q1        rff_gram                     2     derive     6.3      the random-feature Gram matrix
ex6.q2        nystroem_gram                2     derive     6.2      the Nystroem approximation of K
ex6.q3        kpca_project                 3     derive     6.4      new points on the components
ex6.q4        chunked_ridge                3     derive     6.5      ridge, Phi read chunk by chunk
ex6.q5        scaling_exponent             2     derive     6.1      the fitted exponent of a cost
ex6.q6        choose_landmarks             2     parameter  6.2      the smallest m meeting an error
ex6.q7        exact_landmarks              2     predict    6.3      m for an exact polynomial kernel
ex6.q8        scale_statements             2     choice     6.1-6.5  true or false at scale
ex6.q9        kpca_transform               3     fix        6.4      fix kernel PCA's new-point centring
============  ===========================  ====  =========  =======  ==================================

No question text prints its formula: each names the quantity and the section that derives it.

ex6.q4 is checked by behaviour as well as by value: its ``Phi`` is a
:class:`~kernelcourse.grading.model.probes.RowSource`, read by rows only, which counts the most rows
formed at once; the constraint :func:`~kernelcourse.grading.model.probes.rows_at_most` fails an answer
that forms more than ``chunk_size`` rows at a time (it crosses to the grading worker as a probe).
"""
from __future__ import annotations

from .approximation import CP1, Q1, Q2, Q6, Q7
from .pca import CP2, Q3, Q9
from .scale import Q4, Q5, Q8

QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9]
