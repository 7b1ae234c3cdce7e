"""Rewrite the check cells of notebooks into the one style of issue 19:

    from kernelcourse.grading import check

    check("ex3.q1")

(`check` then finds the answer by its function's name, and explains a check run before its
answer cell, or after the answer cell failed, instead of raising a NameError). A cell whose code
is an optional `from kernelcourse.grading import ...` line and one `check("<id>", <name>)` call is
rewritten; other cells are left alone. Prints the cells it changed.

    .venv/bin/python tools/check_cells_by_name.py exercises/source/03_*.ipynb notebooks/03_*.ipynb

Afterwards rebuild the student versions (`kernelcourse exercises build ...`); the stored outputs
of the check cells do not change (the line printed is the same).
"""
from __future__ import annotations

import re
import sys

import nbformat

CALL = re.compile(r'^check\(\s*"([^"]+)"\s*(?:,\s*[A-Za-z_]\w*\s*)?\)\s*$')
IMPORT = re.compile(r"^from kernelcourse\.grading import [\w, ]+$")


def rewrite(source: str) -> str | None:
    """The cell's new source, or None when it is not a plain check cell."""
    lines = [line for line in source.strip().split("\n") if line.strip()]
    if not lines or not CALL.match(lines[-1]) or not all(IMPORT.match(x) for x in lines[:-1]):
        return None
    names = {"check"}
    for line in lines[:-1]:
        names |= {n.strip() for n in line.split("import", 1)[1].split(",")}
    question = CALL.match(lines[-1]).group(1)
    new = f"from kernelcourse.grading import {', '.join(sorted(names))}\n\ncheck(\"{question}\")"
    return None if new == source else new


def main(paths) -> int:
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        changed = 0
        for cell in nb.cells:
            if cell.cell_type == "code":
                new = rewrite(cell.source)
                if new is not None:
                    cell.source = new
                    changed += 1
        if changed:
            nbformat.write(nb, path)
        print(f"{path}: {changed} check cell(s) rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
