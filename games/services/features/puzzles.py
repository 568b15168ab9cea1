"""Puzzles, the daily puzzle and puzzle challenges: the service functions that change them.

A puzzle is a deal of a game that offers puzzles (``games.registry.puzzle_rules``), fixed
by a seed, and keeps its game; a game on it is played with the game's ``puzzle_options``.
Playing a puzzle is a one-seat match of kind PUZZLE; a challenge is a match of kind CHALLENGE
on a puzzle's deal. The site's puzzles (the stock, the daily puzzle, challenges) are deals of
``puzzle_game()``, the first of the site's games that offers puzzles.
"""

import random
import secrets
import statistics
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, OuterRef, Q, Subquery, Window
from django.db.models.functions import Coalesce, RowNumber
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.infra import queue
from games.infra import sweep as due
from games.models import ChallengeOffer, DailyResult, Match, Puzzle, Seat
from games.models.matches import LEADERBOARD
from games.registry import puzzle_game, puzzle_rules
from games.services.match import lobby, unit, visibility
from games.services.match.record import MoveRefused

LOW_STOCK = 30
REFILL = 60
CHALLENGE_ANSWER_DAYS = 3
#: The daily is chosen by predicted rating once this many puzzles have a rating from at
#: least ``RATED_GAMES_NEEDED`` first attempts.
RATED_PUZZLES_NEEDED = 10
RATED_GAMES_NEEDED = 5


def today() -> date:
    return timezone.now().date()


def create_puzzles(count: int, *, progress: Callable[[int], None] | None = None) -> list[Puzzle]:
    """Make ``count`` new puzzles of ``puzzle_game()`` from fresh seeds; their par is computed
    by Celery, a few puzzles at a time (``ask_for_par``)."""
    game = puzzle_game()
    rules = puzzle_rules(game)
    made: list[Puzzle] = []
    while len(made) < count:
        seed = secrets.randbelow(2**31)
        if Puzzle.objects.filter(seed=seed).exists():
            continue
        made.append(Puzzle.objects.create(game=game, seed=seed, start=rules.puzzle_start(seed)))
        if progress is not None:
            progress(len(made))
    ask_for_par()
    return made


def ask_for_par(*, at_once: bool = False) -> int:
    """Send the par searches of puzzles without par, at most ``sweep.PAR_IN_FLIGHT`` asked
    for at a time (each finished search asks for the next; the sweep asks for lost ones),
    after commit unless ``at_once``; how many were asked for. A search the broker does not
    take is released for the next sweep."""
    claimed = due.claim_par()
    for puzzle_id, token in claimed:
        queue.send(
            "games.tasks.compute_par",
            puzzle_id,
            token,
            unsent=partial(release_par, puzzle_id, token),
            at_once=at_once,
        )
    return len(claimed)


def release_par(puzzle_id: int, token: str) -> None:
    """The computation asked for at ``token`` was never sent: the next sweep asks again (it
    leaves a computation asked for alone for ``sweep.PAR_LEASE``, in case it is running)."""
    asked = datetime.fromisoformat(token)
    Puzzle.objects.filter(pk=puzzle_id, par=None, par_queued=asked).update(par_queued=None)


def compute_par(puzzle_id: int, *, token: str | None = None) -> int | None:
    """Store a puzzle's par once (a search that knows the whole order).

    ``token`` is the time the computation was asked for (``Puzzle.par_queued``): the task
    claims the puzzle only while it is still the latest request, so copies of a request
    that was sent again do nothing.
    """
    puzzle = Puzzle.objects.filter(pk=puzzle_id, par=None).first()
    if puzzle is None:
        return None
    if token is not None:
        asked = datetime.fromisoformat(token)
        if not Puzzle.objects.filter(pk=puzzle_id, par=None, par_queued=asked).update(
            par_queued=timezone.now()
        ):
            return None
    score, line = puzzle_rules(puzzle.game).puzzle_par_line(puzzle.seed, settings.PUZZLE_PAR_EFFORT)
    Puzzle.objects.filter(pk=puzzle_id, par=None).update(par=score, par_line=list(line))
    return score


def has_finished(user, puzzle: Puzzle) -> bool:
    """Whether ``user`` has finished a game on the puzzle (then they may see its par)."""
    return (
        user.is_authenticated
        and Seat.objects.filter(
            player=user, match__puzzle=puzzle, match__status=Match.Status.FINISHED
        ).exists()
    )


def par_line_for(user, puzzle: Puzzle) -> list[str] | None:
    """The moves that reach the puzzle's par, for ``user`` once they have finished a game on
    it and its order is no secret for them any more; None before (or while it is unknown)."""
    if not puzzle.par_line or not has_finished(user, puzzle):
        return None
    if visibility.secret_reason(user, puzzle) is not None:
        return None
    return list(puzzle.par_line)


def recompute_par(
    *, effort: float | None = None, progress: Callable[[int, int], None] | None = None
) -> int:
    """Search the par of every puzzle again (after the search got stronger) and store it
    with the moves that reach it;
    ``progress(done, total)`` after each. Returns how many pars changed."""
    effort = settings.PUZZLE_PAR_EFFORT if effort is None else effort
    puzzles = Puzzle.objects.filter(tournament=None).order_by("pk")
    ids = list(puzzles.values_list("pk", "game", "seed", "par"))
    changed = 0
    for done, (pk, game, seed, old) in enumerate(ids, start=1):
        score, line = puzzle_rules(game).puzzle_par_line(seed, effort)
        Puzzle.objects.filter(pk=pk).update(par=score, par_line=list(line))
        changed += score != old
        if progress is not None:
            progress(done, len(ids))
    return changed


@transaction.atomic
def start_puzzle(player, puzzle: Puzzle, *, daily: bool = False) -> Match:
    """A new attempt at ``puzzle``: the counted daily attempt, or practice, which is refused
    (``visibility.Hidden``) while the puzzle's order is still a secret for the player."""
    if not daily:
        # Under the puzzle's lock, as a pick or the daily's publishing would check: none of
        # them can miss the other.
        Puzzle.objects.select_for_update().filter(pk=puzzle.pk).first()
        visibility.check_may_practice(player, puzzle)
    return lobby.start_solo(
        player,
        kind=Match.Kind.PUZZLE,
        puzzle=puzzle,
        daily=daily,
    )


def unused_puzzles():
    """The puzzles nobody has played, that are not dailies and that no unanswered offer holds:
    their order is known to nobody, so they may become a daily or be offered for a challenge."""
    offered = visibility.open_offers()
    return Puzzle.objects.filter(
        game=puzzle_game(), daily_on=None, attempts=0, matches=None, tournament=None
    ).exclude(Q(pk__in=offered.values("first_id")) | Q(pk__in=offered.values("second_id")))


def publish_daily(day: date | None = None) -> Puzzle:
    """The puzzle of ``day`` (UTC): exactly one, however often or late this runs."""
    day = day or today()
    existing = Puzzle.objects.filter(daily_on=day).first()
    if existing is not None:
        return existing
    unused = unused_puzzles()
    published = None
    while published is None:
        candidate = middling(unused) or unused.order_by("id").first() or create_puzzles(1)[0]
        try:
            with transaction.atomic():
                # Under the candidate's lock, so that no practice attempt starts on it unseen.
                Puzzle.objects.select_for_update().filter(pk=candidate.pk).first()
                unplayed = Q(daily_on=None, matches=None)
                Puzzle.objects.filter(unplayed, pk=candidate.pk).update(daily_on=day)
        except IntegrityError:
            pass  # another run published a puzzle for this day first
        # Nothing published when another run took this candidate for another day: retry.
        published = Puzzle.objects.filter(daily_on=day).first()
    if unused.count() < LOW_STOCK:
        queue.send("games.tasks.refill_puzzles")
    return published


#: The PostgreSQL advisory lock that lets one refill at a time count the stock.
REFILL_LOCK = 0x6E6D6272  # "nmbr"


@transaction.atomic
def refill_puzzles() -> int:
    """Top the unused puzzles up to ``LOW_STOCK + REFILL`` once fewer than ``LOW_STOCK`` are
    left; how many were made. Runs one at a time (a lock on PostgreSQL; SQLite writes one
    transaction at a time anyway), so a second run, even at the same moment, finds the stock
    full. The hourly beat job runs it too: a refill whose task was lost is made within the
    hour."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [REFILL_LOCK])
    unused = unused_puzzles().count()
    if unused >= LOW_STOCK:
        return 0
    return len(create_puzzles(LOW_STOCK + REFILL - unused))


def middling(unused) -> Puzzle | None:
    """The puzzle of ``unused`` whose rating, predicted from its par by the puzzles rated so
    far, is nearest their median: the daily is neither among the easiest nor the hardest.
    None until enough puzzles are rated (or if par tells nothing of the rating). A rated
    puzzle has been played, its order is known: it never becomes a daily itself."""
    rated = list(
        Puzzle.objects.filter(rated_games__gte=RATED_GAMES_NEEDED, par__isnull=False).values_list(
            "par", "rating"
        )
    )
    if len(rated) < RATED_PUZZLES_NEEDED:
        return None
    pars, values = zip(*rated, strict=True)
    try:
        slope, intercept = statistics.linear_regression(pars, values)
    except statistics.StatisticsError:
        return None  # every rated puzzle has the same par
    middle = statistics.median(values)
    candidates = unused.filter(par__isnull=False).values_list("pk", "par")
    best = min(
        candidates, key=lambda c: (abs(intercept + slope * c[1] - middle), c[0]), default=None
    )
    return None if best is None else Puzzle.objects.get(pk=best[0])


def daily_puzzle(day: date | None = None) -> Puzzle | None:
    return Puzzle.objects.filter(daily_on=day or today()).first()


def daily_attempt(player, puzzle: Puzzle) -> Seat | None:
    """The player's unfinished attempt at the daily ``puzzle``, if any."""
    return Seat.objects.filter(
        player=player, match__puzzle=puzzle, match__daily=True, match__status=Match.Status.ACTIVE
    ).first()


def play_daily(player) -> Match:
    """Today's puzzle for ``player``: their unfinished attempt, else a new one."""
    puzzle = publish_daily()
    ongoing = daily_attempt(player, puzzle)
    if ongoing is not None:
        return ongoing.match
    try:
        return start_puzzle(player, puzzle, daily=True)
    except IntegrityError:
        # The same request twice at once (a double click): the other one started it.
        ongoing = daily_attempt(player, puzzle)
        if ongoing is None:
            raise
        return ongoing.match


def counted_for_its_day(match: Match) -> bool:
    """Whether a daily attempt is the one counted for its day: the first finished on the
    puzzle's day; the others are practice."""
    return DailyResult.objects.filter(match=match).exists()


#: Past daily puzzles the archive lists.
ARCHIVE_DAYS = 60


def archive(shown: int = ARCHIVE_DAYS) -> list[tuple[Puzzle, DailyResult | None]]:
    """The last ``shown`` past daily puzzles, the latest first, each with how many results
    count for it (``players``) and its winner (``daily_winners``): two queries, which read
    the results of those days alone."""
    counted = (
        DailyResult.objects.filter(puzzle=OuterRef("pk"))
        .order_by()
        .values("puzzle")
        .annotate(players=Count("id"))
        .values("players")
    )
    days = list(
        Puzzle.objects.filter(daily_on__lt=today())
        .order_by("-daily_on")
        .annotate(players=Coalesce(Subquery(counted), 0))[:shown]
    )
    winners = daily_winners(days)
    return [(puzzle, winners.get(puzzle.pk)) for puzzle in days]


def daily_winners(days: Sequence[Puzzle]) -> dict[int, DailyResult]:
    """The best counted result of each daily puzzle, by the leaderboard's order (the
    results' own): one query, which sends back those results alone."""
    leaderboard = [
        F(field[1:]).desc() if field.startswith("-") else F(field).asc() for field in LEADERBOARD
    ]
    first = (
        DailyResult.objects.filter(puzzle__in=days)
        .annotate(place=Window(RowNumber(), partition_by=[F("puzzle_id")], order_by=leaderboard))
        .filter(place=1)
        .values("pk")
    )
    results = DailyResult.objects.filter(pk__in=first).select_related("player").order_by()
    return {result.puzzle_id: result for result in results}


def streak(player, *, day: date | None = None) -> int:
    """Days in a row, up to today (or yesterday, while today is still open), with a result."""
    day = day or today()
    days = set(
        DailyResult.objects.filter(player=player, day__lte=day).values_list("day", flat=True)
    )
    return streak_in(days, day)


def streak_in(days: set[date], day: date) -> int:
    """The run of consecutive ``days`` ending on ``day``, or on the day before while ``day``
    has no result yet."""
    if day not in days:
        day -= timedelta(days=1)
    count = 0
    while day - timedelta(days=count) in days:
        count += 1
    return count


# ------------------------------------------------------------------ challenges


def offer_challenge(
    challenger,
    *,
    invite: list[str],
    players: int,
    open: bool,
    rated: bool,
    time_control: str,
    rng: random.Random | None = None,
    link: bool = False,
) -> ChallengeOffer:
    """Two distinct random puzzles to choose from that nobody has played, that never were
    daily puzzles and that no other offer holds (``unused_puzzles``): a puzzle that has been
    played anywhere may have had its order seen, by anybody who might join. With ``link``
    the challenge gets an invitation link (``services.features.links``)."""
    lobby.check_match_settings(
        challenger,
        game=puzzle_game(),
        players=players,
        time_control=time_control,
        invite=invite,
        open=open,
        options=puzzle_rules(puzzle_game()).puzzle_options,
        link=link,
    )
    candidates = list(unused_puzzles().values_list("pk", flat=True))
    if len(candidates) < 2:
        candidates += [p.pk for p in create_puzzles(2 - len(candidates))]
    first, second = (rng or random.SystemRandom()).sample(candidates, 2)
    return ChallengeOffer.objects.create(
        challenger=challenger,
        first_id=first,
        second_id=second,
        invite=" ".join(invite),
        players=players,
        open=open,
        link=link,
        rated=rated,
        time_control=time_control,
    )


def pick_challenge(offer_id: int, challenger, puzzle_id: int) -> Match:
    """The challenger chooses one of the two offered puzzles: the challenge is created."""
    with transaction.atomic():
        offer = (
            ChallengeOffer.objects.select_for_update()
            .filter(pk=offer_id, challenger=challenger)
            .first()
        )
        if offer is None:
            raise MoveRefused(_("This offer is not yours."))
        if offer.match_id is not None:
            raise MoveRefused(_("You already picked a puzzle from this offer."))
        if not visibility.open_offers().filter(pk=offer.pk).exists():
            raise MoveRefused(_("This offer has expired: ask for a new pair."))
        if puzzle_id not in (offer.first_id, offer.second_id):
            raise MoveRefused(_("Pick one of the two puzzles offered."))
        Puzzle.objects.select_for_update().filter(pk=puzzle_id).first()
        if Match.objects.filter(puzzle_id=puzzle_id).exists():
            raise MoveRefused(
                _("This puzzle has been played since it was offered: pick the other one.")
            )
        match = lobby.create_match(
            challenger,
            players=offer.players,
            time_control=offer.time_control,
            rated=offer.rated,
            invite=offer.invite.split(),
            open=offer.open,
            puzzle=Puzzle.objects.get(pk=puzzle_id),
            link=offer.link,
        )
        offer.match = match
        offer.save(update_fields=["match"])
        return match


def rematch(match_id: int, player) -> ChallengeOffer:
    """Two new puzzles for the same players after a finished challenge."""
    match = Match.objects.filter(
        pk=match_id, kind=Match.Kind.CHALLENGE, status=Match.Status.FINISHED
    ).first()
    if match is None:
        raise MoveRefused(_("Only a finished challenge can be replayed."))
    seats = list(match.seats.select_related("player"))
    if all(s.player_id != player.pk for s in seats):
        raise MoveRefused(_("You did not play in this challenge."))
    time_control = next(
        (k for k, v in lobby.TIME_CONTROLS.items() if v == match.time_per_move), "1d"
    )
    return offer_challenge(
        player,
        invite=[s.player.username for s in seats if s.player_id != player.pk],
        players=match.players,
        open=False,
        rated=match.rated,
        time_control=time_control,
    )


def expire_challenges(*, now=None) -> int:
    """Call off challenges nobody answered within three days."""
    now = now or timezone.now()
    stale = Match.objects.filter(
        kind=Match.Kind.CHALLENGE,
        status=Match.Status.WAITING,
        created__lte=now - timedelta(days=CHALLENGE_ANSWER_DAYS),
    ).values_list("pk", flat=True)
    expired = 0
    for match_id in stale:
        with unit.change(match_id) as change:
            if change.match.status != Match.Status.WAITING:
                continue
            lobby.cancel_match(
                change, gettext_noop("The challenge expired: it was not answered in time.")
            )
            expired += 1
    return expired
