"""The ``kernelcourse`` command (also ``python -m kernelcourse``).

    kernelcourse grade PATH... [--output DIR] [--questions ex1] [--question-timeout S]
    kernelcourse exercises build [SOURCE...] [--no-execute] [--check]

``grade`` scores notebooks (files or folders of them) in worker processes the
submissions cannot touch and writes ``gradebook.csv`` and ``gradebook.json``
(see :mod:`kernelcourse.grading.grader`). ``exercises build`` writes the
student version of each exercise source notebook (see
:mod:`kernelcourse.grading.pipeline`).
"""
from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    from .grading.grader import DEFAULTS

    parser = argparse.ArgumentParser(prog="kernelcourse", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    grade = commands.add_parser(
        "grade", help="grade submitted notebooks and write a gradebook",
        description="Grade notebooks (files or folders of them). Each answer cell "
                    "('# ANSWER <id>') is run in a fresh worker process on inputs drawn here "
                    "and compared here with the course's reference.")
    grade.add_argument("paths", nargs="+", metavar="PATH", help="notebook files or folders")
    grade.add_argument("--output", "-o", default=".", metavar="DIR",
                       help="folder for gradebook.csv and gradebook.json (default: current folder)")
    grade.add_argument("--questions", metavar="IDS",
                       help="comma-separated exercise sets or question ids to grade, e.g. 'ex1' "
                            "(default: the sets of the answer cells found in each notebook)")
    grade.add_argument("--seed", type=int, default=DEFAULTS["seed"],
                       help="seed of the grading cases (default %(default)s)")
    grade.add_argument("--question-timeout", type=float, default=None, metavar="S",
                       help="seconds per question (default: each question's own limit)")
    grade.add_argument("--timeout", type=float, default=DEFAULTS["submission_timeout"],
                       metavar="S", help="seconds per submission (default %(default)s)")
    grade.add_argument("--memory-mb", type=int, default=DEFAULTS["memory_mb"], metavar="MB",
                       help="address-space limit of the worker (default %(default)s)")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")

    exercises = commands.add_parser("exercises", help="the exercise notebooks")
    ex_commands = exercises.add_subparsers(dest="exercises_command", required=True)
    build = ex_commands.add_parser(
        "build", help="generate exercises/<name>.ipynb from exercises/source/<name>.ipynb")
    build.add_argument("sources", nargs="*", metavar="SOURCE",
                       help="source notebooks (default: exercises/source/*.ipynb)")
    build.add_argument("--no-execute", action="store_true",
                       help="write the student versions without executing the notebooks")
    build.add_argument("--check", action="store_true",
                       help="only check that the student versions are up to date (exit 1 if not)")
    return parser


def _grade(args) -> int:
    from .grading.grader import grade_paths, summary_table

    selection = [s.strip() for s in args.questions.split(",") if s.strip()] if args.questions else None
    if selection:
        from .grading.questions import all_questions
        known = all_questions()
        sets = {q.set_name for q in known.values()}
        unknown = [s for s in selection if s not in known and s not in sets]
        if unknown:
            print(f"kernelcourse grade: unknown question or set: {', '.join(unknown)}",
                  file=sys.stderr)
            return 2
    rows = grade_paths(args.paths, output=args.output, selection=selection,
                       progress=not args.no_progress, seed=args.seed,
                       question_timeout=args.question_timeout,
                       submission_timeout=args.timeout, memory_mb=args.memory_mb)
    print(summary_table(rows))
    graded = [r for r in rows if r.possible > 0]
    print(f"\n{len(graded)} notebook(s) graded, {len(rows) - len(graded)} skipped; "
          f"gradebook written to {args.output.rstrip('/') or '.'}/gradebook.csv and gradebook.json")
    for r in rows:
        for error in r.errors:
            print(f"  {r.file}: {error}")
    return 0 if graded else 1


def _exercises(args) -> int:
    from .grading import pipeline

    if args.check:
        stale = pipeline.stale_notebooks(args.sources or None)
        for line in stale:
            print(line, file=sys.stderr)
        if stale:
            print("run `python3 tasks.py exercises` to regenerate them", file=sys.stderr)
        return 1 if stale else 0
    pipeline.build(args.sources or None, execute=not args.no_execute)
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "grade":
        code = _grade(args)
    else:
        code = _exercises(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
