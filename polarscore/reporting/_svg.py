"""Small inline SVG charts, drawn as text (no plotting library), every label escaped."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from polarscore.reporting._text import esc

#: Colours (one accent per role, colour-blind safe with each other).
PASS = "#2b6cb0"
MEAN = "#c05621"
KAPPA = "#6b46c1"
GRID = "#d9dde3"
SIGNIFICANT = "#b7322c"
MUTED = "#8a94a3"

_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


@dataclass
class Interval:
    """A value with an optional interval, for a dot-and-whisker row."""

    value: float | None
    low: float | None
    high: float | None


def _f(x: float) -> str:
    return f"{x:.1f}"


def _open(width: int, height: int, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{esc(label)}" {_FONT}>'
        f"<title>{esc(label)}</title>"
    )


def _label(x: float, y: float, text: str, *, anchor: str = "start", fill: str = "#1a202c") -> str:
    return (
        f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" fill="{fill}" '
        f'dominant-baseline="middle">{esc(text)}</text>'
    )


def _short(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _group_label(x: float, y: float, text: str, *, limit: int = 28) -> str:
    """Draw a right-aligned row label cut to ``limit`` characters, whole on hover."""
    if len(text) <= limit:
        return _label(x, y, text, anchor="end")
    return f"<g><title>{esc(text)}</title>{_label(x, y, _short(text, limit), anchor='end')}</g>"


def _whisker(
    scale: Callable[[float], float], interval: Interval, y: float, colour: str, *, bar: bool
) -> list[str]:
    parts: list[str] = []
    if interval.value is None:
        return parts
    x0, x = scale(0.0), scale(interval.value)
    if bar:
        parts.append(
            f'<rect x="{_f(min(x0, x))}" y="{_f(y - 6)}" width="{_f(abs(x - x0))}" height="12" '
            f'fill="{colour}" fill-opacity="0.25"/>'
        )
    if interval.low is not None and interval.high is not None:
        lo, hi = scale(interval.low), scale(interval.high)
        parts.append(
            f'<line x1="{_f(lo)}" y1="{_f(y)}" x2="{_f(hi)}" y2="{_f(y)}" stroke="{colour}" '
            f'stroke-width="1.5"/><line x1="{_f(lo)}" y1="{_f(y - 4)}" x2="{_f(lo)}" '
            f'y2="{_f(y + 4)}" stroke="{colour}"/><line x1="{_f(hi)}" y1="{_f(y - 4)}" '
            f'x2="{_f(hi)}" y2="{_f(y + 4)}" stroke="{colour}"/>'
        )
    parts.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="3.5" fill="{colour}"/>')
    return parts


def _axis(
    left: float,
    width: float,
    top: float,
    bottom: float,
    ticks: Sequence[float],
    scale: Callable[[float], float],
    *,
    fmt: str = "{:g}",
) -> list[str]:
    parts = []
    for t in ticks:
        x = scale(t)
        parts.append(
            f'<line x1="{_f(x)}" y1="{_f(top)}" x2="{_f(x)}" y2="{_f(bottom)}" stroke="{GRID}"/>'
        )
        parts.append(_label(x, bottom + 10, fmt.format(t), anchor="middle", fill=MUTED))
    return parts


def interval_chart(
    labels: Sequence[str],
    pass_rates: Sequence[Interval],
    means: Sequence[Interval],
    notes: Sequence[str],
    *,
    title: str,
) -> str:
    """One row per group: the pass rate (bar, Wilson interval) and the mean (dot, bootstrap)."""
    row_height, label_width, panel, gap = 24, 190, 260, 30
    width = label_width + 2 * panel + gap + 250
    top = 22
    height = top + row_height * len(labels) + 26
    bottom = top + row_height * len(labels)
    parts = [_open(width, height, title)]
    panels = [
        (label_width, "pass rate", PASS, pass_rates, True),
        (label_width + panel + gap, "mean score", MEAN, means, False),
    ]
    for left, name, colour, values, bar in panels:

        def scale(v: float, left: float = left) -> float:
            return left + 6 + v * (panel - 12)

        parts.append(_label(left + panel / 2, 9, name, anchor="middle", fill=colour))
        parts += _axis(left, panel, top, bottom, [0, 0.25, 0.5, 0.75, 1], scale)
        for i, interval in enumerate(values):
            parts += _whisker(scale, interval, top + row_height * (i + 0.5), colour, bar=bar)
    for i, (label, note) in enumerate(zip(labels, notes, strict=True)):
        y = top + row_height * (i + 0.5)
        parts.append(_group_label(label_width - 8, y, label))
        parts.append(_label(label_width + 2 * panel + gap + 8, y, note, fill="#4a5568"))
    parts.append("</svg>")
    return "".join(parts)


def histogram_rows(labels: Sequence[str], counts: Sequence[Sequence[int]], *, title: str) -> str:
    """Small multiples: one histogram on [0, 1] per group, each scaled to its own tallest bin."""
    row_height, label_width, plot = 46, 190, 420
    top = 8
    height = top + row_height * len(labels) + 22
    width = label_width + plot + 120
    parts = [_open(width, height, title)]
    for i, (label, bins) in enumerate(zip(labels, counts, strict=True)):
        y0 = top + row_height * i
        total = sum(bins)
        tallest = max(bins) if bins and max(bins) > 0 else 1
        n = len(bins)
        step = plot / n
        parts.append(_group_label(label_width - 8, y0 + row_height / 2, label))
        parts.append(
            f'<line x1="{label_width}" y1="{_f(y0 + row_height - 4)}" x2="{label_width + plot}" '
            f'y2="{_f(y0 + row_height - 4)}" stroke="{GRID}"/>'
        )
        for j, count in enumerate(bins):
            if count == 0:
                continue
            h = (row_height - 10) * count / tallest
            share = count / total if total else 0.0
            low, high = j / n, (j + 1) / n
            parts.append(
                f'<rect x="{_f(label_width + j * step + 1)}" y="{_f(y0 + row_height - 4 - h)}" '
                f'width="{_f(step - 2)}" height="{_f(h)}" fill="{PASS}" fill-opacity="0.8">'
                f"<title>{esc(f'[{low:.2f}, {high:.2f}): {count:,} rows ({share:.1%})')}</title>"
                "</rect>"
            )
        parts.append(
            _label(label_width + plot + 8, y0 + row_height / 2, f"{total:,} scored", fill=MUTED)
        )
    bottom = top + row_height * len(labels)
    for t in (0, 0.5, 1):
        parts.append(
            _label(label_width + t * plot, bottom + 8, f"{t:g}", anchor="middle", fill=MUTED)
        )
    parts.append("</svg>")
    return "".join(parts)


def difference_chart(
    labels: Sequence[str],
    differences: Sequence[Interval],
    significant: Sequence[bool],
    *,
    title: str,
) -> str:
    """Draw a forest plot of paired mean differences with their intervals; 0 marked."""
    row_height, label_width, plot = 24, 300, 360
    top = 10
    height = top + row_height * len(labels) + 26
    width = label_width + plot + 40
    extent = max(
        [0.05] + [abs(v) for d in differences for v in (d.value, d.low, d.high) if v is not None]
    )
    extent = min(1.0, extent * 1.1)

    def scale(v: float) -> float:
        return label_width + plot / 2 + v / extent * (plot / 2 - 6)

    bottom = top + row_height * len(labels)
    ticks = [-extent, -extent / 2, 0.0, extent / 2, extent]
    parts = [_open(width, height, title)]
    parts += _axis(label_width, plot, top, bottom, ticks, scale, fmt="{:+.2f}")
    parts.append(
        f'<line x1="{_f(scale(0))}" y1="{top}" x2="{_f(scale(0))}" y2="{_f(bottom)}" '
        'stroke="#4a5568"/>'
    )
    for i, (label, diff, sig) in enumerate(zip(labels, differences, significant, strict=True)):
        y = top + row_height * (i + 0.5)
        colour = SIGNIFICANT if sig else MUTED
        parts.append(_group_label(label_width - 8, y, label, limit=44))
        parts += _whisker(scale, diff, y, colour, bar=False)
    parts.append("</svg>")
    return "".join(parts)


def sweep_chart(
    points: Sequence[tuple[float, float | None, float | None]], threshold: float, *, title: str
) -> str:
    """Agreement and Cohen's kappa against the pass threshold; the report's threshold marked."""
    left, top, plot_w, plot_h = 36, 14, 300, 140
    width, height = left + plot_w + 110, top + plot_h + 30
    values = [v for _, a, k in points for v in (a, k) if v is not None]
    low = min([0.0, *values])

    def x_of(t: float) -> float:
        return left + t * plot_w

    def y_of(v: float) -> float:
        return top + (1.0 - (v - low) / (1.0 - low)) * plot_h

    parts = [_open(width, height, title)]
    for v in sorted({low, 0.0, 0.5, 1.0}):
        y = y_of(v)
        parts.append(
            f'<line x1="{left}" y1="{_f(y)}" x2="{left + plot_w}" y2="{_f(y)}" stroke="{GRID}"/>'
        )
        parts.append(_label(left - 4, y, f"{v:.1f}", anchor="end", fill=MUTED))
    for t in (0, 0.25, 0.5, 0.75, 1):
        parts.append(_label(x_of(t), top + plot_h + 12, f"{t:g}", anchor="middle", fill=MUTED))
    parts.append(
        f'<line x1="{_f(x_of(threshold))}" y1="{top}" x2="{_f(x_of(threshold))}" '
        f'y2="{top + plot_h}" stroke="#4a5568" stroke-dasharray="3 3"/>'
    )
    for index, (name, colour) in enumerate((("agreement", PASS), ("kappa", KAPPA))):
        line = [(t, v[index]) for t, *v in points]
        path = " ".join(f"{_f(x_of(t))},{_f(y_of(v))}" for t, v in line if v is not None)
        if path:
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        parts.append(_label(left + plot_w + 10, top + 10 + 16 * index, name, fill=colour))
    parts.append(_label(left + plot_w + 10, top + 44, f"threshold {threshold:g}", fill="#4a5568"))
    parts.append("</svg>")
    return "".join(parts)
