"""The ``kernelcourse`` command (also ``python -m kernelcourse``).

    kernelcourse grade PATH... [--output DIR] [--questions ex1] [--jobs N] [--no-sandbox]
    kernelcourse grade --list-questions [--kinds]
    kernelcourse grade --audit-questions [ID or set ...]
    kernelcourse exercises build [SOURCE...] [--no-execute] [--check]
    kernelcourse gradescope build --questions ex1 [--output autograder.zip]
    kernelcourse questions check [ID...] [--questions-from DIR]
    kernelcourse challenge make --out DIR --seed S | verify HIDDEN DIGEST | grade SUBMISSIONS --key DIR [--final]

``grade`` scores notebooks (files or folders of them), each in a fresh worker
sealed in a sandbox, and writes ``gradebook.csv`` and ``gradebook.json`` (see
:mod:`kernelcourse.grading.command.grader` and :mod:`kernelcourse.grading.sealed.sandbox`). ``exercises build`` writes the
student version of each exercise source notebook (see
:mod:`kernelcourse.grading.command.pipeline`).
"""
from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    from .grading.command.grader import DEFAULTS

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
    grade.add_argument("--kinds", action="store_true",
                       help="with --list-questions: a table per set of each question's kind, "
                            "section and whether it prints its formula")
    grade.add_argument("--audit-questions", nargs="*", default=None, metavar="ID",
                       help="mutation analysis of the question bank: mutate each question's "
                            "reference (or only the questions or sets named) and list, per "
                            "question, the mutants its fixed cases kill and the survivors "
                            "(exit status 1 when any survives)")
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
                       help="draw every submission's cases from this seed (for your own "
                            "tests; default: from the secret, anew per submission and attempt)")
    grade.add_argument("--secret", default=None, metavar="FILE",
                       help="the key file of the grading secret (default: "
                            "grading-secret.key in --output, made once with mode 0600)")
    grade.add_argument("--draw", default=None, metavar="TOKEN",
                       help="replay: draw the cases with this token from the gradebook "
                            "(a row's 'draws'), with its --secret")
    grade.add_argument("--replay", default=None, metavar="GRADEBOOK",
                       help="replay a gradebook JSON: each file on the cases its row records "
                            "(with its --secret)")
    grade.add_argument("--question-timeout", type=float, default=None, metavar="S",
                       help="seconds per question (default: each question's own limit)")
    grade.add_argument("--timeout", type=float, default=DEFAULTS["submission_timeout"],
                       metavar="S", help="seconds per submission (default %(default)s)")
    grade.add_argument("--memory-mb", type=int, default=DEFAULTS["memory_mb"], metavar="MB",
                       help="memory cap of each submission's worker and all of its processes "
                            "(default %(default)s)")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")
    back = grade.add_argument_group("handing back (kernelcourse.grading.handback)")
    back.add_argument("--assignment", metavar="NAME",
                      help="name of the assignment: the files are gradebook-NAME.csv/.json and "
                           "history-NAME.jsonl (an existing gradebook's rows are kept in the "
                           "history before it is replaced)")
    back.add_argument("--update", action="store_true",
                      help="regrade the PATHs given (and only the --questions given) into the "
                           "existing gradebook; each replaced row goes to the history file")
    back.add_argument("--feedback", metavar="DIR",
                      help="write one feedback page per submission (HTML and Markdown) into DIR")
    back.add_argument("--report", action="store_true",
                      help="write the class report report-NAME.html and report-NAME.json")
    back.add_argument("--roster", metavar="CSV",
                      help="map files to students: a CSV with the columns id, name (email, "
                           "sis_user_id, sis_login_id, section, idnumber, username), or "
                           "Canvas's gradebook export, or Moodle's grading worksheet, as they "
                           "come (checked before any grading)")
    back.add_argument("--pattern", default="canvas", metavar="canvas|moodle|REGEX",
                      help="how file names name students (default canvas)")
    back.add_argument("--export", action="append", default=[], choices=["canvas", "moodle"],
                      help="write canvas-NAME.csv or moodle-NAME.csv (needs --roster; repeat "
                           "for both)")
    back.add_argument("--canvas-assignment-id", default="", metavar="ID",
                      help="the Canvas assignment id: Canvas's import matches the column "
                           "'NAME (ID)' to the assignment (needed by --export canvas unless "
                           "the roster is Canvas's export with a column 'NAME (ID)')")
    back.add_argument("--late-penalty", type=float, default=None, metavar="SHARE",
                      help="late policy: a submission marked late (Canvas's _LATE) keeps "
                           "(1 - SHARE) of its points in the exports; the report and the "
                           "feedback show both scores (default: late work is only marked)")
    back.add_argument("--similarity", nargs="?", type=float, const=0.85, default=None,
                      metavar="THRESHOLD",
                      help="report pairs of nearly equal answers (AST similarity, default "
                           "threshold 0.85) in similarity-NAME.json")
    back.add_argument("--questions-from", action="append", default=[], metavar="DIR",
                      help="a folder of your own questions (*.py with a QUESTIONS list); "
                           "the same as the environment variable KERNELCOURSE_QUESTIONS")

    qs = commands.add_parser("questions", help="your own questions")
    qs_commands = qs.add_subparsers(dest="questions_command", required=True)
    qs_check = qs_commands.add_parser(
        "check", help="check questions: the reference passes, a stub is 'not attempted', "
                      "each diagnosis fires on its own mistake")
    qs_check.add_argument("ids", nargs="*", metavar="ID",
                          help="question ids or sets (default: those of --questions-from, "
                               "else every question)")
    qs_check.add_argument("--questions-from", action="append", default=[], metavar="DIR",
                          help="a folder of your own questions (as for grade)")

    gradescope = commands.add_parser("gradescope", help="a Gradescope autograder")
    gs_commands = gradescope.add_subparsers(dest="gradescope_command", required=True)
    gs_build = gs_commands.add_parser("build", help="write the autograder zip to upload")
    gs_build.add_argument("--questions", required=True, metavar="IDS",
                          help="comma-separated sets or question ids, e.g. 'ex1'")
    gs_build.add_argument("--output", "-o", default="autograder.zip", metavar="ZIP")
    gs_build.add_argument("--seed", type=int, default=None,
                          help="grade every submission on the cases of this seed (to try the "
                               "autograder; default: the secret, new cases per submission)")
    gs_build.add_argument("--secret", default=None, metavar="FILE",
                          help="the key file of the grading secret (default: "
                               "grading-secret.key beside the zip, made once)")
    gs_build.add_argument("--questions-from", default=None, metavar="DIR",
                          help="a folder of your own questions to put in the zip")
    gs_run = gs_commands.add_parser("run", help="what run_autograder calls: grade "
                                                "ROOT/submission into ROOT/results/results.json")
    gs_run.add_argument("--root", default=None, metavar="DIR",
                        help="default /autograder (or KERNELCOURSE_AUTOGRADER_ROOT)")

    exercises = commands.add_parser("exercises", help="the exercise notebooks")
    ex_commands = exercises.add_subparsers(dest="exercises_command", required=True)
    build = ex_commands.add_parser(
        "build", help="generate exercises/<name>_exercises.ipynb from exercises/source/<name>.ipynb")
    build.add_argument("sources", nargs="*", metavar="SOURCE",
                       help="source notebooks (default: exercises/source/*.ipynb)")
    build.add_argument("--no-execute", action="store_true",
                       help="write the student versions without executing the notebooks")
    build.add_argument("--check", action="store_true",
                       help="only check that the student versions are up to date (exit 1 if not)")
    from .grading.challenge.cli import add_parser as add_challenge

    add_challenge(commands)
    return parser


def _audit(selection) -> int:
    from .grading.audit import audit_many, format_audit, select_questions

    try:
        questions = select_questions(selection)
    except KeyError as exc:
        print(f"kernelcourse grade: {exc.args[0]}", file=sys.stderr)
        return 2
    reports = audit_many(questions, progress=lambda report: print(report.text(), flush=True))
    print("\n".join(format_audit(reports).splitlines()[-2:]))
    return 1 if any(report.survivors for report in reports) else 0


def _grade(args) -> int:
    from .grading.command.grader import clean_text, grade_paths, summary_table
    from .grading.sealed.sandbox import SandboxUnavailable, probe

    from .grading.questions import use_questions_from

    for folder in args.questions_from:
        try:
            use_questions_from(folder)
        except ValueError as exc:
            print(f"kernelcourse grade: {exc}", file=sys.stderr)
            return 2
    if args.audit_questions is not None:
        return _audit(args.audit_questions)
    if args.list_questions:
        if args.kinds:
            from .grading.command.catalog import kinds_table
            print(kinds_table())
            return 0
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
    plan = None
    if args.feedback or args.report or args.roster or args.export or \
            args.similarity is not None:
        from .grading.handback import prepare

        try:  # the roster, the pattern and the exports' needs, before any grading
            plan = prepare(roster=args.roster, pattern=args.pattern, exports=args.export,
                           canvas_assignment_id=args.canvas_assignment_id,
                           name=args.assignment or "", late_penalty=args.late_penalty)
        except ValueError as exc:
            print(f"kernelcourse grade: {clean_text(exc, 2000)}", file=sys.stderr)
            return 2
    sandbox = None
    if not args.no_sandbox:
        try:
            sandbox = probe()
        except SandboxUnavailable as exc:
            print(f"kernelcourse grade: refusing to run submitted code without a sandbox: {exc}",
                  file=sys.stderr)
            return 2
    try:
        rows = grade_paths(args.paths, output=args.output, selection=selection,
                           progress=not args.no_progress, seed=args.seed, jobs=args.jobs,
                           secret_file=args.secret, draw=args.draw, replay=args.replay,
                           sandbox=sandbox, question_timeout=args.question_timeout,
                           submission_timeout=args.timeout, memory_mb=args.memory_mb,
                           max_notebook_mb=args.max_notebook_mb,
                           assignment_name=args.assignment, update=args.update)
    except ValueError as exc:
        print(f"kernelcourse grade: {clean_text(exc, 2000)}", file=sys.stderr)
        return 2
    if sandbox is None:
        print("WARNING: graded WITHOUT a sandbox (--no-sandbox): the answers ran with your "
              "rights, and the gradebook records it")
    print(summary_table(rows))
    graded = [r for r in rows if r.possible > 0]
    book = f"gradebook-{args.assignment}" if args.assignment else "gradebook"
    print(f"\n{len(graded)} notebook(s) graded, {len(rows) - len(graded)} skipped; "
          f"gradebook written to {args.output.rstrip('/') or '.'}/{book}.csv and {book}.json")
    for r in rows:
        for error in r.errors:
            print(f"  {clean_text(r.file, 200)}: {error}")
    if plan is not None:
        from .grading.handback import hand_back

        lines = hand_back(rows, output=args.output, name=args.assignment or "",
                          feedback=args.feedback, report=args.report, plan=plan,
                          similarity=args.similarity)
        print()
        print("\n".join(lines))
        if any(line.startswith("FAILED") for line in lines):
            return 1
    return 0 if graded else 1


def _questions(args) -> int:
    from .grading import questions as registry
    from .grading.command.selftest import check_question

    before = set(registry.all_questions())
    for folder in args.questions_from:
        try:
            registry.use_questions_from(folder)
        except ValueError as exc:
            print(f"kernelcourse questions check: {exc}", file=sys.stderr)
            return 2
    known = registry.all_questions()
    for where, error in registry.import_errors().items():
        print(f"{where}: failed to import: {error}")
    if args.ids:
        chosen = [q for q in known.values() if q.id in args.ids or q.set_name in args.ids]
    elif args.questions_from:
        chosen = [q for q in known.values() if q.id not in before]
    else:
        chosen = list(known.values())
    if not chosen:
        print("no question to check", file=sys.stderr)
        return 1
    bad = 0
    for q in chosen:
        problems = check_question(q)
        bad += bool(problems)
        print(f"{q.id:<10} {'ok' if not problems else 'PROBLEMS'}  {q.title}")
        for p in problems:
            print(f"    {p}")
    print(f"{len(chosen) - bad} of {len(chosen)} question(s) ready")
    return 1 if bad or registry.import_errors() else 0


def _gradescope(args) -> int:
    from .grading.handback import exports

    if args.gradescope_command == "build":
        selection = [s.strip() for s in args.questions.split(",") if s.strip()]
        if args.questions_from:
            from .grading.questions import use_questions_from

            use_questions_from(args.questions_from)
        from .grading.questions import all_questions

        known = all_questions()
        sets = {q.set_name for q in known.values()}
        unknown = [s for s in selection if s not in known and s not in sets]
        if unknown:
            print(f"kernelcourse gradescope build: unknown question or set: "
                  f"{', '.join(unknown)}", file=sys.stderr)
            return 2
        try:
            path = exports.build_gradescope(args.output, selection, seed=args.seed,
                                            questions_from=args.questions_from,
                                            secret_file=args.secret)
        except ValueError as exc:
            print(f"kernelcourse gradescope build: {exc}", file=sys.stderr)
            return 2
        print(f"autograder written to {path}: upload it as the assignment's autograder")
        return 0
    data = exports.run_gradescope(args.root)
    print(f"score {data['score']}: {len(data['tests'])} test(s) in results.json")
    return 0


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
    from .grading.command import pipeline

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
        if args.command == "gradescope":
            return _gradescope(args)
        if args.command == "questions":
            return _questions(args)
        if args.command == "challenge":
            from .grading.challenge.cli import run as challenge

            return challenge(args)
        return _exercises(args)
    except BrokenPipeError:  # the output was piped into a reader that stopped (`| head`)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
