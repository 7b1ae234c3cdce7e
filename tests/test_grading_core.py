"""The check API: comparing, formatting, the transport format, time limits and ``check``'s line."""
import importlib
import math
import signal
import time

import numpy as np
import pytest

from kernelcourse.grading import (Case, Diagnosis, Property, Question, check, evaluate,
                                  format_value, get_question, reset_session, session_points,
                                  values_match)
from kernelcourse.grading.checking import session
from kernelcourse.grading.sealed.running import QuestionTimeout, time_limit
from kernelcourse.grading.model import transport
from kernelcourse.grading.questions import all_questions


def _gram(X, Z):
    return np.prod(1 + X[:, None, :] * Z[None, :, :], axis=-1)


def _toy(**kwargs):
    def cases(rng):
        return [Case((rng.normal(size=(n, 2)), rng.normal(size=(2, 2))), label=f"n={n}")
                for n in (1, 2, 3, 4)]
    options = dict(id="toy.q1", title="toy kernel", function="k", points=2, reference=_gram,
                   cases=cases,
                   diagnoses=[Diagnosis("sum", "you summed", lambda X, Z: np.sum(
                       1 + X[:, None, :] * Z[None, :, :], axis=-1))])
    options.update(kwargs)
    return Question(**options)


# --------------------------------------------------------------------- values_match
def test_values_match_numbers_and_shapes():
    assert values_match(np.ones((2, 3)), np.ones((2, 3)))[0]
    assert values_match([[1.0, 1.0]], np.ones((1, 2)))[0]
    ok, reason = values_match(np.ones(3), np.ones((3, 1)))
    assert not ok and reason == "shape (3,) where (3, 1) was expected"
    ok, reason = values_match(np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]))
    assert not ok and reason == "1 of 3 entries differ, first at index 2; largest difference 0.5"
    # relative tolerance 1e-7: a change of 1e-6 relative fails, 1e-9 passes
    assert values_match(1.0 + 1e-9, 1.0)[0]
    assert not values_match(1.0 + 1e-6, 1.0)[0]
    assert not values_match(np.nan, 1.0)[0]


def test_values_match_integers_exact_and_booleans_strict():
    assert values_match(1024.0, 1024)[0]
    assert not values_match(2 ** 40 + 1, 2 ** 40)[0]        # isclose would accept this
    assert not values_match(1, True)[0]                       # a number is not a verdict
    assert values_match(np.bool_(True), True)[0]
    ok, reason = values_match("yes", 3.0)
    assert not ok and "got a str" in reason


def test_values_match_sequences_and_sets():
    assert values_match((np.ones(2), 3), (np.ones(2), 3))[0]
    ok, reason = values_match((np.ones(2), 4), (np.ones(2), 3))
    assert not ok and reason.startswith("item 1 differs")
    assert not values_match([1, 2], (1, 2, 3))[0]
    assert values_match({1, 2}, frozenset({2, 1}))[0]
    assert not values_match([1, 2], {1, 2})[0]


# --------------------------------------------------------------------- format_value
def test_format_value_is_one_short_line():
    text = format_value(np.arange(1000.0).reshape(100, 10))
    assert "\n" not in text and len(text) <= 160 and "..." in text
    assert format_value(np.array([[1.0, 2.5], [3.0, 4.0]])) == "[[1., 2.5], [3., 4.]]"
    assert format_value(1 / 3) == "0.333333"
    assert format_value(np.float64(2.0)) == "2"
    assert format_value((1, True)) == "(1, True)"


# --------------------------------------------------------------------- transport
@pytest.mark.parametrize("value", [
    None, True, 3, 2 ** 70, -0.1 + 1e-17, "text", np.arange(6).reshape(2, 3),
    np.array([True, False]), np.linspace(0, 1, 7, dtype=np.float32), (1, [2.5, np.ones(2)]),
    {"a": 1, 2: (3,)}, {frozenset({1, 2}), frozenset()}, [{1, 2}, {3}],
])
def test_transport_roundtrip_keeps_values_and_types(value):
    back = transport.roundtrip(value)
    assert type(back) is type(value)
    assert values_match(back, value, rtol=0, atol=0)[0] or back == value
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape


def test_transport_keeps_every_float_digit_and_nan():
    x = np.array([0.1 + 0.2, 1e-310, np.inf, -np.inf])
    assert np.array_equal(transport.roundtrip(x), x)
    assert math.isnan(transport.roundtrip(float("nan")))


@pytest.mark.parametrize("value, match", [
    (lambda x: x, "function"), (object(), "object"), (1 + 2j, "complex"),
    (np.array(["a"]), "dtype <U1"), (iter([1]), "list_iterator"),
])
def test_transport_refuses_what_is_not_plain_data(value, match):
    with pytest.raises(transport.UnsupportedValue, match=match):
        transport.encode(value)


def test_transport_never_builds_objects_from_tags():
    with pytest.raises(transport.UnsupportedValue, match="dtype object"):
        transport.loads('{"$nd": "|O", "shape": [1], "data": [1]}')


# --------------------------------------------------------------------- Question
@pytest.mark.parametrize("kwargs, error, match", [
    (dict(id="q1"), ValueError, "must look like 'ex1.q3'"),
    (dict(function="not a name"), ValueError, "function must be a Python name"),
    (dict(points=0), ValueError, "points must be a positive number; got 0"),
    (dict(reference=3), TypeError, "reference and cases must be callables"),
])
def test_question_rejects_bad_definitions(kwargs, error, match):
    with pytest.raises(error, match=match):
        _toy(**kwargs)


def test_default_hint_names_the_function():
    assert _toy().hint == "write k (question toy.q1)"


# --------------------------------------------------------------------- evaluate and score
def test_reference_passes_and_partial_credit_is_per_case():
    q = _toy()
    assert evaluate(q, _gram, seed=0).line() == "toy.q1 toy kernel: passed all 4 cases, 2/2 points"

    def half(X, Z):  # right on the cases with fewer than 3 rows
        return _gram(X, Z) if len(X) < 3 else np.zeros((len(X), len(Z)))
    result = evaluate(q, half, seed=0)
    assert (result.n_passed, result.points) == (2, 1.0)
    # the verdict first, then the failing case by its number and label
    assert result.line().startswith("toy.q1 toy kernel: failed, 1/2 points; 2/4 cases passed. "
                                    "On case 3 (drawn, n=3): expected [[")


def test_failure_line_shows_inputs_expected_actual_and_diagnosis():
    q = _toy()
    wrong = q.diagnoses[0].mistake
    result = evaluate(q, wrong, seed=1)
    case = q.make_cases(1)[0]
    expected = format_value(_gram(*case.args))
    line = result.line()
    assert f"expected {expected}, got {format_value(wrong(*case.args))}" in line
    assert "Likely mistake: you summed." in line
    assert "\n" not in line


def test_stub_is_not_attempted_and_errors_are_named():
    q = _toy()

    def stub(X, Z):
        raise NotImplementedError("write it")

    def broken(X, Z):
        return X @ np.ones(5)  # shapes do not match

    assert evaluate(q, stub, 0).line() == "toy.q1 toy kernel: not attempted, 0/2 points"
    line = evaluate(q, broken, 0).line()
    assert "0/4 cases passed" in line and "raised ValueError: matmul" in line
    assert evaluate(q, 42, 0).line() == "toy.q1 toy kernel: expected the function k, got int 42, 0/2 points"


def test_unreadable_return_value_is_a_failure_not_a_crash():
    line = evaluate(_toy(), lambda X, Z: (x for x in X), 0).line()
    assert "raised UnsupportedValue: a value of type generator cannot be graded" in line


def test_endless_loop_costs_the_question_only():
    def loop(X, Z):
        while True:
            pass
    result = evaluate(_toy(), loop, seed=0, seconds=0.3)
    assert result.points == 0 and "time limit of 0.3 s is over" in result.line()


def test_the_alarm_is_not_swallowed_by_except_exception():
    def stubborn(X, Z):
        while True:
            try:
                time.sleep(0.01)
            except Exception:
                pass
    assert "time limit" in evaluate(_toy(), stubborn, seed=0, seconds=0.2).line()


def test_nested_time_limits_restore_the_outer_one():
    with pytest.raises(QuestionTimeout):
        with time_limit(0.4):
            with time_limit(5.0):
                pass
            while True:     # the outer limit must still fire
                time.sleep(0.01)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_inputs_are_copied_so_mutation_cannot_change_the_expected_value():
    def mutating(X, Z):
        K = _gram(X, Z)
        X[:] = 0
        return K
    assert evaluate(_toy(), mutating, seed=0).status == "passed"


def test_properties_decide_when_the_reference_is_not_compared():
    q = _toy(compare_reference=False,
             properties=[Property("shape", lambda K, c: np.shape(K) == (len(c.args[0]), 2),
                                  "K must have shape (n_X, n_Z)")])
    assert evaluate(q, lambda X, Z: np.zeros((len(X), 2)), 0).status == "passed"
    line = evaluate(q, lambda X, Z: np.zeros(3), 0).line()
    assert "got [0., 0., 0.]: K must have shape (n_X, n_Z)" in line


def test_the_diagnosis_that_agrees_on_most_cases_wins():
    # two mistakes that agree on the first case (n=1) but not on the others
    def right(n):
        return 2 ** n

    def cases(rng):
        return [Case((n,)) for n in (1, 2, 3, 5)]
    q = Question(id="toy.q2", title="count", function="f", points=1, reference=right,
                 cases=cases, diagnoses=[Diagnosis("minus", "minus one", lambda n: 2 ** n - 1),
                                         Diagnosis("square", "squared", lambda n: n ** 2)])
    assert evaluate(q, lambda n: n ** 2, 0).diagnosis.name == "square"
    assert evaluate(q, lambda n: 2 ** n - 1, 0).diagnosis.name == "minus"
    # no named mistake fits a constant answer; the relation says it is one (grading/relations/)
    assert evaluate(q, lambda n: 7, 0).diagnosis.found_by == "relation"


# --------------------------------------------------------------------- check
def test_check_prints_its_verdict_returns_none_and_counts_the_set(capsys):
    reset_session()
    q = get_question("l1.cp1")
    total = sum(x.points for x in all_questions().values() if x.set_name == "l1")
    def all_subsets_kernel(X, Z):
        return np.prod(1 + X[:, None, :] * Z[None, :, :], axis=-1)
    assert check("l1.cp1", all_subsets_kernel) is None
    out = capsys.readouterr().out
    assert out == (f"l1.cp1 all-subsets kernel: passed all 8 cases, 2/2 points "
                   f"(so far 2/{total:g} in l1)\n")

    def kernel_gd_step(K, y, alpha, step):
        raise NotImplementedError("hint")
    check("l1.cp2", kernel_gd_step)
    assert capsys.readouterr().out == (f"l1.cp2 one step of kernelised gradient descent: not "
                                       f"attempted, 0/2 points (so far 2/{total:g} in l1)\n")
    assert session_points() == {"l1.cp1": 2.0, "l1.cp2": 0.0}
    # a later, worse attempt replaces the earlier points; a function the grader would not
    # find under its name gets a note
    check("l1.cp1", lambda X, Z: np.zeros((len(X), len(Z))))
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"l1.cp1 all-subsets kernel: failed, 0/2 points (so far 0/{total:g} in l1)"
    assert " ".join(x.strip() for x in out.splitlines()).endswith(
        "Note: the grader runs the function named all_subsets_kernel from the cell '# ANSWER "
        "l1.cp1'; this one is named <lambda>")
    reset_session()


def test_check_draws_new_cases_each_call_but_the_sequence_repeats():
    reset_session()
    seeds = [session._next_seed("ex1.q5") for _ in range(3)]
    reset_session()
    assert [session._next_seed("ex1.q5") for _ in range(3)] == seeds
    assert len(set(seeds)) == 3
    q = get_question("ex1.q5")
    first, second = q.make_cases(seeds[0]), q.make_cases(seeds[1])
    drawn = [c for c in first if not c.fixed][0], [c for c in second if not c.fixed][0]
    assert not np.array_equal(drawn[0].args[0], drawn[1].args[0])
    # ... and the fixed cases come first, the same in every call
    fixed = [c for c in first if c.fixed]
    assert fixed and all(c.fixed for c in first[:len(fixed)])
    assert all(np.array_equal(a.args[0], b.args[0]) for a, b in zip(fixed, second))
    reset_session()


def test_check_time_limit_in_the_notebook(capsys, monkeypatch):
    q = get_question("l1.cp1")
    monkeypatch.setattr(q, "time_limit", 0.3)

    def loop(X, Z):
        while True:
            pass
    reset_session()
    check("l1.cp1", loop)
    assert "stopped: time limit of 0.3 s is over (an endless loop?)" in capsys.readouterr().out
    reset_session()


def test_check_names_an_unknown_question():
    with pytest.raises(KeyError, match="no question 'ex1.q99'; known questions: .*ex1.q1"):
        check("ex1.q99", print)


# --------------------------------------------------------------------- no reference shortcut
def test_every_question_forbids_names_that_exist_in_the_package():
    for q in all_questions().values():
        objects = q.shortcut_objects()
        if q.kind == "choice":  # a letter: nothing in the package answers it
            continue
        assert q.forbidden, f"{q.id} forbids nothing"
        names = {name for name, _ in objects.values()}
        found = {id(obj) for _, obj in objects.values()}
        # each forbidden name resolves to an object the tripwires hold (one object forbidden
        # under two names, as center_gram in feature_space and _centering, is held once)
        for name in q.forbidden:
            module, _, attr = name.rpartition(".")
            assert name in names or id(getattr(importlib.import_module(module), attr)) in found, \
                f"{q.id}: {name}"
        # the grader's own answers are forbidden too
        assert "kernelcourse.grading.get_question" in names


def test_check_gives_no_points_for_the_course_reference_however_reached(capsys):
    import importlib

    from kernelcourse import features
    from kernelcourse.features import all_subsets_map as phi

    def via_alias(X):
        return phi(X)

    def via_attribute(X):
        return features.all_subsets_map(X)

    def via_importlib(X):
        return getattr(importlib.import_module("kernelcourse." + "features"),
                       "all_subsets" + "_map")(X)

    def via_the_grader(X):
        return get_question("ex1.q1").reference(X)

    def via_the_kernel(X):
        from kernelcourse.kernels import AllSubsets
        return AllSubsets().features(X)

    q = get_question("ex1.q1")
    for answer, name in [(via_alias, "kernelcourse.features.all_subsets_map"),
                         (via_attribute, "kernelcourse.features.all_subsets_map"),
                         (via_importlib, "kernelcourse.features.all_subsets_map"),
                         (via_the_grader, "kernelcourse.grading.get_question"),
                         (via_the_kernel, "kernelcourse.kernels.AllSubsets")]:
        result = evaluate(q, answer, seed=0)
        assert result.points == 0 and result.status == "error", answer.__name__
        assert f"uses the course's reference implementation of" in result.detail
        assert name in result.detail, (answer.__name__, result.detail)
    # the tripwires are gone afterwards: the package works as before
    X = np.array([[1.0, 2.0], [0.5, -1.0]])
    Phi = features.all_subsets_map(X)
    assert np.allclose(Phi @ Phi.T, np.prod(1 + X[:, None, :] * X[None, :, :], axis=-1))
    assert evaluate(q, via_alias, seed=0, detect_shortcuts=False).status == "passed"


def test_numpy_and_helpers_the_question_allows_are_no_false_alarm():
    from kernelcourse.datasets import circles  # noqa: F401 - a helper ex1.q5 allows

    def rbf_gram(X, Z, gamma):
        from kernelcourse.kernels import Linear
        G = Linear()(X, Z)
        sq = (X ** 2).sum(1)[:, None] + (Z ** 2).sum(1)[None, :] - 2 * G
        return np.exp(-gamma * sq)
    result = evaluate(get_question("ex1.q5"), rbf_gram, seed=0)
    assert result.status == "passed", result.line()


@pytest.mark.slow
def test_check_puts_every_tripwired_function_back():
    from kernelcourse.grading.model.shortcuts import _functions_of

    for q in all_questions().values():
        functions = [f for _, obj in q.shortcut_objects().values() for f in _functions_of(obj)]
        before = [f.__code__ for f in functions]
        evaluate(q, lambda *args, **kwargs: 0, seed=0)
        assert [f.__code__ for f in functions] == before, q.id
