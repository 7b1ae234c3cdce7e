"""Put an exercise set's questions in the order of the lecture's sections, each heading carrying
its question id: ``## 1.5 A Gram matrix of the RBF kernel (ex1.q5, 2 points)``.

    .venv/bin/python tools/order_exercise_headings.py exercises/source/01_*.ipynb

A block is a ``## `` heading with every cell up to the next one; a block without an answer cell
(a worked example) stays after the block before it, and the blocks after the last answer ("Where
to go next") stay at the end. Blocks are sorted by
their heading's first section number (stable); a heading whose range spans three or more sections
(a review such as "6.1 to 6.5 True or false") goes after its last section. Rebuild the student version
afterwards (``python3 tasks.py exercises``)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernelcourse.grading.command.pipeline import order_by_sections  # noqa: E402

if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(p)
        for line in order_by_sections(p):
            print("  ", line)
