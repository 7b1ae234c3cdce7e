"""Every route to a forbidden computation is tripwired, at a notebook's first check and in
``kernelcourse grade`` alike.

A question forbids some package functions and classes; the tripwires cover them, the other
members of their route groups and the private helpers their code calls
(:func:`kernelcourse.grading.model.loaded.private_helpers`), so that an answer calling any
public function those helpers serve scores 0 as well. When the estimator classes moved into
modules of their own, loaded when first asked for (``kernelcourse._lazy``), the private helpers
they share with their package's functions stayed behind, and for a while no tripwire covered
them: an answer to ex5.q9, ex6.q6, ex6.q8 or ex8.q5 calling ``inverse_sqrt_psd`` or
``dual_ridge`` scored full marks. The tests here would have caught that:

* the helpers the split had dropped are covered again, by name (:data:`SPLIT_HELPERS`);
* for every question that forbids something, an answer that reaches each covered function by a
  computed name (no static check can read it) and calls it scores 0 and is told each name: in a
  fresh process as a notebook's first check, which arms the tripwires on what is loaded only
  (so every loaded function the full check covers must be covered then too), and again with
  everything loaded;
* answers to the four questions above that call the public function a helper serves, with
  real inputs, score 0.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETS = [f"ex{n}" for n in range(1, 11)] + [f"l{n}" for n in range(1, 11)]

#: the private helpers that lost their tripwires when their class moved to a lazy module
#: (the coverage of every question at d353056, before the lazy packages, against 95fb8f1's)
SPLIT_HELPERS = {
    "ex5.q9": ["kernelcourse.nystroem.approximation._inverse_sqrt_psd"],
    "ex6.q6": ["kernelcourse.nystroem.approximation._inverse_sqrt_psd"],
    "ex6.q8": ["kernelcourse.nystroem.approximation._inverse_sqrt_psd"],
    "ex8.q5": ["kernelcourse.ridge.solutions._solve_regularised"],
    "ex2.q1": ["kernelcourse.sgd.ways._each", "kernelcourse.sgd.ways._primal_sgd",
               "kernelcourse.sgd.ways._rff_row_function"],
    "ex2.q2": ["kernelcourse.sgd.ways._each", "kernelcourse.sgd.ways._primal_sgd",
               "kernelcourse.sgd.ways._rff_row_function"],
    **{qid: ["kernelcourse.random_features.approximation._check_width",
             "kernelcourse.random_features.approximation._rng"]
       for qid in ("ex2.q3", "ex2.q6", "ex6.q1", "ex9.q11")},
    "l2.cp1": ["kernelcourse.random_features.approximation._check_width"],
}


def _label(name: str) -> str:
    """A tripwire's name without what it stands behind (a helper is reached behind the
    first forbidden name that calls it, which can differ between a first and a full check)."""
    return name.split(" (behind ", 1)[0]


@lru_cache(maxsize=None)
def routes() -> dict:
    """``{question: [[module, qualname, labels, home], ...]}``: every function the tripwires of
    a question that forbids something cover (found at ``module.qualname``, loaded with the
    module ``home``), everything loaded, with the names it is reached
    through (a tripwire reports one of them: a method shared by two forbidden classes, a helper
    behind two forbidden functions)."""
    from kernelcourse.grading import all_questions, get_question
    from kernelcourse.grading.model.loaded import functions_of
    from kernelcourse.grading.model.shortcuts import forbidden_objects

    found = {}
    for qid in all_questions():
        question = get_question(qid)
        if question.forbidden:
            labels = {}
            for name, obj in forbidden_objects(question.forbidden).values():
                for f in functions_of(obj):
                    if isinstance(obj, type):  # a method: reached through its class's name
                        # (a named tuple's are made in collections), loaded with its class
                        module, cls = _label(name).rsplit(".", 1)
                        key = (module, f"{cls}.{f.__name__}", obj.__module__)
                    else:
                        key = (f.__module__, f.__qualname__, f.__module__)
                    labels.setdefault(key, set()).add(_label(name))
            found[qid] = [[m, q, sorted(names), home] for (m, q, home), names
                          in sorted(labels.items())]
    return found


@pytest.mark.slow
def test_the_helpers_the_split_had_dropped_are_covered_again():
    covered = {qid: {f"{m}.{q}" for m, q, *_ in items} for qid, items in routes().items()}
    missing = {qid: sorted(set(names) - covered[qid]) for qid, names in SPLIT_HELPERS.items()}
    assert not any(missing.values()), missing


def test_a_lazy_class_reaches_its_packages_helpers_but_not_another_lazy_modules():
    from kernelcourse.grading.model.loaded import private_helpers
    from kernelcourse.nystroem import Nystroem
    from kernelcourse.mean_embeddings import mmd2_unbiased

    names = {f"{f.__module__}.{f.__name__}" for f in private_helpers(Nystroem)}
    # its package's helper; not the random-number helper of another package
    assert names == {"kernelcourse.nystroem.approximation._inverse_sqrt_psd"}
    # mean_embeddings' sections are each a lazy module: one's helpers are not another's
    assert not {f.__module__ for f in private_helpers(mmd2_unbiased)} - {mmd2_unbiased.__module__}


# ---------------------------------------------------------------- a notebook's first check
# One fresh process per set. It loads the set's questions as its first check does; then
# (a) for each question, an answer that calls each covered function already loaded, found by
# a computed name and called inside ``try`` (so an answer that swallows the tripwire's
# exception is still caught): nothing of the package may load, so these run on the first check's
# tripwires only; then (b) an answer that calls every covered function, loading the estimator
# classes (checked again with everything loaded). The answers are named as the question asks;
# the names each is told are read where the check scores it (its line shortens a long list).
CHILD = r"""
import contextlib, importlib, io, json, linecache, sys
data = json.loads(sys.stdin.read())
from kernelcourse.grading import check
from kernelcourse.grading.checking import scoring
from kernelcourse.grading.questions import get_question

USES, SCORE = {}, scoring.score

def recording(question, cases, outcomes, uses=(), **kwargs):  # the names, which a line shortens
    USES[question.id] = [name.split(" (behind ", 1)[0] for name in uses]
    return SCORE(question, cases, outcomes, uses=uses, **kwargs)

scoring.score = recording

def reach(module, qualname):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = vars(obj)[part] if isinstance(obj, type) else getattr(obj, part)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        elif isinstance(obj, property):
            obj = obj.fget
    return obj

SOURCE = '''
def {function}(*args, **kwargs):
    for module, qualname in ROUTES:
        try:
            reach(module, qualname)()
        except BaseException:
            pass
'''

def answer(question, chosen, tag):
    text = SOURCE.format(function=question.function)
    name = f"<answer {question.id} {tag}>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    space = {"ROUTES": chosen, "reach": reach}
    exec(compile(text, name, "exec"), space)
    return space[question.function]

def verdict(qid, func):
    out = io.StringIO()
    USES.pop(qid, None)
    with contextlib.redirect_stdout(out):
        check(qid, func)
    return {"text": out.getvalue(), "uses": USES.get(qid, [])}

questions = {qid: get_question(qid) for qid in data}   # the first check's loading
loaded = set(sys.modules)
report = {}
for qid, items in data.items():
    chosen = [[m, q] for m, q, _, home in items if home in loaded]
    report[qid] = {"first": [labels for m, q, labels, home in items if home in loaded],
                   "a": verdict(qid, answer(questions[qid], chosen, "a")),
                   "loaded more": sorted(m for m in set(sys.modules) - loaded
                                         if m.startswith(("kernelcourse.", "sklearn")))}
import sklearn.base  # so that loading an estimator class as an answer runs is quick
for qid, items in data.items():
    report[qid]["b"] = verdict(qid, answer(questions[qid], [[m, q] for m, q, *_ in items], "b"))
print(json.dumps(report))
"""


def _unreported(row: dict, functions) -> list:
    """The functions (each given by the names it is reached through) of which no name was
    reported."""
    return sorted(" or ".join(names) for names in functions if not set(names) & set(row["uses"]))


@pytest.mark.slow
@pytest.mark.parametrize("set_name", SETS)
def test_every_covered_function_scores_0_at_a_notebooks_first_check(set_name):
    data = {qid: items for qid, items in routes().items() if qid.split(".")[0] == set_name}
    if not data:
        pytest.skip(f"no question of {set_name} forbids anything")
    out = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(data),
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    wrong = {}
    for qid, items in data.items():
        row = report[qid]
        if row["loaded more"]:
            wrong[qid] = f"calling loaded functions loaded {row['loaded more']}"
        for tag, labels in (("a", row["first"]), ("b", [names for _, _, names, _ in items])):
            text = row[tag]["text"]
            if labels and (" 0/" not in text or "reference implementation" not in text
                           or _unreported(row[tag], labels)):
                wrong[f"{qid} {tag}"] = (text.strip()[:300], _unreported(row[tag], labels))
    assert not wrong, wrong


# ---------------------------------------------------------------- the public routes, for real
# Answers that compute the question's value (or part of it) with a public function whose
# private helper is a forbidden class's: the regression's own symptom. Lecture 5's and 8's
# questions load neither the Nystroem nor the ridge package: an answer that loads it is checked
# again with everything loaded (scikit-learn too); lecture 6's load the helper's module, and
# their first check's tripwires catch the answer without loading more.
FIRST_PASS = ("ex6.q6", "ex6.q8")
PUBLIC_ROUTES = {
    "ex5.q9": ("extend_eigenfunctions", "kernelcourse.nystroem.inverse_sqrt_psd",
               "inverse_sqrt_psd(np.eye(3))"),
    "ex6.q6": ("choose_landmarks", "kernelcourse.nystroem.nystroem_features",
               "nystroem_features(np.ones((4, 2)), np.eye(2))"),
    "ex6.q8": ("scale_statements", "kernelcourse.nystroem.inverse_sqrt_psd",
               "inverse_sqrt_psd(np.eye(3))"),
    "ex8.q5": ("ridge_lambda", "kernelcourse.ridge.dual_ridge",
               "dual_ridge(np.eye(3), np.ones(3), 1.0)"),
}

PUBLIC_CHILD = r"""
import contextlib, io, json, linecache, sys
qid, text = sys.argv[1], sys.argv[2]
linecache.cache["<answer cell>"] = (len(text), None, text.splitlines(True), "<answer cell>")
exec(compile(text, "<answer cell>", "exec"), globals())
from kernelcourse.grading import check
out = io.StringIO()
with contextlib.redirect_stdout(out):
    check(qid)
print(json.dumps({"verdict": out.getvalue(), "sklearn": "sklearn" in sys.modules}))
"""


def public_answer(qid: str) -> str:
    function, dotted, call = PUBLIC_ROUTES[qid]
    module, name = dotted.rsplit(".", 1)
    # the name is computed, so that only the tripwire on the helper can see the call
    return textwrap.dedent(f"""\
        # ANSWER {qid}
        import importlib

        import numpy as np


        def {function}(*args, **kwargs):
            {name} = getattr(importlib.import_module({module!r}), {name[:4]!r} + {name[4:]!r})
            try:
                {call}
            except BaseException:
                pass
        """)


@pytest.mark.slow
@pytest.mark.parametrize("qid", sorted(PUBLIC_ROUTES))
def test_an_answer_calling_a_public_function_a_forbidden_classs_helper_serves_scores_0(qid):
    out = subprocess.run([sys.executable, "-c", PUBLIC_CHILD, qid, public_answer(qid)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert " 0/" in result["verdict"], result["verdict"]
    assert "uses the course's reference implementation" in result["verdict"], result["verdict"]
    if qid in FIRST_PASS:
        assert not result["sklearn"], "the answer was caught only when checked again"


# ---------------------------------------------------------------- through `kernelcourse grade`
# One submission answers every question of sets 5, 6 and 8 that forbids something: the four
# above with their public route, every other with a call of the private helpers the tripwires
# cover behind its forbidden names (the routes the lazy split had dropped), by computed names:
# the first one called must stop the answer and be reported.
GRADED_SETS = ("ex5", "ex6", "ex8")

HELPER_CELL = '''\
# ANSWER {qid}
import importlib

ROUTES = {routes!r}


def {function}(*args, **kwargs):
    for module, name in ROUTES:
        getattr(importlib.import_module(module), name)()
'''


def graded_cells() -> dict:
    from kernelcourse.grading import get_question

    cells = {}
    for qid, items in routes().items():
        if qid.split(".")[0] not in GRADED_SETS:
            continue
        if qid in PUBLIC_ROUTES:
            cells[qid] = public_answer(qid)
            continue
        helpers = sorted({(m, q) for m, q, *_ in items if q.startswith("_")})
        if helpers:
            cells[qid] = HELPER_CELL.format(qid=qid, routes=[list(h) for h in helpers],
                                            function=get_question(qid).function)
    return cells


@pytest.mark.slow
def test_every_covered_helper_and_public_route_scores_0_through_the_grading_command(tmp_path):
    cells = graded_cells()
    assert set(PUBLIC_ROUTES) <= set(cells) and len(cells) > len(PUBLIC_ROUTES)
    sub, out, home = tmp_path / "sub", tmp_path / "out", tmp_path / "home"
    for folder in (sub, out, home):
        folder.mkdir()
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                           "outputs": [], "source": text} for text in cells.values()],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (sub / "routes.ipynb").write_text(json.dumps(notebook))
    result = subprocess.run([sys.executable, "-m", "kernelcourse", "grade", str(sub), "--output",
                             str(out), "--questions", ",".join(sorted(cells)), "--jobs", "1",
                             "--no-progress"], capture_output=True, text=True, timeout=1500,
                            cwd=out, env={**os.environ, "HOME": str(home)})
    assert result.returncode == 0, result.stderr[-3000:]
    row = json.loads((out / "gradebook.json").read_text())["submissions"][0]
    details = row["details"]
    wrong = {qid: details.get(qid) for qid in cells
             if "0/" not in str(details.get(qid)) or
             "reference implementation" not in str(details.get(qid))}
    assert not wrong, wrong
