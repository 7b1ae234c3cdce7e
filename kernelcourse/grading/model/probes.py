"""Inputs that watch how an answer uses them, so a question can check a stated constraint by
behaviour ("process Phi chunk by chunk", "leave u unchanged"), not only by the value returned.

A probe is an argument of a :class:`~kernelcourse.grading.model.question.Case`. It travels to the
grading worker as plain data (``{"$probe": kind, "data": ...}`` in
:mod:`~kernelcourse.grading.model.transport`) and is rebuilt there, in the submission's
process, which keeps it: the answer's process gets a proxy that asks that process for rows
(:mod:`~kernelcourse.grading.sealed.rowserver`), so the count is made where the answer cannot
rewrite it, and after the call the probe's :meth:`Probe.usage` (plain data) is put in the
outcome there. In a notebook (``check``) the answer reads the probe itself, in its own
process. A :class:`~kernelcourse.grading.model.question.Constraint` of the question then reads that
usage.

:class:`RowSource` is the one probe so far: a matrix the answer may only read by rows,
``source[start:stop]`` (or ``source[i]``, ``source[index_array]``), which counts how many rows
were formed at once. ``np.asarray(source)`` works too, and counts as forming every row at
once. With it, "form at most ``chunk_size`` rows of Phi at a time" is checked by
:func:`rows_at_most`::

    from kernelcourse.grading import Case, Question
    from kernelcourse.grading.model.probes import RowSource, rows_at_most

    def _cases(rng):
        Phi = rng.normal(size=(20, 4))
        return [Case((RowSource(Phi), y, lam, 6), label="...")]

    Question(..., cases=_cases,
             constraints=[rows_at_most(0, lambda case: case.args[3])])

The reference receives the same kind of object (a fresh copy), so it must read it by rows as
well. A diagnosis of the "whole matrix at once" mistake uses ``behaviour=``
(see :class:`~kernelcourse.grading.model.question.Diagnosis`), e.g.
``behaviour=formed_more_rows_than(0, lambda case: case.args[3])``.
"""
from __future__ import annotations

import tracemalloc
import weakref
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["Constraint", "Probe", "RowReader", "RowSource", "rows_at_most",
           "formed_more_rows_than", "held_more_rows_than", "PROBES"]


@dataclass
class Constraint:
    """A rule the question states about *how* the answer works, checked by behaviour.

    ``test(usage, case) -> bool``; ``usage`` is plain data about the call: ``"modified"``
    (the positions, as strings, or keywords of the arguments the answer changed in place),
    ``"modified_names"`` (their parameter names) and ``"probes"`` (each probe argument's
    report, see :mod:`kernelcourse.grading.model.probes`). ``message`` is a text or
    ``message(usage, case) -> str``. A case whose value is right but breaks a constraint
    fails with that message.
    """

    name: str
    test: Callable
    message: str | Callable

    def holds(self, usage: dict, case) -> bool:
        try:
            return bool(self.test(usage, case))
        except Exception:
            return False

    def explain(self, usage: dict, case) -> str:
        if callable(self.message):
            try:
                return str(self.message(usage, case))
            except Exception:
                return self.name
        return self.message



class Probe:
    """Base of the probes: ``kind`` names it in the transport format."""

    kind = ""

    def spec(self):  # pragma: no cover - every probe defines it
        """The plain data the probe is rebuilt from."""
        raise NotImplementedError

    @classmethod
    def from_spec(cls, spec):  # pragma: no cover
        raise NotImplementedError

    def usage(self) -> dict:  # pragma: no cover
        """What the answer did with the probe, as plain data (numbers, strings)."""
        raise NotImplementedError


class RowReader(Probe):
    """What an answer sees of a matrix it may only read by rows: ``source[a:b]`` (or
    ``source[i]``, ``source[index_array]``, a mask, ``for row in source``) returns those rows
    as a new float array, ``np.asarray(source)`` all of them.

    ``len(source)``, ``source.shape``, ``source.ndim``, ``source.dtype`` work; anything
    else on the whole matrix (``source.T``, ``source @ v``) is an ``AttributeError`` or
    ``TypeError`` that says to slice rows first. Rows are resolved with NumPy's own indexing
    rules and formed by :meth:`_form` (the subclass's: :class:`RowSource` forms them from
    the matrix it holds; the grading worker's proxy,
    :class:`~kernelcourse.grading.sealed.rowserver.RemoteRows`, asks the process that holds
    the matrix).

    Each array handed out is watched while it lives (:func:`weakref.finalize`; a view of it
    keeps it alive): at every read, the rows of earlier reads the answer still holds are
    counted (``held``), so reading one row at a time and keeping every row (``np.vstack`` of
    a list of reads) holds all of the matrix at once, while a loop whose ``block`` takes the
    next chunk holds one chunk when it asks for the next. An answer that copies rows is not
    seen by that count; it is seen by memory: from its first read the reader traces the
    memory the answer's process allocates (:mod:`tracemalloc`), and at each read the memory made
    since the first read and still alive counts as that many rows held, once it is more than an
    honest loop needs (:meth:`_copies_held`): rows copied into lists, or into arrays of their
    own, hold the matrix all the same.
    """

    kind = "rows"

    def _start_watching(self) -> None:
        self._held = 0
        self._largest = 0        # the most rows one read formed
        self._baseline = None    # traced memory at the first read (None: no read yet)

    def _copies_held(self) -> int:
        """The rows' worth of memory the answer's process made since the first read and still
        holds, or 0 while that is within what an honest loop needs.

        An honest loop holds a chunk or two, perhaps as Python lists (about ``64 + 32 D`` bytes
        a row), and its sums (``D x D``); the allowance is two of the largest reads in that
        form, two ``D x D`` matrices and 8 KiB, and at least a quarter of the matrix. Memory
        is what :mod:`tracemalloc` sees: Python objects and NumPy arrays. Tracing starts at the
        first read (and again if something stopped it), and stops when this reader goes, if it
        was the one that started it."""
        if not tracemalloc.is_tracing():
            tracemalloc.start()
            self._baseline = 0
            weakref.finalize(self, tracemalloc.stop)
        now = tracemalloc.get_traced_memory()[0]
        if self._baseline is None:
            self._baseline = now
        n, d = self.shape
        row = 8 * max(int(d), 1)
        made = now - self._baseline
        allowance = max(2 * self._largest * (64 + 32 * d) + 16 * d * d + 8192, n * row // 4)
        return min(n, made // row) if made > allowance else 0

    def _release(self, rows: int) -> None:
        self._held -= rows

    def _form(self, rows: np.ndarray, held: int) -> np.ndarray:  # pragma: no cover
        """The rows numbered ``rows`` (1-D, in range) as a ``(len(rows), D)`` float array;
        ``held``: the rows of earlier reads the answer still holds."""
        raise NotImplementedError

    def _read(self, rows) -> np.ndarray:
        rows = np.asarray(rows)
        held = max(self._held, self._copies_held())
        self._largest = max(self._largest, rows.size)
        block = self._form(rows.reshape(-1), held)
        block = np.array(block.reshape(rows.shape + (self.shape[1],)), dtype=float)
        if block.base is not None:  # an array of its own, so its views keep it alive
            block = block.copy()
        self._held += rows.size
        weakref.finalize(block, self._release, rows.size)
        return block

    # -- what the answer sees
    @property
    def ndim(self):
        return 2

    @property
    def dtype(self):
        return np.dtype(float)

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, index):
        if isinstance(index, tuple):
            raise TypeError("read this matrix by rows only: source[start:stop] (then index "
                            "the columns of the array it returns)")
        # slices, negatives, masks; a copy, so that the whole arange is let go at once
        return self._read(np.arange(self.shape[0])[index].copy())

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __array__(self, dtype=None, copy=None):
        whole = self._read(np.arange(self.shape[0]))
        return whole if dtype is None else whole.astype(dtype)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"this matrix is read by rows: take source[start:stop] (an array) "
                             f"first; it has no attribute {name!r}")

    def __repr__(self):
        return f"RowSource(shape={self.shape})"


class RowSource(RowReader):
    """A matrix read by rows (see :class:`RowReader`), which counts what is read.

    :meth:`usage` reports ``max_rows`` (the most rows formed by one access), ``rows`` (all
    rows formed, counted with repeats), ``reads`` (the number of accesses) and ``max_held``
    (the most rows of earlier reads still held at a read). In a notebook the answer reads it
    directly; in the grading worker the submission's process keeps it and forms the rows the
    answer's proxy asks for (:meth:`form`, which counts them there).
    """

    def __init__(self, data):
        data = np.array(data, dtype=float)
        if data.ndim != 2:
            raise ValueError(f"RowSource holds a matrix (2-D array); got shape {data.shape}")
        self._data = data
        self._max_rows = self._rows = self._reads = self._max_held = 0
        self._start_watching()

    @property
    def shape(self):
        return self._data.shape

    def form(self, rows: np.ndarray, held: int = 0) -> np.ndarray:
        """The rows numbered ``rows`` (1-D, in range), counted: one read of ``len(rows)``
        rows, with ``held`` rows of earlier reads still held by the answer."""
        n = int(np.size(rows))
        self._reads += 1
        self._rows += n
        self._max_rows = max(self._max_rows, n)
        self._max_held = max(self._max_held, int(held))
        return self._data[np.asarray(rows, dtype=np.intp)]

    _form = form

    def __deepcopy__(self, memo):
        return RowSource(self._data)  # a fresh copy counts from zero

    # -- the transport format and the report
    def spec(self):
        return self._data

    @classmethod
    def from_spec(cls, spec):
        return cls(spec)

    def usage(self) -> dict:
        return {"max_rows": self._max_rows, "rows": self._rows, "reads": self._reads,
                "max_held": self._max_held}


#: kind -> class, the probes the worker may rebuild.
PROBES = {RowSource.kind: RowSource}


def probe_usage(args: tuple, kwargs: dict) -> dict:
    """``{"0": usage, "name": usage}`` for every probe among the arguments."""
    found = {str(i): a.usage() for i, a in enumerate(args) if isinstance(a, Probe)}
    found.update({str(k): v.usage() for k, v in kwargs.items() if isinstance(v, Probe)})
    return found


def _counted(usage: dict, where, key: str) -> int | None:
    probe = (usage.get("probes") or {}).get(str(where))
    if not isinstance(probe, dict):
        return None
    value = probe.get(key, 0 if key == "max_held" else None)
    return int(value) if isinstance(value, (int, float)) else None


def rows_at_most(where, limit):
    """A :class:`Constraint`: the answer formed at most ``limit(case)`` rows of the
    :class:`RowSource` argument ``where`` (a position or a keyword) by one read, and held at
    most that many rows of earlier reads when it read more."""
    def test(usage, case):
        used, held = _counted(usage, where, "max_rows"), _counted(usage, where, "max_held")
        return (used is not None and held is not None and used <= int(limit(case))
                and held <= int(limit(case)))

    def message(usage, case):
        used, held = _counted(usage, where, "max_rows"), _counted(usage, where, "max_held")
        if used is not None and used > int(limit(case)):
            return (f"the answer formed {used} rows of the matrix at once; the question asks "
                    f"for at most {int(limit(case))} at a time (chunk by chunk)")
        return (f"the answer still held {held} rows of the matrix (or copies of them) from "
                f"earlier reads when it read more (rows kept, e.g. to stack them); the question "
                f"asks to hold at most {int(limit(case))} at a time: use each chunk, then let it "
                f"go")
    return Constraint("rows at once", test, message)


def formed_more_rows_than(where, limit):
    """For ``Diagnosis(behaviour=...)``: the answer formed more than ``limit(case)`` rows at
    once."""
    def behaviour(usage, case):
        used = _counted(usage, where, "max_rows")
        return used is not None and used > int(limit(case))
    return behaviour


def held_more_rows_than(where, limit):
    """For ``Diagnosis(behaviour=...)``: each read formed at most ``limit(case)`` rows, but the
    answer kept more than that many rows of earlier reads when it read again (it stacked the
    rows it read)."""
    def behaviour(usage, case):
        used, held = _counted(usage, where, "max_rows"), _counted(usage, where, "max_held")
        return (used is not None and held is not None and used <= int(limit(case))
                < held)
    return behaviour
