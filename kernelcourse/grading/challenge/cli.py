"""The ``kernelcourse challenge`` subcommands: their arguments and what they print."""
from __future__ import annotations

import sys


def add_parser(commands) -> None:
    """Add ``challenge make|verify|grade`` to the command's subparsers."""
    ch = commands.add_parser("challenge", help="the data challenge: make it, grade it, verify it")
    sub = ch.add_subparsers(dest="challenge_command", required=True)
    make = sub.add_parser("make", help="write the public files, the sealed hidden labels and "
                                       "their commitment (SHA-256)")
    make.add_argument("--out", required=True, metavar="DIR",
                      help="DIR/public goes to the students, DIR/key stays with you")
    make.add_argument("--seed", type=int, required=True, help="the data's seed")
    make.add_argument("--n-train", type=int, default=600)
    make.add_argument("--n-test", type=int, default=400)
    make.add_argument("--public-share", type=float, default=0.5,
                      help="share of the test ids scored on the public board (default 0.5)")
    verify = sub.add_parser("verify", help="check the hidden labels against the commitment "
                                           "published before the challenge opened")
    verify.add_argument("hidden", metavar="HIDDEN_LABELS_CSV")
    verify.add_argument("commitment", metavar="DIGEST_OR_FILE",
                        help="the SHA-256 digest, or the commitment.txt file")
    grade = sub.add_parser("grade", help="score predictions (CSV files, or notebooks run sealed) "
                                         "on the hidden labels")
    grade.add_argument("submissions", metavar="SUBMISSIONS",
                       help="a folder of STUDENT_*.csv or .ipynb files (or one file)")
    grade.add_argument("--key", required=True, metavar="DIR", help="the folder 'make' wrote")
    grade.add_argument("--output", "-o", default=".", metavar="DIR")
    grade.add_argument("--final", action="store_true",
                       help="after the deadline: score each student's last scored submission "
                            "on the private split")
    grade.add_argument("--per-day", type=int, default=3,
                       help="scored submissions per student per UTC day (default 3)")
    grade.add_argument("--points", type=float, default=10.0)
    grade.add_argument("--pass-share", type=float, default=0.5,
                       help="share of the points at the spectrum baseline (default 0.5)")
    grade.add_argument("--roster", default=None, metavar="CSV",
                       help="map files to students as 'kernelcourse grade --roster' does "
                            "(the course's CSV, Canvas's or Moodle's export)")
    grade.add_argument("--pattern", default=None, metavar="REGEX",
                       help="how file names name students: with --roster, canvas, moodle or a "
                            "regular expression (default canvas); without, a regular "
                            "expression with a group 'login' (default: the part before the "
                            "first '_')")
    grade.add_argument("--export", action="append", default=[], choices=["canvas", "moodle"],
                       help="write canvas-NAME.csv or moodle-NAME.csv with each student's "
                            "points, as 'kernelcourse grade --export' does (needs --roster; "
                            "repeat for both)")
    grade.add_argument("--assignment", default="challenge", metavar="NAME",
                       help="the assignment's name in the LMS (default 'challenge')")
    grade.add_argument("--canvas-assignment-id", default="", metavar="ID",
                       help="the Canvas assignment id (needed by --export canvas unless the "
                            "roster is Canvas's export with a column 'NAME (ID)')")
    grade.add_argument("--log", default=None, metavar="CSV",
                       help="submission times: a CSV 'file,submitted' (default: file times)")
    grade.add_argument("--title", default="Data challenge")
    nb = grade.add_argument_group("notebook submissions (an answer cell '# ANSWER challenge' "
                                  "defining predict(train_sequences, train_labels, "
                                  "test_sequences))")
    nb.add_argument("--public", default=None, metavar="DIR",
                    help="the public files given to predict (default: KEY/public)")
    nb.add_argument("--timeout", type=float, default=120.0, metavar="S",
                    help="seconds for a notebook's answer cell and predict (default 120)")
    nb.add_argument("--memory-mb", type=int, default=2048, metavar="MB",
                    help="memory cap of a notebook's worker (default 2048)")
    nb.add_argument("--no-sandbox", action="store_true",
                    help="run notebooks without the sandbox (trusted submissions only)")


def run(args) -> int:
    from .grade import grade_challenge
    from .leaderboard import write_outputs
    from .make import make_challenge, verify_commitment

    if args.challenge_command == "make":
        key = make_challenge(args.out, args.seed, n_train=args.n_train, n_test=args.n_test,
                             public_share=args.public_share)
        print(f"commitment (publish it now): {key['commitment']}")
        for name, b in key["baselines"].items():
            print(f"baseline {name}: public {b['public']:.4f}, private {b['private']:.4f}")
        print(f"give {args.out}/public to the students; keep {args.out}/key")
        return 0
    if args.challenge_command == "verify":
        ok = verify_commitment(args.hidden, args.commitment)
        print("the hidden labels match the commitment" if ok else
              "MISMATCH: the hidden labels are not the ones committed to")
        return 0 if ok else 1
    from pathlib import Path

    from .notebook import NotebookRunner

    roster, plan = args.roster, None
    if args.roster or args.export:
        from ..handback import prepare

        try:            # the roster and the exports' needs are checked before any grading
            plan = prepare(roster=args.roster, pattern=args.pattern or "canvas",
                           exports=args.export, name=args.assignment,
                           canvas_assignment_id=args.canvas_assignment_id)
        except (ValueError, OSError) as exc:
            print(f"kernelcourse challenge grade: {exc}", file=sys.stderr)
            return 2
        roster = plan.roster

    public = Path(args.public) if args.public else Path(args.key) / "public"
    runner = None
    if (public / "train.csv").is_file() and (public / "test.csv").is_file():
        runner = NotebookRunner(public / "train.csv", public / "test.csv",
                                Path(args.output) / "predictions", timeout=args.timeout,
                                memory_mb=args.memory_mb, sandbox=not args.no_sandbox)
    entries, key = grade_challenge(args.submissions, args.key, final=args.final,
                                   per_day=args.per_day, points=args.points,
                                   pass_share=args.pass_share,
                                   pattern=args.pattern, log=args.log,
                                   predict_notebook=runner, roster=roster)
    paths = write_outputs(entries, key, args.output, final=args.final, possible=args.points,
                          title=args.title)
    for e in entries:
        acc = e.private if args.final else e.public
        message = e.message.removeprefix(f"{e.file}: ")
        what = f"{acc:.4f}, {e.points:g} points" if e.status == "scored" and e.points is not None \
            else e.status + (f": {message}" if message else "")
        print(f"{e.file}: {what}", file=sys.stdout)
    print(f"wrote {paths['csv']}, {paths['html']}")
    if plan is not None and plan.exports:
        from .exports import write_exports

        for line in write_exports(entries, plan, args.output, name=args.assignment,
                                  possible=args.points):
            print(line)
    return 0
