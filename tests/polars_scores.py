"""Every default scorer's scores on the parity cases, as each supported Polars must give them.

The frame is scored lazily with the streaming engine in three ways: ``score_frame`` with one
reference per row (``String``), ``score_frame`` with the list of acceptable answers
(``List(String)``), and each scorer's own expression on a ``Categorical`` response and a
``List(Categorical)`` reference, which exercises the dtype checks of ``polarscore._compat``.

``.ci/polars-versions`` writes the frame with the newest Polars::

    python -m tests.polars_scores OUT.parquet

and ``tests/test_polars_versions.py`` checks, under another Polars, that it scores the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

import polarscore as ps

CASES = Path(__file__).parent / "data" / "parity_cases.parquet"


def default_scores() -> pl.DataFrame:
    """Score the parity cases with every default scorer, three ways (see the module's doc)."""
    cases = pl.scan_parquet(CASES).select("id", "response", "reference", "acceptable")
    scored = ps.score_frame(cases, prefix="one_")
    scored = ps.score_frame(scored, reference="acceptable", prefix="many_")
    scored = scored.with_columns(
        ps.get_scorer(name)
        .expr(
            pl.col("response").cast(pl.Categorical),
            pl.col("acceptable").cast(pl.List(pl.Categorical)),
        )
        .alias(f"categorical_{name}")
        for name in ps.default_scorers()
    )
    return scored.collect(engine="streaming")


def main() -> None:
    """Write :func:`default_scores` to the Parquet file named on the command line."""
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.polars_scores OUT.parquet")
    default_scores().write_parquet(sys.argv[1])


if __name__ == "__main__":
    main()
