"""Intake: what a student hands in, read as data and never run.

:mod:`~kernelcourse.grading.intake.notebooks` reads a submitted notebook file (a regular file
under the size cap, its JSON parsed with a bound on its depth), picks its answer cells, turns a
cell into the Python IPython would run, and makes any text that came from a submission safe to
show. It imports no other room of ``grading/``: the sealed runner, the gradebook, the grading
command, the hand-back and the data challenge all read submissions through it.
"""
