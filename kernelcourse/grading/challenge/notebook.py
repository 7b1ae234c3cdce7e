"""Notebook submissions: the answer cell ``# ANSWER challenge`` defines
``predict(train_sequences, train_labels, test_sequences)``, which returns one label per test
sequence; the grader runs it sealed and writes the predictions CSV it then reads like any other.

The cell runs in the grade command's sandbox (:mod:`kernelcourse.grading.sealed`): a fresh
worker per submission with no network, no view of the key, the submissions or the grader's
files, its own memory cap and time limit (``--timeout``, ``--memory-mb``). scikit-learn and
libsvm are forbidden twice over: the cell's source is read first (an import of them, a string
naming them in ``__import__`` or ``importlib.import_module``) and the submission is refused
with that reason; and their files are hidden inside the sandbox (:class:`ChallengeSandbox`),
so an import that gets past the reading fails there. The course's own package is allowed: the
challenge is to choose and tune its kernels and solvers.

Nothing is random unless the cell makes it so; a cell that seeds its randomness gives the
same predictions on every run (the tests check it).
"""
from __future__ import annotations

import ast
import csv
import importlib.util
import os
from pathlib import Path

import numpy as np

__all__ = ["FORBIDDEN_MODULES", "forbidden_imports", "ChallengeSandbox", "NotebookRunner"]

#: Modules a challenge answer may not use (their top-level names).
FORBIDDEN_MODULES = ("sklearn", "libsvm", "svmutil", "svm", "thundersvm", "cuml")
ANSWER_ID = "challenge"
FUNCTION = "predict"


def _top(name: str) -> str:
    return name.split(".")[0]


def forbidden_imports(source: str) -> list[str]:
    """The forbidden modules the source imports or names (sorted); a source that does not
    parse is left to the sandbox, where it fails with Python's own error."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {_top(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(_top(node.module))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found |= {_top(w) for w in node.value.replace("/", " ").split()
                      if _top(w) in FORBIDDEN_MODULES}
    return sorted(found & set(FORBIDDEN_MODULES))


def _forbidden_paths() -> list[str]:
    paths = []
    for name in FORBIDDEN_MODULES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin or not os.path.exists(spec.origin):
            continue
        origin = os.path.realpath(spec.origin)
        paths.append(os.path.dirname(origin) if spec.submodule_search_locations else origin)
    return paths


def _sandbox_class():
    from ..sealed.sandbox import Sandbox

    class ChallengeSandbox(Sandbox):
        """The grade command's sandbox with the forbidden modules' files hidden as well."""

        def command(self, argv, env=None):
            args = super().command(argv, env)
            at = args.index("--proc")
            hide = []
            for path in _forbidden_paths():
                if any(path == r or path.startswith(r + os.sep) for r in self.roots):
                    if os.path.isdir(path):
                        hide += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
                    else:
                        hide += ["--ro-bind", "/dev/null", path]
            return args[:at] + hide + args[at:]

    return ChallengeSandbox


def ChallengeSandbox(*args, **kwargs):  # noqa: N802 - a class made on first use
    """A sandbox that also hides scikit-learn and libsvm (see the module's text)."""
    return _sandbox_class()(*args, **kwargs)


class NotebookRunner:
    """``runner(path, key) -> csv path``: run a notebook's answer cell sealed and write its
    predictions to ``out/<stem>.csv``. Raises
    :class:`~kernelcourse.grading.challenge.validate.SubmissionError` with the reason when no
    predictions come out."""

    def __init__(self, train_csv, test_csv, out, *, timeout: float = 120.0,
                 memory_mb: int = 2048, sandbox: bool = True):
        self.train, self.labels = _read_train(train_csv)
        self.test_ids, self.test = _read_test(test_csv)
        self.out = Path(out)
        self.timeout = float(timeout)
        self.memory_mb = int(memory_mb)
        self.sandbox = ChallengeSandbox() if sandbox else None

    def __call__(self, path, key) -> Path:
        from ..intake.notebooks import NotebookError, answer_cells, read_notebook
        from ..sealed.pool import WorkerDied, WorkerPool, WorkerTimeout
        from ..model.transport import decode, encode
        from .validate import SubmissionError

        path = Path(path)
        try:
            cells = answer_cells(read_notebook(path.read_bytes()))
        except NotebookError as err:
            raise SubmissionError(f"{path.name}: {err}")
        if ANSWER_ID not in cells:
            raise SubmissionError(f"{path.name}: no answer cell (its first line must be "
                                  f"'# ANSWER {ANSWER_ID}')")
        cell = cells[ANSWER_ID]
        banned = forbidden_imports(cell)
        if banned:
            raise SubmissionError(f"{path.name}: refused, uses {', '.join(banned)}: "
                                  f"scikit-learn and libsvm are forbidden in the challenge")
        request = {"cell": cell, "function": FUNCTION, "time_limit": self.timeout,
                   "forbidden": [], "cases": [[encode([self.train, self.labels, self.test]),
                                              encode({})]]}
        pool = WorkerPool(self.memory_mb, self.sandbox)
        try:
            pool.next_submission()
            wall = pool.wall_seconds(self.timeout) + 7.0
            reply = pool.run(request, timeout=wall)
        except (WorkerTimeout, WorkerDied) as err:
            raise SubmissionError(f"{path.name}: stopped: {err}")
        finally:
            pool.close()
        if "error" in reply:
            raise SubmissionError(f"{path.name}: {reply['error']}")
        outcome = (reply.get("outcomes") or [{}])[0]
        if outcome.get("kind") == "timeout":
            raise SubmissionError(f"{path.name}: predict ran past the time limit of "
                                  f"{self.timeout:g} s")
        if outcome.get("kind") != "value":
            raise SubmissionError(f"{path.name}: predict failed: {outcome.get('type', '')} "
                                  f"{outcome.get('message', outcome.get('kind', 'no reply'))}")
        labels = np.asarray(decode(outcome["value"])).ravel()
        if labels.shape != (len(self.test_ids),):
            raise SubmissionError(f"{path.name}: predict returned {labels.size} label(s) for "
                                  f"{len(self.test_ids)} test sequences")
        self.out.mkdir(parents=True, exist_ok=True)
        target = self.out / f"{path.stem}.csv"
        with open(target, "w", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["id", "label"])
            for ident, value in zip(self.test_ids, labels.tolist()):
                writer.writerow([ident, int(value) if float(value).is_integer() else value])
        return target


def _read_train(path):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [r["sequence"] for r in rows], np.array([int(r["label"]) for r in rows])


def _read_test(path):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [r["id"] for r in rows], [r["sequence"] for r in rows]
