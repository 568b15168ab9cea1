"""Creating matches and filling their seats: solo games, invitations, open seats, invitation
links, starting.

A match of any game waits for its seats (the creator's, invited players', open ones in the
lobby, those its invitation link offers) and starts when every seat is taken; a solo game
starts at once. A player who has blocked another keeps them out: the blocked player cannot
invite them nor take a free seat beside them (``blocks``).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from games import notices
from games.models import InviteLink, Match, Profile, Seat
from games.registry import default_game, find_game, puzzle_rules
from games.services.features import blocks
from games.services.match import bot_seats, bus, deadlines, unit
from games.services.match.record import MoveRefused

TIME_CONTROLS = {
    "1h": timedelta(hours=1),
    "12h": timedelta(hours=12),
    "1d": timedelta(days=1),
    "3d": timedelta(days=3),
    "7d": timedelta(days=7),
}
#: Real-time paces (quick pairing, ``services.features.pools``): a match of one of these is
#: played in one sitting, and is never offered in the lobby, reminded of or mailed about.
SPEEDS = {
    "15s": timedelta(seconds=15),
    "30s": timedelta(seconds=30),
    "60s": timedelta(seconds=60),
}
#: Random bytes of an invitation link's token.
LINK_BYTES = 24


def new_seed() -> int:
    return secrets.randbelow(2**31)


def game_options(game: str, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options as the game stores them; MoveRefused with the game's reason if invalid."""
    try:
        rules = find_game(game)
        return rules.dump_options(rules.options({**options, "players": players}))
    except ValueError as exc:
        raise MoveRefused(str(exc)[:1].upper() + str(exc)[1:] + ".") from None


def check_match_settings(
    creator,
    *,
    game: str = "",
    players: int,
    time_control: str,
    invite: Sequence[str],
    open: bool,
    options: Mapping[str, Any] | None = None,
    link: bool = False,
) -> tuple[dict[str, User], dict[str, Any]]:
    """Refuse settings a match cannot have (an invitation to a player who has blocked the
    creator among them); return the invited players by name and the options as the game
    stores them."""
    game = game or default_game()
    try:
        rules = find_game(game)
    except ValueError:
        raise MoveRefused(_("Choose a game.")) from None
    low, high = max(2, rules.players.start), rules.players.stop - 1
    if not low <= players <= high:
        raise MoveRefused(
            _("A match of %(game)s has %(low)s to %(high)s players.")
            % {"game": rules.name, "low": low, "high": high}
        )
    if time_control not in TIME_CONTROLS:
        raise MoveRefused(_("Choose a time per move."))
    stored = game_options(game, players, options or {})
    # Names are unique whatever their capitals: so are invitations.
    by_key: dict[str, str] = {}
    for name in (name.strip() for name in invite):
        if name:
            by_key.setdefault(name.lower(), name)
    names = list(by_key.values())
    if len(names) > players - 1:
        raise MoveRefused(
            ngettext(
                "A %(players)s-player match has room for %(room)s invitation.",
                "A %(players)s-player match has room for %(room)s invitations.",
                players - 1,
            )
            % {"players": players, "room": players - 1}
        )
    bot_names = [n for n in names if bot_seats.is_bot_name(n)]
    if bot_names and not bot_seats.plays(game):
        raise MoveRefused(_("Bots do not play %(game)s.") % {"game": rules.name})
    for name in bot_names:
        strength = name.lower().removeprefix(bot_seats.PREFIX)
        if strength in bot_seats.strengths(game):
            bot_seats.account(strength, game)
    invited = (
        User.objects.annotate(key=Lower("username"))
        .filter(key__in=list(by_key))
        .exclude(profile__guest=True)  # guests play alone and against bots
    )
    found = {u.username.lower(): u for u in invited}
    for name in bot_names:
        strength = name.lower().removeprefix(bot_seats.PREFIX)
        if name.lower() in found and strength not in bot_seats.strengths(game):
            raise MoveRefused(_("There is no %(strength)s bot.") % {"strength": strength})
    missing = [n for n in names if n.lower() not in found]
    if missing:
        raise MoveRefused(_("No player is called %(name)s.") % {"name": missing[0]})
    if any(u.pk == creator.pk for u in found.values()):
        raise MoveRefused(_("You are already in the match; invite somebody else."))
    refusing = blocks.blocking_any(creator.pk, [u.pk for u in found.values()])
    for name in names:
        if found[name.lower()].pk in refusing:
            raise MoveRefused(
                _("%(player)s cannot be invited.") % {"player": found[name.lower()].username}
            )
    if not open and not link and len(names) < players - 1:
        raise MoveRefused(_("Invite a player for every seat, or open the match in the lobby."))
    return {name: found[name.lower()] for name in names}, stored


@transaction.atomic
def start_solo(
    player,
    *,
    game: str = "",
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    kind: str = Match.Kind.SOLO,
    puzzle=None,
    daily: bool = False,
) -> Match:
    """A game for one player, started at once (a solo game, an attempt at a puzzle, or a
    tournament's game on its deal, with the deal's options)."""
    game = game or default_game()
    if puzzle is not None:
        options = puzzle.options or puzzle_rules(puzzle.game).puzzle_options
        game, seed = puzzle.game, puzzle.seed
    match = Match.objects.create(
        kind=kind,
        game=game,
        options=game_options(game, 1, options or {}),
        status=Match.Status.ACTIVE,
        seed=new_seed() if seed is None else seed,
        puzzle=puzzle,
        daily=daily,
        players=1,
        created_by=player,
        started=timezone.now(),
    )
    Seat.objects.create(match=match, player=player, index=0)
    with unit.change(match.pk) as change:
        seat = change.record.seats[0]
        seat.progress = change.record.rules.progress(change.record.state, 0)
        change.emit(bus.MatchStarted(change.match))
    return change.match


def play_again(player, match_id: int) -> Match:
    """A new game like the player's own solo game or game against a bot ``match_id``: the
    same options (their random choices drawn afresh), against a bot of the same strength;
    MoveRefused if it is neither."""
    match = (
        Match.objects.filter(pk=match_id, puzzle__isnull=True, seats__player=player)
        .filter(kind__in=(Match.Kind.SOLO, Match.Kind.MATCH))
        .first()
    )
    if match is not None and match.kind == Match.Kind.SOLO:
        return start_solo(player, game=match.game, options=match.options)
    seats = list(match.seats.all()) if match is not None else []
    bots = [seat.bot for seat in seats if seat.bot]
    if match is None or len(seats) != 2 or len(bots) != 1:
        raise MoveRefused(_("There is no solo game of yours to play again."))
    return start_against_bot(
        player, bots[0], game=match.game, options=match.options, private=match.private
    )


def same_settings(player, match_id: int) -> dict[str, Any]:
    """What a new match with the same players and options as the player's own match
    ``match_id`` (between people) is made of: its game, player count, time control, whether
    it is rated and private, the others' names to invite, and the game's options (``options``,
    as stored). MoveRefused if it is not such a match of theirs."""
    match = Match.objects.filter(
        pk=match_id, kind=Match.Kind.MATCH, puzzle__isnull=True, seats__player=player
    ).first()
    seats = list(match.seats.select_related("player")) if match is not None else []
    if match is None or any(seat.bot for seat in seats):
        raise MoveRefused(_("There is no match of yours with this number."))
    others = [s.player.username for s in seats if s.player_id != player.pk and s.player.is_active]
    return {
        "game": match.game,
        "players": match.players,
        "time_control": next(
            (name for name, time in TIME_CONTROLS.items() if time == match.time_per_move), "1d"
        ),
        "rated": match.rated,
        "private": match.private,
        "invite": " ".join(others),
        "options": dict(match.options),
    }


def create_match(
    creator,
    *,
    game: str = "",
    players: int,
    time_control: str,
    rated: bool,
    options: Mapping[str, Any] | None = None,
    invite: Sequence[str] = (),
    open: bool = False,
    private: bool = False,
    seed: int | None = None,
    puzzle=None,
    link: bool = False,
) -> Match:
    """A match waiting for its seats: the creator's, invited players', open ones, and with
    ``link`` those its invitation link offers (``InviteLink``).

    With a ``puzzle`` it is a challenge: everybody plays that puzzle's deal. ``private``:
    only its players may look at it while it is played (``visibility.watchable``).
    """
    game = game or default_game()
    if puzzle is not None:
        game, options, seed = puzzle.game, puzzle_rules(puzzle.game).puzzle_options, puzzle.seed
    invited, stored = check_match_settings(
        creator,
        game=game,
        players=players,
        time_control=time_control,
        invite=invite,
        open=open,
        options=options,
        link=link,
    )
    with transaction.atomic():
        match = Match.objects.create(
            kind=Match.Kind.MATCH if puzzle is None else Match.Kind.CHALLENGE,
            game=game,
            options=stored,
            puzzle=puzzle,
            status=Match.Status.WAITING,
            seed=new_seed() if seed is None else seed,
            players=players,
            rated=rated,
            open=open,
            private=private,
            time_per_move=TIME_CONTROLS[time_control],
            created_by=creator,
        )
        Seat.objects.create(match=match, player=creator, index=0)
        if link:
            InviteLink.objects.create(match=match, token=secrets.token_urlsafe(LINK_BYTES))
        seated, invitations = 1, []
        for index, user in enumerate(invited.values(), start=1):
            strength = bot_seats.strength_of(user)
            if strength:  # a bot takes its seat at once
                Seat.objects.create(match=match, player=user, index=index, bot=strength)
                seated += 1
                continue
            Seat.objects.create(match=match, player=user, index=index, state=Seat.State.INVITED)
            invitations.append(index)
        with unit.change(match.pk) as change:
            for seat in change.record.seats:
                if seat.index in invitations:
                    change.emit(bus.PlayerInvited(change.match, seat, creator.username))
            if seated == players:  # only bots were invited
                _start(change)
    return change.match


def start_against_bot(
    player,
    strength: str,
    *,
    game: str = "",
    options: Mapping[str, Any] | None = None,
    private: bool = False,
) -> Match:
    """A game against a bot of ``strength``, started at once: a casual two-player match of
    ``game`` with no time limit, the bot moving as soon as it owes a move; others may watch
    it unless it is ``private``."""
    game = game or default_game()
    if not bot_seats.plays(game):
        raise MoveRefused(_("Bots do not play this game."))
    bot = bot_seats.account(strength, game)
    with transaction.atomic():
        match = Match.objects.create(
            kind=Match.Kind.MATCH,
            game=game,
            options=game_options(game, 2, options or {}),
            status=Match.Status.WAITING,
            seed=new_seed(),
            players=2,
            rated=False,
            private=private,
            created_by=player,
        )
        Seat.objects.create(match=match, player=player, index=0)
        Seat.objects.create(match=match, player=bot, index=1, bot=strength)
        with unit.change(match.pk) as change:
            _start(change)
    return change.match


def start_realtime(
    players: Sequence[User],
    *,
    game: str,
    speed: str,
    rated: bool = True,
    options: Mapping[str, Any] | None = None,
    rematch_of: Match | None = None,
) -> Match:
    """A real-time match of ``players`` (people, in a random order of seats) at ``speed``
    (``SPEEDS``), started at once, with the game's default options (a game whose players
    move together does so by default: docs/rules.md, "Real-time matches"). Casual if a guest
    or a bot is among them (a bot account takes a bot's seat: it moves as bots do, with no
    deadline). Others may watch it."""
    if speed not in SPEEDS:
        raise MoveRefused(_("Choose a time per move."))
    return start_seated(
        players, game=game, pace=speed, rated=rated, options=options, rematch_of=rematch_of
    )


def start_seated(
    players: Sequence[User],
    *,
    game: str,
    pace: str,
    rated: bool,
    options: Mapping[str, Any] | None = None,
    rematch_of: Match | None = None,
    tournament=None,
    round: int | None = None,
) -> Match:
    """A match of ``players`` in a random order of seats, every seat taken and started at
    once, at ``pace``: a real-time speed (``SPEEDS``) or a time control (``TIME_CONTROLS``);
    with ``tournament``, a table of its ``round``. Casual if a guest or a bot is among
    them."""
    time_per_move = SPEEDS.get(pace) or TIME_CONTROLS.get(pace)
    if time_per_move is None:
        raise MoveRefused(_("Choose a time per move."))
    rules = find_game(game)
    if not (max(2, rules.players.start) <= len(players) < rules.players.stop):
        raise MoveRefused(
            _("%(game)s is not played by %(count)s players.")
            % {"game": rules.name, "count": len(players)}
        )
    order = list(players)
    secrets.SystemRandom().shuffle(order)
    bots = {user.pk: bot_seats.strength_of(user) for user in order}
    guests = Profile.objects.filter(player__in=order, guest=True).exists()
    with transaction.atomic():
        match = Match.objects.create(
            kind=Match.Kind.MATCH,
            game=game,
            options=game_options(game, len(order), options or {}),
            status=Match.Status.WAITING,
            seed=new_seed(),
            players=len(order),
            rated=rated and not guests and not any(bots.values()),
            time_per_move=time_per_move,
            created_by=next((user for user in order if not bots[user.pk]), order[0]),
            rematch_of=rematch_of,
            tournament=tournament,
            round=round,
        )
        for index, user in enumerate(order):
            Seat.objects.create(match=match, player=user, index=index, bot=bots[user.pk])
        with unit.change(match.pk) as change:
            _start(change)
    return change.match


def speed_of(match: Match) -> str | None:
    """The real-time speed a match is played at (``SPEEDS``), None for any other."""
    return next((name for name, time in SPEEDS.items() if time == match.time_per_move), None)


def join(match_id: int, player, *, by_link: bool = False) -> Match:
    """Take an open seat (``by_link``: a free seat the match's invitation link offers, open
    or not), or accept an invitation; the match starts when every seat is taken. A player
    that a seated player has blocked takes no free seat. A guest takes one only by a link,
    and the match is casual then (guests move no rating)."""
    with unit.change(match_id) as change:
        match, seats = change.match, change.record.seats
        if match.status != Match.Status.WAITING:
            raise MoveRefused(_("This match is not waiting for players."))
        mine = next((s for s in seats if s.player_id == player.pk), None)
        if match.puzzle_id is not None and (
            Seat.objects.filter(player=player, match__puzzle_id=match.puzzle_id)
            .exclude(match=match)
            .exists()
        ):
            raise MoveRefused(_("You have played this puzzle before: choose another challenge."))
        if mine is not None:
            if mine.state != Seat.State.INVITED:
                raise MoveRefused(_("You are already in this match."))
            mine.state = Seat.State.PLAYING
        else:
            if not (match.open or by_link) or len(seats) >= match.players:
                raise MoveRefused(_("This match has no free seat."))
            if blocks.blocking_any(player.pk, [s.player_id for s in seats]):
                raise MoveRefused(_("You cannot join this match."))
            if Profile.objects.filter(player=player, guest=True).exists():
                if not by_link:
                    raise MoveRefused(_("Create an account to play with other players."))
                if match.rated:
                    match.rated = False
                    change.save_match("rated")
            mine = Seat.objects.create(
                match=match, player=player, index=len(seats), bot=bot_seats.strength_of(player)
            )
            change.seated(mine)
        change.emit(bus.PlayerJoined(match, mine))
        if len(seats) == match.players and all(s.state == Seat.State.PLAYING for s in seats):
            _start(change)
    return match


def _start(change: unit.Change) -> None:
    match = change.match
    now = timezone.now()
    match.status = Match.Status.ACTIVE
    match.started = now
    change.save_match("status", "started")
    change.emit(bus.MatchStarted(match))
    deadlines.settle(change, now)


def decline(match_id: int, player) -> None:
    """An invited player says no: the match is called off."""
    with unit.change(match_id) as change:
        seat = change.record.seat_of(player)
        if change.match.status != Match.Status.WAITING or seat.state != Seat.State.INVITED:
            raise MoveRefused(_("There is no invitation of yours to decline here."))
        cancel_match(
            change, gettext_noop("%(player)s declined the match."), player=notices.player(player)
        )


def cancel(match_id: int, player) -> None:
    with unit.change(match_id) as change:
        if change.match.created_by_id != player.pk:
            raise MoveRefused(_("Only the player who created the match can cancel it."))
        if change.match.status != Match.Status.WAITING:
            raise MoveRefused(_("The match has started; resign instead."))
        cancel_match(
            change,
            gettext_noop("%(player)s cancelled the match."),
            player=notices.player(player),
        )


def cancel_match(change: unit.Change, text: str, /, **params: Any) -> None:
    """Call off the match being changed and tell its players why (``text``: see
    ``Writes.notify``)."""
    match = change.match
    match.status = Match.Status.CANCELLED
    match.finished = timezone.now()
    change.save_match("status", "finished")
    players = tuple(seat.player_id for seat in change.record.seats)
    change.emit(bus.MatchCancelled(match, text, params, players))
