"""The grading command: score a folder of submitted notebooks, tamper-proof.

``kernelcourse grade PATH...`` (see :mod:`kernelcourse.__main__`) calls
:func:`grade_paths`. How a submission is scored:

1. The parent process reads the notebook file as JSON (never executing it and
   never writing to it) and picks the answer cells: code cells whose first
   line is ``# ANSWER <question id>``; when an id appears twice, the last
   cell wins. Nothing else in the notebook matters, so cells that redefine
   ``check``, print pass lines or edit expected values change nothing.
2. The questions graded are those of the exercise sets the answer ids belong
   to (``ex1`` for ``ex1.q3``), or the sets/ids given with ``--questions``.
   A question without an answer cell scores 0.
3. For each question the parent draws the cases (a fixed ``--seed``, the same
   for every submission), sends the answer cell's source and the inputs to the
   worker (:mod:`kernelcourse.grading.worker`: the same interpreter in isolated
   mode, in an empty folder), which runs that one answer in a child process
   forked for it alone (capped memory, killed on overrun): no two answers,
   of one submission or of two, ever share a process. The worker runs the student's function and returns only plain
   data as JSON; the parent computes the expected values with the package's
   reference and compares (:func:`kernelcourse.grading.core.score`). Nothing
   the worker sends is unpickled or executed.
4. The worker runs each answer in a child process of its own, killed when it
   overruns the question's time limit; an answer that exits or crashes
   (``sys.exit``, ``os._exit``, a signal, a memory bomb) costs that question
   only. A worker that stops answering is killed and restarted. A submission
   that overruns its own time limit keeps what it earned.

The gradebook (``gradebook.csv``, ``gradebook.json``) holds one row per
submission: the file, its sha256, the points per question, the points
possible, the total, the errors and the seconds taken.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from . import transport
from .core import Result, _fmt, score
from .questions import all_questions

__all__ = ["answer_cells", "grade_notebook", "grade_paths", "Submission", "write_gradebook",
           "find_notebooks", "DEFAULTS"]

ANSWER_LINE = re.compile(r"^#\s*ANSWER\s+(\S+)\s*$")

DEFAULTS = {
    "seed": 2026,
    "question_timeout": None,   # None: each question's own time_limit
    "submission_timeout": 300.0,
    "memory_mb": 2048,
}

_MAX_REPLY = 64 * 1024 * 1024


# --------------------------------------------------------------------- reading a notebook
class NotebookError(ValueError):
    """A file that cannot be read as a notebook."""


def _cell_source(cell) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def read_notebook(data: bytes) -> dict:
    """The notebook's JSON from the file's bytes; :class:`NotebookError` when unreadable."""
    try:
        nb = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotebookError(f"not a notebook (invalid JSON: {exc})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("not a notebook (no list of cells)")
    return nb


def answer_cells(nb: dict) -> dict[str, str]:
    """``{question id: source}`` of the answer cells; the last cell per id wins."""
    found: dict[str, str] = {}
    for cell in nb["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _cell_source(cell)
        first = source.lstrip("\n").split("\n", 1)[0]
        match = ANSWER_LINE.match(first.strip())
        if match:
            found[match.group(1)] = source
    return found


def find_notebooks(paths) -> tuple[list[Path], list[tuple[str, str]]]:
    """Expand files and folders into notebook paths; return them and the problems."""
    found, problems = [], []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            inside = sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
            if not inside:
                problems.append((str(p), "folder holds no notebook (*.ipynb)"))
            found.extend(inside)
        elif p.is_file():
            found.append(p)
        else:
            problems.append((str(p), "no such file or folder"))
    unique = list(dict.fromkeys(found))
    return unique, problems


# --------------------------------------------------------------------- the worker
class WorkerDied(RuntimeError):
    pass


class WorkerTimeout(RuntimeError):
    pass


class Worker:
    """A Python process that runs answers; see :mod:`kernelcourse.grading.worker`."""

    def __init__(self, memory_mb: int):
        self.memory_mb = memory_mb
        self.folder = tempfile.mkdtemp(prefix="kernelcourse-worker-")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                    "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"})
        # isolated mode (no PYTHON* variables, no user site, no current folder on sys.path),
        # with the folder holding this copy of kernelcourse put first on the path
        home = str(Path(__file__).resolve().parents[2])
        boot = ("import sys; sys.path.insert(0, sys.argv[1]); "
                "from kernelcourse.grading.worker import main; main(sys.argv[2:])")
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", boot, home, str(memory_mb)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=self.folder, env=env, start_new_session=True)
        self._buffer = b""
        self._next_id = ""
        try:
            self._read_line(deadline=time.monotonic() + 60.0)  # the "ready" line
        except (WorkerTimeout, WorkerDied):
            self.close()
            raise

    def _read_line(self, deadline: float) -> bytes:
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WorkerTimeout()
                if not selector.select(timeout=left):
                    continue
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise WorkerDied(self._exit_text())
                self._buffer += chunk
                if len(self._buffer) > _MAX_REPLY:
                    raise WorkerDied("the answer's output is too large")
        finally:
            selector.close()
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _exit_text(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the worker stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"the worker was killed by signal {name}"
        return f"the worker exited with code {code} (sys.exit or os._exit in the answer?)"

    def run(self, request: dict, timeout: float) -> dict:
        """Send one request; return the worker's reply for it.

        Each request carries a fresh random id, and only a line carrying that
        id is taken as the reply, so nothing an answer writes ahead of time
        can pass for the reply to a later request.
        """
        self._next_id = secrets.token_hex(8)
        request = {**request, "id": self._next_id}
        try:
            self.proc.stdin.write((json.dumps(request, separators=(",", ":")) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied(self._exit_text()) from None
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(deadline)
            try:
                reply = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # not a reply of ours
            if isinstance(reply, dict) and reply.get("id") == self._next_id:
                return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)


# --------------------------------------------------------------------- grading
@dataclass
class Submission:
    """One row of the gradebook."""

    file: str
    sha256: str = ""
    points: dict = field(default_factory=dict)
    possible: float = 0.0
    total: float = 0.0
    errors: list = field(default_factory=list)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"file": self.file, "sha256": self.sha256, "points": self.points,
                "possible": self.possible, "total": self.total, "errors": self.errors,
                "seconds": round(self.seconds, 2), "details": self.details}


def _question_seed(seed: int, question_id: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(question_id.encode())) % 2**32


def _selected(ids: list[str], selection: list[str] | None, registry: dict) -> list:
    """The questions to grade: whole sets named by the answers, or the selection."""
    wanted = set(selection or [])
    if not selection:
        wanted = {i.split(".", 1)[0] for i in ids if i in registry}
    return [q for q in registry.values() if q.id in wanted or q.set_name in wanted]


class WorkerPool:
    """The one worker of a run: started when first needed, restarted after it fails."""

    def __init__(self, memory_mb: int):
        self.memory_mb = memory_mb
        self.worker: Worker | None = None

    def start(self) -> None:
        if self.worker is None:
            try:
                self.worker = Worker(self.memory_mb)
            except (WorkerTimeout, WorkerDied):
                self.worker = None  # the first request tries again and reports

    def run(self, request: dict, timeout: float) -> dict:
        if self.worker is None:
            self.worker = Worker(self.memory_mb)
        try:
            return self.worker.run(request, timeout)
        except (WorkerTimeout, WorkerDied):
            self.close()
            raise

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def grade_notebook(path: Path, *, selection=None, seed=DEFAULTS["seed"],
                   question_timeout=DEFAULTS["question_timeout"],
                   submission_timeout=DEFAULTS["submission_timeout"],
                   memory_mb=DEFAULTS["memory_mb"], pool: WorkerPool | None = None) -> Submission:
    """Grade one notebook file; never raises for a bad submission.

    ``pool`` lets a run share one worker between submissions (each answer still
    runs in a process of its own, forked by the worker); without it the
    notebook gets a worker of its own.
    """
    registry = all_questions()  # imported once per process, not charged to a submission
    own_pool = pool is None
    pool = WorkerPool(memory_mb) if own_pool else pool
    try:
        pool.start()
        return _grade(Path(path), registry, pool, selection=selection, seed=seed,
                      question_timeout=question_timeout, submission_timeout=submission_timeout)
    finally:
        if own_pool:
            pool.close()


def _grade(path: Path, registry: dict, pool: "WorkerPool", *, selection, seed, question_timeout,
           submission_timeout) -> Submission:
    start = time.monotonic()
    row = Submission(file=str(path))
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        row.errors.append(f"cannot read the file: {exc.strerror or exc}")
        row.seconds = time.monotonic() - start
        return row
    row.sha256 = hashlib.sha256(data).hexdigest()
    try:
        nb = read_notebook(data)
    except NotebookError as exc:
        row.errors.append(str(exc))
        row.seconds = time.monotonic() - start
        return row
    answers = answer_cells(nb)
    unknown = sorted(i for i in answers if i not in registry)
    if unknown:
        row.errors.append("answer cells for unknown questions: " + ", ".join(unknown))
    questions = _selected(list(answers), selection, registry)
    if not questions:
        row.errors.append("no answer cell of a known question (a line '# ANSWER <id>' "
                          "opens each answer cell)")
    row.possible = sum(q.points for q in questions)
    for q in questions:
        row.points[q.id] = 0.0
        left = submission_timeout - (time.monotonic() - start)
        if q.id not in answers:
            row.details[q.id] = "no answer cell"
            row.errors.append(f"{q.id}: no answer cell")
            continue
        if left <= 0:
            row.details[q.id] = "not graded: the submission's time limit is over"
            row.errors.append(f"{q.id}: not graded, submission time limit of "
                              f"{submission_timeout:g} s is over")
            continue
        limit = q.time_limit if question_timeout is None else question_timeout
        try:
            cases = q.make_cases(_question_seed(seed, q.id))
            request = {"source": answers[q.id], "function": q.function, "time_limit": limit,
                       "cases": [[transport.encode(list(c.args)), transport.encode(c.kwargs)]
                                 for c in cases]}
        except Exception as exc:  # noqa: BLE001 - a broken question must not stop the run
            row.details[q.id] = f"not graded: the question's cases failed ({exc})"
            row.errors.append(f"{q.id}: not graded, internal error in the question: "
                              f"{type(exc).__name__}: {exc}")
            continue
        try:
            reply = pool.run(request, timeout=min(2 * limit + 4.0, left + 1.0))
        except WorkerTimeout:
            reason = ("the submission's time limit is over" if left < 2 * limit + 4.0
                      else "the worker stopped answering")
            row.details[q.id] = f"stopped: {reason}"
            row.errors.append(f"{q.id}: stopped, {reason}")
            continue
        except WorkerDied as exc:
            row.details[q.id] = str(exc)
            row.errors.append(f"{q.id}: {exc}")
            continue
        result = _judge(q, cases, reply)
        row.points[q.id] = round(result.points, 4)
        row.details[q.id] = result.line()
        if result.status == "error" or "outcomes" not in reply:
            row.errors.append(f"{q.id}: {result.detail}")
    row.total = round(sum(row.points.values()), 4)
    row.seconds = time.monotonic() - start
    return row


def _judge(question, cases, reply: dict) -> Result:
    if "outcomes" not in reply:
        return Result(question, "error", 0, len(cases), 0.0, str(reply.get("error", "no reply"))[:300])
    outcomes = reply["outcomes"]
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) for o in outcomes):
        return Result(question, "error", 0, len(cases), 0.0, "malformed reply from the worker")
    try:
        return score(question, cases, outcomes)
    except Exception as exc:  # noqa: BLE001 - a weird answer must not stop the run
        return Result(question, "error", 0, len(cases), 0.0,
                      f"could not compare the answer ({type(exc).__name__}: {exc})")


# --------------------------------------------------------------------- the run
def _progress(i: int, n: int, name: str, stream) -> None:
    width = 24
    filled = int(width * i / max(n, 1))
    bar = "#" * filled + "-" * (width - filled)
    end = "\n" if i == n or not stream.isatty() else ""
    stream.write(f"\r[{bar}] {i}/{n} {name[-50:]:<50}{end}")
    stream.flush()


def grade_paths(paths, *, output=".", selection=None, progress=True, stream=None, **options):
    """Grade every notebook under ``paths``; write the gradebook into ``output``.

    Returns the list of :class:`Submission` rows (bad paths included, with
    their error and 0 points).
    """
    stream = sys.stderr if stream is None else stream
    notebooks, problems = find_notebooks(paths)
    rows = [Submission(file=p, errors=[why]) for p, why in problems]
    for p, why in problems:
        stream.write(f"skipping {p}: {why}\n")
    pool = WorkerPool(options.get("memory_mb", DEFAULTS["memory_mb"]))
    try:
        if notebooks:
            pool.start()  # its start-up is not charged to the first submission
        for i, path in enumerate(notebooks, 1):
            rows.append(grade_notebook(path, selection=selection, pool=pool, **options))
            if progress:
                _progress(i, len(notebooks), str(path), stream)
    finally:
        pool.close()
    write_gradebook(rows, Path(output), options.get("seed", DEFAULTS["seed"]))
    return rows


def _columns(rows) -> list[str]:
    order = list(all_questions())
    seen = {q for r in rows for q in r.points}
    return [q for q in order if q in seen]


def write_gradebook(rows, output: Path, seed: int) -> tuple[Path, Path]:
    """Write ``gradebook.csv`` and ``gradebook.json`` into ``output``."""
    output.mkdir(parents=True, exist_ok=True)
    columns = _columns(rows)
    csv_path, json_path = output / "gradebook.csv", output / "gradebook.json"
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["file", *columns, "total", "possible", "errors", "seconds", "sha256"])
        for r in rows:
            writer.writerow([r.file, *[r.points.get(c, "") for c in columns], r.total, r.possible,
                             " | ".join(r.errors), f"{r.seconds:.2f}", r.sha256])
    registry = all_questions()
    book = {"seed": seed,
            "questions": {c: registry[c].points for c in columns},
            "submissions": [r.as_dict() for r in rows]}
    json_path.write_text(json.dumps(book, indent=1) + "\n", encoding="utf-8")
    return csv_path, json_path


def _short_names(files: list[str]) -> list[str]:
    """The files relative to the folder they share (whole paths when that fails)."""
    if not files:
        return []
    try:
        base = os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files])
        return [os.path.relpath(os.path.abspath(f), base) for f in files]
    except ValueError:
        return list(files)


def summary_table(rows) -> str:
    """A plain-text table: one line per submission, points per question."""
    columns = _columns(rows)
    names = _short_names([r.file for r in rows])
    name_w = max([len("file")] + [len(n) for n in names])
    col_w = [max(len(c), 5) for c in columns]
    head = ["file".ljust(name_w), *[c.rjust(w) for c, w in zip(columns, col_w)],
            "total".rjust(11), "errors".rjust(6), "seconds".rjust(7)]
    lines = ["  ".join(head)]
    for r, name in zip(rows, names):
        cells = [name.ljust(name_w)]
        cells += [(_fmt(r.points[c]) if c in r.points else "-").rjust(w)
                  for c, w in zip(columns, col_w)]
        cells += [f"{_fmt(r.total)}/{_fmt(r.possible)}".rjust(11), str(len(r.errors)).rjust(6),
                  f"{r.seconds:.1f}".rjust(7)]
        lines.append("  ".join(cells))
    return "\n".join(lines)
