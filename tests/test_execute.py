"""The notebook executor stores the same file on every run."""
import nbformat

from kernelcourse._execute import WIDGET_VIEW, strip_volatile_metadata


def _notebook_with(outputs):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("pass")
    cell.outputs = outputs
    cell.metadata["execution"] = {"iopub.status.busy": "2026-11-21T18:00:00Z"}
    nb.cells = [cell]
    nb.metadata["widgets"] = {"state": {}}
    return nb


def test_split_streams_are_merged_and_other_outputs_kept_in_order():
    out = nbformat.v4.new_output
    nb = _notebook_with([out("stream", name="stdout", text="q1: not attempted"),
                         out("stream", name="stdout", text="\n"),
                         out("stream", name="stderr", text="warn\n"),
                         out("stream", name="stdout", text="again\n")])
    strip_volatile_metadata(nb)
    assert [(o.name, o.text) for o in nb.cells[0].outputs] == [
        ("stdout", "q1: not attempted\n"), ("stderr", "warn\n"), ("stdout", "again\n")]


def test_timestamps_widget_state_and_random_model_ids_are_removed():
    views = [nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": mid}})
             for mid in ("8f1c", "02aa")]
    nb = _notebook_with(views)
    strip_volatile_metadata(nb)
    assert "widgets" not in nb.metadata
    assert "execution" not in nb.cells[0].metadata
    ids = [o.data[WIDGET_VIEW]["model_id"] for o in nb.cells[0].outputs]
    assert ids == ["00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"]
