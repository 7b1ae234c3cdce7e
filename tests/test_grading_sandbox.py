"""The grader's sandbox on its own: what a process inside it can see, reach and use.

Each test starts a real sandbox (bubblewrap, as `kernelcourse grade` does) and runs a short
Python program in it; the program prints what it could do, and the test checks that against
what the sandbox promises (see kernelcourse/grading/sealed/sandbox.py and the README's instructor
section). The attacks through the grading command itself are in test_grading_attacks.py.
"""
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import kernelcourse
from kernelcourse.grading.sealed.sandbox import (Sandbox, SandboxUnavailable, TreeMemoryLimit,
                                          find_bwrap, probe)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def box():
    try:
        return probe()
    except SandboxUnavailable as exc:  # the grader refuses to run then; so do these tests
        if os.environ.get("CI"):
            pytest.fail(f"no sandbox under CI: {exc}")
        pytest.skip(str(exc))


def inside(box, code, timeout=60):
    """Run ``code`` in a fresh sandbox; return what it printed as JSON."""
    command = box.command([sys.executable, "-I", "-c", textwrap.dedent(code)])
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_bubblewrap_is_found_without_debians_package(box):
    assert find_bwrap()
    assert "bubblewrap" in box.describe()


def test_an_unusable_bubblewrap_is_refused_with_how_to_get_one(tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match="No permissions to create new namespace.*"
                                                 "apt-get install bubblewrap.*--no-sandbox"):
        probe(str(fake))


def test_the_file_system_shows_only_python_and_a_private_scratch(box, tmp_path):
    secret = tmp_path / "other_submission.ipynb"
    secret.write_text("answers")
    home = Path.home()
    out = inside(box, f"""
        import json, os
        def can_list(p):
            try:
                return sorted(os.listdir(p))
            except OSError as exc:
                return type(exc).__name__
        def can_write(p):
            try:
                with open(p, "w") as f:
                    f.write("x")
                return True
            except OSError:
                return False
        print(json.dumps({{
            "uid": os.getuid(), "cwd": os.getcwd(), "home": os.environ["HOME"],
            "scratch": can_list("/tmp"), "secret": os.path.exists({str(secret)!r}),
            "tmp_path": os.path.exists({str(tmp_path)!r}),
            "real_home": can_list({str(home)!r}),
            "checkout": can_list({str(ROOT)!r}),
            "write_package": can_write({str(Path(kernelcourse.__file__).parent / 'x.py')!r}),
            "package": can_list({str(Path(kernelcourse.__file__).parent)!r}),
            "package_source": os.path.exists({kernelcourse.__file__!r}),
            "write_dev": can_write("/dev/kc-x"), "write_dev_shm": can_write("/dev/shm/kc-x"),
            "dev_null": can_write("/dev/null"),
            "write_scratch": can_write("/tmp/mine.txt"),
            "write_root": can_write("/evil"),
            "etc": can_list("/etc"),
            "env": sorted(os.environ),
        }}))""")
    assert out["uid"] == 65534 and out["cwd"] == "/tmp" and out["home"] == "/tmp"
    # the scratch is empty but for the way down to a checkout that lives under /tmp
    under_tmp = {Path(r).relative_to("/tmp").parts[0] for r in box.roots
                 if Path(r).is_relative_to("/tmp")}
    assert set(out["scratch"]) == under_tmp and out["write_scratch"]
    assert not out["secret"] and not out["tmp_path"]
    assert not out["write_package"] and not out["write_root"]
    # of the checkout, only (when it lives there) the virtual environment; not the package:
    # its source, bytecode and the grader's questions are not in the sandbox at all
    assert set(out["checkout"]) <= {".venv"} or out["checkout"] == "FileNotFoundError", \
        out["checkout"]
    assert out["package"] in ([], "FileNotFoundError"), out["package"]
    assert not out["package_source"]
    # /dev is read-only (no tmpfs beside the capped scratch), its devices still work
    assert not out["write_dev"] and not out["write_dev_shm"] and out["dev_null"]
    assert "passwd" not in out["etc"] and "shadow" not in out["etc"]
    if isinstance(out["real_home"], list):  # the Python installation may live in the home
        assert set(out["real_home"]) <= {".pyenv", ".local"}, out["real_home"]
    # KERNELCOURSE_ROOTS_UNDER_TMP is the sandbox's word to its worker (this raw interpreter
    # stands in for the worker here), which the worker takes out before any answer runs
    assert not any(k.startswith(("PYTHONPATH", "SSH", "KERNELCOURSE")) for k in out["env"]
                   if k != "KERNELCOURSE_ROOTS_UNDER_TMP")
    assert not (Path(kernelcourse.__file__).parent / "x.py").exists()


def test_no_network_reaches_the_host(box):
    hits = []
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.2)
        port = server.getsockname()[1]
        stop = threading.Event()

        def accept():
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                    hits.append(conn)
                except OSError:
                    pass
        thread = threading.Thread(target=accept)
        thread.start()
        try:
            out = inside(box, f"""
                import json, socket
                try:
                    socket.create_connection(("127.0.0.1", {port}), timeout=2)
                    print(json.dumps("connected"))
                except OSError as exc:
                    print(json.dumps(type(exc).__name__))""")
        finally:
            stop.set()
            thread.join()
    assert out in ("ConnectionRefusedError", "OSError", "TimeoutError")
    assert hits == []


def test_other_processes_are_invisible_and_all_die_with_the_sandbox(box, tmp_path):
    out = inside(box, """
        import json, os, subprocess
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        if os.fork() == 0:          # a child that would outlive us
            os.setsid()
            import time
            time.sleep(30)
            os._exit(0)
        print(json.dumps({"pids": pids, "me": os.getpid(), "ppid_visible":
                          os.path.exists(f"/proc/{os.getppid()}/cmdline")}))""")
    # the program is PID 1 itself: no init of bubblewrap's holding its pipes, nothing else
    assert out["pids"] == [1] and out["me"] == 1, out
    # the sleeping child was killed with the sandbox: no sandboxed python is left on the host
    left = subprocess.run(["pgrep", "-f", "time.sleep(30)"], capture_output=True, text=True)
    assert left.stdout.strip() == "" or all(
        not Path(f"/proc/{p}").exists() for p in left.stdout.split())


def test_the_memory_cap_covers_the_whole_process_tree(box):
    limit = TreeMemoryLimit(512)
    try:
        code = """
            import json, os
            kids = []
            for _ in range(3):      # three processes of 300 MB each under one 512 MB cap
                pid = os.fork()
                if pid == 0:
                    block = bytearray(300 * 1024 * 1024)
                    for i in range(0, len(block), 4096):
                        block[i] = 1
                    import time
                    time.sleep(3)
                    os._exit(0)
                kids.append(pid)
            codes = [os.waitpid(pid, 0)[1] for pid in kids]
            print(json.dumps({"killed": sum(os.WIFSIGNALED(c) for c in codes)}))"""
        command = box.command([sys.executable, "-I", "-c", textwrap.dedent(code)])
        proc = subprocess.Popen(limit.wrap(command), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        limit.watch(proc.pid)
        stdout, stderr = proc.communicate(timeout=120)
        if proc.returncode == 0:
            assert json.loads(stdout.strip().splitlines()[-1])["killed"] >= 1, (limit.kind, stdout)
        else:  # the watchdog kills the whole tree
            assert limit.kind == "watchdog" and limit.tripped
        assert limit.oom_killed(), limit.kind
    finally:
        limit.close()
    assert all(not d.exists() for d in limit.dirs)


def test_the_watchdog_counts_the_scratch_folder_as_memory(box, monkeypatch):
    """Without a cgroup (forced here), files in the sandbox's tmpfs count against the cap."""
    monkeypatch.setenv("KERNELCOURSE_MEMORY_CAP", "watchdog")
    limit = TreeMemoryLimit(300)
    assert limit.kind == "watchdog"
    try:
        code = """
            import os, time
            with open("/tmp/fill", "wb") as f:   # 200 MB in files, 120 MB in the process
                for _ in range(200):
                    f.write(b"x" * (1 << 20))
            block = bytearray(120 * 1024 * 1024)
            for i in range(0, len(block), 4096):
                block[i] = 1
            time.sleep(60)   # over the cap from here on: the watchdog has a minute to see it,
            print("survived")  # however busy the machine (it looks ten times a second)"""
        sandbox = Sandbox(box.bwrap, scratch_mb=512)
        command = sandbox.command([sys.executable, "-I", "-c", textwrap.dedent(code)])
        proc = subprocess.Popen(limit.wrap(command), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        limit.watch(proc.pid)
        stdout, _ = proc.communicate(timeout=180)
        assert "survived" not in stdout and limit.tripped and limit.oom_killed()
    finally:
        limit.close()


def test_the_cgroup_v2_cap_is_set_up_as_v2_gives_it(tmp_path, monkeypatch):
    """The cgroup v2 path, where this machine cannot run it for real (its memory controller is
    v1's): against a folder laid out as a delegated v2 cgroup, the cap writes memory.max,
    memory.oom.group (one kill is the whole answer's), swap and pids limits, takes the CPU
    share when the cpu controller is delegated, and counts memory.events' oom_kill."""
    from kernelcourse.grading.sealed import sandbox as sb

    own = tmp_path / "user.slice"
    own.mkdir()
    (own / "cgroup.subtree_control").write_text("cpu memory pids\n")
    made = []
    real_mkdir = Path.mkdir

    def mkdir(path, *args, **kwargs):  # the kernel creates a cgroup's files with its folder
        real_mkdir(path, *args, **kwargs)
        if path.parent == own:
            made.append(path)
            for name in ("memory.max", "memory.swap.max", "memory.oom.group", "pids.max",
                         "cgroup.procs", "memory.events"):
                (path / name).write_text("")

    monkeypatch.delenv("KERNELCOURSE_MEMORY_CAP", raising=False)
    monkeypatch.setattr(sb, "_cgroup_mounts", lambda: {"v2": str(tmp_path), "memory": "/none"})
    monkeypatch.setattr(sb, "_own_cgroup", lambda controller: "/user.slice")
    monkeypatch.setattr(Path, "mkdir", mkdir)
    limit = TreeMemoryLimit(64)
    try:
        assert limit.kind == "cgroup v2" and limit.cpu_share and limit.dirs == made
        path = made[0]
        assert (path / "memory.max").read_text() == str(64 * 1024 * 1024)
        assert (path / "memory.oom.group").read_text() == "1"
        assert (path / "memory.swap.max").read_text() == "0"
        assert (path / "pids.max").read_text() == str(TreeMemoryLimit.MAX_PROCESSES)
        assert not limit.oom_killed()
        (path / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 1\noom_kill 2\n")
        assert limit.oom_kills() == 2 and limit.oom_killed()
        wrapped = limit.wrap(["python3", "-c", "pass"])
        assert wrapped[-4:] == ["--", "python3", "-c", "pass"] and str(path) in wrapped
    finally:
        limit.dirs = []  # not the kernel's: nothing to remove
        limit.close()


def test_the_watchdog_holds_while_the_grader_is_stopped(box, monkeypatch):
    """The watchdog is a process of its own: with the grader's process stopped outright
    (SIGSTOP, as a grader stuck in a long call of its own would be), a tree over the cap is
    still killed; a helper resumes the grader once the tree is gone (or after 120 s)."""
    import signal

    monkeypatch.setenv("KERNELCOURSE_MEMORY_CAP", "watchdog")
    limit = TreeMemoryLimit(300)
    assert limit.kind == "watchdog"
    try:
        code = """
            import time
            block = bytearray(500 * 1024 * 1024)
            for i in range(0, len(block), 4096):
                block[i] = 1
            time.sleep(20)
            print("survived")"""
        command = box.command([sys.executable, "-I", "-c", textwrap.dedent(code)])
        proc = subprocess.Popen(limit.wrap(command), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        limit.watch(proc.pid)
        assert limit._watcher.pid not in (os.getpid(), proc.pid)
        resume = subprocess.Popen(
            ["/bin/sh", "-c", f"end=$(( $(date +%s) + 120 )); "
                              f"while kill -0 {proc.pid} 2>/dev/null && [ -z \"$(cat /proc/{proc.pid}/stat 2>/dev/null | grep ' Z ')\" ] "
                              f"&& [ $(date +%s) -lt $end ]; do sleep 0.2; done; "
                              f"kill -CONT {os.getpid()}"])
        os.kill(os.getpid(), signal.SIGSTOP)  # the grader stops here until the tree is gone
        stdout, _ = proc.communicate(timeout=120)
        resume.wait(timeout=10)
        assert "survived" not in stdout and limit.tripped and limit.oom_killed()
    finally:
        limit.close()
