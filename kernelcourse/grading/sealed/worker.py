"""The worker process of the grading command: the zygote, which never reads a request.

Started by :mod:`kernelcourse.grading.sealed.pool`, one worker per job (``--jobs``), inside the
sandbox of :mod:`kernelcourse.grading.sealed.sandbox` (or, with ``--no-sandbox``, as a plain
process in an empty temporary folder), with the same interpreter in isolated mode
(``python -I``), calling :func:`main` with the memory limit and the scratch size in megabytes
and ``sandboxed`` or ``plain``. No submitted code runs in this process; it runs three
processes down:

* the **worker** (this module, PID 1 of the sandbox): warms up, then forks one submission
  process after another and reports each one's end; it never reads a byte of a submission;
* the **submission process** (:mod:`.namespaces` makes it, :mod:`.submission` runs it): PID 1
  of a PID and mount namespace of its own, private ``/tmp`` and ``/dev/shm``, no capability;
  it reads one submission's requests and forks an answer process for each;
* the **answer process** (:mod:`.answer`): where the answer cell and its function run,
  tripwired and sealed; its reply is checked by the submission process.

**What the worker holds.** The package's folder is not in the sandbox. The first line on stdin
is the *bundle*: the source of the package's modules (the mathematics, and the grading code
that runs an answer: this module, ``answer``, ``running``, ``question``, ``transport``,
``shortcuts``...), never the grader's questions (references, diagnoses, case makers), which
live in ``kernelcourse.grading.questions``; ``kernelcourse.grading`` itself is a stub whose
``check`` does nothing. The worker imports every module of the bundle (and IPython's input
transformer, :func:`_warm_up`), then drops the bundle and its importer: from then on no source
of the package exists in the worker's file system or in any importer, so ``importlib.reload``
or reading a file cannot give back code that was turned into a tripwire.

**A clean slate per submission.** After its warm-up the worker never reads another byte of its
input. For each submission it forks a submission process that has never held any other
submission's data (:func:`kernelcourse.grading.sealed.namespaces.fork_submission_process`).
When the submission ends, the submission process exits, and the kernel kills every process left
in its namespace (whatever its state: a zombie thread-group leader's running threads too) and
frees its ``/tmp`` and ``/dev/shm``; the worker reaps it, releases the next one (made while
this one was graded, :class:`~kernelcourse.grading.sealed.namespaces.Prepared`) and writes
``{"done": n}``. A submission process that dies any other way ends the worker (there may be requests
of that submission left unread in the pipe: the grader starts a new worker).

The worker and the submission process ignore SIGINT and, as PID 1 of their namespaces, every
other signal sent from inside; they are not dumpable, so no answer can read their memory or
their pipes through ``/proc``. Each answer process is capped (address space, open files,
processes: :func:`kernelcourse.grading.sealed.answer.limit_resources`) and sealed
(:func:`kernelcourse.grading.model.shortcuts.seal_process`); the memory cap is on the whole tree.
"""
from __future__ import annotations

import json
import os
import sys

from . import processes
from .answer import no_check
from .namespaces import fork_submission_process, worker_proc
from .submission import serve_submission


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
    from ..model.seccomp import seccomp_filter

    seccomp_filter()  # built here, once: each answer's process only installs it
    for name in ("kernelcourse.grading.checking.session",):
        if hasattr(sys.modules.get(name), "check"):  # check() under any name does nothing here
            sys.modules[name].check = no_check
    if bundle is not None:
        bundle.modules.clear()
        sys.meta_path.remove(bundle)
    importlib.invalidate_caches()
    import gc

    gc.collect()
    gc.freeze()  # what is loaded now stays shared with each forked answer, untouched by gc


def main(argv: list[str]) -> None:
    """The worker: seal itself, warm up, say ``ready``, then one submission process after
    another until the grader closes its input."""
    import signal

    memory_mb = int(argv[0]) if argv else 0
    processes.SANDBOXED = len(argv) > 1 and argv[1] == "sandboxed"
    scratch_mb = int(argv[2]) if len(argv) > 2 else 256
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # no KeyboardInterrupt sent from inside
    processes.not_dumpable()
    processes.die_with_parent(os.getppid())
    # keep a private copy of stdout for the replies; point fd 1 at /dev/null
    processes.REPLY_FD = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    if processes.SANDBOXED:
        worker_proc()  # a /proc of the sandbox's own; the machine's, shown to make it, covered
    _warm_up()
    processes.write_line(json.dumps({"ready": os.getpid()}))
    done = 0
    current = fork_submission_process(serve_submission, memory_mb, scratch_mb)
    current.release()
    while True:  # the zygote: never reads a request; one submission process after another
        # the next submission's process, made while this one is graded (it has never held a
        # request: it comes from this process, which never reads one)
        upcoming = fork_submission_process(serve_submission, memory_mb, scratch_mb)
        pid = current.pid
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == processes.INPUT_CLOSED:
            # the run is over: out at once (nothing is buffered, every reply went out with
            # os.write), not through the interpreter's finalization of everything the warm-up
            # loaded, which on a busy machine outlasts the grader's wait and gets the sandbox
            # killed before it is reaped (so the CPU it used is never counted)
            os._exit(0)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == processes.CLEAN_END):
            # killed, or no namespace: requests of its submission may be left unread
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
            sys.exit(code or 1)
        if not processes.SANDBOXED:
            try:
                os.killpg(pid, signal.SIGKILL)  # what a plain submission left running
            except OSError:
                pass
            _empty(os.getcwd())
        upcoming.release()  # only now: the last one's namespace is empty, its scratch gone
        current = upcoming
        done += 1
        processes.write_line(json.dumps({"done": done}))


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
