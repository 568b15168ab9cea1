"""What the tests share: players, matches and moves, puzzles, tasks, live streams, waiting
for a worker. Every test module takes its helpers from here (or from tests/browser/pages.py),
none from another test module."""

import contextlib
import copy
import http.client
import importlib
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from datetime import time as time_of_day
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from games import notices, services
from games.infra import queue as task_queue
from games.models import (
    Match,
    Move,
    Notification,
    PlayerStats,
    Puzzle,
    Seat,
    Tournament,
)
from games.nmbr9 import Game, Turn
from games.nmbr9.policy import choose
from games.nmbr9.puzzle import puzzle as puzzle_deal
from games.services.features import (
    live_duplicate,
    push_devices,
    puzzles,
    swiss_rounds,
    tournaments,
)
from games.services.match.finish import count_for_the_day
from games.tasks import refresh_player_stats
from nmbr9site.processes import free_port

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


#: Every task this test run sent with an ETA or a countdown (there must be none).
TIMED_SENDS: list[tuple[str, str]] = []


PASSWORD = "a-Long-pa55word"


HTMX = {"HTTP_HX_REQUEST": "true"}


def said(**filters) -> list[str]:
    """The words of the notifications ``filters`` pick, as their reader reads them in the
    active language (English unless the test chose another)."""
    return [n.said for n in notices.say_all(Notification.objects.filter(**filters))]


def say(client, match, text, **extra):
    return client.post(reverse("chat", args=[match.pk]), {"text": text}, **extra)


def section(html: str) -> str:
    """The chat section of a page ("" if it has none)."""
    found = re.search(r'<section id="chat".*?</section>', html, re.S)
    return found.group(0) if found else ""


def open_match(creator) -> Match:
    """A match waiting for one more player, open to anybody."""
    return services.create_match(creator, players=2, time_control="1d", rated=False, open=True)


def guest_of(client) -> User:
    user = User.objects.get(pk=client.session["_auth_user_id"])
    assert user.profile.guest and user.username.startswith("guest-")
    return user


def sign_up(client, name: str = "newcomer", email: str = "", **extra):
    """The sign-up form posted by ``client`` (the address: ``name``@example.com unless
    given), with ``extra`` headers."""
    data = {
        "username": name,
        "email": email or f"{name}@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    return client.post(reverse("signup"), data, **extra)


def closed_port() -> int:
    """A local port nothing listens on."""
    return free_port()


def a_running_match(player, other, game: str, *, theirs: bool, seed: int = 1) -> Match:
    """A match of ``game`` under way, waiting for ``player``'s move (or, ``theirs``, for the
    other's)."""
    if game == "nmbrs":
        match = services.create_match(
            player,
            game="nmbrs",
            players=2,
            time_control="1d",
            rated=True,
            invite=[other.username],
            seed=seed,
        )
        services.join(match.pk, other)
    else:
        match = make_match(player, other, pace="rounds", seed=seed)
    if theirs:
        record = services.load(match)
        services.play(match.pk, player, str(record.rules.auto_move(record.state, 0)), 0)
    return match


class Channels:
    """A subscriber to channels, as the server's hub is: what each got, in order."""

    def __init__(self, *names: str) -> None:
        self.client = redis.Redis.from_url(settings.REDIS_URL)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.subscribe(*names)
        self.got: dict[str, list[str]] = {name: [] for name in names}

    def read(self, seconds: float = 0.3) -> dict[str, list[str]]:
        ends = time.monotonic() + seconds
        while (left := ends - time.monotonic()) > 0:
            message = self.pubsub.get_message(timeout=left)
            if message and message["type"] == "message":
                data = json.loads(message["data"])
                assert set(data) == {"event", "version"} and data["event"] == "changed"
                self.got[message["channel"].decode()].append(data["version"])
        return self.got

    def close(self) -> None:
        self.pubsub.close()
        self.client.close()


def page_version(client, match, user) -> str:
    client.force_login(user)
    html = client.get(match.get_absolute_url()).content.decode()
    return re.search(r'data-version="([\w-]+)"', html).group(1)


class Stream:
    """A Server-Sent Events stream read as a browser reads it (a thread reads its lines)."""

    def __init__(self, base_url: str, path: str, session: str | None) -> None:
        where = urlsplit(base_url)
        self.connection = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
        headers = {"Accept": "text/event-stream"}
        if session:
            headers["Cookie"] = f"{settings.SESSION_COOKIE_NAME}={session}"
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.connection.sock.settimeout(None)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while line := self.response.readline():
                self.lines.put(line.decode())
        except Exception:  # the stream was closed under the reader
            pass

    def announced(self, seconds: float):
        """The versions announced within ``seconds``, one by one as they come."""
        ends = time.monotonic() + seconds
        while (left := ends - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return
            if line.startswith("data: "):
                yield json.loads(line[6:])["version"]

    def events(self, seconds: float) -> list[str]:
        """The versions announced within ``seconds``."""
        return list(self.announced(seconds))

    def first(self, seconds: float) -> str | None:
        """The first version announced within ``seconds``, None if none was."""
        return next(self.announced(seconds), None)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


def session_of(client, user) -> str:
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def make_match(
    creator,
    *others,
    pace="rounds",
    seed=7,
    rated=True,
    removed=0,
    time_control="1h",
    private=False,
    **options,
):
    """A started NMBR 9 match: ``creator`` invites ``others``, who all accept."""
    match = services.create_match(
        creator,
        players=1 + len(others),
        time_control=time_control,
        rated=rated,
        options={"pace": pace, "removed": removed, **options},
        invite=[u.username for u in others],
        private=private,
        seed=seed,
    )
    for user in others:
        services.join(match.pk, user)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    return match


def seat_of(match, user) -> Seat:
    return Seat.objects.get(match=match, player=user)


def game_of(match) -> Game:
    """The match's game as it stands (the engine's state: tests may look at everything)."""
    match.refresh_from_db()
    return services.load(match).state


def ply_of(match, user) -> int:
    """How many moves ``user`` has made in the match: what their page drawn now would send
    with a move."""
    return Move.objects.filter(match=match, seat__player=user).count()


def choice(match, user):
    """The policy's placement of ``user``'s current tile, and the ply a page would know."""
    seat = seat_of(match, user)
    game = game_of(match)
    number = game.current_number(seat.index)
    assert number is not None, f"{user} has no tile to place"
    return choose(game.board(seat.index), number), ply_of(match, user)


def play(match, user):
    placement, ply = choice(match, user)
    return services.play(match.pk, user, f"place {placement}", ply)


def form_for(match, user) -> dict:
    """What the game page's Confirm form posts for the policy's placement of ``user``'s tile."""
    p, ply = choice(match, user)
    return {"number": p.number, "x": p.x, "y": p.y, "rotation": p.rotation, "ply": ply}


def make_due(seat) -> None:
    """Move the seat's deadline into the past, as if its time had run out."""
    Seat.objects.filter(pk=seat.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def play_to_end(match, users) -> None:
    """Everybody still in plays the policy's tile until the match is over."""
    for _ in range(200):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            return
        game = game_of(match)
        for user in users:
            if game.current_number(seat_of(match, user).index) is not None:
                play(match, user)
    raise AssertionError("the match did not end")


def drain(marker_player) -> None:
    """Wait until the worker has run every task sent so far to the default queue (it runs
    them in order).

    Tasks those tasks send are queued behind the marker: drain again to wait for them.
    """
    PlayerStats.objects.filter(player=marker_player).delete()
    # The marker goes to the default queue, behind the tasks to wait for (its own is the slow one)
    refresh_player_stats.apply_async((marker_player.pk,), queue=task_queue.queue_names()[0])
    wait_for(lambda: PlayerStats.objects.filter(player=marker_player).exists())


def lose_tasks(monkeypatch) -> list:
    """From now on, tasks sent after a commit are lost on their way to the broker."""
    lost = []
    monkeypatch.setattr(task_queue, "send_now", lambda task, *args: lost.append(task))
    return lost


def normalised(html: str, match: Match) -> str:
    html = html.replace(f"/game/{match.pk}/", "/game/N/")
    html = re.sub(rf"#{match.pk}(?![0-9a-f])", "#N", html)  # "Match #9", not a colour #9a6e3c
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    html = re.sub(r'"x-csrftoken": "[^"]+"', "", html)
    html = re.sub(r'nonce="[^"]+"', "", html)
    html = html.replace(f'data-match="{match.pk}"', 'data-match="N"')
    html = re.sub(r'data-(owes|now)="[^"]*"', r'data-\1=""', html)  # a deadline, a clock
    return re.sub(r"<time[^>]*>.*?</time>", "<time/>", html)


def nmbrs_match(creator, *others, target=100, rated=True, **options):
    match = services.create_match(
        creator,
        game="nmbrs",
        players=1 + len(others),
        time_control="1d",
        rated=rated,
        options={"target": target, **options},
        invite=[u.username for u in others],
        seed=11,
    )
    for user in others:
        services.join(match.pk, user)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    return match


def state(match):
    match.refresh_from_db()
    return services.load(match).state


def post(client, match, text: str):
    """What the page's form posts: the move, and how many moves its player had made."""
    ply = Move.objects.filter(match=match, seat__player_id=client.session["_auth_user_id"]).count()
    return client.post(reverse("play", args=[match.pk]), {"move": text, "ply": ply})


def play_to_the_end(client, match, users, limit=3000) -> None:
    """Every move through a post as the page's player, each the policy's choice."""
    for _ in range(limit):
        game = state(match)
        if game.over:
            return
        player = game.to_move
        client.force_login(users[player])
        assert (
            post(client, match, str(services.load(match).rules.auto_move(game, player))).status_code
            == 302
        )
    raise AssertionError("the match did not end")


class Forms(HTMLParser):
    """The forms of a page: action, hidden and visible fields, and data-* of the button."""

    def __init__(self, html: str):
        super().__init__()
        self.forms: list[dict] = []
        self._form: dict | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._form = {"action": a.get("action", ""), "fields": {}, "buttons": []}
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None and a.get("name"):
            self._form["fields"][a["name"]] = a.get("value", "")
        elif tag == "button" and self._form is not None:
            self._form["buttons"].append(a)

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None

    def find(self, marker: str) -> dict:
        for form in self.forms:
            if any(marker in button for button in form["buttons"]):
                return form
        raise AssertionError(f"no form with a button {marker}")


def start_solo(client, user, **options):
    client.force_login(user)
    data = {"pace": "rounds", "removed": "0", **options}
    response = client.post(reverse("new_solo"), data)
    assert response.status_code == 302, response.text
    return Match.objects.latest("id")


def a_turn_moving(game, player: int, tile):
    """A turn of ``player`` that moves ``tile`` elsewhere and then places the card's tile."""
    number = game.current_number(player)
    board = game.board(player).copy()
    board.remove(tile)
    for target in board.legal_placements(tile.number):
        if (target.x, target.y, target.rotation) == (tile.x, tile.y, tile.rotation):
            continue
        moved = board.copy()
        moved.place(target)
        for place in moved.legal_placements(number):
            turn = Turn.parse(f"move {tile} to {target}; place {place}")
            trial = copy.deepcopy(game)
            trial.play(player, turn)
            return turn, target
    raise AssertionError("no move turn found")


def start_solo_and_finish(player, seed: int = 12) -> Seat:
    match = services.start_solo(player, seed=seed)
    play_to_end(match, [player])
    return match.seats.get()


def counted_on_its_day(player, puzzle: Puzzle, score: int) -> bool:
    """An attempt at ``puzzle`` played on its day (set in the database), finished and
    counted for that day by the service that counts them."""
    puzzle = Puzzle.objects.get(pk=puzzle.pk)
    on_the_day = datetime.combine(puzzle.daily_on, time_of_day(12), UTC)
    match = Match.objects.create(
        kind=Match.Kind.PUZZLE,
        seed=1,
        created_by=player,
        daily=True,
        puzzle=puzzle,
        status=Match.Status.FINISHED,
        started=on_the_day,
        finished=on_the_day + timedelta(seconds=60),
    )
    return count_for_the_day(match, player.pk, score)


def make_puzzles(*seeds: int) -> list[Puzzle]:
    return [Puzzle.objects.create(seed=s, start=str(puzzle_deal(s).start)) for s in seeds]


def finish(match, player) -> Seat:
    """Play the policy's placements until the player's puzzle or challenge is over."""
    while True:
        seat = Seat.objects.get(match=match, player=player)
        game = services.load(match).state
        number = game.current_number(seat.index)
        if number is None:
            return seat
        p = choose(game.board(seat.index), number)
        services.play(match.pk, player, f"place {p}", Move.objects.filter(seat=seat).count())


def replay_steps(page: str) -> dict[str, list[tuple[str, str]]]:
    """Each player's steps in the round a replay shows: (notation on hover, words)."""
    turns = dict(re.findall(r'data-replay-turns="(\w+)">(.*?)</li>', page))
    step = re.compile(r'<span(?: title="([^"]*)" data-notation)? data-replay-step>(.*?)</span>')
    return {name: step.findall(html) for name, html in turns.items()}


def assert_limited_by_its_own_address(site: str) -> None:
    """A client that writes X-Forwarded-For itself is still counted by the address it comes
    from (30 guest games an hour): the web server takes no forwarded header on its own
    (uvicorn's default for 127.0.0.1), only the site does, behind its proxy
    (BEHIND_TLS_PROXY, the last address nginx appended)."""
    from http.cookiejar import CookieJar

    from django.urls import reverse

    jar = CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    browser.open(f"{site}/", timeout=5).read()
    answers = []
    for i in range(31):
        # signing the guest in gives a new token
        token = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
        request = urllib.request.Request(
            f"{site}{reverse('new_solo')}",
            data=b"",
            headers={
                "X-CSRFToken": token,
                "Referer": f"{site}/",
                "X-Forwarded-For": f"203.0.113.{i}",
                "X-Real-IP": f"203.0.113.{i}",
                "Forwarded": f"for=203.0.113.{i}",
            },
        )
        try:
            with browser.open(request, timeout=10) as answer:
                answers.append(answer.status)
        except urllib.error.HTTPError as error:
            answers.append(error.code)
    assert answers == [200] * 30 + [429], answers


def todays_daily() -> Puzzle:
    (puzzle,) = make_puzzles(4242)
    Puzzle.objects.filter(pk=puzzle.pk).update(daily_on=puzzles.today(), par=80)
    puzzle.refresh_from_db()
    return puzzle


def hidden(response) -> bool:
    return response.status_code == 403 and "data-hidden" in response.text


def challenge(alice, bob) -> Match:
    make_puzzles(601, 602, 603)
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    return puzzles.pick_challenge(offer.pk, alice, offer.first_id)


ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    unset = ("SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "SITE_URL")
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def wait_for(predicate, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("the worker did not do it in time")


# ----------------------------------------------------------------- games of the contract tests

#: The game packages made for the tests (``tests/race21``).
TEST_GAMES = ["tests.race21"]
#: The site's game packages, and with the tests' own: the contract tests run them all.
SITE_GAMES = list(settings.GAME_PACKAGES)
PACKAGES = [*SITE_GAMES, *TEST_GAMES]


def examples(package: str):
    """The examples of a game package (its module ``examples``: ``CASES``, ``posted_forms``)."""
    return importlib.import_module(f"{package}.examples")


#: (players, options) per game, from each game package's examples.
CASES: dict[str, list[tuple[int, dict]]] = {
    importlib.import_module(package).RULES.slug: examples(package).CASES for package in PACKAGES
}


def cases():
    for slug, entries in CASES.items():
        for players, options in entries:
            label = ",".join(f"{k}={v}" for k, v in sorted(options.items())) or "default"
            yield pytest.param(slug, players, options, id=f"{slug}-{players}p-{label}")


def finish_against_bot(match, player) -> None:
    """Play a game of NMBR 9 against a bot to its end: the fallback policy's turn for the
    player, the bots' moves made here rather than by the worker."""
    from games.nmbr9.policy import fallback_turn
    from games.services.match import bot_moves

    seat = seat_of(match, player)
    while Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE:
        bot_moves.play_bots(match.pk)
        game = game_of(match)
        if game.decision(seat.index) is not None:
            turn = fallback_turn(game, seat.index)
            services.play(match.pk, player, str(turn), ply_of(match, player))


def together(*calls):
    """Run the calls at the same moment in threads, each on its own connection; their
    results or the exceptions they raised, in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait()
            results[i] = call()
        except Exception as exc:  # returned to the test, which checks what it is
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


#: A phone's browser, as a push subscription names it.
CHROME_ON_ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)


def new_duplicate(creator, **settings) -> Tournament:
    fields = {
        "name": "Autumn cup",
        "game": "nmbr9",
        "games": 2,
        "window": "1d",
        "starts": timezone.now() + timedelta(hours=1),
        "open": True,
        **settings,
    }
    return tournaments.create(creator, **fields)


def started_duplicate(creator, *others, **settings) -> Tournament:
    tournament = new_duplicate(creator, **settings)
    for player in others:
        tournaments.join(tournament.pk, player)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert tournaments.start(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def pass_time(tournament, hours: float) -> None:
    """Move the tournament's windows into the past by ``hours``."""
    for deal in tournament.deals.all():
        Puzzle.objects.filter(pk=deal.pk).update(closes=deal.closes - timedelta(hours=hours))


def swiss_players(count: int) -> list[User]:
    return [
        User.objects.create_user(f"p{n}", f"p{n}@example.com", "pw-long-enough")
        for n in range(1, count + 1)
    ]


def new_swiss(creator, **settings) -> Tournament:
    fields = {
        "name": "Swiss cup",
        "rounds": 2,
        "table_size": 2,
        "pace": "1d",
        "starts": timezone.now() + timedelta(hours=1),
        "open": True,
        **settings,
    }
    return swiss_rounds.create(creator, **fields)


def started_swiss(entrants: list[User], **settings) -> Tournament:
    tournament = new_swiss(entrants[0], **settings)
    for player in entrants[1:]:
        tournaments.join(tournament.pk, player)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    assert swiss_rounds.start(tournament.pk)
    tournament.refresh_from_db()
    return tournament


def win_table(match: Match, winner: User | None = None) -> None:
    """Finish a table: everybody but ``winner`` (the first seat's player) resigns."""
    seats = list(Seat.objects.filter(match=match).select_related("player").order_by("index"))
    winner = winner or seats[0].player
    for seat in seats:
        if seat.player != winner:
            services.resign(match.pk, seat.player)


def add_device(service, user):
    device = service.device()
    push_devices.subscribe(user, device.json(), CHROME_ON_ANDROID)
    return device


def live_started(creator, *others, games: int = 1, speed: str = "15s") -> Tournament:
    """A live duplicate of ``creator`` with ``others`` entered, started and its first game
    dealt, as the clock does once its start is due."""
    tournament = live_duplicate.create(
        creator,
        name="Friday live",
        game="nmbr9",
        games=games,
        speed=speed,
        starts=timezone.now() + timedelta(minutes=5),
        open=True,
    )
    for player in others:
        tournaments.join(tournament.pk, player)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    done = live_duplicate.run_due()
    assert done["start"] == 1 and done["deal"] == 1
    tournament.refresh_from_db()
    return tournament


def break_over(tournament: Tournament) -> None:
    """The pause after a live duplicate's game is over: its next game dealt, as the clock
    does once it is due."""
    last = tournament.deals.order_by("-number").first()
    Puzzle.objects.filter(pk=last.pk).update(closes=last.closes - live_duplicate.BREAK)
    assert live_duplicate.run_due()["deal"] == 1
