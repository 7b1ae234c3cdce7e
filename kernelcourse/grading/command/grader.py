"""The grading command: score a folder of submitted notebooks, sealed and tamper-proof.

``kernelcourse grade PATH...`` (see :mod:`kernelcourse.__main__`) calls
:func:`grade_paths`. How a submission is scored:

1. **Intake** (:mod:`kernelcourse.grading.intake.notebooks`). The parent process reads
   each notebook file as bytes, and only a regular file (no symbolic link,
   FIFO or device) under the size cap; it parses the JSON (never executing it
   and never writing to it) and picks the answer cells: code cells whose first
   line is ``# ANSWER <question id>``; when an id appears twice, the last cell
   wins. Nothing else in the notebook matters. A file that cannot be read or
   parsed (nested too deep, a number too long) is reported in its own row
   while the run goes on.
2. **The assignment** (:mod:`kernelcourse.grading.gradebook.assignment`) is fixed for
   the whole run: the sets or ids given with ``--questions``, or else the one
   exercise set most submissions answer (each submission counts for the set
   most of its answer cells belong to). Every submission is graded on the same
   questions out of the same total; answer cells for other questions are
   ignored and reported.
3. **Sealed answers.** Each job (``--jobs``) has one worker
   (:mod:`kernelcourse.grading.sealed.worker`, driven from here through
   :mod:`kernelcourse.grading.sealed.pool`) inside a sandbox
   (:mod:`kernelcourse.grading.sealed.sandbox`: bubblewrap, no network, no view of
   the submissions, the gradebook, the home folder, the checkout or the
   package's own folder, a memory cap on its whole process tree); each
   submission is read and graded by a process of its own, forked by the
   worker before it holds any submission, in a PID and mount namespace of its
   own (a private scratch folder), that ends with the submission and takes
   every process it left with it. For each question the
   parent draws the cases (from the instructor's secret and a fresh draw token
   per submission and attempt, :mod:`kernelcourse.grading.command.draws`, the token
   recorded in the gradebook; or, with ``--seed``, from that seed, the same
   for every submission) and sends the answer cell's source (as IPython would run it),
   the inputs and the names the question forbids; the worker runs that one
   answer in a child process forked for it alone and returns only plain
   data as JSON, bounded in size and depth; the parent computes the expected
   values with the package's reference and compares
   (:func:`kernelcourse.grading.checking.scoring.score`). Nothing the worker sends is
   unpickled or executed. An answer that uses the course's reference (read
   in its source, or caught by a tripwire as it runs) scores 0 for it.
4. **Failures cost their own points.** An answer that exits, crashes, loops or
   runs out of memory costs that question only; a worker that stops
   answering is killed and a fresh one takes the next question; a submission
   that overruns its own time limit keeps what it earned.
5. **Output** (:mod:`kernelcourse.grading.gradebook.book`). Submissions are graded
   side by side (``--jobs``); the gradebook rows keep the order of the files,
   so a parallel run's gradebook equals the serial one but for the timings.
   ``gradebook.csv`` and ``gradebook.json`` are rewritten atomically after
   every submission, so a run that is killed keeps the rows already graded.
   Text that came from a submission (its errors, its file name) is escaped
   (control, invisible and bidirectional characters) before it reaches the
   console, the CSV or the JSON.

The gradebook holds one row per submission: the file, its sha256, the points
per question, the points possible, the total, the errors and the seconds
taken, and how each question's cases were drawn (its draw token, or the seed);
the JSON also records the assignment, the key file's name and the sandbox.

This module holds the run itself (:func:`grade_paths`, :func:`grade_notebook`);
every name of the parts above stays importable from here.
"""
from __future__ import annotations

import os
import secrets
import sys
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..checking.scoring import LINE_LIMIT, Result, _fmt, score
from ..gradebook.assignment import _main_set, _selected, choose_assignment
from ..gradebook.book import (Submission, _columns, _csv_cell, _Gradebook, _ids_of, _replace,
                              _short_names, feedback_record, summary_table, write_gradebook)
from ..gradebook.history import archive, book_files, file_key, load_rows, merge, stamp
from ..intake.notebooks import (_CONTROL, _JSON_STRING, _MAX_DEPTH, _NOT_BRACKET, ANSWER_LINE,
                                NotebookError, _cell_source, _file_kind, _Intake, _json_depth,
                                _read, answer_cells, bounded_json, cell_problem, clean_text,
                                find_notebooks, python_source, read_notebook, read_submission,
                                static_source)
from ..model import transport
from ..model.shortcuts import static_uses
from ..questions import all_questions
from ..sealed.pool import _MAX_REPLY, Worker, WorkerDied, WorkerPool, WorkerTimeout
from ..sealed.sandbox import Sandbox, TreeMemoryLimit, limits_notice, probe
from .draws import load_secret, new_secret, new_token, question_seed, secret_file

__all__ = ["answer_cells", "grade_notebook", "grade_paths", "Submission", "write_gradebook",
           "find_notebooks", "read_submission", "choose_assignment", "clean_text", "DEFAULTS"]

DEFAULTS = {
    "seed": None,               # None: draws from the secret, per submission and attempt
    "secret": None,             # the secret's bytes (None with a seed: a fresh one per call)
    "draw": None,               # a draw token to replay (None: a fresh one per submission)
    "question_timeout": None,   # None: each question's own time_limit
    "submission_timeout": 300.0,
    "memory_mb": 2048,
    "max_notebook_mb": 16,
}


def new_seed() -> int:
    """A fresh random seed (for an instructor's own tests; graded runs draw from the secret)."""
    return secrets.randbits(62)


def _question_seed(seed: int, question_id: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(question_id.encode())) % 2**32


class _Draws:
    """How one submission's cases are drawn: from an instructor's ``seed`` (the same for every
    submission), from the ``secret`` and this attempt's draw ``token``, or, replaying a
    gradebook row, as ``recorded`` per question (``{id: {"seed": s} or {"draw": token}}``)."""

    def __init__(self, seed=None, secret=None, token=None, recorded=None):
        self.seed, self.secret, self.token, self.recorded = seed, secret, token, recorded

    def record(self, question_id: str) -> dict:
        """What the gradebook keeps to replay the question: its seed, or its draw token."""
        if self.recorded is not None:
            found = self.recorded.get(question_id)
            if not found:
                raise ValueError(f"the row replayed has no draw for {question_id}")
            return dict(found)
        return {"seed": self.seed} if self.seed is not None else {"draw": self.token}

    def of(self, question_id: str) -> int:
        how = self.record(question_id)
        if how.get("seed") is not None:
            return _question_seed(int(how["seed"]), question_id)
        return question_seed(self.secret, str(how["draw"]), question_id)


# (question id, id(question), question seed) -> (question, cases, cases as sent): the same
# for every submission of a run, so made once (the question is kept, so its id is not reused)
_CASES: dict = {}


def _cases_of(q, seed: int) -> tuple[list, list]:
    """The question's cases from ``seed``, and their transport form (made once per run)."""
    key = (q.id, id(q), seed)
    found = _CASES.get(key)
    if found is None or found[0] is not q:
        cases = q.make_cases(seed)
        sent = [[transport.encode(list(c.args)), transport.encode(c.kwargs)] for c in cases]
        if len(_CASES) > 256:
            _CASES.clear()
        found = _CASES[key] = (q, cases, sent)
    return found[1], found[2]


# (question id, id(question)) -> (question, number of modules loaded, its shortcut objects):
# what an answer to the question may not use, found once per run, not once per answer (the
# grader's own functions are looked for among every module loaded: found again whenever a
# module has been loaded since)
_SHORTCUTS: dict = {}


def _shortcuts_of(q) -> dict:
    """``q.shortcut_objects()``, kept while no module has been loaded since it was made."""
    key = (q.id, id(q))
    found = _SHORTCUTS.get(key)
    if found is None or found[0] is not q or found[1] != len(sys.modules):
        if len(_SHORTCUTS) > 256:
            _SHORTCUTS.clear()
        objects = q.shortcut_objects()
        found = _SHORTCUTS[key] = (q, len(sys.modules), objects)
    return found[2]


def grade_notebook(path: Path, *, selection=None, seed=DEFAULTS["seed"],
                   secret=DEFAULTS["secret"], draw=DEFAULTS["draw"],
                   question_timeout=DEFAULTS["question_timeout"],
                   submission_timeout=DEFAULTS["submission_timeout"],
                   memory_mb=DEFAULTS["memory_mb"], sandbox="auto",
                   max_notebook_mb=DEFAULTS["max_notebook_mb"], pool=None) -> Submission:
    """Grade one notebook file in a fresh sealed worker; never raises for a bad submission.

    ``selection`` fixes the questions (default: the set most of its answer
    cells belong to). ``sandbox``: ``"auto"`` (find one, or raise
    :class:`~kernelcourse.grading.sealed.sandbox.SandboxUnavailable`), a
    :class:`~kernelcourse.grading.sealed.sandbox.Sandbox`, or None for none.
    ``pool``: a :class:`~kernelcourse.grading.sealed.pool.WorkerPool` made with the same
    sandbox and ``memory_mb``, whose worker grades this file in a process of its own (as
    ``kernelcourse grade`` grades a folder), or None to start a worker for this file.
    ``seed``: every question's cases from this seed; else from ``secret`` (a fresh one when
    None) and the draw token ``draw`` (a fresh one when None).
    """
    sandbox = probe() if sandbox == "auto" else sandbox
    if seed is None and secret is None:
        secret = new_secret()
    intake = _read(Path(path), int(max_notebook_mb * 1024 * 1024))
    if selection is None and intake.answers:
        selection = choose_assignment([list(intake.answers)])
    return _grade(intake, all_questions(), selection or [], sandbox, seed=seed,
                  secret=secret, draw=draw, question_timeout=question_timeout, submission_timeout=submission_timeout,
                  memory_mb=memory_mb, pool=pool)


def _grade(intake: _Intake, registry: dict, selection: list, sandbox, *, seed, question_timeout,
           submission_timeout, memory_mb, pool=None, secret=None, draw=None,
           replay=None) -> Submission:
    """Grade one read submission; any failure of the grader itself becomes an error row.
    ``pool``: the job's :class:`WorkerPool` (reset for this submission), or None for a worker
    of its own. The cases come from ``seed`` when given, else from ``secret`` and the draw
    token ``draw`` (a fresh one for this attempt when None); ``replay`` maps a file (as
    :func:`~kernelcourse.grading.gradebook.history.file_key` writes it) to the draws its
    gradebook row records, which are replayed."""
    start = time.monotonic()
    row = Submission(file=str(intake.path), sha256=intake.sha256)
    if replay is not None:
        recorded = replay.get(file_key(str(intake.path)))
        if recorded is None:
            row.errors.append("not graded: the gradebook replayed has no row for this file")
            return row
        draws = _Draws(secret=secret, recorded=recorded)
    elif seed is not None:
        draws = _Draws(seed=seed)
    else:
        draws = _Draws(secret=secret, token=draw or new_token())
    try:
        _grade_answers(row, intake, registry, selection, sandbox, start, draws=draws,
                       question_timeout=question_timeout, submission_timeout=submission_timeout,
                       memory_mb=memory_mb, pool=pool)
    except Exception as exc:  # noqa: BLE001 - one submission must never stop the run
        row.errors.append(f"not graded: internal error of the grader ({type(exc).__name__}: "
                          f"{clean_text(exc, 200)})")
    row.errors = [clean_text(e, 600) for e in row.errors]
    # a verdict line is at most scoring.LINE_LIMIT characters with its diagnosis whole (the
    # failing case is what gets shortened); the margin is for escaped control characters
    row.details = {k: clean_text(v, 2 * LINE_LIMIT) for k, v in row.details.items()}
    row.total = round(sum(row.points.values()), 4)
    row.seconds = time.monotonic() - start
    return row


def _grade_answers(row, intake, registry, selection, sandbox, start, *, draws, question_timeout,
                   submission_timeout, memory_mb, pool=None) -> None:
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
    own = pool is None
    pool = WorkerPool(memory_mb, sandbox) if own else pool
    try:
        if any(q.id in answers for q in questions):
            pool.next_submission()  # a fresh worker, or the job's worker reset
            start = time.monotonic()  # the worker's start-up is not the submission's time
        for q in questions:
            _grade_question(row, q, answers, pool, start, draws=draws,
                            question_timeout=question_timeout,
                            submission_timeout=submission_timeout)
    finally:
        if own:
            pool.close()
        else:  # its process ends while the grader writes the row
            pool.finish_submission()


def _grade_question(row, q, answers, pool, start, *, draws, question_timeout,
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
        cases, sent = _cases_of(q, draws.of(q.id))
        fixed = sum(bool(getattr(c, "fixed", False)) for c in cases)
        row.cases[q.id] = {**draws.record(q.id), "fixed": fixed, "drawn": len(cases) - fixed}
        forbidden = _shortcuts_of(q)
        cell = answers[q.id]
        source = static_source(cell)  # for reading; IPython's transformation runs sealed
        request = {"cell": cell, "function": q.function,
                   "time_limit": limit,
                   "forbidden": list(q.forbidden),
                   "cases": sent}
    except Exception as exc:  # noqa: BLE001 - a broken question must not stop the run
        row.details[q.id] = f"not graded: the question's cases failed ({exc})"
        row.errors.append(f"{q.id}: not graded, internal error in the question: "
                          f"{type(exc).__name__}: {exc}")
        return
    problem = cell_problem(cell)  # bounded work on submitted text (intake's caps)
    if problem:
        row.details[q.id] = Result(q, "error", 0, len(cases), 0.0, problem).line()
        row.errors.append(f"{q.id}: {problem}")
        return
    uses = set(static_uses(source, forbidden))
    # the worker's own backstop, and more (its deadlines count CPU time, not the time an
    # answer waited for a CPU)
    wall = pool.wall_seconds(limit) + 1.0
    try:
        reply = pool.run(request, timeout=min(wall, left + 1.0))
    except WorkerTimeout:
        why = ("the submission's time limit is over" if left < wall
               else "the worker stopped answering")
        row.details[q.id] = f"stopped: {why}"
        row.errors.append(f"{q.id}: stopped, {why}")
        return
    except WorkerDied as exc:  # the same line as an answer that failed in its own process
        row.details[q.id] = Result(q, "error", 0, len(cases), 0.0, clean_text(exc, 300)).line()
        row.errors.append(f"{q.id}: {exc}")
        return
    names = {name for name, _ in forbidden.values()}
    reported = reply.get("uses") if isinstance(reply.get("uses"), list) else []
    uses |= {u for u in reported if u in names}
    result = _judge(q, cases, reply, sorted(uses))
    row.points[q.id] = round(result.points, 4)
    row.details[q.id] = result.line()
    row.feedback[q.id] = feedback_record(result)
    if result.status == "error" or "outcomes" not in reply:
        row.errors.append(f"{q.id}: {result.detail}")


def _judge(question, cases, reply: dict, uses) -> Result:
    """The verdict on one question's reply (it names no seed: a student reads it)."""
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
                sandbox="auto", assignment_name=None, update=False, **options):
    """Grade every notebook under ``paths``; write the gradebook into ``output``.

    ``jobs`` submissions are graded side by side (default: the number of
    cores). ``sandbox`` as in :func:`grade_notebook`. The gradebook is
    rewritten atomically after each submission. Returns the
    :class:`Submission` rows, in the order of the files (bad paths first,
    with their error and 0 points).

    ``assignment_name`` names the files (``gradebook-NAME.csv``...). A run into a folder
    holding that gradebook copies the old rows into the history first; with ``update`` the
    rows graded now (their questions ``selection``) are merged into it instead, each replaced
    row kept in the history (:mod:`kernelcourse.grading.gradebook.history`).

    The cases: with ``seed``, from that seed for every submission; else from the instructor's
    secret (``secret`` bytes, or the key file ``secret_file``, by default
    :data:`~kernelcourse.grading.command.draws.SECRET_NAME` in ``output``, made once when missing) and
    a fresh draw token per submission (``draw`` replays a recorded one). An update is a new
    attempt: it draws anew.
    """
    stream = sys.stderr if stream is None else stream
    files = book_files(output, assignment_name)
    if update and not files["json"].exists():
        raise ValueError(f"--update: there is no gradebook {files['json']} to update")
    # a malformed gradebook is refused before anything is written (the secret's key file too)
    old_book = load_rows(files) if update else None
    key = _resolve_secret(output, options)
    if options.get("replay") is not None:
        options["replay"] = _recorded_draws(options["replay"])
    if update:
        old_rows, old_assignment, old_seed = old_book
        registry = all_questions()
        if selection:
            graded = {q.id for q in _selected(selection, registry)}
        else:
            graded = {q.id for q in _selected(old_assignment, registry)}
        new_rows = _grade_paths(paths, output=output, selection=selection or old_assignment,
                                progress=progress, stream=stream, jobs=jobs, sandbox=sandbox,
                                book=False, secret_name=key, **options)
        drawn = (f"seed {options['seed']}" if options.get("seed") is not None
                 else "new cases drawn from the secret")
        rows, n, failures = merge(old_rows, new_rows, graded, files["history"],
                                  f"regrade (--update) of {', '.join(sorted(graded))} with "
                                  f"{drawn}")
        book = _Gradebook(Path(output), old_seed if options.get("seed") == old_seed else None,
                          old_assignment, probe() if sandbox == "auto" else sandbox,
                          name=assignment_name, secret=key)
        book.write(rows)
        stream.write(f"updated {n} row(s) of {files['json'].name} ({drawn}); "
                     f"their previous results are in {files['history'].name}\n")
        for file, why in failures:
            stream.write(f"REGRADE FAILED for {clean_text(file, 200)}: {clean_text(why, 300)}; "
                         f"its previous row is kept unchanged\n")
        return rows
    n = archive(files, "replaced by a new run")
    if n:
        stream.write(f"{files['json'].name} existed: its {n} row(s) are kept in "
                     f"{files['history'].name} before it is replaced\n")
    return _grade_paths(paths, output=output, selection=selection, progress=progress,
                        stream=stream, jobs=jobs, sandbox=sandbox, name=assignment_name,
                        secret_name=key, **options)


def _resolve_secret(output, options: dict) -> str | None:
    """Put the secret's bytes in ``options`` (unless a seed is given or the bytes are); the
    key file's name, as the gradebook records it (None when no file is used)."""
    path = options.pop("secret_file", None)
    if options.get("seed") is not None or options.get("secret") is not None:
        return None
    file = secret_file(output, path)
    # a replay needs the secret it was drawn with: it never makes a new one
    replaying = options.get("draw") is not None or options.get("replay") is not None
    options["secret"] = load_secret(file, create=not replaying)
    return file.name


def _recorded_draws(path) -> dict:
    """``{file: {question id: {"draw": token} or {"seed": s}}}`` from the gradebook JSON at
    ``path`` (each row's ``cases``), to replay it."""
    from ..gradebook.history import load_book

    book = load_book(Path(path))
    out = {}
    for row in book.get("submissions", []) if isinstance(book, dict) else []:
        if isinstance(row, dict) and isinstance(row.get("file"), str):
            out[file_key(row["file"])] = {
                q: {k: v for k, v in c.items() if k in ("draw", "seed")}
                for q, c in (row.get("cases") or {}).items() if isinstance(c, dict)}
    return out


def _grade_paths(paths, *, output=".", selection=None, progress=True, stream=None, jobs=None,
                 sandbox="auto", name=None, book=True, secret_name=None, **options):
    stream = sys.stderr if stream is None else stream
    sandbox = probe() if sandbox == "auto" else sandbox
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    if options.get("seed") is None and options.get("secret") is None:
        options["secret"] = new_secret()
    max_bytes = int(options.pop("max_notebook_mb", DEFAULTS["max_notebook_mb"]) * 1024 * 1024)
    registry = all_questions()
    notebooks, problems = find_notebooks(paths)
    if sandbox is not None and notebooks:  # what the caps here do not bound, said first
        notice = limits_notice(options.get("memory_mb", DEFAULTS["memory_mb"]))
        if notice:
            stream.write(f"note: {notice}\n")
    rows: list = [Submission(file=p, errors=[why]) for p, why in problems]
    for p, why in problems:
        stream.write(f"skipping {clean_text(p)}: {why}\n")
    intakes = [_read(p, max_bytes) for p in notebooks]
    assignment = choose_assignment([list(i.answers) for i in intakes if i.answers is not None],
                                   selection, registry)
    slots: list = [None] * len(intakes)
    write = book
    book = _Gradebook(Path(output), options.get("seed"), assignment, sandbox, name=name,
                      secret=secret_name)
    stamped = _selected(assignment, registry)
    done = 0
    lock = threading.Lock()
    local = threading.local()  # one worker per job, reset between its submissions
    pools: list = []
    memory_mb = options.get("memory_mb", DEFAULTS["memory_mb"])

    def grade_one(index: int) -> None:
        nonlocal done
        if getattr(local, "pool", None) is None:
            local.pool = WorkerPool(memory_mb, sandbox)
            with lock:
                pools.append(local.pool)
        row = _grade(intakes[index], registry, assignment, sandbox, pool=local.pool,
                     **_grading_options(options))
        stamp(row, stamped, options.get("seed"))
        with lock:
            slots[index] = row
            done += 1
            if write:
                book.write(rows + [r for r in slots if r is not None])
            if progress:
                _progress(done, len(intakes), str(intakes[index].path), stream)

    try:
        with ThreadPoolExecutor(max_workers=jobs) as executor:
            for future in [executor.submit(grade_one, i) for i in range(len(intakes))]:
                future.result()
    finally:
        for worker_pool in pools:
            worker_pool.close()
    rows += slots
    if write:
        book.write(rows)
    return rows


def _grading_options(options: dict) -> dict:
    return {"seed": options.get("seed", DEFAULTS["seed"]),
            "secret": options.get("secret", DEFAULTS["secret"]),
            "draw": options.get("draw", DEFAULTS["draw"]),
            "replay": options.get("replay"),
            "question_timeout": options.get("question_timeout", DEFAULTS["question_timeout"]),
            "submission_timeout": options.get("submission_timeout",
                                              DEFAULTS["submission_timeout"]),
            "memory_mb": options.get("memory_mb", DEFAULTS["memory_mb"])}
