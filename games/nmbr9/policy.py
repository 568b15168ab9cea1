"""The fallback policy: a quick heuristic player.

It places a tile for a player whose time ran out and plays as a bot. Every legal placement is
scored by the points it makes now plus terms that keep each level compact and keep room for
high numbers higher up; the best one is chosen (ties broken by the move order, or by ``rng``).

For NMBR 9 ++ the same valuation decides whole turns (``choose_turn``), one ply deep: which
card to take ("level to level"), whether to reject ("2 of 3": the card against the expected
value of an unseen one), and whether a special tile, a gap filler, a move or the reserved
tile gains enough to be worth it. ``fallback_turn`` is what docs/rules.md §6.8 plays on a missed
deadline: a plain placement (or a reject), never spending the player's special tiles or
fillers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from . import kernel as _kernel
from .board import ORIGIN, SHAPE_MASKS, STRIDE, Board, kernel_rules
from .game import Game
from .placement import Placement
from .setup import GameError
from .tiles import PIECE_OF, VALUES
from .turn import Build, Fill, Move, Place, Reject, Reserve, Turn

__all__ = [
    "Weights",
    "best_moves",
    "choose",
    "choose_turn",
    "evaluate",
    "fallback_placement",
    "fallback_turn",
    "kernel_weights",
    "scored_moves",
]


@dataclass(frozen=True, slots=True)
class Weights:
    """Coefficients of the evaluation of one placement of tile n on level L.

    ``phase`` is the share of the game still to come (tiles that may follow / 19).

    - ``points``: n x L, the points made now;
    - ``area[L]``: per covered square, the worth of raising it from level L-1 to L
      (``area[L] - area[L-1]``, times phase): room for later tiles higher up;
    - ``contact``: edges shared with tiles on the same level (a compact level);
    - ``exposed``: edges left against the uncovered rest of the level below (times phase):
      do not cut up the room there;
    - ``holes``: new free squares walled in on three sides on the tile's level;
    - ``thick`` and ``fit``: change in the room to build on the two levels touched (squares
      inside 2x2 blocks; places for a 2x3 block), weighted by ``area``, times phase;
    - ``waste``: n x (highest level this tile could reach - L);
    - ``climb``: L times phase, a small push up or down for any tile.
    """

    points: float = 0.546
    area: tuple[float, ...] = (0.0, 0.427, 0.451, 1.208, 1.008, 6.36)
    contact: float = 0.605
    exposed: float = 0.858
    holes: float = 0.272
    thick: float = 0.845
    fit: float = 0.057
    waste: float = 0.105
    climb: float = 0.03


DEFAULT = Weights()


def kernel_weights(weights: Weights) -> tuple:
    """``weights`` as the compiled kernel reads them."""
    try:
        return _cached_kernel_weights(weights)
    except TypeError:  # unhashable (an area given as a list)
        return _kernel_weights(weights)


def _kernel_weights(weights: Weights) -> tuple:
    return (
        weights.points,
        tuple(weights.area),
        weights.contact,
        weights.exposed,
        weights.holes,
        weights.thick,
        weights.fit,
        weights.waste,
        weights.climb,
    )


_cached_kernel_weights = lru_cache(maxsize=64)(_kernel_weights)


def _edges(mask: int, other: int) -> int:
    """How many square edges ``mask`` shares with ``other``."""
    return (
        ((mask << 1) & other).bit_count()
        + ((mask >> 1) & other).bit_count()
        + ((mask << STRIDE) & other).bit_count()
        + ((mask >> STRIDE) & other).bit_count()
    )


def _holes(occupied: int) -> int:
    """Free squares with at least three occupied neighbours."""
    left, right = occupied << 1, occupied >> 1
    up, down = occupied << STRIDE, occupied >> STRIDE
    three = (left & right & (up | down)) | (up & down & (left | right))
    return (three & ~occupied).bit_count()


def _thick(top: int) -> int:
    """Squares of ``top`` inside a 2x2 block of ``top`` (room to build on)."""
    blocks = top & top >> 1
    blocks &= blocks >> STRIDE
    blocks |= blocks << 1
    return (blocks | blocks << STRIDE).bit_count()


def _fit(top: int) -> int:
    """Places for a 2x3 or 3x2 block on ``top``."""
    two = top & top >> 1
    three = two & top >> 2
    tall = two & two >> STRIDE & two >> 2 * STRIDE
    wide = three & three >> STRIDE
    return tall.bit_count() + wide.bit_count()


def _remaining(board: Board, supply: Mapping[int, int] | None) -> int:
    if supply is not None:
        return max(0, sum(supply.values()))
    return max(0, 19 - len(board))


class _Context:
    """What the evaluation needs from the board, computed once per choice."""

    __slots__ = ("area", "base", "fit", "holes", "occupied", "phase", "thick", "tops", "weights")

    def __init__(self, board: Board, remaining: int, weights: Weights) -> None:
        height = board.height()
        base, tops, occupied = board.bitboards()
        self.weights = weights
        self.base = base
        self.phase = remaining / 19
        self.tops = [*tops, 0]
        self.occupied = [*occupied, 0]
        self.holes = [_holes(m) for m in self.occupied]
        self.thick = [_thick(m) for m in self.tops] if weights.thick else []
        self.fit = [_fit(m) for m in self.tops] if weights.fit else []
        area = weights.area
        self.area = [area[min(level, len(area) - 1)] for level in range(height + 1)]


def _score(context: _Context, placement: Placement, level: int, best_level: int) -> float:
    weights = context.weights
    shape = placement.shape
    number = VALUES[shape]
    anchor = (placement.y + ORIGIN) * STRIDE + placement.x + ORIGIN - context.base
    mask = SHAPE_MASKS[shape][placement.rotation] << anchor
    phase = context.phase
    area = context.area
    occupied = context.occupied[level]
    score = weights.points * number * level + weights.climb * phase * level
    score -= weights.waste * number * (best_level - level)
    gained = area[level] - (area[level - 1] if level else 0.0)
    score += phase * mask.bit_count() * gained
    score += weights.contact * _edges(mask, occupied)
    score -= weights.holes * (_holes(occupied | mask) - context.holes[level])
    tops = context.tops
    top = tops[level]
    if level:
        lower = tops[level - 1]
        rest = lower & ~mask
        score -= weights.exposed * phase * _edges(mask, rest)
    if weights.thick:
        upper = area[level] * (_thick(top | mask) - context.thick[level])
        if level:
            upper += area[level - 1] * (_thick(rest) - context.thick[level - 1])
        score += weights.thick * phase * upper
    if weights.fit:
        upper = area[level] * (_fit(top | mask) - context.fit[level])
        if level:
            upper += area[level - 1] * (_fit(rest) - context.fit[level - 1])
        score += weights.fit * phase * upper
    return score


def evaluate(
    board: Board,
    placement: Placement,
    level: int,
    remaining: int,
    weights: Weights = DEFAULT,
) -> float:
    """How good placing ``placement`` (legal, on ``level``) looks; higher is better.

    ``remaining``: how many tiles may still come after this one.
    """
    context = _Context(board, remaining, weights)
    return _score(context, placement, level, level)


def _assumed_supply(board: Board, number: int) -> dict[int, int]:
    """Two of each number minus the number tiles on the board (not its start tile or gap
    fillers) and the one being placed."""
    supply = dict.fromkeys(range(10), 2)
    for placed in (*(p.number for p in board.placements), number):
        if placed is not None:
            supply[placed] = max(0, supply[placed] - 1)
    return supply


def _best_next(board: Board, supply: Mapping[int, int], weights: Weights) -> float:
    """The expected evaluation of the best placement of the next tile."""
    total = sum(supply.values())
    context = _Context(board, total - 1, weights)
    expected = 0.0
    for number, count in supply.items():
        if count:
            moves = board.legal_moves(number)
            best_level = moves[-1][1]
            best = max(_score(context, p, level, best_level) for p, level in moves)
            expected += count / total * best
    return expected


def _compiled_moves(
    board: Board,
    number: int | str,
    relax: frozenset[str],
    mirrored: bool,
    max_level: int | None,
    remaining: int,
    weights: Weights,
    best: int = 0,
) -> list[tuple[Placement, int, float]] | None:
    """``scored_moves`` from the compiled kernel (with ``best`` > 0: its ``best`` best-valued
    moves, best first, ties in the move order); None where the kernel cannot answer."""
    compiled = _kernel.KERNEL
    if compiled is None or remaining.__class__ is not int:
        return None
    rules = kernel_rules(number, relax, mirrored, max_level)
    if rules is None:
        return None
    found = compiled.scored(
        *board.kernel_position(),
        *rules,
        remaining,
        kernel_weights(weights),
        best,
    )
    if found is None:
        return None
    piece, mirror = PIECE_OF[rules[0]]
    new = Placement._unchecked
    return [(new(piece, x, y, r, mirror), level, value) for x, y, r, level, value in found]


def scored_moves(
    board: Board,
    number: int | str,
    *,
    supply: Mapping[int, int] | None = None,
    weights: Weights = DEFAULT,
    remaining: int | None = None,
    relax: frozenset[str] = frozenset(),
    mirrored: bool = False,
    max_level: int | None = None,
) -> list[tuple[Placement, int, float]]:
    """Every legal placement of ``number`` (any piece) with its level and the policy's value.

    ``supply`` as for ``choose``; ``remaining`` (how many tiles follow this one) overrides
    it. ``relax``, ``mirrored`` and ``max_level`` as for ``Board.legal_moves``. In the order
    of ``Board.legal_moves``.

    >>> [(str(p), level, round(value, 2)) for p, level, value in scored_moves(Board(), 0)]
    [('0@0,0r0', 0, -0.54), ('0@0,0r1', 0, -0.54)]
    """
    if remaining is None:
        remaining = _remaining(board, supply)
    found = _compiled_moves(board, number, relax, mirrored, max_level, remaining, weights)
    if found is not None:
        return found
    moves = board.legal_moves(number, relax, mirrored, max_level)
    if not moves:
        return []
    context = _Context(board, remaining, weights)
    best_level = moves[-1][1]
    return [(p, level, _score(context, p, level, best_level)) for p, level in moves]


def best_moves(
    board: Board,
    number: int,
    count: int,
    *,
    supply: Mapping[int, int] | None = None,
    weights: Weights = DEFAULT,
) -> list[tuple[Placement, int, float]]:
    """The ``count`` best-valued of ``scored_moves(board, number, supply=supply,
    weights=weights)``, best first (equal values in the move order).

    >>> [(str(p), round(value, 2)) for p, _, value in best_moves(Board("5@0,0r0"), 9, 2)]
    [('9@3,0r0', 2.42), ('9@-2,-2r0', 1.81)]
    """
    if count > 0:
        remaining = _remaining(board, supply)
        found = _compiled_moves(board, number, frozenset(), False, None, remaining, weights, count)
        if found is not None:
            return found
    scored = scored_moves(board, number, supply=supply, weights=weights)
    scored.sort(key=lambda move: -move[2])
    return scored[: max(count, 0)]


def choose(
    board: Board,
    number: int,
    *,
    supply: Mapping[int, int] | None = None,
    rng: random.Random | None = None,
    weights: Weights = DEFAULT,
    lookahead: int = 0,
) -> Placement:
    """The policy's placement of tile ``number`` on ``board`` (deterministic without ``rng``).

    ``supply`` maps each number to how many of its tiles may still come after this one (as
    ``Game.supply`` gives it); without it the policy assumes a full 20-card game.
    ``lookahead`` > 0 looks one tile further for that many of the best-looking placements:
    each is valued by its own value plus the expected value of the best placement of the
    next tile, over the numbers that may come (stronger, and some tens of milliseconds per
    move instead of about one).

    >>> board = Board()
    >>> choose(board, 3)
    Placement(number=3, x=0, y=0, rotation=0)
    >>> board.is_legal(choose(Board("3@0,0r0 5@3,0r0"), 9))
    True
    """
    remaining = _remaining(board, supply)
    compiled = _kernel.KERNEL
    if compiled is not None and number.__class__ is int and 0 <= number <= 9:
        future = None
        if lookahead > 0 and remaining > 0:
            assumed = dict(supply) if supply is not None else _assumed_supply(board, number)
            future = list(assumed.items())
            if not all(n.__class__ is int and c.__class__ is int for n, c in future):
                future = None
        if future is not None or lookahead <= 0 or remaining <= 0:
            found = compiled.choose(
                *board.kernel_position(),
                number,
                remaining,
                kernel_weights(weights),
                lookahead,
                future,
            )
            if found:
                best = [Placement._unchecked(number, x, y, r) for x, y, r in found]
                if rng is not None and len(best) > 1:
                    return rng.choice(best)
                return best[0]
    scored = scored_moves(board, number, supply=supply, weights=weights)
    moves = [(placement, level) for placement, level, _ in scored]
    values = [value for _, _, value in scored]
    if lookahead > 0 and remaining > 0 and len(moves) > 1:
        upcoming = dict(supply) if supply is not None else _assumed_supply(board, number)
        order = sorted(range(len(moves)), key=lambda i: -values[i])[:lookahead]
        looked = {}
        for i in order:
            placement, level = moves[i]
            after = board.copy()
            after.place(placement)
            looked[i] = values[i] + _best_next(after, upcoming, weights)
        values = [looked.get(i, float("-inf")) for i in range(len(moves))]
    top = max(values)
    best = [moves[i][0] for i, value in enumerate(values) if value > top - 1e-9]
    if rng is not None and len(best) > 1:
        return rng.choice(best)
    return best[0]


# ----------------------------------------------------------------- NMBR 9 ++ turns


@dataclass(frozen=True, slots=True)
class TurnWeights:
    """When ``choose_turn`` spends something, in units of the placement valuation.

    - ``marker``: the worth of a special tile kept for later (times phase, plus ``marker_floor``);
    - ``filler``: the same for a gap filler;
    - ``reject_margin``: "2 of 3" rejects a card that is worth this much less than an unseen one;
    - ``reserve_number``: the lowest number worth setting aside with "reserve";
    - ``fillers_tried``: filler placements tried per filler (the most walled-in ones);
    - ``moves_tried``: tiles tried for "move" (those letting the tile lie highest), and places
      tried for each.
    """

    marker: float = 5.0
    marker_floor: float = 1.5
    filler: float = 1.5
    reject_margin: float = 0.0
    reserve_number: int = 6
    fillers_tried: int = 8
    moves_tried: int = 4


TURN_DEFAULT = TurnWeights()


@dataclass(slots=True)
class _Option:
    """A candidate turn: its steps and its value."""

    steps: tuple
    value: float


class _Planner:
    """One decision's candidate turns, valued with the placement policy."""

    def __init__(
        self, game: Game, player: int, weights: Weights, turn_weights: TurnWeights
    ) -> None:
        self.game = game
        self.decision = game.expect_decision(player)
        self.board = game.board(player)
        self.supply = game.supply(player)
        self.remaining = game.tiles_to_come(player)
        self.phase = self.remaining / 19
        self.weights = weights
        self.turn_weights = turn_weights
        self.level_to_level = game.options.variant == "level_to_level"

    def best(
        self,
        board: Board,
        number: int | str,
        cap: int | None,
        relax: frozenset[str] = frozenset(),
        mirrored: bool = False,
        above: int = -1,
        exclude: frozenset[Placement] = frozenset(),
    ) -> tuple[Placement, int, float] | None:
        """The best-valued placement of ``number`` on ``board`` on a level higher than
        ``above`` (with ``relax``: on level 1 or higher), not one of ``exclude``, or None."""
        if relax:
            above = max(above, 0)
        found = _compiled_moves(board, number, relax, mirrored, cap, self.remaining, self.weights)
        if found is not None:
            if not found or found[-1][1] <= above:
                return None
            best = None
            for placement, level, value in found:
                if level > above and placement not in exclude and (best is None or value > best[2]):
                    best = (placement, level, value)
            return best
        moves = board.legal_moves(number, relax, mirrored, cap)
        if not moves or moves[-1][1] <= above:
            return None
        context = _Context(board, self.remaining, self.weights)
        best_level = moves[-1][1]
        best = None
        for placement, level in moves:
            if level > above and placement not in exclude:
                value = _score(context, placement, level, best_level)
                if best is None or value > best[2]:
                    best = (placement, level, value)
        return best

    def expected(self, cap: int | None) -> tuple[float, float]:
        """The expected value of the best placement of an unseen card, and of the better of
        two unseen cards."""
        total = sum(self.supply.values())
        if not total:
            return 0.0, 0.0
        values = []
        for number, count in self.supply.items():
            if count:
                best = self.best(self.board, number, cap)
                values.append((count / total, best[2] if best else 0.0))
        one = sum(p * v for p, v in values)
        two = sum(p * q * max(v, w) for p, v in values for q, w in values)
        return one, two

    def should_reject(self, number: int) -> bool:
        """ "2 of 3": whether rejecting this card beats building it."""
        best = self.best(self.board, number, None)
        value = best[2] if best else float("-inf")
        one, two = self.expected(None)
        margin = self.turn_weights.reject_margin
        if self.decision.step % 3 == 0:
            # build it and keep the choice for one of the next two, or build both of those
            return value + two + margin < 2 * one
        return value + margin < one

    def card(self) -> tuple[int | None, int, int | None]:
        """The card to take: ``(marker for the turn text, number, level cap)``."""
        decision = self.decision
        best = None
        for marker, number in decision.cards:
            cap = decision.cap(marker)
            move = self.best(self.board, number, cap)
            value = move[2] if move else float("-inf")
            if best is None or value > best[0]:
                best = (value, marker, number, cap)
        assert best is not None
        _, marker, number, cap = best
        return (marker if self.level_to_level else None), number, cap

    def marker_cost(self) -> float:
        weights = self.turn_weights
        return weights.marker * self.phase + weights.marker_floor

    def plain(self, number: int, cap: int | None, mark: int | None) -> _Option:
        placement, _, value = self.best(self.board, number, cap)  # type: ignore[misc]
        return _Option((Place(placement, (), mark),), value)

    def with_special(self, number: int, cap: int | None, mark: int | None) -> list[_Option]:
        """One special tile lifting a rule, or "black"."""
        decision = self.decision
        options = []
        plain = self.best(self.board, number, cap)
        plain_level = plain[1] if plain else 0
        lifted = [name for name in ("one", "bridge", "loose") if name in decision.specials]
        legal = frozenset(self.board.legal_placements(number, max_level=cap) if lifted else ())
        for name in lifted:
            move = self.best(self.board, number, cap, frozenset({name}), exclude=legal)
            if move is None:
                continue
            placement, _, value = move
            options.append(_Option((Place(placement, (name,), mark),), value - self.marker_cost()))
        if "black" in decision.specials and (plain_level == 0 or number <= 1):
            move = self.best(self.board, number, cap, mirrored=True)
            if move is not None:
                placement, _, value = move
                cost = self.marker_cost()
                options.append(_Option((Place(placement, ("black",), mark),), value - cost))
        return options

    def with_filler(self, number: int, cap: int | None, mark: int | None) -> list[_Option]:
        """A gap filler first, where it lets the tile lie higher."""
        decision = self.decision
        if not decision.fillers:
            return []
        board = self.board
        plain = self.best(board, number, cap)
        plain_level = plain[1] if plain else 0
        if cap is not None and plain_level >= cap:
            return []
        context = _Context(board, self.remaining, self.weights)
        cost = self.turn_weights.filler * self.phase

        def walled(move: tuple[Placement, int]) -> int:
            placement, level = move
            shift = (placement.y + ORIGIN) * STRIDE + placement.x + ORIGIN - context.base
            mask = SHAPE_MASKS[placement.shape][placement.rotation] << shift
            return _edges(mask, context.occupied[level])

        options = []
        for filler in decision.fillers:
            moves = board.legal_moves(filler, max_level=decision.max_level)
            moves.sort(key=walled, reverse=True)
            for filled, _ in moves[: self.turn_weights.fillers_tried]:
                after = board.copy()
                after.place(filled)
                move = self.best(after, number, cap, above=plain_level)
                if move is not None:
                    steps = (Fill(filled), Place(move[0], (), mark))
                    options.append(_Option(steps, move[2] - cost))
        return options

    def with_move(self, number: int, cap: int | None, mark: int | None) -> list[_Option]:
        """Special tile "move": take a tile away where that lets the card's tile lie higher,
        and build it again where it loses least."""
        if "move" not in self.decision.specials:
            return []
        board = self.board
        plain = self.best(board, number, cap)
        plain_level = plain[1] if plain else 0
        candidates = []
        for source, level in board.movable():
            without = board.copy()
            without.remove(source)
            moves = without.legal_moves(number, max_level=cap)
            if moves and moves[-1][1] > plain_level:
                candidates.append((moves[-1][1], source, level, without))
        candidates.sort(key=lambda c: -c[0])
        options = []
        for _, source, level, without in candidates[: self.turn_weights.moves_tried]:
            # where the tile goes again: its highest places, the best-valued first
            targets = without.legal_moves(source.piece, mirrored=source.mirrored, max_level=level)
            top = max(target_level for _, target_level in targets)
            context = _Context(without, self.remaining, self.weights)
            ranked = sorted(
                (
                    (_score(context, target, top, top), target)
                    for target, target_level in targets
                    if target_level == top and target.cells() != source.cells()
                ),
                key=lambda t: -t[0],
            )
            worth = 0 if source.mirrored else source.piece
            loss = self.weights.points * worth * (level - top)  # type: ignore[operator]
            for _, target in ranked[: self.turn_weights.moves_tried]:
                after = without.copy()
                after.place(target)
                move = self.best(after, number, cap, above=plain_level)
                if move is None:
                    continue
                steps = (Move(source, target), Place(move[0], (), mark))
                options.append(_Option(steps, move[2] - loss - self.marker_cost()))
        return options

    def add_build(self, option: _Option) -> _Option:
        """Build the reserved tile after the option's steps when it is due or lies high."""
        decision = self.decision
        reserved = decision.reserved
        if reserved is None:
            return option
        board = self.board.copy()
        levels = []
        for step in option.steps:
            if isinstance(step, Move):
                board.remove(step.source)
                levels.append(board.place(step.target))
            else:
                levels.append(
                    board.place(
                        step.placement, frozenset(getattr(step, "specials", ())) - {"black"}
                    )
                )
        move = self.best(board, reserved, decision.reserved_cap)
        if move is None:
            return option
        placement, level, value = move
        limit = decision.reserved_limit if decision.reserved_limit is not None else -1
        due = self.remaining <= 0 or any(lv > limit for lv in levels) or level > limit
        if due or level >= max(board.height() - 1, 1):
            return _Option((*option.steps, Build(placement)), option.value + value)
        return option

    def should_reserve(self, number: int, cap: int | None) -> bool:
        decision = self.decision
        if "reserve" not in decision.specials or decision.reserved is not None:
            return False
        if number < self.turn_weights.reserve_number or self.remaining < 3:
            return False
        best = self.best(self.board, number, cap)
        height = self.board.height()
        return best is None or (height >= 2 and best[1] <= height - 2)


def choose_turn(
    game: Game,
    player: int,
    *,
    modules: bool = True,
    reject: bool = True,
    weights: Weights = DEFAULT,
    turn_weights: TurnWeights = TURN_DEFAULT,
) -> Turn:
    """The policy's turn for ``player`` in ``game`` (``Game.decision`` must not be None).

    ``modules``: also use gap fillers, special tiles and the reserved tile where the
    valuation says they gain enough; without, the turn is a plain ``place`` or ``reject``.
    ``reject``: the card may be rejected where the rules allow it ("2 of 3"); without, it is
    built (the player chose to build it).

    >>> from games.nmbr9.game import Game, Options
    >>> game = Game(seed=3, options=Options(variant="two_of_three"))
    >>> str(choose_turn(game, 0))
    'place 8@0,0r0'
    """
    planner = _Planner(game, player, weights, turn_weights)
    decision = planner.decision
    if reject and decision.may_reject and planner.should_reject(decision.cards[0][1]):
        return Turn((Reject(),))
    mark, number, cap = planner.card()
    if not modules:
        return Turn(planner.plain(number, cap, mark).steps)
    if planner.should_reserve(number, cap):
        return Turn((Reserve(mark),))
    options = [planner.plain(number, cap, mark)]
    if decision.markers > 0:
        options.extend(planner.with_special(number, cap, mark))
        options.extend(planner.with_move(number, cap, mark))
    options.extend(planner.with_filler(number, cap, mark))
    options = [planner.add_build(option) for option in options]
    best = max(options, key=lambda option: option.value)
    turn = Turn(best.steps)
    if not game.is_legal(player, turn):
        return Turn(options[0].steps)
    return turn


def fallback_turn(game: Game, player: int, *, reject: bool = True) -> Turn:
    """The turn of docs/rules.md §6.8 for a missed deadline: a plain placement of the best card
    (no special tiles, no fillers), or ``reject`` where the valuation prefers it ("2 of 3")
    and ``reject`` allows it (not for a player who chose to build the card, docs/rules.md §6.5).
    GameError if ``player`` owes no decision (``Game.expect_decision``).

    >>> from games.nmbr9.game import Game, Options
    >>> game = Game(seed=3, options=Options(variant="two_of_three"))
    >>> str(fallback_turn(game, 0)), str(fallback_turn(game, 0, reject=False))
    ('place 8@0,0r0', 'place 8@0,0r0')
    """
    game.expect_decision(player)
    return choose_turn(game, player, modules=False, reject=reject)


def fallback_placement(game: Game, player: int) -> Placement:
    """The placement of ``player``'s current tile that the fallback policy chooses (not
    placed): in the base game ``choose`` with the player's supply; otherwise the placement
    of ``fallback_turn`` (GameError if that is not a placement).

    >>> from games.nmbr9.game import Game
    >>> game = Game(seed=3)
    >>> number = game.current_number(0)
    >>> fallback_placement(game, 0) == choose(game.board(0), number, supply=game.supply(0))
    True
    """
    decision = game.expect_decision(player)
    if not game.plusplus:
        return choose(game.board(player), decision.cards[0][1], supply=game.supply(player))
    turn = fallback_turn(game, player)
    if not isinstance(turn.main, Place):
        raise GameError(f"the fallback turn is {turn}, not a placement", code="no placement")
    return turn.main.placement
