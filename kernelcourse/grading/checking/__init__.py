"""The check: an answer judged against its question, in a notebook and in the grading command
alike.

:mod:`~kernelcourse.grading.checking.scoring` is the one judge (:func:`score` turns an answer's
outcomes into a :class:`Result`; :func:`evaluate` runs and scores an answer in this process);
:mod:`~kernelcourse.grading.checking.session` is what a student calls in a notebook
(``check``, ``hint``, the session's points). The room stands on the question model, the
relations and the sealed runner's :mod:`~kernelcourse.grading.sealed.running`; the gradebook,
the grading command and the hand-back stand on it.
"""
