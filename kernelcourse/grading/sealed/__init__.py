"""The sealed runner: the only code of the grading command that runs submitted code.

``kernelcourse grade`` reads submissions and judges answers in the grader's own process
(:mod:`kernelcourse.grading.command.grader`, :mod:`~kernelcourse.grading.intake.notebooks`,
:mod:`~kernelcourse.grading.checking.scoring`); everything that starts, holds or talks to a process
running an answer lives here:

* :mod:`.sandbox`: the bubblewrap sandbox, the memory cap on its process tree (a cgroup, else
  the watchdog, a process of its own: :mod:`.watchdog`, which also adds socket and pipe
  buffers to a cgroup v1's count), what the caps cannot bound here;
* :mod:`.pool`: the grader's handle on a worker (start, one request, a bounded reply, the end
  of a submission), and the bundle of modules the worker holds;
* inside the sandbox, three processes down: :mod:`.worker`, the zygote that never reads a
  request; the process per submission, made in its own PID and mount namespaces by
  :mod:`.namespaces` and run by :mod:`.submission` (reads the submission's requests, checks
  each reply, counts what an answer changed in its arguments); the process per answer,
  :mod:`.answer`, the only one where submitted code runs; :mod:`.processes`, what they share;
* :mod:`.running`: the answer's function called on each case under its time limit (also what
  ``check`` runs in a notebook).

What they send each other is plain data, as JSON text, in the question model's format
(:mod:`kernelcourse.grading.model.transport`).
"""
