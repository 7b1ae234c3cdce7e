"""The seccomp filter an answer's process installs on itself: what the kernel refuses it.

:func:`kernelcourse.grading.model.shortcuts.seal_process` calls :func:`install_filter` in each
answer's process (:mod:`kernelcourse.grading.sealed.answer`). The program is built once per
process (:func:`seccomp_filter`): the grading worker builds it in its warm-up, before it forks
any submission's or answer's process, so an answer's process only hands the kernel a program
it inherited (two ``prctl`` calls), instead of building its ctypes structure and its BPF
instructions anew for every answer.
"""
from __future__ import annotations

import os
import sys

__all__ = ["install_filter", "seccomp_filter"]

# seccomp: refused with EPERM (x86-64 and aarch64 numbers): execve, execveat (no new
# programs); shmget, semget, msgget, mq_open (System V and POSIX IPC, which would outlive the
# answer's processes); memfd_create (memory outside every file system); add_key, request_key,
# keyctl (kernel keys, which outlive processes); ptrace. And, by their arguments: raising a
# socket's buffers (setsockopt SOL_SOCKET SO_SNDBUF, SO_RCVBUF and their FORCE forms) and a
# pipe's (fcntl F_SETPIPE_SZ), so that each holds at most what the watchdog counts for it
_EXEC_SYSCALLS = {
    "x86_64": (0xC000003E, (59, 322, 29, 64, 68, 240, 319, 248, 249, 250, 101), 54, 72),
    "aarch64": (0xC00000B7, (221, 281, 194, 190, 186, 180, 279, 217, 218, 219, 117), 208, 25),
}
_SOCKET_BUFFERS = (7, 8, 32, 33)  # SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE


def _seccomp_program(arch: str) -> list[tuple[int, int, int, int]]:
    """The filter as BPF instructions ``(code, jt, jf, k)``."""
    audit_arch, numbers, setsockopt, fcntl = _EXEC_SYSCALLS[arch]
    # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_JMP|BPF_JGE|BPF_K, BPF_RET|BPF_K
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, errno_eperm, kill = 0x7FFF0000, 0x00050001, 0x80000000
    # (code, label if true, label if false, k), labels resolved below (None: the next one);
    # a leading string names an instruction. Offsets 0, 4, 24, 32 of seccomp_data: the
    # call's number, the architecture, its second and third arguments (their low 32 bits)
    prog = [(ld, None, None, 4), (jeq, "nr", "kill", audit_arch), ("kill", ret, 0, kill),
            ("nr", ld, 0, 0), (jeq, "sockopt", None, setsockopt), (jeq, "fcntl", None, fcntl)]
    prog += [(jeq, "no", None, nr) for nr in numbers]
    if arch == "x86_64":
        prog.append((jge, "no", None, 0x40000000))  # the x32 ABI's numbers: refused altogether
    prog += [(ret, None, None, allow),
             ("sockopt", ld, 0, 24), (jeq, None, "allow", 1), (ld, None, None, 32)]
    prog += [(jeq, "no", None, opt) for opt in _SOCKET_BUFFERS]
    prog += [("allow", ret, 0, allow), ("fcntl", ld, 0, 24), (jeq, "no", None, 1031),
             (ret, None, None, allow), ("no", ret, 0, errno_eperm)]
    labels, plain = {}, []
    for ins in prog:
        if isinstance(ins[0], str):
            labels[ins[0]] = len(plain)
            ins = (ins[1], None, None, ins[3])
        plain.append(ins)
    return [(code, 0 if t is None else labels[t] - i - 1, 0 if f is None else labels[f] - i - 1,
             k) for i, (code, t, f, k) in enumerate(plain)]


_SECCOMP_FILTER: list = []  # the filter, built once per process (:func:`seccomp_filter`)


def seccomp_filter():
    """The seccomp filter of :func:`install_filter`, built once and kept: ``(prctl, program,
    buffer)``, the program a ``sock_fprog`` pointing at the buffer of BPF instructions (None
    where there is none: not Linux, an unknown architecture, no ctypes). The grading worker
    builds it before it forks any answer's process (its warm-up), so each answer's process
    only installs it."""
    if _SECCOMP_FILTER:
        return _SECCOMP_FILTER[0]
    built = None
    arch = os.uname().machine if hasattr(os, "uname") else ""
    if sys.platform.startswith("linux") and arch in _EXEC_SYSCALLS:
        try:
            import ctypes
            import struct

            prog = _seccomp_program(arch)
            raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
            buffer = ctypes.create_string_buffer(raw, len(raw))

            class SockFprog(ctypes.Structure):
                _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

            fprog = SockFprog(len(prog), ctypes.cast(buffer, ctypes.c_void_p))
            prctl = ctypes.CDLL(None, use_errno=True).prctl
            prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                              ctypes.c_ulong]
            built = (prctl, fprog, buffer, ctypes.addressof(fprog))
        except (OSError, AttributeError, ImportError):
            built = None
    _SECCOMP_FILTER.append(built)
    return built


def install_filter() -> bool:
    """Ask the kernel to refuse new programs, IPC that outlives a process, memfds, kernel
    keys and ptrace to this process and its children (the filter of :func:`seccomp_filter`,
    built once)."""
    built = seccomp_filter()
    if built is None:
        return False
    prctl, _, _, address = built
    if prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        return False
    return prctl(22, 2, address, 0, 0) == 0  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
