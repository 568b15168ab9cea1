"""Costs that do not grow with the history: the sweep reads each kind of due work from an
index holding only what may be due, a finished seat owes nothing, and old notifications are
forgotten."""

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games import tasks
from games.infra import sweep
from games.models import Match, Notification, Seat
from games.services.features import retention, watching
from games.services.match.finish import refresh_player_stats
from games.services.match.play import owed_match_ids
from tests.factories import make_match, play

pytestmark = pytest.mark.django_db


#: The tables whose indexes the plans below may choose from.
TABLES = ("games_match", "games_seat", "games_notification", "games_rating", "auth_user")


def explained(sql: str, params, index: str) -> str:
    """PostgreSQL's plan for ``sql`` with no sequential scan and, of the tables' plain
    indexes, ``index`` alone (the others dropped in a savepoint rolled back after): whether
    the query can be answered from that index, whatever the statistics of the moment."""
    with transaction.atomic(), connection.cursor() as cursor:
        for table in TABLES:
            for name, about in connection.introspection.get_constraints(cursor, table).items():
                plain = about["index"] and not about["unique"] and not about["primary_key"]
                if plain and name != index:
                    cursor.execute(f'DROP INDEX "{name}"')
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        found = "\n".join(row[0] for row in cursor.fetchall())
        transaction.set_rollback(True)
    return found


def plan(queryset, index: str) -> str:
    sql, params = queryset.query.sql_with_params()
    return explained(sql, params, index)


def first_query(call) -> tuple[str, list]:
    """The SQL and parameters of the first query ``call()`` makes."""
    captured = []

    def capture(execute, sql, params, many, context):
        captured.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        call()
    return captured[0]


def owed_plan(player) -> str:
    return explained(*first_query(lambda: owed_match_ids(player)), "seats_owing")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_each_query_of_the_sweep_reads_an_index_of_what_may_be_due(alice):
    now = timezone.now()
    queries = {
        "unrated_matches": Match.objects.filter(
            status=Match.Status.FINISHED, rated=True, rated_at=None
        ).order_by("finished"),
        "unweighed_attempts": Match.objects.filter(
            kind=Match.Kind.PUZZLE, status=Match.Status.FINISHED, puzzle_rated_at=None
        ).order_by("finished", "id"),
        "finished_games": Seat.objects.filter(
            match__kind__in=[Match.Kind.SOLO, Match.Kind.MATCH],
            match__status=Match.Status.FINISHED,
            match__finished__gte=now - sweep.STATS_WINDOW,
        ),
        "reminders_due": Seat.objects.filter(remind_at__lte=now, reminded=False, deadline__gt=now),
        "read_notices": Notification.objects.filter(
            read=True, created__lt=now - retention.READ_KEPT
        ),
    }
    for index, queryset in queries.items():
        assert index in plan(queryset, index), (index, plan(queryset, index))
    assert "seats_owing" in owed_plan(alice)
    recent = Seat.objects.filter(player=alice, finished__isnull=False).order_by("-finished")
    assert "finished_seats" in plan(recent[:20], "finished_seats")
    unfinished = Seat.objects.filter(player=alice, finished=None)
    assert "unfinished_seats" in plan(unfinished, "unfinished_seats")
    under_way = first_query(lambda: watching.current_games(alice, alice))
    assert "unfinished_seats" in explained(*under_way, "unfinished_seats")


def test_a_finished_seat_owes_nothing(transactional_db, alice, bob):
    match = make_match(alice, bob, pace="rounds", time_control="1d")
    assert Seat.objects.filter(match=match).exclude(turn=None).exists()
    while Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE:
        for user in (alice, bob):
            if Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE:
                play(match, user)
    seats = Seat.objects.filter(match=match)
    assert {(s.deadline, s.turn, s.remind_at) for s in seats} == {(None, None, None)}
    finished = Match.objects.get(pk=match.pk).finished
    assert {s.finished for s in seats} == {finished}  # lists of a player's games read it
    assert owed_match_ids(alice) == owed_match_ids(bob) == []


def test_a_lost_stats_task_is_caught_from_the_games_finished_lately(alice):
    from games.services import start_solo

    now = timezone.now()
    solo = start_solo(alice, seed=3)
    Match.objects.filter(pk=solo.pk).update(
        status=Match.Status.FINISHED, finished=now - timedelta(hours=1)
    )
    assert sweep.stale_stats(now=now) == [alice.pk]
    Match.objects.filter(pk=solo.pk).update(finished=now - sweep.STATS_WINDOW * 2)
    assert sweep.stale_stats(now=now) == []  # played long ago: its task was sent then


def test_a_lost_stats_task_of_a_match_is_caught_too(alice, bob):
    now = timezone.now()
    match = make_match(alice, bob)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, finished=now - timedelta(hours=1)
    )
    assert sorted(sweep.stale_stats(now=now)) == sorted([alice.pk, bob.pk])
    for player in (alice, bob):
        refresh_player_stats(player.pk)
    assert sweep.stale_stats(now=now) == []


def test_the_profile_reads_the_figures_kept_as_games_end(client, transactional_db, alice, bob):
    from django.urls import reverse

    from games.models import PlayerStats
    from tests.factories import start_solo_and_finish

    match = make_match(alice, bob)
    while Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE:
        for user in (alice, bob):
            if Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE:
                play(match, user)
    solo = [start_solo_and_finish(alice, seed=seed) for seed in (12, 13, 12)]
    best = max(s.score for s in solo)
    first_best = next(s for s in solo if s.score == best)  # in the order they were played
    (stats,) = refresh_player_stats(alice.pk)  # the one game played: NMBR 9
    seat = Seat.objects.get(match=match, player=alice)
    assert (stats.match_games, stats.match_wins, stats.match_average) == (
        1,
        int(seat.rank == 1),
        seat.score,
    )
    assert (stats.solo_games, stats.solo_best, stats.solo_best_match_id) == (
        3,
        best,
        first_best.match_id,
    )
    page = client.get(reverse("profile", args=["alice"])).text
    assert 'data-stat="matches">1<' in page
    assert f'data-stat="wins">{stats.match_wins}<' in page
    assert reverse("replay", args=[first_best.match_id]) in page
    # What the profile shows is what was kept, not counted again from every game.
    PlayerStats.objects.filter(player=alice).update(match_games=41, match_wins=17)
    page = client.get(reverse("profile", args=["alice"])).text
    assert 'data-stat="matches">41<' in page and 'data-stat="wins">17<' in page


def test_the_sweep_forgets_old_notifications(alice, celery_worker):
    now = timezone.now()
    ages = {
        "read long ago": (True, retention.READ_KEPT + timedelta(days=1)),
        "read lately": (True, retention.READ_KEPT - timedelta(days=1)),
        "unread a while": (False, retention.READ_KEPT + timedelta(days=1)),
        "unread too long": (False, retention.KEPT + timedelta(days=1)),
    }
    for text, (read, age) in ages.items():
        Notification.objects.create(player=alice, text=text, read=read, created=now - age)
    assert tasks.sweep()["notifications_removed"] == 2
    kept = set(Notification.objects.values_list("text", flat=True))
    assert kept == {"read lately", "unread a while"}


def test_old_notifications_go_a_batch_at_a_time(alice, monkeypatch):
    monkeypatch.setattr(retention, "BATCH", 3)
    old = timezone.now() - retention.KEPT - timedelta(days=1)
    Notification.objects.bulk_create(
        Notification(player=alice, text=str(i), read=i % 2 == 0, created=old) for i in range(7)
    )
    assert [retention.prune_notifications() for _ in range(4)] == [3, 3, 1, 0]
    assert not Notification.objects.exists()


def test_the_streak_board_reads_the_runs_kept_as_results_are_counted(alice, bob):
    from games.models import Profile
    from games.services.features import boards, puzzles
    from tests.factories import counted_on_its_day, make_puzzles

    today = puzzles.today()
    days = make_puzzles(61, 62, 63, 64)
    for back, puzzle in enumerate(days):
        type(puzzle).objects.filter(pk=puzzle.pk).update(daily_on=today - timedelta(days=back))
    # alice: the last three days; bob: four days ago and yesterday (a gap)
    for player, backs in ((alice, (2, 1, 0)), (bob, (3, 1))):
        for back in backs:
            assert counted_on_its_day(player, days[back], 40)
    assert [(row.player.username, row.value) for row in boards._streaks()] == [
        ("alice", "3"),
        ("bob", "1"),
    ]
    assert Profile.objects.get(player=alice).daily_streak == puzzles.streak(alice) == 3
    assert Profile.objects.get(player=bob).daily_streak == puzzles.streak(bob) == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_the_player_search_reads_its_pattern_index(alice):
    from django.contrib.auth.models import User
    from django.db.models.functions import Lower

    found = User.objects.alias(lower=Lower("username")).filter(lower__startswith="ali")
    assert "players_by_lower_name" in plan(found, "players_by_lower_name")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_a_rating_list_reads_its_index_highest_first(alice):
    from games.registry import default_game
    from games.services.features import boards

    board = boards.find("", default_game(), "match")
    query = first_query(lambda: boards.rows(board))
    assert "rating_board" in explained(*query, "rating_board")


def test_the_solo_board_reads_the_best_scores_kept_as_games_end(client, alice, bob):
    from django.urls import reverse

    from games.models import SoloBest
    from games.registry import puzzle_game
    from games.services.features import boards
    from tests.factories import start_solo_and_finish

    first = start_solo_and_finish(alice, seed=12)
    again = start_solo_and_finish(alice, seed=12)  # the same score later: the first stands
    other = start_solo_and_finish(bob, seed=13)
    kept = {b.player_id: (b.score, b.match_id) for b in SoloBest.objects.filter(game=puzzle_game())}
    assert again.score == first.score
    assert kept == {alice.pk: (first.score, first.match_id), bob.pk: (other.score, other.match_id)}
    board = boards.find(boards.SOLO, puzzle_game(), "")
    shown = [(row.player.username, row.value, row.match_id) for row in boards.rows(board)]
    expected = sorted(
        [("alice", str(first.score), first.match_id), ("bob", str(other.score), other.match_id)],
        key=lambda row: (-int(row[1]), row[0] != "alice"),
    )
    assert shown == expected
    page = client.get(reverse("leaderboard"), {"board": "solo", "game": puzzle_game()}).text
    assert reverse("replay", args=[first.match_id]) in page


def test_a_guests_best_solo_score_goes_with_their_games_to_their_account(client):
    from django.contrib.auth.models import User
    from django.urls import reverse

    from games.models import SoloBest

    assert client.post(reverse("new_solo")).status_code == 302
    guest = User.objects.get()
    match = Match.objects.get()
    from tests.factories import play_to_end

    play_to_end(match, [guest])
    assert SoloBest.objects.filter(player=guest).exists()
    account = User.objects.create_user("dora", "dora@example.com", "a-Long-pa55word")
    from games.services.features import guests

    assert guests.adopt(guest.pk, account)
    best = SoloBest.objects.get(player=account)
    assert best.match_id == match.pk


def test_the_sweep_drops_the_kept_states_of_matches_long_over(transactional_db, alice, bob):
    from games import services
    from games.models import MatchState

    old = make_match(alice, bob, pace="rounds", time_control="1d")
    recent = make_match(alice, bob, pace="rounds", time_control="1d", seed=8)
    running = make_match(alice, bob, pace="rounds", time_control="1d", seed=9)
    for match in (old, recent, running):
        play(match, alice)
    long_ago = timezone.now() - retention.STATES_KEPT - timedelta(days=1)
    Match.objects.filter(pk=old.pk).update(status=Match.Status.FINISHED, finished=long_ago)
    Match.objects.filter(pk=recent.pk).update(status=Match.Status.FINISHED, finished=timezone.now())
    assert retention.prune_states() == 1
    kept = set(MatchState.objects.values_list("match_id", flat=True))
    assert kept == {recent.pk, running.pk}
    # looked at again, the old match is rebuilt from its moves
    assert services.view_match(old.pk, alice).match.pk == old.pk
