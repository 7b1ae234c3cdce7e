"""Running an answer: the student's function called on every case, under one time limit.

:func:`run_answer` returns plain-data outcomes only (values in
:mod:`~kernelcourse.grading.model.transport`'s format), so the same call serves ``check`` in a notebook
and the grading command's worker (:mod:`kernelcourse.grading.sealed.worker`), which runs it in the
sandbox and sends the outcomes back to be scored (:func:`kernelcourse.grading.checking.scoring.score`).
"""
from __future__ import annotations

import contextlib
import signal
import threading
import time

from ..model import transport
from ..model.question import Case
from ..model.shortcuts import ReferenceUsed

__all__ = ["QuestionTimeout", "time_limit", "run_answer"]


class QuestionTimeout(BaseException):
    """Raised inside an answer when its time limit is over (not an Exception,
    so ``except Exception`` in student code does not swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float | None, cpu: bool = False):
    """Interrupt the code inside after ``seconds`` (main thread on Unix only): seconds of
    wall-clock time, or with ``cpu=True`` of this process's own CPU time (so a process that
    others starve of CPU is not stopped early; the grading worker's hard deadline beyond it
    counts the CPU time of the answer's whole process tree, children included, and stops an
    answer that only sleeps: :mod:`~kernelcourse.grading.sealed.deadline`)."""
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return
    timer, signum = ((signal.ITIMER_PROF, signal.SIGPROF) if cpu
                     else (signal.ITIMER_REAL, signal.SIGALRM))
    clock = time.process_time if cpu else time.monotonic

    def _alarm(signum, frame):
        raise QuestionTimeout(f"time limit of {seconds:g} s")

    outer_left = signal.getitimer(timer)[0]  # a limit around this one
    start = clock()
    previous = signal.signal(signum, _alarm)
    signal.setitimer(timer, seconds if not outer_left else min(seconds, outer_left))
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)
        if outer_left:
            signal.setitimer(timer, max(outer_left - (clock() - start), 1e-3))


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fingerprint(value, _depth: int = 0):
    """A digest of a plain-data value (arrays by their bytes), None when it has none."""
    import hashlib

    import numpy as np

    if _depth > transport.MAX_DEPTH:
        return None
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return f"nd{data.dtype.str}{data.shape}" + hashlib.sha1(data.tobytes()).hexdigest()
    if isinstance(value, (list, tuple)):
        parts = [_fingerprint(v, _depth + 1) for v in value]
        return None if None in parts else f"{type(value).__name__}[{','.join(parts)}]"
    if isinstance(value, dict):
        parts = [(repr(k), _fingerprint(v, _depth + 1)) for k, v in value.items()]
        return None if any(p is None for _, p in parts) else f"dict{parts}"
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}{sorted(map(repr, value))}"
    if value is None or isinstance(value, (bool, int, float, str, np.generic)):
        return repr(value)
    return None


def _fingerprints(args, kwargs) -> dict:
    """The arguments as text, to tell afterwards which ones the answer changed in place."""
    from ..model.probes import Probe

    found = {str(i): _fingerprint(a) for i, a in enumerate(args) if not isinstance(a, Probe)}
    found.update({str(k): _fingerprint(v) for k, v in kwargs.items() if not isinstance(v, Probe)})
    return found


def _usage(args, kwargs, before: dict) -> dict:
    """How the answer used its arguments: ``modified`` (the positions or keywords of the
    arguments it changed in place) and ``probes`` (each probe's report)."""
    from ..model.probes import probe_usage

    values = {str(i): a for i, a in enumerate(args)}
    values.update({str(k): v for k, v in kwargs.items()})
    modified = [key for key, text in before.items()
                if text is not None and _fingerprint(values[key]) != text]
    usage = {}
    if modified:
        usage["modified"] = modified
    probes = probe_usage(args, kwargs)
    if probes:
        usage["probes"] = probes
    return usage


def run_answer(func, cases: list[Case], seconds: float | None, cpu: bool = False,
               copy: bool = True) -> list[dict]:
    """Call ``func`` on each case; return one plain-data outcome per case.

    An outcome is ``{"kind": "value", "value": <encoded>}`` (with ``"usage"``: the arguments
    the answer changed in place and the reports of the probes among them, when there are
    any, see :mod:`~kernelcourse.grading.model.probes`), or ``"error"``
    (with ``type`` and ``message``), ``"not_implemented"``, ``"timeout"`` or
    ``"skipped"`` (cases after a timeout or a first-case stub). Runs under
    :func:`time_limit` for all cases together (``cpu``: of CPU time). ``copy=False`` hands
    the answer the cases' own arguments (the grading worker's, each case's made for one call,
    its arrays in memory the worker reads after the call: see
    :func:`kernelcourse.grading.sealed.submission.shared_cases`).
    """
    outcomes: list[dict] = []
    try:
        with time_limit(seconds, cpu=cpu):
            for i, case in enumerate(cases):
                args, kwargs = case.copied() if copy else (tuple(case.args), dict(case.kwargs))
                before = _fingerprints(args, kwargs)
                try:
                    value = func(*args, **kwargs)
                except NotImplementedError as exc:
                    outcomes.append({"kind": "not_implemented", "message": _short(exc)})
                    if i == 0:
                        break
                    continue
                except QuestionTimeout:
                    raise
                except (Exception, ReferenceUsed) as exc:
                    outcomes.append({"kind": "error", "type": type(exc).__name__,
                                     "message": _short(exc)})
                    continue
                try:
                    outcome = {"kind": "value", "value": transport.encode(value)}
                    usage = _usage(args, kwargs, before)
                    if usage:
                        outcome["usage"] = usage
                    outcomes.append(outcome)
                except transport.UnsupportedValue as exc:
                    outcomes.append({"kind": "error", "type": "UnsupportedValue",
                                     "message": _short(exc)})
    except QuestionTimeout:
        outcomes.append({"kind": "timeout", "message": f"time limit of {seconds:g} s"})
    while len(outcomes) < len(cases):
        outcomes.append({"kind": "skipped"})
    return outcomes
