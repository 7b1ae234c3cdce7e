"""Exercises that grade themselves.

``check(question_id, function)`` in a notebook, questions defined with
:class:`Question` in ``grading/questions/lectureN.py``, and the grading
command and exercise pipeline behind ``kernelcourse grade`` and
``kernelcourse exercises build``. See :mod:`kernelcourse.grading.core` for the
question API.
"""
from .core import (Case, Constraint, Diagnosis, Property, Question, Result, case_inputs, check,
                   choice_diagnoses, choice_parts, credit, evaluate, fixed_draw, format_value,
                   hint, inputs_unchanged, modified_input, reset_session, run_answer, score,
                   session_points, values_match)
from .questions import all_questions, get_question

__all__ = [
    "Case", "case_inputs", "credit", "Constraint", "Diagnosis", "Property", "Question", "Result",
    "check", "evaluate",
    "fixed_draw", "format_value", "hint", "choice_diagnoses", "choice_parts", "inputs_unchanged",
    "modified_input",
    "reset_session", "run_answer", "score", "session_points", "values_match",
    "all_questions", "get_question",
]
