"""Names a package hands out when they are first asked for (PEP 562).

The estimator classes subclass scikit-learn's ``BaseEstimator``, and importing scikit-learn
takes seconds on a cold start, which a notebook's first ``check()`` (issue 40) and the
functions of a lecture never need. A package keeps such names out of its ``__init__``: its
``_LAZY`` table maps each name to the submodule (relative to the package) that defines it, and
the package's ``__getattr__``, made here, imports that submodule when the name is first asked
for. The grader reads the same table (``kernelcourse.grading.model.loaded``) to know which
module an answer would load by reaching the name.

The package also writes the same imports under ``if TYPE_CHECKING:``, a block that never runs:
type checkers read the names there, and the import-graph test (``tests/test_imports.py``)
reads the edges to the lazy submodules, so a circle through them cannot hide. A test checks
that the block and the table name the same objects.

Usage, in a package's ``__init__``::

    from typing import TYPE_CHECKING

    from .._lazy import lazy_attributes

    if TYPE_CHECKING:
        from .estimator import MAPRegression

    _LAZY = {"MAPRegression": "estimator"}
    __getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
"""
from __future__ import annotations

import importlib
import sys

__all__ = ["lazy_attributes", "LazyModule", "lazy_function"]


def lazy_attributes(package: str, table: dict[str, str], public=()) -> tuple:
    """``(__getattr__, __dir__)`` for the module ``package``.

    ``table`` maps a name to the submodule of ``package`` that defines it; the first time the
    name is asked for, ``__getattr__`` imports that submodule and keeps the object in the
    package's namespace. ``__dir__`` lists the package's names, ``public`` and the table's.
    """
    def __getattr__(name: str):
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(public) | set(table))

    __getattr__.__doc__ = (f"A name of {package}'s ``_LAZY`` table, imported from its submodule "
                           f"when first asked for (PEP 562).")
    return __getattr__, __dir__


class LazyModule:
    """A stand-in for the module ``name``, imported when one of its attributes is first used.

    For a library that only some functions of a module call: ``linalg =
    LazyModule("scipy.linalg")`` at the top, ``linalg.cholesky(A)`` in those functions, and the
    module's import costs nothing more (importing scipy.linalg takes about a second of CPU, most
    of what a notebook's first check of set 8 cost while lecture 8's modules imported it).
    """

    __slots__ = ("_module_name",)

    def __init__(self, name: str):
        self._module_name = name

    def __getattr__(self, attr: str):
        if attr == "_module_name":  # not set yet (a copy being made)
            raise AttributeError(attr)
        return getattr(importlib.import_module(self._module_name), attr)

    def __repr__(self) -> str:
        return f"<module {self._module_name!r}, imported when first used>"


def lazy_function(module: str, name: str):
    """The function ``name`` of ``module`` (``lazy_function("scipy.special", "expit")``), the
    module imported at the first call (see :class:`LazyModule`)."""
    def call(*args, **kwargs):
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{module}.{name}``, its module imported at the first call."
    return call
