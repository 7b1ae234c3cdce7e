"""The watchdog: the memory cap of a process tree where no cgroup v2 counts it.

Run as a script by :meth:`kernelcourse.grading.sealed.sandbox.TreeMemoryLimit.watch`, a
process of its own (standard library only: ``python -I -S watchdog.py ROOT CAP MOST
[USAGE_FILE]``). Ten times a second it adds up the memory of the tree of ``ROOT``: what its
processes map (each one's proportional share, PSS, so pages shared by forked processes count
once, as a cgroup charges them) and the bytes in its private scratch folders, or, given
``USAGE_FILE`` (a cgroup v1's ``memory.usage_in_bytes``), what that cgroup counts; and, in
both, the kernel memory no cgroup v1 counts: the buffers of the tree's sockets and pipes
(:func:`kernel_buffers`). Over ``CAP`` bytes or ``MOST`` processes, it writes one byte to its
standard output and kills every process of the tree.

What a socket or a pipe holds is read where the kernel shows it (the queues of TCP and UDP
sockets, in the sandbox's own network namespace) and bounded where it does not (a Unix socket
holds at most its send buffer, a pipe 16 pages: an answer cannot raise either, seccomp refuses
``SO_SNDBUF``, ``SO_RCVBUF`` and ``F_SETPIPE_SZ`` in its process,
:func:`kernelcourse.grading.model.shortcuts.seal_process`), so each counts at that bound. A TCP or
UDP table is read only where its namespace has such sockets in use (:func:`_tables`): listing
one walks the kernel's whole hash of connections, which ten times a second cost half a core.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

SCRATCHES = ("/tmp", "/dev/shm")
_HOST_DEVS = set()
for _folder in ("/", *SCRATCHES):
    try:
        _HOST_DEVS.add(os.stat(_folder).st_dev)
    except OSError:  # pragma: no cover
        pass


def _sysctl(name: str, default: int) -> int:
    try:
        return int(Path(f"/proc/sys/{name}").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


PAGE = os.sysconf("SC_PAGE_SIZE")
#: the most a Unix socket holds: its send buffer (the default: it cannot be raised) and one
#: buffer past it (the kernel stops a sender only once it is over)
UNIX_SOCKET_BYTES = 2 * _sysctl("net/core/wmem_default", 212992) + 65536
#: the most a pipe holds: 16 pages (its default size: it cannot be raised), and their
#: bookkeeping
PIPE_BYTES = 16 * PAGE + 4096


#: under a cgroup v1, the kernel buffers below which the cgroup's own cap is left to act (an
#: honest answer's pipes and sockets hold a few megabytes; a page cache at the cgroup's limit
#: plus them must not stop it)
V1_KERNEL_SLACK = 32 * 1024 * 1024


def watch(root_pid: int, cap: int, most: int, usage_file: str | None = None) -> None:
    """The loop (see the module's text)."""
    try:  # die with the grader
        import ctypes

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover
        pass
    while True:
        time.sleep(0.1)
        if usage_file:  # the cgroup lists its processes: no scan of every process here
            if not os.path.exists(f"/proc/{root_pid}"):
                return
            tree = _cgroup_processes(usage_file)
        else:
            tree = _process_tree(root_pid)
            if not tree:
                return
        if usage_file:
            try:
                used = int(Path(usage_file).read_text())
            except (OSError, ValueError):
                used = 0
        else:
            used = _scratch_bytes(tree)  # files in the sandbox's tmpfs are memory too
            for pid in tree:
                used += _memory_of(pid)
        kernel = kernel_buffers(tree)
        # under a cgroup v1, which caps the rest itself (its own OOM killer stops one process
        # at its limit), only a tree whose kernel buffers make a real part of it is stopped
        over = used + kernel > cap and (not usage_file or kernel > V1_KERNEL_SLACK)
        if over or len(tree) > most:
            try:  # told first: the grader sees it by the time it sees the tree die
                os.write(1, b"!")
            except OSError:
                return
            for pid in tree:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


def _cgroup_processes(usage_file: str) -> list[int]:
    """The processes of the cgroup whose ``memory.usage_in_bytes`` is ``usage_file``."""
    try:
        return [int(pid) for pid in
                (Path(usage_file).parent / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def kernel_buffers(tree: list[int]) -> int:
    """The bytes the tree's sockets and pipes may hold in the kernel: the queues of its TCP
    and UDP sockets as the kernel shows them (twice the bytes queued: each buffer's
    bookkeeping), each Unix (or other) socket at :data:`UNIX_SOCKET_BYTES` and each pipe at
    :data:`PIPE_BYTES`; a socket or pipe that several processes hold counts once. The
    sockets are those the tree's processes hold (where this process may list their
    descriptors: as root) and every socket of a network namespace of the tree's own (the
    sandbox's: all of it is the tree's, and its tables are readable by any user)."""
    sockets, pipes = set(), set()
    for pid in tree:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in names:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{name}")
            except OSError:
                continue
            if link.startswith("socket:["):
                sockets.add(link[8:-1])
            elif link.startswith("pipe:["):
                pipes.add(link[6:-1])
    try:
        here = os.readlink("/proc/self/ns/net")
    except OSError:
        here = ""
    spaces = {}
    for pid in tree:  # one process per network namespace
        try:
            spaces.setdefault(os.readlink(f"/proc/{pid}/ns/net"), pid)
        except OSError:
            continue
    queued, inet = 0, set()
    for space, pid in spaces.items():
        own = space != here  # the sandbox's: every socket in it is the tree's
        if not own and not sockets:
            continue  # of another namespace only the sockets the tree holds count: none
        for table in _tables(pid, own):
            try:
                lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
            except OSError:
                continue
            for line in lines:
                fields = line.split()
                if table == "unix":
                    if own and len(fields) > 6:
                        sockets.add(fields[6])
                    continue
                if len(fields) > 9 and (own or fields[9] in sockets):
                    tx, _, rx = fields[4].partition(":")
                    queued += 2 * (int(tx, 16) + int(rx, 16))
                    inet.add(fields[9])
                    sockets.add(fields[9])
    return queued + (len(sockets) - len(inet)) * UNIX_SOCKET_BYTES + len(pipes) * PIPE_BYTES


def _tables(pid: int, own: bool) -> list[str]:
    """The socket tables of ``pid``'s network namespace worth reading: a table of TCP or UDP
    sockets only when the namespace has sockets of that kind in use (its ``sockstat``, cheap,
    where listing the TCP table walks the kernel's whole hash of connections, tens of
    milliseconds on a large machine, an empty table or not); the Unix table of the tree's own
    namespace. A socket that is not in use there (never bound or connected) queues nothing."""
    tables = ["unix"] if own else []
    for stat, kinds in (("sockstat", (("TCP:", "tcp"), ("UDP:", "udp"))),
                        ("sockstat6", (("TCP6:", "tcp6"), ("UDP6:", "udp6")))):
        try:
            lines = Path(f"/proc/{pid}/net/{stat}").read_text().splitlines()
        except OSError:  # unknown: read them all
            tables += [table for _, table in kinds]
            continue
        for prefix, table in kinds:
            fields = next((line.split() for line in lines if line.startswith(prefix)), [])
            try:
                in_use = int(fields[fields.index("inuse") + 1])
            except (ValueError, IndexError):
                in_use = 1
            if in_use:
                tables.append(table)
    return tables


def _memory_of(pid: int, page: int = PAGE) -> int:
    """The memory of one process: its proportional share of the pages it maps (PSS: a page
    shared by forked processes counts once over all of them, as a cgroup charges it), or its
    resident size where the kernel gives no PSS."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
    except (OSError, ValueError, IndexError):
        return 0


def _scratch_bytes(tree: list[int]) -> int:
    """The bytes held in the private scratch folders (the tmpfs ``/tmp`` and ``/dev/shm`` of
    each submission) the processes of ``tree`` see, each file system counted once."""
    seen, used = set(), 0
    for pid in tree:
        for folder in SCRATCHES:
            try:
                st = os.statvfs(f"/proc/{pid}/root{folder}")
                key = os.stat(f"/proc/{pid}/root{folder}").st_dev
            except OSError:
                continue
            if key in seen or key in _HOST_DEVS:
                continue
            seen.add(key)
            used += (st.f_blocks - st.f_bfree) * st.f_frsize
    return used


def _process_tree(root: int) -> list[int]:
    """``root`` and its descendants (from /proc), [] when root is gone."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    if root not in parents:
        return []
    tree, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        tree += frontier
    return tree


if __name__ == "__main__":
    watch(*map(int, sys.argv[1:4]), *sys.argv[4:5])
