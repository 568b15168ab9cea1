"""Live streams: each reader is told the new version of their own page when a change they can
see commits, and nothing else; the ASGI server streams it; without Redis pages poll."""

import re
import socket
import threading
import time
import urllib.request
from urllib.parse import urlsplit

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from games import services
from games.infra import events, presence
from games.models import Match
from tests.factories import Channels, Stream, make_match, page_version, play, seat_of, session_of

VERSION = re.compile(r"^(waiting|active|finished|cancelled)-[0-9a-f]{16}$")


@pytest.fixture
def channels():
    opened: list[Channels] = []

    def subscribe(*names: str) -> Channels:
        opened.append(Channels(*names))
        return opened[-1]

    yield subscribe
    for one in opened:
        one.close()


def test_a_new_round_tells_the_waiting_player_the_version_their_page_then_shows(
    transactional_db, channels, client, alice, bob
):
    match = make_match(alice, bob, pace="rounds")
    mine = events.channel(match.pk, "0")
    theirs = events.channel(match.pk, "1")
    heard = channels(mine, theirs)
    play(match, alice)
    heard.read()
    heard.got[mine].clear()
    play(match, bob)  # the round is over: alice gets her next tile
    got = heard.read()
    assert len(got[mine]) == 1
    assert VERSION.match(got[mine][0])
    assert got[mine][0] == page_version(client, match, alice)
    assert got[theirs][-1] == page_version(client, match, bob)


def test_in_free_pace_a_player_ahead_moving_tells_those_behind_nothing(
    transactional_db, channels, alice, bob
):
    match = make_match(alice, bob, pace="free")
    behind = events.channel(match.pk, "1")
    ahead = events.channel(match.pk, "0")
    heard = channels(behind, ahead)
    for _ in range(3):
        play(match, alice)
    got = heard.read()
    assert got[behind] == []
    assert len(got[ahead]) == 3  # her own other tabs follow her moves


def test_an_event_is_the_version_alone(transactional_db, channels, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    heard = channels(events.channel(match.pk, "0"), events.channel(match.pk, "1"))
    play(match, alice)
    play(match, bob)
    messages = [m for got in heard.read().values() for m in got]
    assert messages and all(VERSION.match(m) for m in messages)
    assert events.event(events.changed(messages[0])) == (
        f'event: changed\ndata: {{"version": "{messages[0]}"}}\n\n'.encode()
    )


def test_a_refused_move_tells_nobody_anything(transactional_db, channels, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    heard = channels(events.channel(match.pk, "0"), events.channel(match.pk, "1"))
    with pytest.raises(services.MoveRefused):
        services.play(match.pk, alice, "place 0@0,0r0", 0)
    assert heard.read() == {events.channel(match.pk, "0"): [], events.channel(match.pk, "1"): []}


@pytest.mark.parametrize("private", [True, False])
def test_a_seat_taken_in_an_open_match_tells_its_creator_and_its_watchers(
    transactional_db, channels, alice, bob, carol, private
):
    match = services.create_match(
        alice, players=3, time_control="1d", rated=False, open=True, private=private
    )
    creator = events.channel(match.pk, "0")
    watch = events.channel(match.pk, "watch")
    heard = channels(creator, watch)
    services.join(match.pk, bob)
    got = heard.read()
    assert len(got[creator]) == 1 and len(got[watch]) == 1
    services.join(match.pk, carol)  # the match starts: others may watch it unless private
    got = heard.read()
    assert len(got[creator]) == 2 and len(got[watch]) == (1 if private else 2)


def test_the_page_names_its_stream_only_where_a_server_streams(client, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    client.force_login(alice)
    html = client.get(match.get_absolute_url()).content.decode()
    assert "data-polling" in html and "data-live" not in html  # WSGI: the page polls
    assert client.get(reverse("live", args=[match.pk])).status_code == 204


def test_under_asgi_a_waiting_page_is_fetched_again_live_and_a_moving_one_keeps_its_turn(
    asgi_server, client, alice, bob
):
    """Both pages name their stream (the chat listens there) and are fetched again when their
    match changes, the waiting one as it is, the moving one keeping the turn being made while
    it owes the same move (data-owes, data-ply): a move being made is never changed under
    the player's hands."""
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    stream = f'data-live="{reverse("live", args=[match.pk])}"'
    waiting = play_section(
        fetch(asgi_server.url, match.get_absolute_url(), session_of(client, alice))
    )
    assert stream in waiting and "data-refresh" in waiting
    moving = play_section(fetch(asgi_server.url, match.get_absolute_url(), session_of(client, bob)))
    assert stream in moving and "data-refresh" not in moving
    assert "data-owes=" in moving and 'data-ply="0"' in moving and "data-owes" not in waiting


def test_under_asgi_a_move_owed_without_a_deadline_keeps_its_turn_too(asgi_server, client, alice):
    """Against a bot there is no time limit: the player's page owes its move all the same
    (data-owes empty, data-ply) and is not fetched again as a waiting one (data-refresh),
    which would replace the turn being made, and the keyboard's place in it, whenever the
    stream announces a version (its own move's, told late)."""
    match = services.start_against_bot(alice, "easy")
    moving = play_section(
        fetch(asgi_server.url, match.get_absolute_url(), session_of(client, alice))
    )
    assert 'data-owes=""' in moving and 'data-ply="0"' in moving and "data-page=" in moving
    assert "data-refresh" not in moving
    # the decision owed is named (data-turn): a new one with no move of theirs (a new deal
    # after the bot went out, in nmbrs!) is no reason to keep the turn on the page
    turn = services.load(match).rules.turn(services.load(match).state, 0)
    assert f'data-turn="{turn}"' in moving


def play_section(html: str) -> str:
    """The opening tag of a page's play area, which says how it follows its match."""
    return re.search(r'<section id="play"[^>]*>', html).group(0)


def fetch(base_url: str, path: str, session: str) -> str:
    request = urllib.request.Request(
        base_url + path, headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def test_the_asgi_server_streams_the_waiting_players_next_version(asgi_server, client, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    shown = page_version(client, match, alice)
    path = reverse("live", args=[match.pk]) + f"?version={shown}"
    stream = Stream(asgi_server.url, path, session_of(client, alice))
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream"
        assert stream.response.getheader("X-Accel-Buffering") == "no"
        assert stream.events(0.5) == []  # the page is up to date: nothing to say
        assert presence.looking(alice.pk, match.pk)
        started = time.monotonic()
        play(match, bob)
        got = stream.events(1)
        assert time.monotonic() - started < 1.5
        assert got == [page_version(client, match, alice)]
    finally:
        stream.close()


def test_a_page_behind_is_told_at_once_when_its_stream_opens(asgi_server, client, alice, bob):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    shown = page_version(client, match, alice)
    play(match, bob)
    path = reverse("live", args=[match.pk]) + f"?version={shown}"
    stream = Stream(asgi_server.url, path, session_of(client, alice))
    try:
        assert stream.events(1) == [page_version(client, match, alice)]
    finally:
        stream.close()


def test_nobody_else_follows_a_private_running_match(asgi_server, client, alice, bob, carol):
    match = make_match(alice, bob, pace="rounds", private=True)
    path = reverse("live", args=[match.pk])
    for session in (session_of(client, carol), None):
        stream = Stream(asgi_server.url, path, session)
        assert stream.response.status == 404
        stream.close()


def test_a_finished_or_solo_game_has_nothing_to_stream(asgi_server, client, alice):
    solo = services.start_solo(alice, seed=3)
    stream = Stream(asgi_server.url, reverse("live", args=[solo.pk]), session_of(client, alice))
    assert stream.response.status == 204
    stream.close()
    Match.objects.filter(pk=solo.pk).update(kind=Match.Kind.MATCH, status=Match.Status.FINISHED)
    stream = Stream(asgi_server.url, reverse("live", args=[solo.pk]), session_of(client, alice))
    assert stream.response.status == 204
    stream.close()


def test_without_redis_moves_are_answered_and_pages_poll(
    asgi_server, client, alice, bob, redis_away
):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    play(match, bob)  # announced to nobody: answered all the same
    assert seat_of(match, alice).progress == 1
    stream = Stream(asgi_server.url, reverse("live", args=[match.pk]), session_of(client, alice))
    assert stream.response.status == 204  # the page polls
    stream.close()
    assert not presence.looking(alice.pk, match.pk)


def test_the_metrics_count_open_streams(asgi_server, client, alice, bob):
    from prometheus_client import REGISTRY

    def open_now() -> float:
        return REGISTRY.get_sample_value("nmbr9site_live_streams")

    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    before = open_now()
    stream = Stream(asgi_server.url, reverse("live", args=[match.pk]), session_of(client, alice))
    stream.events(0.3)
    assert open_now() == before + 1
    stream.close()
    for _ in range(50):
        if open_now() == before:
            break
        time.sleep(0.05)
    assert open_now() == before


def test_once_redis_failed_a_move_does_not_wait_for_it_again(
    transactional_db, alice, bob, redis_away
):
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)  # Redis fails once: announcements stop for a while
    assert events._away_until > time.monotonic()
    play(match, bob)
    assert seat_of(match, alice).progress == 1


def test_a_stream_reads_its_version_only_once_subscribed(asgi_server, client, alice, monkeypatch):
    """A move committed while the stream is being opened is either in the version read or
    announced on the channel: the version is read with the channel already listened to."""
    from games.services.match import versions

    bob = User.objects.create_user("bob2", "bob2@example.com", "a-Long-pa55word")
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    name = versions.channel_for(services.view_match(match.pk, alice))
    listeners: list[int] = []
    real = services.view_match

    def looked_at(*args, **kwargs):
        listeners.append(redis.Redis.from_url(settings.REDIS_URL).pubsub_numsub(name)[0][1])
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "view_match", looked_at)
    stream = Stream(asgi_server.url, reverse("live", args=[match.pk]), session_of(client, alice))
    try:
        stream.events(0.5)
        assert listeners[0] == 0 and listeners[-1] >= 1, listeners
    finally:
        stream.close()


def test_the_page_names_its_stream_where_another_process_serves_it(client, alice, bob, settings):
    """The web processes (WSGI) behind the proxy name the stream that the live process
    serves (``LIVE_STREAMS``); asked for the stream themselves, they say to poll."""
    settings.LIVE_STREAMS = True
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    client.force_login(alice)
    html = client.get(match.get_absolute_url()).content.decode()
    assert f'data-live="{reverse("live", args=[match.pk])}"' in html
    assert client.get(reverse("live", args=[match.pk])).status_code == 204
    client.force_login(User.objects.create_user("dave", "dave@example.com", "a-Long-pa55word"))
    private = make_match(alice, bob, pace="rounds", private=True)
    assert client.get(reverse("live", args=[private.pk])).status_code == 404


def test_an_open_stream_holds_no_thread(asgi_server, client, alice, bob, settings):
    settings.LIVE_STREAMS_PER_CLIENT = 100
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    path = reverse("live", args=[match.pk]) + f"?version={page_version(client, match, alice)}"
    first = Stream(asgi_server.url, path, session_of(client, alice))
    first.events(0.3)  # the server's threads are started
    threads = threading.active_count()
    streams = [Stream(asgi_server.url, path, session_of(client, alice)) for _ in range(40)]
    try:
        assert all(stream.response.status == 200 for stream in streams)
        # this process reads each stream in a thread of its own: the server added none
        assert threading.active_count() - threads <= len(streams) + 2
        play(match, bob)
        told = {stream.first(5) for stream in streams}
        assert told == {page_version(client, match, alice)}
    finally:
        for stream in [first, *streams]:
            stream.close()


def test_a_client_holds_at_most_its_share_of_streams(asgi_server, client, alice, bob, settings):
    """The stream past a client's share is answered 204: EventSource stops quietly and the
    page polls. A stream closed makes room for another."""
    settings.LIVE_STREAMS_PER_CLIENT = 3
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    path = reverse("live", args=[match.pk])
    mine = [Stream(asgi_server.url, path, session_of(client, alice)) for _ in range(3)]
    try:
        assert [stream.response.status for stream in mine] == [200, 200, 200]
        one_more = Stream(asgi_server.url, path, session_of(client, alice))
        assert one_more.response.status == 204
        one_more.close()
        theirs = Stream(asgi_server.url, path, session_of(client, bob))
        assert theirs.response.status == 200  # another player's share is their own
        theirs.close()
        mine.pop().close()
        for _ in range(50):
            again = Stream(asgi_server.url, path, session_of(client, alice))
            if again.response.status == 200:
                break
            again.close()
            time.sleep(0.05)
        mine.append(again)
        assert again.response.status == 200
    finally:
        for stream in mine:
            stream.close()


def test_a_full_process_answers_503_with_a_time_to_come_back(
    asgi_server, client, alice, bob, settings
):
    settings.LIVE_STREAMS_MOST = 2
    match = make_match(alice, bob, pace="rounds")
    play(match, alice)
    path = reverse("live", args=[match.pk])
    held = [Stream(asgi_server.url, path, session_of(client, who)) for who in (alice, bob)]
    try:
        assert [stream.response.status for stream in held] == [200, 200]
        refused = Stream(asgi_server.url, path, session_of(client, alice))
        assert refused.response.status == 503
        assert refused.response.getheader("Retry-After") == "30"
        refused.close()
    finally:
        for stream in held:
            stream.close()


def test_pages_asked_one_after_the_other_on_one_connection_are_all_answered(asgi_server):
    """A browser keeps its connection for the next request, which may arrive while the last
    answer is still being sent: each page runs in a context of its own (not in the one of the
    answer before, whose thread has gone)."""
    where = urlsplit(asgi_server.url)
    asked = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with socket.create_connection((where.hostname, where.port), timeout=10) as connection:
        connection.sendall(asked * 5)
        answers = b""
        while answers.count(b"</html>") < 5:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answers += chunk
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", answers)
    assert statuses == [b"200"] * 5, statuses


def test_a_page_through_the_asgi_server_ends_its_request(asgi_server):
    """Each page's answer is closed once sent, as a WSGI server closes it: the request ends
    (its database connection goes back, a static file's is closed)."""
    from django.core.signals import request_finished

    ended = []

    def note(sender, **kwargs):
        ended.append(sender)

    request_finished.connect(note)
    try:
        with urllib.request.urlopen(asgi_server.url + "/", timeout=10) as answer:
            assert answer.status == 200
        for _ in range(50):
            if ended:
                break
            time.sleep(0.02)
    finally:
        request_finished.disconnect(note)
    assert ended


def test_the_clock_wakes_the_streams_a_slice_at_a_time(monkeypatch):
    """Between two slices of the streams it wakes, the clock lets the event loop run the
    rest (a move's announcement): 10,000 streams woken at once held it half a second."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(events, "HEARTBEAT", 0.01)
    monkeypatch.setattr(events, "BEAT_SLICE", 2)

    async def beat_once() -> list[int]:
        hub = events.Hub()
        queues = [asyncio.Queue() for _ in range(5)]
        hub.listeners["a channel"] = set(queues)
        seen = []  # the beats put so far, each time another task runs

        async def other() -> None:
            while True:
                seen.append(sum(q.qsize() for q in queues))
                await asyncio.sleep(0)

        watching = asyncio.create_task(other())
        clock = asyncio.create_task(hub._beat())
        while sum(q.qsize() for q in queues) < len(queues):
            await asyncio.sleep(0.001)
        hub.listeners.clear()
        for task in (watching, clock):
            task.cancel()
        await asyncio.gather(watching, clock, return_exceptions=True)
        return seen

    with ThreadPoolExecutor(1) as thread:  # a loop of its own, whatever this thread runs
        seen = thread.submit(asyncio.run, beat_once()).result()
    assert {2, 4} <= set(seen)


def test_a_process_holds_fewer_streams_than_it_may_open_files(settings, monkeypatch):
    """Past its limit of open files a process would leave every connection unanswered: it
    refuses streams (503) before that."""
    import resource

    from games.infra import streams
    from nmbr9site.worker import most_open_files

    settings.LIVE_STREAMS_MOST = 10_000
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (1024, 1024))
    assert streams.most() == 1024 - streams.SPARE_FILES
    settings.LIVE_STREAMS_MOST = 300
    assert streams.most() == 300
    monkeypatch.undo()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 512), hard))
    try:  # the live process's worker raises its own limit as far as it may
        assert most_open_files() == (hard if hard != resource.RLIM_INFINITY else 1 << 20)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
