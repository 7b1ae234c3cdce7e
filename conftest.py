"""The whole run's set-up: the order test files are handed out in, what the quick loop leaves
out of the notebooks, and the environment nbval's kernels run in.

nbval's kernels run in the environment the stored outputs were executed in.

``tools/execute_notebooks.py`` executes a notebook with ``kernelcourse._execute.KERNEL_ENV``
(a fixed hash seed and cell name; BLAS on one thread; lecture 2's cost widget measuring no
pairs in background worker processes, since no reader moves it). nbval starts its kernels
with this process's environment; here, while nbval starts a notebook's kernel, that
environment gets the same variables, so nbval compares outputs made the same way, no
kernel's BLAS threads spin against the tests beside it, and lecture 2's kernel starts no
workers whose measurements nobody shows. The browser test starts its own JupyterLab and
keeps the real workers.
"""
from __future__ import annotations

import pytest


def _is_nbval_cell(item) -> bool:
    return type(item).__name__ == "IPyNbCell" and type(item).__module__.startswith("nbval")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """Set the kernel's environment while nbval starts it (in its notebook's set-up)."""
    if not _is_nbval_cell(item):
        return (yield)
    from kernelcourse._execute import kernel_environment

    with kernel_environment():
        return (yield)


#: Test files in the order pytest-xdist should hand them out, the longest first (worker seconds
#: in a quiet full run), so that no long file is started last while the other worker idles; the
#: others follow in collection order. Only the schedule depends on this list (``tasks.py test``
#: passes ``--no-loadscope-reorder``, else xdist orders files by their number of tests);
#: ``tests/test_project.py`` checks that every entry names a file that exists.
LONGEST_FIRST = [
    "tests/test_browser.py",
    "tests/test_grading_secrecy.py",
    "tests/test_grading_verdicts.py",
    "tests/test_question_audit_ex7_ex10.py",
    "tests/test_question_audit_others.py",
    "tests/test_question_audit.py",
    "tests/test_grading_isolation.py",
    "tests/test_grading_deadlines.py",
    "tests/test_grading_attacks.py",
    "tests/test_site.py",
    "tests/test_widgets_lecture2.py",
    "tests/test_grading_lms.py",
    "tests/test_fresh_clone.py",
    "tests/test_grading_pipeline.py",
    "tests/test_grading_verdicts_sets456.py",
    "tests/test_widgets_state.py",
    "tests/test_sklearn_contract.py",
    "tests/test_grading_lecture8.py",
    "tests/test_grading_handback.py",
    "notebooks/06_kernel_methods_at_scale.ipynb",
    "tests/test_grading_questions.py",
    "tests/test_exercise_quality.py",
    "tests/test_grading_command.py",
    "tests/test_challenge.py",
    "tests/test_structured_data.py",
]


#: folders whose notebooks nbval re-runs only in the full run (a notebook's cells cannot carry a
#: marker): the exercise sets, about 4.5 s each, nearly all of it the kernel's start; the quick
#: loop grades them through the command instead (tests/test_grading_pipeline.py)
SLOW_NOTEBOOKS = ("exercises/",)


@pytest.hookimpl(tryfirst=True)        # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if _is_nbval_cell(item) and item.nodeid.startswith(SLOW_NOTEBOOKS):
            item.add_marker(pytest.mark.slow)
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
