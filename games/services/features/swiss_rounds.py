"""Swiss tournaments of nmbrs!: creating one, starting, pairing each round, withdrawing,
the standings and the finish.

A swiss is played in rounds (``Tournament.games``) of tables of ``table_size`` players,
paired by ``games.tournaments.swiss`` from the rounds played so far: by score, no repeat
meeting where avoidable, byes for the odd ones. Each table is a match between its players,
started at once with every seat taken (``lobby.start_seated``), at the tournament's pace (a
correspondence time control or a real-time speed), casual (docs/rules.md §7.4), with the
tournament's options; others may watch it as any match. A ``SwissRound`` row says the round
was paired (unique per round: two last tables finishing at once pair the next round once:
``advance`` locks the tournament and looks again).

Every player of a new round is told: their table (linked) or their bye. At a table played by
post the player who owes its first move is told that as in any match ("your move" on the
site, pushed and mailed), so the round's news comes to them read; a real-time table's
players are at the tournament's page and get no push or e-mail, as in any real-time match.

When a table finishes (``table_finished``, after its change commits) or when the sweep finds a
running swiss with no table being played (``sweep.tournament_work``, "swiss"), ``advance``
pairs the next round, or after the last finishes the tournament: final places on the entries
and every entrant told theirs. A late table is decided by its deadlines as any match. An
entrant who withdraws is paired no more (their table under way is theirs to finish).

A real-time swiss does not wait for the sweep: the clock (``manage.py clock``) looks for one
due to start or left between rounds (``due_live``) and hands it to the fast workers
(``run_live``), which start it and pair its round within a second or two.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import notices
from games.infra import sweep
from games.models import Entry, Match, Notification, Rating, Seat, SwissRound, Tournament
from games.services.features import tournaments
from games.services.match import lobby
from games.services.match.record import MoveRefused
from games.tournaments import swiss

logger = logging.getLogger(__name__)

#: The game swiss tournaments are offered for.
GAME = "nmbrs"
MOST_ROUNDS = 10
#: The paces a creator may choose: correspondence time controls and real-time speeds.
PACES = ("1h", "12h", "1d", *lobby.SPEEDS)

ROUND_STARTED = gettext_noop("Round %(round)s of %(tournament)s has started: your table is ready.")
#: The news as the notifications kept from before have it, naming the table (now named by
#: its round: the news links to it).
ROUND_STARTED_NAMED = gettext_noop(
    "Round %(round)s of %(tournament)s has started: your table is %(match)s."
)
BYE = gettext_noop("Round %(round)s of %(tournament)s has started: you have a bye (1 point).")


def create(
    creator,
    *,
    name: str,
    rounds: int | None,
    table_size: int,
    pace: str,
    starts: datetime,
    open: bool,
    options: Mapping[str, Any] | None = None,
) -> Tournament:
    """A new swiss tournament, upcoming (``rounds`` None: as many as ``swiss.rounds_for`` the
    entrants at the start); MoveRefused with the reason for settings it cannot have."""
    name = tournaments.checked(creator, name, starts)
    if table_size not in swiss.TABLE_SIZES:
        raise MoveRefused(_("Choose 2, 3 or 4 players a table."))
    if rounds is not None and not 1 <= rounds <= MOST_ROUNDS:
        raise MoveRefused(_("A swiss tournament has 1 to %(most)s rounds.") % {"most": MOST_ROUNDS})
    if pace not in PACES:
        raise MoveRefused(_("Choose a time per move."))
    stored = lobby.game_options(GAME, table_size, options or {})
    tournament = Tournament.objects.create(
        name=name,
        game=GAME,
        format=Tournament.Format.SWISS,
        mode=Tournament.Mode.LIVE if pace in lobby.SPEEDS else Tournament.Mode.ASYNC,
        options=stored,
        games=rounds or 0,
        table_size=table_size,
        time_per_move=lobby.SPEEDS.get(pace) or lobby.TIME_CONTROLS[pace],
        starts=starts,
        created_by=creator,
        open=open,
        token=secrets.token_urlsafe(lobby.LINK_BYTES),
    )
    Entry.objects.create(tournament=tournament, player=creator)
    return tournament


def pace_of(tournament: Tournament) -> str:
    """The tournament's pace by its name (``PACES``)."""
    paces = {**lobby.TIME_CONTROLS, **lobby.SPEEDS}
    return next(name for name in PACES if paces[name] == tournament.time_per_move)


def start(tournament_id: int, now: datetime | None = None) -> bool:
    """Start the swiss if it is due and pair its first round (``tournaments.start``: called
    off with too few entrants); False if there was nothing to do."""
    started = tournaments.start(tournament_id, now)
    if started:
        advance(tournament_id, now)
    return started


def seeds(tournament: Tournament) -> list[int]:
    """The entrants in seed order: the best rating in the game's matches (real-time ones for
    a real-time swiss) first, then the first to join."""
    pool = Rating.Pool.LIVE if tournament.mode == Tournament.Mode.LIVE else Rating.Pool.MATCH
    ratings = dict(
        Rating.objects.filter(
            game=tournament.game, pool=pool, player__entries__tournament=tournament
        ).values_list("player_id", "value")
    )
    entries = tournament.entries.order_by("joined", "id").values_list("player_id", flat=True)
    return sorted(entries, key=lambda player: -ratings.get(player, 0.0))


def withdrawn(tournament: Tournament) -> list[int]:
    return list(tournament.entries.filter(withdrawn=True).values_list("player_id", flat=True))


def rounds_played(tournament: Tournament) -> list[swiss.Round]:
    """The rounds paired so far, each table ranked once its match is over (a match called
    off: its players tied)."""
    seats: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(match__tournament=tournament).select_related("match"):
        seats.setdefault(seat.match_id, []).append(seat)
    by_round: dict[int, list[swiss.Table]] = {}
    for match_id in sorted(seats):
        table = sorted(seats[match_id], key=lambda seat: seat.index)
        match = table[0].match
        players = tuple(seat.player_id for seat in table)
        ranks: tuple[int, ...] | None = None
        if match.status == Match.Status.FINISHED:
            ranks = tuple(seat.rank or len(table) for seat in table)
        elif match.status == Match.Status.CANCELLED:
            ranks = (1,) * len(table)
        by_round.setdefault(match.round or 0, []).append(swiss.Table(players, ranks))
    return [
        swiss.Round(tuple(by_round.get(r.number, ())), tuple(r.byes))
        for r in tournament.rounds.order_by("number")
    ]


def standings(tournament: Tournament) -> list[swiss.Standing]:
    return swiss.standings(
        seeds(tournament), rounds_played(tournament), withdrawn=withdrawn(tournament)
    )


@transaction.atomic
def advance(tournament_id: int, now: datetime | None = None) -> str:
    """Pair the next round of a running swiss whose round is over, or finish it after its
    last round: "paired", "finished", or "" when nothing is due. Safe to call twice and at
    once: the tournament is locked and looked at again."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if (
        tournament.format != Tournament.Format.SWISS
        or tournament.status != Tournament.Status.RUNNING
    ):
        return ""
    if tournament.tables.filter(status__in=[Match.Status.WAITING, Match.Status.ACTIVE]).exists():
        return ""
    last = tournament.rounds.aggregate(last=Max("number"))["last"] or 0
    entrants, out = seeds(tournament), withdrawn(tournament)
    if not tournament.games:  # the number of rounds left to the start
        rounds = swiss.rounds_for(len(entrants) - len(out), tournament.table_size)
        tournament.games = min(MOST_ROUNDS, rounds)
        tournament.save(update_fields=["games"])
    if last >= tournament.games or len(entrants) - len(out) < 2:
        _finish(tournament, now or timezone.now())
        return "finished"
    pairing = swiss.pair(entrants, rounds_played(tournament), tournament.table_size, withdrawn=out)
    SwissRound.objects.create(tournament=tournament, number=pairing.round, byes=pairing.byes)
    users = User.objects.in_bulk([p for table in pairing.tables for p in table])
    pace = pace_of(tournament)
    told = []
    for table in pairing.tables:
        match = lobby.start_seated(
            [users[player] for player in table],
            game=tournament.game,
            pace=pace,
            rated=False,
            options=tournament.options,
            tournament=tournament,
            round=pairing.round,
        )
        params = notices.stored({"round": pairing.round, "tournament": tournament, "match": match})
        # Who owes the first move of a table by post was just told "your move" (on the site,
        # pushed and mailed, as in any match): the round's news is theirs too, but read.
        owing = set()
        if not match.realtime:
            owing = set(
                Seat.objects.filter(match=match, deadline__isnull=False).values_list(
                    "player_id", flat=True
                )
            )
        told += [
            Notification(
                player_id=p, match=match, message=ROUND_STARTED, params=params, read=p in owing
            )
            for p in table
        ]
    params = notices.stored({"round": pairing.round, "tournament": tournament})
    told += [Notification(player_id=p, message=BYE, params=params) for p in pairing.byes]
    Notification.objects.bulk_create(told)
    return "paired"


def _finish(tournament: Tournament, now: datetime) -> None:
    """The final standings on the entries, and every entrant told their place."""
    Tournament.objects.filter(pk=tournament.pk).update(
        status=Tournament.Status.FINISHED, finished=now
    )
    entries = {entry.player_id: entry for entry in tournament.entries.all()}
    for line in standings(tournament):
        entry = entries[line.entrant]
        entry.rank, entry.played = line.place, line.played
    Entry.objects.bulk_update(entries.values(), ["rank", "played"])
    tournaments.tell_results(tournament, list(entries.values()))


@transaction.atomic
def withdraw(tournament_id: int, player) -> None:
    """Leave a running swiss: paired no more from the next round on (a table under way is
    still the player's to finish or resign)."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        raise MoveRefused(_("This tournament is not running."))
    if not Entry.objects.filter(tournament=tournament, player=player, withdrawn=False).update(
        withdrawn=True
    ):
        raise MoveRefused(_("You are not in this tournament."))


def table_finished(match: Match) -> None:
    """A table of a swiss is over (after its change committed): the next round, maybe."""
    if match.tournament_id is not None:
        advance(match.tournament_id)


def run_due(now: datetime | None = None) -> int:
    """Pair or finish the swiss tournaments the sweep finds (``sweep.tournament_work``)."""
    work = sweep.tournament_work(now)
    return sum(bool(advance(tournament_id, now)) for tournament_id in work["swiss"])


def due_live(now: datetime) -> list[int]:
    """The real-time swiss tournaments with work due now, for the clock: due to start, or
    running with no table being played (a round to pair, or the last one over)."""
    in_play = Match.objects.filter(
        tournament=OuterRef("pk"), status__in=[Match.Status.WAITING, Match.Status.ACTIVE]
    )
    due = Tournament.objects.filter(
        Q(status=Tournament.Status.UPCOMING, starts__lte=now)
        | (Q(status=Tournament.Status.RUNNING) & ~Exists(in_play)),
        format=Tournament.Format.SWISS,
        mode=Tournament.Mode.LIVE,
    )
    return list(due.order_by("pk").values_list("pk", flat=True)[:100])


def run_live(now: datetime | None = None) -> int:
    """Start the real-time swiss tournaments due, pairing their first round, and pair or
    finish those between rounds (``due_live``: the fast workers, sent by the clock); how many
    moved on. The start is claimed by a conditional update and each round by the locked
    tournament, so two runs at once do it once. One that fails is logged; the others go on."""
    now = now or timezone.now()
    done = 0
    for tournament_id in due_live(now):
        try:
            done += bool(start(tournament_id, now) or advance(tournament_id, now))
        except Exception:
            logger.exception("the real-time swiss %s could not move on", tournament_id)
    return done
