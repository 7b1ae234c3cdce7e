"""Exercises that grade themselves.

``check(question_id, function)`` in a notebook, questions defined with
:class:`Question` in ``grading/questions/lectureN.py``, and the grading
command and exercise pipeline behind ``kernelcourse grade`` and
``kernelcourse exercises build``. See :mod:`kernelcourse.grading.model` for the
question API.
"""
from .model import (Case, Constraint, Diagnosis, Property, Question, choice_diagnoses,
                    choice_parts, fixed_draw, format_value, inputs_unchanged, modified_input,
                    values_match)
from .sealed.running import run_answer
from .checking.scoring import Result, case_inputs, credit, evaluate, score
from .checking.session import check, hint, reset_session, session_points
from .questions import all_questions, get_question

__all__ = [
    "Case", "case_inputs", "credit", "Constraint", "Diagnosis", "Property", "Question", "Result",
    "check", "evaluate",
    "fixed_draw", "format_value", "hint", "choice_diagnoses", "choice_parts", "inputs_unchanged",
    "modified_input",
    "reset_session", "run_answer", "score", "session_points", "values_match",
    "all_questions", "get_question",
]
