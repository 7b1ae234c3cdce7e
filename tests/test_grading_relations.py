"""Diagnoses by relation (kernelcourse/grading/relations/): each relation fires where it
holds on every failing case and never where it does not: a near miss (a value close to the
relation but off by more than the question's tolerance), a relation that holds on one failing
case but not on another, two relations the values cannot tell apart, a passing answer."""
import numpy as np
import pytest

from kernelcourse.grading import evaluate
from kernelcourse.grading.model.question import Case, Diagnosis, Question
from kernelcourse.grading.relations import Relation, relate, relation_holds

RNG = np.random.default_rng(7)


def _reference(X, lam):
    """A toy: the row sums of X plus lam (only the parameter names matter here)."""
    return X.sum(axis=1) + lam


def _question(**kwargs):
    return Question(id="toy.rel", title="toy", function="f", points=1, reference=_reference,
                    cases=lambda rng: [], **kwargs)


def _records(pairs, n_rows=(5, 7), lam=0.3):
    """Failing records for ``[(actual, expected), ...]``, case i with an X of n_rows[i] rows."""
    out = []
    for i, (actual, expected) in enumerate(pairs):
        X = RNG.normal(size=(n_rows[i % len(n_rows)], 3))
        out.append((Case((X, lam)), actual, expected, False))
    return out


def _named(pairs, **kwargs):
    relation, where = relate(_question(), _records(pairs, **kwargs))
    return None if relation is None else relation.message


def _two(f, shape=(5,), g=None):
    """Two failing cases whose answers are f(expected) (the second g(expected) when given)."""
    e1, e2 = RNG.normal(size=shape) + 0.5, RNG.normal(size=shape) + 0.5
    return [(f(e1), e1), ((g or f)(e2), e2)]


# ------------------------------------------------------------------------ each relation

@pytest.mark.parametrize("f, words", [
    (lambda e: 2 * e, "twice the expected"),
    (lambda e: e / 2, "half the expected"),
    (lambda e: -e, "opposite sign"),
    (lambda e: e + 1, "one more than"),
    (lambda e: e - 1, "one less than"),
    (lambda e: e * e, "the square of"),
    (lambda e: np.exp(e), "the exponential of"),
    (lambda e: e[::-1], "reversed order"),
    (lambda e: np.roll(e, 1), "one place later"),
    (lambda e: np.sort(e), "sorted in increasing order"),
    (lambda e: 1.37 * e, "1.37 times the expected one"),
    (lambda e: e + 0.42, "0.42 more than the expected one"),
    (lambda e: e + 0.3, "lam more than the expected one"),
    (lambda e: e / 0.3, "1/lam times"),
    (lambda e: np.sum(e), "one number (the sum of the expected values)"),
    (lambda e: e[1:], "the first expected value is missing"),
    (lambda e: np.where(np.arange(e.size) == 0, 9.0, e), "right except the first entry"),
])
def test_each_relation_fires_where_it_holds_on_every_failing_case(f, words):
    message = _named(_two(f))
    assert message is not None and words in message, message


@pytest.mark.parametrize("f, near, words", [
    # near twice, off by far more than rtol=1e-7: a factor, but not 2
    (lambda e: 2 * e * (1 + 1e-4), "twice", "2.0002 times"),
    (lambda e: e + 1 + 1e-5, "one more", "1.00001 more"),
    (lambda e: e * e + 1e-4, "square", None),
    (lambda e: np.sum(e) + 1e-3, "(the sum", "one number where an array"),
    (lambda e: e[::-1] * (1 + 1e-5), "reversed", None),
    (lambda e: np.sort(e) + 1e-5 * np.arange(5), "sorted", None),
])
def test_a_near_miss_is_not_named_as_the_relation_it_misses(f, near, words):
    message = _named(_two(f))
    assert (message is None) if words is None else (words in message), message
    assert message is None or near not in message


@pytest.mark.parametrize("f, g", [
    (lambda e: 2 * e, lambda e: e + 0.5),        # twice on one case, half more on the other
    (lambda e: e + 1, lambda e: e * e),          # one more, then squared
    (lambda e: e[::-1], lambda e: -e),           # reversed, then the sign
    (lambda e: 1.37 * e, lambda e: np.sqrt(np.abs(e))),
    (lambda e: np.sum(e), lambda e: np.mean(e)),  # the sum, then the mean
])
def test_a_relation_on_one_failing_case_only_names_nothing(f, g):
    assert _named(_two(f, g=g)) is None


def test_a_factor_per_case_is_named_as_one_only_on_arrays():
    message = _named(_two(lambda e: 2 * e, g=lambda e: 3 * e))
    assert "changes from case to case (2, 3)" in message
    assert _named([(2 * 1.5, 1.5), (3 * 0.7, 0.7)]) is None   # any two numbers


def test_a_fitted_factor_or_offset_needs_more_entries_than_it_has_parameters():
    # one failing number is 1.37 times the expected one: any factor fits one number
    assert _named([(np.float64(1.37 * 2.5), np.float64(2.5))]) is None
    # the same factor on two failing numbers is a fact
    assert "1.37 times" in _named([(1.37 * 2.5, 2.5), (1.37 * -0.7, -0.7)])


def test_a_named_constant_holds_even_on_one_number():
    assert "twice" in _named([(5.0, 2.5)])


def test_two_relations_the_values_cannot_tell_apart_name_nothing():
    # 4 where 2 is expected: twice, the square and 2 more alike
    assert _named([(4.0, 2.0)]) is None


@pytest.mark.parametrize("form, factor", [("n/(n-1)", lambda n: n / (n - 1)),
                                          ("(n-1)/n", lambda n: (n - 1) / n),
                                          ("1/n", lambda n: 1 / n)])
def test_a_factor_read_from_the_inputs(form, factor):
    e1, e2 = RNG.normal(size=4), RNG.normal(size=4)
    message = _named([(factor(5) * e1, e1), (factor(7) * e2, e2)], n_rows=(5, 7))
    assert message is not None and form in message and "rows of X" in message, message
    # the factor of one n on both cases is a constant, not that n's form
    assert _named([(factor(5) * e1, e1), (factor(5) * e2, e2)], n_rows=(5, 7)) != message


def test_a_factor_in_the_exponent_of_a_kernel():
    e1, e2 = np.exp(-RNG.uniform(0.1, 2, size=4)), np.exp(-RNG.uniform(0.1, 2, size=4))
    assert "to the power 1/lam²" in _named([(e1 ** (1 / 0.09), e1), (e2 ** (1 / 0.09), e2)])
    assert _named([(e1 ** (1 / 0.09), e1), (e2 ** (1 / 0.08), e2)]) is None


def test_an_input_array_added_or_taken_away():
    X1, X2 = RNG.normal(size=4), RNG.normal(size=4)
    e1, e2 = RNG.normal(size=4), RNG.normal(size=4)
    records = [(Case((X1, 0.3)), e1 - 2 * X1, e1, False), (Case((X2, 0.3)), e2 - 2 * X2, e2, False)]
    relation, _ = relate(_question(), records)
    assert relation.message.startswith("every value is the expected one plus -2 times the "
                                       "input X, entry by entry"), relation.message
    records[1] = (Case((X2, 0.3)), e2 + 0.5 * X2, e2, False)   # another multiple on case 2
    assert "(the multiple changes from case to case: -2, 0.5)" in \
        relate(_question(), records)[0].message
    records[1] = (Case((X2, 0.3)), e2 - 2 * X2 + 1e-4, e2, False)   # a near miss on case 2
    assert relate(_question(), records)[0] is None


def test_transpose_and_wrong_shape():
    e = RNG.normal(size=(3, 4))
    assert "transpose" in _named([(e.T, e)])
    square = RNG.normal(size=(4, 4))
    assert "transpose" in _named([(square.T, square)])
    # the columns of X (3) where the rows (5) are asked
    message = _named([(np.zeros(3), np.ones(5))], n_rows=(5,))
    assert message is not None and "the number of columns of X" in message, message
    # an array where a number is asked, whose mean is that number
    x = RNG.normal(size=6)
    assert "whose mean is the expected value" in _named([(x, np.float64(x.mean()))])


def test_nan_where_the_expected_values_are_finite():
    e = np.array([0.0, 1.0, 2.0])
    message = _named([(np.array([np.nan, 1.0, 2.0]), e)])
    assert "NaN" in message and "division by zero" in message
    # NaN on one failing case, a plain wrong number on the other: nothing
    assert _named([(np.array([np.nan, 1.0, 2.0]), e), (e + 0.1234 * np.arange(3), e)]) is None


def test_items_of_a_tuple():
    message = _named([((2 * 1.5, 4.0), (1.5, 4.0)), ((2 * -0.5, 1.0), (-0.5, 1.0))])
    assert message == "in the first item: every value is twice the expected one"
    assert "swapped" in _named([((4.0, 1.5), (1.5, 4.0)), ((1.0, -0.5), (-0.5, 1.0))])


def test_relation_holds_checks_the_same_relation_on_other_cases():
    question = _question()
    relation, _ = relate(question, _records(_two(lambda e: 2 * e)))
    assert isinstance(relation, Relation) and relation.found_by == "relation"
    assert relation_holds(question, relation, _records(_two(lambda e: 2 * e)))
    assert not relation_holds(question, relation, _records(_two(lambda e: 3 * e)))


# --------------------------------------------------------------- through the grader's score

def _graded_question(diagnoses=()):
    def reference(x, n):
        return np.cumsum(x) / n
    cases = lambda rng: [Case((rng.normal(size=5), 4)), Case((rng.normal(size=6), 3))]
    return Question(id="toy.rel2", title="toy", function="f", points=1, reference=reference,
                    cases=cases, diagnoses=list(diagnoses))


def test_the_relation_fills_the_likely_mistake_when_no_named_diagnosis_matches():
    q = _graded_question()
    result = evaluate(q, lambda x, n: 2 * np.cumsum(x) / n, 0, detect_shortcuts=False)
    assert result.status == "failed" and result.diagnosis.found_by == "relation"
    assert ("Likely mistake (from how your values relate to the expected ones): every value "
            "is twice the expected one.") in result.line()
    # n - 1 for n: the reference with the count one smaller gives the answer's values (which
    # are n/(n-1) times the expected ones too: the changed input says more, and is named)
    result = evaluate(q, lambda x, n: np.cumsum(x) / (n - 1), 0, detect_shortcuts=False)
    assert result.diagnosis.key == ("asif", "n", "k-1")
    assert "with n one smaller (n - 1)" in result.diagnosis.message


def test_a_named_diagnosis_keeps_priority_and_a_passing_answer_hears_nothing():
    double = Diagnosis("double", "you doubled it", lambda x, n: 2 * np.cumsum(x) / n)
    q = _graded_question([double])
    result = evaluate(q, double.mistake, 0, detect_shortcuts=False)
    assert result.diagnosis is double and result.diagnosis.found_by == "name"
    assert "Likely mistake: you doubled it." in result.line()
    for seed in range(5):
        passed = evaluate(q, q.reference, seed, detect_shortcuts=False)
        assert passed.status == "passed" and passed.diagnosis is None


def test_no_relation_when_a_failing_case_raised():
    q = _graded_question()

    def answer(x, n):
        if len(x) == 6:
            raise ValueError("no")
        return 2 * np.cumsum(x) / n
    result = evaluate(q, answer, 0, detect_shortcuts=False)
    assert result.status == "failed" and result.diagnosis is None


def test_no_relation_for_a_question_graded_by_properties_only():
    q = _graded_question()
    q.compare_reference = False
    result = evaluate(q, lambda x, n: 2 * np.cumsum(x) / n, 0, detect_shortcuts=False)
    assert result.diagnosis is None


def test_zeros_and_the_same_answer_whatever_the_inputs():
    assert _named(_two(lambda e: np.zeros_like(e))) == "every value is 0"
    message = _named(_two(lambda e: np.ones_like(e)))
    assert message is not None and "the same, [1., 1., 1., 1., 1.], on every failing case" in \
        message, message
    # the same answer on one failing case only: nothing
    assert _named([(np.ones(5), RNG.normal(size=5))]) is None


TWICE = """import numpy as np

def all_subsets_predict(X_train, alpha, X_test):
    K = np.prod(1 + X_test[:, None, :] * X_train[None, :, :], axis=2)
    return 2 * K @ alpha
"""


@pytest.mark.slow
def test_check_and_the_grading_command_say_the_same_relation(tmp_path):
    """One scoring core: the sealed grader's feedback record carries the relation check()
    prints, marked as found by relation."""
    import nbformat

    from kernelcourse.grading.command.grader import grade_notebook
    from kernelcourse.grading.questions import get_question

    space: dict = {}
    exec(TWICE, space)  # noqa: S102 - the test's own answer
    checked = evaluate(get_question("ex1.q3"), space["all_subsets_predict"], 7,
                       detect_shortcuts=False)
    assert checked.diagnosis.message == "every value is twice the expected one"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("# ANSWER ex1.q3\n" + TWICE)]
    nbformat.write(nb, tmp_path / "twice.ipynb")
    record = grade_notebook(tmp_path / "twice.ipynb", selection=["ex1.q3"], seed=7,
                            sandbox=None).feedback["ex1.q3"]
    assert record["diagnosis_message"] == "every value is twice the expected one"
    assert record["diagnosis_found_by"] == "relation" and record["diagnosis"] == "relation: factor"


def test_rows_and_columns_off_by_amounts_or_factors_of_their_own():
    E1, E2 = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5))
    r1, r2 = RNG.normal(size=(4, 1)), RNG.normal(size=(4, 1))
    c1, c2 = RNG.normal(size=(1, 5)), RNG.normal(size=(1, 5))
    assert _named([(E1 + r1, E1), (E2 + r2, E2)]).startswith("each row is off")
    assert "a centering term" in _named([(E1 + r1 + c1, E1), (E2 + r2 + c2, E2)])
    assert _named([(E1 * c1, E1), (E2 * c2, E2)]).startswith("each column is the expected")
    S1 = E1[:, :4] @ E1[:, :4].T + 4 * np.eye(4)
    d = np.abs(RNG.normal(size=4)) + 0.5
    assert "d_i d_j" in _named([(np.outer(d, d) * S1, S1)])
    # rows shifted on one case, columns on the other: nothing
    assert _named([(E1 + r1, E1), (E2 + c2, E2)]) is None
    # a near miss: rows shifted but one entry off by 1e-4
    near = E1 + r1
    near[0, 0] += 1e-4
    assert _named([(near, E1), (E2 + r2, E2)]) is None


def test_odd_values_name_nothing_and_never_crash():
    assert _named([(np.float64(1.0), np.zeros(0))]) is None        # one number for an empty array
    assert _named([([1.0, [2.0]], [1.0, [3.0]])]) is None           # ragged


# ------------------------------------------------- slices, exponents, clipping, the inputs

def test_rows_or_columns_left_out_or_added():
    M1, M2 = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 5))
    message = _named([(M1[:, :3], M1), (M2[:, :4], M2)])
    assert message.startswith("the right columns in the right order, but the last 1 column "
                              "of the expected ones is missing (shape (3, 3) where (3, 4)"), message
    assert "1 row of the expected ones is missing" in _named([(M1[[0, 2]], M1), (M2[[0, 2]], M2)])
    assert "with 1 column too many at the end" in \
        _named([(np.hstack([M1, M1[:, :1]]), M1), (np.hstack([M2, M2[:, :1]]), M2)])
    # a column left out and an entry changed: nothing
    near = M1[:, :3].copy()
    near[1, 1] += 1e-4
    assert _named([(near, M1), (M2[:, :4], M2)]) is None
    # the last column left out on one case, the first on the other: nothing
    assert _named([(M1[:, :3], M1), (M2[:, 1:], M2)]) is None


def test_a_constant_exponent_changed():
    e1, e2 = np.array([2.0, 4.0, 8.0]), np.array([16.0, 32.0, 64.0])
    message = _named([(3 ** np.log2(e1), e1), (3 ** np.log2(e2), e2)])
    assert message == ("every value is the expected one to the power 1.585, on every failing "
                       "case (3^x where 2^x is due: 3^x = (2^x)^1.585)"), message
    p1, p2 = RNG.uniform(0.1, 3, size=4), RNG.uniform(0.1, 3, size=4)
    assert "to the power 1.3, on every failing case: an exponent changed" in \
        _named([(p1 ** 1.3, p1), (p2 ** 1.3, p2)])
    # another exponent on each case, or one failing number: nothing
    assert _named([(p1 ** 1.3, p1), (p2 ** 1.4, p2)]) is None
    assert _named([(np.float64(2.5 ** 1.3), np.float64(2.5))]) is None
    # a near miss
    assert _named([(p1 ** 1.3 * (1 + 1e-5), p1), (p2 ** 1.3, p2)]) is None


def test_values_cut_off_at_zero():
    e1, e2 = np.array([-1.0, 2.0, 3.0, -4.0]), np.array([1.0, -2.0, -0.5, 4.0])
    assert "the negative values cut off at 0" in \
        _named([(np.maximum(e1, 0), e1), (np.maximum(e2, 0), e2)])
    changed = np.maximum(e2, 0)
    changed[0] = 1.5          # cut off, and a positive value changed too
    assert _named([(np.maximum(e1, 0), e1), (changed, e2)]) is None


def test_the_input_itself():
    X1, X2 = RNG.normal(size=(5, 3)), RNG.normal(size=(7, 3))
    records = [(Case((X1, 0.3)), X1.copy(), X1.sum(1) + 0.3, False),
               (Case((X2, 0.3)), X2.copy(), X2.sum(1) + 0.3, False)]
    assert relate(_question(), records)[0].message == "your answer is the input X itself, unchanged"
    records[1] = (Case((X2, 0.3)), X2 + 1e-4, X2.sum(1) + 0.3, False)
    assert relate(_question(), records)[0] is None


def _product_question():
    def reference(K, y):
        return K @ y - 2 * y
    cases = lambda rng: [Case((rng.normal(size=(n, n)), rng.normal(size=n))) for n in (4, 5)]
    return Question(id="toy.rel3", title="toy", function="f", points=1, reference=reference,
                    cases=cases)


def test_the_expected_value_of_changed_inputs():
    q = _product_question()
    result = evaluate(q, lambda K, y: K.T @ y - 2 * y, 0, detect_shortcuts=False)
    assert result.diagnosis.message == ("your answer is what the expected one would be with K "
                                        "transposed: K is used as K.T (rows for columns)")
    assert relation_holds(q, result.diagnosis, [(c, c.args[0].T @ c.args[1] - 2 * c.args[1],
                                                 q.expected(c), False) for c in q.make_cases(3)])

    def swapped(a, b):
        return a - 2 * b
    q2 = Question(id="toy.rel4", title="toy", function="f", points=1, reference=swapped,
                  cases=lambda rng: [Case((rng.normal(size=4), rng.normal(size=4)))
                                     for _ in range(2)])
    result = evaluate(q2, lambda a, b: b - 2 * a, 0, detect_shortcuts=False)
    assert "with the inputs a and b swapped" in result.diagnosis.message
    # a near miss, and a symmetric K (its transpose is itself): no changed-input relation
    result = evaluate(q2, lambda a, b: b - 2 * a + 1e-4, 0, detect_shortcuts=False)
    assert result.diagnosis is None or "swapped" not in result.diagnosis.message
    result = evaluate(q, lambda K, y: K @ y - 3 * y, 0, detect_shortcuts=False)
    assert result.diagnosis is None or "transposed" not in result.diagnosis.message


def test_a_shape_named_by_inputs_whose_lengths_agree_on_every_case():
    def reference(X_train, alpha, X_test):
        return (X_test @ X_train.T) @ alpha
    cases = lambda rng: [Case((rng.normal(size=(3, 2)), rng.normal(size=3),
                               rng.normal(size=(2, 2)))),
                         Case((rng.normal(size=(5, 3)), rng.normal(size=5),
                               rng.normal(size=(4, 3))))]
    q = Question(id="toy.rel5", title="toy", function="f", points=1, reference=reference,
                 cases=cases)
    result = evaluate(q, lambda X_train, alpha, X_test: (X_test @ X_train.T) * alpha, 0,
                      detect_shortcuts=False)
    # on the first case 2 is both X_test's rows and the columns of X_train; only the rows of
    # X_test are 4 on the second too
    assert result.diagnosis.message == (
        "shape (2, 3) (the number of rows of X_test by the length of alpha or the number of "
        "rows of X_train) where (2,) is asked: an axis of the inputs mixed up?"), \
        result.diagnosis.message


# ------------------------------------------------------------- what a raised error says

from kernelcourse.grading.relations.raised import explain_error  # noqa: E402


@pytest.mark.parametrize("kind, message, tag, words", [
    ("ValueError", "operands could not be broadcast together with shapes (5,5) (5,6)",
     "off by one", "their lengths differ by one (5 against 6: 5 is the number of columns of "
     "W)"),
    ("ValueError", "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
     "signature (n?,k),(k,m?)->(n?,m?) (size 3 is different from 5)", "order",
     "here they are 3 and 5 (3 is the length of y or the number of rows of Z, 5 the number of "
     "columns of W): a transpose missing, or the arguments or factors in the wrong order?"),
    ("ValueError", "shapes (3,2) and (3,2) not aligned: 5 (dim 1) != 3 (dim 0)", "order",
     "here they are 5 and 3"),
    ("ValueError", "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
     "signature (n?,k),(k,m?)->(n?,m?) (size 6 is different from 5)", "off by one",
     "a matrix product whose inner sizes differ by one (5 against 6: 5 is the number of "
     "columns of W)"),
    ("IndexError", "index 3 is out of bounds for axis 0 with size 3", "off by one",
     "indices run from 0 to 2"),
    ("AxisError", "axis 2 is out of bounds for array of dimension 2", "axis",
     "an axis that the array does not have"),
    ("TypeError", "'float' object cannot be interpreted as an integer", "float",
     "a / where // is meant"),
    ("ValueError", "K must be a square (n, n) Gram matrix; got shape (3,)", "order",
     "K received an array of shape (3,), the shape of the input y"),
])
def test_an_error_whose_message_the_inputs_explain(kind, message, tag, words):
    lengths = {"the number of rows of Z": 3, "the number of columns of Z": 2,
               "the number of rows of X": 2, "the length of y": 3, "the number of rows of W": 4,
               "the number of columns of W": 5}
    key, said = explain_error(kind, message, lengths,
                              {"Z": (3, 2), "X": (2, 2), "y": (3,), "K": (3, 3)})
    assert key[1] == tag and words in said, said


@pytest.mark.parametrize("kind, message", [
    ("ValueError", "y must hold both labels -1 and +1; got only [1.0]"),   # raised on purpose
    ("ValueError", "operands could not be broadcast together with shapes (2,5) (2,3)"),
    ("IndexError", "index 7 is out of bounds for axis 0 with size 3"),    # not one past the end
    ("ValueError", "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
     "signature (n?,k),(k,m?)->(n?,m?) (size 7 is different from 9)"),  # sizes of no input
    ("ValueError", "K must be a square (n, n) Gram matrix; got shape (6,)"),
    # lengths that differ by one and are both an input's: one short, or the other input?
    ("ValueError", "operands could not be broadcast together with shapes (2,2) (2,3)"),
    # an input of y's shape said to be wrong in its own shape: not another input's
    ("ValueError", "alpha must have the length of K's rows; got shape (3,)"),
    ("IndexError", "index 0 is out of bounds for axis 0 with size 0"),      # an empty array
    ("ZeroDivisionError", "float division by zero"),                         # says no more
    ("IndexError", "tuple index out of range"),     # another axis, or an argument of another shape
])
def test_an_error_that_names_nothing_the_inputs_explain_gets_no_words(kind, message):
    lengths = {"the number of rows of Z": 3, "the number of columns of Z": 2,
               "the length of y": 3}
    assert explain_error(kind, message, lengths,
                         {"Z": (3, 2), "y": (3,), "alpha": (3,), "K": (2, 2)}) is None


def test_the_grader_reads_the_mistake_from_the_error_only_when_every_failing_case_raised_it():
    q = _product_question()
    result = evaluate(q, lambda K, y: K @ y - 2 * y[:-1], 0, detect_shortcuts=False)
    assert result.diagnosis.found_by == "raised" and result.diagnosis.key[1] == "off by one"
    assert ("Likely mistake (from the error your function raised): your function raised "
            "ValueError: arrays of shapes (4,) and (3,) are combined entry by entry, and their "
            "lengths differ by one (3 against 4: 4 is the length of y or the number of columns "
            "of K)") in result.line(limit=None)

    def sometimes(K, y):
        if len(y) == 4:
            return K @ y
        return K @ y - 2 * y[:-1]
    assert evaluate(q, sometimes, 0, detect_shortcuts=False).diagnosis is None

    def raises_on_purpose(K, y):
        raise ValueError("K must be positive definite")
    assert evaluate(q, raises_on_purpose, 0, detect_shortcuts=False).diagnosis is None
