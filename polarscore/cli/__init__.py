"""The ``polarscore`` command line.

* ``polarscore score --sample`` scores the bundled TriviaQA sample against its alias lists with
  answer correctness in every match mode and prints a per-mode summary beside the sample's human
  verdicts (``polarscore score LOG.parquet`` does the same for your own log; ``--scorer``,
  ``--references`` and ``--threshold`` choose what is printed).
* ``polarscore score INPUT... -o OUTPUT`` adds score columns to eval logs (Parquet, JSON Lines or
  CSV tables, and the logs of inspect-ai, lm-evaluation-harness, HELM, promptfoo, OpenAI evals and
  lighteval, read by :mod:`polarscore.logs`; globs and directories of them) and writes Parquet or
  CSV, streaming with bounded memory, atomically (a temporary file renamed at the end), with a
  progress bar on a terminal.
* ``polarscore summary SCORED...`` prints scored and inconclusive counts, the mean and the pass
  rate with confidence intervals, as a table or as JSON, at the thresholds recorded in the
  scored file (:mod:`polarscore.provenance`) unless ``--threshold`` is given.
* ``polarscore report SCORED... -o report.html`` writes one self-contained HTML page about
  scored logs (:mod:`polarscore.reporting`): intervals per group, distributions, paired
  differences, agreement with a verdict, sampled rows and the provenance record.
* ``polarscore scorers`` lists the registered scorers and their options.

Exit codes: 0 success, 1 unexpected error, 2 bad usage or options, 3 a column is missing, of the
wrong type, or would be overwritten, 4 an input is missing, unreadable or corrupt, 5 the output
cannot be written (it exists: pass ``--overwrite``), 130 interrupted (Ctrl-C), 143 terminated.
"""

from __future__ import annotations

from polarscore.cli._args import parse_scorer
from polarscore.cli._exit import (
    EXIT_DATA,
    EXIT_ERROR,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_OUTPUT,
    EXIT_TERMINATED,
    EXIT_USAGE,
)
from polarscore.cli._main import PARQUET_PREFETCH_VARIABLE, main

__all__ = [
    "EXIT_DATA",
    "EXIT_ERROR",
    "EXIT_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_OUTPUT",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "PARQUET_PREFETCH_VARIABLE",
    "main",
    "parse_scorer",
]
