"""Issue 41: each submission sees a ``/proc`` of its own, and the grader runs without root.

Through the real ``kernelcourse grade`` in the real sandbox, ``--jobs 1`` (one worker, so the
zygote, its helpers and the process it prepares for the next submission all exist while each
answer runs), files graded in name order, every row's score asserted exactly:

* ``b_proc_lister``: an answer forks a child, then lists ``/proc``: it must see exactly its
  submission's process (PID 1 of its namespace), itself and its child, and ``/proc/self`` must
  be its own number (the sandbox's shared ``/proc`` shows the worker, its helpers and the next
  submission's process, with numbers of the sandbox's namespace); the machine's ``/proc``,
  which the sandbox shows its worker, is covered. Its ex1.q2 is right only if all that holds.
* ``c_proc_writer``: writes ``oom_score_adj`` and the autogroup's nice value of every process
  it can name in ``/proc`` (its namespace's PID 1, itself) and of the machine's PID 1 through
  the covered path; its ex1.q2 is right only if every write failed.
* ``d_proc_reader``, graded after the writer by the same worker: its own and its PID 1's
  ``oom_score_adj`` are 0 and its autogroup's nice value is 0.

Each runs as the user running the tests (root here, under the cgroup this machine gives) and as
a user without root (``nobody``, under the watchdog), where the machine allows it: as root the
test drops to ``nobody`` with ``setpriv``; where ``nobody`` cannot read the checkout's package,
a readable copy of it is made; where it cannot run the environment's interpreter, or the kernel
gives it no user namespaces, the test is skipped and says why.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from test_grading_attacks import FULL, notebook, prefixed

ROOT = Path(__file__).resolve().parents[1]
HOST_PROC = "/run/kernelcourse-host-proc"

LISTER = f"""
import os, time
child = os.fork()
if child == 0:
    time.sleep(60)
    os._exit(0)
seen = sorted((e for e in os.listdir("/proc") if e.isdigit()), key=int)
me = os.readlink("/proc/self")
hidden = os.listdir({HOST_PROC!r}) if os.path.isdir({HOST_PROC!r}) else []
os.kill(child, 9)
os.waitpid(child, 0)
assert me == str(os.getpid()), ("the sandbox's /proc", me, os.getpid())
assert seen == ["1", str(os.getpid()), str(child)], ("other processes", seen)
assert hidden == [], ("the machine's /proc", hidden[:5])
"""

WRITER = f"""
import os
written = []
for pid in [e for e in os.listdir("/proc") if e.isdigit()] + ["self"]:
    for name, value in (("oom_score_adj", "1000"), ("autogroup", "19")):
        try:
            with open(f"/proc/{{pid}}/{{name}}", "w") as f:
                f.write(value)
            written.append(f"/proc/{{pid}}/{{name}}")
        except OSError:
            pass
# the machine's PID 1, through the path the sandbox shows its worker (writing back what it
# reads, should the cover ever fail); its sysrq trigger, tried by access only
for path in ({HOST_PROC!r} + "/1/oom_score_adj",):
    try:
        with open(path) as f:
            old = f.read()
        with open(path, "w") as f:
            f.write(old)
        written.append(path)
    except OSError:
        pass
if os.access({HOST_PROC!r} + "/sysrq-trigger", os.W_OK):
    written.append("sysrq-trigger")
assert written == [], written
"""

READER = """
import os
for path in ("/proc/self/oom_score_adj", "/proc/1/oom_score_adj"):
    with open(path) as f:
        assert f.read().strip() == "0", path
if os.path.exists("/proc/self/autogroup"):
    with open("/proc/self/autogroup") as f:
        assert f.read().split()[-1] == "0", "autogroup nice"
"""

SUBMISSIONS = {"a_honest": notebook(),
               "b_proc_lister": notebook(q2=prefixed("ex1.q2", LISTER)),
               "c_proc_writer": notebook(q2=prefixed("ex1.q2", WRITER)),
               "d_proc_reader": notebook(q2=prefixed("ex1.q2", READER)),
               "z_honest": notebook()}


def _fresh_proc_refused() -> str:
    """'' where the sandbox lets a submission process mount a /proc of its own, else why."""
    from kernelcourse.grading.sealed.sandbox import Sandbox, SandboxUnavailable, probe

    try:
        box = probe()
    except SandboxUnavailable as exc:
        return str(exc)
    assert isinstance(box, Sandbox)
    code = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "assert libc.unshare(0x20000000) == 0\npid = os.fork()\nif pid == 0:\n"
            "    assert libc.unshare(0x20000) == 0\n"
            "    libc.mount(None, b'/', None, (1 << 14) | (1 << 18), None)\n"
            "    r = libc.mount(b'proc', b'/proc', b'proc', 15, None)\n"
            "    os._exit(0 if r == 0 else 10 + ctypes.get_errno())\n"
            "os._exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n")
    out = subprocess.run(box.command([sys.executable, "-I", "-c", code]), capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    if out.returncode == 0:
        return ""
    return (f"this kernel refuses a fresh /proc in the sandbox (exit {out.returncode}: "
            f"{' '.join(out.stderr.split())[-200:]})")


def _unprivileged(base: Path) -> tuple[list[str], dict]:
    """The prefix that runs a command as a user without root, and the environment it needs:
    ``setpriv`` to ``nobody`` as root (with a copy of the package ``nobody`` can read, under
    ``base``, where the checkout is not readable), nothing when not root. Skips, saying why,
    where this machine cannot."""
    if os.getuid() != 0:
        return [], {}
    if shutil.which("setpriv") is None:
        pytest.skip("no setpriv here to drop to a user without root")
    drop = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    runs = subprocess.run([*drop, sys.executable, "-c", "import numpy"], capture_output=True,
                          text=True)
    if runs.returncode != 0:
        pytest.skip(f"user nobody cannot run this environment's interpreter {sys.executable} "
                    f"(a folder only root can enter?): {' '.join(runs.stderr.split())[-200:]}")
    userns = subprocess.run([*drop, "unshare", "--user", "true"], capture_output=True,
                            text=True)
    if userns.returncode != 0:
        pytest.skip("the kernel gives a user without root no user namespace (sysctl "
                    "user.max_user_namespaces, kernel.unprivileged_userns_clone, or an "
                    f"AppArmor restriction): {' '.join(userns.stderr.split())[-200:]}")
    env = {}
    reads = subprocess.run([*drop, sys.executable, "-c", "import kernelcourse"],
                           capture_output=True, text=True)
    if reads.returncode != 0:  # the checkout is not readable by nobody: a copy of the package
        copy = base / "package"
        shutil.copytree(ROOT / "kernelcourse", copy / "kernelcourse",
                        ignore=shutil.ignore_patterns("__pycache__"))
        for folder, dirs, files in os.walk(copy):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        env["PYTHONPATH"] = str(copy)
        again = subprocess.run([*drop, sys.executable, "-c", "import kernelcourse"],
                               capture_output=True, text=True, env={**os.environ, **env})
        if again.returncode != 0:
            pytest.skip("user nobody cannot import a readable copy of kernelcourse: "
                        + " ".join(again.stderr.split())[-200:])
    return drop, env


def _grade(unprivileged: bool) -> dict:
    """Grade :data:`SUBMISSIONS` with one worker; the gradebook's rows by file name."""
    base = Path(tempfile.mkdtemp(prefix="kc-proc-", dir="/tmp"))
    try:
        prefix, env = _unprivileged(base) if unprivileged else ([], {})
        if unprivileged:
            env["KERNELCOURSE_MEMORY_CAP"] = "watchdog"
        folder, out, home = base / "sub", base / "out", base / "home"
        for p in (folder, out, home):
            p.mkdir()
        for name, nb in SUBMISSIONS.items():
            (folder / f"{name}.ipynb").write_text(json.dumps(nb))
        for p in (base, folder, out, home, *folder.iterdir()):
            p.chmod(0o777 if p.is_dir() else 0o644)
        env = {**os.environ, "HOME": str(home), **env}
        result = subprocess.run(
            [*prefix, sys.executable, "-m", "kernelcourse", "grade", str(folder), "--output",
             str(out), "--questions", "ex1", "--jobs", "1", "--memory-mb", "512",
             "--question-timeout", "60", "--no-progress"],
            capture_output=True, text=True, timeout=1500, cwd=out, env=env)
        assert result.returncode == 0, result.stderr[-3000:]
        book = json.loads((out / "gradebook.json").read_text())
        return {Path(s["file"]).name: s for s in book["submissions"]}
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize("unprivileged", [False, True], ids=["as-is", "without-root"])
def test_each_submission_has_a_proc_of_its_own_and_writes_nothing_outside(unprivileged):
    why = _fresh_proc_refused()
    if why:
        pytest.skip(why)
    rows = _grade(unprivileged)
    assert sorted(rows) == sorted(f"{n}.ipynb" for n in SUBMISSIONS)
    for name, row in rows.items():
        # every answer right: the lister saw only its own processes, the writer wrote
        # nothing, the reader found its own values untouched; the honest ones around them
        assert row["total"] == pytest.approx(FULL), (name, row["details"], row["errors"])
        assert "passed all" in row["details"]["ex1.q2"], (name, row["details"]["ex1.q2"])


def test_the_machines_proc_is_shown_to_the_worker_read_only():
    """What the sandbox shows its worker at :data:`HOST_PROC` (the machine's ``/proc``, so a
    fresh one may be mounted) cannot be written, even where the sandbox's user is root
    outside it; each submission process covers it (the test above)."""
    from kernelcourse.grading.sealed.processes import HOST_PROC as used
    from kernelcourse.grading.sealed.sandbox import SandboxUnavailable, probe

    assert used == HOST_PROC
    try:
        box = probe()
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))
    code = (f"import os\nprint([p for p in ('{HOST_PROC}/1/oom_score_adj', "
            f"'{HOST_PROC}/self/oom_score_adj', '{HOST_PROC}/sysrq-trigger', "
            f"'{HOST_PROC}/sys/kernel') if os.access(p, os.W_OK)], "
            f"os.path.isdir('{HOST_PROC}/1'))\n")
    out = subprocess.run(box.command([sys.executable, "-I", "-c", code]), capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "True"], out.stdout
