"""The first check() after a kernel starts: before and after issue 40's lazy imports, in one run.

A notebook's first code cell imports ``kernelcourse.grading``; its first check then loads the
question's lecture and what its references use. Before issue 40 that check loaded every
lecture's questions (to arm the tripwires on the grader's own answers) and, through the
estimator classes, scikit-learn. Each measurement is a fresh Python process that runs, as the
exercise notebook does, the solution's answer cell in ``__main__``, then
``from kernelcourse.grading import check`` and ``check(question_id)``; the "before" processes
import the package as it was at ``--before`` (extracted with ``git archive``), the "after"
ones this tree's. The two kinds run in turns, so a busy machine hurts both alike.

Prints, per question (the first of each of the ten sets), the wall and CPU seconds of the
import and of the check, the ratio of the check's wall time before to after, whether
scikit-learn was loaded, which of scipy's slow parts (sparse, stats, optimize) were, how many
question modules were, and the machine's load average. The verdict printed by the check must be the
same before and after, or the benchmark fails.
Run: .venv/bin/python benchmarks/bench_first_check.py [--before REF] [--repeat N] [QUESTION ...]
(``--before`` names any commit: the start of issue 40 by default, or main's head to see one
change.)
(or python3 tasks.py bench first_check)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the commit this work started from: the package whose first check loaded every lecture
BEFORE = "3ad397a"
QUESTIONS = tuple(f"ex{n}.q1" for n in range(1, 11))

CHILD = r"""
import json, sys, time
qid, cell = sys.argv[1], sys.argv[2]
import linecache  # as IPython does, so that the grader can read the answer's source
linecache.cache["<answer cell>"] = (len(cell), None, cell.splitlines(True), "<answer cell>")
exec(compile(cell, "<answer cell>", "exec"), globals())    # the answer cell, run in __main__
import io, contextlib
start, cpu = time.perf_counter(), time.process_time()
from kernelcourse.grading import check
imported, imported_cpu = time.perf_counter(), time.process_time()
out = io.StringIO()
with contextlib.redirect_stdout(out):
    check(qid)
done, done_cpu = time.perf_counter(), time.process_time()
import kernelcourse
print(json.dumps({
    "import": imported - start, "import_cpu": imported_cpu - cpu,
    "check": done - imported, "check_cpu": done_cpu - imported_cpu,
    "sklearn": "sklearn" in sys.modules,
    "scipy_more": "+".join(m.split(".")[1] for m in ("scipy.sparse", "scipy.stats", "scipy.optimize")
                           if m in sys.modules) or "-",
    "question_modules": sum(m.startswith("kernelcourse.grading.questions.lecture")
                            for m in sys.modules),
    "package": kernelcourse.__file__, "verdict": out.getvalue().strip()}))
"""


def answer_cell(question_id: str) -> str:
    """The solution's answer cell of a question, from the exercise source notebook."""
    number = int(question_id.split(".")[0][2:])
    source = next((ROOT / "exercises" / "source").glob(f"{number:02d}_*.ipynb"))
    for cell in json.loads(source.read_text())["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and text.startswith(f"# ANSWER {question_id}\n"):
            return text
    raise SystemExit(f"no answer cell for {question_id} in {source.name}")


def first_check(question_id: str, cell: str, package_root: str | None) -> dict:
    env = dict(os.environ)
    if package_root:  # found before the editable install of this tree
        env["PYTHONPATH"] = package_root
    out = subprocess.run([sys.executable, "-c", CHILD, question_id, cell], capture_output=True,
                         text=True, env=env, cwd=tempfile.gettempdir())
    if out.returncode:
        raise SystemExit(f"{question_id}: the check failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("questions", nargs="*", default=list(QUESTIONS))
    parser.add_argument("--before", default=BEFORE, help="the commit to compare with")
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per question")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "kernelcourse"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        rows = []
        for qid in args.questions:
            cell = answer_cell(qid)
            runs = {"before": [], "after": []}
            for _ in range(args.repeat):
                runs["before"].append(first_check(qid, cell, tmp))
                runs["after"].append(first_check(qid, cell, None))
            best = {k: min(v, key=lambda r: r["check"]) for k, v in runs.items()}
            assert best["before"]["package"].startswith(tmp), best["before"]["package"]
            assert not best["after"]["package"].startswith(tmp), best["after"]["package"]
            verdicts = {r["verdict"] for v in runs.values() for r in v}
            if len(verdicts) != 1:
                raise SystemExit(f"{qid}: the verdict changed: {sorted(verdicts)}")
            rows.append((qid, best))
    print(f"first check() in a fresh process, best of {args.repeat}; before = {args.before}")
    print(f"{'question':9} {'version':7} {'import s':>9} {'(cpu)':>7} {'check s':>8} {'(cpu)':>7} "
          f"{'sklearn':>8} {'scipy parts':>23} {'question modules':>17}")
    for qid, best in rows:
        for version in ("before", "after"):
            r = best[version]
            print(f"{qid:9} {version:7} {r['import']:9.2f} {r['import_cpu']:7.2f} {r['check']:8.2f} "
                  f"{r['check_cpu']:7.2f} {str(r['sklearn']):>8} {r.get('scipy_more', '?'):>23} "
                  f"{r['question_modules']:17d}")
        b, a = best["before"], best["after"]
        print(f"{qid:9} ratio before/after: check {b['check'] / a['check']:.1f}x wall, "
              f"{b['check_cpu'] / a['check_cpu']:.1f}x cpu; import and check "
              f"{(b['import'] + b['check']) / (a['import'] + a['check']):.1f}x wall")
    print("verdicts the same before and after:", "; ".join(best["after"]["verdict"].split("\n")[0]
                                                          for _, best in rows))
    print("load average (1, 5, 15 min):", " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
