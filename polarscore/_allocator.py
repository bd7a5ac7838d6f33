"""The command line's process settings (allocators, OpenBLAS's threads, the garbage collector).

Importing this module (the package does it first, before it imports Polars) sets the settings of
:data:`CLI_JEMALLOC_CONF` when the process runs the ``polarscore`` command line, and leaves them
alone otherwise: a program that imports the library keeps Polars' own settings.

Polars allocates with jemalloc, which keeps the memory freed for half a second before it hands it
back to the system (``dirty_decay_ms:500``), and then for another second pages the system may take
back but that still count in the process's resident memory (``muzzy_decay_ms:1000``). The command
line scores a Parquet log slice by slice, a slice about every second: the memory of the one or
two slices before still counted, more or less of it as the decay went, so a slice's peak varied
by 60-100 MiB around its median and a run's peak, the highest of its slices', grew with the number
of slices (357 MiB at 1M rows of the issue-44 mix, 394 MiB at 3M). Freed memory handed back at
once makes the peak the same for every slice, and so for every log, for about 2.5% more CPU
time on the mix (the pages freed and faulted in again; ``docs/benchmarks.md``).

pyarrow, which writes the slices, allocates from its own pool: mimalloc by default, which hands
the Parquet encoder's buffers back to the system after each slice, so that the next one faults
them in again (on MMLU-Pro x5, up to a third of the CLI's CPU was system time). On Linux, where
pyarrow's wheels have it, the command line gives pyarrow Arrow's jemalloc instead
(:data:`CLI_ARROW_POOL`, unless ``ARROW_DEFAULT_MEMORY_POOL`` is set or pyarrow is imported).

pyarrow imports NumPy, whose OpenBLAS starts a thread per core when loaded; each one spins, waiting
for work, before it sleeps. The command line never multiplies matrices: it runs OpenBLAS on one
thread (:data:`CLI_BLAS_THREADS`, unless a thread count is set for it or NumPy is imported), which
spares that spinning (0.05-0.1 s of CPU on 2 cores, 0.7-1.5% of scoring the 1M-row synthetic log
in perf samples; more where there are more cores).

Importing Polars and the package makes some 50,000 objects that live as long as the process, and
Python's cyclic garbage collector walks them: in young collections while they are made, and all of
them once more as the process exits (together 60-80 perf samples, 30-40 ms of CPU). The command
line imports with the collector paused (:func:`pause_gc_for_cli`), then freezes every object made
so far, out of the collector's reach, and resumes it (:func:`resume_gc`, called by ``main``).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: The variable Polars' jemalloc reads its settings from (Polars adds them after its own).
JEMALLOC_CONF_VARIABLE = "_RJEM_MALLOC_CONF"
#: jemalloc's settings for the command line: freed memory goes back to the system at once.
CLI_JEMALLOC_CONF = "dirty_decay_ms:0,muzzy_decay_ms:0"

#: The variable pyarrow reads its default memory pool from, when first imported.
ARROW_POOL_VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"
#: pyarrow's memory pool for the command line (on Linux).
CLI_ARROW_POOL = "jemalloc"

#: The settings Polars itself writes into the variable when it is imported (its defaults, in the
#: versions polarscore supports). A command line started by a program that imported Polars (a
#: notebook's ``!polarscore``, a pipeline's subprocess) inherits them: they are not the user's.
_POLARS_OWN = frozenset(
    {
        "dirty_decay_ms:500",
        "muzzy_decay_ms:1000",
        "muzzy_decay_ms:-1",
        "thp:always",
        "metadata_thp:always",
    }
)

#: The variables OpenBLAS reads its thread count from, in the order it reads them.
BLAS_THREADS_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
#: OpenBLAS's thread count for the command line.
CLI_BLAS_THREADS = "1"

_SCRIPT_NAMES = frozenset({"polarscore", "polarscore.exe", "polarscore-script.py"})
#: The interpreter's options whose value is the next argument.
_OPTIONS_WITH_VALUE = frozenset({"-W", "-X", "--check-hash-based-pycs"})


def runs_cli(argv: Sequence[str]) -> bool:
    """Return whether the interpreter's command line ``argv`` runs polarscore's command line.

    ``python -m polarscore ...`` or the ``polarscore`` script (``argv`` is ``sys.orig_argv``,
    which holds the interpreter's own options too).
    """
    arguments = iter(argv[1:])
    for argument in arguments:
        if argument in _OPTIONS_WITH_VALUE:
            next(arguments, None)
        elif argument == "-m":
            return next(arguments, None) == "polarscore"
        elif argument == "-mpolarscore":
            return True
        elif argument.startswith("-c") or argument == "-":
            return False
        elif not argument.startswith("-"):
            return Path(argument).name in _SCRIPT_NAMES
    return False


def set_by_user(value: str | None) -> bool:
    """Return whether the variable's ``value`` holds a setting Polars does not write itself."""
    return value is not None and any(
        setting not in _POLARS_OWN for setting in value.split(",") if setting
    )


def configure_for_cli(argv: Sequence[str] | None = None) -> bool:
    """Set :data:`CLI_JEMALLOC_CONF` if the process runs the command line; return whether set.

    Nothing is set once Polars is imported (its allocator is then set up already), nor when the
    user set the variable: to anything but the settings Polars itself writes there, which a
    process started by a program that imported Polars inherits.
    """
    if "polars" in sys.modules or set_by_user(os.environ.get(JEMALLOC_CONF_VARIABLE)):
        return False
    if not runs_cli(sys.orig_argv if argv is None else argv):
        return False
    os.environ[JEMALLOC_CONF_VARIABLE] = CLI_JEMALLOC_CONF
    return True


def configure_arrow_for_cli(argv: Sequence[str] | None = None, platform: str | None = None) -> bool:
    """Set :data:`CLI_ARROW_POOL` if the process runs the command line on Linux; return if set.

    Nothing is set once pyarrow is imported (its pool is chosen then), nor when the user set
    the variable, nor on other systems, whose pyarrow may lack jemalloc (it would print a
    warning and keep its default).
    """
    if (platform or sys.platform) != "linux" or "pyarrow" in sys.modules:
        return False
    if os.environ.get(ARROW_POOL_VARIABLE):
        return False
    if not runs_cli(sys.orig_argv if argv is None else argv):
        return False
    os.environ[ARROW_POOL_VARIABLE] = CLI_ARROW_POOL
    return True


def configure_blas_for_cli(argv: Sequence[str] | None = None) -> bool:
    """Set :data:`CLI_BLAS_THREADS` if the process runs the command line; return whether set.

    Nothing is set once NumPy is imported (its OpenBLAS threads are started then), nor when the
    user set one of :data:`BLAS_THREADS_VARIABLES`.
    """
    if "numpy" in sys.modules or any(os.environ.get(v) for v in BLAS_THREADS_VARIABLES):
        return False
    if not runs_cli(sys.orig_argv if argv is None else argv):
        return False
    os.environ[BLAS_THREADS_VARIABLES[0]] = CLI_BLAS_THREADS
    return True


#: Whether :func:`pause_gc_for_cli` paused the garbage collector.
_gc_paused = False


def pause_gc_for_cli(argv: Sequence[str] | None = None) -> bool:
    """Pause the garbage collector if the process runs the command line; return whether paused.

    Nothing is done when the collector is off already (a program or the user turned it off).
    """
    global _gc_paused
    if not gc.isenabled() or not runs_cli(sys.orig_argv if argv is None else argv):
        return False
    gc.disable()
    _gc_paused = True
    return True


def resume_gc() -> None:
    """Resume the collector paused by :func:`pause_gc_for_cli`, past the objects made so far.

    They are frozen (:func:`gc.freeze`): the collector no longer walks them.
    """
    global _gc_paused
    if _gc_paused:
        _gc_paused = False
        gc.freeze()
        gc.enable()


configure_for_cli()
configure_arrow_for_cli()
configure_blas_for_cli()
pause_gc_for_cli()
