"""Where the pages of a tournament lead its player: the page of a finished game to their
next game of it as soon as it is under way (a live duplicate's next game, a swiss's next
table), the tournament's page to their game when a live one starts or deals its next.
Reads only."""

from __future__ import annotations

from games.models import Entry, Match, Tournament

#: Seconds between the looks of a finished game's page for the player's next game of its
#: tournament: one played live (its next game begins at once, its clock running), one by
#: post.
FOLLOW_LIVE = 2
FOLLOW_BY_POST = 30


def after_game(tournament: Tournament, match: Match, player) -> tuple[Match | None, int]:
    """What the page of ``player``'s finished game ``match`` of ``tournament`` leads to: their
    next game of it under way, and while there is none and the tournament runs, every how
    many seconds to look again (0: never; a game at one's own pace is chosen on the
    tournament's page)."""
    played_live = tournament.mode == Tournament.Mode.LIVE
    if tournament.format == Tournament.Format.DUPLICATE and not played_live:
        return None, 0
    if not player.is_authenticated:
        return None, 0
    found = under_way(tournament, player, match)
    if found is not None or tournament.status != Tournament.Status.RUNNING:
        return found, 0
    if is_last(tournament, match) or withdrawn(tournament, player):
        return None, 0
    return None, FOLLOW_LIVE if played_live else FOLLOW_BY_POST


def is_last(tournament: Tournament, match: Match) -> bool:
    """Whether ``match`` is of ``tournament``'s last round (a swiss) or game: none follows."""
    if tournament.format == Tournament.Format.SWISS:
        number = match.round or 0
    else:
        deal = match.puzzle
        number = (deal.number or 0) if deal is not None else 0
    return number >= tournament.games


def withdrawn(tournament: Tournament, player) -> bool:
    """Whether ``player`` has left ``tournament`` while it runs: no game of it follows."""
    return Entry.objects.filter(tournament=tournament, player=player, withdrawn=True).exists()


def under_way(tournament: Tournament, player, but: Match | None = None) -> Match | None:
    """``player``'s game of ``tournament`` under way (a swiss's table, a duplicate's game),
    the newest, other than ``but``."""
    if not player.is_authenticated:
        return None
    mine = Match.objects.filter(status=Match.Status.ACTIVE, seats__player=player)
    if tournament.format == Tournament.Format.SWISS:
        mine = mine.filter(tournament=tournament)
    else:
        mine = mine.filter(kind=Match.Kind.DUPLICATE, puzzle__tournament=tournament)
    if but is not None:
        mine = mine.exclude(pk=but.pk)
    return mine.order_by("-pk").first()


def opened_at_once(tournament: Tournament, player) -> Match | None:
    """The game a page of ``tournament`` opens for ``player`` by itself when the tournament
    starts or deals its next game: their game under way if it is played live (its clock
    runs); None for one by post."""
    if tournament.mode != Tournament.Mode.LIVE or tournament.status != Tournament.Status.RUNNING:
        return None
    return under_way(tournament, player)
