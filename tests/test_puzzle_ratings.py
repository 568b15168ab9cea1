"""Puzzle ratings: a player's first attempt at a puzzle, with no other started before it
ended, is a game between the player and the puzzle, scored against par; both ratings move,
once, from the sweep if the task is lost. The daily is drawn by predicted rating; the lists
and the profile show them."""

from datetime import timedelta

import pytest
from django.urls import reverse

from games import ratings, services
from games.infra.sweep import unweighed_attempts
from games.models import Match, Puzzle, Rating, RatingChange, Seat
from games.registry import puzzle_game
from games.services.features import puzzles
from games.tasks import sweep
from tests.factories import (
    counted_on_its_day,
    finish,
    make_puzzles,
    start_solo_and_finish,
    wait_for,
)

pytestmark = pytest.mark.django_db


def attempt(player, puzzle: Puzzle) -> Seat:
    match = puzzles.start_puzzle(player, puzzle)
    return finish(match, player)


def solving(player) -> Rating:
    return Rating.objects.get(player=player, game=puzzle_game(), pool=Rating.Pool.SOLVING)


def test_a_first_attempt_moves_the_player_and_the_puzzle_by_the_score_against_par(alice):
    (puzzle,) = make_puzzles(41)
    seat = attempt(alice, puzzle)
    par = round(seat.score / 0.8)  # a result of about a half
    Puzzle.objects.filter(pk=puzzle.pk).update(par=par)
    result = ratings.puzzle_result(seat.score, par)
    assert 0 < result < 1

    assert services.rate_puzzle_attempt(seat.match_id)
    puzzle.refresh_from_db()
    mine = solving(alice)
    assert mine.value == pytest.approx(1500 + 40 * (result - 0.5))
    assert puzzle.rating == pytest.approx(1500 - 40 * (result - 0.5))
    assert mine.games == 1 and puzzle.rated_games == 1 and puzzle.provisional
    change = RatingChange.objects.get(match_id=seat.match_id)
    assert change.pool == Rating.Pool.SOLVING and change.after == pytest.approx(mine.value)
    assert not services.rate_puzzle_attempt(seat.match_id)  # once, whatever the retries
    assert solving(alice).games == 1


def test_a_repeat_moves_nothing(alice):
    (puzzle,) = make_puzzles(42)
    Puzzle.objects.filter(pk=puzzle.pk).update(par=80)
    first = attempt(alice, puzzle)
    second = attempt(alice, puzzle)
    assert services.rate_puzzle_attempt(second.match_id) is False  # the first came earlier
    assert not Rating.objects.filter(pool=Rating.Pool.SOLVING).exists()
    assert services.rate_puzzle_attempt(first.match_id)
    puzzle.refresh_from_db()
    assert puzzle.rated_games == 1 and solving(alice).games == 1
    assert Match.objects.get(pk=second.match_id).puzzle_rated_at is not None


def test_an_attempt_left_open_shows_the_order_so_no_later_attempt_counts(alice):
    """Started and left unfinished, or played alongside: the order was seen either way."""
    first, second = make_puzzles(46, 47)
    Puzzle.objects.filter(pk__in=[first.pk, second.pk]).update(par=80)
    puzzles.start_puzzle(alice, first)  # scouted, never finished
    later = attempt(alice, first)
    assert services.rate_puzzle_attempt(later.match_id) is False
    started = puzzles.start_puzzle(alice, second)
    alongside = attempt(alice, second)  # played to the end while the first was open
    assert services.rate_puzzle_attempt(alongside.match_id) is False
    rated = finish(started, alice)
    assert services.rate_puzzle_attempt(rated.match_id) is False
    assert not Rating.objects.filter(pool=Rating.Pool.SOLVING).exists()
    assert not Puzzle.objects.filter(pk__in=[first.pk, second.pk], rated_games__gt=0).exists()


def test_full_marks_at_par_and_nothing_below_sixty_percent():
    assert ratings.puzzle_result(100, 100) == 1.0
    assert ratings.puzzle_result(140, 100) == 1.0
    assert ratings.puzzle_result(60, 100) == 0.0
    assert ratings.puzzle_result(20, 100) == 0.0
    assert ratings.puzzle_result(80, 100) == pytest.approx(0.5)


def test_an_attempt_waits_for_par_and_the_sweep_finds_it(alice):
    (puzzle,) = make_puzzles(43)
    seat = attempt(alice, puzzle)
    assert unweighed_attempts() == []
    assert services.rate_puzzle_attempt(seat.match_id) is False  # par unknown yet
    Puzzle.objects.filter(pk=puzzle.pk).update(par=70)
    assert unweighed_attempts() == [seat.match_id]
    services.rate_puzzle_attempt(seat.match_id)
    assert unweighed_attempts() == []


def test_solo_games_are_not_puzzle_attempts(alice):
    start_solo_and_finish(alice)
    assert unweighed_attempts() == []


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_worker_rates_an_attempt_and_the_sweep_sends_a_lost_one(celery_worker, alice, bob):
    first, second = make_puzzles(44, 45)
    Puzzle.objects.filter(pk__in=[first.pk, second.pk]).update(par=75)
    attempt(alice, first)  # its task goes to the worker
    wait_for(lambda: Puzzle.objects.filter(pk=first.pk, rated_games=1).exists())
    seat = attempt(bob, second)
    Match.objects.filter(pk=seat.match_id).update(puzzle_rated_at=None)
    RatingChange.objects.filter(match_id=seat.match_id).delete()
    Puzzle.objects.filter(pk=second.pk).update(rated_games=0, rating=1500)
    Rating.objects.filter(player=bob).delete()  # as if its task had been lost
    sweep.delay()
    wait_for(lambda: Puzzle.objects.filter(pk=second.pk, rated_games=1).exists())
    assert solving(bob).games == 1


def rated_puzzles(count: int, *, seed: int = 500) -> None:
    """``count`` played puzzles, the higher their par the harder (rating rises with par)."""
    for i in range(count):
        Puzzle.objects.create(
            seed=seed + i, start="0", par=60 + 2 * i, rating=1300 + 40 * i, rated_games=8
        )


def test_the_daily_is_the_unplayed_puzzle_of_a_middling_predicted_rating():
    rated_puzzles(puzzles.RATED_PUZZLES_NEEDED + 1)  # pars 60..80, median rating at par 70
    for offset, par in enumerate([50, 71, 95, 68]):
        Puzzle.objects.create(seed=900 + offset, start="0", par=par)
    Puzzle.objects.filter(seed__lt=900).update(attempts=3)  # played: never a daily
    daily = puzzles.publish_daily()
    assert daily.seed == 901  # par 71: predicted next to the median


def test_the_daily_is_the_oldest_unplayed_puzzle_until_enough_are_rated():
    rated_puzzles(puzzles.RATED_PUZZLES_NEEDED - 1)
    Puzzle.objects.filter(seed__lt=900).update(attempts=3)
    for offset, par in enumerate([50, 71]):
        Puzzle.objects.create(seed=900 + offset, start="0", par=par)
    assert puzzles.publish_daily().seed == 900


def test_the_profile_offer_and_lists_show_puzzle_ratings(client, alice, bob):
    first, second = make_puzzles(46, 47)
    Puzzle.objects.filter(pk=first.pk).update(rating=1612, rated_games=30)
    client.force_login(alice)
    offer = puzzles.offer_challenge(
        alice, invite=["bob"], players=2, open=False, rated=True, time_control="1d"
    )
    page = client.get(reverse("challenge_offer", args=[offer.pk])).text
    assert "Rating 1612</span>" in page
    assert "Rating 1500?</span>" in page  # the other one is new: provisional

    Rating.objects.create(
        player=bob, game=puzzle_game(), pool=Rating.Pool.SOLVING, value=1688, games=25
    )
    profile = client.get(reverse("profile", args=["bob"])).text
    assert 'data-stat="solving">1688<' in profile
    board = client.get(reverse("leaderboard"), {"game": puzzle_game(), "pool": "solving"}).text
    assert "bob" in board and "1688" in board
    assert "it takes 20 rated games and you have played 0" in board


def test_the_leaderboards_of_streaks_and_best_solo_scores(client, alice, bob, carol):
    today = puzzles.today()
    days = make_puzzles(51, 52, 53)
    for back, puzzle in enumerate(days):
        Puzzle.objects.filter(pk=puzzle.pk).update(daily_on=today - timedelta(days=back))
    for player, played in ((alice, 3), (bob, 1)):
        for back in reversed(range(played)):  # counted day after day, as the site counts
            assert counted_on_its_day(player, days[back], 50)
    client.force_login(carol)
    page = client.get(reverse("leaderboard"), {"board": "streaks"}).text
    assert page.index(">alice<") < page.index(">bob<")
    assert "you have no daily puzzle streak running" in page

    best = start_solo_and_finish(bob)
    start_solo_and_finish(carol)
    page = client.get(reverse("leaderboard"), {"board": "solo", "game": puzzle_game()}).text
    assert ">bob<" in page and ">carol<" in page
    assert reverse("replay", args=[best.match_id]) in page
    assert "data-absent" not in page  # carol is on it
    client.force_login(alice)
    page = client.get(reverse("leaderboard"), {"board": "solo", "game": puzzle_game()}).text
    assert "you have not finished a solo game yet" in page
    profile = client.get(reverse("profile", args=["bob"])).text
    assert f'href="{reverse("replay", args=[best.match_id])}" data-best-replay' in profile
    assert client.get(reverse("leaderboard"), {"board": "nothing"}).status_code == 404
    # nmbrs! has no solo games: no list of them, and its address is not found (not a 500)
    page = client.get(reverse("leaderboard")).text
    assert "board=solo&amp;game=nmbr9" in page and "board=solo&amp;game=nmbrs" not in page
    assert client.get(reverse("leaderboard"), {"board": "solo", "game": "nmbrs"}).status_code == 404


def test_the_leaderboards_ask_the_same_number_of_queries_however_long(client, alice, bob, carol):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def counts() -> list[int]:
        found = []
        for query in ({"pool": "solving"}, {"board": "streaks"}, {"board": "solo"}):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(reverse("leaderboard"), query).status_code == 200
            found.append(len(queries))
        return found

    client.force_login(carol)  # on none of the lists: each says why
    start_solo_and_finish(alice)
    Rating.objects.create(player=alice, pool=Rating.Pool.SOLVING, value=1600, games=25)
    client.get(reverse("home"))  # the session and the caches warmed up
    few = counts()
    start_solo_and_finish(bob, seed=13)
    start_solo_and_finish(alice, seed=14)
    Rating.objects.create(player=bob, pool=Rating.Pool.SOLVING, value=1550, games=25)
    assert counts() == few
