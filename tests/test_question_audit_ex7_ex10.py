"""The question audit (tests/test_question_audit.py) of sets 7 and 10 (support vector machines, structured data): every
question's fixed cases kill every mutant of its reference that a drawn case can tell from it.
A file of its own so that the test run's workers audit the bank side by side
(tests/audit_support.py). Parametrised by question id (``-k ex7``).
"""
from pathlib import Path

import pytest

from audit_support import check_audit, params


@pytest.mark.parametrize("qid", params(Path(__file__).stem))
def test_the_fixed_cases_kill_every_mutant_a_drawn_case_tells_apart(qid):
    check_audit(qid)
