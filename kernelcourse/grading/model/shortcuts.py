"""No reference shortcut: an answer that calls the course's own solution scores 0.

Each :class:`~kernelcourse.grading.Question` may name, in ``forbidden``, the
package functions and classes whose use would answer it (the all-subsets map
for the all-subsets question). The grader's own answers (each question's
``reference`` in ``grading/questions``, and the registry that hands them out)
are forbidden to every answer. An answer that uses one scores 0 for the
question, with the reason "uses the course's reference implementation of
<name>", in ``check(...)`` and in ``kernelcourse grade`` alike.

Two detectors, so that neither a renamed import nor a computed one gets through:

:func:`static_uses`
    reads the answer's source (never runs it) and resolves every dotted name
    it can reach: ``import ... as``, ``from ... import ... as``, attribute
    chains, ``getattr(module, "name")``, ``importlib.import_module("...")``,
    ``__import__("...", fromlist=[...])``, ``from ... import *``. A name counts
    when it resolves to the same object as a forbidden one, so re-exports
    (``kernelcourse.kernels.RBF`` and a package-level alias) are the same.
:func:`tripwires`
    at run time, swaps the code of every forbidden function (and of every
    method of a forbidden class) for a tripwire that reports the use and
    raises :class:`ReferenceUsed` instead of computing. It works on the
    function objects themselves, so every alias, ``importlib``, ``getattr``
    or closure reaches the tripwire. In the grading command's answer process
    the original code is dropped for good; in a notebook's ``check`` it is
    put back when the answer returns. :func:`seal_process` then closes the
    ways around it in the answer's process: reading or recompiling the
    package's source (so no ``importlib.reload``), ``ctypes``, and starting
    programs (also refused by the kernel through seccomp where it can).
"""
from __future__ import annotations

import ast
import contextlib
import importlib
import os
import sys
import types
from typing import Callable

from .loaded import functions_of as _functions_of, private_helpers as _private_helpers
from .loaded import question_modules, unloaded_helpers, unloaded_home
from .seccomp import install_filter as _no_exec_seccomp

__all__ = ["ReferenceUsed", "static_uses", "tripwires", "forbidden_objects", "grader_objects",
           "with_routes", "seal_process", "reason"]

PACKAGE = "kernelcourse"
_HOOK = "__kernelcourse_tripwire__"


class ReferenceUsed(BaseException):
    """Raised by a tripwire in place of the reference's result (not an Exception, so a
    bare ``except Exception`` in an answer does not hide it)."""


def reason(names) -> str:
    """The message for an answer that used these names."""
    names = sorted(set(names))
    return "uses the course's reference implementation of " + ", ".join(names)


# --------------------------------------------------------------------- resolving names
#: the most parts, and characters, of a dotted name the static check follows: the package's
#: longest real name has 6 parts and 60 characters; a longer name written in an answer is
#: read up to these bounds (its prefixes are what can name an object of the package), so
#: that reading any answer costs time linear in its size (a 200,000-character
#: ``import kernelcourse.a.b.c...`` once cost minutes)
MAX_NAME_PARTS = 32
MAX_NAME_CHARS = 400


def _bounded(dotted: str) -> str:
    """``dotted`` cut to its first :data:`MAX_NAME_PARTS` whole parts within
    :data:`MAX_NAME_CHARS` characters (time bounded by those, whatever its length)."""
    if len(dotted) <= MAX_NAME_CHARS and dotted.count(".", 0, MAX_NAME_CHARS) < MAX_NAME_PARTS:
        return dotted
    parts = dotted[:MAX_NAME_CHARS + 1].split(".", MAX_NAME_PARTS)[:MAX_NAME_PARTS]
    if len(dotted) > MAX_NAME_CHARS and len(parts) > 1 and \
            len(".".join(parts)) > MAX_NAME_CHARS:
        parts = parts[:-1]  # the last part was cut
    return ".".join(parts)


_SUBMODULES: dict[str, frozenset] = {}


def _submodules(module) -> frozenset:
    """The names of the modules inside a package of ``kernelcourse`` (read from its folder
    once), so the walk imports only what exists."""
    import pkgutil

    name = module.__name__
    if name not in _SUBMODULES:
        try:
            found = frozenset(m.name for m in pkgutil.iter_modules(module.__path__))
        except Exception:  # noqa: BLE001 - a package without a folder
            found = frozenset()
        _SUBMODULES[name] = found
    return _SUBMODULES[name]


_NOTHING = object()


def _walk(dotted: str, cache: dict | None = None) -> list:
    """The objects that the prefixes of a dotted name under ``kernelcourse`` stand for, in
    order (``kernelcourse``, ``kernelcourse.a``, ``kernelcourse.a.b``, ...) up to the first
    that names nothing: modules while each prefix is a module of the package (imported only
    when its file exists), attributes from there on. One step per part (of at most
    :data:`MAX_NAME_PARTS`); ``cache`` (prefix -> object) shares steps between names."""
    parts = _bounded(dotted).split(".")
    if parts[0] != PACKAGE:
        return []
    cache = {} if cache is None else cache
    obj = cache.get(PACKAGE, _NOTHING)
    if obj is _NOTHING:
        obj = cache[PACKAGE] = importlib.import_module(PACKAGE)
    found, prefix, importing = [obj], PACKAGE, True
    for part in parts[1:]:
        prefix = f"{prefix}.{part}"
        nxt = cache.get(prefix, _NOTHING)
        if nxt is _NOTHING:
            nxt = None
            is_package = importing and hasattr(obj, "__path__") and \
                getattr(obj, "__name__", None) == prefix.rsplit(".", 1)[0]
            if importing and prefix in sys.modules:  # instructors' modules among them
                nxt = sys.modules[prefix]
            elif is_package and part in _submodules(obj):
                try:
                    nxt = importlib.import_module(prefix)
                except Exception:  # noqa: BLE001 - a module that does not import
                    nxt = None
            if nxt is None:
                try:
                    nxt = getattr(obj, part)
                except Exception:  # noqa: BLE001 - names nothing
                    nxt = None
            cache[prefix] = nxt
        if nxt is None:
            break
        importing = importing and isinstance(nxt, types.ModuleType) and \
            getattr(nxt, "__name__", None) == prefix
        obj = nxt
        found.append(obj)
    return found


def _resolve(dotted: str):
    """The object a dotted name under ``kernelcourse`` stands for, or None (time linear in
    the name's parts, at most :data:`MAX_NAME_PARTS`)."""
    if _bounded(dotted) != dotted:
        return None
    objects = _walk(dotted)
    return objects[-1] if len(objects) == dotted.count(".") + 1 else None


# Routes to the same computation under other names: when a question forbids one of a group,
# it forbids them all. The PSD test: the package's verdict, its smallest eigenvalue, the check
# every estimator runs on a Gram matrix (``check_psd``, which raises for a non-PSD matrix: a
# PSD test through ``try``) and the bilinear kernel, whose constructor runs the same test.
# Gradient descent in the dual: lecture 1's kernelised gradient descent, and lecture 5's
# functional gradient descent on the squared loss, which on the bilinear kernel ``Bilinear(K)``
# at the unit vectors takes exactly the same steps on the same coefficients.
ROUTES = (
    ("kernelcourse.kernels.is_psd", "kernelcourse.kernels.min_eigenvalue",
     "kernelcourse._validation.check_psd", "kernelcourse._validation.check_eigenvalues_psd",
     "kernelcourse.kernels.rules.Bilinear"),
    ("kernelcourse.gradient_descent.kernel_gradient_descent",
     "kernelcourse.rkhs.functional_gradient_descent", "kernelcourse.rkhs.squared_loss",
     "kernelcourse.rkhs.regularised_squared_loss"),
)


def with_routes(names) -> list[str]:
    """The dotted names with the other members of their :data:`ROUTES` groups."""
    names = list(names)
    for group in ROUTES:
        if any(n in group for n in names):
            names += [n for n in group if n not in names]
    return names


def forbidden_objects(names, loaded_only: bool = False) -> dict[int, tuple[str, object]]:
    """``{id(object): (name, object)}`` for the dotted names (unknown names are an error),
    with every route to the same computation: the other members of its :data:`ROUTES` group
    and the private helpers its code calls (:func:`~.loaded.private_helpers`). ``loaded_only``
    leaves out the names whose object does not exist yet (:func:`~.loaded.unloaded_home`),
    loading nothing, but not their helpers that do (:func:`~.loaded.unloaded_helpers`)."""
    found, behind = {}, []
    for name in with_routes(names):
        if loaded_only and unloaded_home(name):  # its helpers that exist now, read from source
            behind += [(name, helper) for helper in unloaded_helpers(name)]
            continue
        obj = _resolve(name)
        if obj is None:
            raise ValueError(f"forbidden name {name!r} does not name a function or class of "
                             f"the package")
        found[id(obj)] = (name, obj)
    reached = [(name, _private_helpers(obj)) for name, obj in found.values()]
    reached += [(name, [helper, *_private_helpers(helper)]) for name, helper in behind]
    for name, helpers in reached:
        for helper in helpers:
            found.setdefault(id(helper), (f"{helper.__module__}.{helper.__name__} (behind "
                                          f"{name})", helper))
    return found


_GRADER_OBJECTS: dict = {}


def grader_objects() -> dict[int, tuple[str, object]]:
    """The grader's own functions: the references and diagnoses' mistakes of the questions
    of the question modules loaded (one lecture's at a notebook's first check, all in the
    grading command), every function those modules define, and the registry functions that
    hand them out (an answer that loads more is checked again: ``scoring.evaluate``)."""
    modules = [(name, sys.modules[name]) for name in question_modules()]
    key = tuple((name, id(module)) for name, module in modules)
    if key not in _GRADER_OBJECTS:
        _GRADER_OBJECTS.clear()
        # the modules are kept with their ids, so no id of the key can be reused by another
        # object while it is cached
        _GRADER_OBJECTS[key] = (_find_grader_objects(modules), modules)
    return dict(_GRADER_OBJECTS[key][0])


def _find_grader_objects(modules) -> dict[int, tuple[str, object]]:
    import types

    from .. import questions

    builder = __name__.rsplit(".", 1)[0] + ".question"   # where choice_parts builds references

    found = {id(questions.get_question): ("kernelcourse.grading.get_question",
                                          questions.get_question),
             id(questions.all_questions): ("kernelcourse.grading.all_questions",
                                           questions.all_questions)}
    held = {id(q): q for _, module in modules for q in getattr(module, "QUESTIONS", None) or ()}
    for q in held.values():
        ref = q.reference
        # the question modules' own references, and those that choice_parts builds for them
        home = getattr(ref, "__module__", "") or ""
        if home.startswith(questions.__name__) or home == builder:
            found[id(ref)] = (f"the grader's reference answer to {q.id}", ref)
        for diagnosis in getattr(q, "diagnoses", None) or ():
            mistake = getattr(diagnosis, "mistake", None)
            if isinstance(mistake, types.FunctionType):
                found.setdefault(id(mistake), (f"the grader's diagnosis of {q.id}", mistake))
    for name, module in modules:
        for attr, value in vars(module).items():
            if isinstance(value, types.FunctionType) and value.__module__ == name:
                found.setdefault(id(value), (f"{name}.{attr}", value))
    return found


# --------------------------------------------------------------------- static detection
class _Names(ast.NodeVisitor):
    """Dotted names (under the package) that a piece of source reaches."""

    def __init__(self):
        self.aliases: dict[str, str] = {}
        self.used: set[str] = set()
        self.star: set[str] = set()
        self._dotted: dict[int, str | None] = {}  # per pass: each node's name, made once

    def visit_Module(self, node):
        self._dotted.clear()
        self.generic_visit(node)

    @staticmethod
    def _const(node):
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    def _import_call(self, node) -> str | None:
        """The module a call to import_module/__import__ returns, when its name is constant."""
        if not isinstance(node, ast.Call) or not node.args:
            return None
        func = self.dotted(node.func)
        if func not in ("importlib.import_module", "__import__", "importlib.__import__",
                        "builtins.__import__", "import_module"):
            return None
        name = self._const(node.args[0])
        if name is None:
            return None
        name = _bounded(name)
        if func.endswith("__import__"):
            fromlist = node.args[3] if len(node.args) > 3 else next(
                (k.value for k in node.keywords if k.arg == "fromlist"), None)
            items = ([self._const(e) for e in fromlist.elts]
                     if isinstance(fromlist, (ast.List, ast.Tuple)) else [])
            for item in items:
                if item:
                    self.used.add(_bounded(f"{name}.{item}"))
            return name if fromlist is not None else name.split(".")[0]
        return name

    def dotted(self, node) -> str | None:
        """The dotted name an expression stands for (at most :func:`_bounded`'s length),
        or None; each node's made once per pass, so a chain of calls and attributes costs
        time linear in its length."""
        key = id(node)
        if key not in self._dotted:
            self._dotted[key] = self._name_of(node)
        return self._dotted[key]

    def _name_of(self, node) -> str | None:
        attrs = []
        while isinstance(node, ast.Attribute):  # a chain: walked once, not once per link
            attrs.append(node.attr)
            node = node.value
        base = None
        if isinstance(node, ast.Name):
            base = self.aliases.get(node.id, node.id)
        elif isinstance(node, ast.Call):
            base = self._import_call(node)
            if not base and (isinstance(node.func, ast.Name) and node.func.id == "getattr"
                             and len(node.args) >= 2):
                base, attr = self.dotted(node.args[0]), self._const(node.args[1])
                base = _bounded(f"{base}.{attr}") if base and attr else base
        if not base or not attrs:
            return base
        return _bounded(base + "." + ".".join(reversed(attrs[-MAX_NAME_PARTS:])))

    def visit_Import(self, node):
        for a in node.names:
            name = _bounded(a.name)
            if a.asname:
                self.aliases[a.asname] = name
            else:
                top = name.split(".")[0]
                self.aliases[top] = top
            self.used.add(name)

    def visit_ImportFrom(self, node):
        if node.level or not node.module:
            return
        module = _bounded(node.module)
        for a in node.names:
            if a.name == "*":
                self.star.add(module)
                continue
            full = _bounded(f"{module}.{a.name}")
            self.aliases[a.asname or a.name] = full
            self.used.add(full)

    def visit_Assign(self, node):
        target = self.dotted(node.value)
        if target:
            for t in node.targets:
                if isinstance(t, ast.Name):
                    self.aliases[t.id] = target
        self.generic_visit(node)

    def visit_Attribute(self, node):
        name = self.dotted(node)
        if name:
            self.used.add(name)  # its prefixes are read with it (:func:`_walk`)
        while isinstance(node, ast.Attribute):  # the links of the chain add nothing more
            node = node.value
        self.visit(node)

    def visit_Name(self, node):
        if node.id in self.aliases:
            self.used.add(self.aliases[node.id])

    def visit_Call(self, node):
        name = self.dotted(node)
        if name:
            self.used.add(name)
        self.generic_visit(node)


def static_uses(source: str, forbidden: dict[int, tuple[str, object]]) -> list[str]:
    """The forbidden names that ``source`` reaches, read without running it."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names = _Names()
    try:
        for _ in range(2):  # the second pass sees aliases made later in the text
            names.visit(tree)
    except RecursionError:
        return []
    hits, cache = set(), {}
    for dotted in names.used:  # each name and its prefixes: one walk, steps shared
        for obj in _walk(dotted, cache)[1:]:
            if id(obj) in forbidden:
                hits.add(forbidden[id(obj)][0])
    for module in names.star:
        walked = _walk(module, cache)
        mod = walked[-1] if len(walked) == len(module.split(".")) else None
        for attr in dir(mod) if mod is not None else ():
            if not attr.startswith("_") and id(getattr(mod, attr, None)) in forbidden:
                hits.add(forbidden[id(getattr(mod, attr))][0])
    return sorted(hits)


# --------------------------------------------------------------------- dynamic detection
def _tripwire_code(name: str, n_free: int):
    """A code object that calls the module's tripwire hook with ``name``; ``n_free`` free
    variables, so that it fits any function's closure."""
    free = [f"_v{i}" for i in range(n_free)]
    lines = ["def _outer():"]
    lines += [f"    {v} = None" for v in free]
    lines += ["    def _trip(*args, **kwargs):"]
    if free:
        lines += [f"        if False: print({', '.join(free)})"]
    lines += [f"        {_HOOK}({name!r})", "    return _trip"]
    space: dict = {}
    exec(compile("\n".join(lines), "<tripwire>", "exec"), space)
    return space["_outer"]().__code__


@contextlib.contextmanager
def tripwires(objects: dict[int, tuple[str, object]], on_use: Callable[[str], None],
              restore: bool = True):
    """Inside the block, using any of ``objects`` calls ``on_use(name)`` and raises
    :class:`ReferenceUsed`. With ``restore=False`` the originals are not kept."""
    swapped: list = []
    modules: dict[int, dict] = {}

    def hook(name):
        on_use(name)
        raise ReferenceUsed(reason([name]))

    seen: set = set()
    for name, obj in objects.values():
        for func in _functions_of(obj):
            if id(func) in seen:  # one function reached through two forbidden names
                continue
            seen.add(id(func))
            trip = _tripwire_code(name, len(func.__code__.co_freevars))
            swapped.append((func, func.__code__ if restore else None))
            func.__code__ = trip
            modules[id(func.__globals__)] = func.__globals__
    for space in modules.values():
        space[_HOOK] = hook
    try:
        yield
    finally:
        if restore:
            for func, code in swapped:
                func.__code__ = code
            for space in modules.values():
                space.pop(_HOOK, None)


# --------------------------------------------------------------------- the answer's process
_BLOCKED_EVENTS = ("ctypes.", "os.exec", "os.posix_spawn", "os.spawn", "os.system",
                   "subprocess.Popen", "os.startfile", "sys.addaudithook")


def seal_process() -> None:
    """In a forked answer process: seccomp refuses new programs (and what
    :func:`.seccomp.install_filter` lists) for good; an audit hook refuses ctypes and reading the
    package's source where a source file exists (the grading worker holds none).

    The audit hook is Python inside the process it polices, a second line only: what the
    grader guarantees comes from the kernel (the sandbox's mount layout, seccomp,
    namespaces), not from it."""
    _no_exec_seccomp()
    here = globals().get("__file__")
    prefix = (os.path.realpath(here).rsplit(os.sep, 3)[0] + os.sep) if here else None  # kernelcourse/

    def _inside(path) -> bool:
        if prefix is None:
            return False
        try:
            p = os.fsdecode(path) if not isinstance(path, int) else ""
        except (TypeError, ValueError):
            return False
        return bool(p) and os.path.realpath(p).startswith(prefix)

    def guard(event, args):
        if event.startswith("ctypes."):
            raise PermissionError(f"{event} is not allowed in a graded answer (ctypes calls "
                                  f"C; multiprocessing's Value and Array are made with it: use "
                                  f"a Pool, a Queue or a Pipe)")
        if event.startswith(_BLOCKED_EVENTS):
            raise PermissionError(f"{event} is not allowed in a graded answer")
        if event == "open" and args and _inside(args[0]):
            raise PermissionError("reading the course's source is not allowed in a graded answer")
        if event == "compile" and len(args) > 1 and _inside(args[1]):
            raise PermissionError("recompiling the course's source is not allowed in a graded "
                                  "answer")

    sys.addaudithook(guard)
