"""`polarscore score` on logs whose rows repeat: each slice's distinct rows are scored once.

The scored log must be the very log the row-by-row path writes (`--every-row`), whatever the
columns the scorers read, and the distinct path must really run where rows repeat and stay out
of the way where they do not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polarscore as ps
from polarscore import cli
from polarscore.cli import _distinct, _output, _progress
from polarscore.cli._distinct import DistinctScoring

ROWS = 6_000
SLICE = 1_500
#: The columns the last distinct scoring read (set by the ``spied`` fixture).
KEYS: list[str] = []


def _log(rows: int, distinct: int) -> pl.DataFrame:
    """A multiple-choice log of ``rows`` rows that repeat ``distinct`` items (ids all differ)."""
    answers = ["A", "The answer is B.", "C) Lyon", "**D**", "", None, "Paris or London", "B"]
    items = [
        {
            "input": f"Question {i % 17}: which city? A) Paris B) Rome C) Lyon D) Oslo",
            "response": f"{answers[i % len(answers)]} ({i})" if i % 9 else None,
            "reference": "ABCD"[i % 4],
            "references": ["ABCD"[i % 4], ["Paris", "Rome", "Lyon", "Oslo"][i % 4]],
            "choices": ["Paris", "Rome", "Lyon", "Oslo"],
            "match_mode": ["exact", "normalized", "contains"][i % 3],
        }
        for i in range(distinct)
    ]
    order = [(i * 7919) % distinct for i in range(rows)]
    return pl.DataFrame([items[j] for j in order]).with_columns(
        id=pl.int_range(rows), epoch=pl.int_range(rows) // distinct
    )


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """Cut logs into slices of SLICE rows, and record the rows each slice read first scored (its
    distinct rows that the slice before it did not hold; None: it was scored whole)."""
    monkeypatch.setattr(_output, "MIN_SLICE_ROWS", SLICE)
    monkeypatch.setattr(_output, "slice_size", lambda total, most=SLICE: SLICE)
    seen: list[int | None] = []
    score_slice = DistinctScoring._score_slice

    def spy(
        self: DistinctScoring,
        inputs: pl.DataFrame,
        keys: pl.DataFrame,
        run: Callable[[pl.LazyFrame], pl.DataFrame],
    ) -> pl.DataFrame:
        part = score_slice(self, inputs, keys, run)
        seen.append(self.scored_rows[-1])
        KEYS[:] = self.keys
        return part

    monkeypatch.setattr(DistinctScoring, "_score_slice", spy)
    return seen


def _score_both(tmp_path: Path, log: pl.DataFrame, *flags: str) -> tuple[pl.DataFrame, ...]:
    source = tmp_path / "log.parquet"
    log.write_parquet(source)
    outputs = []
    for every_row in ((), ("--every-row",)):
        target = tmp_path / f"out{len(outputs)}.parquet"
        code = cli.main(["score", str(source), "-o", str(target), "--quiet", *flags, *every_row])
        assert code == cli.EXIT_OK
        outputs.append(pl.read_parquet(target))
    return tuple(outputs)


@pytest.mark.parametrize(
    "flags",
    [
        (),
        ("--references", "references", "--threshold", "0.5"),
        ("--mode-column", "match_mode", "--scorer", "answer_correctness", "--prefix", "s_"),
        ("--scorer", "correct", "--scorer", "answer_match", "--drop", "response", "input"),
        ("--task-kind", "short_answer"),
    ],
    ids=["default", "references", "mode-column", "drop-read-columns", "task-kind"],
)
def test_repeated_rows_are_scored_once_with_the_same_scores(
    tmp_path: Path, spied: list[int | None], flags: tuple[str, ...]
) -> None:
    """A log of 6,000 rows repeating 40 items: every slice is scored on its distinct rows (of
    the question, response, reference, aliases, options and mode: the columns the scorers
    read, never the ids), and the output equals the row-by-row one, column for column."""
    log = _log(ROWS, 40)
    fast, every = _score_both(tmp_path, log, *flags)
    assert_frame_equal(fast, every)
    assert fast.height == ROWS
    # four slices of 1,500 rows, each holding the 40 items' rows: the first scores the items'
    # distinct rows on the columns read (fewer than 40 where those leave out the question), the
    # next ones none (the slice before held them); the row-by-row run adds no call
    assert "response" in KEYS
    assert not {"id", "epoch"} & set(KEYS)
    assert spied == [log.select(KEYS).n_unique(), 0, 0, 0]


def test_distinct_rows_are_scored_whole(tmp_path: Path, spied: list[int | None]) -> None:
    """Where every row differs, no slice goes through the unique and the join: the first slice
    is read and found distinct, and every next one is one streaming query, as the one before it
    was distinct."""
    log = _log(ROWS, ROWS).with_columns(response=pl.format("answer {}", "id"))
    fast, every = _score_both(tmp_path, log)
    assert_frame_equal(fast, every)
    assert spied == [None]


def _distinct_log(rows: int) -> pl.DataFrame:
    """A log of ``rows`` rows whose responses all differ."""
    return _log(rows, rows).with_columns(response=pl.format("answer {}", "id"))


def test_a_slice_that_repeats_makes_the_next_one_scored_by_distinct_rows(
    tmp_path: Path, spied: list[int | None]
) -> None:
    """A log whose first slice is distinct and whose rows repeat after it: the second slice is
    streamed (the first did not repeat), found repeating and kept as the memo, so the third
    and fourth find every row there and score none; the output is the row-by-row one."""
    log = pl.concat([_distinct_log(SLICE), _log(ROWS - SLICE, 40)]).with_columns(
        id=pl.int_range(ROWS)
    )
    fast, every = _score_both(tmp_path, log)
    assert_frame_equal(fast, every)
    assert spied == [None, 0, 0]


def test_a_log_repeated_epoch_after_epoch_takes_the_scores_of_the_slice_before(
    tmp_path: Path, spied: list[int | None]
) -> None:
    """1,000 distinct items, epochs in a row (7,500 rows in five slices): the first slice holds
    the 1,000 items and 500 repeats (a third, over REPEAT_SHARE), scores each item once and
    keeps them; every next slice finds all its rows in the slice before it and scores none.
    Same output."""
    assert _distinct.REPEAT_SHARE <= 1 / 3
    assert _distinct.MIN_SAVED_SHARE <= 1 / 3
    epoch = _distinct_log(1_000)
    log = pl.concat([epoch] * 8).head(7_500).with_columns(id=pl.int_range(7_500))
    fast, every = _score_both(tmp_path, log)
    assert_frame_equal(fast, every)
    assert spied == [1_000, 0, 0, 0, 0]


def test_an_epoch_shorter_than_a_slice_is_told_from_the_slices_end(
    tmp_path: Path, spied: list[int | None]
) -> None:
    """1,200 distinct items, epochs in a row (7,500 rows in five slices): the first slice holds
    the 1,200 items and 300 repeats, too few for its distinct rows to pay (it is scored whole),
    but its last quarter is mostly repeats, so the next slice is expected to repeat: it is
    read first and finds every row in the first, and so on. Same output."""
    assert 300 / 1_500 < _distinct.MIN_SAVED_SHARE <= 300 / (1_500 * _distinct.TAIL_SHARE)
    epoch = _distinct_log(1_200)
    log = pl.concat([epoch] * 7).head(7_500).with_columns(id=pl.int_range(7_500))
    fast, every = _score_both(tmp_path, log)
    assert_frame_equal(fast, every)
    assert spied == [None, 0, 0, 0, 0]


def test_a_log_with_few_repeats_is_streamed(tmp_path: Path, spied: list[int | None]) -> None:
    """A tenth of each slice's rows repeat (a row of the slice, or of the slice before): under
    REPEAT_SHARE, looking rows up would cost more than it spares, so only the first slice is
    read first (and scored whole, too few rows spared) and every next slice is streamed."""
    distinct = _distinct_log(ROWS)
    row = pl.int_range(ROWS)
    repeated = pl.select(pl.when(row % 10 == 9).then(row - 7).otherwise(row)).to_series()
    log = distinct[repeated].with_columns(id=pl.int_range(ROWS))
    fast, every = _score_both(tmp_path, log)
    assert_frame_equal(fast, every)
    assert spied == [None]


def test_hash_collisions_never_share_scores(
    tmp_path: Path, spied: list[int | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows are found by the hash of their keys, but take other rows' scores only when their
    keys are equal: with every row hashed alike, the memo holds one row and each slice scores
    its one row per hash, then every row whose keys differ from those two alone, and the output
    is still the row-by-row one."""
    monkeypatch.setattr(
        DistinctScoring, "_hash", lambda self: pl.lit(7, dtype=pl.UInt64).alias(self.hash_name)
    )
    log = _log(ROWS, 40)
    fast, every = _score_both(tmp_path, log)
    assert_frame_equal(fast, every)
    assert spied == [1, 1, 1, 1]


def _scoring(
    frame: pl.LazyFrame, keys: list[str], **options: Any
) -> tuple[DistinctScoring | None, Callable[[pl.LazyFrame], pl.LazyFrame]]:
    def score(rows: pl.LazyFrame) -> pl.LazyFrame:
        return ps.score_frame(rows, **options)

    return DistinctScoring.plan(frame, score, keys), score


def test_plan_refuses_keys_that_miss_a_read_column() -> None:
    """Keys without a column the scores read cannot resolve: no distinct scoring, never a
    scoring without that column."""
    frame = _log(100, 10).lazy()
    assert _scoring(frame, ["response"])[0] is None  # the reference is read too
    plan, _ = _scoring(frame, ["response", "reference", "input", "choices"])
    assert plan is not None
    assert plan.keys == ("response", "reference", "input", "choices")


def test_plan_refuses_float_keys_and_unknown_columns() -> None:
    frame = pl.LazyFrame({"response": ["a"], "reference": ["a"], "weight": [0.0]})
    assert _scoring(frame, ["response", "reference", "weight"])[0] is None
    assert _scoring(frame, ["response", "reference", "nope"])[0] is None
    assert _scoring(frame, ["response", "reference"])[0] is not None


@settings(max_examples=25, deadline=None)
@given(
    texts=st.lists(st.one_of(st.none(), st.text(max_size=40)), min_size=1, max_size=6),
    picks=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=60),
)
def test_distinct_scoring_matches_scoring_every_row(
    texts: list[str | None], picks: list[tuple[int, int]]
) -> None:
    """On random Unicode rows that repeat, scoring the distinct rows and joining gives the
    scores of scoring every row, bit for bit (nulls and empty texts included)."""
    pairs = [(texts[a % len(texts)], texts[b % len(texts)]) for a, b in picks]
    frame = pl.LazyFrame(
        {"response": [r for r, _ in pairs], "reference": [g for _, g in pairs]},
        schema={"response": pl.String, "reference": pl.String},
    ).with_columns(row=pl.int_range(pl.len()))
    plan, score = _scoring(frame, ["response", "reference"])
    assert plan is not None
    progress = _progress.Progress(len(pairs), stream=None)
    half = len(pairs) // 2
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_distinct, "MIN_ROWS", 0)
        patch.setattr(_distinct, "REPEAT_SHARE", 0.0)  # every slice read first, a memo kept
        patch.setattr(_distinct, "MIN_SAVED_SHARE", 0.0)  # always the distinct path
        first = plan.collect(score(frame), 0, half, progress)
        second = plan.collect(score(frame), half, len(pairs) - half, progress)
    assert_frame_equal(pl.concat([first, second]), score(frame).collect())


def test_every_row_is_refused_without_an_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "log.parquet"
    _log(10, 10).write_parquet(source)
    assert cli.main(["score", str(source), "--every-row"]) == 2
    assert "--every-row applies only with -o OUTPUT" in capsys.readouterr().err


@settings(max_examples=80, deadline=None)
@given(
    slices=st.lists(
        st.lists(st.integers(min_value=0, max_value=40), min_size=0, max_size=60),
        min_size=1,
        max_size=5,
    )
)
def test_the_next_slice_is_expected_to_repeat_as_its_tail_did(slices: list[list[int]]) -> None:
    """The expectation each slice leaves (its tail's rows that repeat a row of the slice before
    it, or one before them in the slice, against REPEAT_SHARE) is the one told row by row here
    from the hashes, whichever way the tail is tested."""
    scoring = DistinctScoring(
        pl.LazyFrame({"response": ["x"]}),
        lambda frame: frame,
        ("response",),
        ("score",),
        ("response", "score"),
    )
    before: list[int] | None = None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_distinct, "MIN_ROWS", 8)
        for hashes in slices:
            tail = max(int(len(hashes) * _distinct.TAIL_SHARE), 1)
            start = len(hashes) - tail
            repeat = [
                hashes[i] in hashes[:i] or (before is not None and hashes[i] in before)
                for i in range(max(start, 0), len(hashes))
            ]
            want = len(hashes) >= 8 and sum(repeat) / len(repeat) >= _distinct.REPEAT_SHARE
            got = scoring._observe(
                pl.Series(scoring.hash_name, hashes, dtype=pl.UInt64), lambda q: q.collect()
            )
            assert got is want
            assert scoring.repeats is want
            before = hashes
