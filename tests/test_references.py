"""The course stands on its own: nothing students read points outside the repository, and every
lecture notebook and exercise set cites the lecture notes it follows."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STUDENT_FACING = [ROOT / "notebooks", ROOT / "exercises", ROOT / "kernelcourse", ROOT / "README.md"]

# lecture -> words the citation of its notes must contain (author or course, title, institution, year)
CITATIONS = {
    1: ["Kilian Q. Weinberger", "Lecture 13: Kernels", "CS4780", "Cornell University", "2018"],
    2: ["Christopher De Sa", "Lecture 16: Kernels and Feature Extraction", "CS4787", "Cornell University", "2023"],
    3: ["John Shawe-Taylor", "Kernel methods", "Foundations of Artificial Intelligence",
        "University College London", "n.d."],
    4: ["Dual Representations and Kernels", "CIS 520", "University of Pennsylvania", "n.d."],
    5: ["Bagnell", "Shrivastava", "Kernel Machines Review / Functional Gradient Descent", "16-831",
        "Carnegie Mellon University", "n.d."],
    9: ["Gretton", "two-sample test", "Sejdinovic", "Muandet", "2012"],
}


def _files():
    for place in STUDENT_FACING:
        yield from ([place] if place.is_file() else
                    (p for p in place.rglob("*") if p.suffix in (".py", ".ipynb", ".md")))


def test_nothing_students_read_points_at_shared_or_the_notes_files():
    offenders = []
    for path in _files():
        text = path.read_text(encoding="utf-8")
        if "shared/" in text or re.search(r"\b\d{3}_[0-9a-f]{16}\.txt\b", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def _second_cell(path):
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][1]["source"])


@pytest.mark.parametrize("lecture", sorted(CITATIONS))
@pytest.mark.parametrize("folder", ["notebooks", "exercises", "exercises/source"])
def test_each_lecture_cites_its_notes_in_a_references_cell_at_the_top(folder, lecture):
    path = next((ROOT / folder).glob(f"0{lecture}_*.ipynb"))
    cell = _second_cell(path)
    assert cell.startswith("**References.**"), path.name
    for words in CITATIONS[lecture]:
        assert words in cell, (path.name, words)


def test_the_readme_table_cites_every_set_of_notes():
    rows = {int(m.group(1)): m.group(0)
            for m in re.finditer(r"^\| (\d) \|.*$", (ROOT / "README.md").read_text(), re.M)}
    for lecture, words in CITATIONS.items():
        for w in words:
            assert w in rows[lecture], (lecture, w)
