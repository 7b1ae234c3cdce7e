"""Similar answers: per question, the pairs of submissions whose answer code is nearly the same
once names, comments and formatting are set aside. Everything runs here; nothing leaves the
machine.

Each answer cell is parsed (never run) and reduced to a multiset of fingerprints:

* every statement, with the names the answer binds itself (variables, arguments, functions,
  loop and comprehension variables) written as one placeholder, imported modules written by
  their full name (``np`` -> ``numpy``), docstrings dropped and nested blocks left out (they
  are fingerprinted as statements of their own);
* the 3-grams of AST node types within each statement.

Comments and formatting never reach the AST; renaming changes no fingerprint; reordering
independent lines changes neither multiset. The similarity of two answers is
``0.75 * Dice(statements) + 0.25 * Dice(node 3-grams)`` (Dice of multisets: twice the shared
count over the total; 1 for copies up to those changes). The statements carry the weight: two
answers that share half their statements score about 0.7 even though their node-type grams,
common to all Python, agree; the grams let a copy with one line edited still score above the
threshold. Pairs at or above
the threshold are reported (:data:`THRESHOLD`); answers that are still the stub
(``raise NotImplementedError``) or too short to tell (fewer than :data:`MIN_STATEMENTS`
statements) are left out.
"""
from __future__ import annotations

import ast
import builtins
from collections import Counter
from itertools import combinations
from pathlib import Path

__all__ = ["fingerprints", "similarity", "similar_pairs", "THRESHOLD", "MIN_STATEMENTS"]

#: Pairs at least this similar are reported.
THRESHOLD = 0.85
#: Answers with fewer statements (after the imports) are too short to compare.
MIN_STATEMENTS = 3

_BUILTINS = set(dir(builtins))


class _Normalise(ast.NodeTransformer):
    def __init__(self, imported: dict):
        self.imported = imported

    def visit_Name(self, node):
        if node.id in self.imported:
            return ast.copy_location(ast.Name(id=self.imported[node.id], ctx=node.ctx), node)
        if node.id in _BUILTINS:
            return node
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_arg(self, node):
        node.arg, node.annotation = "_", None
        return node

    def visit_FunctionDef(self, node):
        node.name, node.returns = "_", None
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Constant(self, node):
        return node


def _imports(tree) -> dict:
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _strip_docstrings(tree) -> None:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(getattr(body[0], "value", None), ast.Constant) and \
                isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]


def _shallow(stmt) -> ast.AST:
    """The statement with its nested statement blocks replaced by their length."""
    import copy

    stmt = copy.copy(stmt)
    for name in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], (ast.stmt,
                                                                       ast.excepthandler)):
            setattr(stmt, name, [ast.Constant(value=f"<{len(block)} statements>")])
    return stmt


def _node_grams(node, n: int = 3) -> list[str]:
    kinds = [type(x).__name__ for x in ast.walk(node)]
    return ["/".join(kinds[i:i + n]) for i in range(max(1, len(kinds) - n + 1))]


def fingerprints(source: str) -> tuple[Counter, Counter] | None:
    """The statement and node-gram multisets of an answer; None if it cannot be parsed, is
    the stub, or is too short."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError):
        return None
    if any(isinstance(n, ast.Raise) and "NotImplementedError" in ast.dump(n)
           for n in ast.walk(tree)):
        return None
    _strip_docstrings(tree)
    tree = _Normalise(_imports(tree)).visit(tree)
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)
                  and not isinstance(n, (ast.Import, ast.ImportFrom))]
    if len(statements) < MIN_STATEMENTS:
        return None
    stmts = Counter(ast.dump(_shallow(s), annotate_fields=False) for s in statements)
    grams = Counter(g for s in statements for g in _node_grams(_shallow(s)))
    return stmts, grams


def _dice(a: Counter, b: Counter) -> float:
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def similarity(source_a: str, source_b: str) -> float | None:
    """How alike two answers are, from 0 to 1 (None when one cannot be compared)."""
    fa, fb = fingerprints(source_a), fingerprints(source_b)
    if fa is None or fb is None:
        return None
    return _similar(fa, fb)


def _similar(fa, fb) -> float:
    return round(0.75 * _dice(fa[0], fb[0]) + 0.25 * _dice(fa[1], fb[1]), 4)


def similar_pairs(answers: dict, threshold: float = THRESHOLD) -> list[dict]:
    """``answers``: ``{file: {question id: source}}``. The pairs at or above ``threshold``,
    most similar first, each ``{"question", "a", "b", "similarity"}``."""
    by_question: dict = {}
    for file, cells in answers.items():
        for qid, source in cells.items():
            prints = fingerprints(source)
            if prints is not None:
                by_question.setdefault(qid, []).append((file, prints))
    pairs = []
    for qid, entries in sorted(by_question.items()):
        for (fa, pa), (fb, pb) in combinations(entries, 2):
            s = _similar(pa, pb)
            if s >= threshold:
                pairs.append({"question": qid, "a": Path(fa).name, "b": Path(fb).name,
                              "similarity": s})
    return sorted(pairs, key=lambda p: (-p["similarity"], p["question"], p["a"], p["b"]))


def read_answers(files, max_bytes: int = 16 * 1024 * 1024) -> dict:
    """``{file: {question id: answer source}}`` of the readable notebooks among ``files``."""
    from .intake import _read

    out = {}
    for f in files:
        intake = _read(Path(f), max_bytes)
        if intake.answers:
            out[str(f)] = intake.answers
    return out
