"""The question audit of sets 6, 8 and 9 and of the lectures' checkpoints; how the bank is
shared among files, and why, is told in tests/audit_support.py, what the audit shows in
tests/test_question_audit.py. Select a set by question id (``-k ex8``).
"""
from pathlib import Path

from audit_support import audit_test

test_the_fixed_cases_kill_every_mutant_a_drawn_case_tells_apart = audit_test(Path(__file__).stem)
