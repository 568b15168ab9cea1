"""The unit of work: one write path for every change to a match, its events handed to
subscribers after commit (or with the change), never for a change rolled back; and no other
code that locks a match or writes a change by hand."""

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone
from prometheus_client import REGISTRY

from games import services
from games.models import Match, Move, Seat
from games.services.features import chat_rooms
from games.services.match import bus, unit
from tests.factories import make_match, play, said, seat_of

GAMES = Path(__file__).resolve().parent.parent / "games"


# ------------------------------------------------------------------ nobody else writes a change


def _modules():
    for path in sorted(GAMES.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        yield path.relative_to(GAMES.parent).as_posix(), ast.parse(path.read_text())


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return "?"


UNIT = "games/services/match/unit.py"
KEPT = (
    "games/services/match/unit.py",
    "games/services/match/kept.py",
    "games/services/match/writes.py",
)


def _hand_written(name: str, tree) -> list[str]:
    """Where module ``name`` does a part of the unit of work's sequence itself: locks a match,
    reads a match to change it, collects or writes a change's writes, stores a move."""
    stored_moves = any(
        isinstance(node, ast.ImportFrom)
        and node.module in ("games.models", "games.models.matches")
        and any(alias.name == "Move" for alias in node.names)
        for node in ast.walk(tree)
    )
    found = []
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', '?')}"
        imported = node.names if isinstance(node, ast.ImportFrom) else ()
        writes = getattr(node, "module", "") == "games.services.match.writes"
        if writes and name != UNIT and any(alias.name == "Writes" for alias in imported):
            found.append(f"{where} imports Writes")
        if not isinstance(node, ast.Call):
            continue
        called = _dotted(node.func)
        last = called.rsplit(".", 1)[-1]
        locks = name not in KEPT[:2]  # the unit, and the reads it locks with
        if locks and called.endswith(".select_for_update") and "Match.objects" in called:
            found.append(f"{where} locks a match ({called})")
        prepared = called == "Prepared" and node.args and _dotted(node.args[0]) == "Match"
        if locks and prepared and any(keyword.arg == "for_update" for keyword in node.keywords):
            found.append(f"{where} locks a match (a prepared read)")
        if last in {"lock", "lock_many", "locked", "record_of"} and name not in KEPT[:2]:
            found.append(f"{where} reads a match to change it ({called})")
        if last == "Writes" and name != UNIT:
            found.append(f"{where} collects a change's writes ({called})")
        moves = {"Move", "Move.objects.create", "Move.objects.bulk_create"}
        if stored_moves and called in moves and name != "games/services/match/writes.py":
            found.append(f"{where} stores a move ({called})")
        writing = {"keep_state", "keep_versions", "write", "write_versions", "store"}
        if last in writing and "kept" in called and name not in KEPT:
            found.append(f"{where} writes a kept state ({called})")
    return found


def test_no_code_but_the_unit_of_work_locks_a_match_or_writes_a_change():
    found = [line for name, tree in _modules() for line in _hand_written(name, tree)]
    assert found == []


def test_the_check_finds_a_change_written_by_hand():
    """The check above is not blind: the sequence as services wrote it before finds it."""
    written_by_hand = ast.parse(
        "from games.models import Move\n"
        "def resign(match_id, user):\n"
        "    with transaction.atomic():\n"
        "        record = kept.lock(match_id)\n"
        "        match = Match.objects.select_for_update().get(pk=match_id)\n"
        "        writes = Writes()\n"
        "        Move.objects.create(match=match, ply=1, seat=None, text='leave')\n"
        "        kept.write([])\n"
    )
    found = _hand_written("games/services/elsewhere.py", written_by_hand)
    assert len(found) == 5, found


# ------------------------------------------------------------------ events


class Heard:
    """A subscriber that notes every event it is handed, with whether the change that
    recorded it had committed by then."""

    def __init__(self, with_change: bool = False) -> None:
        self.events: list[bus.Event] = []
        self.committed: list[bool] = []
        self.with_change = with_change

    def __call__(self, events, writes=None) -> None:
        self.events.extend(events)
        self.committed.extend([not connection.in_atomic_block] * len(events))

    def kinds(self) -> list[str]:
        return [event.kind for event in self.events]

    def take(self) -> list[str]:
        kinds = self.kinds()
        self.events.clear()
        self.committed.clear()
        return kinds


@pytest.fixture
def heard():
    listener = Heard()
    unsubscribe = bus.subscribe(listener)
    yield listener
    unsubscribe()


@pytest.mark.django_db(transaction=True)
def test_a_subscriber_hears_every_kind_of_event_once_after_commit(heard, alice, bob, carol):
    # an invitation, then a seat taken, the match begun, each player's turn
    match = services.create_match(
        alice, players=2, time_control="1h", rated=True, options={}, invite=["bob"], seed=7
    )
    assert heard.take() == ["PlayerInvited"]
    services.join(match.pk, bob)
    taken = heard.kinds()
    assert taken[:2] == ["PlayerJoined", "MatchStarted"]
    assert taken.count("TurnStarted") == 2 and taken[-1] == "ReadersChanged"
    joined = heard.events[0]
    assert joined.seat.player_id == bob.pk and joined.match.pk == match.pk
    heard.take()

    # a move: made, its turn over, the pages that show it changed
    play(match, alice)
    assert heard.kinds() == ["MoveMade", "TurnEnded", "ReadersChanged"]
    made = heard.events[0]
    assert made.seat.player_id == alice.pk and made.ply == 0 and not made.auto
    assert all(heard.committed)
    heard.take()

    # more time, the 80% reminder, the deadline passing
    services.extend(match.pk, bob)
    assert heard.take() == ["DeadlineExtended"]
    Seat.objects.filter(pk=seat_of(match, bob).pk).update(remind_at=timezone.now())
    assert services.remind(seat_of(match, bob).pk)
    assert heard.take() == ["Reminded"]
    Seat.objects.filter(pk=seat_of(match, bob).pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    assert services.expire(seat_of(match, bob).pk)
    expired = heard.kinds()
    assert expired[:2] == ["MoveMade", "SeatExpired"] and heard.events[0].auto
    assert expired.count("TurnStarted") == 2 and expired[-1] == "ReadersChanged"
    heard.take()

    # a chat message; somebody leaves, which ends a match of two
    chat_rooms.post(match.pk, bob, "well played")
    assert heard.take() == ["ChatPosted"]
    services.resign(match.pk, alice)
    left = heard.take()
    assert left[:2] == ["MoveMade", "PlayerLeft"] and "ReadersChanged" in left
    assert "MatchFinished" in left

    # a match called off, a commitment, a bot that owes its move, an end
    waiting = services.create_match(
        carol, players=3, time_control="1d", rated=False, options={}, invite=[], open=True
    )
    heard.take()
    services.cancel(waiting.pk, carol)
    assert heard.take() == ["MatchCancelled", "ReadersChanged"]
    plus = make_match(alice, bob, variant="two_of_three", seed=3)
    heard.take()
    services.commit(plus.pk, alice, "build", 0)
    assert heard.take() == ["Committed", "ReadersChanged"]
    services.start_against_bot(carol, "easy")
    assert "BotsOwe" in heard.take()
    solo = services.start_solo(carol, seed=5)
    assert heard.take() == ["MatchStarted"]
    for _ in range(20):
        play(solo, carol)
    assert heard.kinds().count("MoveMade") == 20 and heard.kinds()[-1] == "MatchFinished"
    assert heard.events[-1].seats[0].score == Seat.objects.get(match=solo).score

    assert {kind.__name__ for kind in bus.KINDS} <= {
        "PlayerInvited", "PlayerJoined", "MatchStarted", "MoveMade", "TurnStarted", "TurnEnded",
        "SeatExpired", "PlayerLeft", "MatchFinished", "MatchCancelled", "DeadlineExtended",
        "Committed", "Reminded", "BotsOwe", "ReadersChanged", "ChatPosted",
    }  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_events_are_handed_on_only_once_the_change_committed(heard, alice, bob):
    """In the subscriber, the change is in the database for everybody; a move's events are
    handed on once, a change rolled back or refused hands on none."""
    match = make_match(alice, bob, pace="free")
    heard.take()
    seen_moves = []
    unsubscribe = bus.subscribe(lambda events: seen_moves.append(Move.objects.count()))
    try:
        play(match, alice)
    finally:
        unsubscribe()
    assert seen_moves == [1] and heard.committed == [True] * len(heard.events)
    heard.take()

    with pytest.raises(RuntimeError), unit.change(match.pk) as change:
        change.emit(bus.MatchStarted(change.match))
        raise RuntimeError("changed my mind")
    with pytest.raises(services.MoveRefused):
        services.play(match.pk, bob, "place 9@40,40r0", 0)
    assert heard.events == [] and Move.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_subscriber_with_the_change_writes_in_its_transaction(alice, bob):
    """A subscriber with the change is handed the events before the commit, and what it
    writes is written with the change."""
    match = make_match(alice, bob, pace="free")
    heard = Heard()

    def note(events, writes):
        heard(events)
        for event in events:
            if isinstance(event, bus.MoveMade):
                writes.notify(event.seat.player_id, event.match, "Noted: %(ply)s", ply=event.ply)

    unsubscribe = bus.subscribe(note, with_change=True)
    try:
        play(match, alice)
    finally:
        unsubscribe()
    assert "MoveMade" in heard.kinds() and heard.committed == [False] * len(heard.events)
    assert said(player=alice).count("Noted: 0") == 1


@pytest.mark.django_db(transaction=True)
def test_a_failing_subscriber_is_logged_and_counted_and_the_move_stands(alice, bob, caplog):
    match = make_match(alice, bob, pace="free")

    def failed(name: str) -> float:
        counted = REGISTRY.get_sample_value(
            "nmbr9site_subscriber_failures_total", {"subscriber": name}
        )
        return counted or 0.0

    def broken_after(events):
        raise RuntimeError("after")

    def broken_with(events, writes):
        writes.notify(alice.pk, None, "never written")
        raise RuntimeError("with")

    names = [f"{__name__}.{f.__qualname__}" for f in (broken_after, broken_with)]
    before = [failed(name) for name in names]
    stops = [bus.subscribe(broken_after), bus.subscribe(broken_with, with_change=True)]
    try:
        view = play(match, alice)
    finally:
        for stop in stops:
            stop()
    assert view.ply == 1 and Move.objects.filter(match=match).count() == 1
    assert "never written" not in said()
    assert [failed(name) for name in names] == [b + 1 for b in before]
    assert "failed; the change stands" in caplog.text
    # the site's own subscribers were not held up: the other player's page was told
    assert Seat.objects.get(match=match, player=alice).mail_at is None


@pytest.mark.django_db(transaction=True)
def test_a_match_whose_expiry_fails_leaves_no_event(heard, alice, bob, carol, monkeypatch):
    """A batch of expiries is one change of many matches: one that fails hands on nothing,
    the others their events."""
    from games.services.match import deadlines

    broken = make_match(alice, bob, pace="free", seed=3)
    fine = make_match(carol, alice, pace="free", seed=4)
    heard.take()
    for seat in [*broken.seats.all(), *fine.seats.all()]:
        Seat.objects.filter(pk=seat.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    original = deadlines._expire_seat

    def expire(change, seat, now):
        if change.match.pk == broken.pk:
            raise RuntimeError("broken")
        return original(change, seat, now)

    monkeypatch.setattr(deadlines, "_expire_seat", expire)
    assert services.expire_many([s.pk for m in (broken, fine) for s in m.seats.all()]) == 2
    assert {event.match.pk for event in heard.events} == {fine.pk}
    assert Match.objects.get(pk=broken.pk).status == Match.Status.ACTIVE


# ------------------------------------------------------------------ what readers saw, kept


def assert_versions_kept(match) -> None:
    """The versions kept with the match's state are those of each reader's page now."""
    import json

    from games.models import MatchState
    from games.services.match import versions
    from games.services.match.record import moves_of, replay, seats_of

    match.refresh_from_db()
    kept = MatchState.objects.get(match=match)
    replayed = replay(match, seats_of(match), moves_of(match))
    assert kept.ply == replayed.ply
    assert json.loads(kept.versions) == versions.versions(replayed)


@pytest.mark.django_db(transaction=True)
def test_every_change_keeps_the_version_each_reader_sees(alice, bob, carol):
    """Worked out once per change and kept: whatever the change, the versions kept are what
    a page would be drawn with now (so a poll or a stream compares with them)."""
    match = services.create_match(
        alice, players=3, time_control="1h", rated=True, options={}, invite=["bob"], open=True
    )
    assert_versions_kept(match)
    services.join(match.pk, bob)
    assert_versions_kept(match)
    services.join(match.pk, carol)
    assert_versions_kept(match)
    play(match, alice)
    assert_versions_kept(match)
    services.extend(match.pk, bob)
    assert_versions_kept(match)
    Seat.objects.filter(match=match, player=carol).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    services.expire(seat_of(match, carol).pk)
    assert_versions_kept(match)
    services.resign(match.pk, bob)
    assert_versions_kept(match)
    plus = make_match(alice, bob, variant="two_of_three", seed=3)
    services.commit(plus.pk, alice, "build", 0)
    assert_versions_kept(plus)


def test_a_batch_leaves_each_record_with_its_own_readers_versions(alice, bob, carol):
    """A change of many matches at once (the deadlines' expiry) leaves each match's record
    with what its own readers see, never another match's."""
    from games.services.match import versions

    first = make_match(alice, bob, pace="free", seed=3)
    second = make_match(carol, alice, pace="free", seed=4)
    play(first, alice)  # the two matches look different to their readers
    records = []

    def touch(change):
        change.record.state = change.record.rules.leave(change.record.state, 1)
        records.append(change.record)
        return 1

    assert unit.each([first.pk, second.pk], touch) == 2
    assert [r.match.pk for r in records] == [first.pk, second.pk]
    # What a page drawn from the record says its reader saw (``MatchView.known_version``)...
    left = [r.versions for r in records]
    for record in records:
        record.versions = None
    # ... is what its readers see, worked out afresh.
    own = [versions.versions(r) for r in records]
    assert own[0] != own[1]
    assert left == own


# ------------------------------------------------------------------ queries


def _queries(client, method: str, url: str, data=None, **headers) -> list[str]:
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as done:
        answer = getattr(client, method)(url, data or {}, **headers)
    assert answer.status_code == 200, answer.content[:300]
    return [query["sql"] for query in done]


def _read_and_move(client, match, user) -> tuple[int, int, int]:
    """The queries of the page, a preview and a placement of ``user`` in ``match``."""
    from django.urls import reverse

    from tests.factories import form_for

    client.force_login(user)
    url = match.get_absolute_url()
    page = _queries(client, "get", url)
    form = form_for(match, user)
    spot = {"x": form["x"] + 1, "y": form["y"], "rotation": form["rotation"]}
    preview = _queries(client, "get", url, spot, HTTP_HX_REQUEST="true")
    placed = _queries(
        client, "post", reverse("play", args=[match.pk]), form, HTTP_HX_REQUEST="true"
    )
    return len(page), len(preview), len(placed)


@pytest.mark.django_db
def test_queries_stay_the_same_however_many_moves_and_players(client, django_user_model):
    """A page, a preview and a placement ask the database as many questions in a match of
    two at its first tile as in a match of six at its fifteenth."""
    users = [django_user_model.objects.create_user(f"p{i}", f"p{i}@example.com") for i in range(6)]
    small = make_match(users[0], users[1], pace="free", seed=1)
    large = make_match(*users, pace="free", seed=2)
    for _ in range(14):
        for user in users:
            play(large, user)
    counted = {}
    for match in (small, large):
        _read_and_move(client, match, users[0])  # the first visit also notes who is here
        counted[match.pk] = _read_and_move(client, match, users[0])
    assert counted[small.pk] == counted[large.pk]
