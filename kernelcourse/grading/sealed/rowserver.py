"""The chunk probe served from outside the answer's process: the rows are counted where the
answer cannot reach them.

A :class:`~kernelcourse.grading.model.probes.RowSource` ("read this matrix by rows, at most so many
at once") counts in the process that holds it. In the grading worker that process is the
submission process, never the answer's: before it forks an answer's process,
:func:`serve_probes` takes every ``RowSource`` out of the cases, keeps it, and puts in its
place a :class:`RemoteRows`, a proxy that holds no row of the matrix, only its shape and one
end of a socket pair. Each read (``source[a:b]``, ``source[i]``, ``source[index_array]``,
``np.asarray(source)``) sends the row numbers asked for; the submission process
(:class:`RowServer`, served from the same loop that waits for the answer's reply) forms those
rows from its own ``RowSource``, which counts them, and sends them back. After the answer's
process has ended, :meth:`RowServer.counted` replaces whatever the answer reports about its
probes by what the submission process counted. Rewriting the proxy, its class, the probe
module or the answer's own report changes nothing: the count is in another process.

In the answer's process, right after the fork, :meth:`RowServer.forget` zeroes the copies of
the matrices that the fork gave it (the submission process's ``RowSource`` objects) and drops
the request's encoded cases, so no Python object of the answer's process holds a row it did
not ask for.

Both ends read rows alike: the proxy and ``RowSource`` are the same
:class:`~kernelcourse.grading.model.probes.RowReader`, which resolves the index and watches the rows
it hands out; only where the rows come from differs. The answer's process counts the rows of
earlier reads it still holds (what it reports of itself; an answer that copies rows escapes
that count in a notebook too) and sends that number with each read.

The messages, on a stream socket: a request is ``<i probe number><I count><q rows held>``
followed by ``count`` row numbers (``<q`` each, already in range: the proxy resolves slices and negative
numbers with NumPy's own indexing; at most as many as the matrix has rows); a reply is
``<q length>`` followed by ``length`` bytes of float64 rows. A malformed request (an unknown
probe, a row out of range, more rows than the matrix holds) closes the channel: the answer's
next read raises.
"""
from __future__ import annotations

import os
import socket
import struct
import threading

import numpy as np

from ..model.probes import RowReader, RowSource

__all__ = ["RemoteRows", "RowServer", "serve_probes"]

_REQUEST = struct.Struct("<iIq")
_REPLY = struct.Struct("<q")


class RemoteRows(RowReader):
    """What an answer's process holds in place of a :class:`RowSource`: the matrix's shape
    and a way to ask for rows. It reads as a ``RowSource`` does (the same
    :class:`~kernelcourse.grading.model.probes.RowReader`), and holds no row itself: each read
    asks the server, telling it the rows of earlier reads the answer still holds."""

    def __init__(self, fd: int, number: int, shape: tuple, lock: threading.Lock):
        self._fd, self._number, self._shape, self._lock = fd, number, tuple(shape), lock
        self._start_watching()

    @property
    def shape(self):
        return self._shape

    def _form(self, rows: np.ndarray, held: int) -> np.ndarray:
        rows = np.ascontiguousarray(rows, dtype="<i8").reshape(-1)
        if rows.size > self._shape[0]:
            raise ValueError(f"asked for {rows.size} rows of a matrix of {self._shape[0]} at "
                             "once (rows repeated): read it by slices")
        held = min(max(int(held), 0), 2 ** 63 - 1)
        message = _REQUEST.pack(self._number, rows.size, held) + rows.tobytes()
        with self._lock:
            try:
                view = memoryview(message)
                while view:
                    view = view[os.write(self._fd, view):]
                length = _REPLY.unpack(self._receive(_REPLY.size))[0]
                if length != 8 * rows.size * self._shape[1]:
                    raise RuntimeError("the grader's row channel sent a reply of the wrong size")
                data = self._receive(length)
            except OSError:
                raise RuntimeError("the grader's row channel is closed") from None
        return np.frombuffer(data, dtype="<f8").reshape(rows.size, self._shape[1])

    def _receive(self, size: int) -> bytes:
        chunks, left = [], size
        while left:
            chunk = os.read(self._fd, min(left, 1 << 20))
            if not chunk:
                raise RuntimeError("the grader's row channel is closed")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def __deepcopy__(self, memo):
        return self  # the same rows, counted by the same server

    def spec(self):
        raise TypeError("a probe is an input of the grader, not a value")

    def usage(self) -> dict:
        return {}  # what the answer's process says about its reads is not taken


class RowServer:
    """The submission process's end: serves rows from the ``RowSource`` objects it kept,
    which count them. Non-blocking: it never waits on an answer that stops reading."""

    def __init__(self, fd: int, sources: list[tuple[int, str, RowSource]]):
        self.fd, self.sources = fd, sources
        os.set_blocking(fd, False)
        self.inbox, self.outbox = bytearray(), b""
        self.closed = False

    # -- the answer's process, after the fork
    def forget(self, request: dict | None = None) -> None:
        """In the answer's process: zero the copies of the matrices it inherited and drop the
        request's encoded cases; close the server's end."""
        for _, _, source in self.sources:
            data = getattr(source, "_data", None)
            if isinstance(data, np.ndarray):
                data.fill(0.0)
            source._data = np.zeros((0, 0))
        self.sources = []
        if request is not None and "cases" in request:
            request["cases"] = None
        try:
            os.close(self.fd)
        except OSError:
            pass

    # -- the submission process
    def wants_write(self) -> bool:
        return bool(self.outbox) and not self.closed

    def readable(self) -> None:
        """Take what the answer sent; answer every complete request (one at a time: the next
        is read once the last reply has gone)."""
        if self.closed or self.outbox:
            return
        try:
            chunk = os.read(self.fd, 1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            return
        self.inbox += chunk
        self._answer()

    def writable(self) -> None:
        if self.closed or not self.outbox:
            return
        try:
            sent = os.write(self.fd, self.outbox[:1 << 20])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.close()
            return
        self.outbox = self.outbox[sent:]
        if not self.outbox:
            self._answer()

    def _answer(self) -> None:
        while not self.outbox and len(self.inbox) >= _REQUEST.size and not self.closed:
            number, count, held = _REQUEST.unpack_from(self.inbox)
            if not 0 <= number < len(self.sources):
                self.close()  # a malformed request: the channel ends
                return
            source = self.sources[number][2]
            if count > len(source):  # more rows than the matrix holds: not a read the
                self.close()          # proxy makes; the channel ends
                return
            size = _REQUEST.size + 8 * count
            if len(self.inbox) < size:
                return
            rows = np.frombuffer(bytes(self.inbox[_REQUEST.size:size]), dtype="<i8")
            del self.inbox[:size]
            if rows.size and (rows.min() < 0 or rows.max() >= len(source)):
                self.close()
                return
            block = source.form(rows, held)  # counted here, by the grader's RowSource
            data = np.ascontiguousarray(block, dtype="<f8").tobytes()
            self.outbox = _REPLY.pack(len(data)) + data
            self.writable()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.outbox = b""
            try:
                os.close(self.fd)
            except OSError:
                pass

    def counted(self, reply: dict) -> dict:
        """``reply`` with each value outcome's ``usage["probes"]`` as counted here (whatever
        the answer's process reported about its probes is dropped)."""
        outcomes = reply.get("outcomes")
        if not isinstance(outcomes, list):
            return reply
        mine: dict[int, dict] = {}
        for case, key, source in self.sources:
            mine.setdefault(case, {})[key] = source.usage()
        for i, outcome in enumerate(outcomes):
            if not isinstance(outcome, dict) or outcome.get("kind") != "value":
                continue
            usage = outcome.get("usage") if isinstance(outcome.get("usage"), dict) else {}
            usage = {k: v for k, v in usage.items() if k != "probes"}
            if i in mine:
                usage["probes"] = mine[i]
            if usage:
                outcome["usage"] = usage
            else:
                outcome.pop("usage", None)
        return reply


def serve_probes(cases: list) -> tuple[RowServer | None, int | None]:
    """Put a :class:`RemoteRows` in place of each ``RowSource`` among the cases' arguments
    (in place); return the server that keeps them and the fd the answer's process keeps, or
    ``(None, None)`` when there is no probe (no channel at all)."""
    found = []
    for index, case in enumerate(cases):
        for i, value in enumerate(case.args):
            if isinstance(value, RowSource):
                found.append((index, str(i), value))
        for key, value in case.kwargs.items():
            if isinstance(value, RowSource):
                found.append((index, str(key), value))
    if not found:
        return None, None
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    server_fd, answer_fd = mine.detach(), theirs.detach()
    lock = threading.Lock()
    for number, (index, key, source) in enumerate(found):
        proxy = RemoteRows(answer_fd, number, source.shape, lock)
        case = cases[index]
        if key.isdigit() and int(key) < len(case.args) and case.args[int(key)] is source:
            args = list(case.args)
            args[int(key)] = proxy
            case.args = tuple(args)
        else:
            case.kwargs[key] = proxy
    return RowServer(server_fd, found), answer_fd
