"""The process per submission: reads that submission's requests, one answer process each.

No submitted code runs in this module's functions: they run in the submission process (made by
:func:`kernelcourse.grading.sealed.namespaces.fork_submission_process`: PID 1 of its own PID
namespace, its own ``/tmp`` and ``/dev/shm``, no capability), which reads the submission's
requests from the worker's input, one JSON line each::

    {"id": "3f..", "cell": "<answer cell as written>", "function": "rbf_gram",
     "cases": [[args, kwargs], ...], "time_limit": 10.0,
     "forbidden": ["kernelcourse.kernels.RBF", ...]}
    {"end": true}                          (the submission is graded)

and serves each (:func:`serve`) in a child process forked for that request alone, where the
answer runs (:mod:`.answer`), so what one answer does to its process (patching modules,
calling ``os._exit``) cannot reach the next. Before the fork it decodes the cases, each array
argument in memory shared with the child (:func:`shared_cases`), and keeps each probe, the
child getting a proxy that asks for its rows (:mod:`.rowserver`); it gives the child a hard
deadline (:class:`~.deadline.Deadline`: the CPU time of the answer's whole process tree, so
neither the machine's other work nor the answer's own waiting stretches or shortens it), reads its reply from a pipe (bounded, :func:`read_reply`, which serves the probes'
rows meanwhile), checks that it is well formed, counts what the answer changed in its array
arguments (:func:`changed_inputs`) and the rows it read itself, and writes one JSON line back::

    {"id": "3f..", "outcomes": [{"kind": "value", "value": ...}, ...], "uses": []}
    {"id": "3f..", "error": "SyntaxError: ...", "uses": []}   (the cell itself failed)

After each answer every other process of the namespace is killed and reaped
(:func:`kill_answer`). At ``{"end": true}`` the submission process exits
(:func:`serve_submission`): the kernel kills whatever is left in its namespace and frees its
scratch.
"""
from __future__ import annotations

import json
import os
import sys

from . import processes
from .answer import answer_process
from .deadline import Deadline, collect_orphans, hard_limits
from .namespaces import kill_the_rest

_MAX_REPLY = 32 * 1024 * 1024


def read_reply(fd: int, deadline: Deadline, pid: int,
               rows=None) -> tuple[bytes | None, int | None]:
    """What the answer's process ``pid`` writes to ``fd``, and its exit status.

    Reading stops at end of file, or as soon as the process itself has exited
    (a process it left behind may hold the pipe open: its answer is complete
    all the same); ``(None, None)`` when the deadline passes first. Meanwhile it serves
    the reads of the answer's probes (``rows``: the :class:`~.rowserver.RowServer`).
    """
    import fcntl
    import selectors

    chunks: list[bytes] = []
    status = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        serving = rows is not None and not rows.closed
        if serving:
            selector.register(rows.fd, selectors.EVENT_READ)
        while True:
            left = deadline.left()
            if left <= 0:
                return None, None
            ready = {key.fd for key, _ in selector.select(timeout=min(left, 0.05))}
            if serving and rows.fd in ready:  # a read of a probe: served and counted here
                rows.writable() if rows.wants_write() else rows.readable()
                if rows.closed:
                    selector.unregister(rows.fd)
                    serving = False
                else:
                    selector.modify(rows.fd, selectors.EVENT_WRITE if rows.wants_write()
                                    else selectors.EVENT_READ)
            if fd in ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b"".join(chunks), status
                chunks.append(chunk)
            elif status is None:
                done, code = os.waitpid(pid, os.WNOHANG)
                if done:  # exited: take what is left in the pipe, without waiting for EOF
                    status = code
                    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
                    while True:
                        try:
                            chunk = os.read(fd, 1 << 16)
                        except BlockingIOError:
                            break
                        if not chunk:
                            break
                        chunks.append(chunk)
                    return b"".join(chunks), status
            if sum(map(len, chunks)) > _MAX_REPLY:
                return b'{"error": "the answer returned too much data"}', status


def _exit_text(status: int) -> str:
    import signal

    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return f"the answer's process was killed by signal {name}"
    code = os.WEXITSTATUS(status)
    if code == 0:
        return "the answer's process ended without a reply (did the answer close its files?)"
    return f"the answer's process exited with code {code} (os._exit in the answer?)"


def shared_cases(request: dict):
    """The request's cases, decoded in the submission process before the answer's process is
    forked, each array argument in memory shared with it (``mmap``), and what each array held:
    ``(cases, [(case index, key, array, fingerprint), ...])``. After the answer's process has
    ended, :func:`changed_inputs` reads those arrays here, where the answer cannot reach: what
    the answer changed in place is counted outside its process, whatever it reports."""
    import mmap

    import numpy as np

    from ..model.question import Case
    from .running import _fingerprint
    from ..model.transport import decode

    cases, arrays = [], []
    for index, (a, k) in enumerate(request["cases"]):
        args, kwargs = list(decode(a, probes=True)), decode(k, probes=True)
        places = [(str(i), args, i) for i in range(len(args))]
        places += [(str(key), kwargs, key) for key in kwargs]
        for key, holder, at in places:
            value = holder[at]
            if isinstance(value, np.ndarray) and value.nbytes > 0 and value.dtype.kind in "biuf":
                buffer = mmap.mmap(-1, value.nbytes)  # anonymous and shared with the child
                shared = np.frombuffer(buffer, dtype=value.dtype).reshape(value.shape)
                shared[...] = value
                holder[at] = shared
                arrays.append((index, key, shared, _fingerprint(value)))
        cases.append(Case(tuple(args), kwargs))
    return cases, arrays


def changed_inputs(reply: dict, arrays) -> dict:
    """``reply`` with each value outcome's ``usage["modified"]`` counted here: the array
    arguments whose bytes differ from what they held (the answer's own report is kept only
    for arguments that are not arrays)."""
    from .running import _fingerprint

    outcomes = reply.get("outcomes")
    if not isinstance(outcomes, list):
        return reply
    watched = {(i, key) for i, key, _, _ in arrays}
    changed: dict[int, list] = {}
    for i, key, array, before in arrays:
        if _fingerprint(array) != before:
            changed.setdefault(i, []).append(key)
    for i, outcome in enumerate(outcomes):
        if not isinstance(outcome, dict) or outcome.get("kind") != "value":
            continue
        usage = outcome.get("usage") if isinstance(outcome.get("usage"), dict) else {}
        claimed = usage.get("modified") if isinstance(usage.get("modified"), list) else []
        modified = [k for k in claimed if isinstance(k, str) and (i, k) not in watched]
        modified += changed.get(i, [])
        usage = {k: v for k, v in usage.items() if k != "modified"}
        if modified:
            usage["modified"] = modified
        if usage:
            outcome["usage"] = usage
        else:
            outcome.pop("usage", None)
    return reply


def _wait(pid: int, deadline: Deadline) -> int | None:
    """The exit status of ``pid``, or None if it is still running at the deadline. Woken by
    the process's end itself (a pidfd: no polling interval between the end and its reaping),
    or, where there is no pidfd, looking every 5 ms."""
    import select
    import time

    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # pragma: no cover - Python < 3.9 or Linux < 5.3
        pidfd = -1
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            left = deadline.left()
            if left <= 0:
                return None
            if pidfd < 0:
                time.sleep(0.005)
            else:
                select.select([pidfd], [], [], left)
    finally:
        if pidfd >= 0:
            os.close(pidfd)


def kill_answer(pid: int) -> None:
    """Kill the answer's process and its group, then (in the submission's own PID namespace)
    every other process of the namespace."""
    import signal

    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass
    if processes.OWN_NAMESPACE:
        kill_the_rest()


def _drain(fd: int) -> list[str]:
    """The names the tripwires reported (what is in the pipe now; never blocks)."""
    import fcntl

    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    data = b""
    while len(data) < 65536:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        data += chunk
    return sorted({line.decode("utf-8", "replace")[:200] for line in data.split(b"\n") if line})


def serve(request: dict, memory_mb: int) -> dict:
    """Run one request in a forked child, under a hard deadline; return the reply."""
    seconds = float(request.get("time_limit", 10.0))
    from .rowserver import serve_probes

    try:
        cases, arrays = shared_cases(request)
        # the probes' rows stay here: the answer's process gets proxies that ask for them
        rows, rows_fd = serve_probes(cases)
    except Exception as exc:  # noqa: BLE001 - cases that cannot be rebuilt: no answer runs
        return {"error": f"the cases could not be read ({type(exc).__name__})", "uses": []}
    read_fd, write_fd = os.pipe()
    report_read, report_write = os.pipe()
    master = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: no way back to the grader but its own pipes
        os.setpgid(0, 0)  # a process group of its own, killed as a whole below
        processes.die_with_parent(master)
        for fd in (read_fd, report_read, 0, processes.REPLY_FD):
            try:
                os.close(fd)
            except OSError:
                pass
        if rows is not None:  # no copy of a probe's matrix left in the answer's process
            rows.forget(request)
        answer_process(request, write_fd, report_write, memory_mb, cases)
    if rows_fd is not None:
        os.close(rows_fd)
    os.close(write_fd)
    os.close(report_write)
    # the hard deadline: CPU time of the answer's process tree, beyond the answer's own limit
    # (twice over: the cell and the cases), with an idle limit and a wall-clock backstop
    deadline = Deadline(**hard_limits(seconds))
    try:
        data, status = read_reply(read_fd, deadline, pid, rows)
    finally:
        os.close(read_fd)
        if rows is not None:
            rows.close()
    if data is not None and status is None:
        status = _wait(pid, deadline)
    if status is None:  # no reply, or the pipe closed but the process runs on
        kill_answer(pid)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # already reaped with the rest
            pass
        uses = _drain(report_read)
        os.close(report_read)
        return {"error": f"stopped: time limit of {seconds:g} s is over (an endless loop?)",
                "uses": uses}
    kill_answer(pid)  # anything the answer left running
    uses = _drain(report_read)
    os.close(report_read)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == processes.REPORT_LOST:
        return {"error": "the answer closed the grader's pipes", "uses": uses or ["(unknown)"]}
    if not data:
        return {"error": _exit_text(status), "uses": uses}
    try:
        reply = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError):
        return {"error": "the answer's process sent an unreadable reply", "uses": uses}
    if not isinstance(reply, dict) or not (isinstance(reply.get("outcomes"), list)
                                           or isinstance(reply.get("error"), str)):
        return {"error": "the answer's process sent a malformed reply", "uses": uses}
    reply = changed_inputs(reply, arrays)  # counted here, outside the answer's process
    if rows is not None:
        reply = rows.counted(reply)  # so are the probes' rows
    return {**{k: reply[k] for k in ("outcomes", "error") if k in reply}, "uses": uses}


def serve_submission(memory_mb: int) -> None:
    """The submission process: read this submission's requests, serve each in a child of its
    own, and exit at its end (or at the end of the input)."""
    code = processes.INPUT_CLOSED
    collect_orphans()  # an answer's orphans stay in its tree (here, PID 1 has them already)
    for line in iter(sys.stdin.readline, ""):
        try:
            request = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        line = ""  # its text is not kept where an answer's process could find it
        if not isinstance(request, dict):
            continue
        if request.get("end"):
            code = processes.CLEAN_END
            break
        answer = serve(request, memory_mb)
        processes.write_line(json.dumps({"id": request.get("id"), **answer},
                                        separators=(",", ":")))
    if processes.OWN_NAMESPACE:
        kill_the_rest()
    os._exit(code)
