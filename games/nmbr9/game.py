"""A whole NMBR 9 game for 1-6 players, dealt from a seed and replayable from its turns.

The base game (docs/rules.md §2-4) and NMBR 9 ++ (§6): the modules "new start
tiles", "gap fillers" and "breaking rules" (special tiles), and the variants "2 of 3" and
"level to level", chosen with ``Options``.

Every player goes through the same *steps*: one step per card in the base game and in
"2 of 3" (three steps a round there), one step per round in "level to level". At each step a
player makes a decision, a ``Turn`` (``decision`` says what is to be decided), unless the
rules decide for them: a forced reject in "2 of 3", a skipped round in "level to level".
Pace "rounds": a step ends when every player still in the game has dealt with it, then the
next card is revealed to all. Pace "free": everybody goes through the same cards at their own
speed ("level to level" is played in rounds only).

Decisions of the rules that the rulebooks leave open and this module settles (docs/rules.md
marks them as ours):

- the turn in which a card is set aside with "reserve" builds nothing else (no filler, no
  move, no reserved tile), like a turn that only rejects; "one", "bridge" and "loose" are
  refused when the tile would lie on level 0, where they lift nothing; the special tiles
  named with ``place`` apply to the card's tile, not to a reserved tile built in the turn;
- a reserved tile still set aside when the player has dealt with their last card is lost;
- a moved tile goes somewhere else (not back onto its own squares);
- in "level to level" the displays of every player, also one who left, count for activating
  the next marker, gap fillers as built tiles and start tiles not; a round that cannot show
  a card under every active marker is not played (the game has ended);
- in "2 of 3" at rounds pace each card is a step of its own: the others' decisions on a card
  are shown once everybody has made theirs, before the next card is revealed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from games.contract import IllegalMove, Outcome, competition_ranks

from .board import Board
from .placement import InvalidPlacement, Placement
from .setup import (
    CARDS,
    DECKS,
    MAX_PLAYERS,
    MAX_REMOVED,
    PACES,
    TOP_LEVEL,
    VARIANTS,
    Deal,
    GameError,
    Options,
    check_deal,
    check_removed,
    check_seed,
    deal,
    deal_game,
)
from .tiles import FILLERS, NUMBERS
from .turn import (
    TILE_SPECIALS,
    Build,
    Fill,
    InvalidTurn,
    Move,
    Place,
    Reject,
    Reserve,
    Step,
    Turn,
)
from .views import Decision, DisplayView, GameView, Logged

__all__ = [
    "CARDS",
    "DECKS",
    "MAX_PLAYERS",
    "MAX_REMOVED",
    "PACES",
    "VARIANTS",
    "Deal",
    "Decision",
    "DisplayView",
    "Game",
    "GameError",
    "GameView",
    "Options",
    "deal",
    "deal_game",
]

GAME_OVER = "the game is over"
RESIGNED = "this player has resigned"
ALL_PLACED = "this player has placed all their tiles"
WAITING = "waiting for the other players to finish the round"


@dataclass(frozen=True, slots=True)
class _Reserve:
    """A tile set aside: its number, the marker it came from ("level to level") and the
    highest level of the display when it was set aside."""

    number: int
    marker: int | None
    limit: int


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What others may see of a display after some steps."""

    tiles: tuple[tuple[Placement, int], ...]
    score: int
    used: tuple[str, ...]
    fillers_used: tuple[str, ...]
    #: The round in which each of ``tiles`` was placed where it lies (0: before the first).
    placed_in: tuple[int, ...]


#: What the rules did for a player at a step when they asked nothing.
_AUTO_REJECT = "reject"
_SKIP = "skip"
_REJECT = Turn((Reject(),))


class _Seat:
    """One player's state (mutable; ``copy`` before trying a turn)."""

    __slots__ = (
        "board",
        "dealt",
        "decisions",
        "fillers",
        "history",
        "log",
        "lost",
        "pos",
        "public",
        "reserve",
        "snapshots",
        "taken",
        "used",
    )

    def __init__(self, board: Board, fillers: tuple[str, ...]) -> None:
        self.board = board
        self.pos = 0
        self.decisions = 0
        self.dealt = fillers
        self.fillers = list(fillers)
        self.used: list[str] = []
        self.reserve: _Reserve | None = None
        self.lost: list[int] = []
        self.taken: Counter[int] = Counter()
        self.history: list[Turn | str] = []
        #: Each step as the player knows it, and as the others may (``Logged``).
        self.log: list[Logged] = []
        self.public: list[Logged] = []
        self.snapshots: list[_Snapshot] = []
        self.snapshot()

    def copy(self) -> _Seat:
        seat = _Seat.__new__(_Seat)
        seat.board = self.board.copy()
        seat.dealt = self.dealt
        seat.pos = self.pos
        seat.decisions = self.decisions
        seat.fillers = self.fillers.copy()
        seat.used = self.used.copy()
        seat.reserve = self.reserve
        seat.lost = self.lost.copy()
        seat.taken = self.taken.copy()
        seat.history = self.history.copy()
        seat.log = self.log.copy()
        seat.public = self.public.copy()
        seat.snapshots = self.snapshots.copy()
        return seat

    def snapshot(self, round: int = 0) -> None:
        """Keep the display as it is after a step of ``round``."""
        used_fillers = tuple(f for f in self.dealt if f not in self.fillers)
        tiles = self.board.tiles
        known = {}
        if self.snapshots:
            last = self.snapshots[-1]
            known = dict(zip(last.tiles, last.placed_in, strict=True))
        placed_in = tuple(known.get(tile, round) for tile in tiles)
        self.snapshots.append(
            _Snapshot(tiles, self.board.score(), tuple(self.used), used_fillers, placed_in)
        )

    def record(self, entry: Logged) -> None:
        """Log a step: as it was, and as the others may know it (another player's reserved
        tile is a secret until it is built: neither its number nor its marker is shown)."""
        self.log.append(entry)
        turn = entry.turn
        if turn is not None and isinstance(turn.main, Reserve):
            steps = tuple(Reserve() if isinstance(s, Reserve) else s for s in turn.steps)
            entry = replace(entry, turn=Turn(steps), card=None)
        self.public.append(entry)


class Game:
    """One game: the same sequence of cards for every player, each building a display.

    Players are numbered ``0 .. players - 1``. Pace "rounds": a round ends when every
    player still in the game has placed its tile, then the next card is revealed to all.
    Pace "free": everybody goes through the same sequence at their own speed.

    >>> game = Game(players=2, seed=7)
    >>> game.rounds, game.current_number(0), game.current_number(1)
    (20, 8, 8)
    >>> game.place(0, Placement(8, 0, 0, 0))
    0
    >>> game.current_number(0) is None, game.round_of(0)
    (True, 2)
    >>> game.place(1, Placement(8, 0, 0, 1))
    0
    >>> game.current_number(0), game.supply(0)[8], game.supply(0)[7], game.supply(0)[5]
    (7, 1, 1, 2)
    >>> replayed = Game.replay(players=2, seed=7, moves=game.moves)
    >>> replayed.to_dict() == game.to_dict()
    True

    NMBR 9 ++: options, decisions and turns.

    >>> game = Game(players=3, seed=7, options=Options(fillers=True, specials=("one", "move")))
    >>> decision = game.decision(0)
    >>> decision.cards, decision.specials, decision.markers, decision.fillers
    (((None, 8),), ('move', 'one'), 2, ('F1', 'F2'))
    >>> game.play(0, Turn.parse("place 8@0,0r0; fill F1@2,0r0"))
    >>> game.decision(0) is None, game.board(0).notation()
    (True, '8@0,0r0 F1@2,0r0')
    >>> game.play(1, Turn.parse("fill F2@0,0r0"))
    Traceback (most recent call last):
        ...
    games.nmbr9.setup.GameError: a turn must place, reserve or reject its card
    """

    def __init__(
        self,
        players: int = 1,
        *,
        seed: int | str | None,
        pace: str = "rounds",
        removed: int | str | None = None,
        options: Options | None = None,
        deal: Deal | None = None,
    ) -> None:
        if isinstance(players, bool) or not isinstance(players, int):
            raise GameError(
                f"players must be a whole number 1-{MAX_PLAYERS}, not {players!r}",
                code="bad players",
            )
        if not 1 <= players <= MAX_PLAYERS:
            raise GameError(f"players must be 1-{MAX_PLAYERS}, not {players}", code="bad players")
        if pace not in PACES:
            raise GameError(f'pace must be "rounds" or "free", not {pace!r}', code="bad pace")
        if options is None:
            options = Options()
        if not isinstance(options, Options):
            raise GameError(f"options must be Options, not {options!r}", code="bad option")
        if removed is not None:
            check_removed(removed)
            if options.removed not in (0, removed):
                raise GameError(
                    f"removed={removed!r} disagrees with the options' {options.removed!r}",
                    code="bad option",
                )
            options = replace(options, removed=removed)
        options.check(players, pace)
        if deal is None:
            deal = deal_game(check_seed(seed), players, options)
        else:
            if seed is not None:
                check_seed(seed)
            deal = check_deal(deal, players, options)
        self.players = players
        self.seed = seed
        self.pace = pace
        self.options = options
        self._deal = deal
        self._cards = deal.cards
        self.removed = deal.removed
        self.specials = deal.specials
        variant = options.variant
        self._variant = variant
        if variant == "base":
            self._total: int | None = len(self._cards)
            self.rounds: int | None = len(self._cards)
        elif variant == "two_of_three":
            self._total = len(self._cards)
            self.rounds = len(self._cards) // 3
        else:
            self._total = None
            self.rounds = None
        self._tile_cap = 3 if players == 4 else 4
        fillers = FILLERS if options.fillers else ()
        self._seats: list[_Seat] = []
        for player in range(players):
            board = Board()
            if deal.start_tiles:
                board.place(Placement._unchecked(deal.start_tiles[player], 0, 0, 0))
            self._seats.append(_Seat(board, fillers))
        self._turns: list[tuple[int, Turn]] = []
        self._turn_steps: list[int] = []
        self._resignations: list[tuple[int, int]] = []
        self._resigned: dict[int, int] = {}
        # "level to level": the cards shown each round, the cards drawn, the active markers
        self._shows: list[tuple[tuple[int, int], ...]] = []
        self._drawn = 0
        self._active = 1
        self._ended = False
        self._advance()

    # ----------------------------------------------------------------- state

    def _check_player(self, player: object) -> int:
        if isinstance(player, bool) or not isinstance(player, int):
            raise GameError(f"player must be a whole number, not {player!r}", code="bad player")
        if not 0 <= player < self.players:
            raise GameError(f"player must be 0-{self.players - 1}, not {player}", code="bad player")
        return player

    @property
    def plusplus(self) -> bool:
        """Whether anything of NMBR 9 ++ is played."""
        return self.options.plusplus

    @property
    def deal(self) -> Deal:
        """The game's deal (holds every card: server side only)."""
        return self._deal

    @property
    def moves(self) -> tuple[tuple[int, Placement | Turn], ...]:
        """Every decision so far as ``(player, move)``, in order: the placement in a base
        game, the ``Turn`` in an NMBR 9 ++ game."""
        if self.plusplus:
            return tuple(self._turns)
        return tuple((player, turn.steps[0].placement) for player, turn in self._turns)  # type: ignore[union-attr]

    @property
    def turns(self) -> tuple[tuple[int, Turn], ...]:
        """Every turn so far as ``(player, turn)``, in order."""
        return tuple(self._turns)

    @property
    def resignations(self) -> tuple[tuple[int, int], ...]:
        """``(player, number of moves made before the resignation)``, in order."""
        return tuple(self._resignations)

    @property
    def resigned(self) -> frozenset[int]:
        return frozenset(self._resigned)

    @property
    def boards(self) -> tuple[Board, ...]:
        """A copy of every player's display."""
        return tuple(seat.board.copy() for seat in self._seats)

    def board(self, player: int) -> Board:
        """A copy of ``player``'s display."""
        return self._seats[self._check_player(player)].board.copy()

    def start_tile(self, player: int) -> Placement | None:
        """``player``'s start tile (module "new start tiles"), or None."""
        player = self._check_player(player)
        if not self._deal.start_tiles:
            return None
        return Placement._unchecked(self._deal.start_tiles[player], 0, 0, 0)

    def placed(self, player: int) -> int:
        """How many pieces ``player``'s display holds."""
        return len(self._seats[self._check_player(player)].board)

    def turns_taken(self, player: int) -> int:
        """How many decisions ``player`` has made."""
        return self._seats[self._check_player(player)].decisions

    def steps_taken(self, player: int) -> int:
        """How many of the deal's steps (its cards, or its shows in "level to level")
        ``player`` has gone through."""
        return self._seats[self._check_player(player)].pos

    def active_players(self) -> tuple[int, ...]:
        """The players who have not resigned."""
        return tuple(p for p in range(self.players) if p not in self._resigned)

    def _step_now(self) -> int | None:
        """Rounds pace: the step every player still in the game is at (None: nobody is)."""
        positions = [self._seats[p].pos for p in range(self.players) if p not in self._resigned]
        return min(positions) if positions else None

    def completed_rounds(self) -> int:
        """How many steps (rounds of the base game) every player still in the game has
        finished."""
        now = self._step_now()
        if now is None:
            return max(seat.pos for seat in self._seats)
        return now

    def _done(self, player: int) -> bool:
        total = self._total
        return total is not None and self._seats[player].pos >= total

    def finished(self, player: int) -> bool:
        """Whether ``player`` has dealt with every card."""
        return self._done(self._check_player(player))

    def is_over(self) -> bool:
        active = self.active_players()
        if not active:
            return True
        if self._variant == "level_to_level":
            return self._ended
        return all(self._done(p) for p in active)

    def _available(self, player: int) -> bool:
        """Whether ``player``'s next step has come (its cards are revealed to them)."""
        if player in self._resigned or self._done(player):
            return False
        pos = self._seats[player].pos
        if self.pace == "rounds" and pos != self._step_now():
            return False
        return not (self._variant == "level_to_level" and pos >= len(self._shows))

    def _round_of_step(self, step: int) -> int:
        """The 1-based round of a step."""
        return step // self.options.steps_per_round + 1

    def current_number(self, player: int) -> int | None:
        """The number ``player`` must place now when one card is offered, or None (waiting,
        finished, resigned, a choice of cards)."""
        decision = self.decision(player)
        if decision is None or len(decision.cards) != 1:
            return None
        return decision.cards[0][1]

    def round_of(self, player: int) -> int:
        """The 1-based round whose card ``player`` deals with next (the last round once
        done)."""
        pos = self._seats[self._check_player(player)].pos
        total = self._total if self._total is not None else len(self._shows) or 1
        return self._round_of_step(min(pos, max(total - 1, 0)))

    def waiting_for(self) -> tuple[int, ...]:
        """Rounds pace: the players who still have to decide this step."""
        if self.pace != "rounds" or self.is_over():
            return ()
        return tuple(p for p in self.active_players() if self._available(p))

    def _cards_of_step(self, step: int) -> tuple[tuple[int | None, int], ...]:
        if self._variant == "level_to_level":
            return self._shows[step]
        return ((None, self._cards[step]),)

    def _seen(self, viewer: int | None) -> int:
        """How many steps' cards ``viewer`` (None: every player) has seen."""
        revealed = len(self._shows) if self._variant == "level_to_level" else self._total
        assert revealed is not None
        if self.is_over():
            return revealed
        if self.pace == "rounds":
            now = self._step_now()
            return min((now if now is not None else revealed) + 1, revealed)
        if viewer is None:
            return self._spectator_step()
        if viewer in self._resigned:
            return self._resigned[viewer]
        return min(self._seats[viewer].pos + 1, revealed)

    def _spectator_step(self) -> int:
        active = self.active_players()
        if not active:
            return max(seat.pos for seat in self._seats)
        return min(self._seats[p].pos for p in active)

    def _revealed_cards(self, steps: int) -> list[int]:
        out: list[int] = []
        for step in range(steps):
            out.extend(number for _, number in self._cards_of_step(step))
        return out

    def supply(self, player: int) -> dict[int, int]:
        """How many cards of each number may still come for ``player`` (removed cards are
        unknown, so they still count)."""
        player = self._check_player(player)
        return self._supply(self._seen(player) if self.plusplus else self._base_seen(player))

    def _base_seen(self, player: int) -> int:
        if player in self._resigned:
            return self._resigned[player]
        return self._seats[player].pos + self._available(player)

    def _supply(self, seen: int) -> dict[int, int]:
        counts = dict.fromkeys(range(10), 0)
        for card in DECKS[self._variant]:
            counts[card] += 1
        for card in self._revealed_cards(seen):
            counts[card] -= 1
        return counts

    def tiles_left(self, player: int) -> dict[int, int] | None:
        """ "Level to level": how many tiles of each number ``player`` may still take."""
        if self._variant != "level_to_level":
            return None
        taken = self._seats[self._check_player(player)].taken
        return {n: self._tile_cap - taken[n] for n in NUMBERS}

    def tiles_to_come(self, player: int) -> int:
        """About how many more tiles ``player`` builds after the current one (for the
        policy's sense of how far the game has got)."""
        seat = self._seats[self._check_player(player)]
        if self._variant == "base":
            return max(0, sum(self.supply(player).values()))
        if self._variant == "two_of_three":
            built = sum(
                1
                for record in seat.history
                if isinstance(record, Turn) and isinstance(record.main, Place | Reserve)
            )
            return max(0, 2 * (self._total or 0) // 3 - built - 1)
        left = len(self._cards) - self._drawn
        return max(0, left // max(1, self._active))

    def score(self, player: int) -> int:
        return self._seats[self._check_player(player)].board.score()

    # ----------------------------------------------------------------- the flow of steps

    def _advance(self) -> None:
        """Deal with what happens by itself: new rounds of "level to level", forced
        rejects, skipped rounds."""
        while True:
            changed = False
            if self._variant == "level_to_level" and not self._ended:
                now = self._step_now()
                if now is not None and now == len(self._shows):
                    self._start_round()
            for player in self.active_players():
                if not self._available(player):
                    continue
                action = self._automatic(player)
                if action is not None:
                    seat = self._seats[player]
                    round = self._round_of_step(seat.pos)
                    if action == _AUTO_REJECT:
                        card = self._cards[seat.pos]
                        seat.record(Logged(round, _REJECT, card=card, forced=True))
                    else:
                        seat.record(Logged(round, None))
                    seat.history.append(action)
                    seat.pos += 1
                    seat.snapshot(round)
                    changed = True
            if not changed:
                break
        over = self.is_over()
        for player, seat in enumerate(self._seats):
            if seat.reserve is not None and (over or self._done(player)):
                seat.lost.append(seat.reserve.number)
                seat.reserve = None

    def _start_round(self) -> None:
        """ "Level to level": activate the next marker if due, then show a card under every
        active marker; if the pile cannot, the game has ended."""
        step = len(self._shows)
        if step >= 2 and self._active <= TOP_LEVEL:
            level = self._active - 1
            for seat in self._seats:
                on_level = sum(1 for p, lv in seat.board.tiles if lv == level and p.kind != "start")
                if on_level >= 2:
                    self._active += 1
                    break
        if len(self._cards) - self._drawn < self._active:
            self._ended = True
            self._total = step
            self.rounds = step
            return
        drawn = self._drawn
        self._shows.append(tuple((m, self._cards[drawn + m]) for m in range(self._active)))
        self._drawn += self._active

    def _rejects_this_round(self, seat: _Seat) -> int:
        start = seat.pos - seat.pos % 3
        return sum(
            1
            for record in seat.history[start : seat.pos]
            if record == _AUTO_REJECT or (isinstance(record, Turn) and record.main == Reject())
        )

    def _automatic(self, player: int) -> str | None:
        """What the rules decide for ``player`` at their current step, if anything."""
        seat = self._seats[player]
        if self._variant == "two_of_three":
            if seat.pos % 3 == 2 and self._rejects_this_round(seat) == 0:
                return _AUTO_REJECT
        elif self._variant == "level_to_level" and not self._offered(player):
            return _SKIP
        return None

    def _offered(self, player: int) -> tuple[tuple[int, int], ...]:
        """ "Level to level": the shown cards ``player`` has a tile for and can build."""
        seat = self._seats[player]
        offered = []
        for marker, number in self._shows[seat.pos]:
            if seat.taken[number] >= self._tile_cap:
                continue
            if seat.board.can_place(number, max_level=min(marker, TOP_LEVEL)):
                offered.append((marker, number))
        return tuple(offered)

    def to_move(self) -> frozenset[int]:
        """The players who must decide now (those whose ``decision`` is not None).

        >>> game = Game(2, seed=7)
        >>> game.play(0, "place 8@0,0r0")
        >>> sorted(game.to_move())
        [1]
        """
        if self.is_over():
            return frozenset()
        now = self._step_now() if self.pace == "rounds" else None
        owing = set()
        for player in range(self.players):
            if player in self._resigned or self._done(player):
                continue
            pos = self._seats[player].pos
            if now is not None and pos != now:
                continue
            if self._variant == "level_to_level" and pos >= len(self._shows):
                continue
            owing.add(player)
        return frozenset(owing)

    def decision(self, player: int) -> Decision | None:
        """What ``player`` must decide now, or None (waiting, finished, resigned, over)."""
        player = self._check_player(player)
        if self.is_over() or not self._available(player):
            return None
        seat = self._seats[player]
        step = seat.pos
        variant = self._variant
        may_reject = False
        if variant == "level_to_level":
            cards: tuple[tuple[int | None, int], ...] = self._offered(player)
        else:
            cards = ((None, self._cards[step]),)
            if variant == "two_of_three":
                may_reject = step % 3 < 2 and self._rejects_this_round(seat) == 0
        markers = self.options.markers - len(seat.used)
        specials = tuple(s for s in self.specials if s not in seat.used) if markers > 0 else ()
        reserve = seat.reserve
        return Decision(
            player=player,
            round=self._round_of_step(step),
            step=step,
            cards=cards,
            may_reject=may_reject,
            reserved=None if reserve is None else reserve.number,
            reserved_marker=None if reserve is None else reserve.marker,
            reserved_limit=None if reserve is None else reserve.limit,
            specials=specials,
            markers=max(0, markers),
            fillers=tuple(seat.fillers),
            max_level=TOP_LEVEL if variant == "level_to_level" else None,
        )

    # ----------------------------------------------------------------- moves

    def expect_decision(self, player: int) -> Decision:
        """The decision ``player`` owes now (``decision``); GameError saying why there is
        none (not a player, game over, resigned, finished, waiting)."""
        player = self._check_player(player)
        if self.is_over():
            raise GameError(GAME_OVER, code="game over")
        if player in self._resigned:
            raise GameError(RESIGNED, code="resigned")
        if self._done(player):
            raise GameError(ALL_PLACED, code="finished")
        decision = self.decision(player)
        if decision is None:
            raise GameError(WAITING, code="waiting")
        return decision

    def play(self, player: int, turn: Turn | str) -> None:
        """``player`` makes their decision for the current card: all of ``turn`` or nothing.

        Raises GameError (not this player's turn, a rule of the turn broken, ...),
        IllegalPlacement (a step's placement) or InvalidTurn, and then nothing changes.
        """
        player = self._check_player(player)
        decision = self.expect_decision(player)
        if isinstance(turn, str):
            turn = Turn.parse(turn)
        if not isinstance(turn, Turn):
            raise InvalidTurn(f"expected a Turn, not {turn!r}")
        seat, levels = self._carry_out(player, decision, turn)
        main = turn.main
        card = None
        if isinstance(main, Reject):
            card = decision.cards[0][1]
        elif isinstance(main, Reserve) and seat.reserve is not None:
            card = seat.reserve.number
        seat.record(Logged(decision.round, turn, levels, card))
        seat.history.append(turn)
        seat.pos += 1
        seat.decisions += 1
        seat.snapshot(decision.round)
        self._turn_steps.append(decision.step)
        self._seats[player] = seat
        self._turns.append((player, turn))
        self._advance()

    def is_legal(self, player: int, turn: Turn) -> bool:
        """Whether ``player`` may play ``turn`` now (never raises for a refusal)."""
        try:
            self._execute(self._check_player(player), self.expect_decision(player), turn)
        except IllegalMove:
            return False
        return True

    def _card(self, decision: Decision, marker: int | None, number: int) -> int | None:
        """The marker of the card a place or reserve step takes; GameError if it is not
        offered."""
        if self._variant != "level_to_level":
            if marker is not None:
                raise GameError(
                    "cards lie under level markers only in the variant level_to_level",
                    code="no markers",
                )
            card = decision.cards[0][1]
            if number != card:
                raise GameError(
                    f"the tile to place is a {card}, not a {number}",
                    code="wrong tile",
                    expected=card,
                    got=number,
                )
            return None
        marker = 0 if marker is None else marker
        shown = dict(self._shows[decision.step])
        if marker not in shown:
            raise GameError(
                f"there is no card under marker {marker} this round", code="no card", marker=marker
            )
        card = shown[marker]
        if number != card:
            raise GameError(
                f"the card under marker {marker} is a {card}, not a {number}",
                code="wrong tile",
                expected=card,
                got=number,
                marker=marker,
            )
        if (marker, card) not in decision.cards:
            raise GameError(
                f"you cannot take the {card} under marker {marker}: no tile of it is left "
                "for you, or it fits nowhere",
                code="card not offered",
                marker=marker,
                number=card,
            )
        return marker

    def _use(self, seat: _Seat, name: str) -> None:
        """Put a marker on special tile ``name``; GameError if the player may not."""
        if name not in self.specials:
            raise GameError(
                f"the special tile {name} is not in play", code="special not in play", special=name
            )
        if name in seat.used:
            raise GameError(
                f"you have already used the special tile {name}", code="special used", special=name
            )
        if len(seat.used) >= self.options.markers:
            raise GameError(
                f"you have no marker left for the special tile {name}",
                code="no marker left",
                special=name,
            )
        seat.used.append(name)

    def _execute(
        self, player: int, decision: Decision, turn: Turn, *, partial: bool = False
    ) -> _Seat:
        """``player``'s seat after ``turn``, on a copy; raises if the turn is refused.

        ``partial``: the first steps of a turn, checked step by step but not as a whole."""
        return self._carry_out(player, decision, turn, partial=partial)[0]

    def _carry_out(
        self, player: int, decision: Decision, turn: Turn, *, partial: bool = False
    ) -> tuple[_Seat, tuple[int, ...]]:
        """``_execute``, with the level each piece the turn built went to, in order."""
        seat = self._seats[player].copy()
        board = seat.board
        variant = self._variant
        top = TOP_LEVEL if variant == "level_to_level" else None
        held = seat.reserve
        main: str | None = None
        extras = False
        built_reserve = False
        levels: list[int] = []
        for step in turn.steps:
            if isinstance(step, Place | Reserve | Reject) and main is not None:
                raise GameError(
                    "a turn deals with its card once: one place, reserve or reject",
                    code="one card",
                )
            if isinstance(step, Place):
                placement = step.placement
                number = placement.piece
                assert isinstance(number, int)
                marker = self._card(decision, step.marker, number)
                for name in step.specials:
                    self._use(seat, name)
                if placement.mirrored and "black" not in step.specials:
                    raise GameError(
                        "a mirrored tile needs the special tile black",
                        code="mirrored without black",
                    )
                if "black" in step.specials and not placement.mirrored:
                    raise GameError(
                        f"with the special tile black the tile is built mirrored ({number}m@...)",
                        code="black not mirrored",
                    )
                relax = frozenset(step.specials) - {"black"}
                cap = top if marker is None else min(marker, TOP_LEVEL)
                level = board.place(placement, relax, cap)
                if level == 0:
                    for name in ("one", "bridge", "loose"):
                        if name in relax:
                            raise GameError(
                                f"the special tile {name} is for levels 1 and up: this tile "
                                "would lie on level 0",
                                code="special on level 0",
                                special=name,
                            )
                seat.taken[number] += 1
                levels.append(level)
                main = "place"
            elif isinstance(step, Reserve):
                card = decision.cards[0][1] if variant != "level_to_level" else None
                if variant == "level_to_level":
                    under = 0 if step.marker is None else step.marker
                    card = dict(self._shows[decision.step]).get(under)
                    if card is None:
                        raise GameError(
                            f"there is no card under marker {under} this round",
                            code="no card",
                            marker=under,
                        )
                assert card is not None
                marker = self._card(decision, step.marker, card)
                self._use(seat, "reserve")
                seat.reserve = _Reserve(card, marker, board.height() - 1)
                seat.taken[card] += 1
                main = "reserve"
            elif isinstance(step, Reject):
                if variant != "two_of_three":
                    raise GameError(
                        "only the variant two_of_three lets you reject a card", code="no rejects"
                    )
                if not decision.may_reject:
                    raise GameError(
                        "you must build this card: exactly one card of three is rejected each "
                        "round",
                        code="must build",
                    )
                main = "reject"
            elif isinstance(step, Fill):
                piece = step.placement.piece
                if not self.options.fillers:
                    raise GameError("gap fillers are not in this game", code="no fillers")
                if piece not in seat.fillers:
                    raise GameError(
                        f"you have already built your {piece}", code="filler used", filler=piece
                    )
                levels.append(board.place(step.placement, max_level=top))
                seat.fillers.remove(piece)
                extras = True
            elif isinstance(step, Move):
                self._use(seat, "move")
                if step.source.cells() == step.target.cells():
                    raise GameError("a moved tile must go somewhere else", code="move nowhere")
                old = board.remove(step.source)
                levels.append(board.place(step.target, max_level=old))
                extras = True
            else:
                assert isinstance(step, Build)
                if held is None or built_reserve or seat.reserve is not held:
                    raise GameError("you have no reserved tile to build", code="nothing reserved")
                if step.placement.piece != held.number:
                    raise GameError(
                        f"the reserved tile is a {held.number}, not a {step.placement.piece}",
                        code="not the reserved tile",
                        reserved=held.number,
                        got=step.placement.piece,
                    )
                cap = top if held.marker is None else min(held.marker, TOP_LEVEL)
                levels.append(board.place(step.placement, max_level=cap))
                seat.reserve = None
                built_reserve = True
                extras = True
        if partial:
            return seat, tuple(levels)
        if main is None:
            raise GameError("a turn must place, reserve or reject its card", code="no card")
        if extras and main != "place":
            raise GameError(
                "gap fillers, moves and the reserved tile go with a built card tile",
                code="extras without tile",
            )
        if held is not None and not built_reserve and any(lv > held.limit for lv in levels):
            seat.lost.append(held.number)
            seat.reserve = None
        return seat, tuple(levels)

    def draft(self, player: int, steps: Iterable[Step]) -> tuple[GameView, IllegalMove | None]:
        """What ``player`` would see while composing their turn: ``steps`` are carried out
        in order on a copy until one is refused (the game does not change). Returns the view
        after the accepted steps (their display built so far; the decision with the special
        tiles, fillers and reserved tile left) and the refusal, or None.

        >>> game = Game(1, seed=7, options=Options(fillers=True))
        >>> view, refused = game.draft(0, Turn.parse("place 8@0,0r0; fill F1@9,9r0").steps)
        >>> view.displays[0].tiles, view.decision.fillers, refused.code
        (((Placement(number=8, x=0, y=0, rotation=0), 0),), ('F1', 'F2'), 'not adjacent')
        >>> game.board(0).tiles
        ()
        """
        player = self._check_player(player)
        decision = self.expect_decision(player)
        seat, refused = self._seats[player], None
        accepted: list[Step] = []
        for step in steps:
            try:
                seat = self._execute(player, decision, Turn((*accepted, step)), partial=True)
            except IllegalMove as exc:
                refused = exc
                break
            accepted.append(step)
        game = Game.__new__(Game)
        game.__dict__.update(self.__dict__)
        game._seats = [*self._seats]
        game._seats[player] = seat
        view = game.view(player)
        used_fillers = tuple(f for f in seat.dealt if f not in seat.fillers)
        own = replace(
            view.displays[player],
            tiles=seat.board.tiles,
            score=seat.board.score(),
            specials_used=tuple(seat.used) if self.specials else (),
            fillers_used=used_fillers,
        )
        displays = (*view.displays[:player], own, *view.displays[player + 1 :])
        return replace(view, displays=displays), refused

    def place(self, player: int, placement: Placement) -> int:
        """Place ``player``'s current tile (the turn ``place PLACEMENT``); returns its level.

        Raises GameError (not this player's turn, wrong number, resigned, game over) or
        IllegalPlacement, and then nothing changes.
        """
        player = self._check_player(player)
        self.expect_decision(player)
        if not isinstance(placement, Placement):
            raise InvalidPlacement(f"expected a Placement, not {placement!r}")
        if placement.number is None:
            raise GameError(
                f"the tile to place is a number tile, not {placement.piece}", code="wrong tile"
            )
        self.play(player, Turn.place(placement))
        return self._seats[player].board.tiles[-1][1]

    def resign(self, player: int) -> None:
        """``player`` makes no more moves and is ranked last; nobody waits for them."""
        player = self._check_player(player)
        if self.is_over():
            raise GameError(GAME_OVER, code="game over")
        if player in self._resigned:
            raise GameError(RESIGNED, code="resigned")
        if self._done(player):
            raise GameError(ALL_PLACED, code="finished")
        self._resigned[player] = (
            self._base_seen(player) if not self.plusplus else self._seen(player)
        )
        self._resignations.append((player, len(self._turns)))
        self._advance()

    # ----------------------------------------------------------------- turns for bots

    def legal_turns(self, player: int) -> list[Turn]:
        """The one-step turns ``player`` may play now: every placement of every offered
        card, also with one special tile lifting a rule or mirrored with "black", and
        "reserve" and "reject" where allowed. (Fillers, moves and the reserved tile combine
        with these into further turns, which are not listed.)"""
        player = self._check_player(player)
        decision = self.expect_decision(player)
        board = self._seats[player].board
        level_to_level = self._variant == "level_to_level"
        turns: list[Turn] = []
        for marker, number in decision.cards:
            cap = decision.cap(marker)
            mark = marker if level_to_level else None
            turns.extend(
                Turn.place(p, (), mark) for p in board.legal_placements(number, max_level=cap)
            )
            if "black" in decision.specials:
                turns.extend(
                    Turn.place(p, ("black",), mark)
                    for p in board.legal_placements(number, mirrored=True, max_level=cap)
                )
            for name in ("one", "bridge", "loose"):
                if name in decision.specials:
                    turns.extend(
                        Turn.place(p, (name,), mark)
                        for p, level in board.legal_moves(number, {name}, max_level=cap)
                        if level > 0
                    )
            if "reserve" in decision.specials and decision.reserved is None:
                turns.append(Turn((Reserve(mark),)))
        if decision.may_reject:
            turns.append(Turn((Reject(),)))
        return turns

    def random_turn(self, player: int, rng: random.Random) -> Turn:
        """A legal turn for ``player`` drawn with ``rng``, now and then with gap fillers,
        special tiles, the reserved tile, a reject or another card (for tests and
        playouts)."""
        player = self._check_player(player)
        decision = self.expect_decision(player)
        for _ in range(10):
            turn = self._random_attempt(decision, rng)
            if turn is not None:
                return turn
        return self._plain_turn(decision)

    def _plain_turn(self, decision: Decision) -> Turn:
        if decision.may_reject:
            return Turn((Reject(),))
        marker, number = decision.cards[0]
        mark = marker if self._variant == "level_to_level" else None
        board = self._seats[decision.player].board
        placement = board.legal_placements(number, max_level=decision.cap(marker))[0]
        return Turn.place(placement, (), mark)

    def _random_attempt(self, decision: Decision, rng: random.Random) -> Turn | None:
        player = decision.player
        if decision.may_reject and rng.random() < 0.3:
            return Turn((Reject(),))
        marker, number = rng.choice(decision.cards)
        mark = marker if self._variant == "level_to_level" else None
        cap = decision.cap(marker)
        specials = decision.specials
        if "reserve" in specials and decision.reserved is None and rng.random() < 0.15:
            return Turn((Reserve(mark),))
        kinds = [f for f in decision.fillers if rng.random() < 0.3]
        if "move" in specials and rng.random() < 0.2:
            kinds.append("move")
        if decision.reserved is not None and rng.random() < 0.6:
            kinds.append("build")
        rng.shuffle(kinds)
        kinds.insert(rng.randrange(len(kinds) + 1), "place")
        chosen = tuple(name for name in TILE_SPECIALS if name in specials and rng.random() < 0.25)
        steps: list[Any] = []
        for kind in kinds:
            if steps:
                board = self._execute(player, decision, Turn(tuple(steps)), partial=True).board
            else:
                board = self._seats[player].board
            candidates: list[Step | None]
            if kind == "place":
                candidates = [
                    self._random_place(board, number, chosen, cap, mark, rng),
                    self._random_place(board, number, (), cap, mark, rng),
                ]
            elif kind == "build":
                assert decision.reserved is not None
                options = board.legal_placements(decision.reserved, max_level=decision.reserved_cap)
                candidates = [Build(rng.choice(options))] if options else []
            elif kind == "move":
                candidates = [self._random_move(board, rng)]
            else:
                options = board.legal_placements(kind, max_level=decision.max_level)
                candidates = [Fill(rng.choice(options))] if options else []
            for step in candidates:
                if step is None:
                    continue
                try:
                    self._execute(player, decision, Turn((*steps, step)), partial=True)
                except IllegalMove:
                    continue
                steps.append(step)
                break
        if not any(isinstance(step, Place) for step in steps):
            return None
        turn = Turn(tuple(steps))
        try:
            self._execute(player, decision, turn)
        except IllegalMove:
            return None
        return turn

    @staticmethod
    def _random_place(
        board: Board,
        number: int,
        specials: tuple[str, ...],
        cap: int | None,
        mark: int | None,
        rng: random.Random,
    ) -> Place | None:
        relax = frozenset(specials) - {"black"}
        moves = board.legal_moves(number, relax, mirrored="black" in specials, max_level=cap)
        options = [p for p, level in moves if level > 0 or not relax]
        return Place(rng.choice(options), specials, mark) if options else None

    @staticmethod
    def _random_move(board: Board, rng: random.Random) -> Move | None:
        movable = board.movable()
        if not movable:
            return None
        source, level = rng.choice(movable)
        scratch = board.copy()
        scratch.remove(source)
        targets = [
            p
            for p in scratch.legal_placements(
                source.piece, mirrored=source.mirrored, max_level=level
            )
            if p.cells() != source.cells()
        ]
        return Move(source, rng.choice(targets)) if targets else None

    # ----------------------------------------------------------------- results and views

    def outcome(self) -> Outcome | None:
        """None while the game is running, else every player's score and place (the
        players who resigned are ``left`` and share the last place)."""
        if not self.is_over():
            return None
        scores = tuple(seat.board.score() for seat in self._seats)
        left = self.resigned
        return Outcome(scores, competition_ranks(scores, left), left)

    def _shown_steps(self, viewer: int | None, player: int) -> int:
        """After how many of ``player``'s steps ``viewer`` (None: a spectator) sees their
        display."""
        pos = self._seats[player].pos
        if viewer == player or self.is_over():
            return pos
        if self.pace == "rounds":
            now = self._step_now()
            return pos if now is None else min(pos, now)
        if viewer is None:
            return min(pos, self._spectator_step())
        return min(pos, self._seats[viewer].pos)

    def _viewer_step(self, viewer: int | None) -> int:
        """The step whose round ``viewer`` is in."""
        if self.pace == "rounds" and not self.is_over():
            now = self._step_now()
            step = now if now is not None else 0
        elif viewer is None:
            step = self._spectator_step()
        else:
            step = self._seats[viewer].pos
        revealed = len(self._shows) if self._variant == "level_to_level" else self._total
        return max(0, min(step, (revealed or 1) - 1))

    def view(self, viewer: int | None, dealt: int | None = None) -> GameView:
        """All that ``viewer`` may know (None: a spectator, who may know what every player
        may know); see ``GameView``. With ``dealt``, only the deal's first ``dealt`` steps
        have been shown to anybody: a player who went through them waits, deciding nothing
        and knowing nothing of the next (players of one deal in step, each in a game of
        their own)."""
        if viewer is not None:
            viewer = self._check_player(viewer)
        over = self.is_over()
        seen = self._seen(viewer)
        held = False
        if dealt is not None and not over:
            seen = min(seen, dealt)
            held = viewer is not None and self._seats[viewer].pos >= dealt
        with_specials = bool(self.specials)
        displays = []
        for player in range(self.players):
            shown = self._shown_steps(viewer, player)
            seat = self._seats[player]
            snapshot = seat.snapshots[shown]
            log = seat.log if player == viewer or over else seat.public
            displays.append(
                DisplayView(
                    player=player,
                    tiles=snapshot.tiles,
                    score=snapshot.score,
                    progress=shown,
                    left=player in self._resigned,
                    specials_used=snapshot.used if with_specials else (),
                    fillers_used=snapshot.fillers_used,
                    placed_in=snapshot.placed_in,
                    log=tuple(log[:shown]),
                )
            )
        step = self._viewer_step(viewer)
        cards: tuple[tuple[int | None, int], ...] = ()
        if not over:
            if self.pace == "rounds":
                now = self._step_now()
                if now is not None and now < seen:
                    cards = self._cards_of_step(now)
            elif viewer is not None and self._available(viewer) and not held:
                cards = self._cards_of_step(self._seats[viewer].pos)
        level_markers: tuple[tuple[int, int], ...] = ()
        pile = None
        if self._variant == "level_to_level":
            if seen:
                level_markers = self._shows[seen - 1]
            pile = len(self._cards) - sum(len(show) for show in self._shows[:seen])
        own: dict[str, Any] = {}
        if viewer is not None:
            seat = self._seats[viewer]
            round_cards: list[tuple[int, str | None]] = []
            if self._variant == "two_of_three":
                start = step - step % 3
                for index in range(start, min(start + 3, seen)):
                    action = None
                    if index < seat.pos:
                        record = seat.history[index]
                        rejected = record == _AUTO_REJECT or (
                            isinstance(record, Turn) and isinstance(record.main, Reject)
                        )
                        action = "rejected" if rejected else "built"
                    round_cards.append((self._cards[index], action))
            own = {
                "decision": None if viewer in self._resigned or held else self.decision(viewer),
                "round_cards": tuple(round_cards),
                "reserved": None if seat.reserve is None else seat.reserve.number,
                "lost": tuple(seat.lost),
                "markers": max(0, self.options.markers - len(seat.used)),
                "fillers": tuple(seat.fillers),
                "tiles_left": self.tiles_left(viewer),
            }
        return GameView(
            viewer=viewer,
            players=self.players,
            pace=self.pace,
            options=replace(self.options, removed=self.removed),
            specials=self.specials,
            over=over,
            round=self._round_of_step(step),
            rounds=self.rounds,
            cards=cards,
            supply=self._supply(seen),
            displays=tuple(displays),
            waiting_for=self.waiting_for(),
            left=tuple(sorted(self._resigned)),
            level_markers=level_markers,
            pile=pile,
            outcome=self.outcome() if over else None,
            **own,
        )

    def sample_hidden(self, viewer: int | None, rng: random.Random) -> Game:
        """A game ``viewer`` (None: a spectator) cannot tell from this one: the cards they
        have not seen in a fresh order, another player's decisions they cannot see yet
        replaced by random ones (rounds pace) or undone (free pace). The sample has no seed:
        it is set up from its deal. ``view(viewer)`` of it equals this game's."""
        if viewer is not None:
            viewer = self._check_player(viewer)
        seen = self._seen(viewer)
        if self._variant == "level_to_level":
            known = sum(len(show) for show in self._shows[:seen])
        else:
            known = seen
        prefix = list(self._cards[:known])
        unseen = list((Counter(DECKS[self._variant]) - Counter(prefix)).elements())
        rng.shuffle(unseen)
        cards = prefix + unseen[: len(self._cards) - known]
        deal_ = replace(self._deal, cards=tuple(cards))
        game = Game(self.players, seed=None, pace=self.pace, options=self.options, deal=deal_)
        shown = [self._shown_steps(viewer, player) for player in range(self.players)]
        resignations = iter(self._resignations)
        pending = next(resignations, None)
        for index, ((player, turn), step) in enumerate(
            zip(self._turns, self._turn_steps, strict=True)
        ):
            while pending is not None and pending[1] <= index:
                game.resign(pending[0])
                pending = next(resignations, None)
            if player == viewer or step < shown[player]:
                game.play(player, turn)
            elif self.pace == "rounds":
                game.play(player, game.random_turn(player, rng))
        while pending is not None:
            game.resign(pending[0])
            pending = next(resignations, None)
        return game

    # ----------------------------------------------------------------- replay

    def copy(self) -> Game:
        """An independent copy of the game."""
        game = Game.__new__(Game)
        for name in (
            "players",
            "seed",
            "pace",
            "options",
            "_deal",
            "_cards",
            "removed",
            "specials",
            "_variant",
            "_total",
            "rounds",
            "_tile_cap",
            "_drawn",
            "_active",
            "_ended",
        ):
            setattr(game, name, getattr(self, name))
        game._seats = [seat.copy() for seat in self._seats]
        game._turns = self._turns.copy()
        game._turn_steps = self._turn_steps.copy()
        game._resignations = self._resignations.copy()
        game._resigned = self._resigned.copy()
        game._shows = self._shows.copy()
        return game

    def __deepcopy__(self, memo: dict) -> Game:
        return self.copy()

    @classmethod
    def replay(
        cls,
        players: int = 1,
        *,
        seed: int | str | None,
        pace: str = "rounds",
        removed: int | str | None = None,
        moves: Iterable[tuple[int, Placement | Turn | str]] = (),
        resignations: Iterable[tuple[int, int]] = (),
        options: Options | None = None,
        deal: Deal | None = None,
    ) -> Game:
        """Rebuild a game from its seed and moves (placements, turns or their texts) and
        resignations, each with the number of moves made before it. Raises like ``place``
        and ``play`` if a move does not fit."""
        game = cls(players, seed=seed, pace=pace, removed=removed, options=options, deal=deal)
        pending = sorted(
            ((int(index), n, int(p)) for n, (p, index) in enumerate(resignations)),
        )
        position = 0
        for count, (player, move) in enumerate(moves):
            while position < len(pending) and pending[position][0] <= count:
                game.resign(pending[position][2])
                position += 1
            if isinstance(move, str):
                move = Turn.parse(move) if move.strip()[:1].isalpha() else Placement.parse(move)
            if isinstance(move, Turn):
                game.play(player, move)
            else:
                game.place(player, move)
        for _, _, player in pending[position:]:
            game.resign(player)
        return game

    def to_dict(self) -> dict[str, Any]:
        """Seed, settings and moves: everything needed to rebuild the game (server side only;
        it holds the seed, or the deal of a game set up from one). A base game keeps the
        format ``{"players", "seed", "pace", "removed", "moves", "resignations"}``."""
        if not self.plusplus and self.seed is not None:
            return {
                "players": self.players,
                "seed": self.seed,
                "pace": self.pace,
                "removed": self.removed,
                "moves": [[player, str(turn.steps[0].placement)] for player, turn in self._turns],  # type: ignore[union-attr]
                "resignations": [list(r) for r in self._resignations],
            }
        data: dict[str, Any] = {
            "players": self.players,
            "seed": self.seed,
            "pace": self.pace,
            "options": self.options.to_dict(),
            "turns": [[player, str(turn)] for player, turn in self._turns],
            "resignations": [list(r) for r in self._resignations],
        }
        if self.seed is None:
            data["deal"] = self._deal.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        if "turns" in data or "options" in data or "deal" in data:
            return cls.replay(
                data["players"],
                seed=data["seed"],
                pace=data.get("pace", "rounds"),
                options=Options.from_dict(data.get("options", {})),
                deal=Deal.from_dict(data["deal"]) if data.get("deal") else None,
                moves=[(player, Turn.parse(text)) for player, text in data.get("turns", ())],
                resignations=[(player, index) for player, index in data.get("resignations", ())],
            )
        return cls.replay(
            data["players"],
            seed=data["seed"],
            pace=data.get("pace", "rounds"),
            removed=data.get("removed", 0),
            moves=[(player, text) for player, text in data.get("moves", ())],
            resignations=[(player, index) for player, index in data.get("resignations", ())],
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Game:
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return (
            f"<Game players={self.players} pace={self.pace!r} rounds={self.rounds} "
            f"moves={len(self._turns)}{' over' if self.is_over() else ''}>"
        )
