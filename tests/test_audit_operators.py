"""The mutation operators of the question audit (:mod:`kernelcourse.grading.audit.operators`):
each produces the mutant it names, on a small function written here; and the audit's verdicts
(killed, survivor, equivalent, guarded) on small questions whose answers we know."""
from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

from kernelcourse.grading import Case, Question, choice_parts
from kernelcourse.grading.audit import OPERATORS, audit, format_audit, mutations, summary_line
from kernelcourse.grading.audit.engine import compile_mutant, ticking


def _mutants(source: str, operator: str) -> list[str]:
    """The bodies (unparsed) of ``source``'s mutants made by ``operator``."""
    tree = ast.parse(textwrap.dedent(source)).body[0]
    return ["\n".join(ast.unparse(s) for s in mutant.body)
            for mutation, mutant in mutations(tree) if mutation.operator == operator]


@pytest.mark.parametrize("operator, source, expected", [
    ("arithmetic", "def f(a, b):\n    return a + b", "return a - b"),
    ("arithmetic", "def f(a, b):\n    return a * b", "return a / b"),
    ("arithmetic", "def f(a, b):\n    return a ** b", "return a * b"),
    ("arithmetic", "def f(a, b):\n    return a @ b", "return a * b"),
    ("comparison", "def f(a, b):\n    return a < b", "return a <= b"),
    ("comparison", "def f(a, b):\n    return a < b", "return a > b"),
    ("comparison", "def f(a, b):\n    return a >= b", "return a > b"),
    ("comparison", "def f(a, b):\n    return a == b", "return a != b"),
    ("boolean", "def f(a, b):\n    return a and b", "return a or b"),
    ("boolean", "def f(a):\n    return -a", "return a"),
    ("constant", "def f(a):\n    return a * 3", "return a * 0"),
    ("constant", "def f(a):\n    return a * 3", "return a * 1"),
    ("constant", "def f(a):\n    return a * 3", "return a * 2"),
    ("constant", "def f(a):\n    return a * 3", "return a * 0.5"),
    ("constant", "def f(a):\n    return a * 3", "return a * 4"),
    ("constant", "def f(a):\n    return a * 3.0", "return a * 4.0"),
    ("n-1", "def f(x):\n    return x.sum() / len(x)", "return x.sum() / (len(x) - 1)"),
    ("n-1", "def f(x, n):\n    return x / (n - 1)", "return x / n"),
    ("n-1", "def f(X):\n    return X.shape[0]", "return X.shape[0] - 1"),
    ("reduction", "def f(x):\n    return np.sum(x)", "return np.mean(x)"),
    ("reduction", "def f(x):\n    return x.mean(axis=0)", "return x.sum(axis=0)"),
    ("reduction", "def f(x):\n    return np.argmax(x)", "return np.argmin(x)"),
    ("dropped term", "def f(a, b):\n    return a + b", "return a"),
    ("dropped term", "def f(a, b):\n    return a + b", "return b"),
    ("dropped term", "def f(a, b):\n    return a / b", "return a"),
    ("dropped update", "def f(a, b):\n    a += b\n    return a", "pass\nreturn a"),
    ("dropped call", "def f(a):\n    return np.sqrt(a)", "return a"),
    ("transpose", "def f(A, B):\n    return A @ B", "return A.T @ B"),
    ("transpose", "def f(A, B):\n    return A @ B", "return A @ B.T"),
    ("transpose", "def f(A):\n    return A.T", "return A"),
    ("axis", "def f(A):\n    return A.sum(axis=0)", "return A.sum(axis=1)"),
    ("axis", "def f(A):\n    return A.sum(axis=0)", "return A.sum(axis=-1)"),
    ("axis", "def f(A):\n    return A.sum(axis=0)", "return A.sum(axis=None)"),
    ("ddof", "def f(x):\n    return np.var(x)", "return np.var(x, ddof=1)"),
    ("ddof", "def f(x):\n    return x.std(ddof=1)", "return x.std()"),
    ("slice", "def f(x):\n    return x[1:]", "return x[2:]"),
    ("slice", "def f(x):\n    return x[1:]", "return x[1:-1]"),
    ("slice", "def f(x):\n    return x[:n]", "return x[:n - 1]"),
    ("slice", "def f(x):\n    return x[:n]", "return x[:n + 1]"),
    ("swapped operands", "def f(a, b):\n    return a - b", "return b - a"),
    ("swapped operands", "def f(A, B):\n    return A @ B", "return B @ A"),
    ("swapped arguments", "def f(a, b):\n    return g(a, b)", "return g(b, a)"),
    ("default", "def f(a, b=2):\n    return a + b", "return a + b"),
])
def test_each_operator_makes_the_mutant_it_names(operator, source, expected):
    assert operator in OPERATORS
    assert expected in _mutants(source, operator), _mutants(source, operator)


def test_a_default_mutant_changes_the_default_the_function_runs_with():
    namespace = {}
    exec("def f(a, b=2):\n    return a + b", namespace)
    function = namespace["f"]
    tree = ast.parse("def f(a, b=2):\n    return a + b").body[0]
    found = {m.change: t for m, t in mutations(tree) if m.operator == "default"}
    assert set(found) == {"2 -> 0", "2 -> 1", "2 -> 0.5", "2 -> 3"}
    code, defaults, _ = compile_mutant(function, found["2 -> 3"])
    assert defaults == (3,)
    function.__code__, function.__defaults__ = code, defaults
    with ticking() as ticker:  # the mutant counts a tick as it starts
        assert function(1) == 4
    assert ticker.count == 1


def test_messages_checks_and_docstrings_are_not_mutated():
    source = '''
    def f(x):
        """Doc 2."""
        if x < 0:
            raise ValueError(f"x must be >= {0} here")
        assert x + 1 > 0, "never"
        return x
    '''
    changes = [m.change for m, _ in mutations(ast.parse(textwrap.dedent(source)).body[0])]
    assert changes == ["x < 0 -> x <= 0", "x < 0 -> x > 0", "0 -> 1", "0 -> 2", "0 -> 0.5",
                       "0 -> -1"], changes


# ---------------------------------------------------------------- the audit on small questions
def _mean_of(x):
    total = 0.0
    for value in x:
        total += value
    return total / len(x)


def _draw(rng):
    return [Case((np.round(rng.normal(size=int(rng.integers(2, 6))), 3),)) for _ in range(4)]


def _question(fixed):
    return Question(id="audit.q1", title="a mean", function="mean_of", points=1,
                    reference=_mean_of, cases=_draw, fixed_cases=fixed)


def test_a_mutant_that_passes_the_fixed_cases_but_not_a_drawn_one_survives():
    # one fixed case of one value: len(x) - 1 fails it (a division by zero), but a dropped
    # "total += value" gives 0 and so does the mean of [0.0]
    report = audit(_question(lambda: [Case((np.array([0.0]),))]))
    survivors = [r.mutation.change for r in report.survivors]
    assert any("dropped" in change for change in survivors), survivors
    assert report.killed >= 1
    assert "mutants:" in summary_line([report])


def test_fixed_cases_where_the_mistakes_show_leave_no_survivor():
    report = audit(_question(lambda: [Case((np.array([1.0, 2.0, 4.5]),)),
                                      Case((np.array([-3.0, 0.5]),))]))
    assert report.survivors == [], format_audit([report])
    assert report.killed >= 8
    line = summary_line([report])
    assert line == f"mutants: {report.killed}/{report.killed} killed by the fixed cases, " \
                   f"0 survivors in 0 questions"


def _count_down(n):
    steps = 0
    while n > 0:
        n = n - 1
        steps += 1
    return steps


def test_a_mutant_that_never_stops_is_stopped_by_ticks_the_same_way_every_time():
    question = Question(id="audit.q2", title="count down", function="count_down", points=1,
                        reference=_count_down, cases=lambda rng: [Case((int(rng.integers(3, 9)),))],
                        fixed_cases=lambda: [Case((5,)), Case((2,))])
    first, second = audit(question), audit(question)
    forever = [r for r in first.results if r.mutation.change == "n - 1 -> n + 1"]
    assert forever and forever[0].status == "killed"
    assert [(r.mutation, r.status) for r in first.results] == \
        [(r.mutation, r.status) for r in second.results]


def test_choice_questions_answer_every_other_option():
    question = Question(id="audit.q3", title="pick", function="pick", points=1, kind="choice",
                        **choice_parts("b", {"a": "not a", "c": "not c"}))
    report = audit(question)
    assert sorted(r.mutation.change for r in report.results) == ["'b' -> 'a'", "'b' -> 'c'"]
    assert all(r.status == "killed" for r in report.results)
