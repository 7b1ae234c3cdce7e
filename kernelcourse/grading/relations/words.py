"""The plain words of the relations :mod:`~kernelcourse.grading.relations` finds between an
answer's values and the expected ones: "every value is twice the expected one"."""
from __future__ import annotations

from ..model.compare import format_value
import numpy as np

__all__ = ["message_of", "ordinal", "POWER_WORDS"]

POWER_WORDS = {"square": "the square of the expected one",
               "sqrt": "the square root of the expected one",
               "abs": "the absolute value of the expected one (the sign dropped)",
               "reciprocal": "one over the expected one",
               "exp": "the exponential of the expected one",
               "log": "the logarithm of the expected one"}
_ORDINAL = ["first", "second", "third", "fourth", "fifth", "sixth"]


def _round(x: float) -> float:
    return float(f"{x:.4g}")


def base_ratio(c: float):
    """``(a, b)``, small whole numbers with ``b ** x == (a ** x) ** c`` (``c = log b / log a``),
    when an exponent ``c`` is one: ``3 ** d`` where ``2 ** d`` is expected; else None."""
    for a in range(2, 11):
        for b in range(2, 11):
            if a != b and abs(c - np.log(b) / np.log(a)) < 1e-12 * max(abs(c), 1):
                return a, b
    return None


def ordinal(path) -> str:
    """``(0,)`` as "the first item", ``(1, 0)`` as "the first item of the second item"."""
    return " of ".join(f"the {_ORDINAL[i] if i < len(_ORDINAL) else f'item {i + 1}'} item"
                       for i in path[::-1])


def _term_words(form: str, label: str) -> tuple:
    """A term of :func:`~kernelcourse.grading.relations.fitted._fitted_terms` in words:
    ``(term, note, what it grows with)``."""
    if form in ("n", "n²", "1/n", "n-1"):
        term = {"n": "n", "n²": "n²", "1/n": "(1/n)", "n-1": "(n - 1)"}[form]
        return term, f", with n {label}", "n" if form != "1/n" else "1/n"
    term = {"x": label, "x²": f"{label}²", "1/x": f"(1/{label})", "√x": f"√{label}"}[form]
    return term, "", term


def _asif_words(name: str, form: str) -> str:
    """How one input was changed (:mod:`.inputs`), in words that end the sentence."""
    number = {"0": f"with {name} = 0: is {name} left out?",
              "1": f"with {name} = 1: is {name} left out?",
              "2x": f"with {name} doubled (2·{name} in its place)",
              "x/2": f"with {name} halved ({name}/2 in its place)",
              "x²": f"with {name} squared ({name}² in its place)",
              "√x": f"with the square root of {name} in its place",
              "-x": f"with {name} of the other sign (-{name})",
              "k+1": f"with {name} one larger ({name} + 1): a count off by one?",
              "k-1": f"with {name} one smaller ({name} - 1): a count off by one?"}
    if form in number:
        return number[form]
    what = form.replace("no ", "")
    return f"with the {what} of {name} left out: a slice or a range that skips it?"


def message_of(key: tuple, detail) -> str:
    """The plain words of relation ``key`` (its kind first), ``detail`` what the first failing
    case adds (a length, the factors per case...)."""
    kind = key[0]
    if kind == "nonfinite":
        what, where, want = detail
        place = f"at index {where}" if where != () else ""
        return (f"your values hold {what} where the expected ones are finite (first {place}, "
                f"where {want:.6g} is expected" +
                ("; it appears only where 0 is expected: a division by zero?)" if key[1]
                 else ")")).replace("first , ", "first ")
    if kind == "zero":
        return "every value is 0"
    if kind == "same":
        return (f"your answer is the same, {format_value(detail, limit=60)}, on every failing "
                f"case, whatever the inputs")
    if kind == "factor":
        word = key[1]
        if word == "minus":
            return "every value has the opposite sign of the expected one"
        return f"every value is {word} the expected one"
    if kind == "nfactor":
        return (f"every value is {key[1]} times the expected one, with n {key[2]} "
                f"(n = {detail} on the first failing case)")
    if kind == "xfactor":
        return f"every value is {key[1].replace('x', key[2])} times the expected one"
    if kind == "epower":
        return (f"every value is the expected one to the power {key[1].replace('x', key[2])} "
                f"(in a kernel exp(-a), a factor {key[1].replace('x', key[2])} in a)")
    if kind == "xoffset":
        return (f"every value is {key[2]} {'more' if key[1] > 0 else 'less'} than the "
                f"expected one")
    if kind == "aoffset":
        same = len({_round(c) for c in detail}) == 1
        times = (f"{detail[0]:.4g} times" if same else "a multiple of") + f" the input {key[1]}"
        return (f"every value is the expected one plus {times}, entry by entry" +
                ("" if same else f" (the multiple changes from case to case: "
                                 f"{', '.join(f'{c:.4g}' for c in detail[:3])})") +
                ": a term too many or missing?")
    if kind == "offset":
        return f"every value is one {'more' if key[1] > 0 else 'less'} than the expected one"
    if kind == "cfactor":
        return f"every value is {key[1]!r} times the expected one, on every failing case"
    if kind == "coffset":
        return (f"every value is {abs(key[1])!r} {'more' if key[1] > 0 else 'less'} than the "
                f"expected one, on every failing case")
    if kind in ("scaled", "shifted"):
        values = ", ".join(f"{v:.4g}" for v in detail[:3]) + (", ..." if len(detail) > 3 else "")
        return (f"on each failing case every value is the expected one times a number that "
                f"changes from case to case ({values}): a scale factor missing or extra"
                if kind == "scaled" else
                f"on each failing case every value is off from the expected one by the same "
                f"amount, which changes from case to case ({values}): a constant term missing "
                f"or extra")
    if kind == "power":
        return "every value is " + POWER_WORDS[key[1]]
    if kind == "transpose":
        return "your matrix is the transpose of the expected one"
    if kind == "order":
        return {"reversed": "the right values in reversed order",
                "columns reversed": "the right values with the columns in reversed order",
                "one later": "the values are shifted by one: each sits one place later than "
                             "expected",
                "one earlier": "the values are shifted by one: each sits one place earlier "
                               "than expected",
                "sorted up": "the right values, sorted in increasing order (not in the order "
                             "asked)",
                "sorted down": "the right values, sorted in decreasing order (not in the "
                               "order asked)",
                "permuted": "the right values in another order",
                "rows permuted": "the right rows in another order",
                "columns permuted": "the right columns in another order"}[key[1]]
    if kind == "matrix":
        return {"rows shifted": "each row is off from the expected one by an amount of its own",
                "columns shifted": "each column is off from the expected one by an amount of "
                                   "its own",
                "both shifted": "every entry is off from the expected one by an amount of its "
                                "row plus one of its column (a centering term missing or extra?)",
                "rows scaled": "each row is the expected one times a factor of its own",
                "columns scaled": "each column is the expected one times a factor of its own",
                "both scaled": "every entry (i, j) is the expected one times d_i d_j, a factor "
                               "of its row times the same of its column (a normalisation by "
                               "the diagonal missing or wrong?)"}[key[1]]
    if kind == "swapped":
        return "the right items in another order (items of the result swapped)"
    if kind == "only":
        return f"every value is right except {key[1]}"
    if kind == "scalar":
        what = f" (the {key[1]} of the expected values)" if key[1] else ""
        return f"one number{what} where an array of shape {detail} is asked"
    if kind == "array":
        what = f" whose {key[1]} is the expected value" if key[1] else ""
        return f"an array of shape {detail}{what} where one number is asked"
    if kind == "short":
        return f"the right values but one short: the {key[1]} expected value is missing"
    if kind == "extra":
        end = "start" if key[1] == "first" else "end"
        return f"the right values with one too many at the {end}"
    if kind == "reshape":
        return f"the right values in shape {detail}, not in the shape asked"
    if kind == "slices":
        _, how, what, where = key
        m, got, want = detail
        one = what[:-1] if what.endswith("s") else what
        some = f"{m} {one if m == 1 else what}"
        place = {"end": f"the last {some}", "start": f"the first {some}", "inside": some}[where]
        if how == "missing":
            return (f"the right {what} in the right order, but {place} of the expected ones "
                    f"{'is' if m == 1 else 'are'} missing (shape {got} where {want} is asked): "
                    f"a loop, a range or a slice that stops short?")
        return (f"every expected {one} is there, in order, but with {some} too many"
                f"{'' if where == 'inside' else ' at the ' + where} (shape {got} where {want} "
                f"is asked): a loop, a range or a slice that runs too far?")
    if kind == "cpower":
        c = key[1]
        ratio = base_ratio(c)
        why = (f" ({ratio[1]}^x where {ratio[0]}^x is due: {ratio[1]}^x = ({ratio[0]}^x)^{c:.4g})"
               if ratio else ": an exponent changed")
        return (f"every value is the expected one to the power {c:.4g}, on every failing "
                f"case{why}")
    if kind == "clip":
        return {"below": "every value is the expected one where that is positive, and 0 where "
                         "it is negative (the negative values cut off at 0)",
                "above": "every value is the expected one where that is negative, and 0 where "
                         "it is positive (the positive values cut off at 0)",
                "unit": "every value is the expected one cut off at -1 and 1"}[key[1]]
    if kind == "input":
        return f"your answer is the input {key[1]} itself, unchanged"
    if kind == "swapargs":
        return (f"your answer is what the expected one would be with the inputs {key[1]} and "
                f"{key[2]} swapped: they are used the other way round")
    if kind in ("tfactor", "toffset"):
        _, form, c, label = key
        term, note, grows = _term_words(form, label)
        if kind == "tfactor":
            return f"every value is the expected one times {c:.4g}·{term}{note}"
        how = f"{c:.4g}·{term} more" if c > 0 else f"{-c:.4g}·{term} less"
        return (f"every value is {how} than the expected one{note}: a term that grows with "
                f"{grows} missing or extra?")
    if kind == "asif":
        return f"your answer is what the expected one would be {_asif_words(key[1], key[2])}"
    if kind == "tinput":
        return (f"your answer is what the expected one would be with {key[1]} transposed: "
                f"{key[1]} is used as {key[1]}.T (rows for columns)")
    if kind == "shape":
        got, want = detail
        axes = " by ".join(" or ".join(sorted(n)) for n in key[1])
        return (f"shape {got} ({axes}) where {want} is asked: an axis of the inputs mixed "
                f"up?")
    raise ValueError(f"no words for the relation {key!r}")
