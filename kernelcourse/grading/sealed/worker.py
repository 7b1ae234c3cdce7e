"""The worker process of the grading command: runs submitted answers, nothing else.

Started by :mod:`kernelcourse.grading.sealed.pool`, one worker per job (``--jobs``), inside the sandbox
of :mod:`kernelcourse.grading.sealed.sandbox` (or, with ``--no-sandbox``, as a plain process in an
empty temporary folder), with the same interpreter in isolated mode (``python -I``), calling
:func:`main` with the memory limit and the scratch size in megabytes and ``sandboxed`` or
``plain``.

**What the worker holds.** The package's folder is not in the sandbox. The first line on stdin
is the *bundle*: the source of the package's modules (the mathematics, and the grading code
that runs an answer: this module, ``running``, ``question``, ``transport``, ``shortcuts``...),
never the grader's questions (references, diagnoses, case makers), which live in
``kernelcourse.grading.questions``; ``kernelcourse.grading`` itself is a stub whose ``check``
does nothing. The worker imports every module of the bundle (and IPython's input transformer),
then drops the bundle and its importer: from then on no source of the package exists in the
worker's file system or in any importer, so ``importlib.reload`` or reading a file cannot give
back code that was turned into a tripwire.

**A clean slate per submission: the worker is a zygote.** After its warm-up the worker (PID 1
of the sandbox) never reads another byte of its input. For each submission it forks a
*submission process* that has never held any other submission's data, in a PID namespace and a
mount namespace of its own (:func:`_submission_process`): it is PID 1 there, with a private
``/tmp`` and ``/dev/shm`` (in memory, capped), and it drops every capability before it reads
its first request. It reads the submission's requests from the worker's input, one JSON line
each::

    {"id": "3f..", "cell": "<answer cell as written>", "function": "rbf_gram",
     "cases": [[args, kwargs], ...], "time_limit": 10.0,
     "forbidden": ["kernelcourse.kernels.RBF", ...]}
    {"end": true}                          (the submission is graded)

and serves each answer in a child process forked for that request alone (so what one answer
does to its process, patching modules or calling ``os._exit``, cannot reach the next). When
the submission ends, the submission process exits, and the kernel kills every process left in
its namespace (whatever its state: a zombie thread-group leader's running threads too) and
frees its ``/tmp`` and ``/dev/shm``; the worker reaps it, writes ``{"done": n}`` and forks the
next one. A submission process that dies any other way ends the worker (there may be requests
of that submission left unread in the pipe: the grader starts a new worker).

The answer's child turns the cell into Python as IPython would (its own input transformer,
under the answer's time limit), executes it in a fresh ``__main__`` module, calls the named
function on each case (arguments in :mod:`~kernelcourse.grading.sealed.transport`'s format) under the
time limit and writes its reply to a pipe of its own; the submission process checks that the
reply is well formed, kills a child that overruns its deadline, and writes one JSON line back::

    {"id": "3f..", "outcomes": [{"kind": "value", "value": ...}, ...], "uses": []}
    {"id": "3f..", "error": "SyntaxError: ...", "uses": []}   (the cell itself failed)

It never sees the expected values and never judges: the parent compares. Before the answer
runs, the child turns the forbidden names into tripwires that report on a pipe of their own
(``"uses"`` in the reply) and seals itself (:func:`kernelcourse.grading.shortcuts.seal_process`:
seccomp refuses new programs, System V and POSIX message queues, memfds and kernel keys; its
address space is capped at what it has mapped plus the memory cap, so one huge allocation ends
in MemoryError at once, while the cap itself is on the whole tree, each process counted; at
most :data:`MAX_FILES` open files and :data:`MAX_PROCESSES` processes). Anything the answer
prints goes to /dev/null. After each answer every other process of the submission's namespace
is killed (``kill(-1)`` from its PID 1, which reaches every process of the namespace whatever
its state) and reaped. The worker and the submission process ignore SIGINT and, as PID 1 of
their namespaces, every other signal sent from inside; they are not dumpable, so no answer can
read their memory or their pipes through ``/proc``.
"""
from __future__ import annotations

import json
import os
import re
import sys

_MAGIC = re.compile(r"^([ \t]*)[%!](?!=).*$", re.MULTILINE)

#: at most this many files open in an answer's process (sockets, pipes: kernel memory that no
#: memory cap counts is bounded by the number of descriptors)
MAX_FILES = 256
#: at most this many processes of the sandbox's user (per sandbox: its own user namespace)
MAX_PROCESSES = 64


def strip_magics(source: str) -> str:
    """Replace IPython magics and shell lines (``%time``, ``!ls``) by ``pass`` (linear time)."""
    return _MAGIC.sub(lambda m: f"{m.group(1)}pass", source)


def ipython_source(cell: str) -> str:
    """The Python IPython runs for a cell (:func:`kernelcourse.grading.intake.python_source`:
    its own input transformer), run here, in the answer's process, under its time limit."""
    from ..intake import python_source

    return python_source(cell)


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
    :class:`~kernelcourse.grading.sealed.sandbox.TreeMemoryLimit`): that is its one meaning. This
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
    # kernel memory no cap counts (socket buffers, pipes) is bounded by the descriptors; the
    # processes by a count (per user namespace: this sandbox's processes only)
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_FILES, MAX_FILES))
    if _SANDBOXED:
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))


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


def _display(*objects, **kwargs):
    """``display(...)`` in an answer cell (a name IPython gives every notebook): its output is
    not graded."""
    return None


def _main_module(stub) -> dict:
    """A fresh ``__main__`` module for the answer, as a notebook's namespace is: its
    ``__name__`` is ``"__main__"`` (so code under ``if __name__ == "__main__":`` runs, as in
    Jupyter) and functions pickled by reference (``multiprocessing``) are found in it."""
    import types

    main = types.ModuleType("__main__")
    main.__dict__.update({"check": _no_check, "get_ipython": lambda: stub,
                          "display": _display})
    sys.modules["__main__"] = main
    return main.__dict__


def _run(request: dict, cases=None) -> dict:
    """Run the answer cell and its function on the cases (``cases``: decoded already, by
    :func:`shared_cases`; else decoded here); a plain-data reply."""
    from ..question import Case
    from .running import QuestionTimeout, _short, run_answer, time_limit
    from .transport import decode

    seconds = float(request.get("time_limit", 10.0))
    cpu = bool(request.get("cpu_time", False))
    stub = _IPythonStub()
    namespace = _main_module(stub)
    try:
        with time_limit(seconds, cpu=cpu):
            if "cell" in request:  # the cell as written: IPython's transformation, timed here
                source = ipython_source(request["cell"])
            else:
                source = request["source"]
                if request.get("magics", False):
                    source = strip_magics(source)
            code = compile(source, "<answer cell>", "exec")
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
    copy = cases is None
    if cases is None:
        cases = [Case(tuple(decode(a, probes=True)), decode(k, probes=True))
                 for a, k in request["cases"]]
    try:
        return {"outcomes": run_answer(func, cases, seconds, cpu=cpu, copy=copy)}
    except SystemExit as exc:
        return {"error": f"the answer called sys.exit({exc.code!r})"}
    except MemoryError:
        return {"error": "the answer ran out of memory"}
    except BaseException as exc:  # noqa: BLE001
        return {"error": f"the answer raised {type(exc).__name__}: {_short(exc)}"}


class _Deadline:
    """An answer's hard deadline: ``seconds`` of the time in which its process could run.

    With ``stat`` (its ``/proc/PID/schedstat``), the time it spent runnable but waiting for
    a CPU that other processes had (the run delay the kernel counts) is not counted, so an
    answer starved by another job's processes is not stopped early; ``most`` bounds the
    wall-clock time in all."""

    def __init__(self, seconds: float, most: float | None = None, stat: str | None = None):
        import time

        self.start = time.monotonic()
        self.seconds, self.most, self.stat = seconds, most or seconds, stat

    def waited(self) -> float:
        if not self.stat:
            return 0.0
        try:
            with open(self.stat) as f:
                return int(f.read().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0

    def left(self) -> float:
        import time

        elapsed = time.monotonic() - self.start
        return min(self.seconds - (elapsed - self.waited()), self.most - elapsed)


def _read_all(fd: int, deadline: _Deadline, pid: int) -> tuple[bytes | None, int | None]:
    """What the answer's process ``pid`` writes to ``fd``, and its exit status.

    Reading stops at end of file, or as soon as the process itself has exited
    (a process it left behind may hold the pipe open: its answer is complete
    all the same); ``(None, None)`` when the deadline passes first.
    """
    import fcntl
    import selectors

    chunks: list[bytes] = []
    status = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline.left()
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


def shared_cases(request: dict):
    """The request's cases, decoded in the submission process before the answer's process is
    forked, each array argument in memory shared with it (``mmap``), and what each array held:
    ``(cases, [(case index, key, array, fingerprint), ...])``. After the answer's process has
    ended, :func:`changed_inputs` reads those arrays here, where the answer cannot reach: what
    the answer changed in place is counted outside its process, whatever it reports."""
    import mmap

    import numpy as np

    from ..question import Case
    from .running import _fingerprint
    from .transport import decode

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


def _child(request: dict, write_fd: int, report_fd: int, memory_mb: int,
           cases=None) -> None:
    """In the forked child: arm the tripwires, seal, run the answer, write the reply, exit."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a notebook
    try:
        _limit_memory(memory_mb)
        _arm(request, report_fd)
        answer = _run(request, cases)
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
    from ..shortcuts import forbidden_objects, seal_process, tripwires

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


def _wait(pid: int, deadline: _Deadline) -> int | None:
    """The exit status of ``pid``, or None if it is still running at the deadline."""
    import time

    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if deadline.left() <= 0:
            return None
        time.sleep(0.005)


def _kill_group(pid: int) -> None:
    import signal

    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass
    if _OWN_NAMESPACE:
        _kill_the_rest()


def _kill_the_rest(seconds: float = 10.0) -> bool:
    """In the submission's own PID namespace, where this process is PID 1: kill every other
    process of the namespace and reap them all. ``kill(-1)`` reaches every process of the
    namespace, whatever session or group it moved to and whatever state ``/proc`` shows (a
    zombie thread-group leader's running threads too); every orphan of the namespace is this
    process's child, so it can be reaped. False when some are still there after ``seconds``."""
    import signal
    import time

    if not _OWN_NAMESPACE or os.getpid() != 1:  # never outside a namespace of our own
        return False
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] != 0:
                pass
        except ChildProcessError:
            return True  # no process left but this one
        time.sleep(0.002)
    return False


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
    seconds = float(request.get("time_limit", 10.0))
    cpu = bool(request.get("cpu_time"))
    try:
        cases, arrays = shared_cases(request)
    except Exception as exc:  # noqa: BLE001 - cases that cannot be rebuilt: no answer runs
        return {"error": f"the cases could not be read ({type(exc).__name__})", "uses": []}
    read_fd, write_fd = os.pipe()
    report_read, report_write = os.pipe()
    info_read, info_write = os.pipe()
    master = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: no way back to the grader but its own pipes
        os.setpgid(0, 0)  # a process group of its own, killed as a whole below
        _die_with_parent(master)
        try:  # its number where /proc counts (the sandbox's), for its run delay
            os.write(info_write, os.readlink("/proc/self").encode()[:20])
        except OSError:
            pass
        for fd in (read_fd, report_read, info_read, info_write, 0, _REPLY_FD):
            try:
                os.close(fd)
            except OSError:
                pass
        _child(request, write_fd, report_write, memory_mb, cases)
    os.close(write_fd)
    os.close(report_write)
    os.close(info_write)
    stat = None
    if cpu:  # no CPU share of its own: its hard deadline counts only the time it could run
        try:
            number = os.read(info_read, 32).decode()
            stat = f"/proc/{int(number)}/schedstat"
        except (OSError, ValueError):
            stat = None
    os.close(info_read)
    # the hard deadline: beyond the answer's own limit (twice over for the cell and the cases;
    # twice again when those are counted in CPU time, where time spent waiting for a CPU is
    # not counted, up to four times that in wall-clock time)
    deadline = (_Deadline(4 * seconds + 1.0, 16 * seconds + 1.0, stat) if cpu
                else _Deadline(2 * seconds + 1.0))
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
    reply = changed_inputs(reply, arrays)  # counted here, outside the answer's process
    return {**{k: reply[k] for k in ("outcomes", "error") if k in reply}, "uses": uses}


_REPLY_FD = -1
_MAX_REPLY = 32 * 1024 * 1024
_REPORT_LOST = 86
_SANDBOXED = False
_OWN_NAMESPACE = False  # this submission process is PID 1 of a PID namespace of its own
_NO_NAMESPACE = 87  # exit code: the submission's namespaces could not be made
_CLEAN_END = 0
_INPUT_CLOSED = 3  # exit code: the grader closed the worker's input (the run is over)


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _not_dumpable() -> None:
    """No process of the same user may read this one's memory or file descriptors."""
    if sys.platform.startswith("linux"):
        try:
            _libc().prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        except (OSError, AttributeError):  # pragma: no cover
            pass


def _warm_up() -> None:
    """Import every module of the bundle (what answers and the tripwires need), and IPython's
    input transformer, so that it does not count against an answer; then drop the bundle and
    its importer for good."""
    import importlib
    import importlib.util
    import resource  # noqa: F401 - each answer's limits
    import threading  # noqa: F401 - time limits and tripwires import these lazily elsewhere
    import types  # noqa: F401

    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401

    try:
        from IPython.core.inputtransformer2 import TransformerManager
        TransformerManager().transform_cell("%time x = 1\n!ls\n")
    except Exception:  # noqa: BLE001 - without IPython: magics become pass
        pass
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


# ------------------------------------------------------------- one process per submission
_CLONE_NEWNS, _CLONE_NEWPID = 0x00020000, 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18


def _private_mounts(scratch_mb: int) -> None:
    """In a new mount namespace: an empty ``/tmp`` and ``/dev/shm`` of this submission's own
    (in memory, ``scratch_mb`` each; they vanish with the namespace)."""
    import ctypes

    libc = _libc()
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    options = f"size={max(1, int(scratch_mb))}m,mode=1777".encode()
    for target in (b"/tmp", b"/dev/shm"):
        if libc.mount(b"tmpfs", target, b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
            raise OSError(ctypes.get_errno(), f"mount tmpfs on {target.decode()}")
    os.chdir("/tmp")


def _drop_capabilities() -> None:
    """Give up every capability for good (the worker keeps CAP_SYS_ADMIN in the sandbox's own
    user namespace only to make each submission's namespaces)."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    number = {"x86_64": 126, "aarch64": 91}.get(os.uname().machine)
    if number is None:  # pragma: no cover
        raise OSError("capset: unknown architecture")
    header, data = Header(0x20080522, 0), (Data * 2)()
    if _libc().syscall(number, ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")
    with open("/proc/self/status") as f:
        if any(line.startswith("CapEff:") and int(line.split()[1], 16) for line in f):
            raise OSError("capabilities left after capset")


def _submission_process(memory_mb: int, scratch_mb: int) -> int:
    """Fork the process that grades the next submission; return the pid to wait for.

    Sandboxed, a helper forked from the worker makes a new PID namespace and forks the
    submission process into it (PID 1 there), then waits for it and exits with its status;
    the helper and the submission process die with their parent (``PR_SET_PDEATHSIG``).
    Plain (``--no-sandbox``), the submission process is the worker's child, in a session of
    its own."""
    global _OWN_NAMESPACE
    parent = os.getpid()
    helper = os.fork()
    if helper:
        return helper
    try:  # the helper: it holds nothing but what the worker held before any request
        _die_with_parent(parent)
        if not _SANDBOXED:
            os.setsid()
            _serve_submission(memory_mb)
        if _libc().unshare(_CLONE_NEWPID) != 0:
            os._exit(_NO_NAMESPACE)
        pid = os.fork()
        if pid == 0:
            _die_with_parent_quietly()
            try:
                _private_mounts(scratch_mb)
                _drop_capabilities()
            except OSError:
                os._exit(_NO_NAMESPACE)
            _OWN_NAMESPACE = os.getpid() == 1
            if not _OWN_NAMESPACE:
                os._exit(_NO_NAMESPACE)
            _serve_submission(memory_mb)
        _, status = os.waitpid(pid, 0)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    except BaseException:  # noqa: BLE001 - never back into the worker's loop
        os._exit(_NO_NAMESPACE)


def _die_with_parent_quietly() -> None:
    """PR_SET_PDEATHSIG for a process whose parent is outside its PID namespace."""
    import signal

    try:
        _libc().prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover
        pass


def _serve_submission(memory_mb: int) -> None:
    """The submission process: read this submission's requests, serve each in a child of its
    own, and exit at its end (or at the end of the input)."""
    code = _INPUT_CLOSED
    for line in iter(sys.stdin.readline, ""):
        try:
            request = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if not isinstance(request, dict):
            continue
        if request.get("end"):
            code = _CLEAN_END
            break
        answer = _serve(request, memory_mb)
        _write_line(json.dumps({"id": request.get("id"), **answer}, separators=(",", ":")))
    if _OWN_NAMESPACE:
        _kill_the_rest()
    os._exit(code)


def _write_line(text: str) -> None:
    data = memoryview((text + "\n").encode())
    while data:
        data = data[os.write(_REPLY_FD, data):]


def main(argv: list[str]) -> None:
    global _REPLY_FD, _SANDBOXED
    import signal

    memory_mb = int(argv[0]) if argv else 0
    _SANDBOXED = len(argv) > 1 and argv[1] == "sandboxed"
    scratch_mb = int(argv[2]) if len(argv) > 2 else 256
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # no KeyboardInterrupt sent from inside
    _not_dumpable()
    _die_with_parent(os.getppid())
    # keep a private copy of stdout for the replies; point fd 1 at /dev/null
    _REPLY_FD = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    _warm_up()
    _write_line(json.dumps({"ready": os.getpid()}))
    done = 0
    while True:  # the zygote: never reads a request; one submission process after another
        pid = _submission_process(memory_mb, scratch_mb)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _INPUT_CLOSED:
            sys.exit(0)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == _CLEAN_END):
            # killed, or no namespace: requests of its submission may be left unread
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
            sys.exit(code or 1)
        if not _SANDBOXED:
            try:
                os.killpg(pid, signal.SIGKILL)  # what a plain submission left running
            except OSError:
                pass
            _empty(os.getcwd())
        done += 1
        _write_line(json.dumps({"done": done}))


def _empty(scratch: str) -> None:
    """The plain worker's scratch folder emptied between two submissions."""
    import shutil
    import stat

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


if __name__ == "__main__":
    main(sys.argv[1:])
