"""Strict reading of a predictions CSV: either every test id gets one label, or nothing of the
file is scored and the error says what is wrong.

The file must be UTF-8 text whose first line is exactly ``id,label`` and whose other lines
are ``<test id>,<label>``, one per test id, in any order; a label is one of the challenge's
labels (``-1`` and ``1``, written ``1`` or ``+1``). Blank lines at the end are ignored.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

__all__ = ["SubmissionError", "read_predictions", "HEADER", "MAX_BYTES"]

HEADER = ["id", "label"]
MAX_BYTES = 5_000_000
_SHOW = 5


class SubmissionError(ValueError):
    """A submission that cannot be scored; the message says why."""


def _listed(items, quote: bool = True) -> str:
    items = list(items)
    shown = ", ".join(repr(i) if quote else str(i) for i in items[:_SHOW])
    return shown + (f" and {len(items) - _SHOW} more" if len(items) > _SHOW else "")


def _label(text: str, labels):
    text = text.strip()
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value in labels and text.lstrip("+-").isdigit() else None


def read_predictions(path, test_ids, labels=(-1, 1)) -> dict:
    """``{id: label}`` for every id of ``test_ids`` read from the CSV file ``path``.

    Raises :class:`SubmissionError` naming the problem (a wrong header, a line with the wrong
    number of fields, an unknown or duplicated id, missing ids, a wrong count, a label outside
    ``labels``) with the line numbers and up to five of the offending values.
    """
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise SubmissionError(f"{path.name}: {size} bytes, more than the {MAX_BYTES} a "
                              f"predictions file may have")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise SubmissionError(f"{path.name}: not UTF-8 text ({err.reason} at byte {err.start})")
    rows = list(csv.reader(io.StringIO(text)))
    while rows and not any(cell.strip() for cell in rows[-1]):
        rows.pop()
    if not rows:
        raise SubmissionError(f"{path.name}: the file is empty; the first line must be 'id,label'")
    header = [cell.strip() for cell in rows[0]]
    if header != HEADER:
        raise SubmissionError(f"{path.name}: the header is {','.join(rows[0])!r}; it must be "
                              f"exactly 'id,label'")
    known = set(test_ids)
    labels = tuple(int(v) for v in labels)
    seen, bad_shape, unknown, duplicated, bad_label = {}, [], [], [], []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != 2:
            bad_shape.append(f"line {line} has {len(row)} field(s)")
            continue
        ident, value = row[0].strip(), row[1]
        if ident not in known:
            unknown.append(ident)
            continue
        if ident in seen:
            duplicated.append(ident)
            continue
        label = _label(value, labels)
        if label is None:
            bad_label.append(f"{value!r} (line {line})")
            continue
        seen[ident] = label
    problems = []
    if bad_shape:
        problems.append(f"every line must be 'id,label': {_listed(bad_shape, False)}")
    if unknown:
        problems.append(f"{len(unknown)} unknown id(s): {_listed(unknown)}")
    if duplicated:
        problems.append(f"{len(duplicated)} duplicated id(s): {_listed(duplicated)}")
    if bad_label:
        problems.append(f"{len(bad_label)} label(s) outside {{{', '.join(map(str, labels))}}}: "
                        f"{_listed(bad_label, False)}")
    present = {row[0].strip() for row in rows[1:] if len(row) == 2}
    missing = [i for i in test_ids if i not in present]
    if missing:
        problems.append(f"{len(missing)} missing id(s): {_listed(missing)}")
    if len(rows) - 1 != len(test_ids):
        problems.append(f"{len(rows) - 1} prediction line(s) for {len(test_ids)} test ids")
    if problems:
        raise SubmissionError(f"{path.name}: nothing scored: " + "; ".join(problems))
    return seen
