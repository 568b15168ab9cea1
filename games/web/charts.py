"""Charts drawn on the server as SVG (geometry here, markup in templates/games/*.svg)."""

from datetime import datetime

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

CHART_W, CHART_H, CHART_PAD = 600, 200, 30


#: Dates written under the rating chart at most.
DATE_TICKS = 4


def rating_chart_svg(
    values: list[float], *, start: float, dates: list[datetime] | None = None
) -> SafeString:
    """A line of a player's rating after each rated match, from ``start``: ``dates`` (one
    per value, when each match was rated) go under the line and, with each rating, on hover."""
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
    if dates:
        x = [round(CHART_PAD + i * step, 1) for i in range(len(points))]
        context["dots"] = [
            (x[i], y(value), round(value), dates[i - 1]) for i, value in enumerate(points) if i > 0
        ]
        every = max(1, -(-len(values) // DATE_TICKS))
        shown = sorted({*range(len(values), 0, -every)})
        context["ticks"] = [(x[i], dates[i - 1]) for i in shown]
    return SafeString(render_to_string("games/rating_chart.svg", context))


SCORE_W, SCORE_H, SCORE_PAD = 600, 170, 30


def score_chart(
    series: list[tuple[str, list[int]]], rounds: int, shown: int, *, reference: str = ""
) -> SafeString:
    """Each player's score after each round (``series``: a name and its scores from round
    0), with the round ``shown`` marked and every point's value on hover; the series named
    ``reference`` (the par game) is dashed."""
    top = max((max(scores) for _name, scores in series if scores), default=0)
    top = max(10, top)
    step = (SCORE_W - 2 * SCORE_PAD) / max(rounds, 1)

    def x(round: int) -> float:
        return round_to(SCORE_PAD + round * step)

    def y(score: int) -> float:
        return round_to(SCORE_H - SCORE_PAD - score / top * (SCORE_H - 2 * SCORE_PAD))

    lines = []
    for index, (name, scores) in enumerate(series):
        points = [(r, x(r), y(v), v) for r, v in enumerate(scores)]
        lines.append(
            {
                "name": name,
                "index": index,
                "reference": name == reference,
                "polyline": " ".join(f"{px},{py}" for _r, px, py, _v in points),
                "points": points,
                "legend_x": SCORE_PAD + index * 140,
            }
        )
    context = {
        "w": SCORE_W,
        "h": SCORE_H,
        "left": SCORE_PAD,
        "right": SCORE_W - SCORE_PAD,
        "bottom": SCORE_H - SCORE_PAD,
        "top_y": y(top),
        "top": top,
        "rounds": rounds,
        "lines": lines,
        "shown": shown,
        "shown_x": x(shown),
        "ticks": [(r, x(r)) for r in range(0, rounds + 1, 5 if rounds > 10 else 1)],
    }
    return SafeString(render_to_string("games/score_chart.svg", context))


def round_to(value: float) -> float:
    return round(value, 1)
