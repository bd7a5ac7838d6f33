"""Bundled sample data.

``triviaqa_sample.parquet`` holds 3,000 real answers of five QA systems (DPR+FiD, GPT-3.5
text-davinci-003, ChatGPT, GPT-4, Bing Chat) to the first 600 TriviaQA questions of the EVOUNA
set, each with its gold answers and a human correct/incorrect verdict.

Source: Wang et al., *Evaluating Open-QA Evaluation* (NeurIPS 2023 Datasets and Benchmarks),
GitHub ``wangcunxiang/QA-Eval`` (``EVOUNA/TQ.json``, commit ``90007d39``), Apache-2.0; the
questions and answers come from TriviaQA (Apache-2.0).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import polars as pl

SAMPLE_NAME = "triviaqa_sample.parquet"


def sample_path() -> Path:
    """Return the path of the bundled TriviaQA sample eval log (Parquet)."""
    return Path(str(files("polarscore") / "data" / SAMPLE_NAME))


def load_sample(*, lazy: bool = False) -> pl.DataFrame | pl.LazyFrame:
    """Load the bundled TriviaQA sample eval log.

    Columns: ``id``, ``source``, ``model``, ``model_key``, ``question_index``, ``input``,
    ``response``, ``reference`` (first gold answer), ``references`` (all gold aliases),
    ``human_correct`` (nullable human verdict) and ``improper_question``.

    Examples
    --------
    >>> from polarscore.datasets import load_sample
    >>> load_sample().shape
    (3000, 11)
    """
    if lazy:
        return pl.scan_parquet(sample_path())
    return pl.read_parquet(sample_path())


__all__ = ["load_sample", "sample_path"]
