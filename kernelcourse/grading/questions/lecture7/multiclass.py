"""Lecture 7, more than two classes: one-vs-rest and one-vs-one, their machines and sizes
(ex7.q8)."""
from __future__ import annotations

import functools
import itertools

from ...model import Case, Diagnosis, Question
from .._typed import drawn_like


# ===================================================================== ex7.q8
def _reference_machines(counts, scheme):
    counts = [int(c) for c in counts]
    if len(counts) == 2:
        return [sum(counts)]
    if scheme == "ovr":
        return [sum(counts)] * len(counts)
    return [a + b for a, b in itertools.combinations(counts, 2)]


def _machines_ordered_pairs(counts, scheme):
    counts = [int(c) for c in counts]
    if scheme == "ovr":
        return _reference_machines(counts, scheme)
    return [a + b for a, b in itertools.permutations(counts, 2)]


def _machines_class_only(counts, scheme):
    counts = [int(c) for c in counts]
    if scheme == "ovo":
        return _reference_machines(counts, scheme)
    return counts if len(counts) > 2 else [sum(counts)]


def _machines_ovo_all(counts, scheme):
    counts = [int(c) for c in counts]
    if scheme == "ovr":
        return _reference_machines(counts, scheme)
    return [sum(counts)] * (len(counts) * (len(counts) - 1) // 2)


def _machines_two_for_two(counts, scheme):
    counts = [int(c) for c in counts]
    if len(counts) == 2 and scheme == "ovr":
        return [sum(counts)] * 2
    return _reference_machines(counts, scheme)


_SCHEMES = [([50, 50, 50, 50], "ovo"), ([50, 50, 50, 50], "ovr"), ([3, 10, 100], "ovo"),
            ([3, 10, 100], "ovr"), ([30, 70], "ovr"), ([30, 70], "ovo")]


@functools.lru_cache(maxsize=None)
def _fixed_machines():
    return tuple(Case((counts, scheme), label=f"classes of {counts} points, {scheme}")
                 for counts, scheme in _SCHEMES)


def _draw_machines(scheme, two=False):
    def draw(rng):
        k = 2 if two else int(rng.integers(3, 7))
        counts = [int(c) for c in rng.integers(2, 200, size=k)]
        return Case((counts, scheme), label=f"classes of {counts} points, {scheme}")
    return draw


Q8 = Question(
    id="ex7.q8", title="how many machines, on how many points", function="machine_sizes", points=2,
    kind="predict", section="7.10", reference=_reference_machines, fixed_cases=_fixed_machines,
    cases=lambda rng: drawn_like(Q8, rng, [(_fixed_machines()[2], _draw_machines("ovo")),
                                           (_fixed_machines()[3], _draw_machines("ovr")),
                                           (_fixed_machines()[4], _draw_machines("ovr", two=True))]),
    forbidden=("kernelcourse.svm.SupportVectorClassifier",),
    diagnoses=[
        Diagnosis("ordered pairs", "the machine of the pair (k, l) is the machine of (l, k) with its "
                  "labels swapped: one-vs-one trains one per unordered pair", _machines_ordered_pairs),
        Diagnosis("one class only", "one-vs-rest trains class k against all the others: every machine "
                  "sees every point", _machines_class_only),
        Diagnosis("one-vs-one on all points", "one-vs-one trains each pair's machine on that pair's "
                  "points only", _machines_ovo_all),
        Diagnosis("two machines for two classes", "with two classes, 'class 1 against the rest' and "
                  "'class 2 against the rest' are one machine with its labels swapped (7.3: the same "
                  "multipliers); one machine suffices", _machines_two_for_two),
    ],
    hints=("count the machines first, then ask which points each one is trained on",
           "swapping every label of a binary problem gives the same multipliers (7.3)"),
)
