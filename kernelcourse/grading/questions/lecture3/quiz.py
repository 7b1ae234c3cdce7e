"""Lecture 3, sections 3.2 to 3.11: what changes in feature space and what does not (ex3.q12)."""
from __future__ import annotations

from ...model import Question, choice_parts


# ===================================================================== ex3.q12
# The statements of ex3.q12 and their options, as students see them ...
QUIZ = {
    "centering": ("Moving the origin of feature space to the mean phi_S (centering) changes",
                  {"a": "the distances between the points",
                   "b": "the inner products between the points, hence the Gram matrix",
                   "c": "nothing a kernel method computes"}),
    "dimension": ("For the same R and gamma, Novikoff's bound in a feature space of dimension "
                  "10^6, compared with one of dimension 10, is",
                  {"a": "larger: more dimensions allow more mistakes",
                   "b": "the same: it depends on R and gamma only",
                   "c": "undefined when the feature space has infinitely many dimensions"}),
    "system": ("Kernel ridge regression on m examples, with a feature map into M dimensions, "
               "solves a linear system of size",
               {"a": "M x M",
                "b": "m x m",
                "c": "n x n, n the number of input features"}),
    "normalise": ("Normalising the Gaussian kernel, k(x, z) / sqrt(k(x, x) k(z, z)), gives",
                  {"a": "the Gaussian kernel itself",
                   "b": "another kernel, with unit diagonal",
                   "c": "a function that is no kernel"}),
}

# ... the right options, and the misconception behind each wrong one
_QUIZ_RIGHT = {"centering": "b", "dimension": "b", "system": "b", "normalise": "a"}
_QUIZ_WRONG = {
    ("centering", "a"): ("centering moves distances", "a translation keeps every distance: "
                         "(phi(x) - phi_S) - (phi(z) - phi_S) = phi(x) - phi(z)"),
    ("centering", "c"): ("centering changes nothing", "kernel methods compute with inner "
                         "products: expand <phi(x) - phi_S, phi(z) - phi_S> and compare it with "
                         "<phi(x), phi(z)> (3.7)"),
    ("dimension", "a"): ("bound grows with dimension", "write Novikoff's bound down (3.11) "
                         "and look for the dimension in it; 3.11 runs data in 2 to 2000 "
                         "dimensions"),
    ("dimension", "c"): ("infinite dimensions break the bound", "the proof uses inner products "
                         "only, so it holds in any inner-product space; for the Gaussian kernel "
                         "R = 1"),
    ("system", "a"): ("primal in feature space", "M x M is the system of the primal in "
                      "feature space, which kernel ridge regression never forms: count the "
                      "unknowns of the dual (3.2-3.3)"),
    ("system", "c"): ("input dimension", "the number of input features only sets the cost "
                      "of each kernel value, not the size of the system: count the unknowns of "
                      "the dual"),
    ("normalise", "b"): ("normalising the Gaussian", "compute the divisor sqrt(k(x, x) k(z, z)) "
                         "for the Gaussian kernel: what is k(x, x)?"),
    ("normalise", "c"): ("normalising breaks PSD", "normalising is a construction (3.6): it "
                         "rescales each feature vector to unit length and keeps the kernel a "
                         "kernel"),
}


Q12 = Question(
    id="ex3.q12", title="what changes, what does not", function="feature_space_quiz", points=2,
    kind="choice", section="3.7",
    **choice_parts(_QUIZ_RIGHT, _QUIZ_WRONG, label=lambda name: f"{name}: {QUIZ[name][0]} ..."),
    hints=("for each statement, write the quantity in kernel values or inner products and see "
           "what the change (a new origin, more dimensions, a normalisation) does to it",
           "a translation keeps differences; the bound of 3.11 has only R and gamma; the dual "
           "has one unknown per example; the Gaussian's k(x, x) is 1"),
)
