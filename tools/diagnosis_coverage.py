"""How often a wrong answer hears its real mistake: every mutant of every question's reference
(``kernelcourse.grading.audit``) that fails a case is graded as an answer, and its diagnosis
(named, or by relation: ``kernelcourse.grading.relations``) is checked against the mutant's
real change on the cases of other seeds.

    .venv/bin/python tools/diagnosis_coverage.py                 # every set
    .venv/bin/python tools/diagnosis_coverage.py ex1 ex7 --examples 5

A mutant *hears its mistake* when the grader names a diagnosis whose mistake gives the mutant's
values on every case of seeds 0-2 (a named one), or a relation that holds on every failing case
of seeds 1-3 too (by relation). A named diagnosis whose mistake is not the mutant's is *named
wrong*; a relation that fails on another seed's failing cases is a *wrong relation* (there must
be none).

A mutant that raises on every failing case hears the error itself; when the grader reads a
mistake from the error's words (:mod:`kernelcourse.grading.relations.raised`: a slice one
short, a transpose missing...), the mutant *hears its mistake from the error* only if the kind
those words name (their tag) is one the mutant's change is (:func:`mutation_tags`, read from
the change's operator and numbers) and the same words come on seeds 1-3; otherwise the words
are *raised wrong*, counted as a wrong diagnosis is. These are reported apart from the
diagnoses and relations of values, so the figure without them stays what it was. Mutants are taken as the audit makes them, at most ``--per-question`` of each
question (spread evenly over its list), so the run is deterministic.
"""
import argparse
import re
import sys
import warnings
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from kernelcourse.grading.audit import _value_mutants, select_questions  # noqa: E402
from kernelcourse.grading.audit.engine import (  # noqa: E402
    Budget, TICKS_FACTOR, TICKS_SLACK, _unwrap, answer_targets, compile_mutant, patched,
    ticking, ticks_of)
from kernelcourse.grading.model.compare import values_match  # noqa: E402
from kernelcourse.grading.relations import relation_holds  # noqa: E402
from kernelcourse.grading.relations.catalogue import digest  # noqa: E402
from kernelcourse.grading.relations.mutant_words import change_words, mutation_sites  # noqa: E402
from kernelcourse.grading.relations.mutants import LEVELS, leaving_out  # noqa: E402
from kernelcourse.grading.checking.scoring import score  # noqa: E402
from kernelcourse.grading.model import transport  # noqa: E402
from kernelcourse.grading.sealed.running import run_answer  # noqa: E402


def mutant_answers(question, per_question, with_info=False):
    """``(description, answer)`` for the question's mutants, at most ``per_question``; with
    ``with_info``, ``(description, answer, info)``, ``info`` the mutant's digest and the words
    of its change (:mod:`kernelcourse.grading.relations.mutant_words`), None for a value
    mutant."""
    out = [(f"answer [{m.operator}] {m.change}", answer, None)
           for m, answer in _value_mutants(question)]
    if getattr(question.reference, "answer_key", None) is None:
        cases = question.make_cases(0)
        for target in answer_targets(question, cases[0]):
            try:
                budget = TICKS_FACTOR * ticks_of(question, target.function, target.tree,
                                                 cases) + TICKS_SLACK
            except Exception:  # noqa: BLE001
                continue
            sites = mutation_sites(target.tree)
            reference = target.function is _unwrap(question.reference)
            for (mutation, tree), site in zip(target.mutants(), sites):
                try:
                    compiled = compile_mutant(target.function, tree)
                except Exception:  # noqa: BLE001
                    continue
                info = {"digest": digest(target.name, tree),
                        "words": change_words(target.tree, site, reference)}
                out.append((f"{target.short}:{mutation.lineno} [{mutation.operator}] "
                            f"{mutation.change}",
                            _patched_reference(question, target.function, compiled, budget),
                            info))
    if len(out) > per_question:
        keep = np.linspace(0, len(out) - 1, per_question).round().astype(int)
        out = [out[i] for i in sorted(set(keep))]
    return out if with_info else [(d, a) for d, a, _ in out]


def _patched_reference(question, function, compiled, budget):
    def answer(*args, **kwargs):
        try:
            with ticking(budget), patched(function, compiled):
                return question.reference(*args, **kwargs)
        except (Budget, RecursionError):
            raise RuntimeError("the mutant ran past its budget") from None
    return answer


def _values(func, cases):
    out = []
    for case in cases:
        args, kwargs = case.copied()
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                out.append(("value", transport.roundtrip(func(*args, **kwargs))))
        except Exception as exc:  # noqa: BLE001
            out.append(("error", type(exc).__name__))
    return out


def _records(question, answer, seed):
    cases = question.make_cases(seed)
    records = []
    for case, (kind, actual) in zip(cases, _values(answer, cases)):
        if kind != "value":
            continue
        expected = question.expected(case)
        actual, _ = question.conform(actual, expected)
        records.append((case, actual, expected, question.judge(actual, expected, case)[0]))
    return records


def _same_mistake(question, answer, mistake, seeds):
    for seed in seeds:
        cases = question.make_cases(seed)
        for (k1, v1), (k2, v2) in zip(_values(answer, cases), _values(mistake, cases)):
            if k1 != k2 or (k1 == "value" and not values_match(v1, v2, question.rtol,
                                                              question.atol)[0]):
                return False
    return True


def _passes(question, outcome, case):
    expected = question.expected(case)
    actual, _ = question.conform(transport.decode(outcome["value"]), expected)
    return question.judge(actual, expected, case)[0]


_NUMBER_CHANGE = re.compile(r"^(-?[\d.e+-]+) -> (-?[\d.e+-]+)$")


def mutation_tags(description: str) -> set:
    """The kinds of mistake (the ``tag`` of a :class:`RaisedRelation`'s key) a mutant's change
    is: ``"off by one"`` (a slice shifted, ``n`` and ``n - 1``, a constant or a comparison off
    by one, a ``+ 1`` dropped), ``"order"`` (arguments or operands swapped, a transpose, another
    axis), ``"axis"`` (another axis, an index constant changed), ``"float"`` (a constant made
    fractional, a ``/`` brought in)."""
    m = re.search(r"\[([^\]]+)\] (.*)$", description)
    if not m:
        return set()
    operator, change = m.group(1), m.group(2)
    tags = set()
    if operator in ("slice", "n-1"):
        tags.add("off by one")
    if operator in ("swapped arguments", "swapped operands", "transpose", "axis"):
        tags.add("order")
    if operator == "axis":
        tags.add("axis")
    number = _NUMBER_CHANGE.match(change.strip())
    if operator in ("constant", "default") and number:
        old, new = float(number.group(1)), float(number.group(2))
        tags.add("axis")
        if abs(old - new) == 1:
            tags.add("off by one")
        if new != int(new):
            tags.add("float")
    if operator == "comparison" and re.search(r"<=? .* -> .*<|>=? .* -> .*>", change):
        tags.add("off by one")
    if operator == "dropped term":
        if re.search(r"[+-] 1(\.0)? ->", change):
            tags.add("off by one")
    if operator == "arithmetic" and "/" in change.split("->")[-1]:
        tags.add("float")
    return tags


def _raised_key(question, answer, seed):
    d = _graded(question, answer, seed)[2].diagnosis
    return d.key if d is not None and d.found_by == "raised" else None


def _graded(question, answer, seed=0):
    cases = question.make_cases(seed)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        outcomes = run_answer(answer, cases, question.time_limit)
        return cases, outcomes, score(question, cases, outcomes)


def _mutant_right(diagnosis, words) -> bool:
    """Whether a slip's words (:class:`MutantMatch`) are those of a change whose
    ``(specific, general, coarse)`` words are ``words``, at the level the diagnosis speaks."""
    _, level, text = diagnosis.key
    return text == words[[name for name, _ in LEVELS].index(level)]


def judge_mutant(question, answer, description="", info=None):
    """``(verdict, result)``: verdict one of "passes", "named right", "named wrong",
    "relation right", "relation wrong", "mutant right", "mutant wrong", "unheard", "raised"
    (no diagnosis, and every failing case raised: the exception is what the answer hears),
    "raised heard" (every failing case raised, and the words read from the error name the
    mutation's kind of change, on seeds 0-3 alike: :func:`mutation_tags`), "raised wrong"
    (they name another kind, or change with the seed).

    With ``info`` (the mutant's digest and words, :func:`mutant_answers`), the catalogue of
    the reference's slips is matched without that mutant and every mutant of the same text
    (leave one out): "mutant right" when the words named are the mutant's own change's (or
    its kind's, when the matches share only that), "mutant equivalent" when the words are
    another change's that makes the same program (a mutant matched gives the mutant's values
    on every case of seeds 0-2: "a division left out" for ``a / (1 + e)`` made ``a / 1``),
    "mutant wrong" otherwise. An answer that is no audit mutant (no info) is judged by
    :func:`_slip_holds` alone."""
    with leaving_out({info["digest"]} if info else set()):
        cases, outcomes, result = _graded(question, answer)
    if result.status != "failed":
        return "passes", result
    d = result.diagnosis
    if d is None:
        raised = all(o.get("kind") != "value" for o, case in zip(outcomes, cases)
                     if o.get("kind") != "value" or not _passes(question, o, case))
        return ("raised" if raised else "unheard"), result
    if d.found_by == "mutant":
        if info and _mutant_right(d, info["words"]):
            return "mutant right", result
        if _slip_holds(question, answer, d):
            return ("mutant equivalent" if info else "mutant right"), result
        return "mutant wrong", result
    if d.found_by == "raised":
        ok = d.key[1] in mutation_tags(description) and all(
            _raised_key(question, answer, s) == d.key for s in (1, 2, 3))
        return ("raised heard" if ok else "raised wrong"), result
    if d.found_by == "relation":
        ok = all(relation_holds(question, d, _records(question, answer, s)) for s in (1, 2, 3))
        return ("relation right" if ok else "relation wrong"), result
    if d.behaviour is not None or d.detect is not None:
        return "named right", result   # a behaviour or a detected answer: named as seen
    ok = _same_mistake(question, answer, d.mistake, (0, 1, 2))
    return ("named right" if ok else "named wrong"), result


def _slip_holds(question, answer, diagnosis) -> bool:
    """For an answer no mutant is (written by hand, or two slips at once): whether one of the
    mutants matched gives the answer's values on every case of seeds 0-2, drawn ones too
    (run here, under the audit's budget): the words "behaves as if" hold beyond the fixed
    cases they were read from."""
    wanted = {(f, n) for f, n, _ in diagnosis.mutants}
    cases = question.make_cases(0)
    for target in answer_targets(question, next(c for c in cases if c.fixed)):
        budget = TICKS_FACTOR * ticks_of(question, target.function, target.tree, cases) + \
            TICKS_SLACK
        for number, (mutation, tree) in enumerate(target.mutants()):
            if (target.short, number) not in wanted:
                continue
            mistake = _patched_reference(question, target.function,
                                         compile_mutant(target.function, tree), budget)
            if _same_mistake(question, answer, mistake, (0, 1, 2)):
                return True
    return False


KEYS = ["named right", "relation right", "mutant right", "mutant equivalent", "named wrong",
        "relation wrong", "mutant wrong", "unheard", "raised heard", "raised wrong", "raised"]
#: the verdicts that hear the real mistake
HEARD = ("named right", "relation right", "mutant right", "mutant equivalent")


def _table(counts, title) -> list:
    """The per-set table and the totals of ``counts`` (set -> verdict -> n), before the
    slips (:mod:`kernelcourse.grading.relations.mutants`) and with them."""
    lines = [title, f"{'set':<6} {'failing':>7} {'before':>7} {'after':>7} {'+raised':>8}  " +
             " ".join(f"{k:>14}" for k in KEYS)]
    total = defaultdict(int)
    for set_name, c in counts.items():
        failing = sum(v for k, v in c.items() if k != "passes")
        before = c["named right"] + c["relation right"]
        after = before + c["mutant right"] + c["mutant equivalent"]
        for k in KEYS:
            total[k] += c[k]
        total["failing"] += failing
        lines.append(f"{set_name:<6} {failing:>7} {before / max(failing, 1):>7.1%} "
                     f"{after / max(failing, 1):>7.1%} "
                     f"{(after + c['raised heard']) / max(failing, 1):>8.1%}  " +
                     " ".join(f"{c[k]:>14}" for k in KEYS))
    failing = max(total["failing"], 1)
    before = total["named right"] + total["relation right"]
    after = before + total["mutant right"] + total["mutant equivalent"]
    raised = total["raised"] + total["raised heard"] + total["raised wrong"]
    wrong = total["named wrong"] + total["relation wrong"] + total["mutant wrong"] + \
        total["raised wrong"]
    lines.append(
        f"all: {after}/{total['failing']} failing answers hear their real mistake from a "
        f"diagnosis, a relation of values or a slip of the reference ({after / failing:.1%}; "
        f"before the slips {before}/{total['failing']} = {before / failing:.1%}): "
        f"{total['named right']} named, {total['relation right']} by relation, "
        f"{total['mutant right'] + total['mutant equivalent']} by a slip (of which "
        f"{total['mutant equivalent']} in the words of an equivalent change); "
        f"{total['relation wrong']} wrong relations, "
        f"{total['mutant wrong']} wrong slips, {total['named wrong']} named diagnoses not "
        f"the answer's change")
    lines.append(
        f"raised on every failing case: {raised}, of which {total['raised heard']} hear "
        f"their mistake from the error's words and {total['raised wrong']} are told another "
        f"kind; with those, {after + total['raised heard']}/{total['failing']} = "
        f"{(after + total['raised heard']) / failing:.1%} hear their real mistake (before the "
        f"slips {(before + total['raised heard']) / failing:.1%}); wrong diagnoses of any "
        f"kind: {wrong}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", help="question ids or set names (default: all)")
    parser.add_argument("--per-question", type=int, default=12)
    parser.add_argument("--examples", type=int, default=0,
                        help="print this many diagnoses by relation and by slip, with their "
                             "mutants")
    parser.add_argument("--verbose", action="store_true", help="a line per failing answer")
    parser.add_argument("--second-order", type=int, default=0, metavar="N",
                        help="also grade N mutants of two slips at once per question")
    parser.add_argument("--hand-written", action="store_true",
                        help="also grade the wrong answers written by hand in tests/")
    args = parser.parse_args(argv)
    questions = select_questions(args.sets or None)
    counts = defaultdict(lambda: defaultdict(int))
    examples = []
    for question in questions:
        for description, answer, info in mutant_answers(question, args.per_question, True):
            verdict, result = judge_mutant(question, answer, description, info)
            counts[question.set_name][verdict] += 1
            if args.verbose and verdict != "passes":
                said = result.diagnosis.message if result.diagnosis else ""
                print(f"{question.id} {verdict:<15} {description}  ->  {said}", flush=True)
            if verdict in ("relation right", "mutant right", "mutant equivalent"):
                examples.append((question.id, description, result.diagnosis.message))
    print("\n".join(_table(counts, "(a) the audit's mutants, each matched against the other "
                                    "mutants only (leave one out)")))
    step = max(len(examples) // max(args.examples, 1), 1)
    for qid, description, message in examples[::step][:args.examples]:
        print(f"  {qid} {description}\n      -> {message}")
    if args.second_order:
        from diagnosis_sources import second_order_answers
        counts = defaultdict(lambda: defaultdict(int))
        for question in questions:
            for description, answer, words in second_order_answers(question, args.second_order):
                verdict, result = judge_other(question, answer, words, description)
                counts[question.set_name][verdict] += 1
                if args.verbose and verdict != "passes":
                    said = result.diagnosis.message if result.diagnosis else ""
                    print(f"{question.id} {verdict:<15} {description}  ->  {said}", flush=True)
        print("\n".join(_table(counts, "(b) mutants of two slips at once")))
    if args.hand_written:
        from diagnosis_sources import hand_written_answers
        counts = defaultdict(lambda: defaultdict(int))
        ids = {q.id for q in questions}
        for question, label, answer in hand_written_answers():
            if question.id not in ids:
                continue
            verdict, result = judge_other(question, answer, None)
            counts[question.set_name][verdict] += 1
            if (args.verbose or verdict.startswith("mutant")) and verdict != "passes":
                said = result.diagnosis.message if result.diagnosis else ""
                print(f"{question.id} {verdict:<15} {label}  ->  {said}", flush=True)
        print("\n".join(_table(counts, "(b) wrong answers written by hand (tests/)")))
    return 0


def judge_other(question, answer, words, description=""):
    """:func:`judge_mutant` for an answer that is no single mutant of the audit: a slip named
    is right when its words are one of ``words`` (the two changes of a second-order mutant,
    each ``(specific, general, coarse)``), equivalent when they are not but a matched mutant
    gives the answer's values on every case of seeds 0-2 (the same program), and with no
    ``words`` (an answer written by hand) right in that case alone. Words read from an
    error are judged against the kinds of the two changes (:func:`mutation_tags`); for an
    answer written by hand they cannot be, and count as "raised"."""
    verdict, result = judge_mutant(question, answer)
    if verdict in ("raised heard", "raised wrong"):
        # the error's words against the kinds of the two changes (none for an answer written
        # by hand: its words cannot be judged here, counted as raised)
        tags = set().union(*(mutation_tags(part) for part in description.split("  +  "))) \
            if words else set()
        d = result.diagnosis
        ok = d.key[1] in tags and all(_raised_key(question, answer, s) == d.key
                                      for s in (1, 2, 3))
        verdict = "raised heard" if ok else ("raised wrong" if words else "raised")
    if verdict.startswith("mutant") and words is not None:
        if any(_mutant_right(result.diagnosis, w) for w in words):
            verdict = "mutant right"
        elif verdict == "mutant right":       # the same program as a matched mutant
            verdict = "mutant equivalent"
    return verdict, result


if __name__ == "__main__":
    raise SystemExit(main())
