"""The checks every question must pass, for instructors' own questions too.

``kernelcourse questions check [IDS] [--questions-from DIR]`` runs :func:`check_question` on
each question: its cases are plain data, reproducible and depend on the seed; the reference
scores full marks on several seeds with no diagnosis; a stub scores "not attempted"; each
diagnosis fires on its own mistake, which fails a fixed case when the question has some; the forbidden names exist. The course's own test suite
runs the same checks on the course's questions (``tests/test_grading_questions.py``).
"""
from __future__ import annotations

__all__ = ["check_question"]


def check_question(q, seeds=(0, 1, 2)) -> list[str]:
    """The problems of question ``q`` (an empty list when it is ready to use)."""
    from ..model import transport
    from ..checking.scoring import evaluate
    from ..model.shortcuts import forbidden_objects

    problems = []
    try:
        first, again, other = q.make_cases(seeds[0]), q.make_cases(seeds[0]), \
            q.make_cases(seeds[0] + 1)
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return [f"{q.id}: cases(rng) failed: {type(exc).__name__}: {exc}"]
    if len(first) < 2:
        problems.append(f"{q.id}: give at least 2 cases (partial credit needs several)")
    try:
        if [transport.dumps([list(c.args), c.kwargs]) for c in first] != \
                [transport.dumps([list(c.args), c.kwargs]) for c in again]:
            problems.append(f"{q.id}: the same seed gives other cases (draw only from rng)")
        if [transport.dumps(list(c.args)) for c in first] == \
                [transport.dumps(list(c.args)) for c in other]:
            problems.append(f"{q.id}: the cases ignore the seed (draw them from rng)")
    except Exception as exc:  # noqa: BLE001
        problems.append(f"{q.id}: a case is not plain data ({type(exc).__name__}: {exc}); "
                        "use numbers, strings, numpy arrays, and lists/tuples/dicts of them")
    for seed in seeds:
        result = evaluate(q, q.reference, seed, detect_shortcuts=False)
        if result.status != "passed" or result.diagnosis is not None:
            problems.append(f"{q.id}: the reference does not pass (seed {seed}): "
                            f"{result.line()}")
            break

    def stub(*args, **kwargs):
        raise NotImplementedError(q.hint)

    if evaluate(q, stub, seeds[0]).status != "not attempted":
        problems.append(f"{q.id}: a stub raising NotImplementedError is not 'not attempted'")
    for d in q.diagnoses:
        results = [evaluate(q, d.mistake, s, detect_shortcuts=False) for s in seeds]
        fired = [r.diagnosis for r in results]
        if any(r.n_fixed and r.fixed_passed == r.n_fixed for r in results):
            problems.append(f"{q.id}: the mistake of {d.name!r} passes every fixed case, so its "
                            "points depend on the seed: add a fixed case where it shows")
        if not any(f is not None and f.name == d.name for f in fired):
            problems.append(f"{q.id}: the diagnosis {d.name!r} does not fire on its own mistake "
                            "(do the cases include one where the mistake differs from the "
                            "reference?)")
    for name in q.forbidden:
        try:
            forbidden_objects([name])
        except ValueError as exc:
            problems.append(f"{q.id}: {exc}")
    return problems
