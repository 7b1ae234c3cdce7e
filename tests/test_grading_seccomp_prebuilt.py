"""The seccomp filter an answer's process installs is built once, before any answer's process
is forked (the grading worker's warm-up), and the answer's process only hands it to the
kernel; what the kernel refuses an answer is unchanged. Each answer here runs through the
real submission process (``submission.serve``: a forked process per answer, armed and sealed
as in the grader), and reports from inside what its process may do."""
import errno
import os
import socket  # noqa: F401 - loaded before the answer's process, as the worker's warm-up does
import struct

import pytest

from kernelcourse.grading.intake.notebooks import python_source
from kernelcourse.grading.model import seccomp, transport
from kernelcourse.grading.sealed import submission

python_source("x = 1\n")  # IPython's transformer loaded here, as in the worker's warm-up

pytestmark = pytest.mark.skipif(not os.uname().machine in ("x86_64", "aarch64")
                                or not hasattr(os, "memfd_create"),
                                reason="seccomp filter only on Linux, x86-64 and aarch64")

# the answer: which seccomp mode its process is in, the filter object it inherited, and the
# errno of each call the filter refuses (or "allowed"), by its number or by its arguments; a
# call it allows must still work
PROBE = '''
import os, socket

def probe():
    from kernelcourse.grading.model import seccomp
    mode = [line.split(":")[1].strip() for line in open("/proc/self/status")
            if line.startswith("Seccomp:")]
    out = {"mode": mode[0] if mode else "unknown",
           "filter": id(seccomp._SECCOMP_FILTER[0]) if seccomp._SECCOMP_FILTER else 0}

    def attempt(name, call):
        try:
            call()
            out[name] = "allowed"
        except OSError as exc:
            out[name] = exc.errno

    attempt("memfd_create", lambda: os.close(os.memfd_create("hoard")))
    r, w = os.pipe()
    import fcntl
    attempt("F_SETPIPE_SZ", lambda: fcntl.fcntl(w, 1031, 1 << 20))
    os.close(r)
    os.close(w)
    a, b = socket.socketpair()
    attempt("SO_SNDBUF", lambda: a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22))
    attempt("SO_KEEPALIVE", lambda: a.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1))
    attempt("pipe", lambda: [os.close(fd) for fd in os.pipe()])
    return sorted(out.items())
'''


def _serve(cell: str) -> dict:
    request = {"cell": cell, "function": "probe", "time_limit": 20, "forbidden": [],
               "cases": [[transport.encode([]), transport.encode({})]]}
    reply = submission.serve(request, 0)
    assert "outcomes" in reply, reply
    outcome = reply["outcomes"][0]
    assert outcome["kind"] == "value", outcome
    return dict(transport.decode(outcome["value"]))


def test_the_prebuilt_program_is_the_filter_as_written():
    """What is built once holds the BPF instructions of the filter, instruction for
    instruction (the program is not changed by building it ahead)."""
    built = seccomp.seccomp_filter()
    assert built is not None
    assert seccomp.seccomp_filter() is built  # built once, then kept
    _, fprog, buffer, address = built
    program = seccomp._seccomp_program(os.uname().machine)
    assert fprog.len == len(program)
    assert bytes(buffer)[:8 * len(program)] == b"".join(struct.pack("HBBI", *ins)
                                                         for ins in program)


def test_an_answer_runs_under_the_filter_built_before_its_process_was_forked():
    """The answer's process holds the very filter object built in the process that forked it
    (same address: inherited, not rebuilt), is in seccomp's filter mode, and every call the
    filter refuses fails with EPERM, the errno the filter returns; calls it allows work."""
    built = seccomp.seccomp_filter()  # as the worker's warm-up does, before any fork
    seen = _serve(PROBE)
    assert seen["mode"] == "2", seen  # SECCOMP_MODE_FILTER
    assert seen["filter"] == id(built), seen
    # (new programs are refused too, by the audit hook before the kernel sees them)
    for refused in ("memfd_create", "F_SETPIPE_SZ", "SO_SNDBUF"):
        assert seen[refused] == errno.EPERM, (refused, seen)
    assert seen["SO_KEEPALIVE"] == "allowed", seen
    assert seen["pipe"] == "allowed", seen


def test_the_test_process_itself_stays_unfiltered():
    """Building the filter installs nothing: only an answer's process is sealed (the
    process that built it can still make a memfd)."""
    seccomp.seccomp_filter()
    fd = os.memfd_create("free")
    os.close(fd)
