"""Intake: submitted notebooks read as data (never executed, never written to), and text
that came from a submission made safe to show.

The parent process reads each notebook file as bytes, and only a regular file (no symbolic
link, FIFO or device) under the size cap (:func:`read_submission`); it parses the JSON with a
bound on its depth (:func:`bounded_json`, :func:`read_notebook`) and picks the answer cells,
code cells whose first line is ``# ANSWER <question id>`` (:func:`answer_cells`; the last cell
per id wins; the marker is found as IPython would see the cell: after blank lines, a byte
order mark or Windows line ends, with any spacing after ``#``). An nbformat 3 notebook (cells
in ``worksheets``, code in ``input``) is read as its version 4 conversion would be. A file
that cannot be read or parsed gives a :class:`NotebookError` naming the reason, which becomes
its row of the gradebook. :func:`python_source` turns an answer cell into the Python that
IPython would run (its own input transformer: magics and shell lines become calls).
:func:`clean_text` escapes the control, invisible and bidirectional characters of any text
from a submission before it reaches the console, the CSV or the JSON, so no two rows can look
alike while naming different files.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NotebookError", "read_submission", "read_notebook", "bounded_json", "answer_cells",
           "find_notebooks", "clean_text", "python_source", "static_source", "cell_problem",
           "MAX_CELL_CHARS", "MAX_MAGIC_LINES", "MAX_NAME_PARTS", "name_problem"]

ANSWER_LINE = re.compile(r"^#\s*ANSWER\s+(\S+)\s*$")

_MAX_DEPTH = 64
# control characters, and the invisible ones: soft hyphen, Arabic letter mark, Mongolian vowel
# separator, zero-width spaces and joiners, left-to-right and right-to-left marks, embeddings,
# overrides and isolates, line and paragraph separators, word joiner and invisible operators,
# Hangul fillers, the byte order mark, interlinear annotations, tags and variation selectors
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5"
                      "\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164"
                      "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000e0000-\U000e0fff"
                      "\U0001d173-\U0001d17a\ud800-\udfff]")


def clean_text(text, limit: int = 2000) -> str:
    """``text`` with every control character (ANSI escapes, newlines, carriage returns) and
    every invisible or bidirectional one (zero-width spaces, right-to-left marks and
    overrides, the byte order mark) written as an escape, and every byte of a file name that
    is not UTF-8 (Python's lone surrogates) as ``\\xNN``, cut to ``limit`` characters."""
    text = _CONTROL.sub(_escape, str(text))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _escape(match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


class NotebookError(ValueError):
    """A file that cannot be read as a notebook."""


def _cell_source(cell) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


# a JSON string, possessive (no backtracking) and closed by the end of the text when its quote
# is missing: one pass over the text whatever it holds (an unterminated string of 1 MB full of
# escaped quotes took the old pattern quadratic time, half an hour)
_JSON_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _json_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest (strings skipped), without parsing it; time
    linear in the length of the text."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    depth = deepest = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def bounded_json(data: bytes, what: str, max_depth: int = _MAX_DEPTH):
    """JSON from untrusted bytes: a ValueError naming ``what`` when it nests deeper than
    ``max_depth`` or cannot be parsed (numbers too long, bad text)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} is not UTF-8 text ({exc.reason})") from None
    depth = _json_depth(text)
    if depth > max_depth:
        raise ValueError(f"{what} nests {depth} levels deep (at most {max_depth})")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, ValueError, RecursionError) as exc:
        raise ValueError(f"{what} is not valid JSON: {clean_text(exc, 200)}") from None


def read_notebook(data: bytes) -> dict:
    """The notebook's JSON from the file's bytes; :class:`NotebookError` when unreadable."""
    try:
        nb = bounded_json(data, "the file")
    except ValueError as exc:
        if "valid JSON" in str(exc):
            raise NotebookError(f"not a notebook (invalid JSON: "
                                f"{str(exc).split('valid JSON: ', 1)[1]})") from None
        raise NotebookError(f"not a notebook ({exc})") from None
    if isinstance(nb, dict) and nb.get("nbformat") == 3 and "cells" not in nb:
        nb = _from_version_3(nb)
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        version = nb.get("nbformat") if isinstance(nb, dict) else None
        if isinstance(version, int) and version not in (3, 4):
            raise NotebookError(f"not a notebook this grader reads (nbformat {version}; "
                                f"versions 3 and 4 are read)")
        raise NotebookError("not a notebook (no list of cells)")
    return nb


def _from_version_3(nb: dict) -> dict:
    """The cells of an nbformat 3 notebook as version 4 holds them (what ``nbformat``'s
    conversion gives for the parts the grader reads: code cells and their source)."""
    worksheets = nb.get("worksheets")
    if not isinstance(worksheets, list):
        return nb
    cells = []
    for sheet in worksheets:
        for cell in sheet.get("cells", []) if isinstance(sheet, dict) else []:
            if isinstance(cell, dict):
                source = cell.get("input") if cell.get("cell_type") == "code" else \
                    cell.get("source", "")
                cells.append({"cell_type": cell.get("cell_type"), "source": source})
    return {**nb, "cells": cells, "nbformat": 4}


def read_submission(path: Path, max_bytes: int) -> bytes:
    """The bytes of a submitted file: a regular file only, at most ``max_bytes``.

    Symbolic links, FIFOs, devices and sockets are refused without being
    opened for reading (so a FIFO cannot block the run, nor ``/dev/zero``
    fill its memory); :class:`NotebookError` says why.
    """
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise NotebookError(f"cannot read the file: {exc.strerror or exc}") from None
    kind = _file_kind(info.st_mode)
    if kind != "regular file":
        raise NotebookError(f"not a regular file ({kind}): only notebook files are graded")
    if info.st_size > max_bytes:
        raise NotebookError(f"the file is {info.st_size / 1e6:.1f} MB, over the limit of "
                            f"{max_bytes / 1e6:.0f} MB")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise NotebookError(f"cannot read the file: {exc.strerror or exc}") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != \
                (info.st_dev, info.st_ino):
            raise NotebookError("the file changed while it was being read")
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > max_bytes:
        raise NotebookError(f"the file is over the limit of {max_bytes / 1e6:.0f} MB")
    return b"".join(chunks)


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISREG, "regular file"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def _normalized(source: str) -> str:
    """A cell's source as IPython runs it: no byte order mark, ``\\n`` line ends."""
    return source.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def answer_cells(nb: dict) -> dict[str, str]:
    """``{question id: source}`` of the answer cells (the first line that is not blank is
    ``# ANSWER <id>``); the last cell per id wins."""
    found: dict[str, str] = {}
    for cell in nb["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _normalized(_cell_source(cell))
        first = next((line for line in source.split("\n") if line.strip()), "")
        match = ANSWER_LINE.match(first.strip())
        if match:
            found[match.group(1)] = source
    return found


# a line IPython may transform: a magic, a shell escape, help (``?``), an auto-call, or a
# magic or shell line whose value is assigned (``_t = %timeit -o f()``, ``files = !ls``);
# ``[ \t]`` rather than ``\s``, which would run on over the following blank lines from every
# line start (quadratic on 400,000 blank lines)
_MAYBE_IPYTHON = re.compile(r"^[ \t]*[%!?/,;]|\?[ \t]*$|=[ \t]*[%!](?!=)", re.MULTILINE)
_MAGIC_LINE = re.compile(r"^[ \t]*[%!?/,;]|=[ \t]*[%!](?!=)", re.MULTILINE)
_MAGIC_TO_PASS = re.compile(r"^([ \t]*)[%!](?!=).*$", re.MULTILINE)
# an assignment of a magic's or shell line's value, as IPython reads one (targets: names,
# attributes, subscripts, tuples); one pass from each line start, so linear time
_ASSIGNED_MAGIC = re.compile(r"^([ \t]*[\w.,()\[\] \t*]+=)[ \t]*[%!](?!=).*$", re.MULTILINE)

#: the longest answer cell graded, in characters (longer: 0 for that question, with the reason)
MAX_CELL_CHARS = 200_000
#: the most lines IPython would transform (magics, shell lines, help) in one graded answer cell
MAX_MAGIC_LINES = 100
#: the most parts of a dotted name (``a.b.c``: 3) in a graded answer cell: Python's own parser
#: joins an imported module's name part by part, in time that grows with the square of its
#: parts (100,000 parts: minutes), so a longer one is not read at all
MAX_NAME_PARTS = 100

# a maximal run of names joined by dots (spaces and line continuations between them, as an
# import statement allows): runs never overlap and each step either takes a character or ends
# the run, so finding them all is linear in the cell's length
_DOTTED_RUN = re.compile(r"\w+(?:[ \t]*(?:\\\n[ \t]*)?\.[ \t]*(?:\\\n[ \t]*)?\w+)+")


def cell_problem(cell: str) -> str:
    """Why an answer cell is not graded ('' when it is): over :data:`MAX_CELL_CHARS`
    characters, more than :data:`MAX_MAGIC_LINES` lines that IPython would transform (its
    transformer's time grows faster than the number of such lines), or a dotted name of more
    than :data:`MAX_NAME_PARTS` parts (Python's parser's time grows faster than its parts).
    Linear time."""
    if len(cell) > MAX_CELL_CHARS:
        return (f"the answer cell holds {len(cell):,} characters, over the limit of "
                f"{MAX_CELL_CHARS:,}: it is not graded")
    magics = sum(1 for _ in _MAGIC_LINE.finditer(cell))
    if magics > MAX_MAGIC_LINES:
        return (f"the answer cell holds {magics} magic or shell lines (%, !), over the limit of "
                f"{MAX_MAGIC_LINES}: it is not graded")
    if cell.count(".") >= MAX_NAME_PARTS:
        parts = max((m.group().count(".") + 1 for m in _DOTTED_RUN.finditer(cell)), default=0)
        if parts > MAX_NAME_PARTS:
            return (f"the answer cell holds a dotted name of {parts:,} parts, over the limit of "
                    f"{MAX_NAME_PARTS}: it is not graded")
    return ""


def static_source(cell: str) -> str:
    """The cell as Python for reading it (the shortcut check), in linear time: magics and
    shell lines become ``pass`` (``None`` where their value is assigned). The answer itself runs as IPython transforms it, in the
    sandbox (:func:`kernelcourse.grading.sealed.answer.ipython_source`)."""
    if not _MAYBE_IPYTHON.search(cell):
        return cell
    cell = _ASSIGNED_MAGIC.sub(lambda m: f"{m.group(1)} None", cell)
    return _MAGIC_TO_PASS.sub(lambda m: f"{m.group(1)}pass", cell)


def python_source(cell: str) -> str:
    """The Python that IPython runs for an answer cell: its own input transformer turns
    magics (``%time``) and shell lines (``!ls``) into ``get_ipython()`` calls, and leaves
    every Python line alone (a continuation line that starts with ``!=`` or ``%`` too).
    Without IPython, such lines become ``pass``. (The grading command runs this in the
    answer's sandboxed process, under its time limit, never in the grader's.)"""
    if not _MAYBE_IPYTHON.search(cell):  # nothing IPython would transform: plain Python
        return cell
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython is a dependency of the course
        return static_source(cell)
    try:
        return TransformerManager().transform_cell(cell)
    except Exception:  # noqa: BLE001 - what IPython cannot read fails in the worker, reported
        return cell


def name_problem(path) -> str:
    """Why a path cannot be named ('' when it can): a name that is not valid UTF-8 (a git
    hand-in, or an archive unpacked without its UTF-8 flag, gives such names) can be written
    in no gradebook, page or export as it is."""
    raw = os.fsencode(str(path))
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"its name is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at {exc.start}; "
                f"shown here as \\x{raw[exc.start]:02x}): not graded; rename it to UTF-8 "
                f"(convmv -f latin1 -t utf-8, or unpack the archive again with its encoding) "
                f"and grade it with --update")
    return ""


def _shown(path) -> str:
    return clean_text(str(path)) if name_problem(path) else str(path)


def find_notebooks(paths) -> tuple[list[Path], list[tuple[str, str]]]:
    """Expand files and folders into notebook paths; return them and the problems.

    Inside a folder, every entry named ``*.ipynb`` is taken (symbolic links and
    other special files too, so that they are reported rather than skipped in
    silence); links to folders are not followed. A path whose name is not valid UTF-8 is a
    problem (:func:`name_problem`), named by its escaped form (:func:`clean_text`), so that
    the rest of the class is graded and written.
    """
    found, problems = [], []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            inside = []
            for folder, dirs, files in os.walk(p, followlinks=False):
                dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints")
                inside += [Path(folder) / f for f in files if f.endswith(".ipynb")]
                inside += [Path(folder) / d for d in dirs
                           if d.endswith(".ipynb") and os.path.islink(Path(folder) / d)]
            if not inside:
                problems.append((_shown(p), "folder holds no notebook (*.ipynb)"))
            found.extend(sorted(inside))
        elif os.path.lexists(p):
            found.append(p)
        else:
            problems.append((_shown(p), "no such file or folder"))
    unique = []
    for path in dict.fromkeys(found):
        why = name_problem(path)
        if why:
            problems.append((clean_text(str(path)), why))
        else:
            unique.append(path)
    return unique, problems


@dataclass
class _Intake:
    """A submission read and parsed by the parent (or the reason it could not be)."""

    path: Path
    sha256: str = ""
    answers: dict | None = None
    error: str = ""


def _read(path: Path, max_bytes: int) -> _Intake:
    intake = _Intake(Path(path))
    try:
        data = read_submission(path, max_bytes)
        intake.sha256 = hashlib.sha256(data).hexdigest()
        intake.answers = answer_cells(read_notebook(data))
    except NotebookError as exc:
        intake.error = str(exc)
    except (RecursionError, MemoryError, ValueError) as exc:  # pragma: no cover - belt and braces
        intake.error = f"not a notebook ({type(exc).__name__})"
    return intake
