"""The ``kernelcourse`` command (also ``python -m kernelcourse``).

    kernelcourse grade PATH... [--output DIR] [--questions ex1] [--jobs N] [--no-sandbox]
    kernelcourse grade --list-questions
    kernelcourse exercises build [SOURCE...] [--no-execute] [--check]

``grade`` scores notebooks (files or folders of them), each in a fresh worker
sealed in a sandbox, and writes ``gradebook.csv`` and ``gradebook.json`` (see
:mod:`kernelcourse.grading.grader` and :mod:`kernelcourse.grading.sandbox`). ``exercises build`` writes the
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
        description="Grade notebooks (files or folders of them). Each submission gets a fresh "
                    "worker sealed in a sandbox (bubblewrap: no network, no view of the other "
                    "submissions, the gradebook or your files); each answer cell "
                    "('# ANSWER <id>') runs there on inputs drawn here and is compared here "
                    "with the course's reference.")
    grade.add_argument("paths", nargs="*", metavar="PATH", help="notebook files or folders")
    grade.add_argument("--list-questions", action="store_true",
                       help="list every question: its set, points, the function the answer "
                            "defines and the package names its answer may not use")
    grade.add_argument("--output", "-o", default=".", metavar="DIR",
                       help="folder for gradebook.csv and gradebook.json (default: current folder)")
    grade.add_argument("--questions", metavar="IDS",
                       help="comma-separated exercise sets or question ids to grade, e.g. 'ex1' "
                            "(default: the one set most submissions answer)")
    grade.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                       help="submissions graded side by side (default: the number of cores)")
    grade.add_argument("--no-sandbox", action="store_true",
                       help="run answers without the sandbox (only for trusted submissions: "
                            "the gradebook records it)")
    grade.add_argument("--max-notebook-mb", type=float, default=DEFAULTS["max_notebook_mb"],
                       metavar="MB", help="larger files are not graded (default %(default)s)")
    grade.add_argument("--seed", type=int, default=DEFAULTS["seed"],
                       help="seed of the grading cases (default: a fresh secret seed per run, "
                            "recorded in gradebook.json; pass it here to replay a run)")
    grade.add_argument("--question-timeout", type=float, default=None, metavar="S",
                       help="seconds per question (default: each question's own limit)")
    grade.add_argument("--timeout", type=float, default=DEFAULTS["submission_timeout"],
                       metavar="S", help="seconds per submission (default %(default)s)")
    grade.add_argument("--memory-mb", type=int, default=DEFAULTS["memory_mb"], metavar="MB",
                       help="memory cap of each submission's worker and all of its processes "
                            "(default %(default)s)")
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
    from .grading.grader import clean_text, grade_paths, summary_table
    from .grading.sandbox import SandboxUnavailable, probe

    if args.list_questions:
        print(_question_list())
        return 0
    if not args.paths:
        print("kernelcourse grade: name the notebooks or folders to grade (or --list-questions)",
              file=sys.stderr)
        return 2
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
    sandbox = None
    if not args.no_sandbox:
        try:
            sandbox = probe()
        except SandboxUnavailable as exc:
            print(f"kernelcourse grade: refusing to run submitted code without a sandbox: {exc}",
                  file=sys.stderr)
            return 2
    rows = grade_paths(args.paths, output=args.output, selection=selection,
                       progress=not args.no_progress, seed=args.seed, jobs=args.jobs,
                       sandbox=sandbox, question_timeout=args.question_timeout,
                       submission_timeout=args.timeout, memory_mb=args.memory_mb,
                       max_notebook_mb=args.max_notebook_mb)
    if sandbox is None:
        print("WARNING: graded WITHOUT a sandbox (--no-sandbox): the answers ran with your "
              "rights, and the gradebook records it")
    print(summary_table(rows))
    graded = [r for r in rows if r.possible > 0]
    print(f"\n{len(graded)} notebook(s) graded, {len(rows) - len(graded)} skipped; "
          f"gradebook written to {args.output.rstrip('/') or '.'}/gradebook.csv and gradebook.json")
    for r in rows:
        for error in r.errors:
            print(f"  {clean_text(r.file, 200)}: {error}")
    return 0 if graded else 1


def _question_list() -> str:
    """Every question with its set, points, function and forbidden names."""
    from .grading.questions import all_questions

    lines = []
    for q in all_questions().values():
        forbidden = ", ".join(q.forbidden) or "-"
        lines.append(f"{q.id:<8} {q.points:>4g} pts  {q.function:<28} {q.title}\n"
                     f"{'':<8} may not use: {forbidden}; nor the grader's own answers")
    return "\n".join(lines)


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
    try:
        if args.command == "grade":
            return _grade(args)
        return _exercises(args)
    except BrokenPipeError:  # the output was piped into a reader that stopped (`| head`)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
