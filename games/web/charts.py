"""Charts drawn on the server as SVG (geometry here, markup in templates/games/*.svg)."""

import math
from datetime import date, datetime

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from games import ratings
from games.services.features import charts

#: The rating chart: its size, and the room left of the line (the ratings), right of it, above
#: it (the axis's title) and below it (the dates and the axis's title).
CHART_W, CHART_H = 600, 230
CHART_LEFT, CHART_RIGHT, CHART_TOP, CHART_BOTTOM = 56, 34, 30, 52

#: Dates written under the rating chart at most, and the room each needs.
DATE_TICKS = 4
DATE_GAP = 120

#: Points a rating chart draws at most: a longer history is thinned (``thinned``).
CHART_POINTS = 200

#: The steps of the rating axis: it goes from one round value to another in the smallest
#: step that needs no more than RATING_LINES lines.
RATING_STEPS = (10, 25, 50, 100, 250, 500, 1000)
RATING_LINES = 6


def rating_axis(low: float, high: float) -> list[int]:
    """The round values the rating axis reads, from the one at or below ``low`` to the one
    at or above ``high``, a step of RATING_STEPS apart (one step either side of a flat line).

    >>> rating_axis(1484, 1534)
    [1475, 1500, 1525, 1550]
    """
    for step in RATING_STEPS:
        bottom, top = math.floor(low / step) * step, math.ceil(high / step) * step
        if bottom == top:
            bottom, top = bottom - step, top + step
        if (top - bottom) // step < RATING_LINES:
            break
    return list(range(bottom, top + 1, step))


def date_ticks(x: list[float], days: list[date]) -> list[tuple[float, date]]:
    """Where the dates go under the chart: each day once, under the middle of its matches
    (``x`` and ``days``: each match's place and day), the last day always, the others from
    right to left while they leave DATE_GAP to the one beside them, DATE_TICKS at most."""
    runs: list[tuple[float, float, date]] = []
    for place, day in zip(x, days, strict=True):
        if runs and runs[-1][2] == day:
            runs[-1] = (runs[-1][0], place, day)
        else:
            runs.append((place, place, day))
    lowest, highest = DATE_GAP / 2, CHART_W - DATE_GAP / 2  # a date is never cut off
    ticks: list[tuple[float, date]] = []
    for first, last, day in reversed(runs):
        place = round(min(max((first + last) / 2, lowest), highest), 1)
        if not ticks or ticks[-1][0] - place >= DATE_GAP:
            ticks.append((place, day))
        if len(ticks) == DATE_TICKS:
            break
    return ticks[::-1]


def thinned(values: list[float], most: int = CHART_POINTS) -> list[int]:
    """The places in ``values`` of the points a chart of at most ``most`` draws: every one
    when there are no more; else the first, the last, and the lowest and the highest of each
    of ``(most - 2) // 2`` equal stretches of those between, in order, so that the line keeps
    its shape, its highest and its lowest point.

    >>> thinned([5, 1, 9, 2, 8, 3, 7, 4], most=6)
    [0, 1, 2, 4, 5, 7]
    """
    if len(values) <= most:
        return list(range(len(values)))
    inner, stretches = len(values) - 2, (most - 2) // 2
    kept = [0]
    for k in range(stretches):
        stretch = range(1 + k * inner // stretches, 1 + (k + 1) * inner // stretches)
        if stretch:
            low = min(stretch, key=values.__getitem__)
            high = max(stretch, key=values.__getitem__)
            kept.extend(sorted({low, high}))
    kept.append(len(values) - 1)
    return kept


def rating_chart_svg(
    values: list[float], *, start: float, dates: list[datetime] | None = None
) -> SafeString:
    """A line of a player's rating after each rated match, from ``start`` (a point of its
    own): the rating axis reads round values, ``dates`` (one per value, when each match was
    rated) go under the line, each day once, and every point tells its rating on hover. A
    long history is drawn with CHART_POINTS points at most (``thinned``), each in its
    match's place."""
    everything = [start, *values]
    kept = thinned(everything)
    points = [everything[i] for i in kept]
    axis = rating_axis(min(points), max(points))
    low, high = axis[0], axis[-1]
    bottom = CHART_H - CHART_BOTTOM
    step = (CHART_W - CHART_LEFT - CHART_RIGHT) / max(len(everything) - 1, 1)
    x = [round(CHART_LEFT + i * step, 1) for i in kept]

    def y(value: float) -> float:
        return round(CHART_TOP + (high - value) / (high - low) * (bottom - CHART_TOP), 1)

    context = {
        "w": CHART_W,
        "h": CHART_H,
        "left": CHART_LEFT,
        "right": CHART_W - CHART_RIGHT,
        "label_x": CHART_LEFT - 6,
        "title_y": CHART_TOP - 16,
        "ticks_y": bottom + 14,
        "x_title_x": round((CHART_LEFT + CHART_W - CHART_RIGHT) / 2, 1),
        "x_title_y": CHART_H - 8,
        "grid": [(value, y(value)) for value in axis],
        "polyline": " ".join(f"{px},{y(v)}" for px, v in zip(x, points, strict=True)),
        "start": (x[0], y(start), round(start)),
        "last_x": x[-1],
        "last_y": y(points[-1]),
        "games": len(values),
        "current": round(points[-1]),
    }
    if dates:
        when = [dates[i - 1] for i in kept[1:]]
        context["dots"] = [
            (px, y(value), round(value), day)
            for px, value, day in zip(x[1:], points[1:], when, strict=True)
        ]
        days = [timezone.localtime(day).date() for day in when]
        context["ticks"] = date_ticks(x[1:], days)
    return SafeString(render_to_string("games/rating_chart.svg", context))


#: How long a rating chart stays in the cache: a new rating change makes a new one, under a
#: key of its own, anyway.
CHART_SECONDS = 7 * 24 * 60 * 60
#: Part of every rating chart's key: raised when charts are drawn otherwise (here or in
#: templates/games/rating_chart.svg), so that none drawn before is shown again.
CHART_DRAWING = 1


def rating_charts(player, games: list[str], pool: str) -> list[SafeString]:
    """The chart of ``player``'s rating in each of ``games`` (in ``pool``), as
    ``rating_chart_svg`` draws it, from the cache when it was drawn up to their latest
    rating change there (one query), else drawn from their history (one more query for
    every chart drawn) and kept. The cache may be away: the charts are drawn then."""
    latest = charts.latest_changes(player, games, pool)
    where = f"{get_language()}:{timezone.get_current_timezone_name()}"
    keys = {
        game: f"rating-chart:{CHART_DRAWING}:{player.pk}:{game}:{pool}:"
        f"{latest.get(game, charts.Latest()).key()}:{where}"
        for game in games
    }
    kept = cache.get_many(list(keys.values()))
    missing = {game: latest[game] for game in games if keys[game] not in kept and game in latest}
    history = charts.histories(player, missing, pool) if missing else {}
    drawn = {}
    for game in games:
        if keys[game] not in kept:
            changes = history.get(game, [])
            svg = rating_chart_svg(
                [after for after, _when in changes],
                start=ratings.START,
                dates=[when for _after, when in changes],
            )
            kept[keys[game]] = drawn[keys[game]] = str(svg)
    if drawn:
        cache.set_many(drawn, CHART_SECONDS)
    return [SafeString(kept[keys[game]]) for game in games]


SCORE_W, SCORE_H, SCORE_PAD = 600, 170, 30


def score_chart(
    series: list[tuple[str, list[int]]], rounds: int, shown: int, *, reference: str = ""
) -> SafeString:
    """Each player's score after each round (``series``: a name and its scores from round
    0), with the round ``shown`` marked and every point's value on hover; the series named
    ``reference`` (the par game) is dashed. Each player's line has its own dashes, and where
    lines meet (the same score after a round) each is drawn a little apart from the others,
    so that none hides another."""
    top = max((max(scores) for _name, scores in series if scores), default=0)
    top = max(10, top)
    step = (SCORE_W - 2 * SCORE_PAD) / max(rounds, 1)

    def x(round: int) -> float:
        return round_to(SCORE_PAD + round * step)

    def y(score: int) -> float:
        return round_to(SCORE_H - SCORE_PAD - score / top * (SCORE_H - 2 * SCORE_PAD))

    offsets = _offsets([scores for _name, scores in series])
    lines = []
    for index, (name, scores) in enumerate(series):
        points = [(r, x(r), round_to(y(v) + offsets[index][r]), v) for r, v in enumerate(scores)]
        lines.append(
            {
                "name": name,
                "index": index,
                "reference": name == reference,
                "polyline": " ".join(f"{px},{py}" for _r, px, py, _v in points),
                "points": points,
                "legend_x": SCORE_PAD + index * 140,
                "dashes": DASHES[index % len(DASHES)],
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


#: Each series' dashes (the first solid), and how far apart lines that meet are drawn.
DASHES = ("", "8 3", "2 3", "8 3 2 3", "12 4")
APART = 3.0


def _offsets(series: list[list[int]]) -> list[list[float]]:
    """How far each series' point of each round is drawn above (-) or below the score's
    place: the series with the same score after a round spread around it, ``APART`` apart."""
    offsets = [[0.0] * len(scores) for scores in series]
    rounds = max((len(scores) for scores in series), default=0)
    for r in range(rounds):
        meeting: dict[int, list[int]] = {}
        for index, scores in enumerate(series):
            if r < len(scores):
                meeting.setdefault(scores[r], []).append(index)
        for indexes in meeting.values():
            for place, index in enumerate(indexes):
                offsets[index][r] = (place - (len(indexes) - 1) / 2) * APART
    return offsets


def round_to(value: float) -> float:
    return round(value, 1)
