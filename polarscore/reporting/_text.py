"""Text from the log made safe for the page: escaped, control characters shown, long text cut."""

from __future__ import annotations

import html
import re

#: Characters shown at most per cell of a sampled row; the rest is cut with a visible marker.
MAX_CELL_CHARS = 1500

# C0 controls except tab, newline and carriage return; DEL and the C1 controls; and the
# noncharacters U+FFFE/U+FFFF. Shown as a visible escape instead of being passed to the page.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def esc(value: object) -> str:
    r"""Return ``value`` as text that is safe in HTML and SVG content and in quoted attributes.

    ``&``, ``<``, ``>``, ``"`` and ``'`` are escaped (``html.escape(..., quote=True)``); control
    characters are written as a visible ``\xNN``.

    Examples
    --------
    >>> from polarscore.reporting._text import esc
    >>> esc('<script>alert("x")</script>\x00')
    '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\\x00'
    """
    return html.escape(_CONTROL.sub(_visible, str(value)), quote=True)


def cell(value: object, *, limit: int = MAX_CELL_CHARS, items: int = 20) -> str:
    """Return a sampled cell as escaped HTML, cut at ``limit`` characters with a visible marker.

    A list shows its first ``items`` items, a struct (a ``*_details`` reason) its fields.
    """
    if value is None:
        return '<span class="null">null</span>'
    if isinstance(value, list):
        first = value[:items]
        shown = "".join(f"<li>{cell(item, limit=limit // 2)}</li>" for item in first)
        more = (
            f'<li class="cut">… {len(value) - len(first):,} more items</li>'
            if len(value) > len(first)
            else ""
        )
        return f'<ul class="list">{shown}{more}</ul>'
    if isinstance(value, dict):
        parts = [
            f"<b>{esc(k)}</b>: {cell(v, limit=limit)}" for k, v in value.items() if v is not None
        ]
        return "<br>".join(parts)
    if isinstance(value, float):
        return esc(f"{value:.4g}")
    text = str(value)
    if len(text) <= limit:
        return esc(text)
    return (
        f'{esc(text[:limit])}<span class="cut">… [cut: {len(text) - limit:,} more characters]'
        "</span>"
    )
