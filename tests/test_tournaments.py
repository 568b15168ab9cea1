"""Tournaments: creating, joining and leaving, the start, playing the games, the standings
with ties, the windows' close and the finish, the sweep that finds them, and the pages."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from games import services, tasks
from games.infra import sweep
from games.models import Entry, Match, Notification, Profile, Seat, Tournament
from games.services import MoveRefused
from games.services.features import duplicate, puzzles, tournaments
from tests.factories import finish, pass_time, play
from tests.factories import new_duplicate as new
from tests.factories import started_duplicate as started

pytestmark = pytest.mark.django_db


def entry(tournament, player) -> Entry:
    return Entry.objects.get(tournament=tournament, player=player)


# ------------------------------------------------------------------ scoring (pure)


def test_match_points_count_the_lower_scores_and_half_the_ties():
    assert duplicate.matchpoints({"a": 60, "b": 50, "c": 50, "d": 40}) == {
        "a": 100.0,
        "b": 50.0,
        "c": 50.0,
        "d": 0.0,
    }
    assert duplicate.matchpoints({"a": 7}) == {"a": 100.0}


def test_standings_rank_by_percentage_then_total_and_ties_share_a_rank():
    games = [{"a": 60, "b": 50, "c": 50}, {"a": 40, "b": 70, "c": 70}]
    ranked = duplicate.standings(["a", "b", "c"], games)
    assert [(s.player, s.percent, s.score, s.rank) for s in ranked] == [
        ("b", 50.0, 120, 1),  # the same percentage as a's: the higher total first
        ("c", 50.0, 120, 1),
        ("a", 50.0, 100, 3),
    ]
    ranked = duplicate.standings(["a", "b", "c"], [{"a": 10, "b": 5, "c": 1}, {"b": 30}])
    assert [(s.player, s.played, s.percent, s.rank) for s in ranked] == [
        ("a", 1, 100.0, 1),  # an open game counts only for who finished it
        ("b", 2, 75.0, 2),
        ("c", 1, 0.0, 3),
    ]


# ------------------------------------------------------------------ creating and joining


def test_a_tournament_is_created_with_its_creator_entered(alice):
    tournament = new(alice, options={"fillers": True})
    assert tournament.status == Tournament.Status.UPCOMING
    assert tournament.options["pace"] == "free" and tournament.options["fillers"] is True
    assert list(tournament.entries.values_list("player", flat=True)) == [alice.pk]
    assert tournament.token


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"name": "  "}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"games": 0}, "1 to 10 games"),
        ({"games": 11}, "1 to 10 games"),
        ({"window": "5m"}, "time for each game"),
        ({"starts": timezone.now() - timedelta(minutes=1)}, "future"),
        ({"starts": timezone.now() + timedelta(days=61)}, "60 days"),
        ({"game": "nmbrs"}, "game"),
        ({"options": {"variant": "nonsense"}}, "Variant must be"),
    ],
)
def test_bad_settings_are_refused_and_create_nothing(alice, settings, reason):
    with pytest.raises(MoveRefused, match=reason):
        new(alice, **settings)
    assert not Tournament.objects.exists()


def test_guests_cannot_create_or_join(alice, bob):
    Profile.objects.update_or_create(player=bob, defaults={"guest": True})
    with pytest.raises(MoveRefused, match="account"):
        new(bob)
    tournament = new(alice)
    with pytest.raises(MoveRefused, match="account"):
        tournaments.join(tournament.pk, bob)


def test_join_and_leave_before_the_start_only(alice, bob, carol):
    tournament = new(alice)
    tournaments.join(tournament.pk, bob)
    with pytest.raises(MoveRefused, match="already"):
        tournaments.join(tournament.pk, bob)
    tournaments.leave(tournament.pk, bob)
    assert not Entry.objects.filter(player=bob).exists()
    with pytest.raises(MoveRefused, match="not in"):
        tournaments.leave(tournament.pk, bob)
    tournaments.join(tournament.pk, bob)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    tournaments.start(tournament.pk)
    with pytest.raises(MoveRefused, match="begun"):
        tournaments.join(tournament.pk, carol)
    with pytest.raises(MoveRefused, match="begun"):
        tournaments.leave(tournament.pk, bob)


def test_an_unlisted_tournament_is_joined_by_its_link_only(alice, bob):
    tournament = new(alice, open=False)
    with pytest.raises(MoveRefused, match="invitation link"):
        tournaments.join(tournament.pk, bob, token="wrong")
    tournaments.join(tournament.pk, bob, token=tournament.token)
    assert entry(tournament, bob)


# ------------------------------------------------------------------ start, play, standings


def test_the_start_deals_every_game_and_tells_the_entrants(alice, bob):
    tournament = new(alice, games=3)
    tournaments.join(tournament.pk, bob)
    assert not tournaments.start(tournament.pk)  # not due yet
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    assert not tournaments.start(tournament.pk)  # once
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    deals = list(tournament.deals.order_by("number"))
    assert [d.number for d in deals] == [1, 2, 3]
    assert len({d.seed for d in deals}) == 3
    assert deals[1].closes - deals[0].closes == tournament.window
    assert all(d.options == tournament.options for d in deals)
    assert Notification.objects.filter(message=tournaments.STARTED).count() == 2


def test_a_tournament_with_one_entrant_is_called_off(alice):
    tournament = new(alice)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED and not tournament.deals.exists()


def test_each_entrant_plays_each_game_once_on_the_same_deal(alice, bob, carol):
    tournament = started(alice, bob)
    mine = tournaments.play(tournament.pk, alice, 1)
    assert tournaments.play(tournament.pk, alice, 1) == mine
    bobs = tournaments.play(tournament.pk, bob, 1)
    assert mine.kind == bobs.kind == Match.Kind.DUPLICATE
    assert mine.seed == bobs.seed and mine.options == tournament.options
    assert mine.is_solo and not mine.rated
    with pytest.raises(MoveRefused, match="not in"):
        tournaments.play(tournament.pk, carol, 1)
    with pytest.raises(MoveRefused, match="not begun"):
        tournaments.play(tournament.pk, alice, 3)


def test_the_standings_follow_each_finished_game_with_ties(alice, bob, carol):
    tournament = started(alice, bob, carol, games=1)
    games = {p: tournaments.play(tournament.pk, p, 1) for p in (alice, bob, carol)}
    finish(games[alice], alice)
    assert entry(tournament, alice).played == 1 and entry(tournament, alice).percent == 100
    assert entry(tournament, bob).played == 0
    finish(games[bob], bob)  # the same policy on the same deal: the same score, a tie
    a, b = entry(tournament, alice), entry(tournament, bob)
    assert a.score == b.score > 0 and a.percent == b.percent == 50 and a.rank == b.rank == 1
    assert entry(tournament, carol).rank == 3


def test_a_closed_game_resigns_the_unfinished_and_scores_the_absent_0(alice, bob, carol):
    tournament = started(alice, bob, carol, games=1)
    finish(tournaments.play(tournament.pk, alice, 1), alice)
    bobs = tournaments.play(tournament.pk, bob, 1)
    play(bobs, bob)
    pass_time(tournament, 25)
    work = sweep.tournament_work()
    assert work["close"] == [bobs.pk] and work["finish"] == [tournament.pk]
    done = tournaments.run_due()
    assert done["close"] == 1 and done["finish"] == 1
    bobs.refresh_from_db()
    assert bobs.is_finished
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    a, b, c = (entry(tournament, p) for p in (alice, bob, carol))
    assert b.score == Seat.objects.get(match=bobs).score == 0  # one tile, on the table
    assert (a.rank, b.rank, c.rank) == (1, 2, 2)  # tied with the entrant who never began
    assert c.played == 1 and c.score == 0 and c.percent == b.percent == 25
    told = Notification.objects.filter(message__in=[tournaments.RESULTS, tournaments.SHARED])
    assert told.count() == 3
    with pytest.raises(MoveRefused, match="closed"):
        tournaments.play(tournament.pk, carol, 1)
    assert not any(tournaments.run_due().values())


def test_the_sweep_sends_the_tournaments_work_when_something_is_due(alice, bob, monkeypatch):
    sent = []
    monkeypatch.setattr(tasks.queue, "send_now", lambda name, *args: sent.append(name) or True)
    tournament = new(alice)
    tournaments.join(tournament.pk, bob)
    tasks._sweep()
    assert tasks.run_tournaments.name not in sent
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tasks._sweep()["tournaments"] == 1
    assert tasks.run_tournaments.name in sent
    tasks.run_tournaments()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING


def test_a_tournaments_deal_is_never_a_daily_a_challenge_or_searched_for_par(alice, bob):
    tournament = started(alice, bob, games=1)
    deal = tournament.deals.get()
    assert deal not in puzzles.unused_puzzles()
    assert deal.pk not in [pk for pk, _ in sweep.claim_par()]
    assert puzzles.publish_daily().pk != deal.pk


# ------------------------------------------------------------------ pages


def test_the_list_shows_listed_tournaments_by_state(client, alice, bob):
    new(alice, name="Listed cup")
    new(alice, name="Secret cup", open=False)
    started(alice, bob, name="Running cup")
    page = client.get(reverse("tournaments")).text
    assert "Listed cup" in page and "Running cup" in page and "Secret cup" not in page


def test_the_list_says_a_duplicate_is_played_at_ones_own_pace_or_live(client):
    page = client.get(reverse("tournaments")).text
    assert "either at their own pace (each game alone" in page and "or live (everybody" in page
    assert "alone and at their own time" not in page
    german = client.get(reverse("tournaments"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "entweder im eigenen Tempo" in german and "oder live (alle zugleich" in german


def test_create_join_play_and_leave_through_the_pages(client, alice, bob):
    client.force_login(alice)
    starts = (timezone.now() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(
        reverse("new_tournament"),
        {"name": "Web cup", "games": "1", "window": "1d", "starts": starts, "open": "on"},
    )
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == tournament.get_absolute_url()
    client.force_login(bob)
    assert client.post(reverse("tournament_join", args=[tournament.pk])).status_code == 302
    assert entry(tournament, bob)
    page = client.get(tournament.get_absolute_url()).text
    assert "Web cup" in page and "bob" in page and "alice" in page
    assert client.post(reverse("tournament_leave", args=[tournament.pk])).status_code == 302
    assert not Entry.objects.filter(player=bob).exists()
    tournaments.join(tournament.pk, bob)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    tournaments.start(tournament.pk)
    response = client.post(reverse("tournament_play", args=[tournament.pk, 1]))
    match = Match.objects.get(seats__player=bob)
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    standings = client.get(reverse("tournament_standings", args=[tournament.pk])).text
    assert "data-standings" in standings


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"name": "x", "games": "abc", "window": "1d", "starts": "2999-01-01T10:00"},
        {"name": "x", "games": "1", "window": "1d", "starts": "yesterday"},
        {"name": "x", "games": "1", "window": "1d", "starts": "2000-01-01T10:00"},
        {"name": "x", "games": "1", "window": "9y", "starts": "2999-01-01T10:00"},
        {"name": "x", "games": "99", "window": "1d", "starts": "2999-01-01T10:00"},
    ],
)
def test_a_bad_form_is_refused_with_a_message(client, alice, data):
    client.force_login(alice)
    response = client.post(reverse("new_tournament"), data)
    assert response.status_code == 400 and 'class="error' in response.text.replace(
        "errorlist", "error"
    )
    assert not Tournament.objects.exists()


def test_pages_of_a_tournament_not_there_or_unlisted_are_404(client, alice, bob):
    hidden = new(alice, open=False)
    client.force_login(bob)
    assert client.get(reverse("tournament", args=[999])).status_code == 404
    assert client.get(hidden.get_absolute_url()).status_code == 404
    assert client.get(f"{hidden.get_absolute_url()}?key={hidden.token}").status_code == 200
    assert client.post(reverse("tournament_play", args=[hidden.pk, 1])).status_code in (400, 404)


def test_visitors_and_guests_are_asked_for_an_account(client, alice):
    tournament = new(alice)
    response = client.post(reverse("tournament_join", args=[tournament.pk]))
    assert response.status_code == 302 and "login" in response["Location"]
    assert client.get(reverse("new_tournament")).status_code == 302
    assert User.objects.count() == 1


def test_a_large_standings_is_read_a_page_at_a_time_with_the_readers_own_line(
    client, alice, bob, carol, monkeypatch
):
    from games.views import tournaments as pages

    monkeypatch.setattr(pages, "SHOWN", 2)
    tournament = started(alice, bob, carol, games=1)
    finish(tournaments.play(tournament.pk, alice, 1), alice)  # alice leads, carol is 3rd
    client.force_login(carol)
    page = client.get(tournament.get_absolute_url()).content.decode()
    lines = re.findall(r'data-entry="(\w+)"', page)
    assert lines[:2] == ["alice", "bob"] and lines[-1] == "carol" and "data-my-line" in page
    assert "Places 1–2 of 3" in page and "?page=2" in page
    page = client.get(f"{tournament.get_absolute_url()}?page=2").content.decode()
    assert re.findall(r'data-entry="(\w+)"', page) == ["carol"] and "data-my-line" not in page
    assert 'standings/?page=2&amp;state=running"' in page  # the poll keeps to the page read
    fragment = client.get(f"{tournament.get_absolute_url()}standings/?page=9").content.decode()
    assert re.findall(r'data-entry="(\w+)"', fragment) == ["carol"]  # the last page
    assert client.get(f"{tournament.get_absolute_url()}?page=x").status_code == 200


def test_the_standings_say_not_played_rather_than_0_percent_before_a_first_game(
    client, alice, bob, carol
):
    tournament = started(alice, bob, carol, games=2)
    game = tournaments.play(tournament.pk, alice, 1)
    services.resign(game.pk, alice)  # over: its score so far counts, the best of one
    polled = f"{tournament.get_absolute_url()}standings/?state=running"
    for path in (tournament.get_absolute_url(), polled):
        for language, full, not_played in (
            ("en", "100.0%", "not played"),
            ("de", "100,0%", "nicht gespielt"),
        ):
            page = client.get(path, HTTP_ACCEPT_LANGUAGE=language).text
            cells = dict(re.findall(r'data-entry="(\w+)".*?<td data-percent>(.*?)</td>', page))
            shown = f'<abbr title="{not_played}">–</abbr>'
            assert cells == {"alice": full, "bob": shown, "carol": shown}, (path, language)


def test_a_page_that_shows_another_state_is_fetched_again_whole(client, alice, bob):
    """A page open before the start (or the end) shows the games once they are there."""
    tournament = new(alice)
    tournaments.join(tournament.pk, bob)
    client.force_login(bob)
    poll = f"{tournament.get_absolute_url()}standings/?state=upcoming"
    response = client.get(poll, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "HX-Refresh" not in response
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    response = client.get(poll, HTTP_HX_REQUEST="true")
    assert response["HX-Refresh"] == "true"
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert "state=running" in page
