"""What every process of a grading worker shares: its facts, its exit codes, a few Linux calls.

No submitted code runs in this module's functions; they are called by the worker (the zygote,
:mod:`.worker`), the process per submission (:mod:`.namespaces`, :mod:`.submission`) and the
process per answer (:mod:`.answer`) on themselves. The facts are set once, by
:func:`kernelcourse.grading.sealed.worker.main` (:data:`REPLY_FD`, :data:`SANDBOXED`) and by
each submission process (:data:`OWN_NAMESPACE`), and read by the others.
"""
from __future__ import annotations

import os
import sys

#: the worker's private copy of its stdout: the one way to the grader (-1: none, in a test
#: that calls :func:`kernelcourse.grading.sealed.submission.serve` directly)
REPLY_FD = -1
#: whether the worker runs in the bubblewrap sandbox (else ``--no-sandbox``: a plain process)
SANDBOXED = False
#: whether this submission process is PID 1 of a PID namespace of its own
OWN_NAMESPACE = False

#: where the sandbox shows the machine's ``/proc`` to its worker, read-only: its presence lets
#: each submission process mount a fresh ``/proc`` of its own PID namespace (Linux refuses a
#: new ``/proc`` in a user namespace unless one is fully visible there, and bubblewrap's own
#: ``/proc`` is not: it covers parts of it); each submission process covers it at once
#: (:func:`kernelcourse.grading.sealed.namespaces.private_mounts`)
HOST_PROC = "/run/kernelcourse-host-proc"

#: exit code of an answer's process whose report pipe was closed or replaced by the answer
REPORT_LOST = 86
#: exit code of a submission process whose namespaces could not be made
NO_NAMESPACE = 87
#: exit code of a submission process at the end of its submission
CLEAN_END = 0
#: exit code of a submission process that found the worker's input closed (the run is over)
INPUT_CLOSED = 3


def libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def die_with_parent(parent: int) -> None:
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


def die_with_parent_quietly() -> None:
    """PR_SET_PDEATHSIG for a process whose parent is outside its PID namespace."""
    import signal

    try:
        libc().prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover
        pass


def not_dumpable() -> None:
    """No process of the same user may read this one's memory or file descriptors."""
    if sys.platform.startswith("linux"):
        try:
            libc().prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        except (OSError, AttributeError):  # pragma: no cover
            pass


def write_line(text: str) -> None:
    """One line to the grader, on :data:`REPLY_FD`."""
    data = memoryview((text + "\n").encode())
    while data:
        data = data[os.write(REPLY_FD, data):]
