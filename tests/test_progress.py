"""Long loops can show their progress, without changing what they compute."""
import io

import numpy as np

from kernelcourse import datasets
from kernelcourse._progress import Progress
from kernelcourse.gradient_descent import KernelGD
from kernelcourse.kernels import RBF
from kernelcourse.rkhs import OnlineKernelMachine


def test_the_line_counts_to_the_total_and_ends_the_line():
    stream = io.StringIO()
    with Progress(250, "steps", stream=stream) as bar:
        for _ in range(250):
            bar.update()
    text = stream.getvalue()
    assert text.endswith("\n")
    last = text.rstrip("\n").split("\r")[-1]
    assert last.startswith("steps [####################] 100% 250/250")
    # throttled: one draw on entry, at most one per percent, one on close
    assert 50 <= text.count("\r") <= 102


def test_a_disabled_bar_writes_nothing():
    stream = io.StringIO()
    with Progress(10, "steps", enabled=False, stream=stream) as bar:
        bar.update(10)
    assert stream.getvalue() == ""


def test_training_with_progress_reports_on_stderr_and_learns_the_same(capsys):
    X, y = datasets.circles(n=120, random_state=0)
    quiet = OnlineKernelMachine(RBF(2.0), eta=0.5, lam=0.001).fit(X, y)
    shown = OnlineKernelMachine(RBF(2.0), eta=0.5, lam=0.001, progress=True).fit(X, y)
    assert "online steps [####################] 100% 120/120" in capsys.readouterr().err
    np.testing.assert_array_equal(quiet.alpha_, shown.alpha_)

    quiet = KernelGD(RBF(2.0), n_steps=50).fit(X, y)
    shown = KernelGD(RBF(2.0), n_steps=50, progress=True).fit(X, y)
    assert "gradient descent [####################] 100% 50/50" in capsys.readouterr().err
    np.testing.assert_array_equal(quiet.dual_coef_, shown.dual_coef_)
