"""Diagnoses by the reference's own slips (kernelcourse/grading/relations/mutants.py): a wrong
answer whose values on the fixed cases (and its drawn ones) are those of one mutant of the
reference hears that change in plain words, and only then: not a near miss, not where mutants
of different kinds match, not where the drawn cases tell the answer from the mutant, never
changing the points; and no mutant of a sample is told another change than its own (or an
equivalent one's) when it is left out of the catalogue itself."""
import ast
import copy
import gc
import importlib.util
import re
import sys
import textwrap
import types
import warnings
import weakref
from pathlib import Path

import numpy as np
import pytest

from kernelcourse.grading.audit import engine
from kernelcourse.grading.questions import all_questions
from kernelcourse.grading.relations import catalogue, mutants as slips, relation_holds
from kernelcourse.grading.relations.mutant_words import OFF_BY_ONE, change_words, mutation_sites
from kernelcourse.grading.checking.scoring import mistake_heading
from kernelcourse.grading.model import transport

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from diagnosis_coverage import _graded, _records, judge_mutant, mutant_answers  # noqa: E402

QUESTIONS = all_questions()


# ------------------------------------------------------------------------ the words of a change

_SOURCE = textwrap.dedent('''
    def f(X, Z, n, lam=0.5):
        a = X.sum(axis=0) / (n - 1)
        b = 2.0 * a + np.sqrt(Z[:, 1:])
        if a[0] < lam:
            b = b - 1
        return np.mean(a @ Z.T) + g(X, Z)
''')


def _words(operator, change_part):
    tree = ast.parse(_SOURCE).body[0]
    found = [change_words(tree, s, True) for s in mutation_sites(tree)
             if s[3] == operator and change_part in s[4]]
    assert found, (operator, change_part, [s[3:5] for s in mutation_sites(tree)])
    return found[0]


@pytest.mark.parametrize("operator, change, words", [
    ("comparison", "a[0] < lam -> a[0] <= lam", "a `<=` stands where `<` is due in one comparison"),
    ("arithmetic", "b - 1 -> b + 1", "a `+` stands where `-` is due in one place"),
    ("arithmetic", "a @ Z.T -> a * Z.T", "an element-wise product `*` stands where a matrix "
                                         "product `@` is due"),
    ("n-1", "n - 1 -> n", "it divides by n where n - 1 is due"),
    ("dropped term", "n - 1 -> n", "it divides by n where n - 1 is due"),
    ("constant", "1 -> 0", "it divides by n where n - 1 is due"),
    ("reduction", "np.mean(a @ Z.T) -> np.sum(a @ Z.T)", "a sum stands where a mean is due"),
    ("constant", "2.0 -> 1.0", "a factor 2 is left out"),
    ("dropped term", "2.0 * a -> a", "a factor 2 is left out"),
    ("dropped term", "2.0 * a + np.sqrt(Z[:, 1:]) -> 2.0 * a", "one term of a sum is left out"),
    ("dropped call", "np.sqrt(Z[:, 1:]) -> Z[:, 1:]", "a square root is left out"),
    ("transpose", "Z.T -> Z", "a transpose is missing"),
    ("axis", "X.sum(axis=0) -> X.sum(axis=1)", "`sum` runs along axis 1 where along axis 0 is due"),
    ("slice", "[1:] -> [2:]", "a slice starts one item later than due"),
    ("default", "0.5 -> 1", "the default of `lam` were 1 where 0.5 is due"),
    ("swapped arguments", "g(X, Z) -> g(Z, X)", "the arguments `X` and `Z` were swapped in one call"),
    ("swapped operands", "b - 1 -> 1 - b", "the two sides of one subtraction are swapped"),
])
def test_each_change_has_its_words(operator, change, words):
    specific, general, _ = _words(operator, change)
    assert specific.startswith(words), specific
    assert general and general != specific


def test_changes_by_one_share_a_family_and_others_do_not():
    assert _words("comparison", "a[0] < lam -> a[0] <= lam")[2] == OFF_BY_ONE
    assert _words("slice", "[1:] -> [2:]")[2] == OFF_BY_ONE
    assert _words("n-1", "n - 1 -> n")[2] == OFF_BY_ONE
    assert _words("comparison", "a[0] < lam -> a[0] > lam")[2] == ""
    assert _words("reduction", "np.mean")[2] == ""
    assert _words("constant", "2.0 -> 1.0")[2] == ""


def test_no_words_quote_the_solution():
    """Words hold operators, numbers and the function's own parameters, never an expression:
    no name of a local variable (a, b) and no call's argument text."""
    tree = ast.parse(_SOURCE).body[0]
    for site in mutation_sites(tree):
        for words in change_words(tree, site, True):
            assert "Z[" not in words and "X.sum" not in words and "a @" not in words, words
            assert "`a`" not in words and "`b`" not in words, words


# --------------------------------------------------------------- firing on real questions' mutants

def _where(text):
    """A mutant's description without its line number, which moves with every edit above it."""
    return re.sub(r":\d+ ", " ", text)


def _mutant(qid, part):
    q = QUESTIONS[qid]
    found = [(a, i) for d, a, i in mutant_answers(q, 10 ** 6, True) if _where(part) in _where(d)]
    assert found, (qid, part)
    return q, found[0][0], found[0][1]


SLIPS = [
    ("ex3.q4", "[constant] 2 -> 1", "a division by 2 is left out"),
    ("ex6.q5", "scaling.power_law_exponent [n-1] n -> n - 1",
     "a count n - 1 stands where n is due (one short)"),
    ("ex2.q1", "[dropped term] 1.0 + e -> e", "a `+ 1` is left out"),
]


@pytest.mark.parametrize("qid, part, words", SLIPS, ids=[s[0] for s in SLIPS])
def test_a_mutant_hears_its_change_in_every_seed_even_left_out(qid, part, words):
    """With its own entry in the catalogue, and without it (leave one out: an equivalent
    mutant of the same words still names it), in seeds 0 and 1."""
    q, answer, info = _mutant(qid, part)
    for seed in (0, 1):
        for left_out in (set(), {info["digest"]}):
            with slips.leaving_out(left_out):
                result = _graded(q, answer, seed)[2]
            d = result.diagnosis
            assert d is not None and d.found_by == "mutant", (seed, left_out, result.line())
            assert d.message == "your answer behaves as if " + words
            assert f"Likely mistake (from the slips" in result.line() or \
                mistake_heading(d).startswith("Likely mistake (from the slips")


@pytest.mark.parametrize("qid, part, words", SLIPS, ids=[s[0] for s in SLIPS])
def test_a_slip_never_changes_the_points(qid, part, words, monkeypatch):
    q, answer, _ = _mutant(qid, part)
    with_slip = _graded(q, answer)[2]
    monkeypatch.setattr("kernelcourse.grading.checking.scoring.match_mutant", lambda *a: (None, None))
    without = _graded(q, answer)[2]
    assert with_slip.diagnosis is not None and without.diagnosis is None
    assert (with_slip.points, with_slip.n_passed, with_slip.status) == \
        (without.points, without.n_passed, without.status)


def _as_answer(values, q):
    """An answer that returns ``values[i]`` on case i of seed 0 (a table)."""
    cases = q.make_cases(0)
    table = {transport.dumps([list(c.args), c.kwargs]): v for c, v in zip(cases, values)}
    return lambda *args, **kwargs: table[transport.dumps([list(args), kwargs])]


def _mutant_values(q, answer):
    out = []
    for case in q.make_cases(0):
        args, kwargs = case.copied()
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out.append(transport.roundtrip(answer(*args, **kwargs)))
    return out


def test_a_near_miss_hears_no_slip():
    """The mutant's values a little off (beyond the question's tolerance) on one fixed case."""
    q, answer, _ = _mutant("ex3.q4", "[constant] 2 -> 1")
    values = _mutant_values(q, answer)
    assert _graded(q, _as_answer(values, q))[2].diagnosis.found_by == "mutant"
    first = next(i for i, c in enumerate(q.make_cases(0)) if c.fixed)
    values[first] = np.asarray(values[first], float) * (1 + 1e-3) + 1e-3
    d = _graded(q, _as_answer(values, q))[2].diagnosis
    assert d is None or d.found_by != "mutant", d.message


def test_the_drawn_cases_must_agree_too():
    """The mutant's values on every fixed case, the right ones on the drawn cases: no slip
    (the mutant would fail some drawn case the answer passes)."""
    q, answer, _ = _mutant("ex3.q4", "[constant] 2 -> 1")
    cases = q.make_cases(0)
    values = _mutant_values(q, answer)
    mixed = [v if c.fixed else q.expected(c) for c, v in zip(cases, values)]
    assert any(not np.allclose(v, q.expected(c)) for c, v in zip(cases, values) if not c.fixed)
    d = _graded(q, _as_answer(mixed, q))[2].diagnosis
    assert d is None or d.found_by != "mutant", d.message


def test_mutants_of_different_kinds_say_nothing_more_than_they_share():
    """Three entries of different kinds, all matching: words only at a level they share."""
    mutant = lambda words: ["f", 0, "op", "x", 0, *words]  # noqa: E731
    cases = [("a `<=` stands where `<` is due", "one comparison includes", OFF_BY_ONE),
             ("a slice stops one item later than due", "a slice is one off", OFF_BY_ONE)]
    assert _level([mutant(w) for w in cases]) == ("family", OFF_BY_ONE)
    cases.append(("a sum stands where a mean is due", "one reduction is the wrong one", ""))
    assert _level([mutant(w) for w in cases]) is None
    assert _level([mutant(cases[0]), mutant(cases[0])])[0] == "change"


def _level(found):
    original = slips.matching_mutants
    slips.matching_mutants = lambda *a: (found, 0)
    try:
        d, _ = slips.match_mutant(None, [], [], [])
    finally:
        slips.matching_mutants = original
    return None if d is None else (d.key[1], d.key[2])


def test_a_passing_answer_and_a_stale_catalogue_hear_nothing():
    q = QUESTIONS["ex3.q4"]
    assert _graded(q, q.reference)[2].diagnosis is None
    _, answer, _ = _mutant("ex3.q4", "[constant] 2 -> 1")
    cases, outcomes, _ = _graded(q, answer)
    made = catalogue.load(q.id)
    records = []
    for case, out in zip(cases, outcomes):
        expected = q.expected(case)
        actual, _ = q.conform(transport.decode(out["value"]), expected)
        records.append((case, actual, expected, q.judge(actual, expected, case)[0]))
    assert slips.matching_mutants(q, cases, outcomes, records)[0]
    saved = made["reference"]
    made["reference"] = [np.asarray(v, float) + 1 for v in saved]   # made from other code
    try:
        assert slips.matching_mutants(q, cases, outcomes, records) == ([], None)
    finally:
        made["reference"] = saved


# ----------------------------------------------------------------- no wrong slip on a sample

@pytest.mark.parametrize("qid", ["ex2.q1", "ex2.q5", "ex3.q4", "ex1.q4"])
def test_no_mutant_of_a_sample_is_told_another_change(qid):
    """Every mutant of the question graded with itself and its textual twins left out of the
    catalogue: the slip named, if any, is its own change's words, or those of a change that
    makes the same program (seeds 0-2): never another mistake."""
    q = QUESTIONS[qid]
    verdicts = [judge_mutant(q, a, d, i)[0] for d, a, i in mutant_answers(q, 40, True)]
    assert "mutant wrong" not in verdicts
    assert "relation wrong" not in verdicts


def _functions_indexed_once(monkeypatch):
    """The audit's ``_function_of(code)`` (the function whose code ``code`` is: a search of the
    whole heap by ``gc.get_referrers``, once for every function a reference reaches, most of
    the catalogue check's time) answered from one index of the live functions, made once; a
    code the index lacks, or whose function has died since, goes to the real search. The same
    functions are found, so :func:`catalogue.stale` compares the same fingerprints."""
    real = engine._function_of
    index = {}
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType):
            index.setdefault(obj.__code__, weakref.ref(obj))

    def function_of(code):
        ref = index.get(code)
        function = ref() if ref is not None else None
        return function if function is not None and function.__code__ is code else real(code)

    monkeypatch.setattr(engine, "_function_of", function_of)


@pytest.mark.slow
def test_every_catalogue_is_current(monkeypatch):
    """Made from today's reference code and fixed cases (the fingerprint of both that the
    catalogue records: no mutant runs here): else rebuild it
    (``tools/mutant_catalogue.py --stale``)."""
    _functions_indexed_once(monkeypatch)
    old = [q.id for q in QUESTIONS.values() if catalogue.stale(q)]
    assert not old, f"stale catalogues: {old}; run tools/mutant_catalogue.py --stale"


def _copy_of_question(qid, tmp_path, edit=None):
    """Question ``qid`` whose reference is read from a copy of its module's file, under the
    module's own name (``edit(text)`` changes the copy first): the same code in another file,
    or changed code whose catalogue was never rebuilt."""
    q = copy.copy(QUESTIONS[qid])
    module = sys.modules[q.reference.__module__]
    text = Path(module.__file__).read_text()
    tmp_path.mkdir()
    path = tmp_path / Path(module.__file__).name
    path.write_text(edit(text) if edit else text)
    spec = importlib.util.spec_from_file_location(module.__name__, path)
    copied = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copied)
    q.reference = getattr(copied, q.reference.__name__)
    return q, copied


def test_a_reference_changed_without_its_catalogue_rebuilt_is_stale(tmp_path, monkeypatch):
    """The check above fails when a reference's code, a function it calls, or its fixed cases
    change and the catalogue is not rebuilt, and only then: the same code read from another
    file is current."""
    _functions_indexed_once(monkeypatch)
    qid, line = "ex3.q4", "K[np.ix_(pos, pos)].mean() / 2 - K[np.ix_(neg, neg)].mean() / 2"
    same, kept = _copy_of_question(qid, tmp_path / "same")
    assert same.reference is not QUESTIONS[qid].reference
    assert not catalogue.stale(same)
    assert line in Path(kept.__file__).read_text()
    changed, _ = _copy_of_question(qid, tmp_path / "changed",
                                   lambda t: t.replace(line, line.replace("/ 2 -", "/ 3 -")))
    assert catalogue.stale(changed)
    helper, _ = _copy_of_question(qid, tmp_path / "helper",
                                  lambda t: t.replace("pos, neg = y > 0, y < 0",
                                                      "pos, neg = y >= 0, y < 0"))
    assert catalogue.stale(helper)
    other_cases = copy.copy(QUESTIONS[qid])
    fixed = other_cases.fixed_cases
    other_cases.fixed_cases = lambda: fixed()[:-1]
    assert catalogue.stale(other_cases)


def test_a_count_one_short_of_the_audit_hears_the_changed_input_before_any_slip():
    """ex2.q5's ``d - 1`` for ``d``: the reference with d one smaller gives the answer's values
    on every failing case (a relation read across the cases: relations/inputs.py), said
    before the slips, and true on the cases of other seeds."""
    q, answer, _ = _mutant("ex2.q5", "cost_model.predicted_cost [n-1] d -> d - 1")
    d = _graded(q, answer)[2].diagnosis
    assert d is not None and d.found_by == "relation" and d.key == ("asif", "d", "k-1"), d
    assert d.message == ("your answer is what the expected one would be with d one smaller "
                         "(d - 1): a count off by one?")
    for seed in (1, 2):
        records = _records(q, answer, seed)
        assert any(not r[3] for r in records) and relation_holds(q, d, records)
