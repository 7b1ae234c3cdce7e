"""``kernelcourse challenge grade``: score predictions on the hidden labels, by thresholds.

Each submission is a file in the SUBMISSIONS folder; the student is read from its name (the
part before the first ``_`` unless ``pattern`` says otherwise, a regular expression with a
group ``login``) and the time of submission from the file's modification time, or from a log
(a CSV ``file,submitted`` with ISO 8601 times, say the download's).

* **Public board** (before the deadline): every scored submission gets its accuracy on the
  public split of the test ids. Only the first ``per_day`` scored submissions of a student on
  each UTC day are scored; later ones that day are refused ("over the daily limit"), which
  keeps anyone from climbing the public board by probing it (Blum and Hardt, *The Ladder: a
  reliable leaderboard for machine learning competitions*, 2015, show how fast unlimited
  probing overfits). A file that cannot be read is not scored and does not count.
* **Final** (``final=True``, after the deadline): each student's last scored submission is
  scored on the private split, which nobody has seen.

Points are by thresholds, not by rank: below the spectrum baseline 0, at it ``pass_share`` of
``points``, linear up to all the ``points`` at the mismatch baseline and above (the baselines
of the split being scored, from ``key.json``).
"""
from __future__ import annotations

import csv
import re
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from .make import read_key
from .validate import SubmissionError, read_predictions

__all__ = ["Entry", "grade_challenge", "points_for", "student_of", "DEFAULT_PATTERN"]

DEFAULT_PATTERN = r"^(?P<login>[^_]+)_"


@dataclass
class Entry:
    """One submission's verdict."""
    file: str
    student: str
    submitted: str
    status: str                     # scored, not scored, over the daily limit
    message: str = ""
    public: float | None = None     # accuracy on the public split
    private: float | None = None    # accuracy on the private split (final only)
    points: float | None = None
    final: bool = False             # the submission that counts for the student
    name: str = ""                  # the student's name, from the roster

    def as_row(self) -> dict:
        return asdict(self)


def points_for(accuracy: float, spectrum: float, mismatch: float, points: float = 10.0,
               pass_share: float = 0.5) -> float:
    """0 below ``spectrum``; ``pass_share * points`` at it; linear up to ``points`` at
    ``mismatch`` and above (``spectrum < mismatch``, else the pass mark is full marks)."""
    if accuracy < spectrum:
        return 0.0
    if accuracy >= mismatch or mismatch <= spectrum:
        return float(points)
    share = pass_share + (1 - pass_share) * (accuracy - spectrum) / (mismatch - spectrum)
    return round(points * share, 6)


def student_of(path, pattern: str = DEFAULT_PATTERN) -> str | None:
    """The student named by a file's name (``pattern``'s group ``login``), or ``None``."""
    found = re.match(pattern, Path(path).name)
    return found.group("login") if found else None


def _read_log(log) -> dict:
    times = {}
    with open(log, newline="") as handle:
        for row in csv.DictReader(handle):
            if "file" not in row or "submitted" not in row:
                raise ValueError(f"{log}: the log's columns must include 'file' and 'submitted'")
            stamp = datetime.fromisoformat(row["submitted"])
            times[row["file"]] = stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)
    return times


def _accuracy(pred: dict, key: dict, part: str) -> float:
    ids = [i for i in key["ids"] if key["split_by_id"][i] == part]
    return sum(pred[i] == key["labels_by_id"][i] for i in ids) / len(ids)


def _files(submissions) -> list[Path]:
    submissions = Path(submissions)
    if submissions.is_file():
        return [submissions]
    if not submissions.is_dir():
        raise FileNotFoundError(f"{submissions}: no such file or folder of submissions")
    return sorted(p for p in submissions.iterdir()
                  if p.is_file() and p.suffix.lower() in (".csv", ".ipynb"))


def grade_challenge(submissions, key_dir, *, final: bool = False, per_day: int = 3,
                    points: float = 10.0, pass_share: float = 0.5,
                    pattern: str | None = None, log=None, predict_notebook=None, roster=None):
    """Grade every ``.csv`` (and ``.ipynb``) file of the folder ``submissions``.

    ``predict_notebook(path, key) -> csv path`` turns a notebook into a predictions file (see
    :mod:`kernelcourse.grading.challenge.notebook`); without it notebooks are not scored.
    ``roster`` (a :class:`~kernelcourse.grading.handback.roster.Roster`, or the path of one
    that :func:`~kernelcourse.grading.handback.roster.read_roster` reads) maps files to
    students by ``pattern`` (default ``canvas``) as ``kernelcourse grade --roster`` does; a
    file it cannot match is not scored. Without a roster the student is ``pattern``'s group
    ``login`` (default: the name before the first ``_``).
    Returns ``(entries, key)``: one :class:`Entry` per file, in order of submission.
    """
    if per_day < 1:
        raise ValueError(f"per_day must be at least 1; got {per_day}")
    key = read_key(key_dir)
    times = _read_log(log) if log else {}
    base = key["baselines"]
    dated = []
    for path in _files(submissions):
        if path.name in times:
            when = times[path.name]
        else:
            when = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
        dated.append((when, path.name, path))
    dated.sort()
    matching = None
    if roster is not None:
        from ..handback.roster import match, read_roster

        if not isinstance(roster, list):
            roster = read_roster(roster)
        matching = match([str(p) for _, _, p in dated], roster, pattern or "canvas")
        why = dict(matching.unmatched)
    entries, used = [], {}
    for when, name, path in dated:
        full = ""
        if matching is not None:
            found = matching.students.get(str(path))
            student, full = (found.id, found.name) if found else (None, "")
            problem = f"no student in the roster: {why.get(str(path), 'unmatched')}"
        else:
            student = student_of(path, pattern or DEFAULT_PATTERN)
            problem = (f"the file name does not name a student (pattern "
                       f"{pattern or DEFAULT_PATTERN!r})")
        entry = Entry(file=name, student=student or "", submitted=when.isoformat(timespec="seconds"),
                      status="not scored", name=full)
        entries.append(entry)
        if student is None:
            entry.message = problem
            continue
        day = (student, when.date())
        if used.get(day, 0) >= per_day:
            entry.status = "over the daily limit"
            entry.message = (f"{student} already has {per_day} scored submission(s) on "
                             f"{when.date()} (UTC); this one is not scored")
            continue
        try:
            csv_path = path
            if path.suffix.lower() == ".ipynb":
                if predict_notebook is None:
                    raise SubmissionError(f"{name}: notebook submissions need the sandbox "
                                          f"runner; submit a predictions CSV")
                csv_path = predict_notebook(path, key)
            pred = read_predictions(csv_path, key["ids"], key["labels"])
        except SubmissionError as err:
            entry.message = str(err)
            continue
        used[day] = used.get(day, 0) + 1
        entry.status = "scored"
        entry.public = _accuracy(pred, key, "public")
        entry.points = points_for(entry.public, base["spectrum"]["public"],
                                  base["mismatch"]["public"], points, pass_share)
        entry._pred = pred
    last = {}
    for entry in entries:
        if entry.status == "scored":
            last[entry.student] = entry
    for entry in last.values():
        entry.final = True
        if final:
            entry.private = _accuracy(entry._pred, key, "private")
            entry.points = points_for(entry.private, base["spectrum"]["private"],
                                      base["mismatch"]["private"], points, pass_share)
    if final:
        for entry in entries:
            if not entry.final:
                entry.points = None
    for entry in entries:
        entry.__dict__.pop("_pred", None)
    return entries, key
