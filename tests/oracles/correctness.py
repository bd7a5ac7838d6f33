"""A slow, obviously-correct pure-Python answer correctness (tests only): mirrors
``src/correctness.rs``.

Written from DataRobot's answer-correctness behaviour in plain Python, with Python's own ``str``
and ``re`` semantics, so it shares none of the Polars implementation's code or its Rust character
classes.
"""

from __future__ import annotations

import re

INCONCLUSIVE = "no ideal_response provided — cannot score"


def datarobot_normalize(text: str) -> str:
    text = text.lower().strip()
    text = re.sub(r"[^\w\s]", "", text)
    text = re.sub(r"\s+", " ", text)
    return text.strip()


def answer_correctness(
    response: str | None, reference: str | None, match_mode: str | None
) -> tuple[float | None, str]:
    """DataRobot's answer correctness: (score or None, reason)."""
    if reference is None or not str(reference).strip():
        return None, INCONCLUSIVE
    mode = str(match_mode or "normalized").lower()
    if mode not in ("exact", "normalized", "contains"):
        mode = "normalized"
    response = "" if response is None else response
    if mode == "exact":
        matched = response.strip() == reference.strip()
    elif mode == "normalized":
        matched = datarobot_normalize(response) == datarobot_normalize(reference)
    else:
        matched = datarobot_normalize(reference) in datarobot_normalize(response)
    return (1.0 if matched else 0.0), (f"{mode} match" if matched else f"no {mode} match")
