"""`kernelcourse grade` on a class: before and after, the sandbox's cost, what --jobs buys.

Grades N copies (default 300) of the solved exercise set 1 with the real command, in one run:

* **before**: the grader as it was before one sealed worker per job (a fresh sandboxed worker
  per submission, whose warm-up imported the whole package), read from git at commit
  ``--before`` into a temporary folder and run from there with the same interpreter, sandbox
  on, ``--jobs 2``;
* **previous**: the grader at commit ``--previous`` (the one before the watchdog stopped
  reading the kernel's whole TCP tables ten times a second, issue 41), sandbox on, ``--jobs 2``;
* **after**: this checkout's grader, with the sandbox and with --no-sandbox, at --jobs 1 and
  --jobs 2 (``--quick``: previous and after with the sandbox at ``--jobs 2`` only).

Prints the wall time of each, the seconds per submission, the CPU time per answer (of the
grader and every process it started: on a busy machine a steadier figure than the wall time), the speed-up of after over before,
the sandbox's cost (sandboxed / unsandboxed at the same --jobs) and the speed-up of --jobs 2
over --jobs 1. The issue's target: 300 copies in at most 60 s at --jobs 2, sandbox on. Every
run must give every copy full marks (15 points before, 22 after: ex1 has grown), or the
benchmark fails. The machine's load average is printed
before and after: the times are only comparable within one run.
Run: .venv/bin/python benchmarks/bench_grade.py [--copies N] [--before REF | --no-before]
[--previous REF | --no-previous] [--quick]
(or python3 tasks.py bench grade)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLVED = ROOT / "exercises" / "source" / "01_feature_expansions_and_the_kernel_trick.ipynb"
# the grader before issue 29 (one worker per job reused across submissions): the "before" of
# a process per submission forked from a zygote; 398da11 was the fresh worker per submission
BEFORE = "c82da4e"
# the grader whose watchdog read /proc/net/tcp and tcp6 of two namespaces ten times a second
PREVIOUS = "c5795dd"
ANSWERS_PER_COPY = 11  # the questions of exercise set 1
TARGET_SECONDS = 60.0


def grade(folder: Path, out: Path, jobs: int, sandbox: bool,
          home: Path | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (of every process it started) of one `kernelcourse grade`
    run; ``home``: a folder holding another copy of the package, run from there (the "before"
    grader)."""
    import resource

    command = [sys.executable, "-m", "kernelcourse", "grade", str(folder), "--questions", "ex1",
               "--output", str(out), "--jobs", str(jobs), "--no-progress"]
    if not sandbox:
        command.append("--no-sandbox")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # run from ``home`` (first on sys.path, ahead of the editable install's finder)
    done = subprocess.run(command, capture_output=True, text=True, cwd=home or out.parent,
                          env=env)
    seconds = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"grading failed: {done.stderr[-2000:]}")
    rows = json.loads((out / "gradebook.json").read_text())["submissions"]
    # full marks of the set as that grader knows it (15 when issue 20 began, 22 since ex1
    # gained its new questions): every copy must score them all
    wrong = [r["file"] for r in rows if r["total"] != r["possible"] or r["possible"] < 15]
    if wrong:
        raise SystemExit(f"{len(wrong)} copies did not score full marks, e.g. {wrong[0]}")
    return seconds, cpu


def checkout(ref: str, folder: Path) -> Path:
    """The package ``kernelcourse`` as it was at ``ref``, extracted under ``folder``."""
    folder = folder / ref
    folder.mkdir()
    archive = folder / "before.tar"
    with open(archive, "wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", ref, "kernelcourse", "exercises"],
                       stdout=f, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "before")
    return folder / "before"


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=300)
    parser.add_argument("--before", default=BEFORE, help="git commit of the 'before' grader")
    parser.add_argument("--no-before", action="store_true", help="skip the 'before' run")
    parser.add_argument("--previous", default=PREVIOUS,
                        help="git commit of the 'previous' grader")
    parser.add_argument("--no-previous", action="store_true", help="skip the 'previous' run")
    parser.add_argument("--quick", action="store_true",
                        help="only 'previous' and 'after' with the sandbox at --jobs 2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        for i in range(args.copies):
            shutil.copy(SOLVED, folder / f"student{i:03d}.ipynb")
        print(f"{args.copies} copies of the solved exercise set 1 (full marks each); "
              f"{os.cpu_count()} cores; load average {load()} at the start")
        print(f"{'run':<36}{'wall s':>9}{'s / submission':>16}{'ms / answer':>13}"
              f"{'CPU ms / answer':>17}")
        answers = args.copies * ANSWERS_PER_COPY

        def row(name, measured):
            seconds, cpu = measured
            print(f"{name:<36}{seconds:>9.1f}{seconds / args.copies:>16.3f}"
                  f"{1000 * seconds / answers:>13.1f}{1000 * cpu / answers:>17.1f}", flush=True)
            return seconds

        times = {}
        if not args.no_before and not args.quick:
            home = checkout(args.before, Path(tmp))
            out = Path(tmp) / "out-before"
            times["before"] = row(f"before ({args.before}), sandbox, --jobs 2",
                                  grade(folder, out, 2, True, home=home))
        if not args.no_previous:
            home = checkout(args.previous, Path(tmp))
            out = Path(tmp) / "out-previous"
            times["previous"] = row(f"previous ({args.previous}), sandbox, --jobs 2",
                                    grade(folder, out, 2, True, home=home))
        for jobs in (2, 1):
            for sandbox in (True, False):
                if args.quick and (jobs, sandbox) != (2, True):
                    continue
                name = f"after, {'sandbox' if sandbox else '--no-sandbox'}, --jobs {jobs}"
                out = Path(tmp) / f"out-{jobs}-{sandbox}"
                times[sandbox, jobs] = row(name, grade(folder, out, jobs, sandbox))
        print(f"load average {load()} at the end")
        after = times[True, 2]
        for key in ("before", "previous"):
            if key in times:
                print(f"after / {key}, sandbox, --jobs 2: {times[key] / after:.1f}x faster")
        scaled = after * 300 / args.copies
        print(f"300 submissions at --jobs 2, sandbox on: {scaled:.1f} s "
              f"(target {TARGET_SECONDS:.0f} s){'' if scaled <= TARGET_SECONDS else ' MISSED'}")
        per_answer = 1000 * after / (args.copies * ANSWERS_PER_COPY)
        print(f"per graded answer at --jobs 2, sandbox on: {per_answer:.1f} ms (target 20 ms)"
              f"{'' if per_answer <= 20 else ' MISSED'}")
        if args.quick:
            return
        for jobs in (1, 2):
            print(f"sandbox cost at --jobs {jobs}: {times[True, jobs] / times[False, jobs]:.2f}x")
        for sandbox in (True, False):
            label = "sandbox" if sandbox else "--no-sandbox"
            print(f"--jobs 2 speed-up, {label}: {times[sandbox, 1] / times[sandbox, 2]:.2f}x "
                  f"(ideal 2x on two quiet cores)")


if __name__ == "__main__":
    main()
