"""The answer's process: the one place where a submitted answer cell runs.

**Untrusted code runs here.** For each request, the submission process
(:mod:`.submission`) forks a child that calls :func:`answer_process`: it caps its own
resources (:func:`limit_resources`), turns the forbidden names into tripwires that report on a
pipe of their own and seals itself (:func:`arm`, with
:func:`kernelcourse.grading.model.shortcuts.seal_process`: seccomp refuses new programs, System V and
POSIX message queues, memfds and kernel keys), then :func:`run_request`: turns the cell into
Python as IPython would (its own input transformer, under the answer's time limit), executes
it in a fresh ``__main__`` module, calls the named function on each case
(:func:`kernelcourse.grading.sealed.running.run_answer`) and writes the plain-data reply to its
pipe. It never sees the expected values and never judges. Nothing it does is trusted: the
submission process checks the reply, counts what the answer changed in its array arguments
and kills this process and everything it left (:mod:`.submission`).
"""
from __future__ import annotations

import json
import os
import re
import sys

from . import processes

_MAGIC = re.compile(r"^([ \t]*)[%!](?!=).*$", re.MULTILINE)

#: at most this many files open in an answer's process (sockets and pipes hold kernel memory:
#: a cgroup v2 counts it, the watchdog counts each at its bound, :mod:`.watchdog`)
MAX_FILES = 128
#: at most this many processes of the sandbox's user (per sandbox: its own user namespace)
MAX_PROCESSES = 64


def strip_magics(source: str) -> str:
    """Replace IPython magics and shell lines (``%time``, ``!ls``) by ``pass`` (linear time)."""
    return _MAGIC.sub(lambda m: f"{m.group(1)}pass", source)


def ipython_source(cell: str) -> str:
    """The Python IPython runs for a cell (:func:`kernelcourse.grading.intake.notebooks.python_source`:
    its own input transformer), run here, in the answer's process, under its time limit."""
    from ..intake.notebooks import python_source

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


def limit_resources(megabytes: int) -> None:
    """Cap the answer's address space at what the worker has mapped already plus the cap.

    The memory cap itself is on the whole process tree (the cgroup or the watchdog of
    :class:`~kernelcourse.grading.sealed.sandbox.TreeMemoryLimit`): that is its one meaning. This
    per-process limit is only a backstop that turns one huge allocation into a MemoryError
    at once. It must leave each process room for the cap's worth of new memory: a limit of
    the cap alone, with the ~360 MB the imported libraries map, stopped each forked child of
    an answer at ~150 MB, so three children meant to hold 900 MB held 485 MB and the tree cap
    never saw the bomb. Also: no core files, at most :data:`MAX_FILES` open files and (in the
    sandbox) :data:`MAX_PROCESSES` processes.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return
    if megabytes > 0:
        limit = _address_space() + megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # socket and pipe buffers are bounded by the descriptors too (and counted, .watchdog); the
    # processes by a count (per user namespace: this sandbox's processes only)
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_FILES, MAX_FILES))
    if processes.SANDBOXED:
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))


class _IPythonStub:
    """What ``get_ipython()`` returns to an answer cell in the worker: the magics and shell
    lines IPython turned into calls do nothing (their output is not graded)."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def no_check(*args, **kwargs):
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
    main.__dict__.update({"check": no_check, "get_ipython": lambda: stub,
                          "display": _display})
    sys.modules["__main__"] = main
    return main.__dict__


def run_request(request: dict, cases=None) -> dict:
    """Run the answer cell and its function on the cases (``cases``: decoded already, by
    :func:`kernelcourse.grading.sealed.submission.shared_cases`; else decoded here); a
    plain-data reply."""
    from ..model.question import Case
    from .running import QuestionTimeout, _short, run_answer, time_limit
    from ..model.transport import decode

    seconds = float(request.get("time_limit", 10.0))
    # the answer's own limit counts its process's CPU time (not the time it waited for a
    # CPU); the submission process's hard deadline counts its whole tree's (.deadline)
    cpu = bool(request.get("cpu_time", True))
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


def answer_process(request: dict, write_fd: int, report_fd: int, memory_mb: int,
                   cases=None) -> None:
    """In the forked child: arm the tripwires, seal, run the answer, write the reply, exit."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a notebook
    try:
        limit_resources(memory_mb)
        arm(request, report_fd)
        answer = run_request(request, cases)
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


def arm(request: dict, report_fd: int) -> None:
    """Tripwires on what the answer may not use, reported on ``report_fd``; then seal."""
    from ..model.shortcuts import forbidden_objects, seal_process, tripwires

    pipe = os.fstat(report_fd)

    def report(name: str) -> None:
        try:
            now = os.fstat(report_fd)
            if (now.st_dev, now.st_ino) != (pipe.st_dev, pipe.st_ino):
                os._exit(processes.REPORT_LOST)
            os.write(report_fd, name.encode()[:200] + b"\n")
        except OSError:
            os._exit(processes.REPORT_LOST)

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
