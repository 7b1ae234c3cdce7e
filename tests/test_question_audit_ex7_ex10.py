"""The question audit of sets 7 and 10 (support vector machines, structured data), in a file
of its own so that the workers of a test run audit the bank side by side: see
tests/test_question_audit.py for what the audit shows, tests/audit_support.py for the shares.
"""
from pathlib import Path

from audit_support import audit_test

test_the_fixed_cases_kill_every_mutant_a_drawn_case_tells_apart = audit_test(Path(__file__).stem)
