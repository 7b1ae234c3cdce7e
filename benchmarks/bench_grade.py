"""`kernelcourse grade` on a class: before and after, the sandbox's cost, what --jobs buys.

Grades N copies (default 300) of the solved exercise set 1 with the real command, in one run:

* **before**: the grader as it was before one sealed worker per job (a fresh sandboxed worker
  per submission, whose warm-up imported the whole package), read from git at commit
  ``--before`` into a temporary folder and run from there with the same interpreter, sandbox
  on, ``--jobs 2``;
* **previous**: the grader at commit ``--previous`` (by default the one before issue 41's
  work on the time per answer: the prebuilt seccomp filter, the forbidden objects found once
  per run, the answer's end seen without polling), sandbox on, ``--jobs 2``;
* **after**: this checkout's grader, with the sandbox and with --no-sandbox, at --jobs 1 and
  --jobs 2 (``--quick``: previous and after with the sandbox at ``--jobs 2`` only).

Prints the wall time of each, the seconds per submission, the wall time per graded answer and
the CPU time per answer (of the grader and every process it started, the sandbox's included:
read from a cgroup of the benchmark's own where one can be made, since a sandbox killed before
it is reaped never reaches ``getrusage``; on a busy machine a steadier figure than the wall
time), the speed-up of after over before, the sandbox's cost (sandboxed / unsandboxed at the
same --jobs) and the speed-up of --jobs 2 over --jobs 1.

**Start-up and the time per answer.** Previous and after, sandbox on at ``--jobs 2``, also grade
a short class (``--short`` copies, default 10): from the two runs, the time of a run is split
into a start-up (imports, the question bank, the sandbox's probe, each worker's warm-up) and
a time per submission, and the figure per answer is given for a class of ``--class-size``
submissions (default 200) with the start-up spread over it, beside the wall time per answer
of the N copies themselves. The issue's target: at most 20 ms per graded answer at --jobs 2,
sandbox on (and 300 copies in at most 60 s). Every run must give every copy full marks (15
points before, 22 after: ex1 has grown), or the benchmark fails. The machine's load average is
printed before and after: the times are only comparable within one run.
Run: .venv/bin/python benchmarks/bench_grade.py [--copies N] [--before REF | --no-before]
[--previous REF | --no-previous] [--quick] [--short S] [--class-size C]
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
# the grader before issue 41's work on the time per answer (a seccomp filter built anew in
# every answer's process, the forbidden objects found anew for every answer, the answer's end
# polled every 5 ms)
PREVIOUS = "95fb8f1"
ANSWERS_PER_COPY = 11  # the questions of exercise set 1
TARGET_SECONDS = 60.0
TARGET_MS = 20.0  # per graded answer, at --jobs 2, sandbox on


class CpuMeter:
    """The CPU time of a process tree, read from a cgroup the benchmark makes for it (cgroup
    v2's ``cpu.stat``, else cgroup v1's ``cpuacct.usage``), so that every process the grader
    starts counts, reaped or not; where no cgroup can be made (no permission), what
    ``getrusage`` sees of the processes that were reaped (``kind`` says which)."""

    def __init__(self):
        self.dir, self.kind = None, "getrusage (reaped processes only)"
        for kind, mount, name in (("cgroup v2", self._mount("cgroup2", ""), ""),
                                  ("cgroup v1", self._mount("cgroup", "cpuacct"), "cpuacct")):
            if mount is None:
                continue
            own = self._own(name)
            if own is None:
                continue
            parent = Path(mount + own.rstrip("/"))
            if kind == "cgroup v2" and self._caps_memory(parent):
                # a cgroup of ours would take from the grader the cgroup v2 it caps memory
                # with (it makes one below its own, where the memory controller is enabled)
                continue
            path = parent / f"bench-grade-{os.getpid()}"
            try:
                path.mkdir()
            except OSError:
                continue
            self.dir, self.kind = path, kind
            if self.read() is None:
                self.close()
                continue
            return

    @staticmethod
    def _mount(fstype: str, option: str) -> str | None:
        try:
            for line in Path("/proc/mounts").read_text().splitlines():
                fields = line.split()
                if fields[2] == fstype and (not option or option in fields[3].split(",")):
                    return fields[1]
        except (OSError, IndexError):
            pass
        return None

    @staticmethod
    def _caps_memory(parent: Path) -> bool:
        try:
            return "memory" in (parent / "cgroup.subtree_control").read_text().split()
        except OSError:
            return False

    @staticmethod
    def _own(controller: str) -> str | None:
        try:
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                _, names, path = line.split(":", 2)
                if (controller and controller in names.split(",")) or \
                        (not controller and not names):
                    return path
        except (OSError, ValueError):
            pass
        return None

    def read(self) -> float | None:
        """CPU seconds of the processes that were in the cgroup (None without one)."""
        if self.dir is None:
            return None
        try:
            if self.kind == "cgroup v2":
                for line in (self.dir / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec"):
                        return int(line.split()[1]) / 1e6
                return None
            return int((self.dir / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def enter(self) -> None:
        """In the child, before exec: join the cgroup."""
        if self.dir is not None:
            (self.dir / "cgroup.procs").write_text("0")

    def close(self) -> None:
        if self.dir is not None:
            try:
                self.dir.rmdir()
            except OSError:
                pass
            self.dir = None


METER: CpuMeter | None = None


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
    metered = METER.read() if METER is not None else None
    start = time.perf_counter()
    # run from ``home`` (first on sys.path, ahead of the editable install's finder)
    done = subprocess.run(command, capture_output=True, text=True, cwd=home or out.parent,
                          env=env, preexec_fn=METER.enter if metered is not None else None)
    seconds = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime
    if metered is not None:
        # the cgroup's count: the sandbox's processes too, also those killed before reaped
        cpu = METER.read() - metered
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


def split(long: tuple[float, float], short: tuple[float, float], n: int,
          s: int) -> tuple[float, float]:
    """A run's time as ``start-up + n * per submission``, from a run of ``n`` copies and one
    of ``s``: ``(start-up seconds, seconds per submission)``."""
    per = (long - short) / (n - s)
    return short - s * per, per


def main():
    global METER
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=300)
    parser.add_argument("--before", default=BEFORE, help="git commit of the 'before' grader")
    parser.add_argument("--no-before", action="store_true", help="skip the 'before' run")
    parser.add_argument("--previous", default=PREVIOUS,
                        help="git commit of the 'previous' grader")
    parser.add_argument("--no-previous", action="store_true", help="skip the 'previous' run")
    parser.add_argument("--quick", action="store_true",
                        help="only 'previous' and 'after' with the sandbox at --jobs 2")
    parser.add_argument("--short", type=int, default=10,
                        help="copies of the short class that splits off the start-up")
    parser.add_argument("--class-size", type=int, default=200,
                        help="the class the start-up is spread over")
    args = parser.parse_args()
    if not 0 < args.short < args.copies:
        parser.error(f"--short must lie between 0 and --copies ({args.copies}); got {args.short}")
    METER = CpuMeter()
    try:
        run(args)
    finally:
        METER.close()


def run(args) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        folder, short = Path(tmp) / "submissions", Path(tmp) / "short"
        folder.mkdir()
        short.mkdir()
        for i in range(args.copies):
            shutil.copy(SOLVED, folder / f"student{i:03d}.ipynb")
            if i < args.short:
                shutil.copy(SOLVED, short / f"student{i:03d}.ipynb")
        print(f"{args.copies} copies of the solved exercise set 1 (full marks each); "
              f"{os.cpu_count()} cores; load average {load()} at the start; CPU time read "
              f"from {METER.kind}")
        print(f"{'run':<44}{'wall s':>9}{'s / submission':>16}{'ms / answer':>13}"
              f"{'CPU ms / answer':>17}")

        def row(name, measured, copies=args.copies):
            seconds, cpu = measured
            answers = copies * ANSWERS_PER_COPY
            print(f"{name:<44}{seconds:>9.1f}{seconds / copies:>16.3f}"
                  f"{1000 * seconds / answers:>13.1f}{1000 * cpu / answers:>17.1f}", flush=True)
            return measured

        times = {}
        homes = {}
        if not args.no_before and not args.quick:
            home = checkout(args.before, Path(tmp))
            out = Path(tmp) / "out-before"
            times["before"] = row(f"before ({args.before}), sandbox, --jobs 2",
                                  grade(folder, out, 2, True, home=home))
        if not args.no_previous:
            homes["previous"] = checkout(args.previous, Path(tmp))
        homes["after"] = None
        # previous and after, sandbox on at --jobs 2: the class, then the short class
        for copies, where in ((args.copies, folder), (args.short, short)):
            for key, home in homes.items():
                name = (f"previous ({args.previous})" if key == "previous" else "after") + \
                    f", sandbox, --jobs 2, {copies} copies"
                out = Path(tmp) / f"out-{key}-{copies}"
                times[key, copies] = row(name, grade(where, out, 2, True, home=home), copies)
        for jobs in (2, 1):
            for sandbox in (True, False):
                if args.quick or (jobs, sandbox) == (2, True):
                    continue
                name = f"after, {'sandbox' if sandbox else '--no-sandbox'}, --jobs {jobs}"
                out = Path(tmp) / f"out-{jobs}-{sandbox}"
                times[sandbox, jobs] = row(name, grade(folder, out, jobs, sandbox))
        times[True, 2] = times["after", args.copies]
        print(f"load average {load()} at the end")
        after = times[True, 2][0]
        for key in ("before", "previous"):
            found = times.get(key) or times.get((key, args.copies))
            if found:
                print(f"after / {key}, sandbox, --jobs 2: {found[0] / after:.2f}x faster "
                      f"(wall), {found[1] / times[True, 2][1]:.2f}x less CPU")
        scaled = after * 300 / args.copies
        print(f"300 submissions at --jobs 2, sandbox on: {scaled:.1f} s "
              f"(target {TARGET_SECONDS:.0f} s){'' if scaled <= TARGET_SECONDS else ' MISSED'}")
        print(f"per graded answer at --jobs 2, sandbox on (target {TARGET_MS:.0f} ms):")
        for key in homes:
            long, brief = times[key, args.copies], times[key, args.short]
            wall = 1000 * long[0] / (args.copies * ANSWERS_PER_COPY)
            start, per = split(long[0], brief[0], args.copies, args.short)
            cpu_start, cpu_per = split(long[1], brief[1], args.copies, args.short)
            if per <= 0 or cpu_per <= 0 or start < 0 or cpu_start < 0:
                print(f"  {key:<9} wall {wall:.1f} ms over {args.copies} copies"
                      f"{'' if wall <= TARGET_MS else ' (MISSED)'}; no split into "
                      f"start-up and time per answer: the short class took longer per "
                      f"submission than the whole one (the machine's load changed between "
                      f"them: run again on a quiet machine, or with more --copies)")
                continue
            spread = 1000 * (start + args.class_size * per) / (args.class_size * ANSWERS_PER_COPY)
            cpu_spread = 1000 * (cpu_start + args.class_size * cpu_per) / \
                (args.class_size * ANSWERS_PER_COPY)
            print(f"  {key:<9} wall {wall:.1f} ms over {args.copies} copies"
                  f"{'' if wall <= TARGET_MS else ' (MISSED)'}; start-up {start:.1f} s wall "
                  f"({cpu_start:.1f} s CPU), then {1000 * per / ANSWERS_PER_COPY:.1f} ms wall "
                  f"({1000 * cpu_per / ANSWERS_PER_COPY:.1f} ms CPU) per answer; a class of "
                  f"{args.class_size}: {spread:.1f} ms wall"
                  f"{'' if spread <= TARGET_MS else ' (MISSED)'}, {cpu_spread:.1f} ms CPU "
                  f"per answer")
        if args.quick:
            return
        for jobs in (1, 2):
            print(f"sandbox cost at --jobs {jobs}: "
                  f"{times[True, jobs][0] / times[False, jobs][0]:.2f}x")
        for sandbox in (True, False):
            label = "sandbox" if sandbox else "--no-sandbox"
            print(f"--jobs 2 speed-up, {label}: "
                  f"{times[sandbox, 1][0] / times[sandbox, 2][0]:.2f}x (ideal 2x on two quiet "
                  f"cores)")


if __name__ == "__main__":
    main()
