"""The question registry: every module in this package is a set of questions.

A module ``lectureN.py`` holds a module-level list ``QUESTIONS`` of
:class:`kernelcourse.grading.Question`. New modules are found by themselves
(``pkgutil``); nothing here lists them.
"""
from __future__ import annotations

import importlib
import pkgutil

__all__ = ["all_questions", "get_question", "import_errors"]

_REGISTRY: dict | None = None
_ERRORS: dict[str, str] = {}


def _load() -> dict:
    global _REGISTRY
    if _REGISTRY is not None:
        return _REGISTRY
    found: dict = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{__name__}.{info.name}")
        except Exception as exc:  # a broken module must not hide the others
            _ERRORS[info.name] = f"{type(exc).__name__}: {exc}"
            continue
        for question in getattr(module, "QUESTIONS", []):
            if question.id in found:
                raise ValueError(f"question id {question.id!r} is defined twice "
                                 f"(second time in {module.__name__})")
            found[question.id] = question
    _REGISTRY = found
    return found


def all_questions() -> dict:
    """Every registered question, by id, in module order."""
    return dict(_load())


def import_errors() -> dict[str, str]:
    """Modules of this package that failed to import, with their error."""
    _load()
    return dict(_ERRORS)


def get_question(question_id: str):
    """The question with this id; a clear error when there is none."""
    registry = _load()
    if question_id in registry:
        return registry[question_id]
    known = ", ".join(sorted(registry)) or "none"
    broken = "".join(f"; module {name} failed to import ({err})" for name, err in _ERRORS.items())
    raise KeyError(f"no question {question_id!r}; known questions: {known}{broken}")
