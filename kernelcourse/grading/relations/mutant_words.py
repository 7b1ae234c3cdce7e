"""The plain words of a mutant's change: what one slip in the reference (a mutant of
:mod:`kernelcourse.grading.audit`) does, said without a line of the solution: "a `<` stands
where `<=` is due in one comparison", "one term of a sum is left out", "a mean stands where a
sum is due".

:func:`change_words` reads a mutant's site (the node changed, its parent, the operator and
the replacement, as :func:`mutation_sites` lists them in :func:`~kernelcourse.grading.audit.
operators.mutations`' order) and gives ``(specific, general)``: the words of this change, and
the words of its kind (what changes of one operator share: "one comparison includes or
excludes its bound the other way"). Words hold operators, numbers, the names of the
question's own parameters and of numpy's reductions, never an expression of the solution.
"""
from __future__ import annotations

import ast

from ..audit.operators import mutation_sites as sites_of

__all__ = ["OFF_BY_ONE", "PREFIX", "change_words", "mutation_sites"]

#: how every such diagnosis begins: the answer behaves as the change makes the reference behave
PREFIX = "your answer behaves as if "

_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Pow: "**", ast.MatMult: "@", ast.Mod: "%", ast.Lt: "<", ast.LtE: "<=",
           ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is",
           ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_REDUCTION_WORDS = {"sum": "a sum", "mean": "a mean", "nansum": "a sum", "nanmean": "a mean",
                    "max": "a maximum", "min": "a minimum", "amax": "a maximum",
                    "amin": "a minimum", "argmax": "the index of the largest",
                    "argmin": "the index of the smallest",
                    "maximum": "an element-wise maximum", "minimum": "an element-wise minimum"}
_CALL_WORDS = {"sqrt": "a square root", "exp": "an exponential", "log": "a logarithm",
               "abs": "an absolute value", "square": "a square", "log1p": "a log(1 + x)",
               "expm1": "an exp(x) - 1"}
_NUMPY_REDUCTIONS = {"sum", "mean", "var", "std", "max", "min", "argmax", "argmin", "prod",
                     "cumsum", "median", "nansum", "nanmean", "amax", "amin", "any", "all",
                     "concatenate", "stack", "norm", "trace", "diff", "sort", "argsort"}
_PUBLIC_MODULES = ("np", "numpy", "linalg", "math", "scipy")


def mutation_sites(tree: ast.FunctionDef) -> list:
    """``(node, parent, field, operator, change, replacement, position)`` for every mutant
    of ``tree``, in the order :func:`~kernelcourse.grading.audit.operators.mutations` makes
    them (``position``: the node's place in its walk of the tree): the audit's own sites."""
    return [(node, parent, field, operator, change, replacement, position)
            for position, node, parent, field, operator, change, replacement in sites_of(tree)]


def _sym(op) -> str:
    return _SYMBOL.get(type(op), type(op).__name__)


def _number_text(value) -> str:
    return repr(value) if not isinstance(value, float) or value != int(value) else \
        f"{value:g}" if abs(value) < 1e15 else repr(value)


def _call_name(node) -> str | None:
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute):
            return node.func.attr
        if isinstance(node.func, ast.Name):
            return node.func.id
    return None


def _public_call(node) -> str | None:
    """The name of a numpy-like function called (``np.linalg.solve`` -> "solve"), or of a
    reduction method (``x.sum``), when naming it says nothing of the solution's own code."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute):
        base = func.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and base.id in _PUBLIC_MODULES:
            return func.attr
        if func.attr in _NUMPY_REDUCTIONS:
            return func.attr
    if isinstance(func, ast.Name) and func.id in ("len", "range", "sum", "max", "min", "abs",
                                                  "sorted", "zip", "enumerate", "round"):
        return func.id
    return None


def _parameters(tree) -> list:
    a = tree.args
    return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]


def change_words(tree: ast.FunctionDef, site, is_reference: bool) -> tuple[str, str, str]:
    """``(specific, general, coarse)`` words for the mutant made at ``site`` (an item of
    :func:`mutation_sites` of ``tree``); ``is_reference``: ``tree`` is the question's own
    function (its parameters are the student's, and may be named). Empty words: none fit.

    Changes that make the same code say the same words (a factor 2 made 1 and the factor 2
    dropped: "a factor 2 is left out"; ``n - 1`` made ``n`` by dropping the ``- 1`` or making
    it ``- 0``: "n stands where n - 1 is due"), so matching mutants of either agree. The
    coarse words name a family of kinds, where the change is one: "something is off by one
    (a count, a bound, a slice or an index)"."""
    specific, general = _words(tree, site, is_reference)
    return specific, general, (OFF_BY_ONE if specific and _off_by_one(site) else "")


#: the coarse words of every change by one (:func:`change_words`)
OFF_BY_ONE = "something is off by one: a count, a bound, a range, a slice or an index"


def _off_by_one(site) -> bool:
    node, parent, field, operator, change, new = site[:6]
    if operator in ("n-1", "ddof", "slice"):
        return True
    if operator == "comparison":
        return {_sym(node.ops[0]), _sym(new.ops[0])} in ({"<", "<="}, {">", ">="})
    if operator in ("constant", "default"):
        return isinstance(node.value, int) and isinstance(new.value, int) and \
            abs(node.value - new.value) == 1
    if operator == "dropped term":
        other = node.right if new is node.left else node.left
        return isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(other, ast.Constant) \
            and other.value == 1
    return False


def _parents(tree) -> dict:
    out = {}
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            for child in (value if isinstance(value, list) else [value]):
                if isinstance(child, ast.AST):
                    out[id(child)] = (parent, field)
    return out


def _count_minus_one(node) -> bool:
    from ..audit.operators import _count_like, _one

    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and \
        _one(node.right) and _count_like(node.left)


def _n_words(minus: bool, parent, field) -> str:
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div) and field == "right":
        return ("it divides by n - 1 where n is due" if minus else
                "it divides by n where n - 1 is due")
    return ("a count n - 1 stands where n is due (one short)" if minus else
            "a count n stands where n - 1 is due (one too many)")


def _words(tree, site, is_reference) -> tuple[str, str]:
    node, parent, field, operator, change, new = site[:6]
    if operator == "comparison":
        old_op, new_op = _sym(node.ops[0]), _sym(new.ops[0])
        if {old_op, new_op} in ({"<", "<="}, {">", ">="}):
            general = "one comparison includes or excludes its bound the other way (< and <=)"
        elif {old_op, new_op} in ({"<", ">"}, {"<=", ">="}, {">", "<="}, {">=", "<"}):
            general = "one comparison points the other way"
        else:
            general = "one test is turned round"
        return f"a `{new_op}` stands where `{old_op}` is due in one comparison", general
    if operator == "arithmetic":
        old_op, new_op = _sym(node.op), _sym(new.op)
        general = "one arithmetic operator is the wrong one"
        if old_op == "@":
            return ("an element-wise product `*` stands where a matrix product `@` is due",
                    general)
        if old_op == "**":
            return "a product `*` stands where a power `**` is due", general
        return f"a `{new_op}` stands where `{old_op}` is due in one place", general
    if operator == "boolean":
        if isinstance(node, ast.BoolOp):
            old = "and" if isinstance(node.op, ast.And) else "or"
            other = "or" if old == "and" else "and"
            return f"an `{other}` stands where `{old}` is due", "one logical test is turned round"
        if isinstance(node.op, ast.Not):
            return "a `not` is missing in one test", "one logical test is turned round"
        return "a minus sign is missing (one sign flipped)", "one sign is flipped"
    if operator in ("constant", "default"):
        old, value = node.value, new.value
        general = "one number is off"
        if operator == "constant" and isinstance(parent, ast.BinOp):
            if value == 1 and isinstance(parent.op, ast.Mult):
                return f"a factor {_number_text(old)} is left out", general
            if value == 1 and isinstance(parent.op, ast.Div) and field == "right":
                return f"a division by {_number_text(old)} is left out", general
            if value == 0 and (isinstance(parent.op, ast.Add) or (
                    isinstance(parent.op, ast.Sub) and field == "right")):
                if _count_minus_one(parent):
                    up, up_field = _parents(tree).get(id(parent), (None, None))
                    return _n_words(False, up, up_field), "a count is off by one (n and n - 1)"
                return f"a `{_sym(parent.op)} {_number_text(old)}` is left out", general
        if operator == "default":
            owner = _default_owner(tree, node)
            if owner and is_reference:
                return (f"the default of `{owner}` were {_number_text(value)} where "
                        f"{_number_text(old)} is due", general)
            return (f"a default value were {_number_text(value)} where {_number_text(old)} is "
                    f"due", general)
        if isinstance(parent, ast.Subscript) and field == "slice":
            return (f"an index {_number_text(value)} stands where {_number_text(old)} is due",
                    "one index is off")
        return (f"the number {_number_text(value)} stands where {_number_text(old)} is due in "
                f"one place", general)
    if operator == "n-1":
        minus = isinstance(new, ast.BinOp)
        general = "a count is off by one (n and n - 1)"
        return _n_words(minus, parent, field), general
    if operator == "reduction":
        old, other = _call_name(node), _call_name(new)
        return (f"{_REDUCTION_WORDS.get(other, other)} stands where "
                f"{_REDUCTION_WORDS.get(old, old)} is due", "one reduction is the wrong one")
    if operator == "dropped term":
        if _count_minus_one(node) and new is node.left:
            return _n_words(False, parent, field), "a count is off by one (n and n - 1)"
        return _dropped_term(node, new), "one term or factor is left out"
    if operator == "dropped update":
        if isinstance(node, ast.AugAssign):
            return (f"one update `{_sym(node.op)}=` is left out (a statement that changes a "
                    f"value in place)", "one statement is left out")
        return ("one statement that calls a function for its effect is left out",
                "one statement is left out")
    if operator == "dropped call":
        name = _call_name(node)
        return f"{_CALL_WORDS.get(name, 'a call')} is left out (its argument kept)", \
            "one function applied to a value is left out"
    if operator == "transpose":
        if isinstance(node, ast.Attribute):
            return "a transpose is missing", "a transpose is missing or extra"
        return "a transpose stands where none is due, in one matrix product", \
            "a transpose is missing or extra"
    if operator == "axis":
        name = _public_call(node)
        old = next(k.value for k in node.keywords if k.arg == "axis")
        value = next(k.value for k in new.keywords if k.arg == "axis")
        where = lambda v: "over every entry" if v is None else f"along axis {v}"  # noqa: E731
        old_text = where(old.value) if isinstance(old, ast.Constant) else "along another axis"
        what = f"`{name}`" if name else "one reduction"
        return (f"{what} runs {where(value.value)} where {old_text} is due",
                "one reduction runs along the wrong axis")
    if operator == "ddof":
        added = any(k.arg == "ddof" for k in new.keywords)
        return (("a variance or standard deviation divides by n - 1 (ddof=1) where n is due"
                 if added else "a variance or standard deviation divides by n where n - 1 "
                               "(ddof=1) is due"), "a count is off by one (n and n - 1)")
    if operator == "slice":
        return _slice_words(node, new), "a slice is one off"
    if operator == "swapped operands":
        op = _sym(node.op)
        words = {"-": "the two sides of one subtraction are swapped (a sign flipped)",
                 "/": "one division is turned upside down",
                 "@": "the two factors of one matrix product are swapped",
                 "**": "the base and the exponent of one power are swapped"}.get(op)
        return (words or f"the two sides of one `{op}` are swapped"), "two operands are swapped"
    if operator == "swapped arguments":
        i, j = _swapped(node, new)
        a, b = node.args[i], node.args[j]
        params = _parameters(tree) if is_reference else []
        name = _public_call(node)
        if isinstance(a, ast.Name) and isinstance(b, ast.Name) and a.id in params and \
                b.id in params:
            return (f"the arguments `{a.id}` and `{b.id}` were swapped in one call",
                    "two arguments of one call are swapped")
        return ((f"two arguments of one call to `{name}` were swapped" if name else
                 "two arguments of one call were swapped"), "two arguments of one call are "
                                                            "swapped")
    return "", ""


def _default_owner(tree, node) -> str | None:
    a = tree.args
    positional = a.posonlyargs + a.args
    for arg, default in zip(positional[len(positional) - len(a.defaults):], a.defaults):
        if default is node:
            return arg.arg
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        if default is node:
            return arg.arg
    return None


def _dropped_term(node, kept) -> str:
    op = node.op
    other = node.right if kept is node.left else node.left
    if isinstance(other, ast.Constant) and isinstance(other.value, (int, float)):
        if isinstance(op, ast.Mult):
            return f"a factor {_number_text(other.value)} is left out"
        if isinstance(op, ast.Div):
            return f"a division by {_number_text(other.value)} is left out"
        return f"a `{_sym(op)} {_number_text(other.value)}` is left out"
    if isinstance(op, ast.Add):
        return "one term of a sum is left out"
    if isinstance(op, ast.Sub):
        return "a subtracted term is left out"
    if isinstance(op, ast.Mult):
        return "one factor of a product is left out"
    return "one division is left out (its divisor dropped)"


def _slice_words(node, new) -> str:
    if ast.dump(node.lower or ast.Constant(None)) != ast.dump(new.lower or ast.Constant(None)):
        if node.lower is None:
            return "a slice leaves out its first item"
        later = _shift(node.lower, new.lower) > 0
        return f"a slice starts one item {'later' if later else 'earlier'} than due"
    if node.upper is None:
        return "a slice leaves out its last item"
    later = _shift(node.upper, new.upper) > 0
    return f"a slice stops one item {'later' if later else 'earlier'} than due"


def _shift(old, new) -> int:
    """+1 when ``new`` is ``old`` plus one, -1 when minus one."""
    def value(n):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -n.operand.value
        return None
    if value(old) is not None and value(new) is not None:
        return 1 if value(new) > value(old) else -1
    return 1 if isinstance(new, ast.BinOp) and isinstance(new.op, ast.Add) else -1


def _swapped(node, new) -> tuple[int, int]:
    differ = [k for k, (a, b) in enumerate(zip(node.args, new.args))
              if ast.dump(a) != ast.dump(b)]
    return (differ[0], differ[-1]) if len(differ) >= 2 else (0, 1)
