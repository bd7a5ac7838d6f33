"""Running the command line as a real subprocess, for the CLI test modules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The environment of every CLI subprocess: this checkout first on the import path.
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
COMMAND = [sys.executable, "-m", "polarscore"]


def run_cli(
    *args: str | Path, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run ``polarscore ARGS...`` to completion and capture its text output."""
    return subprocess.run(
        [*COMMAND, *map(str, args)],
        env=ENV,
        cwd=cwd or ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
