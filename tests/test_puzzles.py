import random
import re
import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format

from games import services
from games.infra import limits
from games.models import ChallengeOffer, DailyResult, Match, Move, Puzzle, Rating, Seat
from games.nmbr9 import Placement, deal
from games.nmbr9.puzzle import best_par
from games.nmbr9.puzzle import puzzle as puzzle_deal
from games.registry import puzzle_game, puzzle_rules
from games.services import MoveRefused
from games.services.features import puzzles
from games.tasks import publish_daily
from tests.factories import (
    finish,
    lose_tasks,
    make_puzzles,
    normalised,
    todays_daily,
    wait_for,
)

pytestmark = pytest.mark.django_db


def test_the_command_makes_puzzles_with_a_progress_bar():
    out = StringIO()
    call_command("make_puzzles", "3", stdout=out)
    assert Puzzle.objects.count() == 3
    assert "[##############################] 3/3" in out.getvalue()
    for p in Puzzle.objects.all():
        assert p.start == str(puzzle_deal(p.seed).start)


def test_recompute_par_searches_every_puzzle_again_with_a_progress_bar():
    made = make_puzzles(3, 4, 5)
    Puzzle.objects.filter(pk=made[0].pk).update(par=1)
    Puzzle.objects.filter(pk=made[1].pk).update(par=None)
    puzzles.compute_par(made[2].pk)
    out = StringIO()
    call_command("recompute_par", "--effort", "0.02", stdout=out)
    assert "Searching par [##############################] 3/3" in out.getvalue()
    for p in Puzzle.objects.all():
        assert p.par == best_par(puzzle_deal(p.seed), 0.02).score
        assert len(p.par_line) == 19 and par_line_score(p) == p.par
    with pytest.raises(CommandError, match="effort"):
        call_command("recompute_par", "--effort", "0", stdout=StringIO())


def par_line_score(puzzle: Puzzle) -> int:
    """The score of the puzzle's par line replayed from its start by the rules."""
    rules = puzzle_rules(puzzle_game())
    state = rules.setup(1, puzzle.seed, rules.options(rules.puzzle_options))
    for text in puzzle.par_line:
        state = rules.apply(state, 0, rules.parse_move(text))
    assert rules.outcome(state) is not None
    return rules.score(state, 0)


def test_par_is_computed_once():
    (p,) = make_puzzles(5)
    score = puzzles.compute_par(p.pk)
    p.refresh_from_db()
    assert p.par == score > 0
    assert par_line_score(p) == p.par  # the stored moves reach par
    assert puzzles.compute_par(p.pk) is None


def test_the_par_game_is_replayed_beside_the_players_once_they_have_finished(client, alice, bob):
    (p,) = make_puzzles(8)
    puzzles.compute_par(p.pk)
    p.refresh_from_db()
    match = puzzles.start_puzzle(alice, p)
    finish(match, alice)
    replay = reverse("replay", args=[match.pk])

    client.force_login(alice)
    page = client.get(match.get_absolute_url())
    assert "Replay your game next to the par game" in page.text
    page = client.get(replay, {"round": 5})
    assert page.status_code == 200 and "data-par-display" in page.text
    assert "Par game with 5 tiles" in page.text
    end = client.get(replay)
    assert f"Par game · {p.par} points" in end.text and "Par game with 20 tiles" in end.text

    client.force_login(bob)  # may watch alice's game, but has not played the puzzle
    page = client.get(replay)
    assert page.status_code == 200 and "data-par-display" not in page.text
    assert puzzles.par_line_for(bob, p) is None
    assert puzzles.par_line_for(alice, p) == p.par_line


def test_a_practice_puzzle_starts_with_its_first_tile_placed(client, alice):
    (p,) = make_puzzles(11)
    client.force_login(alice)
    response = client.post(reverse("play_puzzle", args=[p.pk]))
    match = Match.objects.get()
    assert response.url == match.get_absolute_url()
    seat = match.seats.get()
    assert seat.progress == 1 and not seat.moves.exists()  # the game lays the start tile
    assert services.load(match).state.board(0).placements == (Placement.parse(p.start),)
    page = client.get(match.get_absolute_url()).text
    assert "Round <strong>2</strong> of 20" in page
    assert f"data-current>{deal(11)[0][1]}<" in page


def test_a_puzzle_page_shows_the_start_tile(client):
    (p,) = make_puzzles(11)
    start = puzzle_deal(11).start
    page = client.get(reverse("puzzle", args=[p.pk])).text
    assert f"Starts with a {start.number} in the centre." in page
    assert page.count('data-number="') == 1


def test_the_daily_is_published_once_per_day_however_often_or_late():
    make_puzzles(1, 2, 3)
    first = puzzles.publish_daily()
    again = puzzles.publish_daily()
    assert first.pk == again.pk
    assert Puzzle.objects.filter(daily_on=puzzles.today()).count() == 1
    tomorrow = puzzles.publish_daily(puzzles.today() + timedelta(days=1))
    assert tomorrow.pk != first.pk
    late = puzzles.publish_daily(puzzles.today() + timedelta(days=1))
    assert late.pk == tomorrow.pk


def test_publishing_makes_a_puzzle_when_none_is_left():
    assert Puzzle.objects.count() == 0
    daily = puzzles.publish_daily()
    assert daily.daily_on == puzzles.today()


def test_the_daily_counts_the_first_finished_attempt(client, alice, bob):
    make_puzzles(21, 22)
    client.force_login(alice)
    page = client.get(reverse("daily"))
    assert page.status_code == 200 and "data-par" not in page.text
    client.post(reverse("play_daily"))
    match = Match.objects.get(daily=True)
    assert client.post(reverse("play_daily")).url == match.get_absolute_url()
    seat = finish(match, alice)
    result = DailyResult.objects.get()
    assert (result.player, result.score, result.match) == (alice, seat.score, match)
    client.post(reverse("play_daily"))
    second = Match.objects.filter(daily=True).exclude(pk=match.pk).get()
    finish(second, alice)
    assert DailyResult.objects.count() == 1
    puzzles.compute_par(match.puzzle_id)
    page = client.get(reverse("daily")).text
    assert "data-leaderboard" in page and f"<td>{seat.score}</td>" in page
    assert "data-par" in page and "data-streak>1<" in page
    client.force_login(bob)
    assert "data-par" not in client.get(reverse("daily")).text


def test_the_streak_counts_days_in_a_row(alice):
    today = puzzles.today()
    for offset, seed in ((0, 31), (1, 32), (2, 33), (4, 34)):
        (p,) = make_puzzles(seed)
        match = puzzles.start_puzzle(alice, p)
        DailyResult.objects.create(
            day=today - timedelta(days=offset),
            puzzle=p,
            player=alice,
            match=match,
            score=10,
            seconds=60,
        )
    assert puzzles.streak(alice) == 3
    assert puzzles.streak(alice, day=today + timedelta(days=1)) == 3
    assert puzzles.streak(alice, day=today + timedelta(days=2)) == 0


def test_the_archive_lists_past_dailies_with_winners(client, alice, bob):
    a, b = make_puzzles(41, 42)
    yesterday = puzzles.today() - timedelta(days=1)
    Puzzle.objects.filter(pk=a.pk).update(daily_on=yesterday)
    for player, score in ((alice, 50), (bob, 70)):
        match = puzzles.start_puzzle(player, a)
        DailyResult.objects.create(
            day=yesterday, puzzle=a, player=player, match=match, score=score, seconds=99
        )
    page = client.get(reverse("daily_archive")).text
    assert f'data-archive="{a.pk}"' in page and "bob</a> (70)" in page
    assert f'data-archive="{b.pk}"' not in page


def test_a_daily_is_won_by_the_best_score_then_the_fastest(alice, bob, carol):
    a, b = make_puzzles(43, 44)
    yesterday = puzzles.today() - timedelta(days=1)
    for puzzle, results in ((a, ((alice, 70, 300), (bob, 70, 120), (carol, 60, 30))), (b, ())):
        for player, score, seconds in results:
            match = puzzles.start_puzzle(player, puzzle)
            DailyResult.objects.create(
                day=yesterday,
                puzzle=puzzle,
                player=player,
                match=match,
                score=score,
                seconds=seconds,
            )
    winners = puzzles.daily_winners([a, b])
    assert list(winners) == [a.pk] and winners[a.pk].player == bob


def seeds_sharing_the_first_two_tiles() -> tuple[int, int]:
    """Two puzzles with the same start tile and second tile, and different third tiles."""
    seen: dict[tuple[str, int], int] = {}
    for seed in range(5000):
        cards = deal(seed)[0]
        other = seen.setdefault((str(puzzle_deal(seed).start), cards[1]), seed)
        if other != seed and deal(other)[0][2] != cards[2]:
            return other, seed
    raise AssertionError("no such seeds")


def without_puzzle_id(text: str, pk: int) -> str:
    # "#1" as a whole word: not the start of a colour (#1f2a33) where the puzzle is number 1
    text = re.sub(rf"#{pk}\b", "#P", text)
    for mark in ('data-puzzle="{}"', "/puzzle/{}/"):
        text = text.replace(mark.format(pk), mark.format("P"))
    return text


def test_no_puzzle_page_reveals_the_order(client, alice):
    """Two puzzles that differ only in tiles not yet revealed give identical pages."""
    pages = []
    for seed in seeds_sharing_the_first_two_tiles():
        Match.objects.all().delete()
        Puzzle.objects.all().delete()
        (p,) = make_puzzles(seed)
        Puzzle.objects.filter(pk=p.pk).update(daily_on=puzzles.today(), par=77)
        client.force_login(alice)
        client.post(reverse("play_daily"))
        match = Match.objects.get()
        url = match.get_absolute_url()
        texts = [
            client.get(reverse("daily")).text,
            client.get(reverse("puzzle", args=[p.pk])).text,
            client.get(url).text,
            client.get(url, HTTP_HX_REQUEST="true").text,
        ]
        pages.append([without_puzzle_id(normalised(t, match), p.pk) for t in texts])
    assert pages[0] == pages[1]


def test_an_offer_has_two_distinct_unplayed_random_puzzles(alice, bob):
    made = make_puzzles(*range(100, 110))
    for p in made[:6]:
        puzzles.start_puzzle(alice, p)
    seen = set()
    for i in range(30):
        offer = puzzles.offer_challenge(
            alice,
            invite=["bob"],
            players=2,
            open=False,
            rated=True,
            time_control="1d",
            rng=random.Random(i),
        )
        assert offer.first_id != offer.second_id
        assert {offer.first_id, offer.second_id} <= {p.pk for p in made[6:]}
        seen |= {offer.first_id, offer.second_id}
        offer.delete()  # an unanswered offer holds its puzzles back from the next one
    assert len(seen) == 4


def test_an_offer_refuses_bad_settings_and_makes_nothing(alice):
    make_puzzles(1, 2)
    with pytest.raises(MoveRefused, match="No player is called nobody"):
        puzzles.offer_challenge(
            alice, invite=["nobody"], players=2, open=False, rated=True, time_control="1d"
        )
    assert ChallengeOffer.objects.count() == 0


def test_a_challenge_is_picked_played_rated_and_rematched(client, alice, bob, monkeypatch):
    make_puzzles(*range(200, 206))
    client.force_login(alice)
    response = client.post(
        reverse("new_challenge"),
        {"invite": "bob", "players": "2", "time_control": "1d", "rated": "on"},
    )
    offer = ChallengeOffer.objects.get()
    assert response.url == reverse("challenge_offer", args=[offer.pk])
    page = client.get(response.url).text
    assert page.count('data-puzzle="') == 2
    other = Puzzle.objects.exclude(pk__in=[offer.first_id, offer.second_id]).first()
    bad = client.post(response.url, {"puzzle": other.pk})
    assert bad.status_code == 400 and "one of the two" in bad.text
    picked = client.post(response.url, {"puzzle": offer.second_id})
    match = Match.objects.get(kind=Match.Kind.CHALLENGE)
    assert picked.url == match.get_absolute_url()
    assert (match.puzzle_id, match.seed) == (offer.second_id, match.puzzle.seed)
    assert match.options["pace"] == "free" and match.options["puzzle"] is True
    assert client.post(response.url, {"puzzle": offer.first_id}).status_code == 400
    client.force_login(bob)
    client.post(reverse("join", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert all(s.progress == 1 for s in match.seats.all())
    finish(match, alice)
    bob_seat = finish(match, bob)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert services.rate_match(match.pk)
    pools = set(Rating.objects.values_list("pool", flat=True))
    assert pools == {Rating.Pool.PUZZLE}
    puzzles.compute_par(match.puzzle_id)
    page = client.get(match.get_absolute_url()).text
    assert "Rematch" in page and "data-par" in page
    # Same deal, same policy: identical displays, so the first place is shared.
    assert sorted(match.seats.values_list("rank", flat=True)) == [1, 1]
    assert bob_seat.score == Seat.objects.get(match=match, player=alice).score
    response = client.post(reverse("rematch", args=[match.pk]))
    new = ChallengeOffer.objects.exclude(pk=offer.pk).get()
    assert response.url == reverse("challenge_offer", args=[new.pk])
    assert new.challenger == bob and new.invite == "alice"
    assert match.puzzle_id not in (new.first_id, new.second_id)
    # A rematch is a new challenge, counted as the others are (30 an hour; 1 here).
    monkeypatch.setattr(limits, "NEW_GAMES", "1/hour")
    assert client.post(reverse("rematch", args=[match.pk])).status_code == 302
    again = client.post(reverse("rematch", args=[match.pk]))
    assert again.status_code == 429 and "Try again in" in again.text
    assert ChallengeOffer.objects.count() == 3
    profile = client.get(reverse("profile", args=["bob"])).text
    assert re.search(r'data-stat="puzzle-rating">\d+\?<', profile)


def test_unanswered_challenges_expire_after_three_days(alice, bob):
    make_puzzles(301, 302)
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    match = puzzles.pick_challenge(offer.pk, alice, offer.first_id)
    assert puzzles.expire_challenges(now=timezone.now() + timedelta(days=2)) == 0
    assert puzzles.expire_challenges(now=timezone.now() + timedelta(days=3, minutes=1)) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert puzzles.expire_challenges(now=timezone.now() + timedelta(days=4)) == 0


@pytest.mark.worker
def test_the_beat_job_run_twice_by_the_worker_publishes_one_daily(celery_worker):
    make_puzzles(31, 32, 33)
    publish_daily.delay()
    publish_daily.delay()
    daily = wait_for(lambda: puzzles.daily_puzzle())
    full = puzzles.LOW_STOCK + puzzles.REFILL
    wait_for(lambda: puzzles.unused_puzzles().count() >= full, timeout=30)
    # Each refill is one transaction: once one is seen, the others find the stock full.
    assert puzzles.unused_puzzles().count() == full
    assert Puzzle.objects.filter(daily_on__isnull=False).count() == 1
    assert daily.daily_on == puzzles.today()


def test_a_refill_whose_task_was_lost_is_made_by_the_next_hourly_job(
    monkeypatch, django_capture_on_commit_callbacks
):
    make_puzzles(31, 32, 33)
    lost = lose_tasks(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        puzzles.publish_daily()
    assert "games.tasks.refill_puzzles" in lost
    assert puzzles.unused_puzzles().count() == 2
    publish_daily()  # the beat job, an hour later: the daily is there, the stock is low
    full = puzzles.LOW_STOCK + puzzles.REFILL
    assert puzzles.unused_puzzles().count() == full
    publish_daily()  # and again: the stock is full, nothing is made
    assert Puzzle.objects.count() == 1 + full
    assert Puzzle.objects.filter(daily_on__isnull=False).count() == 1


def test_a_refill_tops_the_stock_up_only_when_it_runs_low():
    make_puzzles(*range(51, 51 + puzzles.LOW_STOCK))
    assert puzzles.refill_puzzles() == 0
    Puzzle.objects.filter(seed=51).update(daily_on=puzzles.today())
    assert puzzles.refill_puzzles() == puzzles.REFILL + 1
    assert puzzles.unused_puzzles().count() == puzzles.LOW_STOCK + puzzles.REFILL


@pytest.mark.worker
def test_new_puzzles_get_their_par_from_the_worker(celery_worker):
    call_command("make_puzzles", "2", stdout=StringIO())
    wait_for(lambda: Puzzle.objects.filter(par__isnull=False).count() == 2, timeout=30)
    for p in Puzzle.objects.all():
        assert p.par == best_par(puzzle_deal(p.seed), settings.PUZZLE_PAR_EFFORT).score


def at_once(count: int, work) -> list:
    """What ``work()`` returned in each of ``count`` threads started together (each on its
    own database connection); fails if any raised."""
    barrier = threading.Barrier(count)
    results, errors = [], []

    def run():
        try:
            barrier.wait()
            results.append(work())
        except Exception as exc:  # collected and reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return results


@pytest.mark.django_db(transaction=True)
def test_simultaneous_refills_top_the_stock_up_once():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's concurrent transactions")
    made = at_once(3, puzzles.refill_puzzles)
    full = puzzles.LOW_STOCK + puzzles.REFILL
    assert sorted(made) == [0, 0, full]
    assert puzzles.unused_puzzles().count() == full


@pytest.mark.django_db(transaction=True)
def test_simultaneous_publications_agree_on_one_daily():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's concurrent transactions")
    make_puzzles(41, 42, 43, 44)
    published = [daily.pk for daily in at_once(4, puzzles.publish_daily)]
    assert len(set(published)) == 1 and len(published) == 4
    assert Puzzle.objects.filter(daily_on__isnull=False).get().pk == published[0]


def offer_and_pick(client, user, **data):
    client.force_login(user)
    form = {"invite": "", "players": 2, "time_control": "1d", "rated": "on", **data}
    response = client.post(reverse("new_challenge"), form)
    assert response.status_code == 302, response.text
    offer = ChallengeOffer.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))
    client.post(response.url, {"puzzle": offer.first_id})
    return Match.objects.get(kind=Match.Kind.CHALLENGE, puzzle_id=offer.first_id)


def test_an_open_challenge_waits_in_the_lobby_until_someone_joins(client, alice, bob):
    make_puzzles(51, 52, 53)
    match = offer_and_pick(client, alice, open="on")
    assert match.status == Match.Status.WAITING and match.open
    client.force_login(bob)
    assert f'href="{match.get_absolute_url()}"' in client.get(reverse("lobby")).text
    assert client.post(reverse("join", args=[match.pk])).status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert sorted(match.seats.values_list("progress", flat=True)) == [1, 1]


def test_a_declined_challenge_is_called_off(client, alice, bob):
    make_puzzles(61, 62, 63)
    match = offer_and_pick(client, alice, invite="bob")
    client.force_login(bob)
    assert "invitation" in client.get(reverse("home")).text
    assert client.post(reverse("decline", args=[match.pk])).status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert not Move.objects.filter(seat__match=match).exists()
    again = client.post(reverse("decline", args=[match.pk]))
    assert again.status_code == 400 and "no invitation of yours" in again.text


@pytest.mark.parametrize(
    "change,message",
    [
        ({"invite": "nobody"}, "No player is called nobody"),
        ({"invite": "alice"}, "invite somebody else"),
        ({"players": "7"}, "Select a valid choice"),
        ({"time_control": "2h"}, "Select a valid choice"),
    ],
)
def test_a_bad_challenge_form_is_refused_and_offers_nothing(client, alice, bob, change, message):
    make_puzzles(71, 72)
    client.force_login(alice)
    form = {"invite": "bob", "players": "2", "time_control": "1d", "rated": "on"} | change
    response = client.post(reverse("new_challenge"), form)
    assert response.status_code == 400
    assert message in response.text
    assert not ChallengeOffer.objects.exists()


@pytest.mark.parametrize("page", ["new_match", "new_challenge"])
def test_a_profile_link_fills_in_the_invitee(client, alice, bob, page):
    client.force_login(alice)
    profile = client.get(reverse("profile", args=["bob"])).text
    assert f'{reverse(page)}?invite=bob"' in profile
    response = client.get(reverse(page), {"invite": "bob"})
    assert response.status_code == 200
    assert re.search(r'<input[^>]*name="invite"[^>]*value="bob"', response.text)


def test_the_archive_reads_the_days_it_shows_and_shows_what_it_did(client, alice, bob, carol):
    """65 past dailies (60 shown) with results tied on score, on time, or on both, and days
    nobody played: the same winners and counts as the archive's first computation, which
    counted every result ever and sorted every result of the days shown, in two queries."""
    from django.contrib.auth.models import User
    from django.db.models import Count
    from django.test.utils import CaptureQueriesContext

    rng = random.Random(65)
    players = [alice, bob, carol] + [
        User.objects.create_user(f"p{i}", f"p{i}@example.com", None) for i in range(5)
    ]
    today = puzzles.today()
    days = Puzzle.objects.bulk_create(
        Puzzle(seed=10_000 + offset, start="x", daily_on=today - timedelta(days=offset))
        for offset in range(-1, 66)  # tomorrow's, today's and 65 past ones
    )
    for puzzle in days:
        if rng.random() < 0.15:
            continue  # nobody played it
        for player in rng.sample(players, rng.randrange(1, len(players))):
            match = Match.objects.create(
                kind=Match.Kind.PUZZLE,
                status=Match.Status.FINISHED,
                seed=puzzle.seed,
                puzzle=puzzle,
                created_by=player,
            )
            DailyResult.objects.create(
                day=puzzle.daily_on,
                puzzle=puzzle,
                player=player,
                match=match,
                score=rng.choice((60, 70, 70)),
                seconds=rng.choice((30, 90, 90)),
            )
    before = list(
        Puzzle.objects.filter(daily_on__lt=today)
        .order_by("-daily_on")
        .annotate(players=Count("results"))[:60]
    )
    winners_before = {}
    results = DailyResult.objects.filter(puzzle__in=before).select_related("player")
    for result in results.order_by("puzzle_id", *DailyResult._meta.ordering):
        winners_before.setdefault(result.puzzle_id, result)
    with CaptureQueriesContext(connection) as queries:
        rows = puzzles.archive()
    assert len(queries) == 2
    assert [(p.pk, p.players, w and w.pk, w and w.player.username) for p, w in rows] == [
        (p.pk, p.players, w and w.pk, w and w.player.username)
        for p, w in ((p, winners_before.get(p.pk)) for p in before)
    ]
    assert len(rows) == 60 and any(w is None for _p, w in rows)
    page = client.get(reverse("daily_archive")).text
    assert page.count("data-archive=") == 60
    for puzzle, winner in rows[:5]:
        assert f'data-archive="{puzzle.pk}"' in page
        if winner is not None:
            assert f"{winner.player.username}</a> ({winner.score})" in page


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_daily_puzzle_is_named_by_its_day_everywhere(client, alice, language):
    daily = todays_daily()
    (past,) = make_puzzles(4343)
    yesterday = puzzles.today() - timedelta(days=1)
    Puzzle.objects.filter(pk=past.pk).update(daily_on=yesterday)
    past.refresh_from_db()
    words = {"en": "Daily puzzle of ", "de": "Rätsel des Tages vom "}[language]
    with translation.override(language):
        name = words + date_format(puzzles.today(), "DATE_FORMAT")
        past_name = words + date_format(yesterday, "DATE_FORMAT")
        assert (str(daily), str(past)) == (name, past_name)
    numbered = {"en": "Puzzle #", "de": "Rätsel #"}[language]
    attempt = puzzles.play_daily(alice)
    assert str(attempt) == str(daily)
    client.force_login(alice)
    asked = {"HTTP_ACCEPT_LANGUAGE": language}

    def page(url: str) -> str:
        response = client.get(url, **asked)
        assert response.status_code == 200, url
        return response.text

    pages = {
        "daily": page(reverse("daily")),
        "game": page(attempt.get_absolute_url()),
        "profile": page(reverse("profile", args=["alice"])),
        "puzzle": page(daily.get_absolute_url()),
    }
    finish(attempt, alice)
    pages |= {
        "home": page(reverse("home")),
        "finished": page(attempt.get_absolute_url()),
        "replay": page(reverse("replay", args=[attempt.pk])),
        "results": page(reverse("profile", args=["alice"])),
    }
    for where, text in pages.items():
        assert name in text, where
        assert numbered not in text, where
    assert past_name in page(reverse("daily_archive"))
    practice = puzzles.start_puzzle(alice, past)
    assert past_name in page(practice.get_absolute_url())
