"""The periodic sweep: every piece of due work, found from the database alone.

Tasks are sent after commit and may be lost (the broker was away, a worker died, a task
failed). Nothing depends on them arriving: every half minute the beat job asks these
functions for what is due and sends it again. Each kind of work claims its rows when it runs,
so work sent twice is done once.
"""

from datetime import datetime, timedelta

from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from games.models import Entry, Match, PlayerStats, Puzzle, Seat, Tournament

#: A par computation asked for this long ago without a result is asked for again.
PAR_LEASE = timedelta(minutes=10)
#: A player's figures left stale by a lost task are found from the solo games finished this
#: recently (their task is sent when a game ends; the sweep only catches lost ones).
STATS_WINDOW = timedelta(days=2)
#: Par searches asked for at once: the slow worker always has the next one waiting, and a
#: refill of 90 puzzles does not fill the queue with 90 searches.
PAR_IN_FLIGHT = 2
#: The standings of a running tournament are worked out again by the sweeps this long after
#: one of its games closed (an entrant who never began it then scores 0).
RECENT_CLOSE = timedelta(minutes=5)
#: An entrant who has not finished a game of a duplicate is reminded once this share of the
#: game's window is left (80% of it used, as a move's reminder comes at 80% of its time).
REMIND_LEFT = 5  # a fifth


def timed_seats():
    """Seats with a deadline in running matches: a move owed against the clock."""
    return Seat.objects.filter(deadline__isnull=False, match__status=Match.Status.ACTIVE)


def overdue_seats(now: datetime | None = None):
    """Seats whose deadline has passed in running matches: those ``due_seats`` finds."""
    return timed_seats().filter(deadline__lte=now or timezone.now())


def due_seats(now: datetime | None = None, limit: int = 10_000) -> list[int]:
    """Seats whose deadline has passed in running matches, the most overdue first."""
    return list(overdue_seats(now).order_by("deadline").values_list("id", flat=True)[:limit])


def oldest_overdue(now: datetime | None = None) -> float:
    """Seconds since the oldest deadline ``due_seats`` finds passed (0 when none has)."""
    now = now or timezone.now()
    oldest = overdue_seats(now).order_by("deadline").values_list("deadline", flat=True).first()
    return max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0


def due_reminders(now: datetime | None = None, limit: int = 10_000) -> list[int]:
    """Seats with 80% of their time used and no reminder yet."""
    now = now or timezone.now()
    return list(
        Seat.objects.filter(
            remind_at__lte=now,
            reminded=False,
            deadline__gt=now,
            match__status=Match.Status.ACTIVE,
        )
        .order_by("remind_at")
        .values_list("id", flat=True)[:limit]
    )


def unrated_matches(limit: int = 1000) -> list[int]:
    """Finished rated matches whose ratings have not been applied."""
    return list(
        Match.objects.filter(status=Match.Status.FINISHED, rated=True, rated_at=None)
        .order_by("finished")
        .values_list("id", flat=True)[:limit]
    )


def unweighed_attempts(limit: int = 1000) -> list[int]:
    """Finished puzzle attempts not yet weighed for the puzzle ratings, whose par is known."""
    return list(
        Match.objects.filter(
            kind=Match.Kind.PUZZLE,
            status=Match.Status.FINISHED,
            puzzle_rated_at=None,
            puzzle__par__isnull=False,
        )
        .exclude(created_by__profile__guest=True)  # a guest's waits for their account
        .order_by("finished", "id")
        .values_list("id", flat=True)[:limit]
    )


def stale_stats(limit: int = 1000, now: datetime | None = None) -> list[int]:
    """Players with a solo game or a match finished in the last ``STATS_WINDOW`` after their
    profile figures in its game were computed."""
    since = (now or timezone.now()) - STATS_WINDOW
    return list(
        Seat.objects.filter(
            match__kind__in=[Match.Kind.SOLO, Match.Kind.MATCH],
            match__status=Match.Status.FINISHED,
            match__finished__gte=since,
        )
        .exclude(
            Exists(
                PlayerStats.objects.filter(
                    player=OuterRef("player"),
                    game=OuterRef("match__game"),
                    updated__gte=OuterRef("match__finished"),
                )
            )
        )
        .order_by()
        .values_list("player_id", flat=True)
        .distinct()[:limit]
    )


def claim_par(now: datetime | None = None) -> list[tuple[int, str]]:
    """Puzzles without par and no computation asked for in the last ``PAR_LEASE``, as many
    as keep ``PAR_IN_FLIGHT`` asked for at once: each is marked asked-for now and returned
    with that time as the token its task must show."""
    now = now or timezone.now()
    without = Puzzle.objects.filter(par=None, tournament=None)  # a tournament's: no par
    room = PAR_IN_FLIGHT - without.filter(par_queued__gte=now - PAR_LEASE).count()
    if room <= 0:
        return []
    stale = without.filter(Q(par_queued=None) | Q(par_queued__lt=now - PAR_LEASE))
    claimed = []
    for pk, queued in stale.order_by("id").values_list("pk", "par_queued")[:room]:
        if Puzzle.objects.filter(pk=pk, par=None, par_queued=queued).update(par_queued=now):
            claimed.append((pk, now.isoformat()))
    return claimed


def unfinished_games(now: datetime):
    """The tournament games still being played whose window has closed."""
    return Match.objects.filter(
        kind=Match.Kind.DUPLICATE, status=Match.Status.ACTIVE, puzzle__closes__lte=now
    )


def deals_to_remind(now: datetime):
    """The games (deals) of running duplicates in the last fifth of their window with an
    entrant whose reminder of them is not settled (``Entry.reminded``). The fifth of each
    window is worked out here, not in SQL: SQLite adds no fraction of a duration to a time."""
    unsettled = Entry.objects.filter(
        tournament=OuterRef("tournament"), reminded__lt=OuterRef("number")
    )
    open_deals = Puzzle.objects.filter(
        tournament__status=Tournament.Status.RUNNING,
        tournament__format=Tournament.Format.DUPLICATE,
        tournament__window__isnull=False,
        closes__gt=now,
    ).filter(Exists(unsettled))
    due = [
        pk
        for pk, closes, window in open_deals.values_list("pk", "closes", "tournament__window")
        if closes is not None and closes <= now + window / REMIND_LEFT
    ]
    return Puzzle.objects.filter(pk__in=due)


def tournament_work(now: datetime | None = None) -> dict[str, list[int]]:
    """Tournaments to start, games of duplicates whose unfinished entrants to remind (80% of
    the window used), tournament games to resign (their window closed), running duplicates
    whose standings to work out again after a close, and those to finish; running swiss
    tournaments with no table being played (``swiss``: a round to pair, or the last one
    over)."""
    now = now or timezone.now()
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    swiss = running.filter(format=Tournament.Format.SWISS).exclude(
        Exists(
            Match.objects.filter(
                tournament=OuterRef("pk"),
                status__in=[Match.Status.WAITING, Match.Status.ACTIVE],
            )
        )
    )
    # A live duplicate deals its games one after the other (``live_duplicate``).
    running = running.filter(format=Tournament.Format.DUPLICATE, mode=Tournament.Mode.ASYNC)
    upcoming = Tournament.objects.filter(status=Tournament.Status.UPCOMING, starts__lte=now)
    closed = running.filter(deals__closes__lte=now, deals__closes__gt=now - RECENT_CLOSE)
    over = running.annotate(still=Count("deals", filter=Q(deals__closes__gt=now))).filter(still=0)
    return {
        "start": list(upcoming.order_by("starts").values_list("pk", flat=True)[:100]),
        "remind": list(deals_to_remind(now).order_by("pk").values_list("pk", flat=True)[:100]),
        "close": list(unfinished_games(now).order_by("pk").values_list("pk", flat=True)[:500]),
        "standings": list(closed.order_by("pk").distinct().values_list("pk", flat=True)[:100]),
        "finish": list(over.order_by("pk").values_list("pk", flat=True)[:100]),
        "swiss": list(swiss.order_by("pk").values_list("pk", flat=True)[:100]),
    }
