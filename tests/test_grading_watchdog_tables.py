"""The watchdog reads a network namespace's TCP tables only when it has TCP sockets in use
(its ``sockstat``), since listing them walks the kernel's whole hash of connections: tens of
milliseconds per look on a large machine, ten looks a second per worker. These tests show the
shortcut loses nothing: a TCP connection's queued bytes in the tree's own network namespace
count, also when no process holds its descriptors any more (they travel in a Unix socket's
queue), and a namespace with no TCP socket in use has nothing in its table to count."""
import contextlib
import os
import socket
import subprocess
import sys
import textwrap

import pytest

from kernelcourse.grading.sealed import watchdog

#: the start of a holder: a process in a network namespace of its own (as the sandbox's); it
#: exits saying why when it cannot have one
NAMESPACE = textwrap.dedent("""
    import array, ctypes, fcntl, os, socket, struct, sys
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x40000000 | (0x10000000 if os.getuid() else 0)) != 0:  # NEWNET (+USER)
        print("no namespace", ctypes.get_errno(), flush=True)
        sys.exit(1)
""")

# a loopback TCP connection filled both ways, both ends then sent into a Unix socket pair's
# queue and closed here, so no process holds them
TCP_HELD_BY_NO_PROCESS = textwrap.dedent("""
    fcntl.ioctl(socket.socket(), 0x8914, struct.pack("16sH22x", b"lo", 1))  # lo up
    lo = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        lo.bind(("127.0.0.1", 0))
    except OSError:
        print("no loopback", flush=True)
        sys.exit(1)
    lo.listen()
    a = socket.create_connection(lo.getsockname())
    b, _ = lo.accept()
    for s in (a, b):
        s.setblocking(False)
        try:
            while True:
                s.send(b"x" * 65536)
        except BlockingIOError:
            pass
    left, right = socket.socketpair()
    left.sendmsg([b"fds"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                             array.array("i", [a.fileno(), b.fileno()]))])
    for s in (a, b, lo):
        s.close()
""")

# only a Unix socket pair, a little in its queue: no TCP socket in use
UNIX_PAIR_ONLY = textwrap.dedent("""
    a, b = socket.socketpair()
    a.send(b"x" * 1000)
""")


@contextlib.contextmanager
def holder_of(sockets: str):
    """A process in a network namespace of its own that makes ``sockets`` (the source that
    makes them), says "ready" and waits while the test looks; the test is skipped where a test
    process cannot have such a namespace."""
    source = NAMESPACE + sockets + 'print("ready", flush=True)\nsys.stdin.read()\n'
    holder = subprocess.Popen(
        [sys.executable, "-c", source],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = holder.stdout.readline().strip()
        if line != "ready":
            pytest.skip(f"no network namespace of its own for a test process here: {line} "
                        f"{holder.stderr.read()[-200:] if holder.poll() is not None else ''}")
        yield holder
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_tcp_buffers_in_the_trees_own_namespace_count_even_held_by_no_process():
    with holder_of(TCP_HELD_BY_NO_PROCESS) as holder:
        # the namespace has TCP sockets in use, so its tables are read
        assert {"tcp", "unix"} <= set(watchdog._tables(holder.pid, True))
        counted = watchdog.kernel_buffers([holder.pid])
        # the two ends' queues, as the kernel shows them (each at least a few hundred kB on
        # loopback), beside the Unix pair at its bound: far more than the Unix pair alone
        unix_only = 2 * watchdog.UNIX_SOCKET_BYTES
        assert counted > unix_only + 200_000, (counted, unix_only)


def test_a_namespace_without_tcp_sockets_skips_the_tables_it_would_find_empty():
    with holder_of(UNIX_PAIR_ONLY) as holder:
        assert watchdog._tables(holder.pid, True) == ["unix"]
        with open(f"/proc/{holder.pid}/net/tcp") as f:  # what the shortcut leaves unread
            assert f.read().splitlines()[1:] == []
        # the Unix pair still counts, at its bound, each end once
        assert watchdog.kernel_buffers([holder.pid]) >= 2 * watchdog.UNIX_SOCKET_BYTES


def test_sockets_held_in_the_watchdogs_own_namespace_are_still_read():
    """In a namespace not the tree's own (the machine's: bubblewrap's outer process lives
    there), only sockets the tree holds count; holding none, nothing is read."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    try:
        client = socket.create_connection(server.getsockname())
        peer, _ = server.accept()
        client.setblocking(False)
        try:
            while True:
                client.send(b"x" * 65536)
        except BlockingIOError:
            pass
        assert watchdog.kernel_buffers([os.getpid()]) > 200_000
        client.close()
        peer.close()
    finally:
        server.close()
