"""A process per submission, in namespaces of its own: how the worker makes one.

No submitted code runs here. :func:`fork_submission_process` is called by the worker (the
zygote, :mod:`.worker`), which has never read a request, so the process it makes has never held
any submission's data. Sandboxed, a helper forked from the worker makes a new PID namespace and
forks the submission process into it: PID 1 there, in a new mount namespace with an empty
``/tmp`` and ``/dev/shm`` of its own (:func:`private_mounts`: in memory, capped) and a fresh
read-only ``/proc`` of its PID namespace (:func:`worker_proc` makes that possible), having given
up every capability (:func:`drop_capabilities`); then it waits to be released
(:class:`Prepared`: the worker makes the next submission's process while the current one is
graded) before it reads its first request. From then on it is :mod:`.submission`'s. When it exits, the kernel kills every process left in its PID
namespace and frees its mounts; while it runs, :func:`kill_the_rest` clears the namespace after
each answer.
"""
from __future__ import annotations

import os

from . import processes

_CLONE_NEWNS, _CLONE_NEWPID = 0x00020000, 0x20000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 1 << 14, 1 << 18


def private_mounts(scratch_mb: int, hide=()) -> None:
    """In a new mount namespace (called as PID 1 of a new PID namespace): an empty ``/tmp``
    and ``/dev/shm`` of this submission's own (in memory, ``scratch_mb`` each; they vanish
    with the namespace), the folders of the course's environment that lay under ``/tmp``
    bound again, read-only, over the new ``/tmp`` (a virtual environment or a checkout there:
    the answer imports from it), and a fresh, read-only ``/proc`` of this PID namespace
    (:func:`_fresh_proc`; where Linux refuses one, the ``/proc`` entries of the processes
    ``hide``, the worker and the helper that made this process, are covered by an empty
    read-only folder instead)."""
    import ctypes

    libc = processes.libc()
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    # the environment's folders under /tmp, held open before the new /tmp hides them
    kept = []
    for root in _roots_under("/tmp"):
        try:
            kept.append((root, os.open(root, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)))
        except OSError:
            continue
    options = f"size={max(1, int(scratch_mb))}m,mode=1777".encode()
    for target in (b"/tmp", b"/dev/shm"):
        if libc.mount(b"tmpfs", target, b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
            raise OSError(ctypes.get_errno(), f"mount tmpfs on {target.decode()}")
    for root, fd in kept:
        os.makedirs(root, exist_ok=True)
        source = f"/proc/self/fd/{fd}".encode()
        if libc.mount(source, root.encode(), None, _MS_BIND | _MS_REC, None) != 0:
            raise OSError(ctypes.get_errno(), f"bind {root}")
        if libc.mount(None, root.encode(), None,
                      _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV, None) != 0:
            raise OSError(ctypes.get_errno(), f"remount {root} read-only")
        os.close(fd)
    if not _fresh_proc():
        # where Linux refuses a fresh /proc (no fully visible one in the sandbox), the
        # worker's and this process's helper's entries in the sandbox's /proc are hidden
        # under an empty read-only folder: nothing of the zygote to read or write from here
        # (its oom_score_adj, its autogroup's nice value, its status and command line)
        for pid in hide:
            target = f"/proc/{pid}".encode()
            if os.path.isdir(target) and _cover(target) != 0:
                raise OSError(ctypes.get_errno(), f"hide /proc/{pid}")
    # the machine's /proc, which the sandbox shows the worker only so that the fresh mount
    # is allowed, covered before any request is read
    if os.path.isdir(processes.HOST_PROC) and _cover(processes.HOST_PROC.encode()) != 0:
        raise OSError(ctypes.get_errno(), f"cover {processes.HOST_PROC}")
    os.chdir("/tmp")


def _fresh_proc() -> bool:
    """Mount a ``/proc`` of this PID namespace over the sandbox's, read-only (so it lists
    this submission's processes only, and nothing in it can be written: not an
    ``oom_score_adj``, not an autogroup's nice value). False where Linux refuses it: it
    allows a new ``/proc`` in a user namespace only beside a fully visible one, the one the
    sandbox binds at :data:`~.processes.HOST_PROC`."""
    flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    return processes.libc().mount(b"proc", b"/proc", b"proc", flags, None) == 0


def worker_proc() -> None:
    """In the worker, once, before it reads anything but its bundle: a mount namespace of its
    own with a fresh, read-only ``/proc`` of the sandbox's PID namespace, and the machine's
    ``/proc`` (:data:`~.processes.HOST_PROC`) covered, so that the worker holds nothing of
    the machine beyond the sandbox; its ``/proc``, unlike bubblewrap's, is fully visible, so
    each submission process may still mount its own. Nothing changes where Linux refuses a
    fresh ``/proc`` here (each submission process then covers the worker's entries)."""
    import ctypes

    libc = processes.libc()
    if not os.path.isdir(processes.HOST_PROC) or libc.unshare(_CLONE_NEWNS) != 0:
        return
    if libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    if _fresh_proc() and _cover(processes.HOST_PROC.encode()) != 0:
        raise OSError(ctypes.get_errno(), f"cover {processes.HOST_PROC}")


def _cover(target: bytes) -> int:
    """Cover ``target`` with an empty read-only folder (0, else -1 and errno)."""
    return processes.libc().mount(b"tmpfs", target, b"tmpfs",
                                  _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                                  b"size=4k,mode=555")


#: the variable by which the sandbox tells the worker which of its read-only folders (the
#: interpreter's, the environment's) lie under ``/tmp``
ROOTS_UNDER_TMP = "KERNELCOURSE_ROOTS_UNDER_TMP"
#: read once when the worker imports this module, and taken out of its environment, so that no
#: answer's process inherits a variable of the course's
_ROOTS = os.environ.pop(ROOTS_UNDER_TMP, "")


def _roots_under(folder: str) -> list[str]:
    """The folders of the interpreter and its environment (the sandbox's read-only binds,
    named by :data:`ROOTS_UNDER_TMP`) that lie inside ``folder``."""
    inside = folder.rstrip("/") + "/"
    return [root for root in _ROOTS.split(os.pathsep) if root and root.startswith(inside)]


def drop_capabilities() -> None:
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
    if processes.libc().syscall(number, ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")
    with open("/proc/self/status") as f:
        if any(line.startswith("CapEff:") and int(line.split()[1], 16) for line in f):
            raise OSError("capabilities left after capset")


class Prepared:
    """A submission process made ahead of its submission: set up (namespaces, mounts,
    capabilities dropped) and waiting, before it reads a byte of the worker's input, for
    :meth:`release`. ``pid``: the process the worker waits for."""

    def __init__(self, pid: int, go: int):
        self.pid, self._go = pid, go

    def release(self) -> None:
        """Let it read its submission's requests (a prepared process that died meanwhile is
        seen when the worker waits for it)."""
        if self._go < 0:
            return
        try:
            os.write(self._go, b"g")
        except OSError:
            pass
        os.close(self._go)
        self._go = -1


def _wait_for_release(go: int) -> None:
    """In the prepared submission process: block until the worker releases it; exit as the
    end of the input when the worker ended first."""
    try:
        released = os.read(go, 1) == b"g"
    except OSError:
        released = False
    os.close(go)
    if not released:
        os._exit(processes.INPUT_CLOSED)


def fork_submission_process(serve, memory_mb: int, scratch_mb: int) -> Prepared:
    """Fork the process that will grade the next submission, which, once
    :meth:`Prepared.release`\\ d, calls ``serve(memory_mb)``
    (:func:`kernelcourse.grading.sealed.submission.serve_submission`).

    Sandboxed, a helper forked from the worker makes a new PID namespace and forks the
    submission process into it (PID 1 there), then waits for it and exits with its status;
    the helper and the submission process die with their parent (``PR_SET_PDEATHSIG``).
    The submission process makes its mounts and drops its capabilities before it waits to
    be released, so the worker can prepare it while the submission before it is graded: it
    has never held a request either way (the worker never reads one). Plain
    (``--no-sandbox``), the submission process is the worker's child, in a session of its
    own."""
    parent = os.getpid()
    go_read, go_write = os.pipe()
    helper = os.fork()
    if helper:
        os.close(go_read)
        return Prepared(helper, go_write)
    try:  # the helper: it holds nothing but what the worker held before any request
        os.close(go_write)
        processes.die_with_parent(parent)
        if not processes.SANDBOXED:
            os.setsid()
            _wait_for_release(go_read)
            serve(memory_mb)
        if processes.libc().unshare(_CLONE_NEWPID) != 0:
            os._exit(processes.NO_NAMESPACE)
        helper = os.getpid()
        pid = os.fork()
        if pid == 0:
            processes.die_with_parent_quietly()
            try:
                os.setsid()  # a session, so an autogroup, of its own: its nice is its own
                private_mounts(scratch_mb, hide=(1, helper, parent))
                drop_capabilities()
            except OSError:
                os._exit(processes.NO_NAMESPACE)
            processes.OWN_NAMESPACE = os.getpid() == 1
            if not processes.OWN_NAMESPACE:
                os._exit(processes.NO_NAMESPACE)
            _wait_for_release(go_read)
            serve(memory_mb)
        os.close(go_read)
        _, status = os.waitpid(pid, 0)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    except BaseException:  # noqa: BLE001 - never back into the worker's loop
        os._exit(processes.NO_NAMESPACE)


def kill_the_rest(seconds: float = 10.0) -> bool:
    """In the submission's own PID namespace, where this process is PID 1: kill every other
    process of the namespace and reap them all. ``kill(-1)`` reaches every process of the
    namespace, whatever session or group it moved to and whatever state ``/proc`` shows (a
    zombie thread-group leader's running threads too); every orphan of the namespace is this
    process's child, so it can be reaped. False when some are still there after ``seconds``."""
    import signal
    import time

    if not processes.OWN_NAMESPACE or os.getpid() != 1:  # never outside a namespace of our own
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
