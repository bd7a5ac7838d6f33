"""``language_detection``: the response's language as ``langdetect`` reads it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache

import polars as pl

from polarscore._typing import IntoExpr
from polarscore._utils import check_same_length
from polarscore._validation import check_choice
from polarscore.scores.checks._shared import (
    as_expr,
    binary,
    details,
    map_present,
    response_text,
    text_option,
)

#: The 55 language codes ``langdetect`` 1.0.9 can answer.
LANGUAGES: tuple[str, ...] = (
    "af", "ar", "bg", "bn", "ca", "cs", "cy", "da", "de", "el", "en", "es", "et", "fa", "fi",
    "fr", "gu", "he", "hi", "hr", "hu", "id", "it", "ja", "kn", "ko", "lt", "lv", "mk", "ml",
    "mr", "ne", "nl", "no", "pa", "pl", "pt", "ro", "ru", "sk", "sl", "so", "sq", "sv", "sw",
    "ta", "te", "th", "tl", "tr", "uk", "ur", "vi", "zh-cn", "zh-tw",
)  # fmt: skip


# --- language_detection ---------------------------------------------------------------------------


_LANGDETECT_LOCK = threading.Lock()


def _detector(function: str) -> Callable[[str], str]:
    try:
        from langdetect.detector_factory import init_factory
    except ImportError:
        raise ImportError(
            f"{function} needs the optional dependency langdetect: pip install 'polarscore[lang]'"
        ) from None
    # langdetect loads its profiles on first use, without a lock: two batches detecting at once
    # could load them twice. Load them now, once, before any batch runs.
    with _LANGDETECT_LOCK:
        init_factory()
    return _detect_language


@lru_cache(maxsize=8192)
def _detect_language(text: str) -> str:
    """``langdetect.detect`` seeded with 0 (so deterministic, and cached), or ``"unknown"``."""
    from langdetect import DetectorFactory, detect
    from langdetect.lang_detect_exception import LangDetectException

    DetectorFactory.seed = 0
    try:
        code: str = detect(text)
    except LangDetectException:
        return "unknown"
    return code


def _language(
    response: IntoExpr, expected_language: str | pl.Expr | pl.Series, function: str
) -> tuple[pl.Expr, pl.Expr]:
    check_same_length(function, response=response, expected_language=expected_language)
    expected = text_option(expected_language, function, "expected_language")
    if isinstance(expected, str):
        check_choice(expected, function=function, parameter="expected_language", allowed=LANGUAGES)
    detect_one = _detector(function)
    text = response_text(response, function)
    detected = text.map_batches(
        map_present(detect_one, pl.String()), return_dtype=pl.String, is_elementwise=True
    )
    wanted = as_expr(expected)
    matched = (detected != "unknown") & (detected == wanted)
    reason = pl.concat_str(pl.lit("Detected language: "), detected, pl.lit(", expected: "), wanted)
    return binary(matched), reason


def language_detection(
    response: IntoExpr, *, expected_language: str | pl.Expr | pl.Series = "en"
) -> pl.Expr:
    """Score whether ``langdetect`` reads the response as the expected language: 1.0 or 0.0.

    Parameters
    ----------
    response
        The model's answers (null is read as the empty string).
    expected_language
        One of the 55 codes ``langdetect`` answers (:data:`LANGUAGES`: lowercase ISO 639-1
        plus ``zh-cn`` and ``zh-tw``), or a ``String`` expression giving one per row.

    Returns
    -------
    pl.Expr
        ``Float64`` named ``language_detection``, never null. A text without letters (empty,
        digits, punctuation, a bare URL) is detected as ``unknown`` and scores 0.0.

    Notes
    -----
    Reproduces ``LanguageDetectionMetric`` of eval-ai-library 0.8.2 with ``langdetect`` 1.0.9
    (the optional extra ``polarscore[lang]``), seeded with 0 for every text, once per distinct
    response of a batch. It is unreliable on short texts (``"Yes"`` is ``tr``, ``"ok"`` is
    ``sk``); see ``docs/checks.md`` for figures.

    Examples
    --------
    >>> import polars as pl
    >>> import polarscore as ps
    >>> text = "The capital of France is Paris, a city on the Seine."
    >>> df = pl.DataFrame({"response": [text, "42"]})
    >>> df.select(ps.language_detection("response"))["language_detection"].to_list()
    [1.0, 0.0]
    """
    score, _ = _language(response, expected_language, "language_detection")
    return score.alias("language_detection")


def language_detection_details(
    response: IntoExpr, *, expected_language: str | pl.Expr | pl.Series = "en"
) -> pl.Expr:
    """Score :func:`language_detection` and give the reference's reason text.

    Returns
    -------
    pl.Expr
        ``Struct`` named ``language_detection_details``: ``score`` and ``reason``
        (``Detected language: en, expected: en``).
    """
    score, reason = _language(response, expected_language, "language_detection_details")
    return details("language_detection", score, reason)
