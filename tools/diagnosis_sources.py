"""Wrong answers the audit does not make, for ``tools/diagnosis_coverage.py``: mutants of two
slips at once (:func:`second_order_answers`) and the wrong answers written by hand, as students
write them, in the grading tests (:func:`hand_written_answers`)."""
import ast
import copy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernelcourse.grading.audit.engine import (  # noqa: E402
    TICKS_FACTOR, TICKS_SLACK, _unwrap, answer_targets, compile_mutant, ticks_of)
from kernelcourse.grading.audit.operators import _walk  # noqa: E402
from kernelcourse.grading.relations.mutant_words import change_words, mutation_sites  # noqa: E402


def _both(tree, first, second):
    """``tree`` with the replacements of two sites (neither inside the other) made."""
    new = copy.deepcopy(tree)
    places = {}
    for position, (node, parent, field, index, *_) in enumerate(_walk(new)):
        if position in (first[6], second[6]):
            places[position] = (parent, field, index)
    for site in (first, second):
        parent, field, index = places[site[6]]
        replacement = copy.deepcopy(site[5]) if site[5] is not None else ast.Pass()
        if index is None:
            setattr(parent, field, replacement)
        else:
            getattr(parent, field)[index] = replacement
    ast.fix_missing_locations(new)
    return new


def second_order_answers(question, per_question):
    """``(description, answer, words)`` for at most ``per_question`` mutants of two slips in
    one function of the reference (pairs spread over its sites, neither inside the other),
    ``words`` the ``(specific, general)`` words of each slip."""
    from diagnosis_coverage import _patched_reference

    if getattr(question.reference, "answer_key", None) is not None:
        return []
    cases = question.make_cases(0)
    fixed = [c for c in cases if c.fixed]
    if not fixed:
        return []
    out = []
    for target in answer_targets(question, fixed[0]):
        try:
            budget = TICKS_FACTOR * ticks_of(question, target.function, target.tree, cases) + \
                TICKS_SLACK
        except Exception:  # noqa: BLE001
            continue
        reference = target.function is _unwrap(question.reference)
        sites = [s for s in mutation_sites(target.tree)
                 if change_words(target.tree, s, reference)[0]]
        inside = {id(s[0]): {id(n) for n in ast.walk(s[0])} for s in sites}
        for k in range(min(per_question, len(sites) // 2)):
            i = k * len(sites) // per_question
            j = (i + len(sites) // 2 + k) % len(sites)
            a, b = sites[i], sites[j]
            if a[6] == b[6] or id(b[0]) in inside[id(a[0])] or id(a[0]) in inside[id(b[0])]:
                continue
            try:
                compiled = compile_mutant(target.function, _both(target.tree, a, b))
            except Exception:  # noqa: BLE001
                continue
            words = [change_words(target.tree, s, reference) for s in (a, b)]
            out.append((f"{target.short} [{a[3]}] {a[4]}  +  [{b[3]}] {b[4]}",
                        _patched_reference(question, target.function, compiled, budget), words))
        if len(out) >= per_question:
            break
    return out[:per_question]


def hand_written_answers():
    """``(question, label, answer)`` for every wrong answer written by hand in the grading
    tests (``WRONG`` of tests/test_grading_verdicts_sets456.py, the wrong ``STUDENTS`` of
    tests/test_grading_lecture7.py)."""
    from kernelcourse.grading.questions import all_questions

    sys.path.insert(0, str(ROOT / "tests"))
    import test_grading_lecture7 as seven
    import test_grading_verdicts_sets456 as sets456

    registry = all_questions()
    out = []
    for qid, answer, name in sets456.WRONG:
        out.append((registry[qid], f"sets456 {name or 'unnamed'}", answer))
    for qid, answer, name in seven.STUDENTS:
        if name != "pass":
            out.append((registry[qid], f"lecture7 {answer.__name__} {name or 'unnamed'}",
                        answer))
    return out
