"""The gradebook: what the grading command writes and the hand-back reads.

:mod:`~kernelcourse.grading.gradebook.book` holds a row (:class:`Submission`, with the plain
record of each verdict that the feedback pages read, ``feedback_record``) and writes
``gradebook.csv`` and ``gradebook.json``; :mod:`~kernelcourse.grading.gradebook.history` names
an assignment's files, stamps every row, reads an existing gradebook back (``load_rows``),
merges a regrade and keeps the history; :mod:`~kernelcourse.grading.gradebook.assignment` fixes
which questions one run grades. The room stands on the question model (a question's hash reads
its fixed cases as plain data, :mod:`~kernelcourse.grading.model.transport`) and the check (a
verdict's points), never on the sealed runner; the grading command and the hand-back stand on
it.
"""
