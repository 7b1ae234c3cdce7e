"""The assignment: the questions one run of the grading command grades, the same for every
submission.

It is the sets or ids given with ``--questions``, or else the one exercise set most submissions
answer (each submission counts for the set most of its answer cells belong to).
"""
from __future__ import annotations

from collections import Counter

from ..questions import all_questions

__all__ = ["choose_assignment"]


def _selected(selection: list[str], registry: dict) -> list:
    """The questions named by ``selection`` (set names or question ids), in registry order."""
    wanted = set(selection)
    return [q for q in registry.values() if q.id in wanted or q.set_name in wanted]


def _main_set(ids, registry: dict) -> str | None:
    """The set most of these answer ids belong to (the first such set on a tie)."""
    counts = Counter(registry[i].set_name for i in ids if i in registry)
    if not counts:
        return None
    order = list(dict.fromkeys(q.set_name for q in registry.values()))
    return max(counts, key=lambda s: (counts[s], -order.index(s)))


def choose_assignment(answer_ids: list, selection=None, registry=None) -> list[str]:
    """The run's question selection: ``selection`` when given, else the one set most
    submissions answer (``answer_ids`` holds each readable submission's answer ids)."""
    registry = all_questions() if registry is None else registry
    if selection:
        return list(selection)
    votes = Counter(s for s in (_main_set(ids, registry) for ids in answer_ids) if s)
    if not votes:
        return []
    order = list(dict.fromkeys(q.set_name for q in registry.values()))
    return [max(votes, key=lambda s: (votes[s], -order.index(s)))]
