"""The instructor's commands: the grading command and the commands over the question bank.

:mod:`~kernelcourse.grading.command.grader` is ``kernelcourse grade`` (submissions scored
sealed and written to the gradebook), with :mod:`~kernelcourse.grading.command.draws` (the
drawn cases from the instructor's secret); :mod:`~kernelcourse.grading.command.pipeline` is
``kernelcourse exercises build`` (the student notebooks from the solutions);
:mod:`~kernelcourse.grading.command.selftest` is ``kernelcourse questions check`` (what every
question must pass), :mod:`~kernelcourse.grading.command.catalog` the kinds table of
``grade --list-questions --kinds`` and :mod:`~kernelcourse.grading.command.verdicts` the
verdict table of a set (``tools/verdict_table.py``). The room stands on the question model,
the intake, the sealed runner, the check and the gradebook; only the hand-back (the Gradescope
autograder grades through :func:`~kernelcourse.grading.command.grader.grade_paths`) and the
command line stand on it.
"""
