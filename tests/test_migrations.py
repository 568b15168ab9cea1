"""Matches stored before games had a contract keep replaying exactly, and can be played on."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from games import services
from games.models import Match, Move, Rating, Seat
from games.nmbr9 import Game, Turn
from games.nmbr9.policy import choose
from games.nmbr9.puzzle import puzzle as puzzle_deal
from games.registry import puzzle_game, puzzle_rules

BEFORE = [("games", "0005_notifications_mail_and_leases")]

pytestmark = pytest.mark.django_db(transaction=True)


def apps_at(target):
    """The app registry as it was at ``target``; the latest schema is restored after."""
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(target)
    yield executor.loader.project_state(target).apps
    executor = MigrationExecutor(connection)
    executor.migrate(latest)


@pytest.fixture
def old_apps():
    """The app registry as it was before the contract."""
    yield from apps_at(BEFORE)


@pytest.fixture
def apps_with_read_moves():
    """The app registry as it was while read "your move" notifications were kept."""
    yield from apps_at([("games", "0016_profile_guest")])


def migrate_to_latest():
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _place(game: Game, player: int):
    """The policy's placement for ``player``'s current number, played on ``game``; the
    placement and the level it lands on."""
    placement = choose(game.board(player), game.current_number(player))
    level = game.board(player).level_of(placement)
    game.play(player, Turn.parse(f"place {placement}"))
    return placement, level


def test_old_matches_replay_exactly_and_go_on(old_apps):
    User = old_apps.get_model("auth", "User")
    OldMatch = old_apps.get_model("games", "Match")
    OldSeat = old_apps.get_model("games", "Seat")
    OldMove = old_apps.get_model("games", "Move")
    OldPuzzle = old_apps.get_model("games", "Puzzle")
    OldRating = old_apps.get_model("games", "Rating")
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="bob")

    # A two-player match in rounds, one card removed: three rounds, bob resigns, alice
    # plays two more rounds alone.
    match = OldMatch.objects.create(
        kind="match",
        pace="rounds",
        status="active",
        seed=4242,
        players=2,
        removed=1,
        rated=True,
        created_by=alice,
    )
    seats = [
        OldSeat.objects.create(match=match, player=alice, index=0),
        OldSeat.objects.create(match=match, player=bob, index=1),
    ]
    game = Game(2, seed=4242, pace="rounds", removed=1)
    expected = Game(2, seed=4242, pace="rounds", removed=1)
    moves = []

    def place(player: int, round: int) -> None:
        placement, level = _place(game, player)
        expected.play(player, Turn.parse(f"place {placement}"))
        OldMove.objects.create(
            seat=seats[player],
            round=round,
            number=placement.number,
            x=placement.x,
            y=placement.y,
            rotation=placement.rotation,
            level=level,
        )
        moves.append((player, f"place {placement}"))

    for round in (1, 2, 3):
        place(0, round)
        place(1, round)
    expected.resign(1)
    game.resign(1)
    moves.append((1, "leave"))
    for round in (4, 5):
        place(0, round)
    OldSeat.objects.filter(pk=seats[0].pk).update(placed=5, score=game.score(0))
    OldSeat.objects.filter(pk=seats[1].pk).update(
        placed=3, score=game.score(1), state="resigned", left_after=6
    )

    # A puzzle attempt: the start tile was stored as the move of round 1.
    deal = puzzle_deal(77)
    puzzle = OldPuzzle.objects.create(seed=77, start=str(deal.start))
    attempt = OldMatch.objects.create(
        kind="puzzle",
        pace="free",
        status="active",
        seed=77,
        players=1,
        puzzle=puzzle,
        created_by=alice,
    )
    seat = OldSeat.objects.create(match=attempt, player=alice, index=0)
    solo = Game(1, seed=77, pace="free")
    solo_moves = []
    for round in range(1, 5):
        if round == 1:
            placement, level = deal.start, 0
            solo.play(0, Turn.parse(f"place {placement}"))
        else:
            placement, level = _place(solo, 0)
            solo_moves.append((0, f"place {placement}"))
        OldMove.objects.create(
            seat=seat,
            round=round,
            number=placement.number,
            x=placement.x,
            y=placement.y,
            rotation=placement.rotation,
            level=level,
        )
    OldSeat.objects.filter(pk=seat.pk).update(placed=4, score=solo.score(0))
    OldRating.objects.create(player=alice, pool="match", value=1612.5, games=3)

    migrate_to_latest()

    match = Match.objects.get(pk=match.pk)
    assert match.game == "nmbr9"
    assert match.options == {"pace": "rounds", "removed": 1}
    stored = [(m.seat.index, m.text) for m in Move.objects.filter(match=match).order_by("ply")]
    assert stored == moves
    record = services.load(match)
    assert record.rules.dump(record.state) == record.rules.dump(expected)
    alice_seat, bob_seat = Seat.objects.filter(match=match).order_by("index")
    assert (alice_seat.progress, bob_seat.progress) == (5, 3)
    assert record.rules.to_move(record.state) == frozenset({0})

    # The match goes on: alice's sixth round through the service, as from her page.
    text = f"place {choose(expected.board(0), expected.current_number(0))}"
    services.play(match.pk, alice_seat.player, text, record.made_by(alice_seat))
    assert Move.objects.filter(match=match).count() == len(moves) + 1
    alice_seat.refresh_from_db()
    assert alice_seat.progress == 6

    attempt = Match.objects.get(pk=attempt.pk)
    assert attempt.options == {"pace": "free", "removed": 0, "puzzle": True}
    assert [(m.seat.index, m.text) for m in attempt.moves.order_by("ply")] == solo_moves
    record = services.load(attempt)
    assert record.state.board(0).placements == solo.board(0).placements
    assert record.rules.score(record.state, 0) == solo.score(0)
    assert attempt.seats.get().progress == 4

    rating = Rating.objects.get(player__username="alice")
    assert (rating.game, rating.pool, rating.value, rating.games) == ("nmbr9", "match", 1612.5, 3)
    assert puzzle_rules(puzzle_game()).puzzle_start(77) == attempt.puzzle.start


def test_move_notifications_are_cut_to_the_one_owed_per_player_and_match(apps_with_read_moves):
    from datetime import timedelta

    from django.db import IntegrityError, transaction
    from django.utils import timezone

    from games.models import Notification

    apps = apps_with_read_moves
    User = apps.get_model("auth", "User")
    OldMatch = apps.get_model("games", "Match")
    OldSeat = apps.get_model("games", "Seat")
    OldNotification = apps.get_model("games", "Notification")
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="bob")
    now = timezone.now()
    running, over = (
        OldMatch.objects.create(kind="match", status=status, seed=1, players=2, created_by=alice)
        for status in ("active", "finished")
    )
    OldSeat.objects.create(match=running, player=alice, index=0, deadline=now + timedelta(days=1))
    OldSeat.objects.create(match=running, player=bob, index=1)  # waiting for alice
    OldSeat.objects.create(match=over, player=alice, index=0)
    OldSeat.objects.create(match=over, player=bob, index=1)

    def notify(player, match, minutes: int, *, kind="move", read=True):
        return OldNotification.objects.create(
            player=player,
            match=match,
            kind=kind,
            read=read,
            text=f"Your move in Match #{match.pk}.",
            created=now - timedelta(minutes=minutes),
        )

    for minutes in range(10, 40):  # a pile of read ones, as a long match left them
        notify(alice, running, minutes)
        notify(bob, running, minutes)
        notify(alice, over, minutes)
    newest = notify(alice, running, 5, read=False)
    news = notify(alice, over, 1, kind="info", read=False)

    migrate_to_latest()

    moves = Notification.objects.filter(kind="move")
    assert list(moves.values_list("pk", "read")) == [(newest.pk, False)]
    assert Notification.objects.filter(kind="info").get().pk == news.pk
    with pytest.raises(IntegrityError), transaction.atomic():  # read or not: one at most
        Notification.objects.create(
            player_id=alice.pk, match_id=running.pk, kind="move", read=True, text="Again."
        )


@pytest.fixture
def apps_before_the_infra_package():
    """The app registry as it was while the site's backend was games.backends.Accounts."""
    yield from apps_at([("games", "0034_count_profile_figures")])


def test_sessions_signed_in_before_the_backend_moved_stay_signed_in(
    apps_before_the_infra_package, client, settings
):
    from importlib import import_module

    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.urls import reverse

    store = import_module(settings.SESSION_ENGINE).SessionStore

    def signed_in(user, backend: str) -> str:
        session = store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = backend
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        return session.session_key

    alice = User.objects.create_user("alice", password="a long password of hers")
    bob = User.objects.create_user("bob", password="a long password of his")
    old = signed_in(alice, "games.backends.Accounts")
    django_s = signed_in(bob, "django.contrib.auth.backends.ModelBackend")

    migrate_to_latest()

    assert store(old).load()[BACKEND_SESSION_KEY] == "games.infra.backends.Accounts"
    assert store(django_s).load()[BACKEND_SESSION_KEY] == (
        "django.contrib.auth.backends.ModelBackend"
    )
    client.cookies[settings.SESSION_COOKIE_NAME] = old
    assert client.get(reverse("settings")).status_code == 200


@pytest.fixture
def apps_with_worded_notifications():
    """The app registry as it was while notifications were kept as finished words."""
    yield from apps_at([("games", "0037_figures_per_game")])


def test_notifications_kept_as_words_are_read_as_they_were_written(
    apps_with_worded_notifications, client
):
    from django.contrib.auth.models import User as Current

    from games import notices
    from games.models import Notification

    apps = apps_with_worded_notifications
    User = apps.get_model("auth", "User")
    OldNotification = apps.get_model("games", "Notification")
    alice = User.objects.create(username="alice")
    old = OldNotification.objects.create(player=alice, text="bob folgt dir.")

    migrate_to_latest()

    kept = Notification.objects.get(pk=old.pk)
    assert (kept.text, kept.message, kept.params) == ("bob folgt dir.", "", {})
    assert [n.said for n in notices.say_all([kept])] == ["bob folgt dir."]
    client.force_login(Current.objects.get(pk=alice.pk))
    page = client.get(reverse("notifications"), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200 and "bob folgt dir." in page.text
