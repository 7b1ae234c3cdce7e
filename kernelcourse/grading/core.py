"""Questions that check themselves: the definition API and ``check``.

Every answer in the course is a **function** the student writes. A question
knows the package's reference implementation of that function and how to draw
fresh random inputs; a check calls the student's function on those inputs and
compares with the reference, the properties the lecture states, and the
mistakes students are known to make.

Defining a question (one module per lecture, ``grading/questions/lectureN.py``,
holding a module-level list ``QUESTIONS``; the registry finds new modules by
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
    ``numpy.random.Generator`` it is given. Points are split evenly over the
    cases (partial credit). ``rtol``/``atol`` set the comparison of numbers;
    ``time_limit`` (seconds) caps the time of all cases of one check together.
    ``hint`` is the message of the ``NotImplementedError`` stub that the
    student version of an exercise notebook holds. ``forbidden`` names the
    package functions and classes whose use would answer the question (dotted
    names such as ``"kernelcourse.features.all_subsets_map"``): an answer that
    uses one, or the grader's own reference answers, scores 0 with the reason
    (see :mod:`kernelcourse.grading.shortcuts`). With
    ``compare_reference=False`` only the properties decide (for answers that
    are right in many ways, such as a witness that a matrix is not PSD); the
    reference then only serves the messages.
``Case(args, kwargs, label)``
    One input. Arguments must be plain data (numbers, strings, bools, None,
    numpy arrays of bool/int/float, and lists, tuples, sets, dicts of them):
    the grading command sends them to a separate worker process as JSON. A
    random draw inside an answer therefore takes an integer ``seed``, and a
    kernel passed to an answer is passed by name or as its Gram matrix.
``Diagnosis(name, message, mistake, detect=None)``
    A known misconception. ``mistake`` has the reference's signature and
    computes what the misconception gives; when a failing answer matches it
    on the cases where it differs from the reference, ``message`` is shown
    ("Likely mistake: ..."). When several mistakes match some cases, the one
    agreeing with the answer on the most cases wins (see
    :meth:`Question.diagnose`), so two mistakes that coincide on one input,
    or give the same True/False there, are still told apart.
    ``detect(actual, case) -> bool`` replaces the match where many outputs
    reveal the same mistake (``mistake`` is still required: the tests use it).
``kind``, ``section``, ``hints``
    ``kind`` is one of :data:`~kernelcourse.grading.question.KINDS` (formula, derive, predict,
    witness, fix, parameter, choice); only "formula" prints the formula it asks for.
    ``section`` is the syllabus number the question points to. ``hints`` are tiers, a nudge
    first; ``hint(id)`` in a notebook prints the next, and from the second failed check on each
    failed check prints the next one. The stub of an answer cell never holds a hint (its
    message only names ``hint("<id>")``), and no hint or stub line may equal a line of the
    solution (``tests/test_exercise_quality.py``).
``constraints`` (:class:`Constraint`)
    Rules about *how* the answer works, checked by behaviour after each call: the arguments
    are compared after the call (``inputs_unchanged()``: nothing modified in place), and
    probe arguments report how they were used (:mod:`kernelcourse.grading.probes`:
    ``RowSource`` and ``rows_at_most`` for "chunk by chunk"). A right value that breaks a
    constraint fails the case with the constraint's message; ``Diagnosis(behaviour=...)``
    (e.g. ``modified_input("u")``) names such a mistake.
``Property(name, predicate, message)``
    ``predicate(actual, case) -> bool``, a fact the lecture states (symmetry,
    PSD, an identity). A case passes when it matches the reference (if
    compared) and every property holds.

In a notebook, ``check("ex1.q2", all_subsets_kernel)`` prints one line and
returns None. Each call draws new inputs (the seed advances with every call,
so a fresh kernel repeats the same sequence). The line says "passed" with
the points, or "not attempted" for a stub that raises NotImplementedError,
or the first failing case: the inputs, the expected and the actual value
(abridged), the misconception when a diagnosis matches, and the points so far
in this session for the question's set.

``tests/test_grading_questions.py`` sweeps every registered question: its
reference scores full marks, a stub is "not attempted", each diagnosis fires
on its own ``mistake`` and none on the reference's answer, and the cases are
plain data that depend on the seed. :func:`evaluate` runs one check without
printing (``evaluate(question, function, seed)`` returns a :class:`Result`).

Fair to honest answers: the comparison's tolerance follows the answer's dtype (a float32 answer
is compared to within 32 float32 units in the last place of the largest expected entry,
:func:`~kernelcourse.grading.compare.dtype_tolerance`), and one shape policy holds everywhere
(:func:`~kernelcourse.grading.compare.conform_shape`): an answer whose shape differs from the
expected one only by axes of length 1, such as ``(n, 1)`` where ``(n,)`` is asked, is accepted
with a note that names both shapes; any other shape fails with a message naming both. A verdict
line is cut, when too long, in the failing case's description, never in the diagnosis.

Answers are judged on plain data only: the value an answer returns goes
through :mod:`kernelcourse.grading.sealed.transport` before it is compared, both here
and in the grading command (which runs answers in a worker process and compares
in the parent), so both give the same verdict.

The parts live in their own modules, all importable from here:
:mod:`~kernelcourse.grading.question` (``Question``, ``Case``, ``Diagnosis``,
``Property``), :mod:`~kernelcourse.grading.compare` (``values_match``,
``format_value``), :mod:`~kernelcourse.grading.sealed.running` (``run_answer``,
``time_limit``), :mod:`~kernelcourse.grading.scoring` (``Result``, ``score``,
``evaluate``) and :mod:`~kernelcourse.grading.session` (``check``,
``reset_session``, ``session_points``: the one session of this process).
"""
from __future__ import annotations

from .sealed import transport
from .compare import _arrays_match, _numeric_sequence, format_value, values_match
from .question import (_ID_PATTERN, Case, Constraint, Diagnosis, Property, Question,
                       choice_diagnoses, choice_parts, inputs_unchanged, modified_input)
from .sealed.running import QuestionTimeout, _short, run_answer, time_limit
from .scoring import Result, _describe_inputs, _fmt, answer_source, evaluate, score
from .session import _CALLS, _SESSION, _next_seed, check, hint, reset_session, session_points
from .shortcuts import ReferenceUsed, reason as _shortcut_reason, static_uses, tripwires

__all__ = [
    "Case",
    "Constraint",
    "Diagnosis",
    "hint",
    "choice_diagnoses",
    "choice_parts",
    "inputs_unchanged",
    "modified_input",
    "Property",
    "Question",
    "Result",
    "check",
    "evaluate",
    "run_answer",
    "score",
    "values_match",
    "format_value",
    "reset_session",
    "session_points",
]
