"""Gradebooks by assignment, the stamp on every row, regrades that merge, and the history.

Each assignment has its own files in the output folder: ``gradebook-NAME.csv``,
``gradebook-NAME.json`` and ``history-NAME.jsonl`` (``--assignment NAME``; without it the
names are ``gradebook.csv``, ``gradebook.json`` and ``history.jsonl``). Nothing is silently
overwritten:

* a new run into a folder that already holds that assignment's gradebook first copies every
  row of the old one into the history, one JSON line each, with the reason and the time;
* ``--update`` regrades some submissions (the paths given) or some questions (``--questions``)
  into the existing gradebook: a submission's row keeps its other questions, and its previous
  version goes to the history before it is replaced.

Every row records the package version, a hash of each graded question's definition
(:func:`question_hash`), the seed and the time it was graded (:func:`stamp`).
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["question_hash", "stamp", "book_files", "archive", "load_rows", "merge",
           "read_history"]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _code_text(code) -> str:
    """What a code object computes, the same in every run: its bytecode, names and
    constants (nested code objects in turn), never an address."""
    consts = [_code_text(c) if inspect.iscode(c) else repr(c) for c in code.co_consts]
    return repr((code.co_name, code.co_code.hex(), code.co_names, code.co_varnames, consts))


def _source(obj) -> str:
    """The source of ``obj``; for code without a source file (a fix question's given code,
    compiled from text) its bytecode and constants; else its repr without memory addresses,
    so that a question's hash is the same in every run."""
    try:
        return inspect.getsource(obj)
    except (TypeError, OSError):
        code = getattr(obj, "__code__", None)
        if code is not None:
            return f"{getattr(obj, '__qualname__', '')}:{_code_text(code)}"
        return _ADDRESS.sub("", repr(obj))


def question_hash(question) -> str:
    """12 hex digits of the sha256 of a question's definition: its settings and the source
    of its reference, case generator, properties and diagnoses, and the answer key of a
    choice question (a changed case, tolerance or right answer changes the hash)."""
    parts = [repr((question.id, question.title, question.function, question.points,
                   question.rtol, question.atol, question.time_limit,
                   question.compare_reference, tuple(question.forbidden))),
             _source(question.reference), _source(question.cases)]
    key = getattr(question.reference, "answer_key", None)
    if key is not None:  # choice_parts: the right answers are data, not in any source
        parts.append(repr(key))
    for prop in question.properties:
        parts.append(repr(getattr(prop, "message", "")) + _source(getattr(prop, "predicate", prop)))
    for diagnosis in question.diagnoses:
        parts.append(diagnosis.name + diagnosis.message + _source(diagnosis.mistake))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def _version() -> str:
    from .. import __version__

    return __version__


def now() -> str:
    """The time now, UTC, ISO 8601 to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def stamp(row, questions, seed) -> None:
    """Record on ``row`` the package version, the seed, the time and each question's hash."""
    row.version = _version()
    row.seed = seed
    row.graded_at = now()
    row.question_hashes = {q.id: question_hash(q) for q in questions}


def book_files(output, name: str | None) -> dict[str, Path]:
    """The files of one assignment's gradebook in ``output``."""
    output = Path(output)
    suffix = f"-{name}" if name else ""
    return {"csv": output / f"gradebook{suffix}.csv", "json": output / f"gradebook{suffix}.json",
            "history": output / f"history{suffix}.jsonl"}


def _append(path: Path, records) -> int:
    records = list(records)
    if not records:
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())
    return len(records)


def load_book(json_path: Path) -> dict:
    """The gradebook JSON at ``json_path`` (a clear error when it cannot be read)."""
    try:
        return json.loads(Path(json_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the gradebook {json_path}: {exc}") from None


def archive(files: dict, reason: str) -> int:
    """Copy every row of the existing gradebook (if any) into the history; the row count."""
    if not files["json"].exists():
        return 0
    book = load_book(files["json"])
    when = now()
    return _append(files["history"], ({"archived_at": when, "reason": reason,
                                       "assignment": book.get("assignment"), "row": row}
                                      for row in book.get("submissions", [])))


def load_rows(files: dict):
    """The rows of an existing gradebook as :class:`Submission` objects, and its assignment."""
    from .gradebook import Submission

    book = load_book(files["json"])
    rows = []
    for s in book.get("submissions", []):
        row = Submission(file=s["file"])
        for key, value in s.items():
            if hasattr(row, key) and key != "file":
                setattr(row, key, value)
        rows.append(row)
    return rows, book.get("assignment", [])


def _key(file: str) -> str:
    return os.path.realpath(file)


def merge(old_rows, new_rows, graded_ids, history_path: Path, reason: str):
    """``old_rows`` with the questions ``graded_ids`` of each new row put in (rows matched
    by file; a new file is added at the end); every replaced row goes to the history first."""
    by_key = {_key(r.file): i for i, r in enumerate(old_rows)}
    merged = list(old_rows)
    replaced = []
    for new in new_rows:
        i = by_key.get(_key(new.file))
        if i is None:
            merged.append(new)
            continue
        old = merged[i]
        replaced.append(old.as_dict())
        row = type(old)(**{k: getattr(old, k) for k in old.__dataclass_fields__})
        prefixes = tuple(f"{q}:" for q in graded_ids)
        row.points = {**old.points, **{q: v for q, v in new.points.items() if q in graded_ids}}
        row.details = {**old.details, **{q: v for q, v in new.details.items() if q in graded_ids}}
        row.feedback = {**old.feedback,
                        **{q: v for q, v in new.feedback.items() if q in graded_ids}}
        row.question_hashes = {**old.question_hashes,
                               **{q: v for q, v in new.question_hashes.items()
                                  if q in graded_ids}}
        row.errors = [e for e in old.errors if not e.startswith(prefixes)] + \
                     [e for e in new.errors if e.startswith(prefixes)]
        row.total = round(sum(row.points.values()), 4)
        row.sha256, row.seconds = new.sha256, new.seconds
        row.version, row.seed, row.graded_at = new.version, new.seed, new.graded_at
        row.regraded = sorted(set(getattr(old, "regraded", []) or []) | set(graded_ids))
        merged[i] = row
    when = now()
    _append(history_path, ({"archived_at": when, "reason": reason, "row": r} for r in replaced))
    return merged, len(replaced)


def read_history(path: Path) -> list[dict]:
    """The records of a history file, oldest first."""
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
