"""The worker process of the grading command: runs submitted answers, nothing else.

Started by :mod:`kernelcourse.grading.grader` with the same interpreter in
isolated mode (``python -I``), in an empty temporary folder, calling
:func:`main` with the memory limit in megabytes. It reads one JSON request per line on stdin::

    {"id": 3, "source": "<answer cell>", "function": "rbf_gram",
     "cases": [[args, kwargs], ...], "time_limit": 10.0}

and serves each in a child process forked for that request alone (so what
one answer does to its process, patching modules or calling ``os._exit``,
cannot reach the next). The child executes the answer cell in a fresh
namespace, calls the named function on each case (arguments in
:mod:`~kernelcourse.grading.transport`'s format) under the time limit and
writes its reply to a pipe of its own; the worker checks that the reply is
well formed, kills a child that overruns twice the time limit plus a second,
and writes one JSON line back::

    {"id": 3, "outcomes": [{"kind": "value", "value": ...}, ...]}
    {"id": 3, "error": "SyntaxError: ..."}      (the cell itself failed)

It never sees the expected values and never judges: the parent compares. The
child's address space is capped (``RLIMIT_AS``) so a memory bomb ends in
MemoryError; anything the answer prints goes to /dev/null.
"""
from __future__ import annotations

import json
import os
import re
import sys

_MAGIC = re.compile(r"^(\s*)[%!].*$", re.MULTILINE)


def strip_magics(source: str) -> str:
    """Replace IPython magics and shell lines (``%time``, ``!ls``) by ``pass``."""
    return _MAGIC.sub(lambda m: f"{m.group(1)}pass", source)


def _limit_memory(megabytes: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies (no orphaned endless loops)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover
            pass
    if os.getppid() != parent:  # the parent died before we asked
        os._exit(1)


def _run(request: dict) -> dict:
    from .core import Case, _short, run_answer, time_limit, QuestionTimeout
    from .transport import decode

    seconds = float(request.get("time_limit", 10.0))
    namespace = {"__name__": "__answer__"}
    try:
        code = compile(strip_magics(request["source"]), "<answer cell>", "exec")
        with time_limit(seconds):
            exec(code, namespace)
    except QuestionTimeout:
        return {"error": f"the answer cell ran past the time limit of {seconds:g} s"}
    except SystemExit as exc:
        return {"error": f"the answer cell called sys.exit({exc.code!r})"}
    except BaseException as exc:  # noqa: BLE001 - any failure of the cell is the cell's
        return {"error": f"the answer cell raised {type(exc).__name__}: {_short(exc)}"}
    func = namespace.get(request["function"])
    if not callable(func):
        return {"error": f"the answer cell does not define the function {request['function']}"}
    cases = [Case(tuple(decode(a)), decode(k)) for a, k in request["cases"]]
    try:
        return {"outcomes": run_answer(func, cases, seconds)}
    except SystemExit as exc:
        return {"error": f"the answer called sys.exit({exc.code!r})"}
    except BaseException as exc:  # noqa: BLE001
        return {"error": f"the answer raised {type(exc).__name__}: {_short(exc)}"}


def _read_all(fd: int, deadline: float) -> bytes | None:
    """Everything written to ``fd`` until it closes; None when the deadline passes first."""
    import selectors
    import time

    chunks = []
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if not selector.select(timeout=left):
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            if sum(map(len, chunks)) > _MAX_REPLY:
                return b'{"error": "the answer returned too much data"}'


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


def _child(request: dict, write_fd: int, memory_mb: int) -> None:
    """In the forked child: run the answer, write the reply, exit."""
    try:
        _limit_memory(memory_mb)
        answer = _run(request)
        data = json.dumps(answer, separators=(",", ":")).encode()
    except MemoryError:
        data = b'{"error": "the answer ran out of memory"}'
    except BaseException as exc:  # noqa: BLE001
        data = json.dumps({"error": f"{type(exc).__name__} while running the answer"}).encode()
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
    finally:
        os._exit(0)


def _wait(pid: int, deadline: float) -> int | None:
    """The exit status of ``pid``, or None if it is still running at the deadline."""
    import time

    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)


def _kill_group(pid: int) -> None:
    import signal

    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass


def _serve(request: dict, memory_mb: int) -> dict:
    """Run one request in a forked child, under a hard deadline; return the reply."""
    import signal
    import time

    seconds = float(request.get("time_limit", 10.0))
    read_fd, write_fd = os.pipe()
    master = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: no way back to the grader but its own pipe
        os.setpgid(0, 0)  # a process group of its own, killed as a whole below
        _die_with_parent(master)
        os.close(read_fd)
        for fd in (0, _REPLY_FD):
            try:
                os.close(fd)
            except OSError:
                pass
        _child(request, write_fd, memory_mb)
    os.close(write_fd)
    deadline = time.monotonic() + 2 * seconds + 1.0
    try:
        data = _read_all(read_fd, deadline)
    finally:
        os.close(read_fd)
    status = None if data is None else _wait(pid, deadline)
    if status is None:  # no reply, or the pipe closed but the process runs on
        _kill_group(pid)
        os.waitpid(pid, 0)
        return {"error": f"stopped: time limit of {seconds:g} s is over (an endless loop?)"}
    _kill_group(pid)  # anything the answer left running
    if not data:
        return {"error": _exit_text(status)}
    try:
        reply = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {"error": "the answer's process sent an unreadable reply"}
    if not isinstance(reply, dict) or not (isinstance(reply.get("outcomes"), list)
                                           or isinstance(reply.get("error"), str)):
        return {"error": "the answer's process sent a malformed reply"}
    return {k: reply[k] for k in ("outcomes", "error") if k in reply}


_REPLY_FD = -1
_MAX_REPLY = 32 * 1024 * 1024


def main(argv: list[str]) -> None:
    global _REPLY_FD
    memory_mb = int(argv[0]) if argv else 0
    _die_with_parent(os.getppid())
    # keep a private copy of stdout for the replies; point fd 1 at /dev/null
    _REPLY_FD = os.dup(1)
    reply = os.fdopen(_REPLY_FD, "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    # warm up, so these imports do not count against an answer's time limit
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    from kernelcourse.grading.questions import all_questions

    all_questions()  # imports every package module a question uses
    reply.write(json.dumps({"ready": os.getpid()}) + "\n")
    reply.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            continue
        answer = _serve(request, memory_mb)
        reply.write(json.dumps({"id": request.get("id"), **answer}, separators=(",", ":")) + "\n")
        reply.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
