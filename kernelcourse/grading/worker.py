"""The worker process of the grading command: runs submitted answers, nothing else.

Started by :mod:`kernelcourse.grading.grader` as
``python -I -m kernelcourse.grading.worker MEMORY_MB`` in an empty temporary
folder. It reads one JSON request per line on stdin::

    {"id": 3, "source": "<answer cell>", "function": "rbf_gram",
     "cases": [[args, kwargs], ...], "time_limit": 10.0}

executes the answer cell in a fresh namespace, calls the named function on
each case (arguments in :mod:`~kernelcourse.grading.transport`'s format) under
the time limit, and writes one JSON line back::

    {"id": 3, "outcomes": [{"kind": "value", "value": ...}, ...]}
    {"id": 3, "error": "SyntaxError: ..."}      (the cell itself failed)

It never sees the expected values and never judges: the parent compares. The
address space is capped (``RLIMIT_AS``) so a memory bomb ends in MemoryError;
anything the answer prints goes to /dev/null.
"""
from __future__ import annotations

import json
import os
import re
import sys

_MAGIC = re.compile(r"^(\s*)[%!].*$", re.MULTILINE)


def strip_magics(source: str) -> str:
    """Replace IPython magics and shell lines (``%time``, ``!ls``) by ``pass``."""
    return _MAGIC.sub(lambda m: f"{m.group(1)}pass", source)


def _limit_memory(megabytes: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return
    if megabytes > 0:
        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _run(request: dict) -> dict:
    from .core import Case, _short, run_answer, time_limit, QuestionTimeout
    from .transport import decode

    seconds = float(request.get("time_limit", 10.0))
    namespace = {"__name__": "__answer__"}
    try:
        code = compile(strip_magics(request["source"]), "<answer cell>", "exec")
        with time_limit(seconds):
            exec(code, namespace)
    except QuestionTimeout:
        return {"error": f"the answer cell ran past the time limit of {seconds:g} s"}
    except SystemExit as exc:
        return {"error": f"the answer cell called sys.exit({exc.code!r})"}
    except BaseException as exc:  # noqa: BLE001 - any failure of the cell is the cell's
        return {"error": f"the answer cell raised {type(exc).__name__}: {_short(exc)}"}
    func = namespace.get(request["function"])
    if not callable(func):
        return {"error": f"the answer cell does not define the function {request['function']}"}
    cases = [Case(tuple(decode(a)), decode(k)) for a, k in request["cases"]]
    try:
        return {"outcomes": run_answer(func, cases, seconds)}
    except SystemExit as exc:
        return {"error": f"the answer called sys.exit({exc.code!r})"}
    except BaseException as exc:  # noqa: BLE001
        return {"error": f"the answer raised {type(exc).__name__}: {_short(exc)}"}


def main(argv: list[str]) -> None:
    _limit_memory(int(argv[0]) if argv else 0)
    # keep a private copy of stdout for the replies; point fd 1 at /dev/null
    reply = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    import numpy  # noqa: F401 - warm up, so imports do not count against a time limit
    import kernelcourse.grading  # noqa: F401

    reply.write(json.dumps({"ready": os.getpid()}) + "\n")
    reply.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            continue
        try:
            answer = _run(request)
            text = json.dumps({"id": request.get("id"), **answer}, separators=(",", ":"))
        except MemoryError:
            text = json.dumps({"id": request.get("id"), "error": "the answer ran out of memory"})
        except BaseException as exc:  # noqa: BLE001 - report, keep serving
            text = json.dumps({"id": request.get("id"),
                               "error": f"{type(exc).__name__} while running the answer"})
        reply.write(text + "\n")
        reply.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
