"""The verdict table: every diagnosis of a question run as an answer under many seeds.

A verdict must not depend on luck (:func:`~kernelcourse.grading.checking.scoring.credit`): an answer
with a named mistake fails a fixed case, so it earns the same points in every seed, and it is
named by its own diagnosis. :func:`mistake_verdicts` runs one question's mistakes;
:func:`verdict_table` writes the table of a set (``tools/verdict_table.py ex1`` prints it), one
row per diagnosis: its points under each seed, how many seeds agree, whether it fails a fixed
case in every seed and which diagnosis names it.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MistakeVerdict", "mistake_verdict", "mistake_verdicts", "verdict_table"]


@dataclass
class MistakeVerdict:
    """How a question grades the answer that makes one named mistake, seed by seed."""

    question_id: str
    diagnosis: str
    points: list          # the points in each seed
    possible: float
    failed: list          # whether the answer failed, in each seed
    fixed_failed: list    # whether it failed a fixed case, in each seed
    named: list           # the diagnosis reported, in each seed (None when none)

    @property
    def deterministic(self) -> bool:
        return len({round(p, 9) for p in self.points}) == 1

    @property
    def ok(self) -> bool:
        """Fails a fixed case in every seed, with the same points, named by its own diagnosis."""
        return (all(self.failed) and all(self.fixed_failed) and self.deterministic
                and all(name == self.diagnosis for name in self.named))


def mistake_verdict(question, diagnosis, results) -> MistakeVerdict:
    """The row of one diagnosis, from the results of its ``mistake`` graded as the answer,
    one result per seed."""
    return MistakeVerdict(
        question.id, diagnosis.name, [r.points for r in results], question.points,
        [r.status == "failed" for r in results],
        [r.n_fixed > 0 and r.fixed_passed < r.n_fixed for r in results],
        [r.diagnosis.name if r.diagnosis is not None else None for r in results])


def mistake_verdicts(question, seeds=range(20)) -> list[MistakeVerdict]:
    """Every diagnosis's ``mistake`` graded as the answer under each seed."""
    from ..checking.scoring import evaluate

    return [mistake_verdict(question, diagnosis,
                            [evaluate(question, diagnosis.mistake, seed, detect_shortcuts=False)
                             for seed in seeds])
            for diagnosis in question.diagnoses]


def _points(values) -> str:
    distinct = sorted({round(v, 4) for v in values})
    if len(distinct) == 1:
        return f"{distinct[0]:g} in all {len(values)}"
    return " ".join(f"{v:g}" for v in values)


def verdict_table(set_names, seeds=range(20)) -> str:
    """The table of every question of the sets named (``["ex1", "l1"]``), as text."""
    from ..questions import all_questions

    seeds = list(seeds)
    lines = [f"every diagnosis's mistake graded as the answer under {len(seeds)} seeds "
             f"({seeds[0]}..{seeds[-1]})", "",
             f"{'question':<9} {'diagnosis':<32} {'points per seed':<22} {'named right':<12} "
             f"fails a fixed case"]
    n_rows = n_ok = 0
    for question in all_questions().values():
        if question.set_name not in set_names:
            continue
        for row in mistake_verdicts(question, seeds):
            n_rows += 1
            n_ok += row.ok
            named = sum(name == row.diagnosis for name in row.named)
            lines.append(f"{row.question_id:<9} {row.diagnosis[:32]:<32} "
                         f"{_points(row.points) + f' / {row.possible:g}':<22} "
                         f"{f'{named}/{len(seeds)}':<12} "
                         f"{'yes' if all(row.fixed_failed) else 'NO'}")
    lines += ["", f"{n_ok} of {n_rows} mistakes fail a fixed case with the same points in every "
                  f"seed and are named by their own diagnosis"]
    return "\n".join(lines)
