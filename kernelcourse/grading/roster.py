"""Who is who: a roster CSV and file-name patterns map submitted files to students.

The roster is a CSV file with a header and at least the columns ``id``, ``name`` and
``email``; the optional columns ``sis_user_id``, ``sis_login_id``, ``section`` (for the Canvas
export) and ``idnumber`` (for the Moodle export) are kept.

A pattern is a regular expression over a submission's file name (and, for Moodle, the name of
the folder it sits in) with named groups; ``id``, ``email``, ``login`` or ``name`` pick the
student. Two patterns are ready:

* ``canvas``: Canvas names each downloaded submission ``<lastnamefirstname>_<user id>_<attachment
  id>_<original file name>``, with ``_LATE`` after the name for late work
  (``smithjane_LATE_4021_981234_ex1.ipynb``); the user id is matched to the roster's ``id``,
  else the name part to the roster's names written in lower case without spaces, surname first.
* ``moodle``: Moodle names each one ``<Full Name>_<participant id>_assignsubmission_file_<original
  file name>`` (or puts the file in a folder of that name); the participant id is Moodle's own,
  so the full name is matched to the roster's ``name``.

:func:`match` returns the students of the matched files, the files it could not match and the
students with no submission.
"""
from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Student", "read_roster", "match", "PATTERNS", "Matching"]

PATTERNS = {
    "canvas": r"^(?P<login>[a-z]+)(?:_LATE)?_(?P<id>\d+)_(?P<attachment>\d+)_(?P<original>.+)$",
    "moodle": r"^(?P<name>.+?)_(?P<participant>\d+)_assignsubmission_(?:file|onlinetext)_"
              r"(?P<original>.*)$",
}


@dataclass(frozen=True)
class Student:
    """One line of the roster."""

    id: str
    name: str
    email: str = ""
    extra: tuple = ()  # (column, value) pairs of the optional columns

    def get(self, column: str, default: str = "") -> str:
        return dict(self.extra).get(column, default)


def read_roster(path) -> list[Student]:
    """The students of a roster CSV (columns id, name, email; more are kept)."""
    path = Path(path)
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        missing = [c for c in ("id", "name", "email") if c not in header]
        if missing:
            raise ValueError(f"the roster {path} needs the columns id, name and email; "
                             f"missing {', '.join(missing)} (found {', '.join(header) or 'none'})")
        students, seen = [], set()
        for line, raw in enumerate(reader, start=2):
            row = {(k or "").strip().lower(): (v or "").strip() for k, v in raw.items()}
            if not row.get("id"):
                raise ValueError(f"the roster {path}, line {line}: empty id")
            if row["id"] in seen:
                raise ValueError(f"the roster {path}, line {line}: id {row['id']!r} twice")
            seen.add(row["id"])
            extra = tuple((k, v) for k, v in row.items() if k not in ("id", "name", "email") and v)
            students.append(Student(row["id"], row.get("name", ""), row.get("email", ""), extra))
    return students


def _plain(text: str) -> str:
    """Lower case letters only, accents dropped: 'Zoë O'Neil' -> 'zoeoneil'."""
    text = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z]", "", text.encode("ascii", "ignore").decode().lower())


def _canvas_login(name: str) -> str:
    """Canvas's name part: surname then given names (the last word is the surname)."""
    words = name.split()
    return _plain(words[-1] + "".join(words[:-1])) if words else ""


@dataclass
class Matching:
    students: dict = field(default_factory=dict)   # file -> Student
    unmatched: list = field(default_factory=list)   # files no student was found for
    missing: list = field(default_factory=list)     # students with no file

    def lines(self) -> list[str]:
        out = [f"{len(self.students)} submission(s) matched to the roster"]
        out += [f"  no student for the file {Path(f).name}" for f in self.unmatched]
        out += [f"  no submission from {s.name} ({s.id})" for s in self.missing]
        return out


def match(files, students, pattern: str = "canvas") -> Matching:
    """Map each file to a student by ``pattern`` (``canvas``, ``moodle`` or a regular
    expression with named groups ``id``, ``email``, ``login`` or ``name``)."""
    regex = re.compile(PATTERNS.get(pattern, pattern))
    if not set(regex.groupindex) & {"id", "email", "login", "name"}:
        raise ValueError(f"the pattern {pattern!r} has none of the named groups id, email, "
                         f"login, name")
    by_id = {s.id: s for s in students}
    by_email = {s.email.lower(): s for s in students if s.email}
    by_name = {_plain(s.name): s for s in students}
    by_login = {_canvas_login(s.name): s for s in students}
    by_login.update({_plain(s.get("sis_login_id")): s for s in students if s.get("sis_login_id")})
    result = Matching()
    for file in files:
        path = Path(file)
        found = None
        for text in (path.name, path.parent.name):
            m = regex.match(text)
            if not m:
                continue
            g = m.groupdict()
            found = (by_id.get(g.get("id") or "") or by_email.get((g.get("email") or "").lower())
                     or by_login.get(_plain(g.get("login") or "") or "-")
                     or by_name.get(_plain(g.get("name") or "") or "-"))
            if found:
                break
        if found is None:
            result.unmatched.append(str(file))
        else:
            result.students[str(file)] = found
    matched = {s.id for s in result.students.values()}
    result.missing = [s for s in students if s.id not in matched]
    return result
