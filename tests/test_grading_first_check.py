"""A notebook's first check() loads only what its set needs (issue 40, item 4).

Each test starts a fresh Python process that does what an exercise notebook does: run the
solution's answer cell in ``__main__``, then ``from kernelcourse.grading import check`` and
``check(question_id)``, for each of the ten sets. After the check, scikit-learn must not be
loaded (no set's references or cases need it: the estimator classes are loaded when first
asked for, ``kernelcourse._lazy``) and no other
lecture's question module either; the verdict must be the one printed when the whole bank and
every estimator class were loaded first (what the first check did before). An answer that
reaches, by a name in its source or as it runs, an object the first pass had not loaded is
checked again with it loaded: it still scores 0 for using it. (Speed is measured in
``benchmarks/bench_first_check.py``, not here.)
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the packages whose estimator classes (and, in mean_embeddings, every section) load when first
#: asked for: their ``_LAZY`` tables (``kernelcourse._lazy``)
LAZY_PACKAGES = tuple(f"kernelcourse.{name}" for name in (
    "dual", "feature_space", "gaussian_process", "gradient_descent", "kernel_pca", "mean_embeddings",
    "nystroem", "perceptron", "random_features", "ridge", "rkhs", "sgd", "svm"))

CHILD = r"""
import io, contextlib, json, sys
qid, cell, preload = sys.argv[1], sys.argv[2], sys.argv[3]
LAZY_PACKAGES = json.loads(sys.argv[4])
import linecache  # as IPython does, so that the grader can read the answer's source
linecache.cache["<answer cell>"] = (len(cell), None, cell.splitlines(True), "<answer cell>")
exec(compile(cell, "<answer cell>", "exec"), globals())     # the notebook's answer cell
if preload == "sklearn":  # so that loading a package module as the answer runs is quick
    import sklearn.base
if preload == "bank":  # the state the first check used to make: the bank and the estimators loaded
    import importlib
    from kernelcourse.grading import all_questions
    all_questions()
    for package in LAZY_PACKAGES:  # every name each package hands out when first asked for
        module = importlib.import_module(package)
        for name in module._LAZY:
            getattr(module, name)
from kernelcourse.grading import check
out = io.StringIO()
with contextlib.redirect_stdout(out):
    check(qid)
print(json.dumps({
    "verdict": out.getvalue().strip(), "sklearn": "sklearn" in sys.modules,
    "scipy": sorted(m for m in ("scipy.linalg", "scipy.special") if m in sys.modules),
    "lectures": sorted({m.split(".")[3] for m in sys.modules
                        if m.startswith("kernelcourse.grading.questions.lecture")})}))
"""


def solution_cell(question_id: str) -> str:
    number = int(question_id.split(".")[0][2:])
    source = next((ROOT / "exercises" / "source").glob(f"{number:02d}_*.ipynb"))
    for cell in json.loads(source.read_text())["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and text.startswith(f"# ANSWER {question_id}\n"):
            return text
    raise AssertionError(f"no answer cell for {question_id}")


def first_check(question_id: str, cell: str, preload: str = "") -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, question_id, cell, preload,
                          json.dumps(LAZY_PACKAGES)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _assert_first_check_loads_only_its_set(question_id: str) -> None:
    lecture = f"lecture{question_id.split('.')[0][2:]}"
    cell = solution_cell(question_id)
    first = first_check(question_id, cell)
    assert first["verdict"].startswith(f"{question_id} ") and "passed all" in first["verdict"], \
        first["verdict"]
    assert not first["sklearn"], "the first check imported scikit-learn"
    assert first["lectures"] == [lecture], f"question modules of other lectures loaded: {first}"
    if lecture == "lecture8":  # its references import scipy.linalg and .special when first used
        assert not first["scipy"], f"set 8's first check imported {first['scipy']}"
    loaded = first_check(question_id, cell, preload="bank")
    assert loaded["sklearn"] and len(loaded["lectures"]) >= 10   # the preload did load them
    assert first["verdict"] == loaded["verdict"]


def test_first_check_of_set_1_loads_neither_scikit_learn_nor_other_lectures():
    _assert_first_check_loads_only_its_set("ex1.q1")


# No set's first check needs scikit-learn: every estimator class is handed out when first asked
# for, and the questions' references and cases use the functions only.
@pytest.mark.slow
@pytest.mark.parametrize("question_id", [f"ex{n}.q1" for n in range(2, 11)])
def test_first_check_of_every_other_set_loads_neither_scikit_learn_nor_other_lectures(question_id):
    _assert_first_check_loads_only_its_set(question_id)


def test_the_lazy_packages_are_all_listed():
    """The preload above loads every lazy name of the package: a package that gains a
    ``_LAZY`` table must be listed in :data:`LAZY_PACKAGES`."""
    found = {".".join(path.relative_to(ROOT).parent.parts)
             for path in (ROOT / "kernelcourse").rglob("__init__.py")
             if "\n_LAZY = " in "\n" + path.read_text()}
    assert found == set(LAZY_PACKAGES)


# Two answers to ex1.q4 that reach lecture 5's functional gradient descent, a route to the same
# computation (``shortcuts.ROUTES``) whose package the first check had not loaded: one names it
# in its source (in a branch that never runs), one imports it by a computed name as it runs
# and calls it (inside ``try``, so the first pass, which had no tripwire on it, sees a right
# answer). Both must score 0.
# scikit-learn is loaded first, so that loading lecture 5's package while the answer runs stays
# far within the question's time limit on a busy machine.
_OWN_LOOP = """
    alpha = np.zeros(len(y))
    for _ in range(n_steps):
        alpha = alpha - step * 2.0 * (np.asarray(K) @ alpha - np.asarray(y))
    return alpha
"""
REACHING_ANSWERS = {
    "by name": "import numpy as np\n\n\ndef kernel_gd(K, y, step, n_steps):\n"
               "    from kernelcourse.rkhs import functional_gradient_descent\n"
               "    if n_steps < 0:  # never: the static check reads it all the same\n"
               "        return functional_gradient_descent(K, y)\n" + _OWN_LOOP,
    "as it runs": "import importlib\n\nimport numpy as np\n\n\ndef kernel_gd(K, y, step, n_steps):\n"
                  "    module = importlib.import_module('kernelcourse.' + 'rkhs')\n"
                  "    try:\n        getattr(module, 'functional_' + 'gradient_descent')(None)\n"
                  "    except Exception:\n        pass\n" + _OWN_LOOP,
}


@pytest.mark.slow
@pytest.mark.parametrize("how", sorted(REACHING_ANSWERS))
def test_an_answer_reaching_what_the_first_check_had_not_loaded_still_scores_0(how):
    result = first_check("ex1.q4", "# ANSWER ex1.q4\n" + REACHING_ANSWERS[how], preload="sklearn")
    assert "0/3 points" in result["verdict"], result["verdict"]
    assert "functional_gradient_descent" in result["verdict"], result["verdict"]
    honest = first_check("ex1.q4", solution_cell("ex1.q4"))
    assert "3/3 points" in honest["verdict"] and not honest["sklearn"], honest
