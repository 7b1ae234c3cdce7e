"""The mutation operators of the question audit: each turns one node of a function's syntax
tree into the mistake it names, and :func:`mutations` lists every mutant of a function.

A mutant models one slip a student makes while writing the answer: an operator changed
(``+`` for ``-``, ``<`` for ``<=``), a constant off (0, 1, 2, one half, one more or less),
``n`` for ``n - 1`` and back, ``sum`` for ``mean``, a term or an update dropped, a transpose
added or dropped, another axis, a slice shifted by one, two arguments swapped, a default
changed. The operators are written here with :mod:`ast` (no mutation library: the course's
mistakes, such as another axis or a transpose, are not among theirs).

Every mutant is a ``(Mutation, ast.FunctionDef)``: the description of the change (operator,
line, the source line after it) and the changed definition, a deep copy of the original.
"""
from __future__ import annotations

import ast
import copy
import pickle
import re
from dataclasses import dataclass

__all__ = ["Mutation", "OPERATORS", "mutation_sites", "mutations", "changed_line", "copied_tree"]

#: the operators, by name, and the mistake each models
OPERATORS = {
    "arithmetic": "an arithmetic operator replaced (+ and -, * and /, // and /, ** and *, @ and *)",
    "comparison": "a comparison replaced (< and <=, > and >=, < and >, == and !=, in and not in)",
    "boolean": "'and' and 'or' swapped, a 'not' or a minus sign dropped",
    "constant": "a number replaced by 0, 1, 2, one half, or one more or less",
    "default": "a parameter's default value replaced as a constant is",
    "n-1": "a count n replaced by n - 1, and n - 1 by n",
    "reduction": "sum and mean swapped (max and min, argmax and argmin too)",
    "dropped term": "one side of a sum, difference, product or quotient dropped",
    "dropped update": "an augmented assignment (x += ...) or a bare call statement dropped",
    "dropped call": "sqrt, exp, log, abs or square left out (its argument kept)",
    "transpose": "a transpose added to a factor of @, or an existing .T dropped",
    "axis": "axis=k replaced by another axis",
    "ddof": "ddof=1 added to var or std, or dropped",
    "slice": "a slice's start or stop shifted by one",
    "swapped operands": "the operands of -, /, @ or ** swapped",
    "swapped arguments": "two positional arguments of a call swapped",
}

_ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
          ast.FloorDiv: ast.Div, ast.Pow: ast.Mult, ast.MatMult: ast.Mult}
_COMPARE = {ast.Lt: (ast.LtE, ast.Gt), ast.LtE: (ast.Lt, ast.GtE), ast.Gt: (ast.GtE, ast.Lt),
            ast.GtE: (ast.Gt, ast.LtE), ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,),
            ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,),
            ast.NotIn: (ast.In,)}
_REDUCTIONS = {"sum": "mean", "mean": "sum", "nansum": "nanmean", "nanmean": "nansum",
               "max": "min", "min": "max", "argmax": "argmin", "argmin": "argmax",
               "maximum": "minimum", "minimum": "maximum", "amax": "amin", "amin": "amax"}
_UNARY_CALLS = {"sqrt", "exp", "log", "abs", "square", "log1p", "expm1"}
_COUNT_NAME = re.compile(r"^(n|m|d|n_\w+|num_\w+)$")


@dataclass(frozen=True)
class Mutation:
    """One change: the operator's name, the line (in the function's file) and what changed."""

    operator: str
    lineno: int
    change: str
    #: the statement holding the change, as it reads after it (a compound statement's header)
    line: str = ""


def _number(node) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool))


def _constant_options(value) -> list:
    options = [0, 1, 2, 0.5, value + 1, value - 1]
    out = []
    for option in options:
        if isinstance(value, float) and option != 0.5:
            option = float(option)
        if option != value and option not in out:
            out.append(option)
    return out


def _count_like(node) -> bool:
    """A count: ``len(...)``, ``x.shape[k]``, ``x.size`` or a name such as n, m, n_samples."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return bool(_COUNT_NAME.match(node.id))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        return node.value.attr == "shape"
    return isinstance(node, ast.Attribute) and node.attr == "size"


def _one(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1 and not isinstance(node.value, bool)


def _calls_name(node) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    if isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _rename_call(node, name):
    new = copy.deepcopy(node)
    if isinstance(new.func, ast.Attribute):
        new.func.attr = name
    else:
        new.func.id = name
    return new


def _site_options(node, parent, field, in_defaults: bool) -> list:
    """``(operator, change, replacement)`` for every mutant of ``node``; a replacement of None
    drops the statement."""
    out = []
    src = _src(node)
    if isinstance(node, ast.BinOp):
        new_op = _ARITH.get(type(node.op))
        if new_op is not None:
            new = ast.BinOp(node.left, new_op(), node.right)
            out.append(("arithmetic", f"{src} -> {_src(new)}", new))
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            out.append(("dropped term", f"{src} -> {_src(node.left)}", node.left))
            if isinstance(node.op, (ast.Add, ast.Mult)):
                out.append(("dropped term", f"{src} -> {_src(node.right)}", node.right))
        if isinstance(node.op, (ast.Sub, ast.Div, ast.MatMult, ast.Pow)):
            new = ast.BinOp(node.right, node.op, node.left)
            out.append(("swapped operands", f"{src} -> {_src(new)}", new))
        if isinstance(node.op, ast.MatMult):
            for side in ("left", "right"):
                operand = getattr(node, side)
                if isinstance(operand, ast.Attribute) and operand.attr == "T":
                    continue
                new = copy.copy(node)
                setattr(new, side, ast.Attribute(operand, "T", ast.Load()))
                out.append(("transpose", f"{src} -> {_src(new)}", new))
        if isinstance(node.op, ast.Sub) and _one(node.right) and _count_like(node.left):
            out.append(("n-1", f"{src} -> {_src(node.left)}", node.left))
    elif isinstance(node, ast.Compare) and len(node.ops) == 1:
        for new_op in _COMPARE.get(type(node.ops[0]), ()):
            new = ast.Compare(node.left, [new_op()], node.comparators)
            out.append(("comparison", f"{src} -> {_src(new)}", new))
    elif isinstance(node, ast.BoolOp):
        new = ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)
        out.append(("boolean", f"{src} -> {_src(new)}", new))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        out.append(("boolean", f"{src} -> {_src(node.operand)}", node.operand))
    elif _number(node) and not isinstance(parent, ast.Slice) and not (
            isinstance(parent, ast.UnaryOp) and field == "operand"):
        operator = "default" if in_defaults else "constant"
        index = isinstance(parent, ast.Subscript) and field == "slice"
        for option in _constant_options(node.value):
            if index and not isinstance(option, int):
                continue  # x[0.5] is no mistake, only an error
            new = ast.Constant(option)
            out.append((operator, f"{src} -> {option!r}", new))
    elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
        out.append(("transpose", f"{src} -> {_src(node.value)}", node.value))
    elif isinstance(node, ast.AugAssign) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        out.append(("dropped update", f"{src} dropped", None))
    elif isinstance(node, ast.Slice):
        out += _slice_options(node, src)
    if _count_like(node) and not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Sub)
                                  and _one(parent.right) and field == "left"):
        if not (isinstance(node, ast.Name) and field in ("target", "targets")):
            new = ast.BinOp(node, ast.Sub(), ast.Constant(1))
            out.append(("n-1", f"{src} -> {_src(new)}", new))
    name = _calls_name(node)
    if name is not None:
        out += _call_options(node, name, src)
    return out


def _shifted(bound, by):
    """``bound + by`` (folded when the bound is a number)."""
    if _number(bound):
        return ast.Constant(bound.value + by)
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub) and _number(bound.operand):
        value = -bound.operand.value + by
        return ast.Constant(value) if value >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.BinOp(bound, ast.Add() if by > 0 else ast.Sub(), ast.Constant(abs(by)))


def _slice_options(node, src):
    out = []
    lower = node.lower
    new_lowers = [ast.Constant(1)] if lower is None else [_shifted(lower, 1)]
    if lower is not None and not (_number(lower) and lower.value == 0):
        new_lowers.append(_shifted(lower, -1))
    for new_lower in new_lowers:
        new = ast.Slice(new_lower, node.upper, node.step)
        out.append(("slice", f"[{src}] -> [{_src(new)}]", new))
    upper = node.upper
    new_uppers = ([ast.UnaryOp(ast.USub(), ast.Constant(1))] if upper is None else
                  [_shifted(upper, -1), _shifted(upper, 1)])
    for new_upper in new_uppers:
        new = ast.Slice(node.lower, new_upper, node.step)
        out.append(("slice", f"[{src}] -> [{_src(new)}]", new))
    return out


def _call_options(node, name, src):
    out = []
    if name in _REDUCTIONS:
        new = _rename_call(node, _REDUCTIONS[name])
        out.append(("reduction", f"{src} -> {_src(new)}", new))
    if name in _UNARY_CALLS and len(node.args) == 1 and not node.keywords:
        out.append(("dropped call", f"{src} -> {_src(node.args[0])}", node.args[0]))
    for index, keyword in enumerate(node.keywords):
        if keyword.arg == "axis":
            value = keyword.value.value if isinstance(keyword.value, ast.Constant) else object()
            for option in (0, 1, -1, None):
                if option == value and type(option) is type(value):
                    continue
                new = copy.deepcopy(node)
                new.keywords[index].value = ast.Constant(option)
                out.append(("axis", f"{src} -> {_src(new)}", new))
        if keyword.arg == "ddof" and name in ("var", "std", "nanvar", "nanstd", "cov"):
            new = copy.deepcopy(node)
            del new.keywords[index]
            out.append(("ddof", f"{src} -> {_src(new)}", new))
    if name in ("var", "std", "nanvar", "nanstd") and not any(
            k.arg == "ddof" for k in node.keywords):
        new = copy.deepcopy(node)
        new.keywords.append(ast.keyword("ddof", ast.Constant(1)))
        out.append(("ddof", f"{src} -> {_src(new)}", new))
    positional = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(positional) == len(node.args) and len(node.args) >= 2:
        pairs = [(0, 1)] + ([(len(node.args) - 2, len(node.args) - 1)] if len(node.args) > 2 else [])
        for i, j in pairs:
            if ast.dump(node.args[i]) == ast.dump(node.args[j]):
                continue
            new = copy.deepcopy(node)
            new.args[i], new.args[j] = new.args[j], new.args[i]
            out.append(("swapped arguments", f"{src} -> {_src(new)}", new))
    return out


def _src(node) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # an incomplete node
        text = type(node).__name__
    return text if len(text) <= 90 else text[:87] + "..."


def _walk(node, parent=None, field=None, index=None, in_defaults=False, skip=False):
    """Every node in a fixed order (depth first), with where it sits in its parent."""
    yield node, parent, field, index, in_defaults, skip
    for name, value in ast.iter_fields(node):
        # docstrings, annotations and decorators are no answer logic
        inner_skip = skip or name in ("annotation", "returns", "decorator_list", "type_comment")
        inner_defaults = in_defaults or (isinstance(node, ast.arguments) and
                                         name in ("defaults", "kw_defaults"))
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    if (name == "body" and i == 0 and isinstance(item, ast.Expr)
                            and isinstance(item.value, ast.Constant)
                            and isinstance(item.value.value, str)):
                        continue
                    yield from _walk(item, node, name, i, inner_defaults, inner_skip)
        elif isinstance(value, ast.AST):
            yield from _walk(value, node, name, None, inner_defaults, inner_skip)


def _no_mutation(node, parent, field) -> bool:
    """Nodes left alone: string and format parts, subscripts' targets written to, raise and
    assert statements (error messages), and the f-strings of messages."""
    if isinstance(parent, (ast.JoinedStr, ast.FormattedValue)):
        return True
    if isinstance(node, (ast.Raise, ast.Assert)):
        return True
    return False


def _enclosing_statements(tree):
    """For each node (by id), the statement that holds it."""
    holder = {}

    def visit(node, statement):
        if isinstance(node, ast.stmt):
            statement = node
        holder[id(node)] = statement
        for child in ast.iter_child_nodes(node):
            visit(child, statement)
    visit(tree, tree)
    return holder


def changed_line(statement) -> str:
    """A statement as it reads, only its header when it is compound (``for ...:``)."""
    if isinstance(statement, ast.FunctionDef):
        return "def " + statement.name + "(...)"
    text = ast.unparse(statement)
    if isinstance(statement, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
        text = text.split("\n", 1)[0]
    return text if len(text) <= 160 else text[:157] + "..."


def copied_tree(node):
    """A deep copy of a syntax tree, through pickle (what :func:`copy.deepcopy` gives, fields,
    positions and all, in about a quarter of its time: the audit copies a function's tree for
    each of its mutants)."""
    return pickle.loads(pickle.dumps(node, protocol=pickle.HIGHEST_PROTOCOL))


def mutation_sites(function: ast.FunctionDef) -> list:
    """``(position, node, parent, field, operator, change, replacement)`` for every mutant of
    ``function``, in :func:`mutations`' order: the node changed (``position``, its place in
    the walk of the tree), where it sits in its parent, the operator's name, what changes and
    the node put in its place (None: the statement is dropped)."""
    sites = []
    skipped: set[int] = set()
    for position, (node, parent, field, index, in_defaults, skip) in enumerate(_walk(function)):
        if skip or id(parent) in skipped or _no_mutation(node, parent, field):
            skipped.add(id(node))
            continue
        for operator, change, replacement in _site_options(node, parent, field, in_defaults):
            if replacement is None and not isinstance(parent, ast.AST):
                continue
            sites.append((position, node, parent, field, operator, change, replacement))
    return sites


def mutations(function: ast.FunctionDef) -> list[tuple[Mutation, ast.FunctionDef]]:
    """Every mutant of ``function`` (an :class:`ast.FunctionDef`), in a fixed order: for each
    node depth first, each operator's replacements. The function's own name, parameters and
    nested definitions' names are never changed; raise and assert statements are skipped
    (their messages are no answer)."""
    out = []
    for position, _, _, _, operator, change, replacement in mutation_sites(function):
        tree = copied_tree(function)
        new_node = copied_tree(replacement) if replacement is not None else ast.Pass()
        for pos, (node, parent, field, index, _, _) in enumerate(_walk(tree)):
            if pos == position:
                if index is None:
                    setattr(parent, field, new_node)
                else:
                    getattr(parent, field)[index] = new_node
                lineno = getattr(node, "lineno", None) or getattr(parent, "lineno", 0)
                break
        ast.fix_missing_locations(tree)
        holder = _enclosing_statements(tree)
        statement = holder.get(id(new_node), tree)
        line = changed_line(statement) if replacement is not None else f"(dropped) {change[:-8]}"
        out.append((Mutation(operator, lineno, change, line), tree))
    return out
