"""An answer's hard deadline: the CPU time of its whole process tree, not the clock.

The submission process (:mod:`.submission`) waits for each answer's process under a
:class:`Deadline`, which measures the answer, not the machine it runs on:

* **CPU time** of every process the answer made, its children and theirs, wherever they moved
  (another session, another process group, orphaned): the user and system time of each live
  process of the tree, with what each has reaped (``/proc/PID/stat``: ``utime``, ``stime``,
  ``cutime``, ``cstime``), plus what this process reaped of the tree since the answer began
  (``RUSAGE_CHILDREN``). The tree is every process descending from this one but itself:
  orphans come back here (PID 1 of the submission's PID namespace, or a child subreaper,
  :func:`collect_orphans`), so no process of the answer leaves it, and a zombie still shows
  its times. An answer that keeps its main thread waiting beside spinning children is stopped
  by its children's CPU; an honest answer that waits for a CPU on a machine busy with other
  work is not, as long as its own processes have not used up their time.
* **Idle time**: wall-clock time in which the tree neither ran nor waited for a CPU (its CPU
  time and each live process's run delay, ``/proc/PID/schedstat``, taken from the time gone
  by), so an answer that only sleeps is stopped without holding its worker for the whole
  backstop.
* **Wall-clock time**, a generous backstop.

The tree is looked at every :data:`LOOK_EVERY` seconds, the first time only once an answer has
run that long (an answer that replies sooner costs no look).
"""
from __future__ import annotations

import os
import resource
import time

__all__ = ["Deadline", "TreeTimes", "collect_orphans", "hard_limits", "LOOK_EVERY",
           "WALL_TIMES"]

#: seconds between two looks at the tree
LOOK_EVERY = 0.1
#: the wall-clock backstop, in multiples of the answer's time limit: an honest answer whose
#: processes get a thirtieth of a CPU on a busy machine (a load of 60 on two cores) still
#: finishes within it; only an answer whose processes wait for a CPU without getting one
#: (on a machine that busy) is held to it, the other limits stop any other
WALL_TIMES = 60
_TICK = os.sysconf("SC_CLK_TCK")


def hard_limits(seconds: float) -> dict:
    """The hard deadline of an answer whose time limit is ``seconds`` (of its own CPU time,
    counted in its process for the cell and again for the cases): twice that of the tree's
    CPU time and a second more; four times that of idle time; :data:`WALL_TIMES` times that of
    wall-clock time (keyword arguments of :class:`Deadline`)."""
    return {"cpu": 2 * seconds + 1.0, "idle": 4 * seconds + 1.0,
            "wall": WALL_TIMES * seconds + 1.0}


def collect_orphans() -> None:
    """Make this process the one the orphans of its descendants are given to (Linux's child
    subreaper), where it is not PID 1 of a namespace already, so none leaves the tree."""
    if os.getpid() == 1:
        return
    try:
        from .processes import libc

        libc().prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _own_number() -> str:
    """This process's number in the ``/proc`` it sees (not ``os.getpid()``: a submission
    process is PID 1 of its own namespace but lists the sandbox's ``/proc``)."""
    try:
        return os.readlink("/proc/self")
    except OSError:
        return str(os.getpid())


def _reaped() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class TreeTimes:
    """The CPU seconds and the run delay (seconds waited for a CPU) of the processes
    descending from this one, itself left out, from ``/proc`` (:meth:`look`)."""

    def __init__(self):
        self.me = _own_number()
        self.reaped_at_start = _reaped()

    def look(self) -> tuple[float, float]:
        """``(cpu, waited)`` of the tree now: CPU of its live processes (with what they
        reaped) plus what this process reaped since the start; their run delay."""
        parents: dict[str, str] = {}
        ticks: dict[str, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or entry == self.me:
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                parents[entry] = fields[1]
                ticks[entry] = sum(int(v) for v in fields[11:15])
            except (OSError, ValueError, IndexError):
                continue
        tree, frontier = set(), {self.me}
        while frontier:
            frontier = {pid for pid, parent in parents.items()
                        if parent in frontier and pid not in tree}
            tree |= frontier
        cpu = sum(ticks[pid] for pid in tree) / _TICK + _reaped() - self.reaped_at_start
        waited = 0.0
        for pid in tree:
            try:
                with open(f"/proc/{pid}/schedstat") as f:
                    waited += int(f.read().split()[1]) / 1e9
            except (OSError, ValueError, IndexError):
                continue
        return cpu, waited


class Deadline:
    """An answer's hard deadline: at most ``cpu`` seconds of CPU time of its process tree, at
    most ``idle`` seconds in which the tree neither ran nor waited for a CPU, at most ``wall``
    seconds in all (see the module's text). Without ``cpu``, only the wall-clock time.

    :meth:`left` is what a waiting loop asks: the seconds it may wait before it asks again, 0
    when the deadline has passed; :attr:`why` then says which limit was reached."""

    def __init__(self, wall: float, cpu: float | None = None, idle: float | None = None):
        self.start = time.monotonic()
        self.wall, self.cpu, self.idle = wall, cpu, idle
        self.tree = TreeTimes() if cpu is not None else None
        self.next_look = self.start + LOOK_EVERY
        self.why = ""
        self.used = 0.0  # the tree's CPU seconds at the last look

    def _over(self, now: float) -> bool:
        cpu, waited = self.tree.look()
        self.used = cpu
        if cpu > self.cpu:
            self.why = f"its processes used {cpu:.1f} s of CPU time"
            return True
        if self.idle is not None:
            busy = cpu + waited
            if now - self.start - busy > self.idle:
                self.why = f"it waited {now - self.start - busy:.1f} s without running"
                return True
        return False

    def left(self) -> float:
        now = time.monotonic()
        if self.why:
            return 0.0
        if now - self.start >= self.wall:
            self.why = f"{now - self.start:.1f} s went by"
            return 0.0
        if self.tree is not None and now >= self.next_look:
            if self._over(now):
                return 0.0
            self.next_look = now + LOOK_EVERY
        upto = self.next_look if self.tree is not None else self.start + self.wall
        return max(min(upto, self.start + self.wall) - now, 1e-3)
