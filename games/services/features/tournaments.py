"""Tournaments: creating one, joining and leaving before the start, starting, playing its
games, the standings, closing each game's window and finishing.

A duplicate tournament (the only format offered so far) is asynchronous: at the start every
game's deal is made (a ``Puzzle`` of the tournament, with the tournament's options) and all
its games open at once; game k closes k windows after the start. An entrant plays each game
alone (``play``: a one-seat match of kind DUPLICATE on the deal), whenever they like before it
closes; its order stays secret as a puzzle's does (``visibility.secret_reason``). When a game
closes, a game of it not finished is resigned for its player (its score so far counts) and an
entrant who never began it scores 0. Standings (``duplicate.standings``) are worked out again
with every game finished (``record_game``, a subscriber, in the game's own transaction) and at
every close; the tournament is finished once its last game has closed. What is due is found
by the sweep (``sweep.tournament_work``) and done by ``run_due``, safe to run twice.

A tournament the staff set to repeat has its next one created as it starts (``recur``), for
either format, also when it is called off.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import notices
from games.infra import sweep as due
from games.models import Entry, Match, Notification, Profile, Puzzle, Seat, Tournament
from games.registry import puzzle_games
from games.services.features import duplicate, push_devices
from games.services.match import lobby
from games.services.match import play as playing
from games.services.match.record import MoveRefused

NAME_LENGTH = 80
MOST_GAMES = 10
#: The windows a creator may choose: the time to finish each game.
WINDOWS = {
    "1h": timedelta(hours=1),
    "12h": timedelta(hours=12),
    "1d": timedelta(days=1),
    "3d": timedelta(days=3),
}
#: The latest start a creator may choose.
FURTHEST = timedelta(days=60)
#: A tournament needs this many entrants at its start; with fewer it is called off.
FEWEST = 2

STARTED = gettext_noop("%(tournament)s has started: your games are open.")
#: The start of a live duplicate: its games are dealt one after the other, the first now.
LIVE_STARTED = gettext_noop("%(tournament)s has started: its first game begins now.")
CALLED_OFF = gettext_noop("%(tournament)s was called off: too few players joined.")
#: The reminder of a game not finished, its window 80% used (``closes``: a ``notices.Instant``).
CLOSES_SOON = gettext_noop(
    "Game %(number)s of %(tournament)s closes at %(closes)s: finish it before then."
)
#: The reminder as the notifications kept from before have it: ``closes`` written in UTC.
CLOSES_SOON_UTC = gettext_noop(
    "Game %(number)s of %(tournament)s closes at %(closes)s UTC: finish it before then."
)
RESULTS = gettext_noop("%(tournament)s is over: you finished #%(rank)s of %(entrants)s.")
#: The result of an entrant who shares their place with others.
SHARED = gettext_noop(
    "%(tournament)s is over: you finished #%(rank)s of %(entrants)s (a shared place)."
)


def _is_account(player) -> bool:
    if player is None or not player.is_authenticated:
        return False
    return not Profile.objects.filter(player=player, guest=True).exists()


def create(
    creator,
    *,
    name: str,
    game: str,
    games: int,
    window: str,
    starts: datetime,
    open: bool,
    options: Mapping[str, Any] | None = None,
    format: str = Tournament.Format.DUPLICATE,
) -> Tournament:
    """A new tournament, upcoming; MoveRefused with the reason for settings it cannot have."""
    name = checked(creator, name, starts)
    if format != Tournament.Format.DUPLICATE:
        raise MoveRefused(_("Choose a format."))
    if game not in puzzle_games():
        raise MoveRefused(_("Choose a game."))
    if not 1 <= games <= MOST_GAMES:
        raise MoveRefused(
            _("A tournament has 1 to %(most)s games.") % {"most": MOST_GAMES},
        )
    if window not in WINDOWS:
        raise MoveRefused(_("Choose the time for each game."))
    stored = lobby.game_options(game, 1, {**(options or {}), "pace": "free"})
    tournament = Tournament.objects.create(
        name=name,
        game=game,
        format=format,
        mode=Tournament.Mode.ASYNC,
        options=stored,
        games=games,
        window=WINDOWS[window],
        starts=starts,
        created_by=creator,
        open=open,
        token=secrets.token_urlsafe(lobby.LINK_BYTES),
    )
    Entry.objects.create(tournament=tournament, player=creator)
    return tournament


def checked(creator, name: str, starts: datetime) -> str:
    """The tournament's name, its spaces tidied, if ``creator`` may create one of that name
    starting then; MoveRefused with the reason otherwise."""
    if not _is_account(creator):
        raise MoveRefused(_("Create an account to create a tournament."))
    if not creator.email:
        raise MoveRefused(_("Confirm your e-mail address to create a tournament."))
    name = " ".join(name.split())
    if not name or len(name) > NAME_LENGTH:
        raise MoveRefused(
            _("Give the tournament a name of at most %(length)s characters.")
            % {"length": NAME_LENGTH}
        )
    now = timezone.now()
    if starts <= now:
        raise MoveRefused(_("Choose a start in the future."))
    if starts > now + FURTHEST:
        raise MoveRefused(_("Choose a start within 60 days."))
    return name


def find(tournament_id: int, user, token: str = "") -> Tournament:
    """The tournament as ``user`` may know of it: an open one, one they created or entered,
    or one whose invitation ``token`` they hold; Tournament.DoesNotExist otherwise."""
    tournament = Tournament.objects.select_related("created_by").get(pk=tournament_id)
    if tournament.open or (token and secrets.compare_digest(token, tournament.token)):
        return tournament
    if user.is_authenticated and (
        tournament.created_by_id == user.pk
        or Entry.objects.filter(tournament=tournament, player=user).exists()
    ):
        return tournament
    raise Tournament.DoesNotExist("No tournament has this number.")


@transaction.atomic
def join(tournament_id: int, player, token: str = "") -> Entry:
    """Enter the tournament before its start (by its link's ``token`` if it is unlisted)."""
    if not _is_account(player):
        raise MoveRefused(_("Create an account to play in a tournament."))
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if not tournament.open and not secrets.compare_digest(token, tournament.token):
        raise MoveRefused(_("This tournament is joined by its invitation link only."))
    if tournament.status != Tournament.Status.UPCOMING:
        raise MoveRefused(_("This tournament has begun: nobody can join it any more."))
    try:
        with transaction.atomic():
            return Entry.objects.create(tournament=tournament, player=player)
    except IntegrityError:
        raise MoveRefused(_("You are already in this tournament.")) from None


@transaction.atomic
def leave(tournament_id: int, player) -> None:
    """Leave the tournament before its start."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.status != Tournament.Status.UPCOMING:
        raise MoveRefused(_("This tournament has begun: you can no longer leave it."))
    if not Entry.objects.filter(tournament=tournament, player=player).delete()[0]:
        raise MoveRefused(_("You are not in this tournament."))


def notify(tournament: Tournament, player_ids, text: str, /, *, push: str = "", **params) -> None:
    """Tell the players ``text`` (an English message marked with ``gettext_noop``, with
    ``params``; the tournament is ``tournament``, linked to), said in each reader's language;
    with ``push`` (a kind of ``push_devices``) their devices are told too."""
    ids = list(player_ids)
    params = {"tournament": tournament, **params}
    kept = notices.stored(params)
    Notification.objects.bulk_create(
        Notification(player_id=pk, message=text, params=kept) for pk in ids
    )
    if push:
        push_devices.write([(pk, tournament, push, text, params) for pk in ids])


def tell_results(tournament: Tournament, entries: list[Entry]) -> None:
    """Every entrant told their final place (one shared with others said so), on the site
    and on their devices."""
    shared = Counter(entry.rank for entry in entries if entry.rank)
    for entry in entries:
        rank = entry.rank or len(entries)
        notify(
            tournament,
            [entry.player_id],
            SHARED if entry.rank is not None and shared[entry.rank] > 1 else RESULTS,
            push=push_devices.RESULT,
            rank=rank,
            entrants=len(entries),
        )


@transaction.atomic
def start(tournament_id: int, now: datetime | None = None) -> bool:
    """Start the tournament if it is due: deal its games, open them and tell its entrants
    (or call it off with fewer than ``FEWEST`` entrants); False if there was nothing to do."""
    now = now or timezone.now()
    claimed = Tournament.objects.filter(
        pk=tournament_id, status=Tournament.Status.UPCOMING, starts__lte=now
    ).update(status=Tournament.Status.RUNNING, started=now)
    if not claimed:
        return False
    tournament = Tournament.objects.get(pk=tournament_id)
    recur(tournament, now)
    entrants = list(tournament.entries.values_list("player_id", flat=True))
    if len(entrants) < FEWEST:
        Tournament.objects.filter(pk=tournament_id).update(
            status=Tournament.Status.CANCELLED, finished=now
        )
        notify(tournament, entrants, CALLED_OFF)
        return True
    if tournament.format == Tournament.Format.SWISS:
        return True  # its rounds are paired by ``swiss_rounds``
    if tournament.mode == Tournament.Mode.LIVE:
        # Its games are dealt one after the other, the first at once (``live_duplicate``).
        notify(tournament, entrants, LIVE_STARTED, push=push_devices.MOVE)
        return True
    for number in range(1, tournament.games + 1):
        Puzzle.objects.create(
            game=tournament.game,
            seed=new_deal_seed(),
            start="",
            options=tournament.options,
            tournament=tournament,
            number=number,
            opens=now,
            closes=now + number * tournament.window,
        )
    notify(tournament, entrants, STARTED, push=push_devices.MOVE)
    return True


def new_deal_seed() -> int:
    """A seed no puzzle has."""
    while True:
        seed = lobby.new_seed()
        if not Puzzle.objects.filter(seed=seed).exists():
            return seed


def recur(tournament: Tournament, now: datetime) -> Tournament | None:
    """The next of a repeating tournament (``Tournament.repeat``), as it starts: the same
    settings, name, creator and featuring, ``repeat`` after it (or the first such start to
    come); its creator entered if they are in this one. Once: a second call finds it made
    (``Tournament.previous`` is unique) and returns None, as for one that does not repeat."""
    if not tournament.repeat or Tournament.objects.filter(previous=tournament).exists():
        return None
    starts = tournament.starts + tournament.repeat
    while starts <= now:
        starts += tournament.repeat
    try:
        with transaction.atomic():
            following = Tournament.objects.create(
                name=tournament.name,
                game=tournament.game,
                format=tournament.format,
                mode=tournament.mode,
                options=tournament.options,
                games=tournament.games,  # a swiss's rounds left to the start: still 0
                window=tournament.window,
                time_per_move=tournament.time_per_move,
                table_size=tournament.table_size,
                starts=starts,
                created_by_id=tournament.created_by_id,
                open=tournament.open,
                token=secrets.token_urlsafe(lobby.LINK_BYTES),
                featured=tournament.featured,
                repeat=tournament.repeat,
                previous=tournament,
            )
    except IntegrityError:
        return None  # made at the same moment by another run
    if tournament.entries.filter(player_id=tournament.created_by_id).exists():
        Entry.objects.create(tournament=following, player_id=tournament.created_by_id)
    return following


def deal_of(tournament: Tournament, number: int) -> Puzzle:
    return Puzzle.objects.get(tournament=tournament, number=number)


def play(tournament_id: int, player, number: int) -> Match:
    """The entrant's game ``number`` of the tournament: begun now, or the one begun before."""
    with transaction.atomic():
        deal = (
            Puzzle.objects.select_for_update()
            .select_related("tournament")
            .filter(tournament_id=tournament_id, number=number)
            .first()
        )
        if deal is None or deal.tournament is None:
            raise MoveRefused(_("This game of the tournament has not begun."))
        if not Entry.objects.filter(tournament_id=tournament_id, player=player).exists():
            raise MoveRefused(_("You are not in this tournament."))
        mine = Match.objects.filter(puzzle=deal, seats__player=player).first()
        if mine is not None:
            return mine
        if deal.tournament.status != Tournament.Status.RUNNING or (
            deal.closes is not None and deal.closes <= timezone.now()
        ):
            raise MoveRefused(_("This game of the tournament has closed."))
        return lobby.start_solo(player, kind=Match.Kind.DUPLICATE, puzzle=deal)


def record_game(match: Match) -> None:
    """A game of a tournament finished: its standings now (a subscriber, with the change)."""
    if match.puzzle_id is None:
        return
    # A live deal's standings are worked out once its last game is over (``live_duplicate``).
    tournament_id = Puzzle.objects.filter(pk=match.puzzle_id, dealt__isnull=True).values_list(
        "tournament_id", flat=True
    )
    found = tournament_id.first()
    if found is not None:
        update_standings(found)


def scores_by_game(tournament: Tournament, now: datetime) -> list[dict[int, int]]:
    """For each game, the scores that count: the games finished (those still being played
    when it closed are resigned by the sweep, their score so far counting; no game can be
    begun after); once it is closed, 0 for every entrant who has none."""
    entrants = list(tournament.entries.values_list("player_id", flat=True))
    games = []
    for deal in tournament.deals.order_by("number"):
        seats = Seat.objects.filter(
            match__puzzle=deal,
            match__kind=Match.Kind.DUPLICATE,
            match__status=Match.Status.FINISHED,
        )
        scores = dict(seats.values_list("player_id", "score"))
        if deal.closes is not None and deal.closes <= now:
            scores = {player: scores.get(player, 0) for player in entrants}
        games.append(scores)
    return games


@transaction.atomic
def update_standings(tournament_id: int, now: datetime | None = None) -> None:
    """Work the standings out again and keep them on the entries."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    entries = {entry.player_id: entry for entry in tournament.entries.all()}
    games = scores_by_game(tournament, now or timezone.now())
    for standing in duplicate.standings(list(entries), games):
        entry = entries[standing.player]
        entry.played, entry.score = standing.played, standing.score
        entry.percent, entry.rank = standing.percent, standing.rank
    # One INSERT .. ON CONFLICT DO UPDATE for all of them: bulk_update's CASE per row took
    # most of a second for 1,000 entrants (bench.tournament).
    Entry.objects.bulk_create(
        entries.values(),
        update_conflicts=True,
        unique_fields=["id"],
        update_fields=["played", "score", "percent", "rank"],
    )


def close_games(match_ids: list[int]) -> int:
    """Resign, for their players, the unfinished games of closed windows (each through the
    match's own change, so its subscribers record it); how many were resigned."""
    done = 0
    for match_id in match_ids:
        seat = Seat.objects.filter(match_id=match_id).select_related("player").first()
        if seat is None:
            continue
        try:
            playing.resign(match_id, seat.player)
        except MoveRefused:
            continue  # finished meanwhile, or nothing left to play: its score stands
        done += 1
    return done


def finish(tournament_id: int, now: datetime | None = None) -> bool:
    """Finish a running tournament whose games have all closed and been played out: the
    final standings, and every entrant told their place. False if it is not due."""
    now = now or timezone.now()
    with transaction.atomic():
        if due.unfinished_games(now).filter(puzzle__tournament_id=tournament_id).exists():
            return False
        claimed = (
            Tournament.objects.filter(
                pk=tournament_id,
                status=Tournament.Status.RUNNING,
                format=Tournament.Format.DUPLICATE,
            )
            .exclude(deals__closes__gt=now)
            .update(status=Tournament.Status.FINISHED, finished=now)
        )
        if not claimed:
            return False
        update_standings(tournament_id, now)
        tournament = Tournament.objects.get(pk=tournament_id)
        tell_results(tournament, list(tournament.entries.all()))
    return True


@transaction.atomic
def remind(deal_id: int, now: datetime | None = None) -> int:
    """Remind each entrant who has not finished the game ``deal_id`` that it closes soon (on
    the site, on their devices, and by e-mail: ``Entry.mail_at``), once its window is 80%
    used (``sweep.deals_to_remind``); an entrant who finished it needs none. Each entry is
    locked and settled (``Entry.reminded``), so two runs remind once. How many were told."""
    now = now or timezone.now()
    deal = Puzzle.objects.select_related("tournament").get(pk=deal_id)
    tournament = deal.tournament
    if tournament is None or deal.number is None or deal.closes is None:
        return 0  # not a tournament's game
    if not due.deals_to_remind(now).filter(pk=deal_id).exists():
        return 0
    unsettled = Entry.objects.select_for_update().filter(
        tournament=tournament, reminded__lt=deal.number
    )
    entries = {entry.pk: entry.player_id for entry in unsettled}
    seats = Seat.objects.filter(match__puzzle=deal, player_id__in=list(entries.values()))
    done = set(
        seats.filter(match__status=Match.Status.FINISHED).values_list("player_id", flat=True)
    )
    begun = dict(
        seats.exclude(match__status=Match.Status.FINISHED).values_list("player_id", "match")
    )
    Entry.objects.filter(pk__in=[pk for pk, player in entries.items() if player in done]).update(
        reminded=deal.number
    )
    told = [player for player in entries.values() if player not in done]
    Entry.objects.filter(
        pk__in=[pk for pk, player in entries.items() if player not in done]
    ).update(reminded=deal.number, mail_at=now)
    params = {
        "number": deal.number,
        "tournament": deal.tournament,
        "closes": notices.Instant(deal.closes),
    }
    kept = notices.stored(params)
    Notification.objects.bulk_create(
        Notification(player_id=player, match_id=begun.get(player), message=CLOSES_SOON, params=kept)
        for player in told
    )
    push_devices.write(
        [(player, tournament, push_devices.ALARM, CLOSES_SOON, params) for player in told]
    )
    return len(told)


def run_due(now: datetime | None = None) -> dict[str, int]:
    """Do whatever is due (``sweep.tournament_work``): each step claims its rows, so two runs
    do it once."""
    work = due.tournament_work(now)
    done = dict.fromkeys(("start", "remind", "close", "standings", "finish"), 0)  # swiss: apart
    for tournament_id in work["start"]:
        done["start"] += start(tournament_id, now)
    for deal_id in work["remind"]:
        done["remind"] += remind(deal_id, now)
    done["close"] = close_games(work["close"])
    for tournament_id in work["standings"]:
        update_standings(tournament_id, now)
        done["standings"] += 1
    for tournament_id in work["finish"]:
        done["finish"] += finish(tournament_id, now)
    return done
