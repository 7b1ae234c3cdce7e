"""nbval's kernels run in the environment the stored outputs were executed in.

``tools/execute_notebooks.py`` executes a notebook with ``kernelcourse._execute.KERNEL_ENV``
(a fixed hash seed and cell name; BLAS on one thread; lecture 2's cost widget measuring no
pairs in background worker processes, since no reader moves it). nbval starts its kernels
with this process's environment; here, while nbval starts a notebook's kernel, that
environment gets the same variables, so nbval compares outputs made the same way, no
kernel's BLAS threads spin against the tests beside it, and lecture 2's kernel starts no
workers whose measurements nobody shows. The browser test starts its own JupyterLab and
keeps the real workers.
"""
from __future__ import annotations

import os

import pytest


def _is_nbval_cell(item) -> bool:
    return type(item).__name__ == "IPyNbCell" and type(item).__module__.startswith("nbval")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """Set the kernel's environment while nbval starts it (in its notebook's set-up)."""
    if not _is_nbval_cell(item):
        return (yield)
    from kernelcourse._execute import KERNEL_ENV

    saved = {name: os.environ.get(name) for name in KERNEL_ENV}
    os.environ.update(KERNEL_ENV)
    try:
        return (yield)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
