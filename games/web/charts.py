"""Charts drawn on the server as SVG (geometry here, markup in templates/games/*.svg)."""

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

CHART_W, CHART_H, CHART_PAD = 600, 200, 30


def rating_chart_svg(values: list[float], *, start: float) -> SafeString:
    """A line of a player's rating after each rated match, from ``start``."""
    points = [start, *values]
    low, high = min(points), max(points)
    if high - low < 50:
        middle = (high + low) / 2
        low, high = middle - 25, middle + 25
    step = (CHART_W - 2 * CHART_PAD) / max(len(points) - 1, 1)

    def y(value: float) -> float:
        return round(CHART_PAD + (high - value) / (high - low) * (CHART_H - 2 * CHART_PAD), 1)

    context = {
        "w": CHART_W,
        "h": CHART_H,
        "pad": CHART_PAD,
        "right": CHART_W - CHART_PAD,
        "polyline": " ".join(
            f"{round(CHART_PAD + i * step, 1)},{y(v)}" for i, v in enumerate(points)
        ),
        "last_x": round(CHART_PAD + (len(points) - 1) * step, 1),
        "last_y": y(points[-1]),
        "high": round(high),
        "low": round(low),
        "high_y": y(high),
        "low_y": y(low),
        "games": len(values),
        "current": round(points[-1]),
    }
    return SafeString(render_to_string("games/rating_chart.svg", context))
