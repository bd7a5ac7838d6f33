"""The documentation's examples run, and the README's links into docs/ lead somewhere.

Every ```python block of the README and of the site's pages (docs/*.md, in the order of the
``nav`` of mkdocs.yml) runs, in page order, in one namespace per page, so a block may use what an
earlier block of the same page defined. A block that cannot run here (it needs Spark, Ray, Dask or
files that are not in the repository) is marked on the line just above its fence with an HTML
comment, which the rendered page does not show::

    <!-- docs-test: skip (the reason) -->
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SKIP = re.compile(r"<!-- docs-test: skip \(.+\) -->")
FENCE = re.compile(r"^```python\n(.*?)^```$", flags=re.DOTALL | re.MULTILINE)


def _nav_pages() -> list[str]:
    """The pages of mkdocs.yml's nav, in order (read as text: the test needs no YAML parser)."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    nav = re.split(r"\n\S", nav, maxsplit=1)[0]
    return re.findall(r":\s+(\S+\.md)\s*$", nav, flags=re.MULTILINE)


def _python_blocks(text: str) -> list[tuple[int, str]]:
    """Return (line number, code) for every python block not marked as skipped."""
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if SKIP.fullmatch(before.strip()):
            continue
        blocks.append((text.count("\n", 0, match.start()) + 2, match.group(1)))
    return blocks


PAGES = ["README.md", *(f"docs/{page}" for page in _nav_pages())]


def test_nav_lists_every_page() -> None:
    pages = sorted(path.name for path in DOCS.glob("*.md"))
    assert sorted(_nav_pages()) == pages


def test_skip_marker_is_recognised() -> None:
    text = (
        "a\n\n<!-- docs-test: skip (needs Spark) -->\n```python\nx = 1\n```\n\n```python\ny\n```\n"
    )
    assert [code for _, code in _python_blocks(text)] == ["y\n"]


@pytest.mark.parametrize("page", PAGES)
def test_python_blocks_run(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for line, code in _python_blocks((ROOT / page).read_text(encoding="utf-8")):
        exec(compile(code, f"{page}, block at line {line}", "exec"), namespace)


def _slug(heading: str) -> str:
    """Python-Markdown's toc anchor of a heading (as MkDocs writes it)."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[-\s]+", "-", text)


def _anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {_slug(heading) for heading in headings}


def test_readme_links_into_docs_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#([^)\s]+))?\)", readme)
    assert links, "the README links into docs/"
    for target, anchor in links:
        path = ROOT / target
        assert path.is_file(), target
        if anchor:
            assert anchor in _anchors(path), f"{target}#{anchor}"


def test_slug_follows_python_markdown() -> None:
    assert _slug("Summaries: `summarize` and `polarscore summary`") == (
        "summaries-summarize-and-polarscore-summary"
    )


@pytest.mark.parametrize("page", PAGES)
def test_no_reference_to_a_document_outside_the_repository(page: str) -> None:
    assert not re.search(r"\bSPEC\b", (ROOT / page).read_text(encoding="utf-8"))
