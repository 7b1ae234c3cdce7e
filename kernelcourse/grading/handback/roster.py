"""Who is who: a roster and file-name patterns map submitted files to students, exactly.

Three rosters are read as they come (:func:`read_roster`):

* the course's own CSV, with a header and at least the columns ``id`` and ``name``
  (``email``, ``sis_user_id``, ``sis_login_id``, ``section``, ``idnumber`` and ``username``
  are kept when present);
* **Canvas's gradebook export** (Grades, Export): the columns ``Student`` (the sortable name,
  "Surname, Given"), ``ID`` (the Canvas user id), ``SIS User ID``, ``SIS Login ID``,
  ``Section``, then one column per assignment headed ``Assignment Name (assignment id)``, and
  under the header a ``Points Possible`` line (and, for manually posted assignments, a
  ``Manual Posting`` line), which are not students. Its assignment columns are kept
  (:attr:`Roster.canvas_assignments`) so that the export can name the right column;
* **Moodle's grading worksheet** (the assignment's "Download grading worksheet"): the columns
  ``Identifier`` ("Participant 123", Moodle's participant id, the number Moodle also puts in
  the name of each downloaded submission), ``Full name``, ``Email address``, ``Status``,
  ``Grade``, ..., ``Feedback comments``. Its columns are kept so that the export can be that
  worksheet, filled in, which Moodle's "Upload grading worksheet" matches on ``Identifier``.

Keys are exact. A roster with two students under one key (id, email, SIS ids, username,
Moodle participant) is refused. Names are compared after Unicode NFC normalisation, case
folding and collapsing of white space only: letters that merely look alike (a fullwidth
"Ａｄａ", a Cyrillic "а") stay different, so no name is folded into another student's, and a
name two students share matches neither.

A pattern is a regular expression over a file name (or over the name of the folder it sits
in) with named groups ``id``, ``email``, ``login``, ``name`` or ``participant``; ``late``
marks a late submission. Two are ready:

* ``canvas``: Canvas names each downloaded submission ``<name part>[_LATE]_<user id>_<attachment
  id>_<file name>`` (``anon_<anonymous id>`` instead of the name part and the user id under
  anonymous grading). The user id is matched to the roster's ``id`` (an anonymous id to a
  column ``anonymous_id``); the name part, which a student may choose, only decides between
  two readings of a name whose name part holds digits
  (:func:`~kernelcourse.grading.handback.names.canvas_student`).
* ``moodle``: Moodle names each submission ``<Full Name>_<participant id>_assignsubmission_file``
  and puts the student's files in a folder of that name (or, in a flat download, prefixes each
  file with it). The outermost folder of that form, which Moodle names, is trusted over the
  sub-folders and the file name, which the student chooses. The participant id is matched to
  a Moodle worksheet's ``Identifier`` (or a course roster's column ``participant``); the
  name is never matched on.

:func:`match` returns the students of the matched files, the files it could not match (each
with the reason), the students with no submission, and the students claimed by several files
(reported, never merged: their grade is exported by no LMS file until one file is chosen).
"""
from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .names import canvas_name_part, canvas_student, moodle_name_part, moodle_reading

__all__ = ["Student", "Roster", "read_roster", "match", "PATTERNS", "Matching",
           "check_pattern", "same_name"]

#: The platforms' names as regular expressions (what ``canvas`` and ``moodle`` accept; the
#: reading itself is :mod:`~kernelcourse.grading.handback.names`'s).
PATTERNS = {
    "canvas": r"^(?:(?P<name>.*)_)?(?P<late>LATE_)?(?:anon_)?(?P<id>\w+)_(?P<attachment>\d+)_"
              r"(?P<original>.+)$",
    "moodle": r"^(?P<name>[^_]*)_(?P<participant>\d+)_assignsubmission_(?:file|onlinetext)_?"
              r"(?P<original>.*)$",
}
_KEYS = {"id", "email", "login", "name", "participant"}


@dataclass(frozen=True)
class Student:
    """One line of the roster."""

    id: str
    name: str
    email: str = ""
    extra: tuple = ()  # (column, value) pairs of the other columns

    def get(self, column: str, default: str = "") -> str:
        return dict(self.extra).get(column, default)


class Roster(list):
    """The students (a list), and what the file said beside them: ``kind`` (``course``,
    ``canvas`` or ``moodle``), ``path``, ``canvas_assignments`` (``{name: id}`` of a Canvas
    export's assignment columns) and ``columns`` (a Moodle worksheet's header)."""

    def __init__(self, students=(), *, kind="course", path="", canvas_assignments=None,
                 columns=None):
        super().__init__(students)
        self.kind, self.path = kind, str(path)
        self.canvas_assignments = dict(canvas_assignments or {})
        self.columns = list(columns or [])


def same_name(text: str) -> str:
    """The form in which two names are compared: NFC, case folded, white space collapsed.
    Nothing else is folded (no compatibility mapping, no accents dropped)."""
    text = unicodedata.normalize("NFC", str(text))
    return " ".join(text.casefold().split())


_CANVAS_ASSIGNMENT = re.compile(r"^(?P<name>.*\S)\s+\((?P<id>\d+)\)$")
_CANVAS_NOT_STUDENTS = ("points possible", "manual posting")


def _read_rows(path: Path):
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except UnicodeDecodeError as exc:
        raise ValueError(f"the roster {path} is not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None
    except OSError as exc:
        raise ValueError(f"cannot read the roster {path}: {exc.strerror or exc}") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise ValueError(f"the roster {path} is empty")
    return [h.strip() for h in rows[0]], rows[1:]


def read_roster(path) -> Roster:
    """The students of a roster: the course's CSV, Canvas's gradebook export or Moodle's
    grading worksheet (told apart by their headers)."""
    path = Path(path)
    header, body = _read_rows(path)
    lower = [h.lower() for h in header]
    if "student" in lower and "id" in lower and "name" not in lower:
        roster = _read_canvas(path, header, body)
    elif "identifier" in lower and "full name" in lower:
        roster = _read_moodle(path, header, body)
    else:
        roster = _read_course(path, header, body)
    _check_unique(roster)
    return roster


def _cells(header, row, line, path):
    if len(row) > len(header):
        raise ValueError(f"the roster {path}, line {line}: {len(row)} fields for "
                         f"{len(header)} columns")
    return {h: (row[i].strip() if i < len(row) else "") for i, h in enumerate(header)}


def _read_course(path, header, body) -> Roster:
    lower = [h.lower() for h in header]
    missing = [c for c in ("id", "name") if c not in lower]
    if missing:
        raise ValueError(f"the roster {path} needs the columns id and name (and email); "
                         f"missing {', '.join(missing)} (found {', '.join(lower) or 'none'}); "
                         f"Canvas's gradebook export and Moodle's grading worksheet are read "
                         f"as they come")
    if len(set(lower)) != len(lower):
        raise ValueError(f"the roster {path} has a column twice: {', '.join(lower)}")
    students = []
    for line, raw in enumerate(body, start=2):
        row = _cells(lower, raw, line, path)
        if not row["id"]:
            raise ValueError(f"the roster {path}, line {line}: empty id")
        extra = tuple((k, v) for k, v in row.items() if k not in ("id", "name", "email") and v)
        students.append(Student(row["id"], row["name"], row.get("email", ""), extra))
    return Roster(students, kind="course", path=path)


def _read_canvas(path, header, body) -> Roster:
    index = {h.lower(): i for i, h in enumerate(header)}
    assignments = {}
    for h in header[5:]:
        m = _CANVAS_ASSIGNMENT.match(h)
        if m:
            assignments[m["name"]] = m["id"]
    students = []
    for line, raw in enumerate(body, start=2):
        cell = {k: (raw[i].strip() if i < len(raw) else "") for k, i in index.items()}
        if cell["student"].lower() in _CANVAS_NOT_STUDENTS or not cell["id"]:
            continue  # "Points Possible", "Manual Posting": lines of the export, not students
        extra = tuple((k, v) for k, v in (("sis_user_id", cell.get("sis user id", "")),
                                          ("sis_login_id", cell.get("sis login id", "")),
                                          ("section", cell.get("section", ""))) if v)
        students.append(Student(cell["id"], cell["student"], "", extra))
    return Roster(students, kind="canvas", path=path, canvas_assignments=assignments)


def _read_moodle(path, header, body) -> Roster:
    index = {h.lower(): i for i, h in enumerate(header)}
    students = []
    for line, raw in enumerate(body, start=2):
        cell = {k: (raw[i].strip() if i < len(raw) else "") for k, i in index.items()}
        m = re.fullmatch(r"\D*?(\d+)", cell["identifier"])
        if not m:
            raise ValueError(f"the grading worksheet {path}, line {line}: the Identifier "
                             f"{cell['identifier']!r} holds no participant number")
        extra = (("identifier", cell["identifier"]), ("row", tuple(raw)))
        extra += tuple((k, cell[c]) for k, c in (("idnumber", "id number"),
                                                  ("username", "username")) if cell.get(c))
        students.append(Student(m.group(1), cell["full name"], cell.get("email address", ""),
                                extra))
    return Roster(students, kind="moodle", path=path, columns=header)


def _check_unique(roster: Roster) -> None:
    """Refuse a roster with two students under one key."""
    keys = {"id": lambda s: s.id, "email": lambda s: s.email.casefold(),
            "sis_user_id": lambda s: s.get("sis_user_id"),
            "sis_login_id": lambda s: s.get("sis_login_id"),
            "idnumber": lambda s: s.get("idnumber"), "username": lambda s: s.get("username"),
            "participant": lambda s: s.get("participant"),
            "anonymous_id": lambda s: s.get("anonymous_id")}
    for key, get in keys.items():
        seen: dict = {}
        for s in roster:
            value = get(s)
            if not value:
                continue
            if value in seen:
                raise ValueError(f"the roster {roster.path} has two students under one {key} "
                                 f"{value!r}: {seen[value].name!r} ({seen[value].id}) and "
                                 f"{s.name!r} ({s.id}); correct the roster first")
            seen[value] = s


def _canvas_login(name: str) -> str:
    """Canvas's name part of a download: the sortable name ("Surname, Given") or the
    name ("Given Surname") as surname then given names, lower case, letters a-z only."""
    if "," in name:
        surname, given = name.split(",", 1)
        words = [surname, given]
    else:
        parts = name.split()
        words = parts[-1:] + parts[:-1]
    text = unicodedata.normalize("NFKD", "".join(words))
    return re.sub(r"[^a-z]", "", text.encode("ascii", "ignore").decode().lower())


def _unique(pairs) -> dict:
    """``{key: student}`` of the keys exactly one student has."""
    out: dict = {}
    clash = set()
    for key, s in pairs:
        if not key:
            continue
        if key in out and out[key] is not s:
            clash.add(key)
        out[key] = s
    return {k: s for k, s in out.items() if k not in clash}


@dataclass
class Matching:
    students: dict = field(default_factory=dict)    # file -> Student
    unmatched: list = field(default_factory=list)    # (file, why)
    missing: list = field(default_factory=list)      # students with no file
    claimed: dict = field(default_factory=dict)      # student id -> files (more than one)
    late: set = field(default_factory=set)           # files the pattern marks late
    notes: list = field(default_factory=list)        # lines for the instructor to check

    def lines(self) -> list[str]:
        from ..intake.notebooks import clean_text

        out = [f"{len(self.students)} submission(s) matched to the roster"]
        out += [f"  no student for the file {clean_text(Path(f).name, 200)}: {why}"
                for f, why in self.unmatched]
        out += [f"  no submission from {clean_text(s.name, 120)} ({clean_text(s.id, 60)})"
                for s in self.missing]
        for sid, files in self.claimed.items():
            out.append(f"  {len(files)} files claim the student {clean_text(sid, 60)}: "
                       + ", ".join(clean_text(Path(f).name, 120) for f in files)
                       + " (not merged; no LMS export carries this student's grade until "
                         "one file is left)")
        out += [f"  note: {clean_text(n, 400)}" for n in self.notes]
        return out

    def exported(self) -> dict:
        """file -> Student for the students claimed by exactly one file."""
        return {f: s for f, s in self.students.items() if s.id not in self.claimed}


def check_pattern(pattern: str) -> re.Pattern:
    """The compiled pattern (``canvas``, ``moodle`` or a regular expression); a clear
    ValueError when it does not compile or names no student."""
    try:
        regex = re.compile(PATTERNS.get(pattern, pattern))
    except re.error as exc:
        raise ValueError(f"the pattern {pattern!r} is not a regular expression: {exc}") from None
    if not set(regex.groupindex) & _KEYS:
        raise ValueError(f"the pattern {pattern!r} has none of the named groups id, email, "
                         f"login, name, participant")
    return regex


class _Index:
    """The roster's identifiers, as the platforms' names carry them."""

    def __init__(self, students):
        self.kind = getattr(students, "kind", "course")
        self.by_id = {s.id: s for s in students}
        self.by_anonymous_id = {s.get("anonymous_id"): s for s in students
                                if s.get("anonymous_id")}
        self.by_participant = ({s.id: s for s in students} if self.kind == "moodle" else
                               {s.get("participant"): s for s in students
                                if s.get("participant")})

    @staticmethod
    def canvas_name(student) -> str:
        return canvas_name_part(student.name)


def match(files, students, pattern: str = "canvas") -> Matching:
    """Map each file to a student by ``pattern`` (``canvas``, ``moodle`` or a regular
    expression with named groups ``id``, ``email``, ``login``, ``name`` or ``participant``).
    ``canvas`` and ``moodle`` read the names as the platforms write them
    (:mod:`~kernelcourse.grading.handback.names`) and match on the platform's identifier."""
    regex = check_pattern(pattern)
    index = _Index(students)
    by_id = index.by_id
    by_email = _unique((s.email.casefold(), s) for s in students)
    by_name = _unique((same_name(s.name), s) for s in students)
    by_login = _unique([(_canvas_login(s.name), s) for s in students]
                       + [(s.get("sis_login_id").casefold(), s) for s in students])
    result = Matching()
    for file in files:
        path = Path(file)
        if pattern == "canvas":
            found, reading, why = canvas_student(path.name, index)
            if found is None:
                result.unmatched.append((str(file), why))
                continue
            result.students[str(file)] = found
            if reading is not None and reading.late:
                result.late.add(str(file))
            continue
        if pattern == "moodle":
            reading, why = moodle_reading(file, index.by_participant)
            found = None
            if reading is not None:
                found = index.by_participant.get(reading.value)
                why = (f"the participant {reading.value} is not in the grading worksheet"
                       if index.by_participant else
                       "the roster holds no Moodle participant id (use the assignment's "
                       "grading worksheet as the roster)")
            if found is None:
                result.unmatched.append((str(file), why))
                continue
            shown = moodle_name_part(found.name)
            if found.name and reading.name is not None and \
                    same_name(reading.name) != same_name(shown):
                result.notes.append(
                    f"the file {path.name} is matched by its participant id {reading.value} "
                    f"({found.name} in the worksheet); its name part says {reading.name!r}: "
                    f"check that it comes from this assignment's download")
            result.students[str(file)] = found
            continue
        # an instructor's own pattern: a file in a folder the pattern matches is matched by
        # that folder alone
        m = regex.match(path.parent.name) or regex.match(path.name)
        if m is None:
            result.unmatched.append((str(file), "its name does not fit the pattern"))
            continue
        g = {k: v for k, v in m.groupdict().items() if v}
        found, why = None, ""
        if "id" in g:
            found = by_id.get(g["id"])
            why = f"the id {g['id']} is not in the roster"
        elif "participant" in g:
            found = index.by_participant.get(g["participant"])
            why = f"the participant {g['participant']} is not in the roster"
        elif "email" in g:
            found = by_email.get(g["email"].casefold())
            why = f"no one student has the email {g['email']}"
        elif "login" in g:
            found = by_login.get(g["login"].casefold())
            why = f"no one student has the name part {g['login']}"
        elif "name" in g:
            found = by_name.get(same_name(g["name"]))
            why = f"no one student has the name {g['name']}"
        if found is None:
            result.unmatched.append((str(file), why))
            continue
        result.students[str(file)] = found
        if g.get("late"):
            result.late.add(str(file))
    files_of: dict = {}
    for f, s in result.students.items():
        files_of.setdefault(s.id, []).append(f)
    result.claimed = {sid: fs for sid, fs in files_of.items() if len(fs) > 1}
    result.missing = [s for s in students if s.id not in files_of]
    return result
