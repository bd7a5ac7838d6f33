"""The report as a person sees it: loaded in headless Chromium over the DevTools protocol.

One browser serves every test of the module. The page must load with no console error, no
exception and no network request but its own file, run no script, show hostile log text as
text, and print. Without Chromium (or ``websocket-client``) the tests skip, unless
``POLARSCORE_REQUIRE_BROWSER=1`` (set by CI), where they fail.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

import polarscore as ps
from tests.cdp import Browser, find_browser
from tests.test_report import HOSTILE

REQUIRED = os.environ.get("POLARSCORE_REQUIRE_BROWSER") == "1"


def _unavailable() -> str | None:
    if find_browser() is None:
        return (
            "the report's browser tests need Chromium, and no chromium executable was found "
            "(Debian, Ubuntu: apt install chromium; see the README's set-up)"
        )
    try:
        import websocket  # noqa: F401
    except ImportError:
        return "the websocket-client package is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    reason = _unavailable()
    if reason is not None:
        if REQUIRED:
            pytest.fail(f"POLARSCORE_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    executable = find_browser()
    assert executable is not None
    with Browser(executable) as running:
        yield running


def _page(tmp_path: Path, frame: pl.DataFrame, **options: object) -> Path:
    path = tmp_path / "report.html"
    ps.write_report(frame, path, n_bootstrap=100, **options)  # type: ignore[arg-type]
    return path


def _frame() -> pl.DataFrame:
    n = len(HOSTILE)
    return pl.DataFrame(
        {
            "model": (HOSTILE * 2)[: 2 * n],
            "question": list(range(n)) * 2,
            "response": HOSTILE + ["<img src=https://example.com/x.png>"] * n,
            "references": [[h] for h in HOSTILE] * 2,
            "answer_match": [float(i % 2) for i in range(2 * n)],
            "human": [i % 3 == 0 for i in range(2 * n)],
        }
    )


def test_page_loads_clean_with_no_network(browser: Browser, tmp_path: Path) -> None:
    path = _page(tmp_path, _frame(), verdict="human", pair_on="question", sample=20)
    url = path.resolve().as_uri()
    load = browser.load(url)
    assert load.errors() == []
    assert load.requests == [url]
    assert browser.evaluate("document.scripts.length") == 0
    assert browser.evaluate("document.images.length") == 0
    assert browser.evaluate("document.querySelectorAll('[onerror],[onload]').length") == 0
    shown = browser.evaluate("document.body.innerText")
    for hostile in HOSTILE[:4]:
        assert hostile in shown
    assert "<img src=https://example.com/x.png>" in shown


def test_page_draws_its_charts_and_fits_a_laptop_screen(browser: Browser, tmp_path: Path) -> None:
    frame = _frame().with_columns(model=pl.lit("m").add(pl.col("question").mod(3).cast(pl.String)))
    url = _page(tmp_path, frame, verdict="human", pair_on="question").resolve().as_uri()
    load = browser.load(url, width=1366, height=768)
    assert load.errors() == []
    # every chart has a size on screen, and nothing makes the page scroll sideways
    sizes = browser.evaluate(
        "Array.from(document.querySelectorAll('svg')).map(s => s.getBoundingClientRect().width)"
    )
    assert sizes
    assert min(sizes) > 100
    assert browser.evaluate("document.documentElement.scrollWidth") <= 1366


def test_page_prints(browser: Browser, tmp_path: Path) -> None:
    url = _page(tmp_path, _frame(), verdict="human").resolve().as_uri()
    assert browser.load(url).errors() == []
    pdf = base64.b64decode(browser.call("Page.printToPDF", {}, session=True)["data"])
    assert pdf.startswith(b"%PDF")
    # On paper the folded tables of numbers are printed (nothing can unfold them there).
    shown = "getComputedStyle(document.querySelector('.print-only')).display"
    assert browser.evaluate(shown) == "none"
    browser.call("Emulation.setEmulatedMedia", {"media": "print"}, session=True)
    try:
        assert browser.evaluate(shown) == "block"
        assert browser.evaluate("getComputedStyle(document.querySelector('details')).display") == (
            "none"
        )
    finally:
        browser.call("Emulation.setEmulatedMedia", {"media": ""}, session=True)
