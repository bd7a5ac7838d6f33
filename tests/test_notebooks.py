"""Execute every notebook in ``notebooks/`` top to bottom; any cell error fails the test.

The kernel is the interpreter running the tests (``sys.executable``), with the repository root on
``PYTHONPATH`` so that ``import polarscore`` is this checkout, started in ``notebooks/`` so the
notebooks' relative data paths resolve. Notebooks are executed in memory: the committed files
(with their outputs, for readers on a code host) are not rewritten; ``python notebooks/execute.py``
does that.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KERNEL_NAME = "polarscore-test-python"

# jupyter_client leaves two zmq sockets of its kernel client to the garbage collector (a known
# upstream issue, jupyter/nbclient#316); ignore exactly that, and collect them inside the test.
pytestmark = [
    pytest.mark.notebook,
    pytest.mark.filterwarnings("ignore:Unclosed socket <zmq:ResourceWarning"),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <function Socket.__del__"
        ":pytest.PytestUnraisableExceptionWarning"
    ),
]


def _kernel_manager(kernel_root: Path) -> AsyncKernelManager:
    spec_dir = kernel_root / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "polarscore tests",
        "language": "python",
        "env": {
            "PYTHONPATH": pythonpath,
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        },
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(kernel_root)])
    return AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)


def _images(nb: nbformat.NotebookNode) -> int:
    return sum(
        "image/png" in output.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 2, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_with_outputs(path: Path) -> None:
    """Readers on a code host see the results: every code cell ran, in order, and plots exist."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name} is not executed top to bottom"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert _images(nb) >= 1, f"{path.name} has no plot in its committed outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path, tmp_path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    client = nbclient.NotebookClient(
        nb,
        km=_kernel_manager(tmp_path / "kernels"),
        timeout=300,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    del client
    gc.collect()
    assert _images(nb) >= 1, f"{path.name} produced no plot"


def test_kernel_is_this_interpreter_and_checkout(tmp_path: Path) -> None:
    """The notebooks run on the interpreter of the tests and import polarscore from this repo."""
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "import sys, polarscore\nprint(sys.executable)\nprint(polarscore.__file__)"
            )
        ]
    )
    client = nbclient.NotebookClient(
        nb,
        km=_kernel_manager(tmp_path / "kernels"),
        timeout=120,
        resources={"metadata": {"path": str(ROOT / "notebooks")}},
    )
    client.execute()
    del client
    gc.collect()
    executable, module = nb.cells[0].outputs[0]["text"].splitlines()
    assert Path(executable).resolve() == Path(sys.executable).resolve()
    assert Path(module).resolve() == (ROOT / "polarscore" / "__init__.py").resolve()
