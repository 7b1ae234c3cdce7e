"""The worker process of the grading command: runs submitted answers, nothing else.

Started by :mod:`kernelcourse.grading.pool`, one worker per job (``--jobs``) that grades one
submission after another, inside the sandbox of :mod:`kernelcourse.grading.sandbox` (or, with
``--no-sandbox``, as a plain process in an empty temporary folder), with the same interpreter in
isolated mode (``python -I``), calling :func:`main` with the memory limit in megabytes and
``sandboxed`` or ``plain``.

**What the worker holds.** The package's folder is not in the sandbox. The first line on stdin
is the *bundle*: the source of the package's modules (the mathematics, and the grading code
that runs an answer: this module, ``running``, ``question``, ``transport``, ``shortcuts``...),
never the grader's questions (references, diagnoses, case makers), which live in
``kernelcourse.grading.questions``; ``kernelcourse.grading`` itself is a stub whose ``check``
does nothing (a module that needs the questions fails to import here, and is left out). The worker imports every module of the bundle, then drops the
bundle and its importer: from then on no source of the package exists in the worker's file
system or in any importer, so ``importlib.reload`` or reading a file cannot give back code that
was turned into a tripwire.

Then it reads one JSON request per line::

    {"id": "3f..", "source": "<answer cell as Python>", "function": "rbf_gram",
     "cases": [[args, kwargs], ...], "time_limit": 10.0,
     "forbidden": ["kernelcourse.kernels.RBF", ...]}
    {"id": "9a..", "reset": true}          (between two submissions)

and serves each answer in a child process forked for that request alone (so what one answer
does to its process, patching modules or calling ``os._exit``, cannot reach the next). The
child executes the answer cell in a fresh namespace, calls the named function on each case
(arguments in :mod:`~kernelcourse.grading.transport`'s format) under the time limit and writes
its reply to a pipe of its own; the worker checks that the reply is well formed, kills a child
that overruns twice the time limit plus a second, and writes one JSON line back::

    {"id": "3f..", "outcomes": [{"kind": "value", "value": ...}, ...], "uses": []}
    {"id": "3f..", "error": "SyntaxError: ...", "uses": []}   (the cell itself failed)

It never sees the expected values and never judges: the parent compares. Before the answer
runs, the child turns the forbidden names into tripwires that report on a pipe of their own
(``"uses"`` in the reply) and seals itself (:func:`kernelcourse.grading.shortcuts.seal_process`:
seccomp refuses new programs, System V and POSIX IPC, memfds and kernel keys; its address space
is capped at what it has mapped plus the memory cap, so one huge allocation ends in MemoryError at
once, while the cap itself is on the whole tree, each process counted). Anything the answer prints goes to /dev/null.
The worker is PID 1 of the sandbox and not dumpable, so no answer can read its memory or its
pipes through ``/proc``, nor signal it; after each answer, every other process in the sandbox is
killed. A reset between two submissions kills every process but the worker and empties the
scratch folder, so nothing of one submission is left for the next.
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


def _address_space() -> int:
    """The bytes of address space this process has mapped now (``VmSize``), 0 if unknown."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        pass
    return 0


def _limit_memory(megabytes: int) -> None:
    """Cap the answer's address space at what the worker has mapped already plus the cap.

    The memory cap itself is on the whole process tree (the cgroup or the watchdog of
    :class:`~kernelcourse.grading.sandbox.TreeMemoryLimit`): that is its one meaning. This
    per-process limit is only a backstop that turns one huge allocation into a MemoryError
    at once. It must leave each process room for the cap's worth of new memory: a limit of
    the cap alone, with the ~360 MB the imported libraries map, stopped each forked child of
    an answer at ~150 MB, so three children meant to hold 900 MB held 485 MB and the tree cap
    never saw the bomb.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return
    if megabytes > 0:
        limit = _address_space() + megabytes * 1024 * 1024
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


class _IPythonStub:
    """What ``get_ipython()`` returns to an answer cell in the worker: the magics and shell
    lines IPython turned into calls do nothing (their output is not graded)."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _no_check(*args, **kwargs):
    """An answer cell's own ``check(...)`` call: nothing to do in the grader."""
    return None


def _run(request: dict) -> dict:
    from .question import Case
    from .running import QuestionTimeout, _short, run_answer, time_limit
    from .transport import decode

    seconds = float(request.get("time_limit", 10.0))
    cpu = bool(request.get("cpu_time", False))
    stub = _IPythonStub()
    namespace = {"__name__": "__answer__", "check": _no_check, "get_ipython": lambda: stub}
    try:
        source = request["source"]
        if request.get("magics", False):  # not transformed by the grader (no IPython there)
            source = strip_magics(source)
        code = compile(source, "<answer cell>", "exec")
        with time_limit(seconds, cpu=cpu):
            exec(code, namespace)
    except QuestionTimeout:
        return {"error": f"the answer cell ran past the time limit of {seconds:g} s"}
    except SystemExit as exc:
        return {"error": f"the answer cell called sys.exit({exc.code!r})"}
    except MemoryError:
        return {"error": "the answer ran out of memory (in the answer cell)"}
    except BaseException as exc:  # noqa: BLE001 - any failure of the cell is the cell's
        return {"error": f"the answer cell raised {type(exc).__name__}: {_short(exc)}"}
    func = namespace.get(request["function"])
    if not callable(func):
        return {"error": f"the answer cell does not define the function {request['function']}"}
    cases = [Case(tuple(decode(a, probes=True)), decode(k, probes=True))
             for a, k in request["cases"]]
    try:
        return {"outcomes": run_answer(func, cases, seconds, cpu=cpu)}
    except SystemExit as exc:
        return {"error": f"the answer called sys.exit({exc.code!r})"}
    except MemoryError:
        return {"error": "the answer ran out of memory"}
    except BaseException as exc:  # noqa: BLE001
        return {"error": f"the answer raised {type(exc).__name__}: {_short(exc)}"}


def _read_all(fd: int, deadline: float, pid: int) -> tuple[bytes | None, int | None]:
    """What the answer's process ``pid`` writes to ``fd``, and its exit status.

    Reading stops at end of file, or as soon as the process itself has exited
    (a process it left behind may hold the pipe open: its answer is complete
    all the same); ``(None, None)`` when the deadline passes first.
    """
    import fcntl
    import selectors
    import time

    chunks: list[bytes] = []
    status = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, None
            if selector.select(timeout=min(left, 0.05)):
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


def _child(request: dict, write_fd: int, report_fd: int, memory_mb: int) -> None:
    """In the forked child: arm the tripwires, seal, run the answer, write the reply, exit."""
    try:
        _limit_memory(memory_mb)
        _arm(request, report_fd)
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


def _arm(request: dict, report_fd: int) -> None:
    """Tripwires on what the answer may not use, reported on ``report_fd``; then seal."""
    from .shortcuts import forbidden_objects, seal_process, tripwires

    pipe = os.fstat(report_fd)

    def report(name: str) -> None:
        try:
            now = os.fstat(report_fd)
            if (now.st_dev, now.st_ino) != (pipe.st_dev, pipe.st_ino):
                os._exit(_REPORT_LOST)
            os.write(report_fd, name.encode()[:200] + b"\n")
        except OSError:
            os._exit(_REPORT_LOST)

    names = [n for n in request.get("forbidden", []) if isinstance(n, str)]
    objects = {}
    for name in names:  # a name outside the bundle (the grader's own) cannot be reached here
        try:
            objects.update(forbidden_objects([name]))
        except ValueError:
            pass
    with tripwires(objects, report, restore=False):
        pass  # the originals are dropped: nothing in this process can call them again
    seal_process()


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
    if _SANDBOXED:
        _kill_the_rest()


def _kill_the_rest() -> None:
    """In the sandbox's own PID namespace: kill every process but init and this worker,
    whatever session or group it moved to, and reap those that are ours."""
    import signal
    import time

    me = os.getpid()
    for _ in range(200):
        others = [pid for pid in _live_pids() if pid not in (1, me)]
        if not others:
            return
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        time.sleep(0.005)


def _live_pids() -> list[int]:
    """The processes this worker can see that are not zombies."""
    live = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in ("Z", "X"):
                live.append(int(entry))
    return live


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


def _serve(request: dict, memory_mb: int) -> dict:
    """Run one request in a forked child, under a hard deadline; return the reply."""
    import time

    seconds = float(request.get("time_limit", 10.0))
    read_fd, write_fd = os.pipe()
    report_read, report_write = os.pipe()
    master = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: no way back to the grader but its own pipes
        os.setpgid(0, 0)  # a process group of its own, killed as a whole below
        _die_with_parent(master)
        os.close(read_fd)
        os.close(report_read)
        for fd in (0, _REPLY_FD):
            try:
                os.close(fd)
            except OSError:
                pass
        _child(request, write_fd, report_write, memory_mb)
    os.close(write_fd)
    os.close(report_write)
    # the hard deadline, in wall-clock time: beyond the answer's own limit (twice over for
    # the cell and the cases; twice again when those are counted in CPU time)
    deadline = time.monotonic() + (4 if request.get("cpu_time") else 2) * seconds + 1.0
    try:
        data, status = _read_all(read_fd, deadline, pid)
    finally:
        os.close(read_fd)
    if data is not None and status is None:
        status = _wait(pid, deadline)
    if status is None:  # no reply, or the pipe closed but the process runs on
        _kill_group(pid)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # already reaped with the rest
            pass
        uses = _drain(report_read)
        os.close(report_read)
        return {"error": f"stopped: time limit of {seconds:g} s is over (an endless loop?)",
                "uses": uses}
    _kill_group(pid)  # anything the answer left running
    uses = _drain(report_read)
    os.close(report_read)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _REPORT_LOST:
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
    return {**{k: reply[k] for k in ("outcomes", "error") if k in reply}, "uses": uses}


_REPLY_FD = -1
_MAX_REPLY = 32 * 1024 * 1024
_REPORT_LOST = 86
_SANDBOXED = False


def _not_dumpable() -> None:
    """No process of the same user may read this one's memory or file descriptors."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        except (OSError, AttributeError):  # pragma: no cover
            pass


def _warm_up() -> None:
    """Import every module of the bundle (what answers and the tripwires need), so that it
    does not count against an answer; then drop the bundle and its importer for good."""
    import importlib
    import importlib.util
    import threading  # noqa: F401 - time limits and tripwires import these lazily elsewhere
    import types  # noqa: F401

    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401

    bundle = next((f for f in sys.meta_path if getattr(f, "kernelcourse_bundle", False)), None)
    names = sorted(bundle.modules) if bundle is not None else []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional module that cannot load here
            for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                sys.modules.pop(loaded, None)
    for name in ("kernelcourse.grading.core", "kernelcourse.grading.session"):
        if hasattr(sys.modules.get(name), "check"):  # check() under any name does nothing here
            sys.modules[name].check = _no_check
    if bundle is not None:
        bundle.modules.clear()
        sys.meta_path.remove(bundle)
    importlib.invalidate_caches()
    import gc

    gc.collect()
    gc.freeze()  # what is loaded now stays shared with each forked answer, untouched by gc


def _reset(scratch: str) -> None:
    """Between two submissions: no process but the worker, an empty scratch folder."""
    import shutil
    import stat

    if _SANDBOXED:
        _kill_the_rest()

    def unlock(func, path, _info):
        try:
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            os.chmod(path, stat.S_IRWXU)
            func(path)
        except OSError:
            pass

    for entry in os.listdir(scratch):
        path = os.path.join(scratch, entry)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
                shutil.rmtree(path, onerror=unlock)
            else:
                os.unlink(path)
        except OSError:
            pass
    os.chdir(scratch)


def main(argv: list[str]) -> None:
    global _REPLY_FD, _SANDBOXED
    memory_mb = int(argv[0]) if argv else 0
    _SANDBOXED = len(argv) > 1 and argv[1] == "sandboxed"
    scratch = os.getcwd()
    _not_dumpable()
    _die_with_parent(os.getppid())
    # keep a private copy of stdout for the replies; point fd 1 at /dev/null
    _REPLY_FD = os.dup(1)
    reply = os.fdopen(_REPLY_FD, "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    _warm_up()
    reply.write(json.dumps({"ready": os.getpid()}) + "\n")
    reply.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            continue
        if request.get("reset"):
            _reset(scratch)
            answer = {"reset": True}
        else:
            answer = _serve(request, memory_mb)
        reply.write(json.dumps({"id": request.get("id"), **answer}, separators=(",", ":")) + "\n")
        reply.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
