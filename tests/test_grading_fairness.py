"""Fair to honest answers and friendly in the notebook (issue 19): the dtype-aware tolerance,
the one shape policy, constraints checked by behaviour (arguments unchanged, a matrix read
chunk by chunk through a probe, in ``check`` and in the grading worker alike), the tiered
hints, the stub of a fix-the-bug question, and ``check`` in a real IPython shell: the answer
found by name, "run the answer cell above first", and "your answer cell failed".
"""
from __future__ import annotations

import io
import contextlib

import numpy as np
import pytest

from kernelcourse.grading import (Case, Diagnosis, Question, evaluate, get_question, hint,
                                  inputs_unchanged, modified_input, reset_session)
from kernelcourse.grading.model import transport
from kernelcourse.grading.model.compare import conform_shape, dtype_tolerance, values_match
from kernelcourse.grading.command.pipeline import student_source
from kernelcourse.grading.model.probes import RowSource, formed_more_rows_than, rows_at_most


# --------------------------------------------------------------------- precision
def test_float32_answer_within_float32_precision_passes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    exact = np.exp(-0.7 * ((X[:, None] - X[None]) ** 2).sum(-1))
    X32 = X.astype(np.float32)
    single = np.exp(np.float32(-0.7) * ((X32[:, None] - X32[None]) ** 2).sum(-1))
    assert single.dtype == np.float32
    assert not np.allclose(single, exact, rtol=1e-7, atol=1e-9)  # the old rule failed it
    assert values_match(single, exact, 1e-7, 1e-9)[0]
    # ... but float32 is no licence for a wrong value, and float64 keeps the tight rule
    assert not values_match((single * 1.001).astype(np.float32), exact, 1e-7, 1e-9)[0]
    assert not values_match(single.astype(float), exact, 1e-7, 1e-9)[0]
    rtol, atol = dtype_tolerance(np.float32, exact, 1e-7, 1e-9)
    assert 1e-6 < rtol < 1e-5 and atol == pytest.approx(rtol * np.abs(exact).max())


def test_float32_gram_matrix_scores_full_marks_through_the_transport():
    q = get_question("ex1.q5")

    def rbf32(X, Z, gamma):
        X, Z = np.asarray(X, np.float32), np.asarray(Z, np.float32)
        return np.exp(-np.float32(gamma) * ((X[:, None] - Z[None]) ** 2).sum(-1))
    result = evaluate(q, rbf32, 0)
    assert result.status == "passed", result.line()


def test_a_differing_entry_is_reported_with_the_size_of_the_difference():
    ok, reason = values_match(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-5]))
    assert not ok and "largest difference 1e-05" in reason


# --------------------------------------------------------------------- shapes
def test_shape_policy_accepts_a_column_where_a_vector_is_asked_with_a_note():
    expected = np.arange(4.0)
    actual, note = conform_shape(np.arange(4.0).reshape(4, 1), expected)
    assert actual.shape == (4,) and "(4, 1)" in note and "(4,)" in note
    # a shape that differs otherwise is not touched, and fails naming both shapes
    actual, note = conform_shape(np.arange(4.0).reshape(2, 2), expected)
    assert actual.shape == (2, 2) and note == ""
    assert values_match(actual, expected) == (False, "shape (2, 2) where (4,) was expected")


def test_a_right_eigenvector_as_a_column_passes_the_witness_question_with_a_note():
    q = get_question("ex1.q7")

    def column(K):
        return np.linalg.eigh(K)[1][:, :1]
    result = evaluate(q, column, 0)
    assert result.status == "passed", result.line()
    assert "Note: your answer has shape" in result.line() and ", 1)" in result.line()


# --------------------------------------------------------------------- constraints
def _toy_unchanged():
    def reference(u, i):
        u = np.array(u, float)
        u[i] = 0.0
        return u

    def in_place(u, i):
        u[i] = 0.0
        return u

    return Question(
        id="toy.q1", title="zero one entry", function="zero_entry", points=2,
        reference=reference, kind="derive", section="2.1",
        cases=lambda rng: [Case((rng.normal(size=4), 1)), Case((rng.normal(size=3), 0))],
        constraints=[inputs_unchanged("u")],
        diagnoses=[Diagnosis("in place", "you changed u in place", in_place,
                             behaviour=modified_input("u")),
                   Diagnosis("all", "only entry i changes", lambda u, i: np.zeros_like(u))])


def test_an_answer_that_modifies_its_argument_fails_with_a_named_reason():
    q = _toy_unchanged()
    assert evaluate(q, q.reference, 0).status == "passed"
    result = evaluate(q, q.diagnoses[0].mistake, 0)
    assert result.status == "failed" and result.points == 0
    assert "changed its argument u in place" in result.line()
    assert result.diagnosis is q.diagnoses[0]
    assert evaluate(q, q.diagnoses[1].mistake, 0).diagnosis is q.diagnoses[1]


def test_ex2_q1_checks_that_u_is_left_unchanged():
    q = get_question("ex2.q1")

    def in_place(u, i, k_row, y_i, alpha):
        u[i] = u[i] + alpha * y_i / (1 + np.exp(y_i * (k_row @ u)))
        return u
    result = evaluate(q, in_place, 0)
    assert result.status == "failed" and result.points == 0, result.line()
    assert "in place" in result.line()


def _toy_chunked():
    def reference(Phi, chunk):
        total = np.zeros(Phi.shape[1])
        for start in range(0, len(Phi), chunk):
            total += Phi[start:start + chunk].sum(axis=0)
        return total

    def whole(Phi, chunk):
        return np.asarray(Phi).sum(axis=0)

    def cases(rng):
        return [Case((RowSource(rng.normal(size=(n, 3))), c)) for n, c in [(10, 3), (7, 2)]]

    return Question(
        id="toy.q2", title="column sums by chunks", function="column_sums", points=2,
        reference=reference, cases=cases, kind="derive", section="6.1",
        constraints=[rows_at_most(0, lambda case: case.args[1])],
        diagnoses=[Diagnosis("whole", "you formed the whole matrix at once", whole,
                             behaviour=formed_more_rows_than(0, lambda case: case.args[1]))])


def test_row_source_counts_rows_formed_at_once():
    source = RowSource(np.arange(12.0).reshape(4, 3))
    assert source.shape == (4, 3) and len(source) == 4
    np.testing.assert_array_equal(source[1:3], [[3, 4, 5], [6, 7, 8]])
    assert source.usage() == {"max_rows": 2, "rows": 2, "reads": 1, "max_held": 0}
    np.asarray(source)
    assert source.usage()["max_rows"] == 4
    with pytest.raises(AttributeError, match="read by rows"):
        source.T
    back = transport.roundtrip(source)
    assert isinstance(back, RowSource) and back.usage()["reads"] == 0
    with pytest.raises(transport.UnsupportedValue):
        transport.loads(transport.dumps(source))  # an answer's value never holds a probe


def test_row_source_counts_the_rows_still_held_at_each_read():
    """``max_held``: the rows of earlier reads alive when the answer reads again. Kept rows
    (stacked later) count, a view keeps its rows alive, a block let go does not count."""
    data = np.arange(20.0).reshape(10, 2)
    source = RowSource(data)
    kept = [source[i] for i in range(10)]            # one row per read, every row kept
    np.testing.assert_array_equal(np.vstack(kept), data)
    assert source.usage() == {"max_rows": 1, "rows": 10, "reads": 10, "max_held": 9}
    del kept
    source = RowSource(data)
    total = np.zeros(2)
    for start in range(0, 10, 3):                    # the previous block lives until rebound
        block = source[start:start + 3]
        total += block.sum(axis=0)
    np.testing.assert_array_equal(total, data.sum(axis=0))
    assert source.usage()["max_held"] == 3 and source.usage()["max_rows"] == 3
    source = RowSource(data)
    columns = [source[s:s + 2][:, 0] for s in range(0, 10, 2)]   # views keep their blocks
    assert source.usage()["max_held"] == 8 and len(columns) == 5
    source = RowSource(data)
    for _ in range(5):
        source[0:2].sum()                            # let go at once
    assert source.usage()["max_held"] == 0


def test_row_source_counts_copies_of_its_rows_by_memory():
    """Copies of the rows (lists of floats, arrays of their own) are not blocks the reader
    handed out, but they are memory the process made since the first read: past what an honest
    loop needs they count as rows held. An honest loop over the same matrix counts none, and
    tracing stops when the reader that started it goes."""
    import gc
    import tracemalloc

    tracing_before = tracemalloc.is_tracing()
    data = np.random.default_rng(0).normal(size=(2400, 3))
    for keep in (lambda block: block.tolist(), lambda block: list(block.copy())):
        source = RowSource(data)
        kept = []
        for start in range(0, 2400, 80):
            kept.extend(keep(source[start:start + 80]))
        assert source.usage()["max_held"] >= 1800 and source.usage()["max_rows"] == 80
        del kept
    source = RowSource(data)
    total = np.zeros((3, 3))
    for start in range(0, 2400, 80):
        block = source[start:start + 80]
        total += block.T @ block
    np.testing.assert_allclose(total, data.T @ data)
    assert source.usage()["max_held"] == 80          # the previous block, until rebound
    assert tracemalloc.is_tracing()
    del source, block
    gc.collect()
    assert tracemalloc.is_tracing() == tracing_before


def test_chunk_by_chunk_is_checked_by_behaviour_in_check_and_in_the_worker():
    from kernelcourse.grading.sealed import answer
    from kernelcourse.grading.checking.scoring import score

    q = _toy_chunked()
    assert evaluate(q, q.reference, 0).status == "passed"
    result = evaluate(q, q.diagnoses[0].mistake, 0)
    assert result.status == "failed" and result.diagnosis is q.diagnoses[0]
    assert "formed 10 rows of the matrix at once" in result.line()
    # the grading worker rebuilds the probe, runs the answer cell, reports the usage
    cases = q.make_cases(0)
    for source, status in [("import numpy as np\ndef column_sums(Phi, chunk):\n"
                            "    return np.asarray(Phi).sum(axis=0)\n", "failed"),
                           ("import numpy as np\ndef column_sums(Phi, chunk):\n"
                            "    return sum(Phi[s:s + chunk].sum(axis=0) "
                            "for s in range(0, len(Phi), chunk))\n", "passed")]:
        request = {"source": source, "function": "column_sums", "time_limit": 5,
                   "cases": [[transport.encode(list(c.args)), transport.encode(c.kwargs)]
                             for c in cases]}
        reply = transport.loads(transport.dumps(answer.run_request(request)))
        assert score(q, cases, reply["outcomes"]).status == status


# --------------------------------------------------------------------- hints, stubs
def test_hint_prints_the_tiers_in_turn_and_failed_checks_show_the_next():
    from kernelcourse.grading import check

    reset_session()
    q = get_question("ex1.q2")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        hint("ex1.q2")
    assert out.getvalue().startswith(f"Hint 1 of {len(q.hints)} for ex1.q2: {q.hints[0]}")
    reset_session()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check("ex1.q2", lambda d: d ** 2)
        first = out.getvalue()
        check("ex1.q2", lambda d: d ** 2)
    assert "Hint" not in first
    assert f"Hint 1 of {len(q.hints)} for ex1.q2" in out.getvalue()[len(first):]
    reset_session()


def test_a_fix_question_stub_keeps_the_given_code_after_the_stub_line():
    source = ("# ANSWER ex1.q2\ndef f(x):\n    # BEGIN SOLUTION\n    return 2 * x\n"
              "    # STUB\n    # return 3 * x\n    # END SOLUTION\n")
    student = student_source(source, "fix it")
    assert student == ("# ANSWER ex1.q2\ndef f(x):\n    raise NotImplementedError('fix it')\n"
                       "    return 3 * x\n")


# --------------------------------------------------------------------- IPython
def _shell():
    IPython = pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    return shell


def _run(shell, cell: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        shell.run_cell(cell)
    return out.getvalue()


def test_check_in_an_ipython_shell_names_the_order_mistakes():
    shell = _shell()
    reset_session()
    assert _run(shell, "from kernelcourse.grading import check") == ""
    # the check before its answer cell: no NameError, a pointer to the answer cell
    text = _run(shell, 'check("ex1.q2")')
    assert "all_subsets_dim is not defined yet: run the answer cell above first" in text
    _run(shell, "# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    raise NotImplementedError('x')\n")
    assert "not attempted" in _run(shell, 'check("ex1.q2")')
    # the answer cell edited into a syntax error: the stub is still defined, and check says so
    _run(shell, "# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    return 2 **\n")
    text = _run(shell, 'check("ex1.q2")')
    assert "not attempted" in text and "your answer cell failed" in text.lower()
    assert "SyntaxError on line 3" in text and "still the stub" in text
    # an answer cell that raises while it runs
    _run(shell, "# ANSWER ex1.q2\nimport not_a_module_anywhere\ndef all_subsets_dim(d):\n"
                "    return 2 ** d\n")
    text = _run(shell, 'check("ex1.q2")')
    assert "ModuleNotFoundError" in text and "still the stub" in text
    # fixed: passes, and the message is gone
    _run(shell, "# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    return 2 ** d\n")
    text = _run(shell, 'check("ex1.q2")')
    assert "passed all" in text and "failed" not in text
    reset_session()


def test_a_failed_first_run_of_the_answer_cell_is_named():
    shell = _shell()
    shell.user_ns.pop("all_subsets_features", None)
    _run(shell, "from kernelcourse.grading import check")
    _run(shell, "# ANSWER ex1.q1\ndef all_subsets_features(X)\n    return X\n")
    text = _run(shell, 'check("ex1.q1")')
    assert "your answer cell failed (SyntaxError on line 2" in text
    assert "all_subsets_features is not defined" in text


@pytest.mark.slow
def test_check_in_a_real_jupyter_kernel():
    """The same order mistakes in a real kernel (nbclient), where the answer cell's failure is
    seen by the post_run_cell hook."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    cells = ["from kernelcourse.grading import check, hint",
             'check("ex1.q2")',
             "# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    raise NotImplementedError('x')",
             "# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    return 2 **",
             'check("ex1.q2")',
             "# ANSWER ex1.q2\ndef all_subsets_dim(d):\n    return d ** 2",
             'check("ex1.q2")', 'check("ex1.q2")', 'hint("ex1.q2")']
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=60, allow_errors=True, kernel_name="python3").execute()
    text = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells]
    assert "run the answer cell above first" in text[1]
    assert nb.cells[3].outputs[0]["ename"] == "SyntaxError"
    assert "not attempted" in text[4] and "SyntaxError on line 3" in text[4]
    assert "still the stub" in text[4]
    assert "Likely mistake" in text[6] and "Hint 1 of" not in text[6]
    assert "Hint 1 of" in text[7]
    assert text[8].startswith("Hint 2 of")


# --------------------------------------------------------------------- diagnoses named right
def test_the_misnamed_diagnoses_of_issue_19_name_the_real_mistake():
    import itertools

    # ex1.q1: a map without the product of all coordinates is not "the empty subset is missing"
    def no_full_product(X):
        X = np.asarray(X, float)
        d = X.shape[1]
        cols = [np.prod(X[:, list(s)], axis=1) for k in range(d) for s in
                itertools.combinations(range(d), k)]
        return np.column_stack(cols)
    result = evaluate(get_question("ex1.q1"), no_full_product, 0)
    assert result.diagnosis is not None and result.diagnosis.name == "no full product"
    # ex1.q7: any wrong vector is not "the eigenvector of the largest eigenvalue"
    result = evaluate(get_question("ex1.q7"), lambda K: np.ones(len(K)), 0)
    assert result.status == "failed" and (result.diagnosis is None
                                          or result.diagnosis.name != "largest"), result.line()
    # ex1.q6: a determinant test is named as such, not "symmetry only"
    result = evaluate(get_question("ex1.q6"),
                      lambda K: bool(np.allclose(K, K.T) and np.linalg.det(K) >= 0), 0)
    assert result.diagnosis is not None and result.diagnosis.name == "determinant"
