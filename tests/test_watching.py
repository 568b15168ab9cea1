"""Watching matches: one rule says who else may look at a match (the pages, the live streams
and every list follow it), a spectator gets a page without a seat that follows the match,
private matches, challenges and puzzles are not watched while they run; the lobby's Watch
list and a profile's current games. What a spectator never sees: tests/test_secrecy.py."""

import re
import time

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import Client
from django.urls import reverse

from games import services
from games.infra import events
from games.models import Match, Move
from games.services.features import puzzles, watching
from games.services.match import versions, visibility
from tests.factories import (
    Channels,
    Stream,
    challenge,
    make_match,
    page_version,
    play,
    session_of,
    todays_daily,
)

HTMX = {"HTTP_HX_REQUEST": "true"}
TURN = {**HTMX, "HTTP_HX_TARGET": "turn"}
GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


@pytest.fixture
def dora(db) -> User:
    return User.objects.create_user("dora", "dora@example.com", "a-Long-pa55word")


def spectators(client, user) -> list[Client]:
    """A signed-in player who is not in the match, and a visitor."""
    client.force_login(user)
    return [client, Client()]


def version_of(html: str) -> str:
    return re.search(r'data-version="([\w-]+)"', html).group(1)


def watched_ids(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'data-watch="(\d+)"', html)]


# ------------------------------------------------------------------ the one rule


def test_one_rule_says_who_else_may_look_at_a_match_and_the_lists_follow_it(alice, bob):
    public = make_match(alice, bob)
    private = make_match(alice, bob, private=True)
    bot_game = services.start_against_bot(alice, "easy")
    private_bot_game = services.start_against_bot(alice, "easy", private=True)
    running_challenge = challenge(alice, bob)
    services.join(running_challenge.pk, bob)
    solo = services.start_solo(alice, seed=3)
    todays_daily()
    daily = puzzles.play_daily(bob)
    waiting_open = services.create_match(
        alice, players=3, time_control="1d", rated=False, open=True
    )
    waiting_invited = services.create_match(
        alice, players=2, time_control="1d", rated=False, invite=["bob"], private=True
    )
    finished_private = make_match(alice, bob, private=True)
    Match.objects.filter(pk=finished_private.pk).update(status=Match.Status.FINISHED)
    expected = {
        public: True,
        private: False,
        bot_game: True,
        private_bot_game: False,
        running_challenge: False,
        solo: False,
        daily: False,
        waiting_open: True,
        waiting_invited: False,
        finished_private: True,
    }
    for match, watchable in expected.items():
        match.refresh_from_db()
        assert visibility.watchable(match) is watchable, match
    assert versions.watchable is visibility.watchable  # the live streams' rule is the pages'
    assert set(visibility.under_way()) == {public, bot_game}
    assert {mv.match for mv in watching.watch_list(bob)} == {bot_game}
    assert {mv.match for mv in watching.watch_list(AnonymousUser())} == {public, bot_game}


# ------------------------------------------------------------------ the spectator's page


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_spectator_and_a_visitor_watch_a_running_match_without_a_seat(
    client, alice, bob, carol, language
):
    match = make_match(alice, bob, time_control="1d")
    play(match, alice)
    play(match, bob)
    play(match, alice)
    url = match.get_absolute_url()
    asked = {"HTTP_ACCEPT_LANGUAGE": language}
    for viewer in spectators(client, carol):
        page = viewer.get(url, **asked)
        assert page.status_code == 200
        html = page.text
        assert "data-watching" in html and "data-display-of" in html
        watching_words = "You are watching" if language == "en" else "Du schaust"
        assert watching_words in html
        for form in ('name="ply"', reverse("play", args=[match.pk]), "data-current", "commit"):
            assert form not in html, form
        assert reverse("resign", args=[match.pk]) not in html
        assert 'data-opponent="bob"' in html and "alice" in html
        assert 'class="match-log"' in html and "data-polling hx-get" not in html
        assert f'hx-get="{url}?poll=' in html
        version = version_of(html)
        assert viewer.get(url, {"poll": version}, **HTMX, **asked).status_code == 204
        partial = viewer.get(url, {"poll": "active-0"}, **HTMX, **asked)
        assert partial.status_code == 200 and 'id="play"' in partial.text
        assert 'name="ply"' not in partial.text and "<html" not in partial.text
        turn = viewer.get(url, **TURN, **asked)
        assert turn.status_code == 200 and 'name="ply"' not in turn.text
        preview = viewer.get(url, {"x": "0", "y": "0", "rotation": "1"}, **TURN, **asked)
        assert preview.status_code == 200 and "data-ghost" not in preview.text
        assert viewer.get(url, {"focus": "1"}, **asked).status_code == 200
        # Without a server that streams (WSGI), the page polls, and the stream says so.
        assert viewer.get(reverse("live", args=[match.pk])).status_code == 204
    assert Move.objects.filter(match=match).count() == 3


def test_a_spectator_of_nmbrs_sees_the_table_and_whose_turn_it_is(client, alice, bob, carol):
    from tests.factories import nmbrs_match

    match = nmbrs_match(alice, bob)
    for viewer in spectators(client, carol):
        html = viewer.get(match.get_absolute_url()).text
        assert "data-watching-turn" in html and "It is the turn of alice." in html
        assert 'name="move"' not in html and "Your hand" not in html
        assert 'data-player="alice"' in html and "9 cards" in html
        german = viewer.get(match.get_absolute_url(), **GERMAN).text
        assert "alice ist am Zug." in german and "9 Karten" in german


def test_private_matches_challenges_and_puzzles_are_not_watched_while_they_run(
    client, alice, bob, carol
):
    private = make_match(alice, bob, private=True)
    running_challenge = challenge(alice, bob)
    services.join(running_challenge.pk, bob)
    todays_daily()
    daily = puzzles.play_daily(bob)
    practice = services.start_solo(bob, seed=5)
    client.force_login(carol)
    for match in (private, running_challenge, daily, practice):
        url = match.get_absolute_url()
        assert client.get(url).status_code == 404, match
        assert client.get(url, {"poll": "x"}, **HTMX).status_code == 404
        assert client.get(url, **TURN).status_code == 404
        assert client.get(reverse("live", args=[match.pk])).status_code == 404
        assert client.get(reverse("replay", args=[match.pk])).status_code == 404
        visitor = Client().get(url)
        assert visitor.status_code == 302 and "login" in visitor["Location"]
    for viewer in (client, Client()):
        assert watched_ids(viewer.get(reverse("lobby")).text) == []
    # Over, a private match is shown as every finished match is.
    services.resign(private.pk, alice)
    private.refresh_from_db()
    assert private.is_finished
    assert client.get(private.get_absolute_url()).status_code == 200
    assert client.get(reverse("replay", args=[private.pk])).status_code == 200


# ------------------------------------------------------------------ lists


def test_the_lobby_lists_the_matches_under_way_newest_first(
    client, monkeypatch, alice, bob, carol, dora
):
    first = make_match(alice, bob, pace="free", time_control="1d")
    for _ in range(4):
        play(first, alice)  # bob has not started: a spectator is in round 1
    second = make_match(bob, dora, time_control="1d")
    play(second, bob)
    play(second, dora)
    make_match(alice, dora, private=True)
    services.join(challenge(alice, bob).pk, bob)
    services.start_solo(alice, seed=3)
    client.force_login(carol)
    html = client.get(reverse("lobby")).text
    assert watched_ids(html) == [second.pk, first.pk]
    entries = dict(re.findall(r'data-watch="(\d+)".*?data-standing>([^<]*)<', html, re.S))
    assert entries == {str(second.pk): "Round 2 of 20", str(first.pk): "Round 1 of 20"}
    assert html.count("data-watch-link") == 2
    german = client.get(reverse("lobby"), **GERMAN).text
    assert "Runde 2 von 20" in german and "Zuschauen" in german
    client.force_login(bob)  # his own matches are his to play, not to watch
    assert watched_ids(client.get(reverse("lobby")).text) == []
    assert watched_ids(Client().get(reverse("lobby")).text) == [second.pk, first.pk]
    monkeypatch.setattr(watching, "WATCH_LIST", 1)
    assert watched_ids(Client().get(reverse("lobby")).text) == [second.pk]


def test_a_profile_lists_the_current_games_the_viewer_may_know_of(client, alice, bob, carol):
    public = make_match(alice, bob)
    private = make_match(alice, bob, private=True)
    running_challenge = challenge(alice, bob)
    services.join(running_challenge.pk, bob)
    solo = services.start_solo(alice, seed=3)
    url = reverse("profile", args=["alice"])

    def listed(html: str) -> set[int]:
        return {int(pk) for pk in re.findall(r'data-current="(\d+)"', html)}

    client.force_login(alice)
    own = client.get(url).text
    assert listed(own) == {public.pk, private.pk, running_challenge.pk, solo.pk}
    assert "data-watch-link" not in own and "private" in own
    client.force_login(bob)  # he plays in two of them: his to play
    assert listed(client.get(url).text) == {public.pk, private.pk, running_challenge.pk}
    assert "data-watch-link" not in client.get(url).text
    for viewer in (Client(), client):
        if viewer is client:
            client.force_login(carol)
        html = viewer.get(url).text
        assert listed(html) == {public.pk}
        assert f'href="{public.get_absolute_url()}" data-watch-link' in html


def test_the_private_box_of_the_new_match_and_bot_game_forms(client, alice):
    client.force_login(alice)
    page = client.get(reverse("new_match")).text
    assert 'name="private"' in page and "only its players can see it" in page
    data = {"game": "nmbr9", "players": "2", "time_control": "1d", "open": "on"}
    client.post(reverse("new_match"), {**data, "private": "on"})
    client.post(reverse("new_match"), data)
    assert list(Match.objects.order_by("pk").values_list("private", flat=True)) == [True, False]
    page = client.get(reverse("new_solo"), {"bot": "easy"}).text
    assert "data-private-choice" in page and 'name="private"' in page
    client.post(reverse("new_solo"), {"game": "nmbr9", "bot": "easy", "private": "on"})
    client.post(reverse("new_solo"), {"game": "nmbr9", "bot": "easy"})
    bot_games = Match.objects.filter(seats__bot="easy").order_by("pk")
    assert list(bot_games.values_list("private", flat=True)) == [True, False]
    assert "nur ihre Spieler" in client.get(reverse("new_match"), **GERMAN).text


# ------------------------------------------------------------------ following live


def test_watchers_are_told_when_what_they_see_changes_and_only_then(
    transactional_db, client, alice, bob, carol
):
    match = make_match(alice, bob, pace="free")
    private = make_match(alice, bob, pace="rounds", private=True)
    watch = events.channel(match.pk, versions.WATCH)
    hidden = events.channel(private.pk, versions.WATCH)
    heard = Channels(watch, hidden)
    try:
        for _ in range(3):
            play(match, alice)  # ahead: nothing a spectator sees changes
        play(private, alice)
        play(private, bob)
        assert heard.read() == {watch: [], hidden: []}
        play(match, bob)  # the slowest reaches round 2
        got = heard.read()
        assert len(got[watch]) == 1 and got[hidden] == []
        assert got[watch][0] == page_version(client, match, carol)
    finally:
        heard.close()


def test_a_visitor_follows_a_running_match_on_its_live_stream(asgi_server, client, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    private = make_match(alice, bob, pace="rounds", private=True)
    play(match, alice)
    shown = version_of(Client().get(match.get_absolute_url()).text)
    stream = Stream(asgi_server.url, reverse("live", args=[match.pk]) + f"?version={shown}", None)
    try:
        assert stream.response.status == 200
        assert stream.events(0.5) == []
        started = time.monotonic()
        play(match, bob)  # the round is over: the next one begins for everybody
        got = stream.events(1)
        assert time.monotonic() - started < 1.5
        assert got == [version_of(Client().get(match.get_absolute_url()).text)]
    finally:
        stream.close()
    for session in (None, session_of(client, User.objects.create_user("erin"))):
        closed = Stream(asgi_server.url, reverse("live", args=[private.pk]), session)
        assert closed.response.status == 404
        closed.close()


def test_the_rule_as_a_query_leaves_out_what_the_rule_does(alice):
    """``visibility.watchable_where`` finds, of every kind of match in every state, public
    or private, open or not, those ``watchable`` lets others look at; from a seat too."""
    import itertools

    from games.models import Seat

    made = []
    for kind, status, private, open_ in itertools.product(
        Match.Kind.values, Match.Status.values, (False, True), (False, True)
    ):
        match = Match.objects.create(
            kind=kind, status=status, private=private, open=open_, seed=1, created_by=alice
        )
        Seat.objects.create(match=match, player=alice, index=0)
        made.append(match)
    rule = {m.pk for m in made if visibility.watchable(m)}
    assert (
        set(Match.objects.filter(visibility.watchable_where()).values_list("pk", flat=True)) == rule
    )
    seats = Seat.objects.filter(visibility.watchable_where("match__"))
    assert set(seats.values_list("match_id", flat=True)) == rule
    assert 0 < len(rule) < len(made)
