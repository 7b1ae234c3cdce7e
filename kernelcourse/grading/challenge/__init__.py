"""The data challenge as a grading mode (``kernelcourse challenge make|verify|grade``).

* :mod:`.make`: the public files, the sealed hidden labels, their SHA-256 commitment and the
  two baselines (spectrum and mismatch kernels with kernel ridge regression);
* :mod:`.validate`: strict reading of a predictions CSV (nothing scored on any error);
* :mod:`.grade`: public split at once, private split after the deadline (``final``), a daily
  limit on scored submissions, points by thresholds between the baselines;
* :mod:`.leaderboard`: the gradebook, the static leaderboard page with pseudonyms and
  Gradescope's ``leaderboard`` entries.
"""
from .grade import Entry, grade_challenge, points_for, student_of
from .leaderboard import board_rows, gradescope_results, leaderboard_html, pseudonym, write_outputs
from .make import commitment_of, make_challenge, read_key, verify_commitment
from .validate import SubmissionError, read_predictions

__all__ = ["make_challenge", "verify_commitment", "commitment_of", "read_key",
           "read_predictions", "SubmissionError", "grade_challenge", "points_for", "student_of",
           "Entry", "board_rows", "leaderboard_html", "gradescope_results", "pseudonym",
           "write_outputs"]
