"""Grading a class of challenge submissions (CSV): the issue's target is 60 within 10 s.

Makes a challenge (600 training and 400 test sequences, as ``kernelcourse challenge make``
does by default), writes 60 predictions files for 20 students (three a day each, one of them
malformed per student so every path of the reading runs), and times, in one run:

* **grade**: :func:`~kernelcourse.grading.challenge.grade_challenge` plus the outputs (the
  gradebook, the leaderboard page, one Gradescope results file per submission);
* **reference**: reading the same 60 files with the ``csv`` module alone (the least any
  grader must do), so the ratio grade / reference says what the strict checks and the
  outputs cost on this machine now.

Prints the seconds, the seconds per submission and the ratio; the making of the challenge
(its baselines) is timed apart. The load average is printed: times are comparable only
within one run.
Run: .venv/bin/python benchmarks/bench_challenge.py [--submissions 60]
"""
import argparse
import csv
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from kernelcourse.grading.challenge import grade_challenge, make_challenge, read_key, write_outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        make_challenge(tmp / "ch", seed=0)
        print(f"challenge make (600 + 400 sequences, both baselines): "
              f"{time.perf_counter() - t:.2f} s")
        key = read_key(tmp / "ch")
        truth = np.array([key["labels_by_id"][i] for i in key["ids"]])
        rng = np.random.default_rng(0)
        subs = tmp / "subs"
        subs.mkdir()
        day = 1_795_000_000
        for n in range(args.submissions):
            student, attempt = divmod(n, 3)
            pred = np.where(rng.random(len(truth)) < 0.3, -truth, truth)
            lines = [f"{i},{int(v)}" for i, v in zip(key["ids"], pred)]
            if attempt == 2:
                lines = lines[:-1]           # one malformed file per student
            path = subs / f"s{student:02d}_{attempt}.csv"
            path.write_text("id,label\n" + "\n".join(lines) + "\n")
            os.utime(path, (day + 60 * n, day + 60 * n))
        grade_times, ref_times = [], []
        for r in range(args.repeat):
            t = time.perf_counter()
            for path in sorted(subs.iterdir()):
                with open(path, newline="") as handle:
                    list(csv.reader(handle))
            ref_times.append(time.perf_counter() - t)
            t = time.perf_counter()
            entries, key2 = grade_challenge(subs, tmp / "ch")
            write_outputs(entries, key2, tmp / f"out{r}", final=False, possible=10.0)
            grade_times.append(time.perf_counter() - t)
        scored = sum(e.status == "scored" for e in entries)
        assert scored == 2 * args.submissions // 3, scored
        g, ref = min(grade_times), min(ref_times)
        print(f"grade {args.submissions} CSV submissions ({scored} scored, "
              f"{len(entries) - scored} refused), best of {args.repeat}: {g:.3f} s "
              f"({1000 * g / args.submissions:.1f} ms each; target 10 s)")
        print(f"reference (csv.reader over the same files): {ref:.4f} s; "
              f"ratio grade / reference: {g / ref:.1f}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
