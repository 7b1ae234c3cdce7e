"""Execute notebooks deterministically and store their outputs.

The stored outputs are what nbval compares on every test run, so a notebook
must come out the same each time it is executed here: the kernel runs with a
fixed hash seed and a fixed cell name (warnings would otherwise carry a temp
path), and the metadata that changes on every run (execution timestamps,
widget state with fresh model ids) is stripped before writing.
"""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

__all__ = ["execute_notebook", "kernel_environment", "strip_volatile_metadata"]

#: environment for the kernel that executes a stored notebook
KERNEL_ENV = {
    "PYTHONHASHSEED": "0",
    "IPYKERNEL_CELL_NAME": "<IPY-INPUT>",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    # no reader moves a widget here: lecture 2's cost widget measures no pairs ahead of the moves
    "KERNELCOURSE_COST_PROCESSES": "0",
    # BLAS on one thread: the same sums in the same order on any number of cores, and no BLAS
    # threads spinning against the other notebooks and tests run beside this one (nbval's
    # kernels get this environment too, from the root conftest.py)
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
}


@contextlib.contextmanager
def kernel_environment():
    """This process's environment with :data:`KERNEL_ENV` set, as it was again afterwards:
    a kernel started inside inherits it."""
    saved = {name: os.environ.get(name) for name in KERNEL_ENV}
    os.environ.update(KERNEL_ENV)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _merge_streams(outputs: list) -> list:
    """Join consecutive stream outputs of the same stream into one.

    A kernel may flush one ``print`` as several stream messages, depending on
    timing; merged, the stored outputs are the same on every run.
    """
    merged = []
    for output in outputs:
        if (merged and output.get("output_type") == "stream"
                and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == output.get("name")):
            merged[-1]["text"] += output["text"]
        else:
            merged.append(output)
    return merged


def strip_volatile_metadata(nb) -> None:
    """Make a notebook's stored form the same on every run, in place.

    Removes execution timestamps and the widget state (whose model ids are
    fresh random ids on each run), numbers the widget views' model ids in
    order of appearance, and merges split stream outputs.
    """
    nb.metadata.pop("widgets", None)
    views = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        if cell.cell_type != "code":
            continue
        cell.outputs = _merge_streams(cell.get("outputs", []))
        for output in cell.outputs:
            output.get("metadata", {}).pop("execution", None)
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None and "model_id" in view:
                views += 1
                view["model_id"] = f"00000000-0000-0000-0000-{views:012d}"


def execute_notebook(path, timeout: int = 60, write: bool = True):
    """Run every cell of the notebook at ``path`` in a fresh kernel and store the outputs.

    The kernel starts in the notebook's own folder, with the environment of
    this process plus :data:`KERNEL_ENV`. Raises ``nbclient.exceptions.CellExecutionError``
    (with the failing cell and its traceback) when a cell fails; the file is
    then left untouched.

    ``timeout`` is the most seconds one cell may take. The course's cells take
    seconds, and the limit is kept short on purpose: on these machines nbclient
    was seen to wait for an execute reply that had already arrived until its
    poll's timeout ran out (about 1 run in 6 on a widget cell), so a long
    limit turned into a long, idle wait.

    Returns the executed notebook object and the seconds it took.
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    with kernel_environment():
        client = NotebookClient(
            nb, timeout=timeout, kernel_name="python3",
            resources={"metadata": {"path": str(path.parent.resolve())}})
        start = time.perf_counter()
        client.execute()
        seconds = time.perf_counter() - start
    strip_volatile_metadata(nb)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)",
                                 "language": "python", "name": "python3"}
    if write:
        nbformat.write(nb, path)
    return nb, seconds
