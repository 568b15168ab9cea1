"""Who may see a match, and when a puzzle's order is still a secret: decided here only.

A puzzle's order is one secret shared by every game played on it. Nobody may see anything
that depends on it (a game on the puzzle, its replay, a practice attempt) while the puzzle
is *live* for them, unless they have finished a counted attempt at it:

- the daily puzzle is live until its UTC day is over (and for the days before it is
  published); the counted attempt is the first one finished that day;
- a puzzle in a challenge is live for each player seated or invited in it until their own
  game in it is finished, or the challenge ends;
- the two puzzles offered to a challenger are live for them while the offer is open;
- a tournament's game (a deal with ``Puzzle.tournament``) is live for an entrant until
  their own game on it is finished, and for everybody (visitors too) until its window has
  closed and every game on it is over (the sweep resigns those left unfinished).

Nobody may practise a puzzle held for a challenge that somebody might still join (an
unanswered offer, a challenge waiting for players), and a challenge is only ever offered on a
puzzle nobody has played (``puzzles.unused_puzzles``), whose order nobody can have seen.

A visitor who is not logged in could be anybody, so for them a puzzle is live while it is
live for anybody.

Who else may look at a match (``watchable``): anybody at an open match waiting for players
and at a finished one (a puzzle's games once its order is no secret for them); anybody, a
visitor too, at a match under way, unless its creator made it private, but never at a
puzzle challenge while it runs (its order is the secret of everybody in it), nor at a solo
game or a puzzle attempt. What they see then is what every player may know (``view(None)``
of the game's rules), and nothing that only some of the players know.
"""

from datetime import date, timedelta

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import ChallengeOffer, DailyResult, Entry, Match, Puzzle, Seat
from games.registry import puzzle_rules

#: An offer left unpicked for this long no longer holds its two puzzles back.
OFFER_DAYS = 3
_OPEN = (Match.Status.WAITING, Match.Status.ACTIVE)


class Hidden(Exception):
    """The viewer may not see this; ``str()`` says why, in words for them; ``back``: the
    page to go back to instead of home (a tournament's), if any."""

    def __init__(self, reason: str, back: str = "") -> None:
        super().__init__(reason)
        self.back = back


def today() -> date:
    return timezone.now().date()


def open_offers():
    """The offers still waiting for their challenger's pick (for ``OFFER_DAYS``): each holds
    its two puzzles back."""
    since = timezone.now() - timedelta(days=OFFER_DAYS)
    return ChallengeOffer.objects.filter(match__isnull=True, created__gte=since)


def _open_offers(puzzle: Puzzle):
    return open_offers().filter(Q(first=puzzle) | Q(second=puzzle))


def secret_reason(user, puzzle: Puzzle) -> str | None:
    """Why ``puzzle``'s order is still secret for ``user``, or None if they may know it."""
    signed_in = user is not None and user.is_authenticated
    if puzzle.tournament_id is not None:
        return _tournament_secret(user if signed_in else None, puzzle)
    if puzzle.daily_on is not None and puzzle.daily_on >= today():
        if puzzle.daily_on > today():
            return _("This puzzle is not published yet.")
        if not signed_in or not DailyResult.objects.filter(puzzle=puzzle, player=user).exists():
            return _(
                "This is today's daily puzzle: you can see its games once you have finished it."
            )
        return None
    challenges = Seat.objects.filter(
        match__puzzle=puzzle, match__kind=Match.Kind.CHALLENGE, match__status__in=_OPEN
    )
    offers = _open_offers(puzzle)
    if signed_in:
        challenges = challenges.filter(
            player=user,
            state__in=(Seat.State.INVITED, Seat.State.PLAYING),
            progress__lt=puzzle_rules(puzzle.game).puzzle_length,
        )
        offers = offers.filter(challenger=user)
    if challenges.exists():
        return _("You are playing this puzzle in a challenge: you can see its games after yours.")
    if offers.exists():
        return _("This puzzle is offered to you for a challenge.")
    return None


def _tournament_secret(user, puzzle: Puzzle) -> str | None:
    """Why a tournament game's order is still secret for ``user`` (None: a visitor)."""
    closed = puzzle.closes is not None and puzzle.closes <= timezone.now()
    if closed and not Match.objects.filter(puzzle=puzzle, status=Match.Status.ACTIVE).exists():
        return None  # closed, and its games left unfinished resigned (by the next sweep)
    if user is not None:
        finished = Seat.objects.filter(
            player=user, match__puzzle=puzzle, match__status=Match.Status.FINISHED
        )
        if finished.exists():
            return None
        if Entry.objects.filter(tournament__deals=puzzle, player=user).exists():
            return _(
                "The other entrants' games on game %(number)s of %(tournament)s stay hidden "
                "until you have finished yours on it, or until it closes."
            ) % {"number": puzzle.number, "tournament": puzzle.tournament}
    return _(
        "Game %(number)s of %(tournament)s stays hidden until it closes: every entrant plays "
        "the same game."
    ) % {"number": puzzle.number, "tournament": puzzle.tournament}


def way_back(user, puzzle: Puzzle) -> str:
    """The page a reader kept from a tournament's game goes back to: its tournament's, when
    they may read it (a listed tournament, or one they entered); else none."""
    tournament = puzzle.tournament
    if tournament is None:
        return ""
    signed_in = user is not None and user.is_authenticated
    if tournament.open or (signed_in and tournament.entries.filter(player=user).exists()):
        return tournament.get_absolute_url()
    return ""


def watchable(match: Match) -> bool:
    """Whether somebody not seated in the match may look at it now: the one rule of the
    pages, their live streams and every list of matches (``under_way``)."""
    if match.status == Match.Status.ACTIVE:
        return match.kind == Match.Kind.MATCH and not match.private
    return match.is_finished or (match.status == Match.Status.WAITING and match.open)


def watchable_where(match: str = "") -> Q:
    """``watchable`` as a query's condition, on the match at the path ``match`` (such as
    ``"match__"`` from a seat; the match itself by default), so that a list can leave out
    in the database what it would leave out here."""

    def where(**fields) -> Q:
        return Q(**{match + name: value for name, value in fields.items()})

    return (
        where(status=Match.Status.ACTIVE, kind=Match.Kind.MATCH, private=False)
        | where(status=Match.Status.FINISHED)
        | where(status=Match.Status.WAITING, open=True)
    )


def under_way():
    """The matches under way that others may look at (``watchable``), as a query."""
    return Match.objects.filter(status=Match.Status.ACTIVE, kind=Match.Kind.MATCH, private=False)


def check_match_visible(user, match: Match, seat: Seat | None) -> None:
    """Raise Match.DoesNotExist for a match the viewer may not know of, Hidden for one that
    would show them a puzzle order that is still secret for them."""
    if seat is None and not watchable(match):
        raise Match.DoesNotExist("No game of yours has this number.")
    if seat is not None or match.status == Match.Status.WAITING or match.puzzle is None:
        return
    reason = secret_reason(user, match.puzzle)
    if reason:
        raise Hidden(reason, back=way_back(user, match.puzzle))


def check_may_practice(user, puzzle: Puzzle) -> None:
    """Raise Hidden if playing ``puzzle`` for practice would show a secret order: one that is
    secret for the player, or one held for a challenge that anybody might still join (an
    unanswered offer, a challenge waiting for players)."""
    reason = secret_reason(user, puzzle)
    if reason is None and held_for_challenge(puzzle):
        reason = _(
            "This puzzle is held for a challenge: you can play it once the challenge has begun."
        )
    if reason:
        raise Hidden(reason)


def held_for_challenge(puzzle: Puzzle) -> bool:
    """Whether an unanswered offer holds ``puzzle``, or a challenge on it waits for players."""
    waiting = Match.objects.filter(
        puzzle=puzzle, kind=Match.Kind.CHALLENGE, status=Match.Status.WAITING
    )
    return _open_offers(puzzle).exists() or waiting.exists()
