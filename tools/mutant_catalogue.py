"""Build the catalogues of the questions' slips (``kernelcourse/grading/relations/catalogue/``:
every mutant of a question's reference, its values on the fixed cases and the words of its
change; :mod:`kernelcourse.grading.relations.catalogue`), which diagnose a wrong answer whose
values are one slip's (:mod:`kernelcourse.grading.relations.mutants`).

    .venv/bin/python tools/mutant_catalogue.py              # every question
    .venv/bin/python tools/mutant_catalogue.py ex1 ex7.q3   # some
    .venv/bin/python tools/mutant_catalogue.py --check      # list the stale ones, build none
    .venv/bin/python tools/mutant_catalogue.py --stale      # rebuild only the stale ones
    .venv/bin/python tools/mutant_catalogue.py --words      # new words, no mutant run

Rebuild after changing a question's reference or its fixed cases (a test lists the stale
ones). The build runs every mutant on the fixed cases, under the audit's tick budget and
memory cap: minutes for the whole bank.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelcourse.grading.audit import select_questions  # noqa: E402
from kernelcourse.grading.relations import catalogue  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", help="question ids or set names (default: all)")
    parser.add_argument("--check", action="store_true", help="list the stale catalogues")
    parser.add_argument("--stale", action="store_true", help="rebuild only the stale ones")
    parser.add_argument("--words", action="store_true",
                        help="give the current catalogues today's words, running no mutant")
    args = parser.parse_args(argv)
    questions = select_questions(args.sets or None)
    if args.check:
        old = [q.id for q in questions if catalogue.stale(q)]
        print(f"{len(old)} stale catalogue(s){': ' + ', '.join(old) if old else ''}")
        return 1 if old else 0
    if args.words:
        done = [q.id for q in questions if catalogue.rewrite_words(q)]
        print(f"words rewritten in {len(done)} catalogues")
        return 0
    for question in questions:
        if args.stale and not catalogue.stale(question):
            continue
        start = time.perf_counter()
        path = catalogue.write(question)
        if path is None:
            print(f"{question.id}: no catalogue (nothing to mutate)", flush=True)
            continue
        made = catalogue.load.__wrapped__(question.id)
        print(f"{question.id}: {len(made['mutants'])} mutants, {len(made['rows'])} distinct "
              f"value rows, {path.stat().st_size / 1e3:.1f} kB, "
              f"{time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
