"""Re-execute the notebooks in place and refresh the README figures.

Usage, from the repository root::

    python notebooks/execute.py            # every notebook
    python notebooks/execute.py 01_compare_models.ipynb

The kernel is the current interpreter (``sys.executable``) with the repository root on
``PYTHONPATH``, so ``import polarscore`` is this checkout, and it runs in ``notebooks/`` so the
relative data paths resolve. A code cell tagged ``readme-figure`` has its first PNG output written
to ``notebooks/images/<notebook name>.png``, the picture the README shows.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent
ROOT = NOTEBOOKS.parent
IMAGES = NOTEBOOKS / "images"
KERNEL_NAME = "polarscore-python"


def kernel_manager(kernel_root: Path) -> AsyncKernelManager:
    """A kernel manager whose only kernel is the current interpreter, seeing this checkout."""
    spec_dir = kernel_root / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python (polarscore checkout)",
        "language": "python",
        "env": {"PYTHONPATH": pythonpath},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(kernel_root)])
    return AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)


def execute(path: Path) -> nbformat.NotebookNode:
    """Execute one notebook top to bottom (in memory) and return it with its outputs."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    with tempfile.TemporaryDirectory() as tmp:
        client = NotebookClient(
            nb,
            km=kernel_manager(Path(tmp)),
            timeout=300,
            record_timing=False,  # no timestamps in the committed files: re-runs diff cleanly
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
    return nb


def export_readme_figure(nb: nbformat.NotebookNode, name: str) -> Path | None:
    """Write the first PNG of the cell tagged ``readme-figure`` to ``images/<name>.png``."""
    for cell in nb.cells:
        if "readme-figure" not in cell.get("metadata", {}).get("tags", []):
            continue
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png:
                IMAGES.mkdir(exist_ok=True)
                target = IMAGES / f"{name}.png"
                target.write_bytes(base64.b64decode(png))
                return target
    return None


def main(argv: list[str]) -> int:
    paths = [NOTEBOOKS / a for a in argv] if argv else sorted(NOTEBOOKS.glob("*.ipynb"))
    for path in paths:
        nb = execute(path)
        # The kernel spec is a temporary one: record the ordinary python3 kernel instead.
        nb.metadata["kernelspec"] = {
            "display_name": "Python 3",
            "language": "python",
            "name": "python3",
        }
        nbformat.write(nb, path)
        figure = export_readme_figure(nb, path.stem)
        print(f"executed {path.name}" + (f", figure {figure.relative_to(ROOT)}" if figure else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
