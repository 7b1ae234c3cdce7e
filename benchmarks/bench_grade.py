"""`kernelcourse grade` on a class: the sandbox's cost and what --jobs buys.

Grades N copies (default 300) of the solved exercise set 1 with the real command, four ways in
one run: with the sandbox and with --no-sandbox, at --jobs 1 and --jobs 2. Prints the wall time
of each, the seconds per submission, the sandbox's cost (sandboxed / unsandboxed at the same
--jobs; the issue's limit is 2x) and the speed-up of --jobs 2 over --jobs 1 (close to 2 on two
quiet cores). Every run must give every copy 15/15, or the benchmark fails.
Run: .venv/bin/python benchmarks/bench_grade.py [--copies N]  (or python3 tasks.py bench grade)
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLVED = ROOT / "exercises" / "source" / "01_feature_expansions_and_the_kernel_trick.ipynb"


def grade(folder: Path, out: Path, jobs: int, sandbox: bool) -> float:
    command = [sys.executable, "-m", "kernelcourse", "grade", str(folder), "--questions", "ex1",
               "--output", str(out), "--jobs", str(jobs), "--no-progress"]
    if not sandbox:
        command.append("--no-sandbox")
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"grading failed: {done.stderr[-2000:]}")
    rows = json.loads((out / "gradebook.json").read_text())["submissions"]
    wrong = [r["file"] for r in rows if r["total"] != 15]
    if wrong:
        raise SystemExit(f"{len(wrong)} copies did not score 15/15, e.g. {wrong[0]}")
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        for i in range(args.copies):
            shutil.copy(SOLVED, folder / f"student{i:03d}.ipynb")
        times = {}
        print(f"{args.copies} copies of the solved exercise set 1 (15 points each)")
        print(f"{'run':<24}{'wall s':>9}{'s / submission':>16}")
        for jobs in (1, 2):
            for sandbox in (True, False):
                name = f"{'sandbox' if sandbox else '--no-sandbox'}, --jobs {jobs}"
                out = Path(tmp) / f"out-{jobs}-{sandbox}"
                times[sandbox, jobs] = grade(folder, out, jobs, sandbox)
                print(f"{name:<24}{times[sandbox, jobs]:>9.1f}"
                      f"{times[sandbox, jobs] / args.copies:>16.3f}", flush=True)
        for jobs in (1, 2):
            print(f"sandbox cost at --jobs {jobs}: {times[True, jobs] / times[False, jobs]:.2f}x "
                  f"(limit 2x)")
        for sandbox in (True, False):
            label = "sandbox" if sandbox else "--no-sandbox"
            print(f"--jobs 2 speed-up, {label}: {times[sandbox, 1] / times[sandbox, 2]:.2f}x "
                  f"(ideal 2x on two cores)")


if __name__ == "__main__":
    main()
