"""How the audit finds a question's answer logic, builds each mutant's code and runs it.

**What counts as the reference.** A mutant should model a mistake a student can make in the
answer, so the audit mutates the code an answer would have to write, found by running the
reference once on its first case under a profiler: every function that call reaches which is

* the question's ``reference`` itself;
* defined in a grading question module (``kernelcourse.grading.questions.*``: the helpers a
  reference written there calls);
* a name the question forbids (``Question.forbidden``, with the routes and private helpers
  :func:`~kernelcourse.grading.model.shortcuts.forbidden_objects` adds; of a forbidden class, the
  methods its own body defines): the student must write that computation;
* defined in the module of the reference, or of a forbidden name, above (its private helpers).

Left out: the package functions a student may call (they are given), dunder methods other than
``__call__``, and the package's plumbing (``kernelcourse._validation``, ``_estimator``,
``_progress``, ``widgets``, and ``grading`` outside its question modules).

**Patching.** A mutant replaces the ``__code__`` (and the defaults) of the function object in
place, only while one case runs, so every route to the function (a method, an imported name)
runs the mutant, and the question's properties and the expected values, computed outside that
window, never do.

**Bounded in memory.** While a mutant runs, the process's address space may grow by at most
:data:`MUTANT_MEMORY` (:func:`memory_capped`): an allocation past it raises MemoryError, which
fails the case as a sealed answer past its memory cap fails. A mutant that multiplies a size (a
block of ``a ** k`` rows where 16 are due) would otherwise take the machine's memory, and the
run with it.

**Bounded, without a clock.** Every mutant's function body and loop body counts a tick; a
mutant that ticks more than :data:`TICKS_FACTOR` times what the unmutated code ticks on the
same cases (plus :data:`TICKS_SLACK`) is stopped (:class:`Budget`) and counts as failing that
case. So a mutant that loops forever is stopped at the same place in every run.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import dis
import functools
import gc
import inspect
import sys
import types
import warnings

import numpy as np

from ..model import transport
from .operators import copied_tree, mutations

__all__ = ["Budget", "Target", "answer_targets", "compile_mutant", "passes", "patched", "run_case",
           "TICKS_FACTOR", "TICKS_SLACK"]

#: a mutant may tick this many times what the unmutated function ticks on a case ...
TICKS_FACTOR = 20
#: ... plus this many
TICKS_SLACK = 20_000

_PLUMBING = ("kernelcourse._validation", "kernelcourse._estimator", "kernelcourse._progress",
             "kernelcourse.widgets", "kernelcourse.grading.")
_QUESTIONS = "kernelcourse.grading.questions."
_TICK = "__kernelcourse_audit_tick__"
#: the most address space a mutant may add while one case runs (see the module's text)
MUTANT_MEMORY = 2 * 1024 ** 3


class Budget(BaseException):
    """A mutant ran past its tick budget (a BaseException, so no ``except Exception`` inside
    the mutant can swallow it)."""


class _Ticker:
    def __init__(self):
        self.count = 0
        self.limit = None

    def __call__(self):
        self.count += 1
        if self.limit is not None and self.count > self.limit:
            raise Budget(f"more than {self.limit} ticks")


TICKER = _Ticker()


@contextlib.contextmanager
def ticking(limit=None):
    """The tick counter installed (as a builtin, where mutant code finds it), reset, with
    ``limit``."""
    setattr(builtins, _TICK, TICKER)
    TICKER.count, TICKER.limit = 0, limit
    try:
        yield TICKER
    finally:
        TICKER.limit = None


@contextlib.contextmanager
def memory_capped(extra: int = MUTANT_MEMORY):
    """The process's address space capped at what it uses now plus ``extra`` bytes (a soft
    RLIMIT_AS, put back on leaving); nothing where the platform has no such limit, or where a
    tighter one is set already."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as handle:
            used = int(handle.read().split()[0]) * resource.getpagesize()
    except (ImportError, OSError, ValueError):
        yield
        return
    cap = used + int(extra)
    infinite = resource.RLIM_INFINITY
    if (soft != infinite and soft <= cap) or (hard != infinite and hard < cap):
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


class Target:
    """One function whose code the audit mutates: the function object, its syntax tree (read
    from its module's source) and its name for the report."""

    def __init__(self, function: types.FunctionType, tree):
        self.function = function
        self.tree = tree
        code = function.__code__
        self.name = f"{function.__module__}.{function.__qualname__}"
        self.file = code.co_filename
        self.short = f"{function.__module__.split('.')[-1]}.{function.__qualname__}"

    def mutants(self):
        """``(Mutation, ast.FunctionDef)`` for every mutant of this function."""
        return mutations(self.tree)

    def __repr__(self):
        return f"Target({self.name})"


def _unwrap(obj):
    obj = inspect.unwrap(obj) if callable(obj) else obj
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    return obj if isinstance(obj, types.FunctionType) else None


@functools.lru_cache(maxsize=None)
def _module_tree(filename: str):
    with open(filename, encoding="utf-8") as handle:
        return ast.parse(handle.read(), filename=filename)


def function_tree(function: types.FunctionType):
    """The :class:`ast.FunctionDef` of ``function`` (a lambda as a ``def`` returning its body),
    read from its module's source; None when it cannot be found unambiguously."""
    code = function.__code__
    try:
        tree = _module_tree(code.co_filename)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if node.name == code.co_name and code.co_firstlineno in (first, node.lineno):
                found.append(node)
        elif isinstance(node, ast.Lambda) and code.co_name == "<lambda>" and \
                node.lineno == code.co_firstlineno:
            found.append(node)
    if len(found) != 1:
        return None
    node = found[0]
    if isinstance(node, ast.Lambda):
        where = dict(lineno=node.lineno, col_offset=node.col_offset,
                     end_lineno=node.end_lineno, end_col_offset=node.end_col_offset)
        body = ast.Return(node.body, **where)
        node = ast.FunctionDef("__audit_lambda__", node.args, [body], [], None, **where)
        ast.fix_missing_locations(node)
    if isinstance(node, ast.AsyncFunctionDef):
        return None
    return node


def _excluded(module: str, name: str) -> bool:
    if not module.startswith("kernelcourse.") and module != "kernelcourse":
        return True
    if module.startswith(_PLUMBING) and not module.startswith(_QUESTIONS):
        return True
    if name.startswith("<") and name != "<lambda>":
        return True
    return name.startswith("__") and name.endswith("__") and name != "__call__"


def _function_of(code):
    for obj in gc.get_referrers(code):
        if isinstance(obj, types.FunctionType) and obj.__code__ is code:
            return obj
    return None


def _reached(reference, case) -> tuple[list, set]:
    """The code objects a call of ``reference`` on ``case`` reaches, in the order first called."""
    order, seen = [], set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code not in seen:
            seen.add(frame.f_code)
            order.append((frame.f_code, frame.f_globals.get("__name__", "")))

    args, kwargs = case.copied()
    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            reference(*args, **kwargs)
    except Exception:
        pass
    finally:
        sys.setprofile(old)
    return order


def _forbidden_code(question) -> tuple[set, set]:
    """The code objects of the forbidden names (of a class: its own methods), and their
    modules."""
    from ..model.shortcuts import forbidden_objects

    codes, modules = set(), set()
    try:
        objects = forbidden_objects(question.forbidden).values()
    except Exception:
        return codes, modules
    for _, obj in objects:
        if isinstance(obj, type):
            modules.add(obj.__module__)
            for member in vars(obj).values():
                function = _unwrap(member)
                if function is not None:
                    codes.add(function.__code__)
        else:
            function = _unwrap(obj)
            if function is not None:
                codes.add(function.__code__)
                modules.add(function.__module__)
    return codes, modules


def answer_targets(question, case) -> list[Target]:
    """The functions whose mutants model a mistake in ``question``'s answer (see the module's
    docstring), in the order the reference first calls them on ``case``."""
    reference = _unwrap(question.reference)
    if reference is None:
        return []
    codes, modules = _forbidden_code(question)
    modules.add(reference.__module__)
    targets = []
    for code, module in _reached(question.reference, case):
        if code is not reference.__code__:
            if _excluded(module, code.co_name):
                continue
            if not (module.startswith(_QUESTIONS) or code in codes or module in modules):
                continue
        function = reference if code is reference.__code__ else _function_of(code)
        if function is None:
            continue
        tree = function_tree(function)
        if tree is not None:
            targets.append(Target(function, tree))
    return targets


def _ticks_inserted(tree: ast.FunctionDef) -> ast.FunctionDef:
    """A tick at the start of the function's body and of every loop's body (nested
    definitions included)."""
    def tick():
        return ast.Expr(ast.Call(ast.Name(_TICK, ast.Load()), [], []))

    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFor)):
            node.body.insert(0, tick())
    return tree


def compile_mutant(function: types.FunctionType, tree: ast.FunctionDef):
    """``(code, defaults, kwdefaults)`` of ``tree`` (a mutant of ``function``'s definition)
    compiled to stand in for ``function.__code__``: the same free variables in the same order,
    ticks inserted, evaluated in a copy of the function's globals."""
    tree = _ticks_inserted(copied_tree(tree))
    tree.decorator_list = []
    freevars = function.__code__.co_freevars
    if freevars:
        keep = ast.parse(f"if False:\n    ({', '.join(freevars)},)").body[0]
        tree.body.insert(0, keep)
    name = tree.name
    outer = ast.FunctionDef(
        "__audit_outer__",
        ast.arguments([], [ast.arg(v) for v in freevars], None, [], [], None, []),
        [tree, ast.Return(ast.Name(name, ast.Load()))], [], None)
    module = ast.Module([outer], [])
    ast.fix_missing_locations(module)
    code = compile(module, function.__code__.co_filename, "exec")
    namespace = dict(function.__globals__)
    exec(code, namespace)  # noqa: S102 - the course's own source, mutated
    inner = namespace["__audit_outer__"](*([None] * len(freevars)))
    if inner.__code__.co_freevars != freevars:
        raise ValueError(f"the mutant's free variables {inner.__code__.co_freevars} differ "
                         f"from {freevars}")
    defaults = inner.__defaults__
    kwdefaults = inner.__kwdefaults__
    return inner.__code__, defaults, kwdefaults


@contextlib.contextmanager
def patched(function: types.FunctionType, compiled):
    """``function`` runs ``compiled`` (from :func:`compile_mutant`) inside the block."""
    old = function.__code__, function.__defaults__, function.__kwdefaults__
    function.__code__, function.__defaults__, function.__kwdefaults__ = compiled
    try:
        yield
    finally:
        function.__code__, function.__defaults__, function.__kwdefaults__ = old


def _guard(exc) -> bool:
    """Whether ``exc`` was raised by a ``raise`` statement of the package's own code (a check of
    its inputs, which no student's answer holds), not by a computation."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or not str(tb.tb_frame.f_globals.get("__name__", "")).startswith("kernelcourse"):
        return False
    code = tb.tb_frame.f_code.co_code
    return 0 <= tb.tb_lasti < len(code) and code[tb.tb_lasti] == _RAISE


_RAISE = dis.opmap["RAISE_VARARGS"]


def run_case(call, case, function=None, compiled=None, limit=None):
    """``call`` on a copy of ``case``'s inputs, warnings silenced, within ``limit`` ticks (and,
    with ``function`` running the mutant ``compiled``, under the cap on memory): its value as
    plain data makes it (:func:`~kernelcourse.grading.model.transport.roundtrip`). What the
    call raises (:class:`Budget` past the limit) is raised."""
    args, kwargs = case.copied()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        with ticking(limit):
            if function is not None:
                with memory_capped(), patched(function, compiled):
                    value = call(*args, **kwargs)
            else:
                value = call(*args, **kwargs)
        return transport.roundtrip(value)


def passes(question, call, case, expected, function=None, compiled=None, limit=None):
    """Whether ``call`` passes ``case`` by the question's own judgement (the grader's: the value
    as plain data, the shape policy, the comparison and the properties): True or False, or
    ``"guard"`` when it raised from one of the package's checks of its inputs (a mutated check
    models no mistake of an answer). With ``function`` and ``compiled``, ``function`` runs the
    mutant during the call. Any other raise, or a run past ``limit`` ticks, fails."""
    try:
        actual = run_case(call, case, function, compiled, limit)
    except Exception as exc:
        return "guard" if _guard(exc) else False
    except (Budget, RecursionError):
        return False
    try:
        actual, _ = question.conform(actual, expected)
        ok, _ = question.judge(actual, expected, case)
    except Exception:
        return False
    return bool(ok)


def ticks_of(question, function, tree, cases) -> int:
    """The most ticks the unmutated ``tree`` (with ticks inserted) takes on one of ``cases``."""
    compiled = compile_mutant(function, tree)
    most = 0
    for case in cases:
        args, kwargs = case.copied()
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                with ticking(None) as ticker, patched(function, compiled):
                    question.reference(*args, **kwargs)
        except Exception:
            pass
        most = max(most, TICKER.count)
    return most
