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

import pkgutil
import sys

__all__ = ["question_modules", "unloaded_home", "unloaded_homes"]

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
