"""The verdict table of exercise sets: every diagnosis's mistake run as an answer under many seeds.

For each question of the sets named (default: ex4 ex5 ex6 l4 l5 l6), each diagnosis's ``mistake``
is graded through :func:`kernelcourse.grading.evaluate` (the path of ``check()``) under seeds
0 .. N-1. A row prints the set, the question, the diagnosis, the points in every seed (one number
when they agree), whether it failed in every seed, and whether the diagnosis named was its own.
The reference's verdict on the fixed cases closes each question.

    .venv/bin/python tools/verdict_table.py            # sets 4-6, 20 seeds
    .venv/bin/python tools/verdict_table.py ex4 --seeds 5

Exit status 1 when a mistake passes a seed, earns different points in two seeds, or is named by
another diagnosis, or when the reference fails a fixed case.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelcourse.grading import all_questions, evaluate  # noqa: E402
from kernelcourse.grading.questions import import_errors  # noqa: E402
from kernelcourse.grading.scoring import score  # noqa: E402
from kernelcourse.grading.running import run_answer  # noqa: E402


def mistake_rows(question, seeds):
    """``(diagnosis name, points per seed, failed in every seed, named right in every seed)``."""
    rows = []
    for diagnosis in question.diagnoses:
        points, failed, named = [], True, True
        for seed in seeds:
            result = evaluate(question, diagnosis.mistake, seed, detect_shortcuts=False)
            points.append(round(result.points, 6))
            failed = failed and result.status != "passed"
            named = named and result.diagnosis is diagnosis
        rows.append((diagnosis.name, points, failed, named))
    return rows


def reference_on_fixed(question):
    """The number of fixed cases and how many the reference passes."""
    cases = question.make_fixed_cases()
    if not cases:
        return 0, 0
    result = score(question, cases, run_answer(question.reference, cases, question.time_limit))
    return len(cases), result.n_passed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=["ex4", "ex5", "ex6", "l4", "l5", "l6"])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args(argv)
    seeds = range(args.seeds)
    bad = len(import_errors())
    for module, error in import_errors().items():
        print(f"module {module} does not import: {error}")
    print(f"{'set':5} {'question':9} {'diagnosis':34} {'points (' + str(args.seeds) + ' seeds)':22} verdict")
    for q in all_questions().values():
        if q.set_name not in args.sets:
            continue
        for name, points, failed, named in mistake_rows(q, seeds):
            same = len(set(points)) == 1
            shown = f"{points[0]:g}/{q.points:g}" if same else ",".join(f"{p:g}" for p in points)
            flags = [w for w, ok in (("PASSES", failed), ("VARIES", same), ("MISNAMED", named))
                     if not ok]
            bad += bool(flags)
            print(f"{q.set_name:5} {q.id:9} {name[:34]:34} {shown:22} {' '.join(flags) or 'ok'}")
        n_fixed, n_ok = reference_on_fixed(q)
        ok = n_fixed > 0 and n_ok == n_fixed
        bad += not ok
        print(f"{q.set_name:5} {q.id:9} {'(reference on fixed cases)':34} "
              f"{f'{n_ok}/{n_fixed} passed':22} {'ok' if ok else 'NO FIXED CASES' if not n_fixed else 'FAILS'}")
    print(f"{bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
