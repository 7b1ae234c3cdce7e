#!/usr/bin/env python3
"""The course's build file: every command a student, an instructor or CI needs.

Only Python 3.11 and pip are assumed. Each command creates the virtual
environment ``.venv`` when it is missing (or when ``pyproject.toml`` changed
since it was built) and then runs inside it::

    python3 tasks.py lab         # set up, then open the course in JupyterLab
    python3 tasks.py test        # set up, then run every test (unit, notebooks, browser)
    python3 tasks.py notebooks   # re-execute the notebooks and store their outputs
    python3 tasks.py exercises   # regenerate the student exercise notebooks from the sources
    python3 tasks.py bench       # run the benchmarks (on demand; prints ratios)

Extra arguments after ``test`` go to pytest, e.g. ``python3 tasks.py test -k ridge``.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".kernelcourse-installed"


def _requirements_hash() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def setup() -> None:
    """Create ``.venv`` and install the course with its test tools, when needed."""
    if not PYTHON.exists():
        print(f"[tasks] creating the virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    if STAMP.exists() and STAMP.read_text() == _requirements_hash():
        return
    print("[tasks] installing kernelcourse and its dependencies (about a minute the first time)",
          flush=True)
    run([PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    # not --quiet: pip's "Collecting ..." lines show the install's progress
    run([PYTHON, "-m", "pip", "install", "--progress-bar", "off", "-e", f"{ROOT}[dev]"])
    STAMP.write_text(_requirements_hash())


def run(cmd, **kwargs) -> None:
    result = subprocess.run([str(c) for c in cmd], cwd=kwargs.pop("cwd", ROOT), **kwargs)
    if result.returncode != 0:
        sys.exit(result.returncode)


def cmd_lab(args: list[str]) -> None:
    setup()
    extra = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    run([BIN / "jupyter", "lab", "--notebook-dir", ROOT / "notebooks", *extra, *args])


def cmd_test(args: list[str]) -> None:
    setup()
    run([PYTHON, "-m", "pytest", *args])


def cmd_notebooks(args: list[str]) -> None:
    setup()
    run([PYTHON, ROOT / "tools" / "execute_notebooks.py", *args])


def cmd_exercises(args: list[str]) -> None:
    setup()
    run([PYTHON, "-m", "kernelcourse", "exercises", "build", *args])


def cmd_bench(args: list[str]) -> None:
    setup()
    scripts = sorted((ROOT / "benchmarks").glob("bench_*.py"))
    chosen = [s for s in scripts if not args or any(a in s.name for a in args)]
    for script in chosen:
        print(f"\n=== {script.name}", flush=True)
        run([PYTHON, "-u", script])  # unbuffered: each row shows as soon as it is measured


COMMANDS = {
    "lab": cmd_lab,
    "test": cmd_test,
    "notebooks": cmd_notebooks,
    "exercises": cmd_exercises,
    "bench": cmd_bench,
    "setup": lambda args: setup(),
}


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        sys.exit(0 if argv[:1] in ([], ["-h"], ["--help"]) else 2)
    COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
