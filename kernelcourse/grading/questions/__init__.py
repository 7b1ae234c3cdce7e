"""The question registry: every module in this package is a set of questions.

A module ``lectureN.py`` (or a package ``lectureN/``, one module per section, whose
``__init__`` gathers them) holds a module-level list ``QUESTIONS`` of
:class:`kernelcourse.grading.Question`. New modules are found by themselves
(``pkgutil``); nothing here lists them.

Instructors' own questions live outside the package, in folders named by the environment
variable ``KERNELCOURSE_QUESTIONS`` (several separated by ``os.pathsep``), or added with
:func:`use_questions_from` (what ``kernelcourse grade --questions-from DIR`` calls): every
``*.py`` file there not starting with ``_`` is a module whose ``QUESTIONS`` list is registered
after the course's own, so a course update never touches them (guide:
``docs/writing-questions.md``).

**Only what a set needs.** :func:`get_question` and :func:`set_questions` import the modules of
one lecture only (``lectureN`` and ``lectureN_*`` for the sets ``exN`` and ``lN``), so the first
``check()`` in a notebook does not import every lecture's questions (and the libraries they
use); :func:`all_questions` imports them all.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import pkgutil
import re
import sys
from pathlib import Path

__all__ = ["all_questions", "get_question", "import_errors", "use_questions_from",
           "question_folders", "set_questions", "ENVIRONMENT_VARIABLE"]

#: The environment variable naming the folders of instructors' own questions.
ENVIRONMENT_VARIABLE = "KERNELCOURSE_QUESTIONS"


def question_folders() -> list[Path]:
    """The folders of instructors' own questions (from ``KERNELCOURSE_QUESTIONS``), resolved."""
    raw = os.environ.get(ENVIRONMENT_VARIABLE, "")
    folders = [Path(p).expanduser().resolve() for p in raw.split(os.pathsep) if p.strip()]
    return list(dict.fromkeys(folders))


def use_questions_from(folder) -> Path:
    """Add ``folder`` to the instructors' question folders (in ``KERNELCOURSE_QUESTIONS``, so
    the grading workers see it too) and load the registry afresh."""
    global _REGISTRY
    path = Path(folder).expanduser().resolve()
    if not path.is_dir():
        raise ValueError(f"no folder of questions at {str(folder)!r}")
    folders = [str(p) for p in question_folders()]
    if str(path) not in folders:
        os.environ[ENVIRONMENT_VARIABLE] = os.pathsep.join([*folders, str(path)])
    _REGISTRY = None
    _ERRORS.clear()
    return path


def _external_modules():
    """``(label, module)`` for every question file of the instructors' folders."""
    for folder in question_folders():
        if not folder.is_dir():
            _ERRORS[str(folder)] = f"{ENVIRONMENT_VARIABLE} names {folder}, which is no folder"
            continue
        tag = hashlib.sha256(str(folder).encode()).hexdigest()[:8]
        for file in sorted(folder.glob("*.py")):
            if file.name.startswith("_"):
                continue
            # named under this package, so the sandbox's tripwires treat its references as
            # the grader's own answers
            name = f"{__name__}.ext_{tag}_{file.stem}"
            try:
                if name not in sys.modules:
                    spec = importlib.util.spec_from_file_location(name, file)
                    module = importlib.util.module_from_spec(spec)
                    sys.modules[name] = module
                    try:
                        spec.loader.exec_module(module)
                    except BaseException:
                        del sys.modules[name]
                        raise
                yield str(file), sys.modules[name]
            except Exception as exc:  # a broken file must not hide the others
                _ERRORS[str(file)] = f"{type(exc).__name__}: {exc}"

_REGISTRY: dict | None = None
_ERRORS: dict[str, str] = {}
_FOLDERS: list = []


def _load() -> dict:
    global _REGISTRY, _FOLDERS
    folders = question_folders()
    if _REGISTRY is not None and folders == _FOLDERS:
        return _REGISTRY
    _FOLDERS = folders
    found: dict = {}
    modules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            modules.append((info.name, importlib.import_module(f"{__name__}.{info.name}")))
        except Exception as exc:  # a broken module must not hide the others
            _ERRORS[info.name] = f"{type(exc).__name__}: {exc}"
    modules += list(_external_modules())
    for label, module in modules:
        for question in getattr(module, "QUESTIONS", []):
            if question.id in found:
                raise ValueError(f"question id {question.id!r} is defined twice "
                                 f"(second time in {label})")
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


_SET = re.compile(r"(?:ex|l)(\d+)")


def set_questions(set_name: str) -> dict:
    """The questions of one set (``ex1``, ``l1``), by id, in module order, importing only the
    modules of its lecture when they hold them all (no instructors' folder, no other module
    naming the set); else from the whole registry."""
    match = _SET.fullmatch(str(set_name))
    if _REGISTRY is None and match and not question_folders():
        lecture = f"lecture{match.group(1)}"
        found: dict = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if info.name == lecture or info.name.startswith(lecture + "_"):
                try:
                    module = importlib.import_module(f"{__name__}.{info.name}")
                except Exception:  # noqa: BLE001 - the whole load reports it
                    return set_questions_of(_load(), set_name)
                found.update({q.id: q for q in getattr(module, "QUESTIONS", [])
                              if q.set_name == set_name})
        if found:
            return found
    return set_questions_of(_load(), set_name)


def set_questions_of(registry: dict, set_name: str) -> dict:
    return {k: q for k, q in registry.items() if q.set_name == set_name}


def get_question(question_id: str):
    """The question with this id (importing only its lecture's modules when they hold it); a
    clear error when there is none."""
    if _REGISTRY is None and "." in str(question_id):
        question = set_questions(str(question_id).split(".", 1)[0]).get(question_id)
        if question is not None:
            return question
    registry = _load()
    if question_id in registry:
        return registry[question_id]
    known = ", ".join(sorted(registry)) or "none"
    broken = "".join(f"; module {name} failed to import ({err})" for name, err in _ERRORS.items())
    raise KeyError(f"no question {question_id!r}; known questions: {known}{broken}")
