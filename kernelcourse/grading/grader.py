"""The grading command: score a folder of submitted notebooks, sealed and tamper-proof.

``kernelcourse grade PATH...`` (see :mod:`kernelcourse.__main__`) calls
:func:`grade_paths`. How a submission is scored:

1. **Intake.** The parent process reads each notebook file as bytes, and only
   a regular file (no symbolic link, FIFO or device) under the size cap; it
   parses the JSON (never executing it and never writing to it) and picks the
   answer cells: code cells whose first line is ``# ANSWER <question id>``;
   when an id appears twice, the last cell wins. Nothing else in the notebook
   matters. A file that cannot be read or parsed (nested too deep, a number
   too long) is reported in its own row while the run goes on.
2. **The assignment** is fixed for the whole run: the sets or ids given with
   ``--questions``, or else the one exercise set most submissions answer
   (each submission counts for the set most of its answer cells belong to).
   Every submission is graded on the same questions out of the same total;
   answer cells for other questions are ignored and reported.
3. **Sealed answers.** Each submission gets a fresh worker
   (:mod:`kernelcourse.grading.worker`) inside a sandbox
   (:mod:`kernelcourse.grading.sandbox`: bubblewrap, no network, no view of
   the submissions, the gradebook, the home folder or the checkout, a private
   scratch folder, its own PID namespace, a memory cap on its whole process
   tree). For each question the parent draws the cases (a fixed ``--seed``,
   the same for every submission) and sends the answer cell's source, the
   inputs and the names the question forbids; the worker runs that one
   answer in a child process forked for it alone and returns only plain data
   as JSON, bounded in size and depth; the parent computes the expected
   values with the package's reference and compares
   (:func:`kernelcourse.grading.core.score`). Nothing the worker sends is
   unpickled or executed. An answer that uses the course's reference (read
   in its source, or caught by a tripwire as it runs) scores 0 for it.
4. **Failures cost their own points.** An answer that exits, crashes, loops or
   runs out of memory costs that question only; a worker that stops
   answering is killed and a fresh one takes the next question; a submission
   that overruns its own time limit keeps what it earned.
5. **Output.** Submissions are graded side by side (``--jobs``); the gradebook
   rows keep the order of the files, so a parallel run's gradebook equals the
   serial one but for the timings. ``gradebook.csv`` and ``gradebook.json``
   are rewritten atomically after every submission, so a run that is killed
   keeps the rows already graded. Text that came from a submission (its
   errors, its file name) is escaped before it reaches the console or the
   CSV.

The gradebook holds one row per submission: the file, its sha256, the points
per question, the points possible, the total, the errors and the seconds
taken; the JSON also records the assignment, the seed and the sandbox.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import secrets
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import transport
from .core import Result, _fmt, score
from .questions import all_questions
from .sandbox import Sandbox, TreeMemoryLimit, probe
from .shortcuts import static_uses

__all__ = ["answer_cells", "grade_notebook", "grade_paths", "Submission", "write_gradebook",
           "find_notebooks", "read_submission", "choose_assignment", "clean_text", "DEFAULTS"]

ANSWER_LINE = re.compile(r"^#\s*ANSWER\s+(\S+)\s*$")

DEFAULTS = {
    "seed": 2026,
    "question_timeout": None,   # None: each question's own time_limit
    "submission_timeout": 300.0,
    "memory_mb": 2048,
    "max_notebook_mb": 16,
}

_MAX_REPLY = 16 * 1024 * 1024
_MAX_DEPTH = 64


# --------------------------------------------------------------------- text from submissions
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def clean_text(text, limit: int = 2000) -> str:
    """``text`` with every control character (ANSI escapes, newlines, carriage returns,
    bidirectional overrides) written as an escape, cut to ``limit`` characters."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                        else f"\\u{ord(m.group()):04x}", str(text))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _csv_cell(text) -> str:
    """A CSV field no spreadsheet takes for a formula."""
    text = clean_text(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


# --------------------------------------------------------------------- reading a notebook
class NotebookError(ValueError):
    """A file that cannot be read as a notebook."""


def _cell_source(cell) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _json_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest (strings skipped), without parsing it."""
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
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError("not a notebook (no list of cells)")
    return nb


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
    """Expand files and folders into notebook paths; return them and the problems.

    Inside a folder, every entry named ``*.ipynb`` is taken (symbolic links and
    other special files too, so that they are reported rather than skipped in
    silence); links to folders are not followed.
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
                problems.append((str(p), "folder holds no notebook (*.ipynb)"))
            found.extend(sorted(inside))
        elif os.path.lexists(p):
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
    """A Python process that runs answers (:mod:`kernelcourse.grading.worker`), sealed in
    ``sandbox`` (a :class:`~kernelcourse.grading.sandbox.Sandbox`; None: a plain process),
    its whole process tree under a memory cap of ``memory_mb``."""

    def __init__(self, memory_mb: int, sandbox: Sandbox | None = None):
        self.memory_mb = memory_mb
        self.limit = TreeMemoryLimit(memory_mb)
        env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
        # isolated mode (no PYTHON* variables, no user site, no current folder on sys.path),
        # with the folder holding this copy of kernelcourse put first on the path
        home = str(Path(__file__).resolve().parents[2])
        boot = ("import sys; sys.path.insert(0, sys.argv[1]); "
                "from kernelcourse.grading.worker import main; main(sys.argv[2:])")
        argv = [sys.executable, "-I", "-c", boot, home, str(memory_mb),
                "sandboxed" if sandbox else "plain"]
        if sandbox is not None:
            self.folder = None
            command, cwd = sandbox.command(argv, env), None
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        else:
            self.folder = tempfile.mkdtemp(prefix="kernelcourse-worker-")
            command, cwd = argv, self.folder
            env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, **env}
        try:
            self.proc = subprocess.Popen(
                self.limit.wrap(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, cwd=cwd, env=env, start_new_session=True,
                close_fds=True)
        except OSError as exc:
            self.limit.close()
            raise WorkerDied(f"the worker could not be started: {exc}") from None
        self.limit.watch(self.proc.pid)
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
        if self.limit.oom_killed():
            return (f"the answer ran out of memory (the cap of {self.memory_mb} MB on all of "
                    f"its processes)")
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
        can pass for the reply to a later request. Replies are bounded in
        size and in depth.
        """
        self._next_id = secrets.token_hex(8)
        request = {**request, "id": self._next_id}
        oom_kills = self.limit.oom_kills()
        try:
            self.proc.stdin.write((json.dumps(request, separators=(",", ":")) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied(self._exit_text()) from None
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(deadline)
            try:
                reply = bounded_json(line, "the reply", max_depth=transport.MAX_DEPTH + 8)
            except ValueError:
                continue  # not a reply of ours
            if isinstance(reply, dict) and reply.get("id") == self._next_id:
                break
        if self.limit.oom_kills() > oom_kills:  # a process of this answer was killed for it
            uses = reply.get("uses") if isinstance(reply.get("uses"), list) else []
            return {"id": self._next_id, "uses": uses,
                    "error": f"the answer ran out of memory (the cap of {self.memory_mb} MB "
                             f"on all of its processes)"}
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
        self.limit.close()
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


class WorkerPool:
    """The worker of one submission: started when first needed, replaced after it fails."""

    def __init__(self, memory_mb: int, sandbox: Sandbox | None = None):
        self.memory_mb = memory_mb
        self.sandbox = sandbox
        self.worker: Worker | None = None

    def start(self) -> None:
        if self.worker is None:
            try:
                self.worker = Worker(self.memory_mb, self.sandbox)
            except (WorkerTimeout, WorkerDied):
                self.worker = None  # the first request tries again and reports

    def run(self, request: dict, timeout: float) -> dict:
        if self.worker is None:
            self.worker = Worker(self.memory_mb, self.sandbox)
        try:
            return self.worker.run(request, timeout)
        except (WorkerTimeout, WorkerDied):
            self.close()
            raise

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


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


def _selected(selection: list[str], registry: dict) -> list:
    """The questions named by ``selection`` (set names or question ids), in registry order."""
    wanted = set(selection)
    return [q for q in registry.values() if q.id in wanted or q.set_name in wanted]


def _main_set(ids, registry: dict) -> str | None:
    """The set most of these answer ids belong to (the first such set on a tie)."""
    counts = Counter(registry[i].set_name for i in ids if i in registry)
    if not counts:
        return None
    order = list(dict.fromkeys(q.set_name for q in registry.values()))
    return max(counts, key=lambda s: (counts[s], -order.index(s)))


def choose_assignment(answer_ids: list, selection=None, registry=None) -> list[str]:
    """The run's question selection: ``selection`` when given, else the one set most
    submissions answer (``answer_ids`` holds each readable submission's answer ids)."""
    registry = all_questions() if registry is None else registry
    if selection:
        return list(selection)
    votes = Counter(s for s in (_main_set(ids, registry) for ids in answer_ids) if s)
    if not votes:
        return []
    order = list(dict.fromkeys(q.set_name for q in registry.values()))
    return [max(votes, key=lambda s: (votes[s], -order.index(s)))]


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


def grade_notebook(path: Path, *, selection=None, seed=DEFAULTS["seed"],
                   question_timeout=DEFAULTS["question_timeout"],
                   submission_timeout=DEFAULTS["submission_timeout"],
                   memory_mb=DEFAULTS["memory_mb"], sandbox="auto",
                   max_notebook_mb=DEFAULTS["max_notebook_mb"]) -> Submission:
    """Grade one notebook file in a fresh sealed worker; never raises for a bad submission.

    ``selection`` fixes the questions (default: the set most of its answer
    cells belong to). ``sandbox``: ``"auto"`` (find one, or raise
    :class:`~kernelcourse.grading.sandbox.SandboxUnavailable`), a
    :class:`~kernelcourse.grading.sandbox.Sandbox`, or None for none.
    """
    sandbox = probe() if sandbox == "auto" else sandbox
    intake = _read(Path(path), int(max_notebook_mb * 1024 * 1024))
    if selection is None and intake.answers:
        selection = choose_assignment([list(intake.answers)])
    return _grade(intake, all_questions(), selection or [], sandbox, seed=seed,
                  question_timeout=question_timeout, submission_timeout=submission_timeout,
                  memory_mb=memory_mb)


def _grade(intake: _Intake, registry: dict, selection: list, sandbox, *, seed, question_timeout,
           submission_timeout, memory_mb) -> Submission:
    """Grade one read submission; any failure of the grader itself becomes an error row."""
    start = time.monotonic()
    row = Submission(file=str(intake.path), sha256=intake.sha256)
    try:
        _grade_answers(row, intake, registry, selection, sandbox, start, seed=seed,
                       question_timeout=question_timeout, submission_timeout=submission_timeout,
                       memory_mb=memory_mb)
    except Exception as exc:  # noqa: BLE001 - one submission must never stop the run
        row.errors.append(f"not graded: internal error of the grader ({type(exc).__name__}: "
                          f"{clean_text(exc, 200)})")
    row.errors = [clean_text(e, 600) for e in row.errors]
    row.details = {k: clean_text(v, 600) for k, v in row.details.items()}
    row.total = round(sum(row.points.values()), 4)
    row.seconds = time.monotonic() - start
    return row


def _grade_answers(row, intake, registry, selection, sandbox, start, *, seed, question_timeout,
                   submission_timeout, memory_mb) -> None:
    if intake.error:
        row.errors.append(intake.error)
        return
    answers = intake.answers
    questions = _selected(selection, registry)
    row.possible = sum(q.points for q in questions)
    unknown = sorted(i for i in answers if i not in registry)
    if unknown:
        row.errors.append("answer cells for unknown questions: " + ", ".join(unknown[:20]))
    outside = sorted(i for i in answers if i in registry and i not in {q.id for q in questions})
    if outside and questions:
        row.errors.append("answer cells outside the assignment, not graded: "
                          + ", ".join(outside[:20]))
    if not any(q.id in answers for q in questions):
        row.errors.append("no answer cell of a question of the assignment (a line "
                          "'# ANSWER <id>' opens each answer cell)")
    pool = WorkerPool(memory_mb, sandbox)
    try:
        if any(q.id in answers for q in questions):
            pool.start()
            start = time.monotonic()  # the worker's start-up is not the submission's time
        for q in questions:
            _grade_question(row, q, answers, pool, start, seed=seed,
                            question_timeout=question_timeout,
                            submission_timeout=submission_timeout)
    finally:
        pool.close()


def _grade_question(row, q, answers, pool, start, *, seed, question_timeout,
                    submission_timeout) -> None:
    row.points[q.id] = 0.0
    left = submission_timeout - (time.monotonic() - start)
    if q.id not in answers:
        row.details[q.id] = "no answer cell"
        row.errors.append(f"{q.id}: no answer cell")
        return
    if left <= 0:
        row.details[q.id] = "not graded: the submission's time limit is over"
        row.errors.append(f"{q.id}: not graded, submission time limit of "
                          f"{submission_timeout:g} s is over")
        return
    limit = q.time_limit if question_timeout is None else question_timeout
    try:
        cases = q.make_cases(_question_seed(seed, q.id))
        forbidden = q.shortcut_objects()
        request = {"source": answers[q.id], "function": q.function, "time_limit": limit,
                   "forbidden": list(q.forbidden),
                   "cases": [[transport.encode(list(c.args)), transport.encode(c.kwargs)]
                             for c in cases]}
    except Exception as exc:  # noqa: BLE001 - a broken question must not stop the run
        row.details[q.id] = f"not graded: the question's cases failed ({exc})"
        row.errors.append(f"{q.id}: not graded, internal error in the question: "
                          f"{type(exc).__name__}: {exc}")
        return
    uses = set(static_uses(answers[q.id], forbidden))
    try:
        reply = pool.run(request, timeout=min(2 * limit + 4.0, left + 1.0))
    except WorkerTimeout:
        why = ("the submission's time limit is over" if left < 2 * limit + 4.0
               else "the worker stopped answering")
        row.details[q.id] = f"stopped: {why}"
        row.errors.append(f"{q.id}: stopped, {why}")
        return
    except WorkerDied as exc:
        row.details[q.id] = str(exc)
        row.errors.append(f"{q.id}: {exc}")
        return
    names = {name for name, _ in forbidden.values()}
    reported = reply.get("uses") if isinstance(reply.get("uses"), list) else []
    uses |= {u for u in reported if u in names}
    result = _judge(q, cases, reply, sorted(uses))
    row.points[q.id] = round(result.points, 4)
    row.details[q.id] = result.line()
    if result.status == "error" or "outcomes" not in reply:
        row.errors.append(f"{q.id}: {result.detail}")


def _judge(question, cases, reply: dict, uses) -> Result:
    if uses:
        return score(question, cases, [], uses=uses)
    if "outcomes" not in reply:
        return Result(question, "error", 0, len(cases), 0.0,
                      clean_text(reply.get("error", "no reply"), 300))
    outcomes = reply["outcomes"]
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) for o in outcomes):
        return Result(question, "error", 0, len(cases), 0.0, "malformed reply from the worker")
    try:
        return score(question, cases, outcomes)
    except Exception as exc:  # noqa: BLE001 - a weird answer must not stop the run
        return Result(question, "error", 0, len(cases), 0.0,
                      f"could not compare the answer ({type(exc).__name__}: "
                      f"{clean_text(exc, 200)})")


# --------------------------------------------------------------------- the run
def _progress(i: int, n: int, name: str, stream) -> None:
    width = 24
    filled = int(width * i / max(n, 1))
    bar = "#" * filled + "-" * (width - filled)
    end = "\n" if i == n or not stream.isatty() else ""
    stream.write(f"\r[{bar}] {i}/{n} {clean_text(name[-50:]):<50}{end}")
    stream.flush()


def grade_paths(paths, *, output=".", selection=None, progress=True, stream=None, jobs=None,
                sandbox="auto", **options):
    """Grade every notebook under ``paths``; write the gradebook into ``output``.

    ``jobs`` submissions are graded side by side (default: the number of
    cores). ``sandbox`` as in :func:`grade_notebook`. The gradebook is
    rewritten atomically after each submission. Returns the
    :class:`Submission` rows, in the order of the files (bad paths first,
    with their error and 0 points).
    """
    stream = sys.stderr if stream is None else stream
    sandbox = probe() if sandbox == "auto" else sandbox
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    max_bytes = int(options.pop("max_notebook_mb", DEFAULTS["max_notebook_mb"]) * 1024 * 1024)
    registry = all_questions()
    notebooks, problems = find_notebooks(paths)
    rows: list = [Submission(file=p, errors=[why]) for p, why in problems]
    for p, why in problems:
        stream.write(f"skipping {clean_text(p)}: {why}\n")
    intakes = [_read(p, max_bytes) for p in notebooks]
    assignment = choose_assignment([list(i.answers) for i in intakes if i.answers is not None],
                                   selection, registry)
    slots: list = [None] * len(intakes)
    book = _Gradebook(Path(output), options.get("seed", DEFAULTS["seed"]), assignment, sandbox)
    done = 0
    lock = threading.Lock()

    def grade_one(index: int) -> None:
        nonlocal done
        row = _grade(intakes[index], registry, assignment, sandbox, **_grading_options(options))
        with lock:
            slots[index] = row
            done += 1
            book.write(rows + [r for r in slots if r is not None])
            if progress:
                _progress(done, len(intakes), str(intakes[index].path), stream)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(grade_one, i) for i in range(len(intakes))]:
            future.result()
    rows += slots
    book.write(rows)
    return rows


def _grading_options(options: dict) -> dict:
    return {"seed": options.get("seed", DEFAULTS["seed"]),
            "question_timeout": options.get("question_timeout", DEFAULTS["question_timeout"]),
            "submission_timeout": options.get("submission_timeout",
                                              DEFAULTS["submission_timeout"]),
            "memory_mb": options.get("memory_mb", DEFAULTS["memory_mb"])}


def _columns(rows, assignment=()) -> list[str]:
    order = list(all_questions())
    seen = {q for r in rows for q in r.points} | set(_ids_of(assignment))
    return [q for q in order if q in seen]


def _ids_of(assignment) -> list[str]:
    return [q.id for q in _selected(list(assignment), all_questions())]


class _Gradebook:
    """``gradebook.csv`` and ``gradebook.json`` in ``output``, each replaced atomically."""

    def __init__(self, output: Path, seed: int, assignment, sandbox):
        self.output, self.seed, self.assignment = output, seed, list(assignment)
        self.sandbox = sandbox.describe() if sandbox is not None else "none (--no-sandbox)"

    def write(self, rows) -> tuple[Path, Path]:
        return write_gradebook(rows, self.output, self.seed, self.assignment, self.sandbox)


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and an atomic rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_gradebook(rows, output: Path, seed: int, assignment=(), sandbox="") -> tuple[Path, Path]:
    """Write ``gradebook.csv`` and ``gradebook.json`` into ``output`` (atomically)."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    columns = _columns(rows, assignment)
    csv_path, json_path = output / "gradebook.csv", output / "gradebook.json"
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["file", *columns, "total", "possible", "errors", "seconds", "sha256"])
    for r in rows:
        writer.writerow([_csv_cell(r.file), *[r.points.get(c, "") for c in columns], r.total,
                         r.possible, _csv_cell(" | ".join(r.errors)), f"{r.seconds:.2f}",
                         r.sha256])
    registry = all_questions()
    book = {"seed": seed,
            "assignment": list(assignment),
            "sandbox": sandbox,
            "questions": {c: registry[c].points for c in columns},
            "submissions": [{**r.as_dict(), "file": clean_text(r.file)} for r in rows]}
    _replace(csv_path, buffer.getvalue())
    _replace(json_path, json.dumps(book, indent=1) + "\n")
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
    names = [clean_text(n, 80) for n in _short_names([r.file for r in rows])]
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
