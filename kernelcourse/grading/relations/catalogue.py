"""The catalogue of a question's slips: every mutant of its reference (the audit's,
:mod:`kernelcourse.grading.audit`) with its values on the question's fixed cases and the plain
words of its change (:mod:`.mutant_words`).

The fixed cases are the same in every run and mutation-adequate (every mutant fails one), so
a mutant's values on them are computed once, when the course is built, and kept in a data file
per question (``catalogue/<id>.json.gz``, plain data as :mod:`~kernelcourse.grading.sealed.
transport` writes it): grading never runs a mutant. The mutants run here under the audit's
safeguards (a tick budget, a cap on memory), in the building process: they are the
reference's own code, never a student's.

A catalogue records a fingerprint of what it was made from (the source of every function the
audit mutates and the fixed cases' inputs): :func:`stale` tells a question whose catalogue is
out of date, and a test keeps every catalogue current. At grading time a catalogue whose
reference values differ from today's expected ones is not used (:mod:`.mutants`).

    .venv/bin/python tools/mutant_catalogue.py [sets or ids]     # rebuild
    .venv/bin/python tools/mutant_catalogue.py --check            # list the stale ones
"""
from __future__ import annotations

import ast
import functools
import gzip
import hashlib
import json
import warnings
from pathlib import Path

import numpy as np

from ..audit.engine import (Budget, TICKS_FACTOR, TICKS_SLACK, _unwrap, answer_targets,
                            compile_mutant, run_case, ticks_of)
from ..model import transport
from .mutant_words import change_words, mutation_sites

__all__ = ["FOLDER", "build", "fingerprint", "load", "stale", "write"]

#: where the catalogues live, one file per question
FOLDER = Path(__file__).with_name("catalogue")
_RAISED = "$raised"


def _fixed(question) -> list:
    return [c for c in question.make_cases(0) if c.fixed]


def _targets(question, fixed):
    if getattr(question.reference, "answer_key", None) is not None or not fixed:
        return []
    return answer_targets(question, fixed[0])


def fingerprint(question, fixed=None, targets=None) -> str:
    """A digest of what the question's catalogue is made from: the syntax of every function
    the audit mutates, and the fixed cases' inputs."""
    fixed = _fixed(question) if fixed is None else fixed
    targets = _targets(question, fixed) if targets is None else targets
    h = hashlib.sha256()
    for target in targets:
        h.update(target.name.encode())
        h.update(ast.dump(target.tree).encode())
    for case in fixed:
        try:
            h.update(transport.dumps([list(case.args), case.kwargs]).encode())
        except Exception:  # noqa: BLE001 - inputs transport cannot write: their repr
            h.update(repr((case.args, case.kwargs)).encode())
    return h.hexdigest()[:24]


def _run(question, case, expected, function=None, compiled=None, limit=None):
    """The encoded value of the reference (with ``function`` running ``compiled``) on
    ``case``, conformed to ``expected`` as an answer is, or ``{"$raised": name}``."""
    try:
        value = run_case(question.reference, case, function, compiled, limit)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if expected is not None:
                value, _ = question.conform(value, expected)
            return transport.encode(value)
    except (Budget, RecursionError):
        return {_RAISED: "stopped"}
    except Exception as exc:  # noqa: BLE001
        return {_RAISED: type(exc).__name__}


def digest(target_name: str, tree) -> str:
    """What makes two mutants the same code: the function's name and the mutant's text."""
    return hashlib.sha256((target_name + "\n" + ast.unparse(tree)).encode()).hexdigest()[:16]


def build(question) -> dict | None:
    """The catalogue of ``question`` (see the module's docstring), or None when it has no
    fixed case or no source to mutate (a choice question)."""
    if not question.compare_reference:
        return None
    fixed = _fixed(question)
    targets = _targets(question, fixed)
    if not targets:
        return None
    expected = [transport.roundtrip(question.expected(c)) for c in fixed]
    reference = [_run(question, c, e) for c, e in zip(fixed, expected)]
    rows, row_index, mutants = [], {}, []
    for target in targets:
        try:
            limit = TICKS_FACTOR * ticks_of(question, target.function, target.tree, fixed) + \
                TICKS_SLACK
        except Exception:  # noqa: BLE001 - the unmutated code does not compile here
            continue
        sites = mutation_sites(target.tree)
        is_reference = target.function is _unwrap(question.reference)
        for number, ((mutation, tree), site) in enumerate(zip(target.mutants(), sites)):
            if mutation.change != site[4]:
                raise RuntimeError(f"{question.id}: the sites of {target.short} are out of step "
                                   f"with its mutants ({mutation.change!r}, {site[4]!r})")
            words = change_words(target.tree, site, is_reference)
            if not words[0]:
                continue
            try:
                compiled = compile_mutant(target.function, tree)
            except Exception:  # noqa: BLE001
                continue
            row = [_run(question, c, e, target.function, compiled, limit)
                   for c, e in zip(fixed, expected)]
            if all(_RAISED in r if isinstance(r, dict) else False for r in row):
                continue        # no value to match an answer's by
            text = json.dumps(row, sort_keys=True)
            if text == json.dumps(reference, sort_keys=True):
                continue        # the reference's own values on every fixed case
            if text not in row_index:
                row_index[text] = len(rows)
                rows.append(row)
            mutants.append([target.short, number, mutation.operator, digest(target.name, tree),
                            row_index[text], *words])
    return {"question": question.id, "fingerprint": fingerprint(question, fixed, targets),
            "fixed": len(fixed), "reference": reference, "rows": rows, "mutants": mutants}


def rewrite_words(question) -> bool:
    """Give every mutant of ``question``'s catalogue today's words (:mod:`.mutant_words`)
    without running any: after the words change, not the code. False when there is no
    catalogue, or it is stale (then :func:`write` it)."""
    path = path_of(question.id)
    if stale(question) or not path.exists():
        return False
    made = json.loads(gzip.decompress(path.read_bytes()))
    fixed = _fixed(question)
    words = {}
    for target in _targets(question, fixed):
        is_reference = target.function is _unwrap(question.reference)
        for number, site in enumerate(mutation_sites(target.tree)):
            words[target.short, number] = change_words(target.tree, site, is_reference)
    made["mutants"] = [m[:5] + list(words[m[0], m[1]]) for m in made["mutants"]]
    data = json.dumps(made, separators=(",", ":")).encode()
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    load.cache_clear()
    return True


def path_of(question_id: str) -> Path:
    return FOLDER / f"{question_id}.json.gz"


def write(question) -> Path | None:
    """Build and write ``question``'s catalogue (deterministic bytes: no time stamp); remove a
    stale file when there is none to build."""
    catalogue = build(question)
    path = path_of(question.id)
    if catalogue is None:
        if path.exists():
            path.unlink()
        return None
    FOLDER.mkdir(exist_ok=True)
    data = json.dumps(catalogue, separators=(",", ":")).encode()
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    return path


@functools.lru_cache(maxsize=None)
def load(question_id: str) -> dict | None:
    """The catalogue of question ``question_id`` as written, its rows decoded (a mutant's
    error as ``("$raised", name)``); None when there is none."""
    path = path_of(question_id)
    try:
        catalogue = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError):
        return None
    decode = lambda v: (_RAISED, v[_RAISED]) if isinstance(v, dict) and _RAISED in v \
        else transport.decode(v)  # noqa: E731
    catalogue["reference"] = [decode(v) for v in catalogue["reference"]]
    catalogue["rows"] = [[decode(v) for v in row] for row in catalogue["rows"]]
    return catalogue


def stale(question) -> bool:
    """Whether ``question``'s catalogue is missing or made from other code or cases than
    today's (False for a question that has none to make)."""
    fixed = _fixed(question)
    targets = _targets(question, fixed)
    if not question.compare_reference or not targets:
        return path_of(question.id).exists()
    path = path_of(question.id)
    if not path.exists():
        return True
    try:
        stored = json.loads(gzip.decompress(path.read_bytes()))["fingerprint"]
    except (OSError, ValueError, KeyError):
        return True
    return stored != fingerprint(question, fixed, targets)
