"""The grader's side of a worker: start it sealed, send it one request, read its bounded reply.

A :class:`Worker` is one Python process running :mod:`kernelcourse.grading.sealed.worker`, sealed in a
sandbox (:mod:`kernelcourse.grading.sealed.sandbox`), its whole process tree under a memory cap (and,
where a cgroup can be had, a CPU share equal to every other worker's); it is handed the
:func:`bundle` of the package's modules it may hold on its first line. A :class:`WorkerPool` is
the worker of one job (``--jobs``): started when first needed; each submission is graded by a
process of its own that the worker forks before it reads a byte of that submission, in a PID
and mount namespace of its own, and that ends with the submission (:meth:`Worker.end_submission`:
the kernel kills every process it left, its ``/tmp`` and ``/dev/shm`` vanish; the pool sends the
end as soon as the last answer is in, :meth:`WorkerPool.finish_submission`, and waits for it
before the next submission's first request): nothing of one submission reaches the next. A worker that fails is replaced. A worker that exits, crashes or runs out of memory raises
:class:`WorkerDied` with the reason; one that does not reply in time raises
:class:`WorkerTimeout`.
"""
from __future__ import annotations

import functools
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..model import transport
from .deadline import hard_limits
from ..intake.notebooks import bounded_json
from .sandbox import Sandbox, TreeMemoryLimit, package_dir

__all__ = ["Worker", "WorkerPool", "WorkerDied", "WorkerTimeout", "bundle"]

_MAX_REPLY = 16 * 1024 * 1024

# what of the package a worker holds: the mathematics and the grading code, never the grader's
# questions (references, diagnoses, case makers), nor the widgets and the command line; the
# grading package's own __init__ (which loads the questions) is a stub
_NEVER = ("kernelcourse.widgets", "kernelcourse.__main__", "kernelcourse._execute",
          "kernelcourse.grading.questions")
_GRADING_STUB = '''"""The grading package, as the grading worker holds it: only what runs an answer."""


def check(*args, **kwargs):
    """An answer cell's own ``check(...)``: nothing to do while it is graded."""
    return None
'''
# the worker's first lines: load the bundle from stdin through an importer of its own
_BOOT = """
import importlib.abc, importlib.util, json, sys
class Bundle(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    kernelcourse_bundle = True
    def __init__(self, modules):
        self.modules = modules
    def find_spec(self, name, path=None, target=None):
        if name in self.modules:
            return importlib.util.spec_from_loader(name, self, is_package=self.modules[name][0])
        if name == "kernelcourse" or name.startswith("kernelcourse."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        is_package, source = self.modules[module.__name__]
        code = compile(source, "<kernelcourse " + module.__name__ + ">", "exec")
        exec(code, module.__dict__)
modules = json.loads(sys.stdin.readline())["bundle"]
sys.meta_path.insert(0, Bundle(modules))
del modules
from kernelcourse.grading.sealed.worker import main
main(sys.argv[1:])
"""


@functools.lru_cache(maxsize=1)
def _bundle_line() -> bytes:
    root = Path(package_dir())
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join(["kernelcourse", *parts])
        if any(name == n or name.startswith(n + ".") for n in _NEVER) or \
                "__pycache__" in path.parts:
            continue
        if name == "kernelcourse.grading":
            modules[name] = [True, _GRADING_STUB]
            continue
        modules[name] = [is_package, path.read_text(encoding="utf-8")]
    return (json.dumps({"bundle": modules}) + "\n").encode()


def bundle() -> dict:
    """``{module name: [is_package, source]}``: what of the package a worker holds."""
    return json.loads(_bundle_line())["bundle"]


class WorkerDied(RuntimeError):
    pass


class WorkerTimeout(RuntimeError):
    pass


class Worker:
    """A Python process that runs answers (:mod:`kernelcourse.grading.sealed.worker`), sealed in
    ``sandbox`` (a :class:`~kernelcourse.grading.sealed.sandbox.Sandbox`; None: a plain process),
    its whole process tree under a memory cap of ``memory_mb``."""

    def __init__(self, memory_mb: int, sandbox: Sandbox | None = None):
        self.memory_mb = memory_mb
        self.limit = TreeMemoryLimit(memory_mb)
        self.submissions = 0  # submission processes ended so far
        env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
        # isolated mode (no PYTHON* variables, no user site, no current folder on sys.path);
        # the package comes on stdin, as the bundle, not from the file system
        argv = [sys.executable, "-I", "-c", _BOOT, str(memory_mb),
                "sandboxed" if sandbox else "plain",
                str(sandbox.scratch_mb if sandbox is not None else 0)]
        if sandbox is not None:
            self.folder = None
            command, cwd = sandbox.command(argv, env), None
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        else:
            self.folder = tempfile.mkdtemp(prefix="kernelcourse-worker-")
            command, cwd = argv, self.folder
            env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, **env}
        try:
            self.proc = subprocess.Popen(
                self.limit.wrap(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, cwd=cwd, env=env, start_new_session=True,
                close_fds=True)
        except OSError as exc:
            self.limit.close()
            raise WorkerDied(f"the worker could not be started: {exc}") from None
        self.limit.watch(self.proc.pid)
        self._buffer = b""
        self._next_id = ""
        try:
            self.proc.stdin.write(_bundle_line())
            self.proc.stdin.flush()
        except OSError:
            pass  # reported as the worker's death just below
        try:
            self._read_line(deadline=time.monotonic() + 120.0)  # the "ready" line
        except (WorkerTimeout, WorkerDied):
            self.close()
            raise

    def _read_line(self, deadline: float) -> bytes:
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WorkerTimeout()
                if not selector.select(timeout=left):
                    continue
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise WorkerDied(self._exit_text())
                self._buffer += chunk
                if len(self._buffer) > _MAX_REPLY:
                    raise WorkerDied("the answer's output is too large")
        finally:
            selector.close()
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _exit_text(self) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the worker stopped answering"
        if self.limit.oom_killed():
            return (f"the answer ran out of memory (the cap of {self.memory_mb} MB on all of "
                    f"its processes)")
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"the worker was killed by signal {name}"
        return f"the worker exited with code {code} (sys.exit or os._exit in the answer?)"

    def run(self, request: dict, timeout: float) -> dict:
        """Send one request; return the worker's reply for it.

        Each request carries a fresh random id, and only a line carrying that
        id is taken as the reply, so nothing an answer writes ahead of time
        can pass for the reply to a later request. Replies are bounded in
        size and in depth.
        """
        self._next_id = secrets.token_hex(8)
        request = {**request, "id": self._next_id}
        oom_kills = self.limit.oom_kills()
        try:
            self.proc.stdin.write((json.dumps(request, separators=(",", ":")) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied(self._exit_text()) from None
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(deadline)
            try:
                reply = bounded_json(line, "the reply", max_depth=transport.MAX_DEPTH + 8)
            except ValueError:
                continue  # not a reply of ours
            if isinstance(reply, dict) and reply.get("id") == self._next_id:
                break
        if self.limit.oom_kills() > oom_kills:  # a process of this answer was killed for it
            uses = reply.get("uses") if isinstance(reply.get("uses"), list) else []
            return {"id": self._next_id, "uses": uses,
                    "error": f"the answer ran out of memory (the cap of {self.memory_mb} MB "
                             f"on all of its processes)"}
        return reply

    def end_submission(self, timeout: float = 30.0) -> None:
        """The submission's process ends (the kernel kills every process it left, its
        scratch vanishes) and the worker releases the next one: :class:`WorkerDied` or
        :class:`WorkerTimeout` if that does not happen."""
        self.send_end()
        self.wait_ended(timeout)

    def send_end(self) -> None:
        """Tell the worker the submission is over (:meth:`wait_ended` waits for its end)."""
        try:
            self.proc.stdin.write(b'{"end":true}\n')
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied(self._exit_text()) from None

    def wait_ended(self, timeout: float = 30.0) -> None:
        """Wait until the ended submission's process and all it left are gone."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(deadline)
            try:
                reply = bounded_json(line, "the reply", max_depth=4)
            except ValueError:
                continue
            if isinstance(reply, dict) and reply.get("done") == self.submissions + 1:
                self.submissions += 1
                return

    reset = end_submission

    def close(self) -> None:
        try:  # end of its input: a worker that is well ends by itself (and is reaped)
            self.proc.stdin.close()
            self.proc.wait(timeout=1.0)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self.limit.close()
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


class WorkerPool:
    """The worker of one job: started when first needed, reset between two submissions
    (:meth:`next_submission`), replaced after it fails."""

    def __init__(self, memory_mb: int, sandbox: Sandbox | None = None):
        self.memory_mb = memory_mb
        self.sandbox = sandbox
        self.worker: Worker | None = None
        self._used = False
        self._ending = False  # the end of the last submission sent, not yet seen

    def start(self) -> None:
        if self.worker is None:
            try:
                self.worker = Worker(self.memory_mb, self.sandbox)
            except (WorkerTimeout, WorkerDied):
                self.worker = None  # the first request tries again and reports

    def finish_submission(self) -> None:
        """The submission is graded: its process is told to end now, while the grader writes
        its row; :meth:`next_submission` waits for that end before the next one starts."""
        if self.worker is not None and self._used and not self._ending:
            try:
                self.worker.send_end()
                self._ending = True
            except (WorkerTimeout, WorkerDied):
                self.close()

    def next_submission(self) -> None:
        """A process that has never held another submission's data for the next one: the
        last one ended, or the worker replaced when that fails."""
        if self.worker is not None and self._used:
            try:
                if self._ending:
                    self.worker.wait_ended()
                else:
                    self.worker.end_submission()
            except (WorkerTimeout, WorkerDied):
                self.close()
        self._used = self._ending = False
        self.start()

    @staticmethod
    def wall_seconds(limit: float) -> float:
        """The longest a request whose answer has ``limit`` seconds may take in wall-clock
        time: the worker's own backstop (:func:`.deadline.hard_limits`; answers' limits count
        CPU time, so a busy machine does not stop them early) and a few seconds more."""
        return hard_limits(limit)["wall"] + 3.0

    def run(self, request: dict, timeout: float) -> dict:
        if self._ending:  # never a request before the last submission's end is seen
            raise WorkerDied("a request after the end of the submission, before the next one")
        if self.worker is None:
            self.worker = Worker(self.memory_mb, self.sandbox)
        request = {**request, "cpu_time": True}  # limits count CPU time (.deadline)
        self._used = True
        try:
            return self.worker.run(request, timeout)
        except (WorkerTimeout, WorkerDied):
            self.close()
            raise

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None
        self._ending = False
