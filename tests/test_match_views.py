import difflib
import re
from functools import partial

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import services
from games.models import Match, Move, Notification, Profile, Seat
from games.nmbr9 import deal
from tests.factories import form_for, normalised
from tests.factories import make_match as started_match

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


#: A started match with a day per move, so no deadline passes while a test runs.
make_match = partial(started_match, time_control="1d")


def play_tile(client, match, user):
    data = form_for(match, user)
    client.force_login(user)
    return client.post(reverse("play", args=[match.pk]), data)


def test_it_creates_a_match_from_the_form(client, alice, bob):
    client.force_login(alice)
    assert client.get(reverse("new_match")).status_code == 200
    form = {
        "players": "3",
        "pace": "free",
        "time_control": "12h",
        "rated": "on",
        "removed": "random",
        "invite": "bob",
        "open": "on",
    }
    response = client.post(reverse("new_match"), form)
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    assert (match.players, match.status, match.open) == (3, "waiting", True)
    assert (match.game, match.options["pace"], match.options["removed"]) == (
        "nmbr9",
        "free",
        "random",
    )
    assert match.time_per_move.total_seconds() == 12 * 3600
    assert [s.state for s in match.seats.order_by("index")] == ["playing", "invited"]
    assert Notification.objects.filter(player=bob, match=match).exists()


@pytest.mark.parametrize(
    "change,message",
    [
        ({"invite": "nobody"}, "No player is called nobody"),
        ({"invite": "alice"}, "invite somebody else"),
        ({"players": "9"}, "Select a valid choice"),
        ({"open": ""}, "Invite a player for every seat"),
        ({"time_control": "2h"}, "Select a valid choice"),
    ],
)
def test_it_refuses_a_bad_match_form(client, alice, bob, change, message):
    client.force_login(alice)
    form = {"players": "3", "pace": "rounds", "time_control": "1d", "removed": "0"}
    form |= {"invite": "bob", "open": "on"} | change
    response = client.post(reverse("new_match"), form)
    assert response.status_code == 400
    assert message in response.text
    assert Match.objects.count() == 0


def test_an_open_seek_is_listed_and_joined_from_the_lobby(client, alice, bob):
    match = services.create_match(
        alice, players=2, options={"pace": "rounds"}, time_control="1h", rated=False, open=True
    )
    client.force_login(bob)
    assert f'data-seek="{match.pk}"' in client.get(reverse("lobby")).text
    assert f'data-seek="{match.pk}"' in client.get(reverse("home")).text
    page = client.get(match.get_absolute_url())
    assert page.status_code == 200 and "Join this match" in page.text
    response = client.post(reverse("join", args=[match.pk]))
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert f'data-seek="{match.pk}"' not in client.get(reverse("lobby")).text
    again = client.post(reverse("join", args=[match.pk]))
    assert again.status_code == 400 and "not waiting for players" in again.text


def test_an_invitation_is_accepted_or_declined(client, alice, bob, carol):
    match = services.create_match(
        alice,
        players=3,
        options={"pace": "rounds"},
        time_control="1d",
        rated=True,
        invite=["bob", "carol"],
    )
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).text
    assert "Accept" in page and "Decline" in page
    client.post(reverse("join", args=[match.pk]))
    client.force_login(carol)
    client.post(reverse("decline", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert "This match was cancelled" in client.get(match.get_absolute_url()).text


def test_only_the_creator_cancels(client, alice, bob):
    match = services.create_match(
        alice, players=2, options={"pace": "rounds"}, time_control="1d", rated=True, open=True
    )
    client.force_login(bob)
    refused = client.post(reverse("cancel", args=[match.pk]))
    assert refused.status_code == 400 and "Only the player who created" in refused.text
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    client.force_login(alice)
    assert client.post(reverse("cancel", args=[match.pk])).status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED


def test_outsiders_cannot_see_or_play_a_private_running_match(client, alice, bob, carol):
    match = make_match(alice, bob, private=True)
    client.force_login(carol)
    assert client.get(match.get_absolute_url()).status_code == 404
    assert client.get(match.get_absolute_url(), {"poll": "x"}, **HTMX).status_code == 404
    assert client.get(reverse("replay", args=[match.pk])).status_code == 404
    data = {"number": 8, "x": 0, "y": 0, "rotation": 0, "ply": 0}
    assert client.post(reverse("play", args=[match.pk]), data).status_code == 404
    assert client.post(reverse("resign", args=[match.pk])).status_code == 404
    assert Move.objects.count() == 0


def test_outsiders_may_watch_a_running_match_but_not_play_it(client, alice, bob, carol):
    match = make_match(alice, bob)
    client.force_login(carol)
    assert client.get(match.get_absolute_url()).status_code == 200
    assert client.get(reverse("replay", args=[match.pk])).status_code == 404  # not over yet
    for data in ({"number": 8, "x": 0, "y": 0, "rotation": 0, "ply": 0}, {"x": "abc"}):
        assert client.post(reverse("play", args=[match.pk]), data).status_code == 404
    assert client.post(reverse("commit", args=[match.pk]), {"ply": "x"}).status_code == 404
    assert client.post(reverse("resign", args=[match.pk])).status_code == 404
    assert client.post(reverse("extend", args=[match.pk])).status_code == 404
    assert Move.objects.count() == 0
    assert set(match.seats.values_list("state", flat=True)) == {Seat.State.PLAYING}


def test_the_match_page_shows_your_move_deadline_and_opponents(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(alice)
    home = client.get(reverse("home")).text
    assert "Your move" in home and f'data-match="{match.pk}"' in home
    page = client.get(match.get_absolute_url()).text
    assert "data-countdown" in page and "data-current>" in page
    assert 'data-opponent="bob"' in page
    assert "+1 day (2 left)" in page and "Resign" in page


def tiles_in(html: str) -> int:
    return len(re.findall(r'class="tile level-', html))


def test_the_wait_for_the_others_is_said_for_one_player_or_several(client, alice, bob, carol):
    match = make_match(alice, bob, carol)
    assert play_tile(client, match, alice).status_code == 302
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert "Waiting for bob, carol to place their tiles." in page
    assert play_tile(client, match, bob).status_code == 302
    client.force_login(alice)
    assert "Waiting for carol to place their tile." in client.get(match.get_absolute_url()).text
    german = client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Warten, bis carol das Plättchen gelegt hat." in german


def test_rounds_pace_hides_a_placement_until_the_round_ends(client, alice, bob):
    match = make_match(alice, bob)
    assert play_tile(client, match, alice).status_code == 302
    client.force_login(alice)
    mine = client.get(match.get_absolute_url()).text
    assert "Waiting for bob" in mine and "data-polling" in mine
    assert tiles_in(mine) == 1
    client.force_login(bob)
    for response in (
        client.get(match.get_absolute_url()),
        client.get(match.get_absolute_url(), **HTMX),
        client.get(match.get_absolute_url(), {"focus": 0}, **HTMX),
    ):
        assert tiles_in(response.text) == 0, "bob must not see alice's tile yet"
    play_tile(client, match, bob)
    client.force_login(alice)
    assert tiles_in(client.get(match.get_absolute_url()).text) == 2


def test_polling_answers_204_until_something_changes(client, alice, bob):
    match = make_match(alice, bob)
    play_tile(client, match, alice)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    version = re.search(r"\?poll=([^\"]+)\"", page).group(1)
    url = match.get_absolute_url()
    assert client.get(url, {"poll": version}, **HTMX).status_code == 204
    play_tile(client, match, bob)
    client.force_login(alice)
    response = client.get(url, {"poll": version}, **HTMX)
    assert response.status_code == 200
    assert "data-current>" in response.text and "data-polling" not in response.text


def seeds_sharing_the_first_card() -> tuple[int, int]:
    """Two seeds whose decks start with the same card and then differ."""
    first: dict[int, int] = {}
    for seed in range(1000):
        cards, _ = deal(seed)
        other = first.setdefault(cards[0], seed)
        if other != seed and deal(other)[0][1] != cards[1]:
            return other, seed
    raise AssertionError("no such seeds")


def test_no_response_reveals_the_card_order(client, alice, bob):
    """Two decks that differ only after the revealed cards give identical pages."""
    pages = []
    for seed in seeds_sharing_the_first_card():
        Match.objects.all().delete()
        match = make_match(alice, bob, seed=seed)
        play_tile(client, match, alice)
        client.force_login(alice)
        url = match.get_absolute_url()
        pages.append(
            [
                normalised(r.text, match)
                for r in (
                    client.get(url),
                    client.get(url, **HTMX),
                    client.get(url, {"poll": "stale"}, **HTMX),
                    client.get(reverse("home")),
                )
            ]
        )
        client.force_login(bob)
        pages[-1].append(normalised(client.get(url).text, match))
    for first, second in zip(*pages, strict=True):
        assert first == second, "\n".join(
            difflib.unified_diff(first.splitlines(), second.splitlines(), lineterm="", n=0)
        )


def test_resigning_ends_your_part_and_ranks_you_last(client, alice, bob):
    match = make_match(alice, bob)
    client.force_login(bob)
    response = client.post(reverse("resign", args=[match.pk]))
    assert response.status_code == 302
    seat = Seat.objects.get(match=match, player=bob)
    assert seat.state == Seat.State.RESIGNED and seat.deadline is None
    again = client.post(reverse("resign", args=[match.pk]))
    assert again.status_code == 400


def test_extending_adds_a_day_twice_at_most(client, alice, bob):
    match = make_match(alice, bob)
    seat = Seat.objects.get(match=match, player=alice)
    before = seat.deadline
    client.force_login(alice)
    for _ in range(2):
        assert client.post(reverse("extend", args=[match.pk])).status_code == 302
    seat.refresh_from_db()
    assert (seat.deadline - before).days == 2 and seat.extensions_left == 0
    third = client.post(reverse("extend", args=[match.pk]))
    assert third.status_code == 400 and "used all your extensions" in third.text
    seat.refresh_from_db()
    assert (seat.deadline - before).days == 2


def test_a_finished_rated_match_shows_ranks_replay_and_ratings(client, alice, bob):
    match = make_match(alice, bob)
    for _ in range(20):
        play_tile(client, match, alice)
        play_tile(client, match, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert services.rate_match(match.pk)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert page.count("data-rank=") == 2 and "data-rating-change" in page
    replay = client.get(reverse("replay", args=[match.pk]), {"round": 5})
    assert replay.status_code == 200 and "After round 5 of 20" in replay.text
    assert tiles_in(replay.text) == 10
    profile = client.get(reverse("profile", args=["alice"])).text
    assert 'data-stat="rated">1<' in profile and "<polyline" in profile
    assert client.get(reverse("replay", args=[match.pk]), {"round": "x"}).status_code == 200


def test_notifications_and_settings(client, alice, bob):
    make_match(alice, bob)
    client.force_login(alice)
    assert "data-unread" in client.get(reverse("home")).text
    page = client.get(reverse("notifications")).text
    assert "Your move" in page
    client.post(reverse("notifications"))
    assert "data-unread" not in client.get(reverse("home")).text
    assert client.get(reverse("settings")).status_code == 200
    client.post(reverse("settings"), {})
    assert Profile.objects.get(player=alice).email_on_move is False


def unread_badge(page: str) -> int:
    found = re.search(r"data-unread>(\d+)<", page)
    return int(found.group(1)) if found else 0


def test_the_notifications_show_your_moves_above_the_news_a_page_at_a_time(client, alice, bob):
    from datetime import timedelta

    from django.utils import timezone

    match = make_match(alice, bob)
    now = timezone.now()
    Notification.objects.bulk_create(
        Notification(player=alice, text=f"News {i}.", created=now - timedelta(minutes=i))
        for i in range(65)
    )
    client.force_login(alice)
    url = reverse("notifications")

    def news(page: str) -> list[int]:
        return [int(n) for n in re.findall(r"News (\d+)\.", page)]

    first = client.get(url)
    assert first.status_code == 200 and news(first.text) == list(range(30))
    assert re.search(r"News 0\. <small><time [^>]*>just now<", first.text)
    assert re.search(r"News 5\. <small><time [^>]*>5\xa0minutes ago<", first.text)
    assert first.text.index(f"Your move in {match}.") < first.text.index("News 0.")
    assert 'href="?page=2" rel="next">Older<' in first.text and 'rel="prev"' not in first.text
    assert "Page 1 of 3" in first.text
    assert unread_badge(first.text) == 66  # the news and the move, each once
    second = client.get(url, {"page": "2"})
    assert news(second.text) == list(range(30, 60)) and "Your move in" not in second.text
    assert 'href="?page=1" rel="prev">Newer<' in second.text and 'href="?page=3"' in second.text
    last = client.get(url, {"page": "3"})
    assert news(last.text) == list(range(60, 65)) and 'rel="next"' not in last.text

    services.seen(match, Seat.objects.get(match=match, player=alice))
    assert unread_badge(client.get(url).text) == 65
    client.post(url)
    assert unread_badge(client.get(url).text) == 0


@pytest.mark.parametrize("page", ["x", "0", "-1", "4", "1.5", "", "9" * 30, "²"])
def test_a_page_of_notifications_there_is_not_is_answered_with_the_first(client, alice, page):
    Notification.objects.bulk_create(
        Notification(player=alice, text=f"News {i}.") for i in range(40)
    )
    client.force_login(alice)
    answer = client.get(reverse("notifications"), {"page": page})
    assert answer.status_code == 400
    assert "There is no such page of news: here is the first." in answer.text
    assert "Page 1 of 2" in answer.text and "News 39." in answer.text
    assert Notification.objects.filter(player=alice, read=False).count() == 40


def test_the_leaderboard_lists_established_active_players(client, alice, bob):
    from games.models import Rating

    Rating.objects.create(player=alice, value=1620, games=25)
    Rating.objects.create(player=bob, value=1700, games=3)
    page = client.get(reverse("leaderboard")).text
    assert "alice" in page and "bob" not in page


def test_the_match_log_shows_only_what_the_viewer_may_see(client, alice, bob):
    match = make_match(alice, bob)
    play_tile(client, match, alice)
    client.force_login(alice)
    mine = client.get(match.get_absolute_url()).text
    assert "Match log" in mine and re.search(r"Round 1</span> alice placed the \d on level 0", mine)
    client.force_login(bob)
    theirs = client.get(match.get_absolute_url()).text
    assert "alice placed" not in theirs
    play_tile(client, match, bob)
    client.force_login(bob)
    services.resign(match.pk, bob)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).text
    assert "bob placed the" in page and "bob resigned." in page


@pytest.mark.parametrize("page", ["home", "lobby"])
def test_home_and_lobby_queries_do_not_grow_with_the_lists(client, alice, bob, page):
    def seek(number):
        creator = User.objects.create_user(f"seeker{number}")
        services.create_match(
            creator, players=2, options={"pace": "free"}, time_control="1d", rated=True, open=True
        )

    def count_queries():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse(page)).status_code == 200
        return len(queries)

    client.force_login(alice)
    make_match(alice, bob)
    seek(0)
    count_queries()  # the first visit also notes that alice is on the site
    few = count_queries()
    for number in range(1, 5):
        make_match(alice, bob, seed=number)
        seek(number)
    assert count_queries() == few


def test_a_preview_draws_no_opponents_boards_but_a_page_with_a_ghost_does(client, alice, bob):
    match = make_match(alice, bob, pace="free")
    play_tile(client, match, bob)
    client.force_login(alice)
    url = reverse("game", args=[match.pk])
    spot = {"x": "3", "y": "0", "rotation": "0"}
    preview = client.get(url, spot, **HTMX)
    assert preview.status_code == 200 and "data-ghost" in preview.text
    assert "data-opponent" not in preview.text
    page = client.get(url, spot)  # the same address without JavaScript: the whole page
    assert "data-ghost" in page.text and 'data-opponent="bob"' in page.text


def test_a_profile_charts_the_match_rating_of_every_game_the_player_is_rated_in(client, alice, bob):
    from games.models import Rating, RatingChange
    from games.registry import find_game

    nmbr9_match = make_match(alice, bob)
    nmbrs_match = services.create_match(
        alice, game="nmbrs", players=2, time_control="1h", rated=True, invite=["bob"]
    )
    for game, match, after in (("nmbr9", nmbr9_match, 1516.0), ("nmbrs", nmbrs_match, 1484.0)):
        Rating.objects.create(player=alice, game=game, pool=Rating.Pool.MATCH, value=after, games=1)
        RatingChange.objects.create(
            match=match, player=alice, game=game, pool=Rating.Pool.MATCH, before=1500, after=after
        )
    page = client.get(reverse("profile", args=["alice"])).text
    assert page.count("<polyline") == 2 and page.count('class="chart-wrap"') == 2
    titles = re.findall(r"<h2 data-chart-title>([^<]*)</h2>", page)
    assert titles == [find_game("nmbr9").name, find_game("nmbrs").name]
    # Each chart ends at its own game's rating.
    first, second = page.split("data-chart-title")[1:]
    assert "1516" in first and "1484" not in first and "1484" in second


def test_a_profile_with_only_the_default_games_rating_has_one_chart_without_a_title(
    client, alice, bob
):
    make_match(alice, bob)
    page = client.get(reverse("profile", args=["alice"])).text
    assert page.count("<polyline") == 1 and "data-chart-title" not in page


def chart_of(page: str) -> str:
    return re.search(r'<svg [^>]*class="chart rating-chart".*?</svg>', page, re.S).group(0)


def test_a_profiles_rating_chart_is_drawn_once_until_the_next_rating_change(
    client, alice, bob, carol, monkeypatch
):
    """The chart comes from the cache, with a query fewer, while the player's latest rating
    change is the one it was drawn to; a new change draws it again, and so does another
    language."""
    from games.models import Rating, RatingChange
    from games.web import charts

    drawn = []
    draw = charts.rating_chart_svg
    monkeypatch.setattr(
        charts, "rating_chart_svg", lambda *args, **kwargs: drawn.append(1) or draw(*args, **kwargs)
    )
    Rating.objects.create(player=alice, value=1516.0, games=1)
    RatingChange.objects.create(
        match=make_match(alice, bob), player=alice, pool="match", before=1500, after=1516
    )
    url = reverse("profile", args=["alice"])

    def page_and_queries() -> tuple[str, int]:
        with CaptureQueriesContext(connection) as queries:
            page = client.get(url).text
        return page, len(queries)

    first, drawing = page_and_queries()
    again, kept = page_and_queries()
    assert len(drawn) == 1 and kept == drawing - 1
    assert chart_of(again) == chart_of(first) and "now 1516" in chart_of(again)
    Rating.objects.filter(player=alice).update(value=1530.0, games=2)
    RatingChange.objects.create(
        match=make_match(alice, carol, seed=8), player=alice, pool="match", before=1516, after=1530
    )
    page, _queries = page_and_queries()
    assert len(drawn) == 2 and "now 1530" in page and "Rating after each of 2 rated matches" in page
    german = client.get(url, HTTP_ACCEPT_LANGUAGE="de").text
    assert len(drawn) == 3 and 'data-axis-title="rating">Wertung<' in german
    assert client.get(url).text.count("<polyline") == 1 and len(drawn) == 3


def test_a_profile_has_its_rating_chart_while_the_cache_is_away(client, alice, bob, settings):
    from games.models import RatingChange
    from nmbr9site.processes import free_port

    RatingChange.objects.create(
        match=make_match(alice, bob), player=alice, pool="match", before=1500, after=1516
    )
    settings.CACHES = {
        "default": settings.CACHES["default"] | {"LOCATION": f"redis://127.0.0.1:{free_port()}/0"}
    }
    for _ in range(2):
        response = client.get(reverse("profile", args=["alice"]))
        assert response.status_code == 200 and "now 1516" in response.text


@pytest.mark.parametrize("game", ["nmbr9", "nmbrs"])
def test_the_last_player_left_is_offered_no_move_once_the_match_is_over(client, alice, bob, game):
    """Its only opponent resigned while the player owed a move: the match is over, and its
    page shows the result without a turn to compose or a move to confirm."""
    if game == "nmbr9":
        match = started_match(alice, bob)
    else:
        match = services.create_match(
            alice, game="nmbrs", players=2, time_control="1d", rated=False, invite=["bob"]
        )
        services.join(match.pk, bob)
    services.resign(match.pk, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Game over" in page
    assert f"/game/{match.pk}/play/" not in page  # no form sends a move
