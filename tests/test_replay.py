"""Replays: every step reachable without a page load (an HTMX request answers only the
part that changes, and the address keeps the step), the tiles placed in the shown round
outlined, the scores by round as a chart (with the par game on a puzzle)."""

import itertools
import re
from datetime import timedelta

from django.urls import reverse

from games import services
from games.models import Match
from games.nmbr9.policy import fallback_turn
from games.services.features import puzzles
from tests.factories import make_match, play_to_end, replay_steps

HTMX = {"HTTP_HX_REQUEST": "true"}
HOUR = timedelta(hours=1)


def finished_match(alice, bob):
    match = make_match(alice, bob, seed=5)
    play_to_end(match, [alice, bob])
    return match


def chart_values(page: str, round: int) -> dict[str, int]:
    """Each line's value at ``round``, as its point's hover text gives it."""
    found = re.findall(rf"<title>(\w[\w ]*): (\d+) after round {round}</title>", page)
    return {name: int(score) for name, score in found}


def test_a_step_asked_for_by_the_page_answers_only_the_part_that_changes(client, alice, bob):
    match = finished_match(alice, bob)
    client.force_login(alice)
    url = reverse("replay", args=[match.pk])
    step = client.get(url, {"round": 3}, **HTMX)
    assert step.status_code == 200 and "<html" not in step.text
    assert step.text.lstrip().startswith('<div id="replay" data-round="3">')
    assert "After round 3 of 20" in step.text
    for key, round in (("home", 0), ("left", 2), ("right", 4), ("end", 20)):
        link = re.search(rf'<a [^>]*hx-get="\?round=(\d+)"[^>]*data-key="{key}"', step.text)
        assert link is not None and int(link.group(1)) == round, key
    assert step.text.count('hx-push-url="true"') == 4  # the address keeps the round

    page = client.get(url, {"round": 3})
    assert "<html" in page.text and 'id="replay" data-round="3"' in page.text
    assert "data-autoplay" in page.text
    first = client.get(url, {"round": 0}, **HTMX).text
    assert 'data-key="home"' not in first and 'data-key="left"' not in first
    last = client.get(url, {"round": 20}, **HTMX).text
    assert 'data-key="right"' not in last and 'data-key="end"' not in last


def test_back_gets_the_whole_page_and_the_cache_keeps_steps_and_pages_apart(client, alice, bob):
    """htmx bringing back a step its history no longer holds puts the answer in place of the
    whole page; a step and the page share an address, which the browser's cache must tell
    apart by the request."""
    match = finished_match(alice, bob)
    client.force_login(alice)
    url = reverse("replay", args=[match.pk])
    restore = client.get(url, {"round": 3}, **HTMX, HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert "<html" in restore.text and "data-autoplay" in restore.text
    assert 'id="replay" data-round="3"' in restore.text
    step = client.get(url, {"round": 3}, **HTMX)
    page = client.get(url, {"round": 3})
    assert "<html" not in step.text and "<html" in page.text
    for response in (restore, step, page):
        assert "HX-Request" in response["Vary"]


def test_the_tiles_placed_in_the_shown_round_are_outlined(client, alice, bob):
    match = finished_match(alice, bob)
    client.force_login(alice)
    url = reverse("replay", args=[match.pk])
    assert client.get(url, {"round": 0}, **HTMX).text.count("data-placed-now") == 0
    for round in (1, 7, 20):
        page = client.get(url, {"round": round}, **HTMX).text
        boards = re.findall(r"<svg[^>]*class=\"board\".*?</svg>", page, re.S)
        assert len(boards) == 2
        assert [board.count("data-placed-now") for board in boards] == [1, 1]


def test_the_chart_gives_every_players_score_after_every_round(client, alice, bob):
    match = finished_match(alice, bob)
    client.force_login(alice)
    url = reverse("replay", args=[match.pk])
    page = client.get(url, {"round": 7}, **HTMX).text
    assert "data-score-chart" in page and 'data-chart-round="7"' in page
    assert page.count("data-series=") == 2
    shown = dict(re.findall(r"<p>(\w+) · (\d+) points?", page))
    assert chart_values(page, 7) == {name: int(score) for name, score in shown.items()}
    final = {s.player.username: s.score for s in match.seats.all()}
    assert chart_values(page, 20) == final
    assert chart_values(page, 0) == {"alice": 0, "bob": 0}


def test_a_puzzles_chart_has_the_par_game_beside_the_player(client, alice):
    from tests.factories import finish, make_puzzles

    (p,) = make_puzzles(8)
    puzzles.compute_par(p.pk)
    p.refresh_from_db()
    match = puzzles.start_puzzle(alice, p)
    finish(match, alice)
    client.force_login(alice)
    page = client.get(reverse("replay", args=[match.pk]), **HTMX).text
    assert page.count("data-series=") == 2 and 'data-series="Par game"' in page
    assert 'class="series series-1 reference"' in page
    rounds = int(re.search(r'data-round="(\d+)"', page).group(1))
    assert chart_values(page, rounds)["Par game"] == p.par


def test_an_nmbrs_replay_steps_the_same_way(client, alice, bob):
    from tests.factories import nmbrs_match, play_to_the_end

    match = nmbrs_match(alice, bob, target=60)
    play_to_the_end(client, match, [alice, bob])
    client.force_login(alice)
    step = client.get(reverse("replay", args=[match.pk]), {"ply": 2}, **HTMX)
    assert step.status_code == 200 and "<html" not in step.text
    assert step.text.lstrip().startswith('<div id="replay" data-ply="2">')
    assert 'hx-get="?ply=0"' in step.text and 'hx-get="?ply=3"' in step.text
    assert services.load(match).state.over


def test_a_replay_step_costs_as_many_queries_whatever_the_round(client, alice, bob):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match = finished_match(alice, bob)
    client.force_login(alice)
    url = reverse("replay", args=[match.pk])
    client.get(url)  # the first request of a session reads what later ones find saved
    counts = set()
    for round in (0, 1, 10, 20):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url, {"round": round}, **HTMX).status_code == 200
        counts.add(len(queries))
    assert len(counts) == 1 and counts.pop() <= 15


def test_the_rating_chart_has_dated_ticks_and_a_value_on_each_point():
    from datetime import UTC, datetime, timedelta

    from games.web.charts import DATE_TICKS, rating_chart_svg

    first = datetime(2026, 3, 1, tzinfo=UTC)
    dates = [first + timedelta(days=i) for i in range(30)]
    svg = rating_chart_svg([1500 + i for i in range(30)], start=1500, dates=dates)
    ticks = re.findall(r"data-date-tick>([^<]+)<", svg)
    assert 2 <= len(ticks) <= DATE_TICKS and ticks[-1] == "03/30/2026"
    assert svg.count("data-rating-point") == 30
    assert "1529 after the match of 03/30/2026" in svg


def test_the_rating_axis_reads_round_values():
    from games.web.charts import rating_axis

    assert rating_axis(1484.1, 1534.2) == [1475, 1500, 1525, 1550]
    assert rating_axis(1500, 1512.5) == [1500, 1510, 1520]
    assert rating_axis(1500, 1500) == [1490, 1500, 1510]  # a flat line: a step either side
    assert rating_axis(1402, 1697) == [1400, 1500, 1600, 1700]
    assert rating_axis(1030, 2210) == [1000, 1250, 1500, 1750, 2000, 2250]


def rating_ticks(svg: str) -> list[str]:
    return re.findall(r"data-rating-tick>([^<]+)<", svg)


def date_ticks(svg: str) -> list[str]:
    return re.findall(r"data-date-tick>([^<]+)<", svg)


def test_the_rating_chart_names_its_axes_and_reads_round_ratings_in_both_languages():
    from datetime import UTC, datetime

    from django.utils import translation

    from games.web.charts import rating_chart_svg

    day = datetime(2026, 3, 1, 12, tzinfo=UTC)
    svg = rating_chart_svg([1534.2, 1484.1], start=1500, dates=[day, day])
    assert rating_ticks(svg) == ["1475", "1500", "1525", "1550"]
    assert '<line class="axis"' in svg and svg.count('<line class="axis"') == 4
    assert re.search(r'data-axis-title="rating">Rating<', svg)
    assert re.search(r'data-axis-title="matches">Rated matches<', svg)
    with translation.override("de"):
        german = rating_chart_svg([1534.2, 1484.1], start=1500, dates=[day, day])
    assert re.search(r'data-axis-title="rating">Wertung<', german)
    assert re.search(r'data-axis-title="matches">Gewertete Partien<', german)
    assert "1500 zu Beginn, vor der ersten gewerteten Partie" in german
    assert date_ticks(german) == ["01.03.2026"]


def test_the_rating_chart_writes_each_day_once():
    from datetime import UTC, datetime, timedelta

    from games.web.charts import DATE_TICKS, rating_chart_svg

    first = datetime(2026, 3, 1, 9, tzinfo=UTC)
    two_today = rating_chart_svg([1520, 1490], start=1500, dates=[first, first + HOUR])
    assert date_ticks(two_today) == ["03/01/2026"]
    # Several matches a day on a few days, and the last day's match at the very end.
    dates = [first + timedelta(days=day, hours=hour) for day in range(5) for hour in range(4)]
    dates.append(first + timedelta(days=9))
    svg = rating_chart_svg([1500 + i for i in range(len(dates))], start=1500, dates=dates)
    ticks = date_ticks(svg)
    assert len(ticks) == len(set(ticks)) and 2 <= len(ticks) <= DATE_TICKS
    assert ticks[-1] == "03/10/2026" and ticks[0] < ticks[1]
    places = [float(x) for x in re.findall(r'x="([\d.]+)"[^>]*data-date-tick', svg)]
    assert places == sorted(places) and all(b - a >= 100 for a, b in itertools.pairwise(places))


def test_the_start_of_the_rating_chart_is_a_point_of_its_own():
    from datetime import UTC, datetime

    from games.web.charts import rating_chart_svg

    svg = rating_chart_svg([1516], start=1500, dates=[datetime(2026, 3, 1, tzinfo=UTC)])
    start = re.search(r"<circle [^>]*data-rating-start><title>([^<]+)</title>", svg)
    assert start is not None
    assert start.group(1) == "1500 to start with, before the first rated match"
    assert re.findall(r"data-rating-point><title>([^<]+)<", svg) == [
        "1516 after the match of 03/01/2026"
    ]


def two_of_three_to_end(alice, bob):
    """A rounds-pace "2 of 3" match played to the end: alice builds the first two cards of
    each round (the third is rejected for her by itself), bob rejects the first."""
    match = make_match(alice, bob, variant="two_of_three")
    for _ in range(200):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return match
        for user in (alice, bob):
            record = services.load(match)
            seat = record.seat_of(user)
            decision = record.state.decision(seat.index)
            if decision is None:
                continue
            made = record.made_by(seat)
            if decision.may_reject and user == bob:
                services.play(match.pk, user, "reject", made)
                continue
            if decision.may_reject:
                services.commit(match.pk, user, "build", made)
            turn = fallback_turn(record.state, seat.index, reject=False)
            services.play(match.pk, user, str(turn), made)
    raise AssertionError("the match did not end")


def test_a_2_of_3_replay_steps_through_the_games_rounds(client, alice, bob):
    """Ten rounds of three cards, as the game page counts them: each round shows every
    player's turns on the same three cards, a rejected card happening by itself included."""
    match = two_of_three_to_end(alice, bob)
    client.force_login(alice)
    url = reverse("replay", args=[match.pk])
    assert "After round 10 of 10" in client.get(url, **HTMX).text
    for round in (1, 4, 10):
        page = client.get(url, {"round": round}, **HTMX).text
        turns = replay_steps(page)
        # alice's third card is rejected by itself: in words, with no move to hover over
        assert [notation.split(" ")[0] for notation, _ in turns["alice"]] == ["place", "place", ""]
        assert "alice had to reject the " in turns["alice"][2][1], round
        assert [notation.split(" ")[0] for notation, _ in turns["bob"]] == [
            "reject",
            "place",
            "place",
        ]
        assert re.fullmatch(r"bob rejected the \d\.", turns["bob"][0][1])
        assert re.fullmatch(r"bob placed the \d on level \d\.", turns["bob"][1][1])
        boards = re.findall(r"<svg[^>]*class=\"board\".*?</svg>", page, re.S)
        assert [board.count("data-placed-now") for board in boards] == [2, 2]
        assert set(chart_values(page, round)) == {"alice", "bob"}


def test_a_2_of_3_log_names_the_round_each_tile_was_placed_in(client, alice, bob):
    match = two_of_three_to_end(alice, bob)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    log = re.search(r'<ol class="log".*?</ol>', page, re.S).group(0)
    whens = re.findall(r'<span class="log-when">Round (\d+)</span>', log)
    assert whens and max(int(w) for w in whens) == 10
    # three cards each in the last round: two tiles and a rejected card
    assert whens.count("10") == 6
    assert len(re.findall(r"Round 10</span> \w+ placed the", log)) == 4
    # Newest first within a round too: alice's two tiles of a round, the second first.
    shown = re.findall(r"Round (\d+)</span> alice placed the (\d) on level (\d)", log)
    game = services.load(match).state
    tiles = [(p.number, level) for p, level in game.board(0).tiles]
    for index, round in enumerate(range(10, 10 - len(shown) // 2, -1)):
        mine = [(int(n), int(lv)) for r, n, lv in shown if int(r) == round]
        assert mine == tiles[2 * round - 2 : 2 * round][::-1], index


def test_a_long_rating_history_is_drawn_with_few_points_keeping_its_shape():
    """2,000 rated matches: at most CHART_POINTS points, each in its match's place, with
    the start, the last rating, the highest and the lowest among them."""
    import doctest
    import random
    from datetime import UTC, datetime

    from games.web import charts

    assert doctest.testmod(charts).failed == 0
    rng = random.Random(2000)
    values, value = [], 1500.0
    for _ in range(2000):
        value += rng.gauss(0, 12)
        values.append(value)
    first = datetime(2024, 1, 1, tzinfo=UTC)
    dates = [first + timedelta(hours=9 * i) for i in range(len(values))]
    svg = charts.rating_chart_svg(values, start=1500, dates=dates)
    line = re.search(r'<polyline class="rating-line" points="([^"]+)"', svg).group(1).split()
    assert 150 <= len(line) <= charts.CHART_POINTS
    points = [tuple(map(float, p.split(","))) for p in line]
    assert [x for x, _y in points] == sorted({x for x, _y in points})  # left to right, once each
    dots = re.findall(r'cx="([\d.]+)" cy="([\d.]+)"[^>]*data-rating-point><title>(\d+) after', svg)
    assert len(dots) == len(points) - 1  # the start is a point of its own
    shown = [int(value) for _x, _y, value in dots]
    assert shown[-1] == round(values[-1]) and points[-1][0] == charts.CHART_W - charts.CHART_RIGHT
    assert max(shown) == round(max(values)) and min(shown) == round(min(values))
    assert re.search(r"<circle [^>]*data-rating-start><title>1500 to start", svg)
    assert "Rating after each of 2000 rated matches" in svg
    # The highest point is where its match is among all 2,000.
    step = (charts.CHART_W - charts.CHART_LEFT - charts.CHART_RIGHT) / len(values)
    highest = values.index(max(values)) + 1
    assert (str(round(charts.CHART_LEFT + highest * step, 1)), str(round(max(values)))) in {
        (x, value) for x, _y, value in dots
    }
    # A short history keeps every point.
    assert charts.thinned(list(range(charts.CHART_POINTS))) == list(range(charts.CHART_POINTS))


def test_lines_that_meet_in_the_score_chart_stay_apart():
    """Two players level on every round: neither line hides the other (each drawn a little
    apart, with its own dashes); where the scores part, each point is at its own score."""
    from games.web.charts import score_chart

    svg = score_chart([("alice", [0, 4, 9, 9]), ("bob", [0, 4, 9, 12])], 3, 3)
    lines = dict(re.findall(r'data-series="(\w+)">\s*<polyline points="([^"]+)"', svg))
    alice, bob = ([p.split(",") for p in lines[name].split()] for name in ("alice", "bob"))
    for r in range(3):
        assert alice[r][0] == bob[r][0] and abs(float(alice[r][1]) - float(bob[r][1])) >= 3
    assert float(alice[3][1]) > float(bob[3][1])  # 9 is lower on the chart than 12
    apart = score_chart([("alice", [0, 4, 9, 9]), ("carol", [0, 1, 2, 12])], 3, 3)
    alone = re.search(r'data-series="alice">\s*<polyline points="([^"]+)"', apart)[1].split()
    assert alone[3].split(",") == alice[3]  # apart from the others: at its own score
    dashes = re.findall(r'<polyline points="[^"]+"(?: stroke-dasharray="([^"]+)")?/>', svg)
    assert len(dashes) == 2 and dashes[0] != dashes[1]
