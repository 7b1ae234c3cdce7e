"""Lecture 7, statements on KKT, SMO and the bound, each true or false (ex7.q2)."""
from __future__ import annotations

import functools

import numpy as np

from ...model import Case, Diagnosis, Property, Question


# ===================================================================== ex7.q2
#: the statements and whether each is true
STATEMENTS = {
    "box point": ("A training point with a_i = C lies on or inside the margin, or is misclassified.", True),
    "outside": ("A training point strictly outside the margin (y_i f(x_i) > 1) has a_i = 0.", True),
    "bound offset": ("The offset b may be computed from any support vector, also one with a_i = C.", False),
    "remove zero": ("When some multiplier is free (0 < a_i < C), removing a training point with a_i = 0 "
                    "and refitting changes the decision function f.", False),
    "one at a time": ("For the SVM with an offset b, SMO could change a single multiplier per step "
                      "instead of a pair.", False),
    "many SVs": ("A large C makes many support vectors, so a high #SV/n warns of overfitting.", False),
}
_TRUTH = {key: truth for key, (_, truth) in STATEMENTS.items()}
_WHY = {
    "box point": ("box point outside", "a_i = C means the point pays slack: y_i f(x_i) <= 1, on or "
                  "inside the margin, possibly misclassified"),
    "outside": ("outside has alpha", "complementary slackness: y_i f(x_i) > 1 forces a_i = 0 (its "
                "constraint is not active)"),
    "bound offset": ("b from a bound SV", "a support vector with a_i = C may lie inside the margin; only "
                     "0 < a_i < C puts it on the margin, where y_i (f_i + b) = 1 gives b"),
    "remove zero": ("zero multipliers matter", "a point with a_i = 0 enters neither w nor b; the other "
                    "multipliers still satisfy every KKT condition without it, and with a free "
                    "multiplier fixing b the solution f is the same"),
    "one at a time": ("single multiplier", "with an offset, sum_i a_i y_i = 0 ties the multipliers: "
                      "changing one alone breaks it, so SMO changes two (lecture 4.8's machine had "
                      "no offset, hence no such constraint)"),
    "many SVs": ("many SVs overfit", "a small C makes the most support vectors: it widens the margin "
                 "until most points sit inside it (7.8's table: 120 of 120 at C = 0.1, gamma = 0.03, "
                 "an underfitting model)"),
}


def _truth(answer):
    """True or False from a bool, a NumPy bool or a 0-d boolean array (None for anything else)."""
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    if isinstance(answer, np.ndarray) and answer.shape == () and answer.dtype == bool:
        return bool(answer)
    return None


def _reference_truth(key):
    return _TRUTH[key]


_reference_truth.answer_key = dict(_TRUTH)


def _all_right_but(statement):
    return lambda key: (not _TRUTH[key]) if key == statement else _TRUTH[key]


def _detect_truth(statement):
    return lambda answer, case: case.args[0] == statement and _truth(answer) == (not _TRUTH[statement])


@functools.lru_cache(maxsize=None)
def _fixed_truth():
    return tuple(Case((key,), label=f"statement {key!r}") for key in STATEMENTS)


def _cases_truth(rng):
    keys = list(STATEMENTS)
    return [Case((keys[i],), label=f"statement {keys[i]!r}") for i in rng.permutation(len(keys))]


Q2 = Question(
    id="ex7.q2", title="true or false: KKT conditions, SMO and the bound", function="svm_true_or_false",
    points=2, kind="choice", section="7.4", reference=_reference_truth, fixed_cases=_fixed_truth,
    cases=_cases_truth, compare_reference=False,
    properties=[Property("truth", lambda answer, case: _truth(answer) == _TRUTH[case.args[0]],
                         "not the truth value of this statement (answer True or False)")],
    diagnoses=[Diagnosis(name, message, _all_right_but(key), detect=_detect_truth(key))
               for key, (name, message) in _WHY.items()],
    hints=("recall the three KKT cases of 7.4 (a_i = 0, 0 < a_i < C, a_i = C), the constraint that "
           "the offset adds to the dual, and 7.8's table",
           "two of the six statements are true"),
)
