"""A question file of your own: copy it into your questions folder (outside the course's
package, for example ``~/course-questions/my1.py``) and edit it. The guide is
``docs/writing-questions.md``.

Every ``*.py`` file in that folder (not starting with ``_``) holds a list ``QUESTIONS``; the
grader and ``check`` load it when the folder is named by ``--questions-from DIR`` or by the
environment variable ``KERNELCOURSE_QUESTIONS``.

This example asks for the normalised Gram matrix K_ij / sqrt(K_ii K_jj), the Gram matrix of
the features phi(x) / ||phi(x)||.
"""
import numpy as np

from kernelcourse.grading import Case, Diagnosis, Property, Question


# 1. The reference answer: the function a right answer agrees with. Write it here, with the
#    same name and arguments as the function the students write.
def normalised_gram(K):
    K = np.asarray(K, dtype=float)
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


# 2. The cases: fresh inputs drawn from the numpy Generator you are given (never from another
#    source of randomness), as plain data (numbers, numpy arrays, lists, dicts). Several cases
#    give partial credit; a label says what a case tests.
def _cases(rng):
    cases = []
    for n, d in [(3, 2), (5, 3), (6, 4)]:
        X = rng.normal(size=(n, d))
        K = (1.0 + X @ X.T) ** 2            # a polynomial kernel's Gram matrix
        cases.append(Case((K,), label=f"a polynomial Gram matrix of {n} points"))
    return cases


# 3. The diagnoses: each a mistake students make, written as the function such a student would
#    write, and the message that names the misconception.
def _mistake_no_root(K):
    K = np.asarray(K, dtype=float)
    d = np.diag(K)
    return K / np.outer(d, d)


def _mistake_rows_only(K):
    K = np.asarray(K, dtype=float)
    return K / np.sqrt(np.diag(K))[:, None]


QUESTIONS = [
    Question(
        id="my1.q1",                    # <set>.<name>: the set groups the points
        title="the normalised Gram matrix",
        function="normalised_gram",     # the name the student's function has
        points=2,
        reference=normalised_gram,
        cases=_cases,
        diagnoses=[
            Diagnosis("no square root", "divide by sqrt(K_ii K_jj), the product of the two "
                      "feature norms, not by K_ii K_jj", _mistake_no_root),
            Diagnosis("rows only", "normalise both points: divide by sqrt(K_ii) and by "
                      "sqrt(K_jj)", _mistake_rows_only),
        ],
        # 4. Properties every right answer has, whatever the reference says.
        properties=[Property("unit diagonal",
                             lambda actual, case: np.allclose(np.diag(actual), 1.0),
                             "a normalised Gram matrix has ones on its diagonal")],
        # 5. Package names whose use would answer the question: an answer using them scores 0.
        forbidden=("kernelcourse.feature_space.normalize_gram", "kernelcourse.kernels.Normalized"),
        hints=("each feature vector is divided by its norm: what is ||phi(x_i)|| in terms of K?",
               "||phi(x_i)|| = sqrt(K_ii); divide K_ij by sqrt(K_ii) sqrt(K_jj)"),
        kind="formula",
        section="3.8",
    ),
]
