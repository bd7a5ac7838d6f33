"""The command line's allocator settings (polarscore._allocator), set before Polars is imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from polarscore import _allocator
from tests.cli_process import COMMAND, ENV, ROOT

VARIABLE = _allocator.JEMALLOC_CONF_VARIABLE


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["python", "-m", "polarscore", "score", "log.parquet"], True),
        (["python", "-X", "dev", "-W", "error", "-m", "polarscore"], True),
        (["python", "-u", "-mpolarscore", "scorers"], True),
        (["/venv/bin/python", "/venv/bin/polarscore", "score"], True),
        (["python", "-m", "pytest", "-m", "polarscore"], False),
        (["python", "-m", "polarscore.cli"], False),
        (["python", "-c", "import polarscore"], False),
        (["python", "-cimport polarscore"], False),
        (["python", "-", "polarscore"], False),
        (["python", "score.py", "polarscore"], False),
        (["python"], False),
        (["python", "-X", "polarscore"], False),
    ],
)
def test_runs_cli_tells_the_command_line_from_other_programs(
    argv: list[str], expected: object
) -> None:
    assert _allocator.runs_cli(argv) is expected


def test_configure_for_cli_sets_the_variable_for_the_command_line_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environ: dict[str, str] = {}
    monkeypatch.setattr(os, "environ", environ)
    monkeypatch.delitem(sys.modules, "polars")
    assert not _allocator.configure_for_cli(["python", "-c", "import polarscore"])
    assert environ == {}
    assert _allocator.configure_for_cli(["python", "-m", "polarscore", "score"])
    assert environ == {VARIABLE: _allocator.CLI_JEMALLOC_CONF}


def test_configure_for_cli_leaves_the_users_setting_and_an_imported_polars_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environ = {VARIABLE: "narenas:1"}
    monkeypatch.setattr(os, "environ", environ)
    argv = ["python", "-m", "polarscore", "score"]
    assert "polars" in sys.modules
    monkeypatch.delitem(os.environ, VARIABLE)
    assert not _allocator.configure_for_cli(argv)  # too late: Polars' allocator is set up
    assert environ == {}
    monkeypatch.setitem(os.environ, VARIABLE, "narenas:1")
    monkeypatch.delitem(sys.modules, "polars")
    assert not _allocator.configure_for_cli(argv)
    assert environ == {VARIABLE: "narenas:1"}


def _printed_at_exit(
    tmp_path: Path, command: list[str], expression: str, environment: dict[str, str]
) -> str:
    """Run ``command`` in ``environment`` and return what ``expression`` (Python, one or more
    values separated by commas) gives as the process exits, printed by a ``sitecustomize``."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(
        f"import atexit\natexit.register(lambda: print('AT_EXIT', {expression}))\n"
    )
    environment = {**environment, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)
    found = [line for line in done.stdout.splitlines() if line.startswith("AT_EXIT ")]
    assert found, done.stdout + done.stderr
    return found[-1].removeprefix("AT_EXIT ")


def _settings_seen(tmp_path: Path, command: list[str], *, inherit: bool = False) -> str:
    """Run ``command`` and return the allocator settings Polars was imported with (``inherit``:
    with this process's variable, which the Polars it imported wrote)."""
    environment = {key: value for key, value in ENV.items() if inherit or key != VARIABLE}
    if inherit:
        environment[VARIABLE] = os.environ[VARIABLE]
    # Read at exit, once Polars has read (and rewritten) the variable.
    return _printed_at_exit(
        tmp_path, command, f"__import__('os').environ.get({VARIABLE!r})", environment
    )


def test_the_command_line_runs_with_the_settings_and_a_program_without(tmp_path: Path) -> None:
    # Polars puts the user's settings after its own, so the last one given wins.
    cli = _settings_seen(tmp_path, [*COMMAND, "scorers"])
    assert cli.endswith("," + _allocator.CLI_JEMALLOC_CONF)
    library = _settings_seen(tmp_path, [sys.executable, "-c", "import polarscore"])
    assert _allocator.CLI_JEMALLOC_CONF not in library


@pytest.mark.parametrize(
    ("value", "by_user"),
    [
        (None, False),
        ("", False),
        ("dirty_decay_ms:500,muzzy_decay_ms:1000", False),
        ("dirty_decay_ms:500,muzzy_decay_ms:-1,thp:always,metadata_thp:always", False),
        ("dirty_decay_ms:500,muzzy_decay_ms:1000,dirty_decay_ms:500,muzzy_decay_ms:1000", False),
        ("narenas:1", True),
        ("dirty_decay_ms:500,muzzy_decay_ms:1000,narenas:1", True),
        ("dirty_decay_ms:2000", True),
    ],
)
def test_set_by_user_tells_polars_own_settings_from_the_users(
    value: str | None, by_user: object
) -> None:
    assert _allocator.set_by_user(value) is by_user


def test_a_command_line_started_by_a_program_that_imported_polars_gets_the_settings(
    tmp_path: Path,
) -> None:
    """Polars writes its own settings into the variable when imported, and a child process
    inherits them: a command line run from a notebook or a pipeline that imported Polars (this
    test's process did) still gets the command line's settings, last."""
    import polars  # noqa: F401  (writes its settings into this process's environment)

    inherited = os.environ[VARIABLE]
    assert not _allocator.set_by_user(inherited)
    cli = _settings_seen(tmp_path, [*COMMAND, "scorers"], inherit=True)
    assert cli.endswith("," + _allocator.CLI_JEMALLOC_CONF)


def test_configure_arrow_for_cli_gives_pyarrow_jemalloc_in_the_command_line_on_linux(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environ: dict[str, str] = {}
    monkeypatch.setattr(os, "environ", environ)
    monkeypatch.delitem(sys.modules, "pyarrow", raising=False)
    cli = ["python", "-m", "polarscore", "score"]
    assert not _allocator.configure_arrow_for_cli(["python", "-c", "import polarscore"], "linux")
    assert not _allocator.configure_arrow_for_cli(cli, "darwin")  # its pyarrow may lack it
    assert not _allocator.configure_arrow_for_cli(cli, "win32")
    assert environ == {}
    assert _allocator.configure_arrow_for_cli(cli, "linux")
    assert environ == {_allocator.ARROW_POOL_VARIABLE: _allocator.CLI_ARROW_POOL}


def test_configure_arrow_for_cli_leaves_the_users_pool_and_an_imported_pyarrow_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environ = {_allocator.ARROW_POOL_VARIABLE: "system"}
    monkeypatch.setattr(os, "environ", environ)
    monkeypatch.delitem(sys.modules, "pyarrow", raising=False)
    cli = ["python", "-m", "polarscore", "score"]
    assert not _allocator.configure_arrow_for_cli(cli, "linux")
    assert environ == {_allocator.ARROW_POOL_VARIABLE: "system"}
    environ.clear()
    monkeypatch.setitem(sys.modules, "pyarrow", sys)  # any module: pyarrow is imported
    assert not _allocator.configure_arrow_for_cli(cli, "linux")  # too late: its pool is chosen
    assert environ == {}


@pytest.mark.skipif(sys.platform != "linux", reason="the pool is set on Linux only")
def test_the_command_lines_pyarrow_allocates_with_jemalloc(tmp_path: Path) -> None:
    """The command line's pyarrow takes the pool from the variable it set: jemalloc, where
    pyarrow has it (as its Linux wheels do)."""
    import pyarrow as pa

    if "jemalloc" not in pa.supported_memory_backends():
        pytest.skip("this pyarrow has no jemalloc")
    environment = {k: v for k, v in ENV.items() if k != _allocator.ARROW_POOL_VARIABLE}
    backend = "__import__('pyarrow').default_memory_pool().backend_name"

    def pool(command: list[str]) -> str:
        return _printed_at_exit(tmp_path, command, backend, environment)

    assert pool([*COMMAND, "scorers"]) == "jemalloc"
    # A program that imports the library keeps pyarrow's own default (mimalloc from pyarrow 17)
    default = pool([sys.executable, "-c", "pass"])
    assert pool([sys.executable, "-c", "import polarscore"]) == default


def test_configure_blas_for_cli_runs_openblas_on_one_thread_in_the_command_line_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environ: dict[str, str] = {}
    monkeypatch.setattr(os, "environ", environ)
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    assert not _allocator.configure_blas_for_cli(["python", "-c", "import polarscore"])
    assert environ == {}
    assert _allocator.configure_blas_for_cli(["python", "-m", "polarscore", "score"])
    assert environ == {"OPENBLAS_NUM_THREADS": _allocator.CLI_BLAS_THREADS}


@pytest.mark.parametrize("variable", _allocator.BLAS_THREADS_VARIABLES)
def test_configure_blas_for_cli_leaves_the_users_threads_and_an_imported_numpy_alone(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    environ = {variable: "4"}
    monkeypatch.setattr(os, "environ", environ)
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    cli = ["python", "-m", "polarscore", "score"]
    assert not _allocator.configure_blas_for_cli(cli)
    assert environ == {variable: "4"}
    environ.clear()
    monkeypatch.setitem(sys.modules, "numpy", sys)  # any module: NumPy is imported
    assert not _allocator.configure_blas_for_cli(cli)  # too late: its threads are started
    assert environ == {}


def test_the_command_lines_openblas_runs_on_one_thread(tmp_path: Path) -> None:
    environment = {k: v for k, v in ENV.items() if k not in _allocator.BLAS_THREADS_VARIABLES}
    variable = "__import__('os').environ.get('OPENBLAS_NUM_THREADS')"

    def threads(command: list[str]) -> str:
        return _printed_at_exit(tmp_path, command, variable, environment)

    assert threads([*COMMAND, "scorers"]) == _allocator.CLI_BLAS_THREADS
    assert threads([sys.executable, "-c", "import polarscore"]) == "None"


def test_pause_gc_for_cli_pauses_the_collector_for_the_command_line_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    frozen: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(_allocator, "_gc_paused", False)
    assert gc.isenabled()
    try:
        assert not _allocator.pause_gc_for_cli(["python", "-c", "import polarscore"])
        assert gc.isenabled()
        _allocator.resume_gc()  # nothing paused: nothing frozen
        assert frozen == []
        assert _allocator.pause_gc_for_cli(["python", "-m", "polarscore", "score"])
        assert not gc.isenabled()
        assert not _allocator.pause_gc_for_cli(["python", "-m", "polarscore", "score"])
        _allocator.resume_gc()
        assert gc.isenabled()
        assert frozen == [True]
        _allocator.resume_gc()  # once only
        assert frozen == [True]
    finally:
        gc.enable()


def test_the_command_line_runs_with_the_collector_on_past_its_imports(tmp_path: Path) -> None:
    collector = "__import__('gc').isenabled(), __import__('gc').get_freeze_count() > 10000"

    def seen(command: list[str]) -> str:
        return _printed_at_exit(tmp_path, command, collector, dict(ENV))

    assert seen([*COMMAND, "scorers"]) == "True True"
    assert seen([sys.executable, "-c", "import polarscore"]) == "True False"
