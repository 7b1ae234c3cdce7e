"""The question model: how a question is defined, and how a check judges an answer by it.

Every answer in the course is a **function** the student writes. A question
knows the package's reference implementation of that function and how to draw
fresh random inputs; a check calls the student's function on those inputs and
compares with the reference, the properties the lecture states, and the
mistakes students are known to make.

Defining a question (one module per lecture, ``grading/questions/lectureN.py``,
holding a module-level list ``QUESTIONS``, or a package ``lectureN/`` with a module
per section whose ``__init__`` holds that list; the registry finds new modules by
itself)::

    from kernelcourse.grading import Case, Diagnosis, Property, Question

    def _cases(rng):                      # fresh inputs, from a seeded Generator
        X = rng.normal(size=(4, 3))
        return [Case(args=(X, X[:2]), label="X of shape (4, 3), Z = X[:2]")]

    QUESTIONS = [Question(
        id="ex1.q2", title="all-subsets kernel", function="all_subsets_kernel",
        points=3, reference=all_subsets_kernel, cases=_cases,
        diagnoses=[Diagnosis(
            "sum instead of product",
            "you added the factors (1 + x_k z_k); the kernel multiplies them",
            mistake=lambda X, Z: (1 + X[:, None, :] * Z[None, :, :]).sum(-1))],
        properties=[Property("symmetric", lambda K, case: ..., "K should equal K.T")],
        hint="multiply (1 + x_k z_k) over the features k",
    )]

The parts:

``Question(id, title, function, points, reference, cases, ...)``
    ``id`` is ``<set>.<name>``: ``ex1.q3`` for exercise set 1, ``l1.cp2`` for a
    checkpoint in lecture 1's notebook; the set (before the dot) groups the
    points shown as "so far". ``function`` is the name the student's answer
    defines. ``reference(*case.args, **case.kwargs)`` gives the expected value.
    ``cases(rng)`` returns a list of :class:`Case` built from the
    ``numpy.random.Generator`` it is given (the drawn cases);
    ``fixed_cases()`` the cases graded in every run whatever the seed, before
    the drawn ones (each marked ``Case.fixed``; ``fixed_draw(cases, seed,
    extra=...)`` builds them from one constant draw plus edge cases written
    out). **Partial credit** (:func:`~kernelcourse.grading.checking.scoring.credit`):
    the points are split evenly over the fixed cases, and an answer earns the
    share of each fixed case it passes; the drawn cases can only find more: an
    answer that passes every fixed case but fails a drawn one earns the share
    of the drawn cases it passes, at most one fixed case's share below full
    marks (a table of the public fixed cases' answers earns nothing). So an
    answer that fails a fixed case (every named mistake
    must, ``tests/test_grading_verdicts.py``) earns the same points in every
    run, in ``check`` and in the grader alike. A question without fixed cases
    splits its points over all its cases. ``rtol``/``atol`` set the comparison of numbers;
    ``time_limit`` (seconds) caps the time of all cases of one check together.
    ``hint`` is the message of the ``NotImplementedError`` stub that the
    student version of an exercise notebook holds. ``forbidden`` names the
    package functions and classes whose use would answer the question (dotted
    names such as ``"kernelcourse.features.all_subsets_map"``): an answer that
    uses one, or the grader's own reference answers, scores 0 with the reason
    (see :mod:`kernelcourse.grading.model.shortcuts`). With
    ``compare_reference=False`` only the properties decide (for answers that
    are right in many ways, such as a witness that a matrix is not PSD); the
    reference then only serves the messages.
``Case(args, kwargs, label, fixed=False)``
    One input (``fixed``: one of the question's fixed cases; every case of
    :func:`choice_parts` is fixed). Arguments must be plain data (numbers, strings, bools, None,
    numpy arrays of bool/int/float, and lists, tuples, sets, dicts of them):
    the grading command sends them to a separate worker process as JSON. A
    random draw inside an answer therefore takes an integer ``seed``, and a
    kernel passed to an answer is passed by name or as its Gram matrix.
``Diagnosis(name, message, mistake, detect=None)``
    A known misconception. ``mistake`` has the reference's signature and
    computes what the misconception gives; when a failing answer matches it
    on the cases where it differs from the reference, ``message`` is shown
    ("Likely mistake: ...") beside a failing case where the answer agrees
    with the mistake, never beside another case's failure. When several
    mistakes match some cases, the one agreeing with the answer on the most
    cases wins (see :meth:`Question.diagnose_where`), so two mistakes that
    coincide on one input, or give the same True/False there, are still told
    apart. Every diagnosis's mistake must fail a fixed case: the verdict table
    (``tools/verdict_table.py ex1``) shows its points under 20 seeds.
    ``detect(actual, case) -> bool`` replaces the match where many outputs
    reveal the same mistake (``mistake`` is still required: the tests use it).
``kind``, ``section``, ``hints``
    ``kind`` is one of :data:`~kernelcourse.grading.model.question.KINDS` (formula, derive, predict,
    witness, fix, parameter, choice); only "formula" prints the formula it asks for.
    ``section`` is the syllabus number the question points to. ``hints`` are tiers, a nudge
    first; ``hint(id)`` in a notebook prints the next, and from the second failed check on each
    failed check prints the next one. The stub of an answer cell never holds a hint (its
    message only names ``hint("<id>")``), and no hint or stub line may equal a line of the
    solution (``tests/test_exercise_quality.py``).
``constraints`` (:class:`Constraint`)
    Rules about *how* the answer works, checked by behaviour after each call: the arguments
    are compared after the call (``inputs_unchanged()``: nothing modified in place), and
    probe arguments report how they were used (:mod:`kernelcourse.grading.model.probes`:
    ``RowSource`` and ``rows_at_most`` for "chunk by chunk"). A right value that breaks a
    constraint fails the case with the constraint's message; ``Diagnosis(behaviour=...)``
    (e.g. ``modified_input("u")``) names such a mistake.
``Property(name, predicate, message)``
    ``predicate(actual, case) -> bool``, a fact the lecture states (symmetry,
    PSD, an identity). A case passes when it matches the reference (if
    compared) and every property holds.

In a notebook, ``check("ex1.q2", all_subsets_kernel)`` prints one line and
returns None. Each call runs the fixed cases and draws new inputs (the seed
advances with every call, so a fresh kernel repeats the same sequence). The
line gives the verdict first: "passed" with the points, "not attempted" for a
stub that raises NotImplementedError, or "failed" with the points and how
many fixed and drawn cases passed; then the failing case reported (the one
where the diagnosis shows, else the first that failed) by its number and
label, the expected and the actual value (numbers rounded to the question's
tolerance: an expected 0 prints as 0), the misconception when a diagnosis
matches, and the case's inputs written in full as Python, or, when they are
long, the call ``case_inputs(question_id, number[, seed=...])`` that prints
them (a label that already states every input is not repeated); and the
points so far in this session for the question's set. Nothing is cut inside
a word; only a very long failure description is shortened, after a word.

``tests/test_grading_questions.py`` sweeps every registered question: its
reference scores full marks, a stub is "not attempted", each diagnosis fires
on its own ``mistake`` and none on the reference's answer, and the cases are
plain data that depend on the seed. :func:`~kernelcourse.grading.checking.scoring.evaluate` runs one
check without printing (``evaluate(question, function, seed)`` returns a
:class:`~kernelcourse.grading.checking.scoring.Result`).

Fair to honest answers: an honest form of the type asked counts as that type
(:func:`~kernelcourse.grading.model.compare.values_match`): where a bool is asked, a ``numpy.bool_``
or a 0-d boolean array; where an int is asked, a NumPy integer or a 0-d integer array; where an
option letter is asked, the letter in either case with blanks around it. The comparison's
tolerance follows the answer's dtype (a float32 answer is compared to within 32 float32 units in the last place of the largest expected entry,
:func:`~kernelcourse.grading.model.compare.dtype_tolerance`), and one shape policy holds everywhere
(:func:`~kernelcourse.grading.model.compare.conform_shape`): an answer whose shape differs from the
expected one only by axes of length 1, such as ``(n, 1)`` where ``(n,)`` is asked, is accepted
with a note that names both shapes; any other shape fails with a message naming both. A verdict
line too long gives the inputs' place to the call that prints them, never cuts the diagnosis.

Answers are judged on plain data only: the value an answer returns goes
through :mod:`kernelcourse.grading.model.transport` before it is compared, both here
and in the grading command (which runs answers in a worker process and compares
in the parent), so both give the same verdict.

Of ``grading/``'s other rooms this one imports only the question registry (which finds the
question modules by itself); the rooms above stand on it. The parts:
:mod:`~kernelcourse.grading.model.question` (``Question``, ``Case``, ``Diagnosis``,
``Property``), :mod:`~kernelcourse.grading.model.compare` (``values_match``,
``format_value``), :mod:`~kernelcourse.grading.model.probes` (inputs that watch how an answer
uses them), :mod:`~kernelcourse.grading.model.transport` (cases and answers as plain data),
:mod:`~kernelcourse.grading.model.shortcuts` (no reference shortcut) and
:mod:`~kernelcourse.grading.model.loaded` (what a first check left unloaded). The question API's
names import from here and from :mod:`kernelcourse.grading`.
"""
from __future__ import annotations

from .compare import format_value, values_match
from .question import (Case, Constraint, Diagnosis, Property, Question, choice_diagnoses,
                       choice_parts, fixed_draw, inputs_unchanged, modified_input)

__all__ = [
    "Case",
    "Constraint",
    "Diagnosis",
    "choice_diagnoses",
    "choice_parts",
    "fixed_draw",
    "inputs_unchanged",
    "modified_input",
    "Property",
    "Question",
    "values_match",
    "format_value",
]
