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
(:func:`question_hash`), how its cases were drawn (the draw token per question, or the
instructor's seed) and the time it was graded (:func:`stamp`).
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

from ..model import transport

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


_HASHES: dict = {}  # id(question) -> (question, hash): each question hashed once per process


def question_hash(question) -> str:
    """The hash of :func:`_question_hash`, computed once per question object."""
    known = _HASHES.get(id(question))
    if known is None or known[0] is not question:
        known = _HASHES[id(question)] = (question, _question_hash(question))
    return known[1]


def _question_hash(question) -> str:
    """12 hex digits of the sha256 of a question's definition: its settings and the source
    of its reference, case generator, properties and diagnoses, its fixed cases (their source
    and their data), and the answer key of a choice question (a changed case, tolerance or
    right answer changes the hash)."""
    parts = [repr((question.id, question.title, question.function, question.points,
                   question.rtol, question.atol, question.time_limit,
                   question.compare_reference, tuple(question.forbidden))),
             _source(question.reference), _source(question.cases)]
    if question.fixed_cases is not None:  # the fixed cases as data: a changed case changes the hash
        parts.append(_source(question.fixed_cases))
        try:
            parts.append(transport.dumps([[list(c.args), c.kwargs] for c in question.make_fixed_cases()]))
        except Exception as exc:  # a case that is no plain data: its source above stands for it
            parts.append(f"fixed cases not hashable as data: {type(exc).__name__}")
    key = getattr(question.reference, "answer_key", None)
    if key is not None:  # choice_parts: the right answers are data, not in any source
        parts.append(repr(key))
    for prop in question.properties:
        parts.append(repr(getattr(prop, "message", "")) + _source(getattr(prop, "predicate", prop)))
    for diagnosis in question.diagnoses:
        parts.append(diagnosis.name + diagnosis.message + _source(diagnosis.mistake))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def _version() -> str:
    from ... import __version__

    return __version__


def now() -> str:
    """The time now, UTC, ISO 8601 to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def stamp(row, questions, seed) -> None:
    """Record on ``row`` the package version, the seed (None when the cases came from the
    secret), the time, each question's hash and how each question's drawn cases came: the
    seed (``question_seeds``) or the draw token (``draws``, from ``row.cases``); its fixed
    cases are the same in every run."""
    row.version = _version()
    row.seed = seed
    row.graded_at = now()
    row.question_hashes = {q.id: question_hash(q) for q in questions}
    graded = [q.id for q in questions if q.id in row.points]
    how = {q: row.cases.get(q) or ({"seed": seed} if seed is not None else {}) for q in graded}
    row.question_seeds = {q: h["seed"] for q, h in how.items() if h.get("seed") is not None}
    row.draws = {q: h["draw"] for q, h in how.items() if h.get("draw")}


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


_ROW_TYPES = {"sha256": str, "points": dict, "possible": (int, float), "total": (int, float),
              "errors": list, "details": dict, "feedback": dict, "version": str,
              "graded_at": str, "question_hashes": dict, "regraded": list, "cases": dict,
              "question_seeds": dict, "draws": dict, "failed_regrades": list}


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


# the values inside a row's fields: (which field, test of one value, what it must be)
_INNER = {"points": (_is_number, "a number (written without quotes)"),
          "details": (lambda v: isinstance(v, str), "a text"),
          "question_hashes": (lambda v: isinstance(v, str), "a text"),
          "question_seeds": (lambda v: v is None or (isinstance(v, int)
                                                     and not isinstance(v, bool)),
                             "a whole number (written without quotes)"),
          "cases": (lambda v: isinstance(v, dict), "a record {seed, fixed, drawn}"),
          "feedback": (lambda v: isinstance(v, dict), "a record")}


def _field_problem(key: str, value) -> str:
    """What is wrong inside a row's field, named with the field and the value ('' if
    nothing): a hand-edited points value typed as "3" is a text, not a number."""
    def shown(v):
        return f"{v!r} (a {type(v).__name__})"

    if key in ("possible", "total", "seconds") and value is not None and \
            not _is_number(value):
        return f"{key} = {shown(value)}; it must be a number (written without quotes)"
    if key == "seed" and value is not None and (not isinstance(value, int)
                                                or isinstance(value, bool)):
        return f"seed = {shown(value)}; it must be a whole number (written without quotes)"
    if key in ("errors", "regraded") and isinstance(value, list):
        bad = next((v for v in value if not isinstance(v, str)), None)
        if bad is not None:
            return f"an entry {shown(bad)} in {key}; each entry must be a text"
    if key in _INNER and isinstance(value, dict):
        test, want = _INNER[key]
        for q, v in value.items():
            if not test(v):
                return f"{key}[{q!r}] = {shown(v)}; it must be {want}"
    return ""


def load_rows(files: dict):
    """The rows of an existing gradebook as :class:`Submission` objects, and its assignment;
    a clear ValueError for a gradebook that is not one (a row without ``file``, a field of
    the wrong type)."""
    from .book import Submission

    path = files["json"]
    book = load_book(path)
    if not isinstance(book, dict) or not isinstance(book.get("submissions", []), list):
        raise ValueError(f"the gradebook {path} is malformed: it holds no list 'submissions'")
    assignment = book.get("assignment", [])
    if not isinstance(assignment, list) or not all(isinstance(q, str) for q in assignment):
        raise ValueError(f"the gradebook {path} is malformed: 'assignment' is not a list of "
                         f"question ids")
    rows = []
    for n, s in enumerate(book.get("submissions", []), start=1):
        if not isinstance(s, dict) or not isinstance(s.get("file"), str) or not s["file"]:
            raise ValueError(f"the gradebook {path} is malformed: row {n} has no 'file' (a "
                             f"gradebook row names the notebook it graded); restore the file "
                             f"from the history or grade anew")
        row = Submission(file=s["file"])
        for key, value in s.items():
            if key == "file" or not hasattr(row, key):
                continue
            kind = _ROW_TYPES.get(key)
            problem = _field_problem(key, value)
            if not problem and kind is not None and value is not None and \
                    not isinstance(value, kind):
                problem = f"{key} of type {type(value).__name__}"
            if problem:
                raise ValueError(f"the gradebook {path} is malformed: row {n} ({s['file']}) "
                                 f"has {problem}; correct it in {Path(path).name} (or restore "
                                 f"the row from the history) and run again: nothing was "
                                 f"changed")
            setattr(row, key, value)
        rows.append(row)
    return rows, assignment, book.get("seed")


def file_key(file: str) -> str:
    """A row's file as given, made absolute without following symbolic links (a link to
    another student's notebook is another row, never that student's)."""
    return os.path.normpath(os.path.abspath(file))


_key = file_key


def _failed(new, graded_ids) -> str:
    """Why the regrade of ``new`` failed (the file no longer reads, a question was not
    graded), or ''."""
    if new.possible <= 0 or not new.points:
        return "; ".join(new.errors) or "the file was not graded"
    missing = [q for q in sorted(graded_ids) if q not in new.points]
    if missing:
        return f"{', '.join(missing)} not graded"
    internal = [e for e in new.errors if "internal error of the grader" in e]
    return "; ".join(internal)


def merge(old_rows, new_rows, graded_ids, history_path: Path, reason: str):
    """``old_rows`` with the questions ``graded_ids`` of each new row put in (rows matched
    by the file as given; a new file is added at the end); every replaced row goes to the
    history first. A regrade that failed (the file no longer reads, the grader failed)
    replaces nothing: the old row stays, with the failure recorded on it and in the history.
    Returns the rows, the number replaced and the failures ``[(file, why)]``."""
    by_key = {_key(r.file): i for i, r in enumerate(old_rows)}
    merged = list(old_rows)
    replaced, records, failures = [], [], []
    when = now()
    for new in new_rows:
        i = by_key.get(_key(new.file))
        if i is None:
            merged.append(new)
            continue
        old = merged[i]
        why = _failed(new, graded_ids)
        if why:
            row = type(old)(**{k: getattr(old, k) for k in old.__dataclass_fields__})
            row.failed_regrades = list(old.failed_regrades or []) + [
                {"at": when, "questions": sorted(graded_ids), "error": why,
                 "sha256": new.sha256, "seed": new.seed, "draws": dict(new.draws)}]
            merged[i] = row
            failures.append((old.file, why))
            records.append({"archived_at": when, "reason": f"{reason}: FAILED, old row kept",
                            "error": why, "attempt": new.as_dict()})
            continue
        replaced.append(old.as_dict())
        row = type(old)(**{k: getattr(old, k) for k in old.__dataclass_fields__})
        prefixes = tuple(f"{q}:" for q in graded_ids)

        def put(field_name):  # the regraded questions' entries are the new row's only
            before, after = getattr(old, field_name) or {}, getattr(new, field_name)
            merged_ = {q: after[q] if q in graded_ids else v for q, v in before.items()
                       if q not in graded_ids or q in after}
            return {**merged_, **{q: v for q, v in after.items() if q in graded_ids}}

        for name in ("points", "details", "feedback", "question_hashes", "cases",
                     "question_seeds", "draws"):
            setattr(row, name, put(name))
        row.errors = [e for e in old.errors if not e.startswith(prefixes)] + \
                     [e for e in new.errors if e.startswith(prefixes)]
        row.total = round(sum(row.points.values()), 4)
        row.sha256, row.seconds = new.sha256, new.seconds
        row.version, row.graded_at = new.version, new.graded_at
        seeds = {row.question_seeds.get(q) for q in row.points}
        row.seed = seeds.pop() if len(seeds) == 1 else None  # one seed, or see question_seeds
        row.regraded = sorted(set(getattr(old, "regraded", []) or []) | set(graded_ids))
        merged[i] = row
    records += [{"archived_at": when, "reason": reason, "row": r} for r in replaced]
    _append(history_path, records)
    return merged, len(replaced), failures


def read_history(path: Path) -> list[dict]:
    """The records of a history file, oldest first."""
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
