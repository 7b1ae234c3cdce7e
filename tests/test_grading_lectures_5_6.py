"""Lecture 5 and 6 questions beyond the generic sweep: ex6.q4's chunk-by-chunk behaviour (the
worker's side is tested with the probe in test_grading_fairness), honest float32 answers, and diagnoses that name
only their own mistake."""
import numpy as np
import pytest

from kernelcourse.grading import evaluate, get_question

CHUNKED = '''
import numpy as np

def chunked_ridge(Phi, y, lam, chunk_size):
    D = Phi.shape[1]
    A, c = np.zeros((D, D)), np.zeros(D)
    for start in range(0, len(y), chunk_size):
        P = Phi[start:start + chunk_size]
        A += P.T @ P
        c += P.T @ y[start:start + chunk_size]
    return np.linalg.solve(A + lam * np.eye(D), c)
'''
WHOLE = '''
import numpy as np

def chunked_ridge(Phi, y, lam, chunk_size):
    P = np.asarray(Phi)
    return np.linalg.solve(P.T @ P + lam * np.eye(P.shape[1]), P.T @ y)
'''


def _function(source):
    space = {}
    exec(source, space)
    return space["chunked_ridge"]


def test_chunked_answer_passes_and_a_whole_phi_answer_fails_in_check():
    q = get_question("ex6.q4")
    assert evaluate(q, _function(CHUNKED), 0).status == "passed"
    result = evaluate(q, _function(WHOLE), 0)
    assert result.points == 0 and "rows of the matrix at once" in result.line()
    assert result.diagnosis is not None and result.diagnosis.name == "whole Phi"


def test_ex6_q1_input_dimension_is_not_called_a_missing_factor():
    q = get_question("ex6.q1")

    def input_dimension(X, Omega, b):
        Z = np.sqrt(2.0 / X.shape[1]) * np.cos(X @ Omega.T + b)
        return Z @ Z.T
    for seed in range(4):
        result = evaluate(q, input_dimension, seed)
        assert result.diagnosis is not None and result.diagnosis.name == "input dimension as D"


SOURCES = ["exercises/source/05_rkhs_and_functional_gradient_descent.ipynb",
           "exercises/source/06_kernel_methods_at_scale.ipynb"]


def _solutions():
    import re
    from pathlib import Path

    import nbformat

    root = Path(__file__).resolve().parents[1]
    found = {}
    for path in SOURCES:
        for cell in nbformat.read(root / path, as_version=4).cells:
            match = re.match(r"# ANSWER (\S+)", cell.source)
            if match:
                found[match.group(1)] = cell.source
    return found


@pytest.mark.parametrize("qid", ["ex5.q1", "ex5.q2", "ex5.q3", "ex5.q4", "ex5.q5", "ex5.q7",
                                 "ex5.q8", "ex5.q9", "ex6.q1", "ex6.q2", "ex6.q3", "ex6.q5",
                                 "ex6.q6", "ex6.q9"])
def test_the_solution_computed_in_float32_gets_full_marks(qid):
    """The source notebook's own solution, fed float32 arrays and numbers, so that its
    arithmetic is float32 (not only its result rounded)."""
    q = get_question(qid)
    space = {}
    exec(_solutions()[qid], space)
    solution = space[q.function]

    def in_float32(*args):
        return solution(*[a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                          else np.float32(a) if isinstance(a, float) else a for a in args])
    errors = []
    for seed in range(3):
        result = evaluate(q, in_float32, seed)
        if result.status != "passed":
            errors.append(result.line())
    assert not errors, errors[0]


def test_witness_accepts_any_change_in_the_null_space():
    q = get_question("ex5.q7")

    def other(alpha, X):
        U, _, _ = np.linalg.svd(X)
        return alpha - 3.0 * U[:, -1] + 0.5 * U[:, -1] * (len(alpha) > 4)
    assert evaluate(q, other, 0).status == "passed"


def test_the_choice_questions_give_partial_credit_per_statement():
    q = get_question("ex6.q8")
    wrong_twice = {"all landmarks": False, "fast decay": True, "chunks": False,
                   "new mean": False, "memory": True}
    result = evaluate(q, lambda statement: wrong_twice[statement], 0)
    # every statement is a fixed case (and drawn again, in an order of the seed's): 3 of 5 right
    assert result.n_passed * 5 == 3 * result.n_cases and result.points == pytest.approx(1.2)


@pytest.mark.parametrize("qid", ["ex5.q9", "ex6.q9"])
def test_the_given_buggy_code_is_diagnosed_as_unfixed(qid):
    q = get_question(qid)
    unfixed = q.diagnoses[0].mistake
    assert unfixed.__code__.co_filename.startswith("<the given")
    result = evaluate(q, unfixed, 0, detect_shortcuts=False)
    assert result.points == 0 and result.diagnosis is q.diagnoses[0]
