"""The catalogue of questions by kind: per set, each question's id, kind, section and whether
the question prints the formula it asks for (``kind == "formula"``).

``kernelcourse grade --list-questions --kinds`` (or ``python -m kernelcourse grade
--list-questions --kinds``) prints :func:`kinds_table`.
"""
from __future__ import annotations

from collections import Counter

from ..questions import all_questions

__all__ = ["kinds_table", "formula_printed", "kind_counts"]


def formula_printed(question) -> bool:
    """Whether the question prints the formula it asks for: exactly its kind "formula"."""
    return question.kind == "formula"


def kind_counts(questions=None) -> Counter:
    questions = list((questions if questions is not None else all_questions()).values()) \
        if isinstance(questions, dict) or questions is None else list(questions)
    return Counter(q.kind for q in questions)


def kinds_table(questions=None) -> str:
    """A plain-text table per set (ex1, ..., l1, ...): id, kind, section, formula printed."""
    registry = all_questions() if questions is None else questions
    items = list(registry.values()) if isinstance(registry, dict) else list(registry)
    sets: dict = {}
    for q in items:
        sets.setdefault(q.set_name, []).append(q)
    lines = []
    for name in sorted(sets, key=lambda s: (not s.startswith("ex"), s)):
        qs = sets[name]
        printed = sum(formula_printed(q) for q in qs)
        lines.append(f"{name}: {len(qs)} questions, {printed} print their formula, kinds: "
                     + ", ".join(f"{k} {n}" for k, n in sorted(Counter(q.kind for q in qs).items())))
        lines.append(f"  {'id':<10} {'kind':<10} {'section':<8} formula printed  title")
        for q in qs:
            lines.append(f"  {q.id:<10} {q.kind:<10} {q.section or '-':<8} "
                         f"{'yes' if formula_printed(q) else 'no':<16} {q.title}")
    total = len(items)
    printed = sum(formula_printed(q) for q in items)
    lines.append(f"all: {total} questions, {printed} of kind formula "
                 f"({printed / max(total, 1):.0%}; at most one third allowed)")
    return "\n".join(lines)
