"""What the chat may not tell: a room's messages reach only its readers, on every path a page
has (the page, the chat's part, the play area's polls, the replay, the live stream) and on
none other (notifications, pushes); free pace keeps the players from talking while it runs
and puzzle challenges have no chat. In English and German."""

import json
import queue
import re
import time

import pytest
import redis
from django.conf import settings
from django.urls import reverse

from games import services
from games.infra import events
from games.models import ChatMessage, Match, Notification, PushMessage
from games.services.features import chat_rooms
from games.services.match.versions import WATCH
from tests.factories import (
    HTMX,
    Stream,
    challenge,
    make_match,
    open_match,
    play,
    play_to_end,
    said,
    say,
    section,
    session_of,
)

pytestmark = pytest.mark.django_db
LANGUAGES = ["en", "de"]
#: What a player's page says of the chat in each language.
PLAYERS_ROOM = {"en": "Message to the players", "de": "Nachricht an die Mitspieler"}
CLOSED = {"en": "free pace", "de": "freien Tempo"}


def every_path(client, match, language: str) -> dict[str, str]:
    """What the signed-in reader gets of the match on each path a page has."""
    lang = {"HTTP_ACCEPT_LANGUAGE": language}
    paths = {
        "page": client.get(match.get_absolute_url(), **lang),
        "chat": client.get(reverse("chat", args=[match.pk]), **HTMX, **lang),
        "poll": client.get(match.get_absolute_url(), {"poll": "x"}, **HTMX, **lang),
    }
    if match.is_finished:
        paths["replay"] = client.get(reverse("replay", args=[match.pk]), **lang)
    return {name: response.text for name, response in paths.items()}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_spectators_words_reach_no_player_until_the_match_is_over(
    client, alice, bob, carol, language
):
    match = open_match(alice)
    chat_rooms.post(match.pk, carol, "alice holds a 9")  # a spectator, while seats are open
    chat_rooms.post(match.pk, alice, "hello bob")
    services.join(match.pk, bob)
    play(match, alice)
    for player in (alice, bob):
        client.force_login(player)
        seen = every_path(client, match, language)
        assert "hello bob" in seen["page"] and "hello bob" in seen["chat"]
        assert PLAYERS_ROOM[language] in seen["page"]
        for path, html in seen.items():
            assert "alice holds a 9" not in html, (player, path)
        assert "hello bob" not in seen["poll"]  # the play area holds no chat
    client.force_login(carol)  # now a spectator of the running match: the spectators' room
    spectating = client.get(reverse("chat", args=[match.pk]), **HTMX)
    assert spectating.status_code == 200
    assert "alice holds a 9" in spectating.text and "hello bob" not in spectating.text
    Match.objects.filter(pk=match.pk).update(private=True)  # nobody else may look at it
    assert client.get(reverse("chat", args=[match.pk]), **HTMX).status_code == 404
    Match.objects.filter(pk=match.pk).update(private=False)
    play_to_end(match, [alice, bob])
    for player in (alice, bob):
        client.force_login(player)
        seen = every_path(client, match, language)
        for path in ("page", "chat", "replay"):
            assert "alice holds a 9" in seen[path] and "hello bob" in seen[path], (player, path)
    client.force_login(carol)
    seen = every_path(client, match, language)
    for path in ("page", "chat", "replay"):
        assert "alice holds a 9" in seen[path] and "hello bob" not in seen[path], path


@pytest.mark.parametrize("language", LANGUAGES)
def test_in_free_pace_no_path_lets_the_players_talk_while_the_match_runs(
    client, alice, bob, language
):
    match = make_match(alice, bob, pace="free")
    play(match, alice)
    client.force_login(alice)
    for path, html in every_path(client, match, language).items():
        assert "data-chat-form" not in html, path
    assert CLOSED[language] in section(every_path(client, match, language)["page"])
    response = say(client, match, "9 next", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400 and CLOSED[language] in response.text
    response = say(client, match, "9 next", **HTMX)
    assert response.status_code == 400 and "data-chat-form" not in response.text
    assert ChatMessage.objects.count() == 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_puzzle_challenge_has_no_chat_on_any_path(client, alice, bob, language):
    duel = challenge(alice, bob)
    client.force_login(alice)
    page = client.get(duel.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language)
    assert 'id="chat"' not in page.text
    assert client.get(reverse("chat", args=[duel.pk]), **HTMX).status_code == 404
    assert say(client, duel, "the next tile is a 3").status_code == 400
    assert ChatMessage.objects.count() == 0


def test_no_message_becomes_a_notification_or_a_push(client, alice, bob, carol):
    match = open_match(alice)
    chat_rooms.post(match.pk, carol, "spectator words")
    services.join(match.pk, bob)
    notified = Notification.objects.count()
    pushed = PushMessage.objects.count()
    client.force_login(bob)
    say(client, match, "player words")
    assert Notification.objects.count() == notified and PushMessage.objects.count() == pushed
    for kept in said():
        assert "words" not in kept
    for kept in PushMessage.objects.values_list("payload", flat=True):
        assert "words" not in json.dumps(kept)


class Heard:
    """Every message sent on a match's channels while it listens."""

    def __init__(self, match, seats: int) -> None:
        names = [events.channel(match.pk, str(n)) for n in range(seats)]
        self.names = [*names, events.channel(match.pk, WATCH)]
        self.client = redis.Redis.from_url(settings.REDIS_URL)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.subscribe(*self.names)

    def read(self) -> dict[str, list[dict]]:
        got: dict[str, list[dict]] = {name: [] for name in self.names}
        ends = time.monotonic() + 0.3
        while (left := ends - time.monotonic()) > 0:
            message = self.pubsub.get_message(timeout=left)
            if message and message["type"] == "message":
                got[message["channel"].decode()].append(json.loads(message["data"]))
        return got

    def close(self) -> None:
        self.pubsub.close()
        self.client.close()


def test_a_room_s_readers_alone_are_told_and_never_the_text(
    alice, bob, carol, django_capture_on_commit_callbacks
):
    match = open_match(alice)
    heard = Heard(match, 2)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            chat_rooms.post(match.pk, carol, "the spectators' secret")
        got = heard.read()
        watch = events.channel(match.pk, WATCH)
        assert got[watch] == [{"event": "chat"}]
        assert all(got[name] == [] for name in got if name != watch)
        services.join(match.pk, bob)
        heard.read()
        with django_capture_on_commit_callbacks(execute=True):
            chat_rooms.post(match.pk, bob, "the players' secret")
        got = heard.read()
        assert got[watch] == []
        for seat in (0, 1):
            assert got[events.channel(match.pk, str(seat))] == [{"event": "chat"}]
    finally:
        heard.close()


def test_a_bots_seat_is_told_nothing(alice, django_capture_on_commit_callbacks):
    match = services.start_against_bot(alice, "easy")
    heard = Heard(match, 2)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            chat_rooms.post(match.pk, alice, "good game, bot")
        got = heard.read()
        assert got[events.channel(match.pk, "0")] == [{"event": "chat"}]
        assert got[events.channel(match.pk, "1")] == []
    finally:
        heard.close()


def events_of(stream: Stream, seconds: float) -> list[tuple[str, str]]:
    """The (kind, data) of each event the stream sent within ``seconds``."""
    found, kind = [], "message"
    try:
        while line := stream.lines.get(timeout=seconds):
            if line.startswith("event: "):
                kind = line[7:].strip()
            elif line.startswith("data: "):
                found.append((kind, line[6:].strip()))
    except queue.Empty:
        pass
    return found


def test_the_live_stream_brings_a_player_the_word_that_there_is_news_and_no_text(
    asgi_server, client, alice, bob
):
    match = make_match(alice, bob, pace="rounds")
    client.force_login(alice)  # alice owes a move: her page streams all the same
    html = client.get(match.get_absolute_url()).text
    shown = re.search(r'data-version="([\w-]+)"', html).group(1)
    path = reverse("live", args=[match.pk]) + f"?version={shown}"
    stream = Stream(asgi_server.url, path, session_of(client, alice))
    try:
        assert events_of(stream, 0.5) == []
        chat_rooms.post(match.pk, bob, "a secret word")
        assert events_of(stream, 1) == [("chat", "{}")]
    finally:
        stream.close()
