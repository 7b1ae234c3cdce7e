"""Print the verdict table of exercise sets: every diagnosis's mistake graded as the answer
under 20 seeds, its points in each (they must all be the same), how often it is named right.

    .venv/bin/python tools/verdict_table.py ex1 l1          # one or more sets
    .venv/bin/python tools/verdict_table.py ex2 --seeds 5   # fewer seeds
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelcourse.grading.command.verdicts import verdict_table  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="set names such as ex1, l1")
    parser.add_argument("--seeds", type=int, default=20, help="how many seeds (from 0)")
    args = parser.parse_args(argv)
    print(verdict_table(set(args.sets), range(args.seeds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
