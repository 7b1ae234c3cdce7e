"""``grading/`` is a house of rooms on floors: a module imports its own room or a room on a
floor below, never one above nor one beside it, and the package's root holds only its
``__init__``.

The floors, from the bottom (ARCHITECTURE.md, "Grading"):

0. ``intake`` (submissions read as data) and the question registry (``questions/__init__``,
   which finds the question modules by itself and imports none of them by name);
1. ``model``: the question model (a question, its cases as plain data, the comparison, the
   probes, the rule against the course's own answers);
2. ``audit``: the mutation engine (a reference's mutants, run under a tick budget and a
   memory cap), which the audit of the bank and the diagnosis by slips both use;
3. ``relations`` (how a wrong value relates to the expected one, and which slip of the
   reference gives it), ``sealed`` (the runner of submitted code) and the question bank
   (``questions/lectureN/``);
4. ``checking``: the one judge and the notebook's ``check``;
5. ``gradebook``: what the command writes and the hand-back reads;
6. ``command`` (the instructor's commands);
7. ``handback``; 8. ``challenge``; 9. the package's page, ``kernelcourse.grading`` itself.

The graph is the one ``tests/test_imports.py`` reads: every import statement, at module level
or inside a function.
"""
from __future__ import annotations

from test_imports import PACKAGE_DIR, import_graph

GRADING = "kernelcourse.grading"

FLOORS = [
    {"intake", "questions"},
    {"model"},
    {"audit"},
    {"relations", "sealed", "questions.*"},
    {"checking"},
    {"gradebook"},
    {"command"},
    {"handback"},
    {"challenge"},
    {"(page)"},
]
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}


def room_of(module: str) -> str | None:
    """The room of a module of ``grading/`` (None for a module outside it)."""
    if module == GRADING:
        return "(page)"
    if not module.startswith(GRADING + "."):
        return None
    parts = module[len(GRADING) + 1:].split(".")
    if parts[0] == "questions":
        return "questions" if len(parts) == 1 else "questions.*"   # the registry, the bank
    return parts[0]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of ``graph`` from one room of ``grading/`` into another room on the same
    floor or a higher one, as 'module (room, floor) -> module (room, floor)'."""
    found = []
    for module, targets in sorted(graph.items()):
        room = room_of(module)
        if room is None:
            continue
        for target in sorted(targets):
            other = room_of(target)
            if other is None or other == room:
                continue
            if FLOOR[other] >= FLOOR[room]:
                found.append(f"{module} ({room}, floor {FLOOR[room]}) -> "
                             f"{target} ({other}, floor {FLOOR[other]})")
    return found


def test_every_room_of_grading_is_on_a_floor():
    rooms = {room_of(m) for m in import_graph()} - {None}
    assert rooms <= set(FLOOR), f"rooms on no floor: {sorted(rooms - set(FLOOR))}"
    folders = {p.name for p in (PACKAGE_DIR / "grading").iterdir()
               if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(FLOOR), f"rooms on no floor: {sorted(folders - set(FLOOR))}"


def test_no_import_runs_up_a_floor_inside_grading():
    found = upward_imports(import_graph())
    assert found == [], "imports that run up a floor, or across one:\n" + "\n".join(found)


def test_the_floor_check_finds_an_upward_and_a_sideways_import():
    planted = {f"{GRADING}.model.question": {f"{GRADING}.checking.scoring",
                                             f"{GRADING}.model.compare"},
               f"{GRADING}.sealed.running": {f"{GRADING}.relations"},
               f"{GRADING}.checking.scoring": {f"{GRADING}.questions",
                                               f"{GRADING}.sealed.running"},
               f"{GRADING}.questions.lecture1": {f"{GRADING}.model"}}
    assert upward_imports(planted) == [
        f"{GRADING}.model.question (model, floor 1) -> {GRADING}.checking.scoring "
        "(checking, floor 4)",
        f"{GRADING}.sealed.running (sealed, floor 3) -> {GRADING}.relations (relations, floor 3)"]


def test_the_root_of_grading_holds_only_its_init():
    modules = sorted(p.name for p in (PACKAGE_DIR / "grading").glob("*.py"))
    assert modules == ["__init__.py"], f"modules at grading/'s root: {modules}"
