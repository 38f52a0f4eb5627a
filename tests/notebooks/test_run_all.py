"""Run All never stops: Colab and VS Code ignore the ``raises-exception`` tag, so no cell of
the curriculum may end in an error. Demonstrations of PyTorch's errors catch and print them.

Static and sufficient: the notebooks are stored executed and strict nbval re-runs every cell
comparing outputs, so a cell that raised would have to show a stored error output."""

import pathlib

import nbformat
import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9]*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_ends_in_an_error(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert "raises-exception" not in cell.metadata.get("tags", []), (
            f"{path.name} cell {i} is tagged raises-exception: catch and print the error"
        )
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{path.name} cell {i} stops Run All with {errors[0].ename}"
