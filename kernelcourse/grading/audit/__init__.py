"""Mutation analysis of the question bank: do a question's fixed cases catch the mistakes
nobody named?

``kernelcourse grade --audit-questions [IDS or sets]`` (or :func:`audit` on one question)
mutates each question's reference automatically (:mod:`.operators`: arithmetic and comparison
operators, constants, ``n`` and ``n - 1``, ``sum`` and ``mean``, a dropped term, a transpose,
another axis, a shifted slice, swapped arguments, a changed default; which functions count as
the reference is told in :mod:`.engine`), and for a choice question answers every other option,
for a predict question a nearby number. Each mutant is run on the question's fixed cases and on
its drawn cases under the seeds :data:`SEEDS`, and judged as the grader judges an answer:

* **killed**: it fails a fixed case (the grader gives it less than full marks in every run);
* **survivor**: it passes every fixed case but differs from the reference on a drawn case (a
  student with that mistake earns nearly full marks, and which cases catch it depends on the
  seed): add a fixed case where the mistake shows;
* **equivalent**: it never differs from the reference by the question's own comparison (a
  mutant no case can tell from the right answer); not counted. Nor is a **guarded** mutant,
  whose only difference is an error raised by a ``raise`` statement of the package (a check of
  the inputs, mutated: no student's answer holds one).

Everything is deterministic: the seeds are constants and a mutant that runs long is stopped by
a count of ticks, never by a clock (:mod:`.engine`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .engine import answer_targets, compile_mutant, passes, ticks_of, TICKS_FACTOR, TICKS_SLACK
from .operators import OPERATORS, Mutation, mutations

__all__ = ["SEEDS", "MutantResult", "QuestionAudit", "audit", "audit_many", "format_audit",
           "summary_line", "OPERATORS", "Mutation", "mutations", "select_questions"]

#: the seeds of the drawn cases a mutant is compared on
SEEDS = (0, 1, 2, 3, 4)


@dataclass
class MutantResult:
    """One mutant and its fate: ``"killed"``, ``"survivor"`` or ``"equivalent"``."""

    where: str          # the function mutated (module.qualname), or "answer" for a value mutant
    mutation: Mutation
    status: str
    #: the number of the first fixed case failed (killed) or the drawn case that differed
    #: (survivor: "seed S case i"), else ""
    case: str = ""

    def describe(self) -> str:
        m = self.mutation
        place = f"{self.where}:{m.lineno}" if m.lineno else self.where
        text = f"{place} [{m.operator}] {m.change}"
        if m.line and m.line not in m.change:
            text += f"  =>  {m.line}"
        return text + (f"  ({self.case})" if self.case else "")


@dataclass
class QuestionAudit:
    """The audit of one question: every mutant and its fate, and the functions mutated."""

    question_id: str
    title: str
    targets: list = field(default_factory=list)
    results: list = field(default_factory=list)
    note: str = ""

    def _count(self, status):
        return sum(1 for r in self.results if r.status == status)

    @property
    def killed(self) -> int:
        return self._count("killed")

    @property
    def survivors(self) -> list:
        return [r for r in self.results if r.status == "survivor"]

    @property
    def equivalent(self) -> int:
        """Mutants no case tells from the reference, and those that only trip one of the
        package's checks of its inputs ("guarded")."""
        return self._count("equivalent") + self._count("guarded")

    @property
    def counted(self) -> int:
        """Killed plus survivors: the mutants some case tells from the reference."""
        return self.killed + len(self.survivors)

    def text(self) -> str:
        head = (f"{self.question_id} {self.title}: {self.killed}/{self.counted} killed, "
                f"{len(self.survivors)} survivor{'s' if len(self.survivors) != 1 else ''}, "
                f"{self.equivalent} equivalent")
        if self.note:
            head += f" ({self.note})"
        lines = [head] + [f"  survivor {r.describe()}" for r in self.survivors]
        return "\n".join(lines)


def _cases(question, seeds):
    fixed, drawn = [], []
    first = question.make_cases(seeds[0])
    fixed = [c for c in first if c.fixed]
    for seed in seeds:
        cases = question.make_cases(seed) if seed != seeds[0] else first
        drawn += [(seed, i + 1, c) for i, c in enumerate(cases) if not c.fixed]
    return fixed, drawn


def _fate(question, call, fixed, drawn, expected_fixed, expected_drawn, **patch):
    guarded = False
    for number, (case, expected) in enumerate(zip(fixed, expected_fixed), start=1):
        verdict = passes(question, call, case, expected, **patch)
        guarded |= verdict == "guard"
        if verdict is False:
            return "killed", f"fixed case {number}"
    for (seed, number, case), expected in zip(drawn, expected_drawn):
        verdict = passes(question, call, case, expected, **patch)
        guarded |= verdict == "guard"
        if verdict is False:
            return "survivor", f"differs on seed {seed} case {number}"
    return ("guarded", "") if guarded else ("equivalent", "")


def _value_mutants(question):
    """``(Mutation, function)``: for a choice question every other option, for a predict
    question nearby numbers."""
    key = getattr(question.reference, "answer_key", None)
    out = []
    if isinstance(key, str):
        letters = sorted({key, *(d.name.split()[-1] for d in question.diagnoses
                                 if d.name.startswith("option "))} | set("abcd"[:max(
                                     "abcd".find(key) + 1, 2)]))
        for letter in letters:
            if letter != key:
                out.append((Mutation("option", 0, f"{key!r} -> {letter!r}"),
                            (lambda letter=letter: lambda *a, **k: letter)()))
    elif isinstance(key, dict):
        values = set(key.values())
        for name, right in key.items():
            if isinstance(right, bool):
                options = [not right]
            else:
                options = sorted(v for v in values | {"a", "b", "c"} if v != right)
            for option in options:
                def answer(statement, name=name, option=option):
                    return option if statement == name else key[statement]
                out.append((Mutation("option", 0, f"{name!r}: {right!r} -> {option!r}"), answer))
    elif question.kind == "predict":
        def nearby(change, how):
            def answer(*args, **kwargs):
                value = question.reference(*args, **kwargs)
                return how(value)
            return Mutation("nearby number", 0, change), answer
        out += [nearby("value + 1", lambda v: _numeric(v, lambda x: x + 1)),
                nearby("value - 1", lambda v: _numeric(v, lambda x: x - 1)),
                nearby("value * 1.1", lambda v: _numeric(v, lambda x: x * 1.1)),
                nearby("value * 0.9", lambda v: _numeric(v, lambda x: x * 0.9)),
                nearby("value rounded to one digit",
                       lambda v: _numeric(v, lambda x: float(f"{x:.1g}") if math.isfinite(x) else x))]
    return out


def _numeric(value, how):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, np.integer, np.floating)):
        result = how(float(value))
        return int(result) if isinstance(value, (int, np.integer)) and result == int(result) \
            else result
    if isinstance(value, np.ndarray) and value.dtype.kind in "fi":
        return np.vectorize(lambda x: how(float(x)))(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_numeric(v, how) for v in value)
    return value


def audit(question, seeds=SEEDS) -> QuestionAudit:
    """Mutate ``question``'s reference and judge every mutant on its fixed and drawn cases
    (see the module's docstring)."""
    seeds = tuple(seeds)
    report = QuestionAudit(question.id, question.title)
    fixed, drawn = _cases(question, seeds)
    expected_fixed = [question.expected(c) for c in fixed]
    expected_drawn = [question.expected(c) for _, _, c in drawn]
    for mutation, answer in _value_mutants(question):
        status, case = _fate(question, answer, fixed, drawn, expected_fixed, expected_drawn)
        report.results.append(MutantResult("answer", mutation, status, case))
    if getattr(question.reference, "answer_key", None) is not None:
        return report
    all_cases = fixed + [c for _, _, c in drawn]
    first = all_cases[0] if all_cases else None
    targets = answer_targets(question, first) if first is not None else []
    report.targets = [t.name for t in targets]
    if not targets:
        report.note = "no source of the reference to mutate"
    for target in targets:
        try:
            budget = TICKS_FACTOR * ticks_of(question, target.function, target.tree,
                                             all_cases) + TICKS_SLACK
        except Exception as exc:  # the unmutated code does not compile here
            report.note = f"{target.short} not mutated: {exc}"
            continue
        for mutation, tree in target.mutants():
            try:
                compiled = compile_mutant(target.function, tree)
            except Exception:
                continue  # a mutant Python refuses (e.g. a dropped statement leaving none)
            status, case = _fate(question, question.reference, fixed, drawn, expected_fixed,
                                 expected_drawn, function=target.function, compiled=compiled,
                                 limit=budget)
            report.results.append(MutantResult(target.short, mutation, status, case))
    return report


def select_questions(selection=None) -> list:
    """The questions named by ``selection`` (ids or set names, a list or comma-separated
    text; None or empty: every registered question), in registry order."""
    from ..questions import all_questions

    registry = all_questions()
    if isinstance(selection, str):
        selection = [selection]
    names = [n.strip() for item in (selection or []) for n in str(item).split(",") if n.strip()]
    if not names:
        return list(registry.values())
    sets = {q.set_name for q in registry.values()}
    unknown = [n for n in names if n not in registry and n not in sets]
    if unknown:
        raise KeyError(f"unknown question or set: {', '.join(unknown)}")
    return [q for q in registry.values() if q.id in names or q.set_name in names]


def audit_many(questions, seeds=SEEDS, progress=None) -> list[QuestionAudit]:
    """:func:`audit` on each question; ``progress(report)`` after each."""
    reports = []
    for question in questions:
        report = audit(question, seeds)
        reports.append(report)
        if progress is not None:
            progress(report)
    return reports


def summary_line(reports) -> str:
    """``mutants: K/N killed by the fixed cases, S survivors in Q questions`` (Q: the
    questions with a survivor)."""
    killed = sum(r.killed for r in reports)
    counted = sum(r.counted for r in reports)
    survivors = sum(len(r.survivors) for r in reports)
    with_survivors = sum(1 for r in reports if r.survivors)
    return (f"mutants: {killed}/{counted} killed by the fixed cases, {survivors} survivors in "
            f"{with_survivors} questions")


def format_audit(reports) -> str:
    """Every question's line (with its survivors), then the totals and :func:`summary_line`."""
    lines = [r.text() for r in reports]
    equivalent = sum(r.equivalent for r in reports)
    lines.append(f"audited {len(reports)} questions under seeds "
                 f"{', '.join(map(str, SEEDS))}; {equivalent} equivalent mutants not counted")
    lines.append(summary_line(reports))
    return "\n".join(lines)
