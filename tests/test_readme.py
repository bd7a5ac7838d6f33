"""The README's commands, checked as a new user would run them."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.index("\n## ", start + 1)
    return README[start:end]


def _setup_commands() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", _section("Set-up"), flags=re.DOTALL)
    assert block is not None
    lines = [line.strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_setup_commands_need_only_python3_and_a_venv() -> None:
    # Debian 12 and Ubuntu have no `python`, and refuse `pip install` into the system Python.
    commands = _setup_commands()
    assert len(commands) == 2
    for command in commands:
        for step in command.split("&&"):
            program = shlex.split(step)[0]
            assert program in ("python3", ".ci/test") or program.startswith(".venv/bin/"), step
            if program == "python3":
                assert shlex.split(step)[1:3] == ["-m", "venv"], step
    assert commands[0].startswith("python3 -m venv .venv && ")
    assert commands[1] == ".ci/test .venv"


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r'^\.ci/test "\$VENV"$', ci, flags=re.MULTILINE)


def test_ci_test_installs_and_runs_pytest_in_the_given_venv(tmp_path: Path) -> None:
    # A stand-in environment whose python only records how it was called.
    calls = tmp_path / "calls"
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\necho "$@" >> {shlex.quote(str(calls))}\n')
    python.chmod(0o755)
    result = subprocess.run(
        [str(ROOT / ".ci" / "test"), str(tmp_path / "venv")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # The default selection, then the Spark tests and the notebooks, which it leaves out.
    assert calls.read_text().splitlines() == [
        "-m pip install -e .[test]",
        "-m pytest -n auto --dist loadfile",
        "-m pytest -m spark",
        "-m pytest -m notebook",
    ]


#: The test files of each explicitly selected marker.
SELECTED = {
    "spark": ["tests/test_spark.py", "tests/test_spark_faults.py"],
    "notebook": ["tests/test_notebooks.py"],
}


def _collected(*args: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode in (0, 5), result.stdout + result.stderr  # 5: nothing selected
    return [line for line in result.stdout.splitlines() if "::" in line]


def test_ci_test_selections_cover_the_spark_and_notebook_tests() -> None:
    """The default run leaves them out; ``-m spark`` / ``-m notebook`` override it and run them."""
    files = [f for paths in SELECTED.values() for f in paths]
    every = _collected("-m", "", *files)
    assert every
    assert _collected(*files) == []
    for marker, paths in SELECTED.items():
        selected = _collected("-m", marker, *files)
        assert selected == [t for t in every if t.split("::")[0] in paths], marker


def test_ci_test_without_a_venv_says_how_to_make_one(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(ROOT / ".ci" / "test"), str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "python3 -m venv" in result.stderr


def _python_block(title: str) -> str:
    block = re.search(r"```python\n(.*?)```", _section(title), flags=re.DOTALL)
    assert block is not None
    return block.group(1)


def test_quick_start_runs_as_a_script_and_prints_its_result(tmp_path: Path) -> None:
    script = tmp_path / "quickstart.py"
    script.write_text(_python_block("Quick start"))
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert "answer_correctness" in result.stdout
    assert "contains" in result.stdout


def test_readme_lists_every_exit_code_of_the_cli() -> None:
    from polarscore import cli

    codes = sorted(v for k, v in vars(cli).items() if k.startswith("EXIT_"))
    listed = re.search(r"\* Exit codes: (.*?)never a traceback", README, flags=re.DOTALL)
    assert listed is not None
    numbers = [int(n) for n in re.findall(r"(?<![\w.])(\d+)\s", listed.group(1))]
    assert sorted(numbers) == codes
