"""What a notebook's first check leaves unloaded, and what would load it.

A first ``check("ex1.q1")`` loads one lecture's question modules (not the bank) and the
package modules their references use (not the estimator classes, which packages such as
:mod:`kernelcourse.dual` hand out when first asked for, PEP 562, since they import
scikit-learn). What is not loaded holds no object an answer could have reached without loading
it first; so :func:`kernelcourse.grading.checking.scoring.evaluate` arms the tripwires on the loaded
objects only, and when the answer loads one of the modules named here (by a name in its source
or as it runs), checks it again with everything loaded.
"""
from __future__ import annotations

import ast
import importlib.util
import pkgutil
import sys
import types

__all__ = ["question_modules", "unloaded_home", "unloaded_homes", "functions_of",
           "private_helpers", "unloaded_helpers"]

PACKAGE = "kernelcourse"


def question_modules() -> tuple:
    """The question modules loaded in this process (``kernelcourse.grading.questions.*``,
    instructors' files among them), by name."""
    prefix = __name__.rsplit(".", 2)[0] + ".questions."
    return tuple(sorted(name for name, module in list(sys.modules.items())
                        if name.startswith(prefix) and module is not None))


def _is_submodule(package, part: str) -> bool:
    try:
        return any(m.name == part for m in pkgutil.iter_modules(package.__path__))
    except Exception:  # noqa: BLE001 - a package without a folder
        return False


def unloaded_home(dotted: str) -> str | None:
    """The module, not loaded yet, that must be loaded before the object a dotted name of the
    package names can exist (a module of the path, or the submodule a package's ``_LAZY``
    table says defines it); None when everything it needs is loaded. Imports nothing."""
    parts = dotted.split(".")
    if parts[0] != PACKAGE or PACKAGE not in sys.modules:
        return PACKAGE if parts[0] == PACKAGE else None
    obj, prefix = sys.modules[PACKAGE], PACKAGE
    for part in parts[1:]:
        prefix = f"{prefix}.{part}"
        if prefix in sys.modules:
            obj = sys.modules[prefix]
            continue
        if hasattr(obj, "__path__") and _is_submodule(obj, part):
            return prefix
        lazy = vars(obj).get("_LAZY", {}) if hasattr(obj, "__path__") else {}
        if part in lazy:
            home = f"{obj.__name__}.{lazy[part]}"
            if home not in sys.modules:
                return home
        return None  # an attribute of a loaded module
    return None


def unloaded_homes(names) -> tuple:
    """:func:`unloaded_home` of each name, those not None, without repeats."""
    return tuple(dict.fromkeys(h for h in map(unloaded_home, names) if h))


# --------------------------------------------------------------------- private helpers
def functions_of(obj) -> list:
    """The Python functions whose code makes up ``obj`` (a function, or a class's methods)."""
    if isinstance(obj, type):
        found = []
        for value in vars(obj).values():
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                found += [f for f in (value.fget, value.fset, value.fdel) if f is not None]
            elif hasattr(value, "__code__"):
                found.append(value)
        return found
    return [obj] if hasattr(obj, "__code__") else []


def lazy_package(module: str) -> str | None:
    """The package whose ``_LAZY`` table names ``module`` as the home of one of its names
    (``kernelcourse.nystroem`` for ``kernelcourse.nystroem.estimator``), or None."""
    package, _, part = module.rpartition(".")
    table = vars(sys.modules[package]).get("_LAZY", {}) if package in sys.modules else {}
    return package if part in set(table.values()) else None


def _helper_module(module: str, caller: str) -> bool:
    """Whether the private functions of ``module`` count as helpers of code in ``caller``:
    its own module's do; for code in a lazy home, so do those of its package's modules that
    load with the package (the estimator classes were split off the functions they share
    helpers with: before, one module held both). Another lazy home's do not."""
    if module == caller:
        return True
    package = lazy_package(caller)
    return bool(package) and module.startswith(package + ".") and not lazy_package(module)


def private_helpers(obj) -> list:
    """The private functions (``_name``) of its own module that ``obj``'s code calls, directly
    or through other such helpers (:func:`_helper_module`: for the code of a lazy home, also
    its package's other modules): a private helper of a forbidden function is a route to the
    same computation (``_rbf_gram``'s tiled kernels). The shared input checks of other modules
    (``_validation.as_2d``) are not followed: every public function uses them."""
    found, seen = [], set()
    todo = list(functions_of(obj))
    while todo:
        func = todo.pop()
        if id(func) in seen:
            continue
        seen.add(id(func))
        codes, names = [func.__code__], set()
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        space = getattr(func, "__globals__", {})
        for name in sorted(names):
            value = space.get(name)
            if (isinstance(value, types.FunctionType) and id(value) not in seen
                    and _helper_module(value.__module__, func.__module__)
                    and value.__name__.startswith("_")):
                found.append(value)
                todo.append(value)
    return found


_IMPORTED: dict = {}


def _helper_names(home: str, name: str) -> tuple:
    """``(module, attribute)`` of the private functions that ``name``, defined in the lazy
    home ``home`` (not loaded), imports from its package's other modules, directly or through
    the private functions of ``home``: read from the source, never imported (once each)."""
    key = (home, name)
    if key not in _IMPORTED:
        _IMPORTED[key] = ()
        spec = importlib.util.find_spec(home)
        try:
            with open(spec.origin, encoding="utf-8") as file:
                tree = ast.parse(file.read())
        except (AttributeError, TypeError, OSError, SyntaxError, ValueError):
            return ()
        defined = {node.name: node for node in tree.body
                   if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
        imported = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(home.split(".")[:-node.level])
                source = f"{base}.{node.module}" if node.module else base
                if _helper_module(source, home):
                    imported.update({a.asname or a.name: (source, a.name) for a in node.names})
        found, todo, seen = [], [name], set()
        while todo:
            node = defined.get(todo.pop())
            if node is None or node.name in seen:
                continue
            seen.add(node.name)
            for used in sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)}):
                if used.startswith("_") and used in imported:
                    found.append(imported[used])
                elif used.startswith("_") and used in defined:
                    todo.append(used)
        _IMPORTED[key] = tuple(dict.fromkeys(found))
    return _IMPORTED[key]


def unloaded_helpers(dotted: str) -> list:
    """The private functions, loaded now, that the object a dotted name of the package names
    would call once its lazy home is loaded (its package's helpers, as
    :func:`private_helpers` would find them then); [] unless that home is all that is missing.
    Imports nothing."""
    home = unloaded_home(dotted)
    if not home or not lazy_package(home):
        return []
    package = home.rpartition(".")[0]
    rest = dotted[len(home) + 1:] if dotted.startswith(home + ".") else dotted[len(package) + 1:]
    name = rest.split(".")[0]
    helpers = []
    for module, attribute in _helper_names(home, name):
        value = vars(sys.modules[module]).get(attribute) if module in sys.modules else None
        if isinstance(value, types.FunctionType):
            helpers.append(value)
    return helpers
