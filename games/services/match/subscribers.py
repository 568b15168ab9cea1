"""Who hears of what happens to matches: every subscriber of the site, in one place.

With the change (in its transaction, adding to its writes; ``bus.with_change``):

- ``inbox``: the notifications a player reads on the site, each with a push to their devices
  where its kind asks for one (``services.features.push_devices``): invitations, "your move"
  (kept only while the move is theirs), time running out, strikes, resignations, results,
  matches called off;
- ``mails``: which e-mail about a seat is due (``Seat.mail_at``, sent by the sweep's
  ``notifications.send_many``): "your move" when a decision becomes a player's, the 80%
  reminder, none once they moved;
- ``puzzle_counts``: a finished game on a puzzle counts for the puzzle, and for its day;
- ``solo_bests``: a finished solo game may be its player's best score (the solo leaderboard);
- ``tournament_standings``: a finished tournament game moves its tournament's standings.

After commit (``bus.after_commit``), each sending work that the sweep would find anyway:

- ``versions.announce``: the new version to each reader whose page changed, chat news;
- ``ratings``, ``puzzle_ratings``, ``figures``: the tasks that rate a finished match, weigh a
  puzzle attempt and bring the players' profile figures up to date;
- ``bots``: the task that works out the moves a match's bots owe;
- ``swiss_tables``: a finished table of a swiss tournament may pair its next round at once
  (``swiss_rounds.advance``, which locks the tournament: once, whichever table ends last);
- ``live_rounds``: a move in a game of a live duplicate may deal the next step to all
  (``live_duplicate.advance``: once, whichever move was awaited last);
- ``counted``: the metrics of moves.

A new feature subscribes here (``bus.subscribe``); the write path does not change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import partial

from django.utils import timezone
from django.utils.translation import gettext_noop

from games import notices
from games.infra import metrics, queue
from games.models import Match
from games.services.features import live_duplicate, push_devices, swiss_rounds, tournaments
from games.services.match import bus, finish, versions

INVITED = gettext_noop("%(player)s invites you to a %(players)s-player match.")
RESIGNED = gettext_noop("%(player)s resigned.")
OVER = gettext_noop("%(match)s is over: you finished #%(rank)s.")
RUNNING_OUT = gettext_noop("Time is running out in %(match)s.")
#: What a player is told when their time ran out, by what it cost them (``SeatExpired``).
EXPIRED = {
    "one": gettext_noop("Your time ran out: a move was made for you (one strike)."),
    "stands": gettext_noop(
        "Your time ran out again: your last move was made for you; your score stands."
    ),
    "dropped": gettext_noop("You missed two moves in a row and were dropped from the match."),
}


def inbox(happened: Sequence[bus.Event], writes) -> None:
    for event in happened:
        match = event.match
        if match.realtime and isinstance(
            event, bus.TurnStarted | bus.SeatExpired | bus.PlayerLeft | bus.MatchFinished
        ):
            continue  # its players are at the match: its page tells them, live
        if isinstance(event, bus.PlayerInvited):
            writes.notify(
                event.seat.player_id,
                match,
                INVITED,
                push=push_devices.INVITE,
                player=notices.Player(match.created_by_id, event.by),
                players=match.players,
            )
        elif isinstance(event, bus.TurnStarted):
            if not event.moved or event.timed_out:  # not a player who just moved on
                writes.notify_your_move(event.seat.player_id, match)
        elif isinstance(event, bus.TurnEnded):
            writes.move_made(event.seat.player_id, match)
        elif isinstance(event, bus.SeatExpired) and event.strike:
            writes.notify(event.seat.player_id, match, EXPIRED[event.strike])
        elif isinstance(event, bus.PlayerLeft) and event.resigned:
            for player_id in event.others:
                named = notices.Player(event.seat.player_id, event.name)
                writes.notify(player_id, match, RESIGNED, player=named)
        elif isinstance(event, bus.MatchFinished) and not match.is_solo:
            for seat in event.seats:
                writes.notify(
                    seat.player_id,
                    match,
                    OVER,
                    push=push_devices.RESULT,
                    match=match,
                    rank=seat.rank,
                )
        elif isinstance(event, bus.MatchCancelled):
            for player_id in event.players:
                writes.notify(player_id, match, event.text, **event.params)
        elif isinstance(event, bus.Reminded):
            writes.notify(
                event.seat.player_id, match, RUNNING_OUT, push=push_devices.ALARM, match=match
            )


def mails(happened: Sequence[bus.Event], writes) -> None:
    now = timezone.now()
    for event in happened:
        if isinstance(event, bus.MoveMade) and not event.auto:
            event.seat.mail_at, event.seat.mail_reminder = None, False
        elif isinstance(event, bus.TurnStarted) and not event.moved and not event.match.realtime:
            if not event.seat.mail_reminder:
                event.seat.mail_at = now
        elif isinstance(event, bus.Reminded):
            event.seat.mail_at, event.seat.mail_reminder = now, True


def puzzle_counts(happened: Sequence[bus.Event], writes) -> None:
    for event in happened:
        if isinstance(event, bus.MatchFinished) and event.match.puzzle_id:
            writes.later(
                lambda match=event.match, seats=event.seats: finish.count_puzzle(match, seats),
                apart=True,
            )


def solo_bests(happened: Sequence[bus.Event], writes) -> None:
    for event in happened:
        if isinstance(event, bus.MatchFinished) and finish.standard_solo(event.match):
            for seat in event.seats:
                writes.later(partial(finish.note_solo_best, event.match, seat))


def tournament_standings(happened: Sequence[bus.Event], writes) -> None:
    for event in happened:
        if isinstance(event, bus.MatchFinished) and event.match.kind == Match.Kind.DUPLICATE:
            writes.later(partial(tournaments.record_game, event.match), apart=True)


def ratings(happened: Sequence[bus.Event]) -> None:
    for event in happened:
        if isinstance(event, bus.MatchFinished) and event.match.rated:
            queue.send("games.tasks.rate_match", event.match.pk)


def puzzle_ratings(happened: Sequence[bus.Event]) -> None:
    for event in happened:
        if isinstance(event, bus.MatchFinished) and event.match.kind == Match.Kind.PUZZLE:
            queue.send("games.tasks.rate_puzzle_attempt", event.match.pk)


def figures(happened: Sequence[bus.Event]) -> None:
    for event in happened:
        if isinstance(event, bus.MatchFinished):
            for seat in event.seats:
                queue.send("games.tasks.refresh_player_stats", seat.player_id)


def bots(happened: Sequence[bus.Event]) -> None:
    for match_id in {event.match.pk for event in happened if isinstance(event, bus.BotsOwe)}:
        queue.send("games.tasks.play_bots", match_id)


def swiss_tables(happened: Sequence[bus.Event]) -> None:
    for event in happened:
        if isinstance(event, bus.MatchFinished | bus.MatchCancelled) and event.match.tournament_id:
            swiss_rounds.table_finished(event.match)


def live_rounds(happened: Sequence[bus.Event]) -> None:
    deals = {
        event.match.puzzle_id
        for event in happened
        if isinstance(event, bus.MoveMade)
        and event.match.kind == Match.Kind.DUPLICATE
        and event.match.puzzle_id is not None
    }
    for deal_id in deals:
        live_duplicate.moved(deal_id)


def counted(happened: Sequence[bus.Event]) -> None:
    games = Counter(event.match.game for event in happened if isinstance(event, bus.MoveMade))
    if games:
        metrics.moves_committed(games)


def register() -> None:
    """Subscribe the site's own subscribers (at start-up: ``GamesConfig.ready``)."""
    for handler in (inbox, mails, puzzle_counts, solo_bests, tournament_standings):
        bus.subscribe(handler, with_change=True)
    for after_commit in (
        versions.announce,
        ratings,
        puzzle_ratings,
        figures,
        bots,
        swiss_tables,
        live_rounds,
        counted,
    ):
        bus.subscribe(after_commit)
