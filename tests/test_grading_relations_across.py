"""Relations read across the cases and the inputs (kernelcourse/grading/relations/): the answer
is the reference on one changed input (a number argument left out, a count one off, a row
left out), its error follows a term of the inputs (lam², n), or it is wrong only on a part of
the array the shape or the inputs tell. Each fires where it holds on every failing case and
never on a near miss, on too few failing numbers, or where the values cannot tell."""
import numpy as np
import pytest

from kernelcourse.grading import evaluate
from kernelcourse.grading.model.question import Case, Question
from kernelcourse.grading.relations import relate, relation_holds

RNG = np.random.default_rng(11)


def _question(reference, cases):
    return Question(id="toy.across", title="toy", function="f", points=1, reference=reference,
                    cases=cases)


def _shrunk(x, lam):
    """A toy with a number argument: x / (1 + lam) + lam x² + x³."""
    return x / (1 + lam) + lam * x ** 2 + x ** 3


def _vector_cases(rng):
    return [Case((rng.normal(size=5), float(rng.uniform(0.2, 2)))) for _ in range(3)]


def _graded(reference, cases, answer):
    return evaluate(_question(reference, cases), answer, 0, detect_shortcuts=False)


def test_a_number_argument_left_out_changed_or_squared():
    result = _graded(_shrunk, _vector_cases, lambda x, lam: x + x ** 3)
    assert result.diagnosis.key == ("asif", "lam", "0")
    assert result.diagnosis.message == ("your answer is what the expected one would be with "
                                        "lam = 0: is lam left out?")
    result = _graded(_shrunk, _vector_cases, lambda x, lam: _shrunk(x, lam * lam))
    assert result.diagnosis.key == ("asif", "lam", "x²")
    # a near miss of lam = 0: nothing said about lam
    result = _graded(_shrunk, _vector_cases, lambda x, lam: x + x ** 3 + 1e-4)
    assert result.diagnosis is None or "lam" not in result.diagnosis.message
    # the relation holds on other seeds' cases, and not on another mistake's values
    q = _question(_shrunk, _vector_cases)
    relation = _graded(_shrunk, _vector_cases, lambda x, lam: x + x ** 3).diagnosis
    cases = q.make_cases(3)
    assert relation_holds(q, relation, [(c, c.args[0] + c.args[0] ** 3, q.expected(c), False)
                                        for c in cases])
    assert not relation_holds(q, relation, [(c, 2 * c.args[0], q.expected(c), False)
                                            for c in cases])


def _head_sum(x, k):
    """A toy with a count: the sum of the first k entries (one number)."""
    return float(np.sum(x[:k]))


def test_a_count_one_off_is_read_from_one_number_only_on_enough_failing_cases():
    three = lambda rng: [Case((rng.normal(size=9), int(k))) for k in (3, 5, 6)]
    result = _graded(_head_sum, three, lambda x, k: float(np.sum(x[:k - 1])))
    assert result.diagnosis.key == ("asif", "k", "k-1")
    assert "k one smaller (k - 1): a count off by one?" in result.diagnosis.message
    result = _graded(_head_sum, three, lambda x, k: float(np.sum(x[:k + 1])))
    assert result.diagnosis.key == ("asif", "k", "k+1")
    # two failing numbers: a changed input matches two numbers by chance too often
    two = lambda rng: [Case((rng.normal(size=9), int(k))) for k in (3, 5)]
    result = _graded(_head_sum, two, lambda x, k: float(np.sum(x[:k - 1])))
    assert result.diagnosis is None or result.diagnosis.key[0] != "asif"


def test_a_row_of_an_input_left_out():
    cases = lambda rng: [Case((rng.normal(size=(n, 3)),)) for n in (4, 6)]
    column_sums = lambda X: X.sum(axis=0)
    result = _graded(column_sums, cases, lambda X: X[:-1].sum(axis=0))
    assert result.diagnosis.key == ("asif", "X", "no last row")
    assert "with the last row of X left out" in result.diagnosis.message
    result = _graded(column_sums, cases, lambda X: X[1:].sum(axis=0))
    assert result.diagnosis.key == ("asif", "X", "no first row")


def _rows_plus_lam(X, lam):
    return X.sum(axis=1) + lam


def _records(f, lams=(0.3, 0.9, 1.7), rows=(4, 6, 5)):
    out = []
    for lam, n in zip(lams, rows):
        X = RNG.normal(size=(n, 3))
        case = Case((X, lam))
        expected = _rows_plus_lam(X, lam)
        out.append((case, f(expected, lam, n), expected, False))
    return out


@pytest.mark.parametrize("f, key, words", [
    (lambda e, lam, n: e + 0.5 * lam ** 2, ("toffset", "x²", 0.5),
     "every value is 0.5·lam² more than the expected one: a term that grows with lam²"),
    (lambda e, lam, n: e - 3 * lam, ("toffset", "x", -3.0), "3·lam less than the expected"),
    (lambda e, lam, n: e + 0.25 * n, ("toffset", "n", 0.25),
     "0.25·n more than the expected one, with n the number of rows of X"),
    (lambda e, lam, n: 3 * lam * e, ("tfactor", "x", 3.0),
     "every value is the expected one times 3·lam"),
])
def test_an_error_that_grows_with_a_term_of_the_inputs(f, key, words):
    relation, _ = relate(_question(_rows_plus_lam, lambda rng: []), _records(f))
    assert relation is not None and relation.key[:3] == key, relation
    assert words in relation.message, relation.message


@pytest.mark.parametrize("f", [
    lambda e, lam, n: e + 0.5 * lam ** 2 + (1e-3 if lam > 1.5 else 0.0),   # near miss
    lambda e, lam, n: e + 0.5 * lam ** 2 * (1 if lam < 1 else -1),         # another sign
])
def test_no_term_where_it_misses_one_failing_case(f):
    relation, _ = relate(_question(_rows_plus_lam, lambda rng: []), _records(f))
    assert relation is None or relation.key[0] not in ("toffset", "tfactor"), relation


def test_one_term_needs_it_to_change_over_the_failing_cases():
    # the same lam on every case: a constant offset, said as a number, not as lam
    relation, _ = relate(_question(_rows_plus_lam, lambda rng: []),
                         _records(lambda e, lam, n: e + 0.5 * lam ** 2, lams=(0.7,) * 3))
    assert relation is None or relation.key[0] != "toffset"


def _records_only(f, shape=(4, 5)):
    out = []
    for _ in range(2):
        X = RNG.normal(size=shape)
        case = Case((X, 0.3))
        expected = RNG.normal(size=shape)
        out.append((case, f(expected, X), expected, False))
    return out


@pytest.mark.parametrize("f, words", [
    (lambda e, X: np.vstack([e[:-1], 2 * e[-1:]]), "right except the last row"),
    (lambda e, X: np.hstack([e[:, :1] + 1.5, e[:, 1:]]), "right except the first column"),
    (lambda e, X: np.where(X < 0, 0.0, e), "right except where X is negative"),
])
def test_wrong_only_on_a_part_the_shape_or_the_inputs_tell(f, words):
    question = _question(lambda X, lam: X, lambda rng: [])
    relation, _ = relate(question, _records_only(f))
    assert relation is not None and words in relation.message, relation
    # on one case only: nothing about that part
    records = _records_only(f)
    records[1] = (records[1][0], records[1][2] + 0.123, records[1][2], False)
    relation, _ = relate(question, records)
    assert relation is None or words not in relation.message


def test_a_term_needs_three_values_over_the_failing_cases():
    # factors 2 and 3 on n = 4 and 6 rows are 0.5·(n - 1) by chance: two cases tell no term
    relation, _ = relate(_question(_rows_plus_lam, lambda rng: []),
                         _records(lambda e, lam, n: (2 if n == 5 else 3) * e, lams=(0.3, 0.9),
                                  rows=(5, 7)))
    assert relation is None or relation.key[0] != "tfactor", relation


def test_zeros_are_said_as_zeros_even_where_a_changed_input_gives_them_too():
    # lam x² is 0 with lam = 0: an answer of zeros hears "every value is 0", not the changed
    # input that gives zeros as well (which alone would be a rival and silence both)
    scaled = lambda x, lam: lam * x ** 2
    result = _graded(scaled, _vector_cases, lambda x, lam: 0.0 * x)
    assert result.diagnosis.key == ("zero",), result.diagnosis


def test_a_changed_input_found_on_three_failing_numbers_is_checked_again_on_fewer():
    three = lambda rng: [Case((rng.normal(size=9), int(k))) for k in (3, 5, 6)]
    q = _question(_head_sum, three)
    answer = lambda x, k: float(np.sum(x[:k - 1]))
    relation = _graded(_head_sum, three, answer).diagnosis
    assert relation.key == ("asif", "k", "k-1")
    # one failing number on another case: the relation still holds there (checked, not found)
    x = RNG.normal(size=9)
    case = Case((x, 4))
    assert relation_holds(q, relation, [(case, answer(x, 4), _head_sum(x, 4), False)])
    assert not relation_holds(q, relation, [(case, answer(x, 4) + 0.5, _head_sum(x, 4), False)])
