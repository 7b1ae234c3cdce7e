"""Issue 41: an answer's time limit measures the answer, not the machine.

The hard deadline of an answer (:mod:`kernelcourse.grading.sealed.deadline`) counts the CPU
time of its whole process tree: children in sessions of their own and children already reaped
count, so an answer that waits beside spinning children is stopped by their CPU time; an
answer that only sleeps is stopped as idle; an honest answer that waits for a CPU held by the
machine's other work is not stopped. The unit tests below run a tree of their own under a
:class:`Deadline`; the slow test grades through the real ``kernelcourse grade`` while this
test keeps the machine busy with processes of its own, and asserts points, never times.
"""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kernelcourse.grading.sealed.deadline import Deadline, TreeTimes, hard_limits
from test_grading_attacks import FULL, POINTS, grade, notebook


def _kill(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _wait_out(deadline: Deadline, pid: int, most: float = 120.0) -> bool:
    """Wait for ``pid`` under ``deadline``: True when the deadline stopped it first (a
    backstop of ``most`` seconds only ends a broken test)."""
    end = time.monotonic() + most
    while time.monotonic() < end:
        if os.waitpid(pid, os.WNOHANG)[0]:
            return False
        if deadline.left() <= 0:
            return True
        time.sleep(0.01)
    raise AssertionError("neither the process ended nor its deadline passed")


def _spin_forever():
    os.setsid()
    while True:
        pass


def test_spinning_children_in_sessions_of_their_own_are_counted():
    """The answer's own process sleeps; four children in sessions of their own spin: the
    tree's CPU time stops it (the idle and wall limits are far off)."""
    read, write = os.pipe()
    answer = os.fork()
    if answer == 0:
        os.close(read)
        for _ in range(4):
            child = os.fork()
            if child == 0:
                os.close(write)  # the test reads the numbers to the end of the pipe
                _spin_forever()
            os.write(write, f"{child}\n".encode())
        os.close(write)
        time.sleep(600)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:  # ends when the answer has forked all four
        spinners = [int(line) for line in f.read().split()]
    try:
        assert len(spinners) == 4
        deadline = Deadline(wall=600.0, cpu=0.5, idle=300.0)
        assert _wait_out(deadline, answer)
        assert deadline.why.startswith("its processes used") and deadline.used > 0.5
    finally:
        _kill([answer, *spinners])
        os.waitpid(answer, 0)


def test_children_already_reaped_count():
    """A child that spins, exits and is reaped by the answer leaves no process behind: its
    CPU time is in the answer's ``cutime``, counted all the same."""
    answer = os.fork()
    if answer == 0:
        child = os.fork()
        if child == 0:
            start = time.process_time()
            while time.process_time() - start < 0.6:
                pass
            os._exit(0)
        os.waitpid(child, 0)
        time.sleep(600)
        os._exit(0)
    try:
        deadline = Deadline(wall=600.0, cpu=0.4, idle=300.0)
        assert _wait_out(deadline, answer)
        assert "CPU" in deadline.why
    finally:
        _kill([answer])
        os.waitpid(answer, 0)


def test_an_answer_that_only_sleeps_is_stopped_as_idle():
    answer = os.fork()
    if answer == 0:
        time.sleep(600)
        os._exit(0)
    try:
        deadline = Deadline(wall=600.0, cpu=5.0, idle=0.5)
        assert _wait_out(deadline, answer)
        assert "without running" in deadline.why
    finally:
        _kill([answer])
        os.waitpid(answer, 0)


def test_the_tree_leaves_out_this_process_and_an_answer_that_ends_in_time_is_not_stopped():
    answer = os.fork()
    if answer == 0:
        start = time.process_time()
        while time.process_time() - start < 0.2:
            pass
        os._exit(0)
    deadline = Deadline(wall=600.0, cpu=5.0, idle=300.0)
    assert not _wait_out(deadline, answer)  # reaped here: RUSAGE_CHILDREN holds it now
    cpu, _ = deadline.tree.look()
    assert 0.15 <= cpu < 5.0, cpu
    start = time.process_time()
    while time.process_time() - start < 0.3:  # this process's own work is not the tree's
        pass
    assert deadline.tree.look()[0] == pytest.approx(cpu, abs=0.02)
    assert TreeTimes().look()[0] == 0.0  # nothing of this process's tree is running now


def test_the_hard_limits_stand_above_the_answers_own():
    limits = hard_limits(2.0)
    assert limits["cpu"] > 2 * 2.0 and limits["idle"] > limits["cpu"]
    assert limits["wall"] >= 30 * 2.0


# ------------------------------------------------------------- through `kernelcourse grade`
LIMIT = 2  # --question-timeout: seconds of CPU time per question

#: ex1.q2 answered right after about 90% of its CPU limit (its first call), as a slow honest
#: answer spends it
SLOW_HONEST = f"""
import time

_first = [True]

def all_subsets_dim(d):
    if _first[0]:
        _first[0] = False
        start = time.process_time()
        while time.process_time() - start < {0.9 * LIMIT}:
            pass
    return 2 ** d
"""

#: ex1.q2 answered right by a main thread that stays runnable beside 24 spinning children (in
#: sessions of their own): it spends half its own limit while they take the machine
SPINNING_CHILDREN = f"""
import os, time

_first = [True]

def all_subsets_dim(d):
    if _first[0]:
        _first[0] = False
        for _ in range(24):
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        start = time.process_time()
        while time.process_time() - start < {0.5 * LIMIT}:
            pass
    return 2 ** d
"""


@pytest.mark.slow
@pytest.mark.parametrize("cap", ["this machine's", "watchdog"])
def test_an_honest_answer_near_its_limit_passes_on_a_busy_machine(tmp_path, cap):
    """Twice as many spinning processes as cores, started here (outside the grader), keep the
    machine busy while `kernelcourse grade` grades four submissions in turn (``--jobs 1``):
    the solved set, the set whose ex1.q2 spends about 90% of its CPU limit, the set whose
    ex1.q2 waits beside 24 spinning children, the solved set again. The slow honest answer
    earns full marks (its limit counts its own CPU time, not the time it waited for a CPU);
    the answer with spinning children loses ex1.q2's point (its children's CPU time counts);
    the others are untouched. Under the cap this machine gives and under the watchdog."""
    folder, out, home = tmp_path / "sub", tmp_path / "out", tmp_path / "home"
    for p in (folder, out, home):
        p.mkdir()
    (folder / "a_correct.ipynb").write_text(json.dumps(notebook()))
    (folder / "b_slow_honest.ipynb").write_text(json.dumps(notebook(q2=SLOW_HONEST)))
    (folder / "c_spinning_children.ipynb").write_text(json.dumps(
        notebook(q2=SPINNING_CHILDREN)))
    (folder / "d_correct.ipynb").write_text(json.dumps(notebook()))
    env = {"KERNELCOURSE_MEMORY_CAP": "watchdog"} if cap == "watchdog" else {}
    load = []
    try:
        for _ in range(2 * (os.cpu_count() or 1)):
            load.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        result = grade(folder, out, home, "--questions", "ex1", "--jobs", "1",
                       "--question-timeout", str(LIMIT), "--no-progress", env=env,
                       timeout=1500)
    finally:
        for process in load:  # by PID, each one this test started
            process.kill()
            process.wait()
    assert result.returncode == 0, result.stderr[-3000:]
    rows = {Path(s["file"]).name: s
            for s in json.loads((out / "gradebook.json").read_text())["submissions"]}
    for name in ("a_correct", "b_slow_honest", "d_correct"):
        assert rows[f"{name}.ipynb"]["total"] == FULL, (name, rows[f"{name}.ipynb"]["details"])
    spinning = rows["c_spinning_children.ipynb"]
    assert spinning["total"] == FULL - POINTS["ex1.q2"], spinning["details"]
    assert "time limit of 2 s is over" in spinning["details"]["ex1.q2"], spinning["details"]


def test_the_answers_above_are_right_when_not_stopped():
    """The two answers of the slow test return the right value when nothing stops them (so
    the points the slow test asserts come from the time limits alone): past their first
    call, which spends the time."""
    for source in (SLOW_HONEST, SPINNING_CHILDREN):
        namespace = {}
        exec(textwrap.dedent(source), namespace)
        namespace["_first"][0] = False
        assert [namespace["all_subsets_dim"](d) for d in (0, 3, 5)] == [1, 8, 32]
