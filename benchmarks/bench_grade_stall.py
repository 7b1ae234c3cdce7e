"""One line cannot stall a class: `kernelcourse grade` on a class with and without the
200,000-character attack cell, in one run.

The class: N copies (default 20) of the solved exercise set 1. The attacked class is the
same with one more submission whose ex1.q2 cell holds, in an ``if`` that never runs,
``import kernelcourse.m0.m1...`` of 198,012 characters (66,001 parts; before issue 41 the
grader's own shortcut analysis took time growing with the square of the name's parts or
worse: minutes). Prints the wall time of each run, their ratio (target: within 2x) and the
machine's load average. Every honest copy must score full marks and the attacker 21 of 22
(its ex1.q2 cell refused with the reason), or the benchmark fails.
Run: .venv/bin/python benchmarks/bench_grade_stall.py [--copies N]
(or python3 tasks.py bench grade_stall)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLVED = ROOT / "exercises" / "source" / "01_feature_expansions_and_the_kernel_trick.ipynb"
LONG_NAME = "kernelcourse." + ".".join(f"m{i % 10}" for i in range(66_000))


def attacker() -> dict:
    nb = json.loads(SOLVED.read_text())
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if source.startswith("# ANSWER ex1.q2\n"):
            head, body = source.split("\n", 1)
            cell["source"] = f"{head}\nif False:\n    import {LONG_NAME}\n{body}"
    return nb


def grade(folder: Path, out: Path) -> tuple[float, dict]:
    command = [sys.executable, "-m", "kernelcourse", "grade", str(folder), "--questions", "ex1",
               "--output", str(out), "--jobs", "2", "--no-progress"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=out.parent)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"grading failed: {done.stderr[-2000:]}")
    rows = json.loads((out / "gradebook.json").read_text())["submissions"]
    return seconds, {Path(r["file"]).name: r for r in rows}


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-stall-") as tmp:
        plain, attacked = Path(tmp) / "plain", Path(tmp) / "attacked"
        for folder in (plain, attacked):
            folder.mkdir()
            for i in range(args.copies):
                shutil.copy(SOLVED, folder / f"student{i:03d}.ipynb")
        (attacked / f"student{args.copies // 2:03d}a_attacker.ipynb").write_text(
            json.dumps(attacker()))
        print(f"{args.copies} honest copies of exercise set 1, --jobs 2; {os.cpu_count()} cores; "
              f"load average {load()} at the start")
        times = {}
        for name, folder in (("without the attack", plain), ("with the attack", attacked),
                             ("without the attack, again", plain)):
            out = Path(tmp) / f"out-{len(times)}"
            out.mkdir()
            seconds, rows = grade(folder, out)
            for file, row in rows.items():
                want = 21 if "attacker" in file else 22
                if row["total"] != want:
                    raise SystemExit(f"{file} scored {row['total']}, not {want}: {row['details']}")
            times[name] = seconds
            print(f"{name:<28}{seconds:>8.1f} s", flush=True)
        print(f"load average {load()} at the end")
        base = min(times["without the attack"], times["without the attack, again"])
        ratio = times["with the attack"] / base
        print(f"with / without the attack: {ratio:.2f}x (target within 2x)"
              f"{'' if ratio <= 2 else ' MISSED'}")


if __name__ == "__main__":
    main()
