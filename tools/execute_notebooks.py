#!/usr/bin/env python3
"""Re-execute notebooks and store their outputs, deterministically.

    python3 tasks.py notebooks                      # every notebook of the course
    python3 tasks.py notebooks notebooks/01_*.ipynb # just these

Paths may be notebooks or folders. With no path: notebooks/, exercises/source/
and exercises/. See kernelcourse/_execute.py for what makes a run repeatable.
"""
import sys
from pathlib import Path

from kernelcourse._execute import execute_notebook

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = [ROOT / "notebooks", ROOT / "exercises" / "source", ROOT / "exercises"]


def notebooks_in(paths):
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(p.glob("*.ipynb"))
        elif p.suffix == ".ipynb" and p.exists():
            yield p
        else:
            sys.exit(f"not a notebook or folder of notebooks: {p}")


def main(argv):
    found = list(notebooks_in(argv or DEFAULT))
    for i, path in enumerate(found, 1):
        print(f"[{i}/{len(found)}] executing {path} ...", end=" ", flush=True)
        _, seconds = execute_notebook(path)
        print(f"{seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
