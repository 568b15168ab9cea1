"""The end of a match: places and scores, what it counts for, and ratings.

When a game reports its outcome the match is finished: every seat gets its place and score,
and the change tells of it (``bus.MatchFinished``). Its subscribers (``subscribers``) count a
puzzle attempt for the puzzle (and for its day, if it was the player's first daily attempt:
``count_puzzle``), and send the tasks that bring the players' profile figures and (for a
rated match) their ratings in the match's game and pool up to date, which the sweep sends
again if they are lost.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django.db import IntegrityError, connection, models, transaction
from django.db.models import Avg, Case, Count, F, Max, Q, Value, When
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from games import ratings
from games.contract import Outcome
from games.models import (
    DailyResult,
    Match,
    PlayerStats,
    Profile,
    Puzzle,
    Rating,
    RatingChange,
    Seat,
    SoloBest,
)
from games.registry import GAMES, find_game
from games.services.match import bus


def finish(change, outcome: Outcome, now: datetime) -> None:
    """The game of the match being changed (``unit.Change``) reported ``outcome``."""
    record = change.record
    match = record.match
    for seat in record.seats:
        seat.score = outcome.scores[seat.index]
        seat.rank = outcome.ranks[seat.index]
        # a finished seat owes nothing: the indexes of what is owed leave it out
        seat.deadline = seat.turn = seat.remind_at = None
        seat.finished = now
    match.status = Match.Status.FINISHED
    match.finished = now
    change.save_match("status", "finished")
    change.emit(bus.MatchFinished(match, tuple(record.seats)))


def count_puzzle(match: Match, seats: list[Seat]) -> None:
    """A game on a puzzle ended: count its attempts, and the day's result of a daily
    attempt (the first attempt finished on the puzzle's day counts; later ones are practice).
    An attempt still open when the day ends no longer counts: from then on every game on the
    puzzle may be seen, its order is no secret any more."""
    assert match.puzzle_id is not None, "not a game on a puzzle"
    for seat in seats:
        Puzzle.objects.filter(pk=match.puzzle_id).update(
            attempts=F("attempts") + 1,
            total=F("total") + seat.score,
            best=Greatest(Coalesce(F("best"), Value(seat.score)), Value(seat.score)),
        )
    guests = set(
        Profile.objects.filter(
            player_id__in=[seat.player_id for seat in seats], guest=True
        ).values_list("player_id", flat=True)
    )
    for seat in seats:
        if seat.player_id not in guests:  # a guest's counts once they have an account
            count_for_the_day(match, seat.player_id, seat.score)


def on_its_day(match: Match) -> bool:
    """Whether a finished daily attempt was both started and finished on its puzzle's day:
    the first such attempt of a player counts for the day."""
    return _daily_attempt(match) is not None


def _daily_attempt(match: Match) -> tuple[Puzzle, date, int] | None:
    """The puzzle, its day and the seconds the attempt took, if ``match`` is a finished daily
    attempt both started and finished on that day; else None."""
    puzzle, started, finished = match.puzzle, match.started, match.finished
    if not match.daily or puzzle is None or started is None or finished is None:
        return None
    day = puzzle.daily_on
    if day is None or not day == started.date() == finished.date():
        return None
    return puzzle, day, int((finished - started).total_seconds())


def count_for_the_day(match: Match, player_id: int, score: int) -> bool:
    """Make a finished daily attempt the player's result of its day, if it was both started
    and finished on the puzzle's day and no other attempt of theirs counts for it yet."""
    attempt = _daily_attempt(match)
    if attempt is None:
        return False  # practice: an attempt not both started and finished on the puzzle's day
    puzzle, day, seconds = attempt
    try:
        with transaction.atomic():
            DailyResult.objects.create(
                day=day,
                puzzle=puzzle,
                player_id=player_id,
                match=match,
                score=score,
                seconds=seconds,
            )
    except IntegrityError:
        return False  # an earlier attempt already counts for the day; this one is practice
    # The streak leaderboard reads the run kept here, not every result ever.
    later = Q(daily_streak_day__gt=day)  # counted out of order: the later run stands
    Profile.objects.get_or_create(player_id=player_id)
    Profile.objects.filter(player_id=player_id).update(
        daily_streak=Case(
            When(later | Q(daily_streak_day=day), then=F("daily_streak")),
            When(daily_streak_day=day - timedelta(days=1), then=F("daily_streak") + 1),
            default=Value(1),
            output_field=models.PositiveIntegerField(),
        ),
        daily_streak_day=Case(When(later, then=F("daily_streak_day")), default=Value(day)),
    )
    return True


def rate_match(match_id: int) -> bool:
    """Apply a finished rated match's Elo changes, exactly once whatever the retries."""
    with transaction.atomic():
        claimed = Match.objects.filter(
            pk=match_id, status=Match.Status.FINISHED, rated=True, rated_at=None
        ).update(rated_at=timezone.now())
        if not claimed:
            return False
        match = Match.objects.only("kind", "game", "time_per_move").get(pk=match_id)
        seats = list(Seat.objects.filter(match_id=match_id).order_by("player_id"))
        if any(seat.bot for seat in seats):
            pool = Rating.Pool.BOTS  # bots never move players' other ratings
        elif match.kind == Match.Kind.CHALLENGE:
            pool = Rating.Pool.PUZZLE
        elif match.realtime:
            pool = Rating.Pool.LIVE  # time pressure is a skill of its own
        else:
            pool = Rating.Pool.MATCH
        for seat in seats:
            Rating.objects.get_or_create(player_id=seat.player_id, game=match.game, pool=pool)
        by_player = {
            r.player_id: r
            for r in Rating.objects.select_for_update()
            .filter(player_id__in=[s.player_id for s in seats], game=match.game, pool=pool)
            .order_by("player_id")
        }
        current = [by_player[s.player_id] for s in seats]
        ranks = []
        for seat in seats:
            assert seat.rank is not None, "a finished match ranks every seat"
            ranks.append(seat.rank)
        after = ratings.new_ratings(
            [r.value for r in current],
            ranks,
            [ratings.k_factor(r.games) for r in current],
        )
        for seat, rating, value in zip(seats, current, after, strict=True):
            _move_rating(rating, value, match_id, won=seat.rank == 1)
    return True


def _move_rating(rating: Rating, value: float, match_id: int, *, won: bool) -> None:
    """Set a locked ``rating`` to ``value`` after the game ``match_id``, and record it."""
    RatingChange.objects.create(
        match_id=match_id,
        player_id=rating.player_id,
        game=rating.game,
        pool=rating.pool,
        before=rating.value,
        after=value,
    )
    rating.value = value
    rating.games += 1
    rating.wins += won
    rating.save(update_fields=["value", "games", "wins", "updated"])


def rate_puzzle_attempt(match_id: int) -> bool:
    """Weigh a finished puzzle attempt for the puzzle ratings, exactly once whatever the
    retries: a player's first game on a puzzle (daily or practice) is one game between the
    player and the puzzle, with the result ``ratings.puzzle_result`` of the score against
    par, and moves both ratings, if they started no other game on the puzzle before it
    ended (one left unfinished shows the order just as well); any other moves nothing. An
    attempt on a puzzle whose par is not known yet waits for it (the sweep sends it again)."""
    with transaction.atomic():
        claimed = (
            Match.objects.filter(
                pk=match_id,
                kind=Match.Kind.PUZZLE,
                status=Match.Status.FINISHED,
                puzzle_rated_at=None,
                puzzle__par__isnull=False,
            )
            .exclude(created_by__profile__guest=True)  # weighed once they have an account
            .update(puzzle_rated_at=timezone.now())
        )
        if not claimed:
            return False
        match = Match.objects.only("game", "puzzle_id", "finished").get(pk=match_id)
        assert match.puzzle_id is not None  # claimed: a game on a puzzle whose par is known
        seat = Seat.objects.get(match_id=match_id)
        others = Match.objects.filter(
            puzzle_id=match.puzzle_id,
            seats__player_id=seat.player_id,
            created__lte=match.finished,
        ).exclude(pk=match_id)
        if others.exists():
            return False  # a repeat, or another attempt showed the order before it ended
        pool = Rating.Pool.SOLVING
        Rating.objects.get_or_create(player_id=seat.player_id, game=match.game, pool=pool)
        rating = Rating.objects.select_for_update().get(
            player_id=seat.player_id, game=match.game, pool=pool
        )
        puzzle = Puzzle.objects.select_for_update().get(pk=match.puzzle_id)
        assert puzzle.par is not None  # claimed: par is known
        result = ratings.puzzle_result(seat.score, puzzle.par)
        player_after = ratings.versus(
            rating.value, puzzle.rating, result, ratings.k_factor(rating.games)
        )
        puzzle_after = ratings.versus(
            puzzle.rating, rating.value, 1 - result, ratings.k_factor(puzzle.rated_games)
        )
        _move_rating(rating, player_after, match_id, won=result >= 1)
        Puzzle.objects.filter(pk=puzzle.pk).update(
            rating=puzzle_after, rated_games=F("rated_games") + 1
        )
    return True


def _solo_games(player, game: str | None = None):
    """A player's (or a player id's) finished solo games (of ``game``), by their seats."""
    seats = Seat.objects.filter(
        player=player, match__kind=Match.Kind.SOLO, match__status=Match.Status.FINISHED
    )
    return seats if game is None else seats.filter(match__game=game)


def personal_best(player, game: str) -> int | None:
    """A player's best score in their solo games of ``game``."""
    return _solo_games(player, game).aggregate(best=Max("score"))["best"]


def best_solo_game(player, game: str) -> int | None:
    """The match of the player's best solo score in ``game`` (the first that reached it)."""
    return (
        _solo_games(player, game)
        .order_by("-score", "match__finished", "match_id")
        .values_list("match_id", flat=True)
        .first()
    )


def figures_of(player_id: int) -> list[PlayerStats]:
    """A player's profile figures in the default game and in each other game they finished
    a solo game or a match of, counted from those games (not saved), in the site's order of
    the games: solo games, their best (and the game of it) and average; matches, wins and
    average score."""
    played = set(
        Seat.objects.filter(
            player_id=player_id,
            match__kind__in=[Match.Kind.SOLO, Match.Kind.MATCH],
            match__status=Match.Status.FINISHED,
        )
        .order_by()
        .values_list("match__game", flat=True)
        .distinct()
    )
    figures = []
    for game in [slug for index, slug in enumerate(GAMES) if index == 0 or slug in played]:
        solo = _solo_games(player_id, game).aggregate(
            games=Count("id"), best=Max("score"), average=Avg("score")
        )
        matches = Seat.objects.filter(
            player_id=player_id,
            match__game=game,
            match__kind=Match.Kind.MATCH,
            match__status=Match.Status.FINISHED,
        ).aggregate(games=Count("id"), wins=Count("id", filter=Q(rank=1)), average=Avg("score"))
        figures.append(
            PlayerStats(
                player_id=player_id,
                game=game,
                solo_games=solo["games"],
                solo_best=solo["best"],
                solo_average=solo["average"],
                solo_best_match_id=best_solo_game(player_id, game),
                match_games=matches["games"],
                match_wins=matches["wins"],
                match_average=matches["average"],
            )
        )
    return figures


#: What ``refresh_player_stats`` keeps of ``figures_of``.
FIGURES = (
    "solo_games",
    "solo_best",
    "solo_average",
    "solo_best_match_id",
    "match_games",
    "match_wins",
    "match_average",
)


def refresh_player_stats(player_id: int) -> list[PlayerStats]:
    """Recompute a player's profile figures in every game from their finished games (safe
    to repeat)."""
    kept = []
    for counted in figures_of(player_id):
        stats, _ = PlayerStats.objects.update_or_create(
            player_id=player_id,
            game=counted.game,
            defaults={name: getattr(counted, name) for name in FIGURES},
        )
        kept.append(stats)
    return kept


def standard_solo(match: Match) -> bool:
    """Whether ``match`` is a solo game of its game's standard options (scores compare)."""
    if match.kind != Match.Kind.SOLO:
        return False
    rules = find_game(match.game)
    return match.options == rules.dump_options(rules.options({"players": 1}))


def note_solo_best(match: Match, seat: Seat) -> None:
    """A standard solo game ended: its score becomes the player's best of its game if it
    beats it (or ties it in a game begun earlier). One statement, in the game's own
    transaction."""
    table = connection.ops.quote_name(SoloBest._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (player_id, game, score, match_id) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (player_id, game) DO UPDATE"
            " SET score = excluded.score, match_id = excluded.match_id"
            f" WHERE {table}.score < excluded.score"
            f" OR ({table}.score = excluded.score AND {table}.match_id > excluded.match_id)",
            [seat.player_id, match.game, seat.score, match.pk],
        )


def recount_solo_bests(player_id: int) -> None:
    """The player's best solo scores worked out again from their games (after games became
    theirs: a guest's, adopted by an account)."""
    best: dict[str, tuple[int, int]] = {}
    seats = _solo_games(player_id).select_related("match").order_by("match_id")
    for seat in seats:
        if standard_solo(seat.match):
            kept = best.get(seat.match.game)
            if kept is None or seat.score > kept[0]:
                best[seat.match.game] = (seat.score, seat.match_id)
    for game, (score, match_id) in best.items():
        SoloBest.objects.update_or_create(
            player_id=player_id, game=game, defaults={"score": score, "match_id": match_id}
        )
