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
statements) are left out. By student (:func:`similar_by_student`), only what the student wrote
is compared: the statements of the question's scaffold (the answer cell the exercise notebook
hands out: its ``import``, ``def`` line, given conversions) are taken out first, and an
answer needs :data:`MIN_OWN_STATEMENTS` statements of its own, so two honest one-liners
written into the same scaffold are too short to tell, never a 1.0 pair.
"""
from __future__ import annotations

import ast
import builtins
from collections import Counter
from itertools import combinations
from pathlib import Path

__all__ = ["fingerprints", "similarity", "similar_pairs", "similar_by_student", "THRESHOLD",
           "MIN_STATEMENTS", "MIN_OWN_STATEMENTS", "COMMON_SHARE", "given_headers"]

#: Pairs at least this similar are reported.
THRESHOLD = 0.85
#: Answers with fewer statements (after the imports) are too short to compare.
MIN_STATEMENTS = 3
#: An answer at least this similar to a third of the class (or more) is the common way to
#: write it: such answers are alike by nature, and their pairs are left out.
COMMON_SHARE = 1 / 3
#: With the scaffold taken out, answers with fewer statements of their own are too short
#: to tell (a single line, such as the natural one-liner, is alike by nature).
MIN_OWN_STATEMENTS = 2
#: Answers nested deeper than this (brackets) are not compared (nor parsed).
MAX_NESTING = 60

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


def fingerprints(source: str, given=None) -> tuple[Counter, Counter] | None:
    """The statement and node-gram multisets of an answer; None if it cannot be parsed, is
    the stub, or is too short. ``given``: the question's scaffold (the cell handed out, see
    :func:`given_headers`): its statements are taken out first, so only what the student
    wrote is compared."""
    try:
        return _fingerprints(source, given)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # not Python, or nested too deep to compare


def _nesting(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth = max(0, depth - 1)
    return deepest


def _statements(source: str, stub_ok: bool = False):
    """The answer's statements, normalised (names, imports, docstrings), or None."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    text = "\n".join(lines)
    if _nesting(text) > MAX_NESTING or len(text) > 200_000:
        return None
    tree = ast.parse(text)
    if _depth_of(tree) > 4 * MAX_NESTING:
        return None
    if not stub_ok and any(isinstance(n, ast.Raise) and "NotImplementedError" in ast.dump(n)
                           for n in ast.walk(tree)):
        return None
    _strip_docstrings(tree)
    tree = _Normalise(_imports(tree)).visit(tree)
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt)
            and not isinstance(n, (ast.Import, ast.ImportFrom))]


def _header(stmt) -> str:
    """A statement with its nested blocks left out whatever their length (a scaffold's
    ``def`` line is the student's, however long the body written into it)."""
    import copy

    stmt = copy.copy(stmt)
    for name in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], (ast.stmt,
                                                                       ast.excepthandler)):
            setattr(stmt, name, [])
    return ast.dump(stmt, annotate_fields=False)


def given_headers(scaffold: str) -> Counter:
    """The statements of a question's scaffold (the answer cell handed out), as
    :func:`_header` writes them; an empty Counter when it cannot be read."""
    try:
        return Counter(_header(st) for st in _statements(scaffold, stub_ok=True) or ())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Counter()


def _fingerprints(source: str, given=None):
    statements = _statements(source)
    if statements is None:
        return None
    if given:  # what the student wrote: the scaffold's lines taken out, once each
        left = Counter(given)
        own = []
        for st in statements:
            key = _header(st)
            if left[key] > 0:
                left[key] -= 1
            else:
                own.append(st)
        statements = own
    if len(statements) < (MIN_OWN_STATEMENTS if given else MIN_STATEMENTS):
        return None
    stmts = Counter(ast.dump(_shallow(s), annotate_fields=False) for s in statements)
    grams = Counter(g for s in statements for g in _node_grams(_shallow(s)))
    return stmts, grams


def _depth_of(tree) -> int:
    """The depth of an AST, without recursion (a long chain of operators is deep too)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > 4 * MAX_NESTING:
            return depth
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


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


def _reference_sources(qid: str, registry) -> dict:
    """The course's own code for a question: the reference's source (the package's
    published code) and the exercise solution cell, where they can be read."""
    import inspect

    out = {}
    q = (registry or {}).get(qid)
    if q is not None:
        try:
            out["the course's reference code"] = inspect.getsource(q.reference)
        except (TypeError, OSError):
            pass
    solution = _solutions().get(qid)
    if solution:
        out["the published solution"] = solution
    return out


_SOLUTIONS: dict | None = None


def _solutions() -> dict:
    """``{question id: solution cell}`` of the exercise source notebooks, when present."""
    global _SOLUTIONS
    if _SOLUTIONS is None:
        _SOLUTIONS = {}
        folder = Path(__file__).resolve().parents[3] / "exercises" / "source"
        if folder.is_dir():
            from ..intake.notebooks import _read

            for path in sorted(folder.glob("*.ipynb")):
                intake = _read(path, 64 * 1024 * 1024)
                _SOLUTIONS.update(intake.answers or {})
    return _SOLUTIONS


_SCAFFOLDS: dict | None = None


def _scaffolds() -> dict:
    """``{question id: the answer cell handed out}`` of the exercise notebooks
    (``exercises/*_exercises.ipynb``), when present."""
    global _SCAFFOLDS
    if _SCAFFOLDS is None:
        _SCAFFOLDS = {}
        folder = Path(__file__).resolve().parents[3] / "exercises"
        if folder.is_dir():
            from ..intake.notebooks import _read

            for path in sorted(folder.glob("*_exercises.ipynb")):
                _SCAFFOLDS.update(_read(path, 64 * 1024 * 1024).answers or {})
    return _SCAFFOLDS


def _given(qid: str, cells) -> Counter:
    """The scaffold of a question: the exercise notebook's cell, else (for an instructor's
    own question, with at least three answers) the statements every answer holds."""
    scaffold = _scaffolds().get(qid)
    if scaffold:
        return given_headers(scaffold)
    heads = []
    for source in cells:
        try:
            heads.append(Counter(_header(st) for st in _statements(source) or ()))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Counter()
    if len(heads) < 3:
        return Counter()
    common = heads[0]
    for h in heads[1:]:
        common &= h
    return common


def similar_by_student(answers: dict, threshold: float = THRESHOLD, *, students=None,
                       registry=None, references=True) -> dict:
    """Similar answers by student, for an instructor to read.

    ``answers``: ``{file: {question id: source}}``; ``students``: ``{file: Student}`` (a file
    no student was matched to stands for itself). Left out, as alike by nature: choice
    questions (a letter), answers too short to tell (:data:`MIN_STATEMENTS`), answers close to
    the course's reference code or published solution (listed apart, in ``like_reference``)
    and the common way of writing an answer (at least :data:`COMMON_SHARE` of the class
    alike). What is left is grouped by pair of students, the pairs with the most questions
    alike first, then by mean similarity: ``{"pairs": [{"a", "b", "files", "questions":
    [{"question", "similarity"}], "mean", "max"}], "like_reference": [{"student",
    "question", "source", "similarity"}], "not_compared": N}``."""
    students = students or {}

    def who(file):
        s = students.get(file)
        return f"{s.name} ({s.id})" if s is not None else Path(file).name

    by_question: dict = {}
    not_compared = 0
    given: dict = {}
    for file, cells in answers.items():
        for qid, source in cells.items():
            q = (registry or {}).get(qid)
            if q is not None and getattr(q, "kind", "") == "choice":
                continue
            if qid not in given:
                given[qid] = _given(qid, [c[qid] for c in answers.values() if qid in c])
            prints = fingerprints(source, given[qid])
            if prints is None:
                not_compared += 1
                continue
            by_question.setdefault(qid, []).append((file, prints))
    like_reference, pairs = [], {}
    for qid, entries in sorted(by_question.items()):
        refs = {}
        if references:
            for label, code in _reference_sources(qid, registry).items():
                fp = fingerprints(code, given.get(qid))
                if fp is not None:
                    refs[label] = fp
        near_ref = set()
        for file, fp in entries:
            for label, ref in refs.items():
                s = _similar(fp, ref)
                if s >= threshold:
                    near_ref.add(file)
                    like_reference.append({"student": who(file), "question": qid,
                                           "source": label, "similarity": s})
        n = len(entries)
        close = {f: 0 for f, _ in entries}
        scores = {}
        for (fa, pa), (fb, pb) in combinations(entries, 2):
            s = _similar(pa, pb)
            if s >= threshold:
                scores[(fa, fb)] = s
                close[fa] += 1
                close[fb] += 1
        common = {f for f, c in close.items() if n >= 6 and c + 1 >= COMMON_SHARE * n}
        for (fa, fb), s in scores.items():
            if fa in near_ref or fb in near_ref or fa in common or fb in common:
                continue
            a, b = sorted((who(fa), who(fb)))
            if a == b:
                continue
            item = pairs.setdefault((a, b), {"a": a, "b": b, "files": sorted(
                {Path(fa).name, Path(fb).name}), "questions": []})
            item["questions"].append({"question": qid, "similarity": s})
    out = []
    for item in pairs.values():
        sims = [q["similarity"] for q in item["questions"]]
        item["mean"] = round(sum(sims) / len(sims), 4)
        item["max"] = max(sims)
        out.append(item)
    out.sort(key=lambda p: (-len(p["questions"]), -p["mean"], p["a"], p["b"]))
    like_reference.sort(key=lambda r: (-r["similarity"], r["student"], r["question"]))
    return {"pairs": out, "like_reference": like_reference, "not_compared": not_compared}


def read_answers(files, max_bytes: int = 16 * 1024 * 1024) -> dict:
    """``{file: {question id: answer source}}`` of the readable notebooks among ``files``."""
    from ..intake.notebooks import _read

    out = {}
    for f in files:
        intake = _read(Path(f), max_bytes)
        if intake.answers:
            out[str(f)] = intake.answers
    return out
