"""A game of nmbrs!: options, the state of a match, and the rules that change it.

The state is plain data (lists, dicts, text) so that it copies and compares cheaply. Functions
here are pure in the sense that matters for replays: every random choice comes from the match
seed (each deal's shuffle from the seed and the deal number, each reshuffle of the discard
pile from the seed, the deal and how many reshuffles came before), so the same moves on the
same seed give the same state.

A turn is a sequence of moves by the player whose turn it is:

1. the *draw*: ``take`` the discard's top card, or ``pass`` it round the table as an offer;
   each offered player answers ``take`` (and also draws a card from the deck) or ``pass``;
   after a take the player whose turn it is decides again about the new top card; when
   everybody passed, the player must ``draw`` from the deck;
2. any number of *plays* (``lay``, ``extend``, ``insert``, ``cross``, ``join``, ``swap``);
3. ``discard`` one card (``done`` in the simplified version).

Decisions of ours where the rulebook leaves one open (docs/rules.md §7.2):

- A joker taken back by ``swap`` must be played again in the same turn; a swap (or any play
  while such a joker is owed) is refused when the joker could then no longer be played, and
  a second joker may only be swapped once the first is back on the table.
- ``extend`` adds cards at one end of a series per play; ``join`` puts at least one card.
- The simplified version never discards, so its deck can run dry: when nothing can be drawn
  and a whole round of turns passes without a card drawn or played, the deal is blocked and
  ends with nobody out (everybody loses their hand's values).
- A player who leaves takes no further part: their turn passes on, offers skip them, they
  get no cards in later deals, and when only one player is left the game ends.

>>> state = setup(2, seed=7)
>>> len(state.hands[0]), len(state.hands[1]), len(state.deck), len(state.pile)
(9, 9, 85, 1)
>>> state.current, state.phase
(0, 'draw')
>>> apply(state, 0, "pass").phase, state.offer_to
('offer', 1)
>>> apply(state, 1, "pass").phase, state.passed
('draw', True)
>>> apply(state, 0, "draw").phase, len(state.hands[0])
('play', 10)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from games.contract import IllegalMove, Outcome, competition_ranks

from .cards import CARDS, JOKERS, highest_number
from .cards import deck as deck_of
from .moves import Move, Placed
from .series import listing, points, series_problem, step_of

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Logged",
    "Options",
    "Plan",
    "State",
    "apply",
    "can_draw",
    "hand_value",
    "leave",
    "outcome",
    "plan",
    "position",
    "setup",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 8

#: A card on the table: its id and the number it stands for.
Slot = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Logged:
    """One line of a match's public history, as everybody at the table saw it.

    ``player`` made ``move`` (its text) in deal ``deal``; ``card`` is the discard they took
    or passed on, or the card they discarded; ``points`` what a play scored. The end of a
    deal is a line whose ``move`` is ``"end"``: ``player`` went out (None: nobody did) and
    ``lost`` is what each player lost. ``offered``: the move answered an offer. A card
    drawn from the deck is never in the history.
    """

    deal: int
    player: int | None
    move: str
    card: str | None = None
    points: int = 0
    lost: tuple[int, ...] = ()
    offered: bool = False

    def to_data(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "player": self.player,
            "move": self.move,
            "card": self.card,
            "points": self.points,
            "lost": list(self.lost),
            "offered": self.offered,
        }


@dataclass(frozen=True, slots=True)
class Options:
    """A match's options.

    ``advanced``: series must count back to 0 or 1. ``simplified``: cards 1-50 and the jokers,
    20 starting points, smaller hands, a point per card, no discard. ``target``: the score
    that ends the game after a deal (100; lower only for quick test games).

    >>> Options.from_data({"players": 3, "advanced": True})
    Options(advanced=True, simplified=False, target=100)
    >>> Options.from_data({"target": 0})
    Traceback (most recent call last):
        ...
    ValueError: target must be a whole number of 1 or more, not 0
    >>> Options(simplified=True).hand_size(2), Options().hand_size(5), Options().start_points
    (7, 7, 50)
    """

    advanced: bool = False
    simplified: bool = False
    target: int = 100

    def __post_init__(self) -> None:
        for name in ("advanced", "simplified"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, not {getattr(self, name)!r}")
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise ValueError(f"target must be a whole number of 1 or more, not {self.target!r}")

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Options:
        """Options from plain data; ``players`` is checked when present, unknown keys refused."""
        if not isinstance(data, Mapping):
            raise ValueError(f"options must be a mapping, not {data!r}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names - {"players"})
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (options: {', '.join(sorted(names))})")
        if "players" in data:
            check_players(data["players"])
        return cls(**{name: data[name] for name in names if name in data})

    def to_data(self) -> dict[str, Any]:
        return {"advanced": self.advanced, "simplified": self.simplified, "target": self.target}

    @property
    def start_points(self) -> int:
        return 20 if self.simplified else 50

    @property
    def highest(self) -> int:
        """The highest number in play."""
        return highest_number(self.simplified)

    def hand_size(self, players: int) -> int:
        """Cards dealt to each player: 7 (9 with two), or 5 (7) in the simplified version."""
        base = 5 if self.simplified else 7
        return base + 2 if players == 2 else base


def check_players(players: object) -> int:
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"players must be a whole number, not {players!r}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"nmbrs! is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {players}")
    return players


@dataclass(slots=True)
class State:
    """Everything about a match, secrets included. Changed in place by ``apply``.

    ``deck`` and ``pile`` have their top card last. ``table`` maps series numbers (in the
    order they were laid) to their cards, ascending. ``phase`` is ``draw`` (the player whose
    turn it is answers the discard, or must draw when ``passed``), ``offer`` (``offer_to``
    answers), ``play`` (plays and the discard) or ``over``.
    """

    players: int
    seed: int
    options: Options
    scores: list[int]
    left: list[bool]
    deal: int = 0
    starter: int = 0
    hands: list[list[str]] = field(default_factory=list)
    deck: list[str] = field(default_factory=list)
    pile: list[str] = field(default_factory=list)
    table: dict[int, tuple[Slot, ...]] = field(default_factory=dict)
    next_series: int = 1
    laid: list[bool] = field(default_factory=list)
    current: int = 0
    phase: str = "draw"
    passed: bool = False
    offer_to: int | None = None
    owed: str | None = None
    plays: int = 0
    got: bool = False
    idle: int = 0
    reshuffles: int = 0
    turns: list[int] = field(default_factory=list)
    decision: int = 0
    decisions: list[int] = field(default_factory=list)
    log: tuple[Logged, ...] = ()

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def active(self) -> list[int]:
        """The players still in the match, by seat."""
        return [p for p in range(self.players) if not self.left[p]]

    @property
    def to_move(self) -> int | None:
        """The one player who owes a decision now (None when the game is over)."""
        if self.phase == "over":
            return None
        if self.phase == "offer":
            return self.offer_to
        return self.current

    @property
    def last_deal(self) -> dict[str, Any] | None:
        """How the last deal that ended ended: ``deal``, who went ``out`` (None: nobody) and
        what each player ``lost`` (from the public history)."""
        for line in reversed(self.log):
            if line.move == "end":
                return {"deal": line.deal, "out": line.player, "lost": list(line.lost)}
        return None

    @property
    def top(self) -> str | None:
        """The discard pile's top card."""
        return self.pile[-1] if self.pile else None

    def series(self, number: int) -> tuple[Slot, ...]:
        """The cards of series ``number``; IllegalMove if there is none."""
        try:
            return self.table[number]
        except KeyError:
            raise _refuse(
                f"there is no series {number} on the table", "no-such-series", series=number
            ) from None

    def dump(self) -> dict[str, Any]:
        """The whole state as JSON-ready data."""
        return {
            "players": self.players,
            "seed": self.seed,
            "options": self.options.to_data(),
            "scores": list(self.scores),
            "left": list(self.left),
            "deal": self.deal,
            "starter": self.starter,
            "hands": [list(hand) for hand in self.hands],
            "deck": list(self.deck),
            "pile": list(self.pile),
            "table": [[n, [list(slot) for slot in cards]] for n, cards in self.table.items()],
            "next_series": self.next_series,
            "laid": list(self.laid),
            "current": self.current,
            "phase": self.phase,
            "passed": self.passed,
            "offer_to": self.offer_to,
            "owed": self.owed,
            "plays": self.plays,
            "got": self.got,
            "idle": self.idle,
            "reshuffles": self.reshuffles,
            "turns": list(self.turns),
            "decision": self.decision,
            "decisions": list(self.decisions),
            "log": [line.to_data() for line in self.log],
        }

    def copy(self) -> State:
        """An independent copy (the lists are copied; cards and slots are immutable)."""
        return State(
            players=self.players,
            seed=self.seed,
            options=self.options,
            scores=list(self.scores),
            left=list(self.left),
            deal=self.deal,
            starter=self.starter,
            hands=[list(hand) for hand in self.hands],
            deck=list(self.deck),
            pile=list(self.pile),
            table=dict(self.table),
            next_series=self.next_series,
            laid=list(self.laid),
            current=self.current,
            phase=self.phase,
            passed=self.passed,
            offer_to=self.offer_to,
            owed=self.owed,
            plays=self.plays,
            got=self.got,
            idle=self.idle,
            reshuffles=self.reshuffles,
            turns=list(self.turns),
            decision=self.decision,
            decisions=list(self.decisions),
            log=self.log,
        )

    def __deepcopy__(self, memo: dict) -> State:
        return self.copy()


def _refuse(reason: str, code: str, **params: Any) -> IllegalMove:
    return IllegalMove(reason, code=code, **params)


# ---------------------------------------------------------------------- setup and deals


def setup(players: int, seed: int, options: Options | None = None) -> State:
    """A new match: scores at the start, the first deal dealt, seat 0 to move."""
    check_players(players)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number, not {seed!r}")
    options = options or Options()
    if not isinstance(options, Options):
        raise ValueError(f"options must be Options, not {options!r}")
    state = State(
        players=players,
        seed=seed,
        options=options,
        scores=[options.start_points] * players,
        left=[False] * players,
        turns=[0] * players,
        decisions=[0] * players,
    )
    _start_deal(state)
    return state


def shuffled_deck(seed: int, deal: int, simplified: bool = False) -> list[str]:
    """The cards of deal number ``deal`` in shuffled order, top card last.

    >>> shuffled_deck(7, 1) == shuffled_deck(7, 1) != shuffled_deck(7, 2)
    True
    """
    cards = list(deck_of(simplified))
    random.Random(f"nmbrs:{seed}:deal:{deal}").shuffle(cards)
    return cards


def _next_active(state: State, player: int) -> int:
    for step in range(1, state.players + 1):
        candidate = (player + step) % state.players
        if not state.left[candidate]:
            return candidate
    return player


def _start_deal(state: State) -> None:
    state.deal += 1
    if state.deal == 1:
        state.starter = 0 if not state.left[0] else _next_active(state, 0)
    else:
        state.starter = _next_active(state, state.starter)
    cards = shuffled_deck(state.seed, state.deal, state.options.simplified)
    size = state.options.hand_size(len(state.active))
    state.hands = [[] for _ in range(state.players)]
    seat = state.starter
    for _ in state.active:
        state.hands[seat] = [cards.pop() for _ in range(size)]
        seat = _next_active(state, seat)
    state.pile = [cards.pop()]
    state.deck = cards
    state.table = {}
    state.next_series = 1
    state.laid = [False] * state.players
    state.idle = 0
    state.reshuffles = 0
    _start_turn(state, state.starter)


def _new_decision(state: State, player: int) -> None:
    state.decision += 1
    state.decisions[player] = state.decision


def _start_turn(state: State, player: int) -> None:
    state.current = player
    state.phase = "draw"
    state.passed = False
    state.offer_to = None
    state.owed = None
    state.plays = 0
    state.got = False
    _new_decision(state, player)
    if not state.pile:
        _to_deck(state)


def can_draw(state: State) -> bool:
    """Whether a card can be drawn: the deck, or the discard pile under its top card."""
    return bool(state.deck) or len(state.pile) > 1


def _draw_card(state: State) -> str | None:
    """The deck's top card; an empty deck is first refilled from the discard pile under its
    top card, shuffled from the seed. None when no card is left to draw."""
    if not state.deck and len(state.pile) > 1:
        cards = state.pile[:-1]
        state.pile = state.pile[-1:]
        state.reshuffles += 1
        random.Random(f"nmbrs:{state.seed}:deal:{state.deal}:reshuffle:{state.reshuffles}").shuffle(
            cards
        )
        state.deck = cards
    return state.deck.pop() if state.deck else None


def _to_deck(state: State) -> None:
    """Nobody takes the top card (or there is none): the player draws, or skips the draw
    when no card is left to draw."""
    state.offer_to = None
    state.passed = True
    state.phase = "draw" if can_draw(state) else "play"


def hand_value(state: State, player: int) -> int:
    """The values of the cards in ``player``'s hand."""
    return sum(CARDS[card].value for card in state.hands[player])


def _end_deal(state: State, out: int | None) -> None:
    lost = [0] * state.players
    for player in state.active:
        if player != out:
            lost[player] = hand_value(state, player)
            state.scores[player] -= lost[player]
    state.log += (Logged(state.deal, out, "end", lost=tuple(lost)),)
    if any(state.scores[p] >= state.options.target for p in state.active):
        _finish(state)
    else:
        _start_deal(state)


def _finish(state: State) -> None:
    state.phase = "over"
    state.offer_to = None
    state.passed = False


def _end_turn(state: State) -> None:
    state.turns[state.current] += 1
    _start_turn(state, _next_active(state, state.current))


def outcome(state: State) -> Outcome | None:
    """None while the game runs; then the scores and ranks (those who left share last)."""
    if not state.over:
        return None
    left = frozenset(p for p in range(state.players) if state.left[p])
    scores = tuple(state.scores)
    return Outcome(scores, competition_ranks(scores, left), left)


# ---------------------------------------------------------------------- plays


@dataclass(frozen=True, slots=True)
class Plan:
    """What a play would do: the cards leaving the hand (and the joker coming back by a swap),
    the series it changes (None: removed), the points it scores and the joker then owed."""

    move: Move
    out: tuple[str, ...]
    back: str | None
    changes: tuple[tuple[int, tuple[Slot, ...] | None], ...]
    points: int
    owed: str | None


def _slots(cards: Iterable[Placed]) -> list[Slot]:
    return [(c.card, c.number) for c in cards]


def _numbers(slots: Sequence[Slot]) -> list[int]:
    return [number for _, number in slots]


def _check_series(state: State, slots: Sequence[Slot]) -> None:
    problem = series_problem(_numbers(slots), advanced=state.options.advanced)
    if problem is not None:
        raise problem


def _check_hand(state: State, player: int, cards: Sequence[Placed]) -> None:
    hand = state.hands[player]
    seen: set[str] = set()
    for card in cards:
        if card.card in seen:
            raise _refuse(f"{card.card} is named twice", "card-twice", card=card.card)
        seen.add(card.card)
        if card.card not in hand:
            shown = card.card if card.joker else str(card.number)
            raise _refuse(f"you do not hold {shown}", "not-in-hand", card=card.card)
        if card.number > state.options.highest:
            raise _refuse(
                f"{card} stands for {card.number}, but the numbers here go up to "
                f"{state.options.highest}",
                "number-too-high",
                card=card.card,
                number=card.number,
                highest=state.options.highest,
            )


def _free_end(state: State, table: Mapping[int, tuple[Slot, ...]]) -> bool:
    """Whether some series can be extended by one card standing for the next number."""
    for slots in table.values():
        step = slots[1][1] - slots[0][1]
        if slots[0][1] - step >= 1 or slots[-1][1] + step <= state.options.highest:
            return True
    return False


def plan(state: State, player: int, move: Move) -> Plan:
    """What ``player``'s play ``move`` would do, without doing it; IllegalMove if it may not.

    >>> state = position(hands=["12,14,16,30", "1,2,3"], options=Options())
    >>> p = plan(state, 0, Move.parse("lay 12,14,16"))
    >>> p.out, p.points, p.changes
    (('12', '14', '16'), 3, ((1, (('12', 12), ('14', 14), ('16', 16))),))
    """
    _check_turn(state, player, move)
    if state.phase != "play":
        raise _phase_refusal(state, move)
    if move.kind != "lay" and not state.laid[player]:
        raise _refuse(
            "you must lay a series before adding cards to the table", "lay-first", kind=move.kind
        )
    if move.kind == "swap":
        return _plan_swap(state, player, move)
    _check_hand(state, player, move.cards)
    new = _slots(move.cards)
    changes: list[tuple[int, tuple[Slot, ...] | None]]
    match move.kind:
        case "lay":
            result = tuple(sorted(new, key=lambda s: s[1]))
            _check_series(state, result)
            changes = [(state.next_series, result)]
        case "extend":
            assert move.series is not None
            result = _extended(state, move, new)
            changes = [(move.series, result)]
        case "insert":
            assert move.series is not None
            result = _inserted(state, move, new)
            changes = [(move.series, result)]
        case "cross":
            result = _crossed(state, move, new)
            changes = [(state.next_series, result)]
        case _:  # join
            keep, gone, result = _joined(state, move, new)
            changes = [(keep, result), (gone, None)]
    score = points(
        [c.card for c in move.cards],
        [c for c, _ in result],
        simplified=state.options.simplified,
    )
    played = tuple(c.card for c in move.cards)
    owed = state.owed if state.owed not in played else None
    _check_hand_left(state, player, len(played), owed, changes)
    return Plan(move, played, None, tuple(changes), score, owed)


def _check_hand_left(
    state: State,
    player: int,
    played: int,
    owed: str | None,
    changes: Sequence[tuple[int, tuple[Slot, ...] | None]],
    back: int = 0,
) -> None:
    left = len(state.hands[player]) - played + back
    if left < 1 and not state.options.simplified:
        raise _refuse(
            "you must keep a card in your hand to discard: a turn ends with a discard",
            "keep-a-card",
        )
    if owed is None:
        return
    need = 1 if state.options.simplified else 2
    table = dict(state.table)
    for number, slots in changes:
        if slots is None:
            table.pop(number, None)
        else:
            table[number] = slots
    if left < need or not _free_end(state, table):
        raise _refuse(
            f"the joker {owed} could not be played again in this turn",
            "joker-stuck",
            joker=owed,
        )


def _extended(state: State, move: Move, new: list[Slot]) -> tuple[Slot, ...]:
    assert move.series is not None
    old = state.series(move.series)
    low, high = old[0][1], old[-1][1]
    numbers = _numbers(new)
    below = [n for n in numbers if n < low]
    above = [n for n in numbers if n > high]
    inside = [n for n in numbers if low <= n <= high]
    if inside:
        raise _refuse(
            f"{listing(inside)} {'lies' if len(inside) == 1 else 'lie'} inside series "
            f"{move.series} ({low} to {high}): extend adds cards at an end",
            "not-at-an-end",
            series=move.series,
            numbers=inside,
        )
    if below and above:
        raise _refuse(
            f"extend adds cards at one end of series {move.series}, not at both",
            "both-ends",
            series=move.series,
        )
    result = tuple(sorted([*old, *new], key=lambda s: s[1]))
    step = old[1][1] - old[0][1]
    if step_of(_numbers(result)) != step:
        raise _refuse(
            f"{listing(numbers)} {'does' if len(numbers) == 1 else 'do'} not continue series "
            f"{move.series} ({listing(_numbers(old))}, step {step})",
            "does-not-continue",
            series=move.series,
            numbers=numbers,
            step=step,
        )
    _check_series(state, result)
    return result


def _inserted(state: State, move: Move, new: list[Slot]) -> tuple[Slot, ...]:
    assert move.series is not None
    old = state.series(move.series)
    low, high = old[0][1], old[-1][1]
    numbers = _numbers(new)
    outside = [n for n in numbers if not low < n < high]
    if outside:
        raise _refuse(
            f"{listing(outside)} {'is' if len(outside) == 1 else 'are'} not between {low} and "
            f"{high}: insert puts cards inside series {move.series}",
            "not-inside",
            series=move.series,
            numbers=outside,
        )
    result = tuple(sorted([*old, *new], key=lambda s: s[1]))
    numbers_after = _numbers(result)
    if len(set(numbers_after)) == len(numbers_after) and step_of(numbers_after) is None:
        raise _refuse(
            f"series {move.series} with {listing(numbers)} is not a series: every new gap "
            "must be filled in the same play",
            "gaps-left",
            series=move.series,
            numbers=numbers,
        )
    _check_series(state, result)
    return result


def _crossed(state: State, move: Move, new: list[Slot]) -> tuple[Slot, ...]:
    assert move.series is not None
    old = state.series(move.series)
    shared = [slot for slot in old if slot[1] == move.at]
    if not shared:
        raise _refuse(
            f"series {move.series} has no card {move.at}",
            "not-in-series",
            series=move.series,
            number=move.at,
        )
    result = tuple(sorted([*new, shared[0]], key=lambda s: s[1]))
    _check_series(state, result)
    return result


def _joined(state: State, move: Move, new: list[Slot]) -> tuple[int, int, tuple[Slot, ...]]:
    assert move.series is not None and move.other is not None
    if move.series == move.other:
        raise _refuse("join needs two different series", "same-series", series=move.series)
    first, second = state.series(move.series), state.series(move.other)
    step = first[1][1] - first[0][1]
    other_step = second[1][1] - second[0][1]
    if step != other_step:
        raise _refuse(
            f"series {move.series} (step {step}) and {move.other} (step {other_step}) have "
            "different steps",
            "different-steps",
            series=move.series,
            other=move.other,
        )
    lower, upper = (first, second) if first[0][1] < second[0][1] else (second, first)
    if lower[-1][1] >= upper[0][1]:
        raise _refuse(
            f"series {move.series} and {move.other} overlap",
            "overlap",
            series=move.series,
            other=move.other,
        )
    result = tuple([*lower, *sorted(new, key=lambda s: s[1]), *upper])
    gap = list(range(lower[-1][1] + step, upper[0][1], step))
    if step_of(_numbers(result)) != step:
        raise _refuse(
            f"{listing(_numbers(new))} do not fill the gap between series {move.series} and "
            f"{move.other}" + (f" (it needs {listing(gap)})" if gap and len(gap) <= 6 else ""),
            "gap-not-filled",
            series=move.series,
            other=move.other,
            numbers=_numbers(new),
        )
    _check_series(state, result)
    return move.series, move.other, result


def _plan_swap(state: State, player: int, move: Move) -> Plan:
    assert move.card is not None and move.series is not None
    if move.card in JOKERS:
        raise _refuse("swap names the number card that replaces a joker", "swap-a-number")
    if state.owed is not None:
        raise _refuse(
            f"play the joker {state.owed} again before swapping another",
            "joker-owed",
            joker=state.owed,
        )
    number = int(move.card)
    if move.card not in state.hands[player]:
        raise _refuse(f"you do not hold {number}", "not-in-hand", card=move.card)
    old = state.series(move.series)
    jokers = [card for card, n in old if n == number and card in JOKERS]
    if not jokers:
        raise _refuse(
            f"series {move.series} has no joker standing for {number}",
            "no-joker-there",
            series=move.series,
            number=number,
        )
    joker = jokers[0]
    changes = []
    for series_number, slots in state.table.items():
        if any(card == joker for card, _ in slots):
            replaced = tuple((move.card, n) if card == joker else (card, n) for card, n in slots)
            changes.append((series_number, replaced))
    _check_hand_left(state, player, 1, joker, changes, back=1)
    return Plan(move, (move.card,), joker, tuple(changes), 0, joker)


# ---------------------------------------------------------------------- moves


def _check_turn(state: State, player: int, move: Move) -> None:
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < state.players:
        raise _refuse(f"there is no player {player!r}", "no-such-player", player=player)
    if state.over:
        raise _refuse("the game is over", "game-over")
    if state.left[player]:
        raise _refuse("you have left this match", "left")
    if player != state.to_move:
        if state.phase == "offer":
            assert state.offer_to is not None
            raise _refuse(
                f"player {state.offer_to + 1} is being offered the discard",
                "not-your-turn",
                to_move=state.offer_to,
            )
        raise _refuse(
            f"it is player {state.current + 1}'s turn", "not-your-turn", to_move=state.current
        )


def _phase_refusal(state: State, move: Move) -> IllegalMove:
    kind = move.kind
    if state.phase == "offer":
        return _refuse("you are offered the discard: take or pass", "answer-the-offer", kind=kind)
    if state.phase == "draw":
        if not state.pile:
            return _refuse("there is no discard to take: draw from the deck", "no-discard")
        if state.passed:
            return _refuse("nobody took the discard: draw from the deck", "draw-now", kind=kind)
        return _refuse(
            f"first take the discard ({_shown(state.top)}) or pass it on",
            "take-or-pass",
            kind=kind,
            card=state.top,
        )
    return _refuse(
        f"you have drawn already: {kind} is not possible now", "already-drawn", kind=kind
    )


def _shown(card: str | None) -> str:
    return "none" if card is None else card


def apply(state: State, player: int, move: Move | str) -> State:
    """``player`` makes ``move`` (a Move or its text); IllegalMove, with nothing changed, if
    they may not. Returns ``state``, changed in place."""
    if isinstance(move, str):
        move = Move.parse(move)
    if not isinstance(move, Move):
        raise _refuse(f"not a move: {move!r}", "not-a-move")
    _check_turn(state, player, move)
    before = state.log
    if move.is_play:
        done = plan(state, player, move)
        state.log += (Logged(state.deal, player, str(move), points=done.points),)
        _carry_out(state, player, done)
        return state
    card = {"discard": move.card, "take": state.top, "pass": state.top}.get(move.kind)
    offered = state.phase == "offer"
    state.log += (Logged(state.deal, player, str(move), card=card, offered=offered),)
    try:
        match move.kind:
            case "take":
                _take(state, player, move)
            case "pass":
                _pass(state, player, move)
            case "draw":
                _draw(state, move)
            case "discard":
                _discard(state, player, move)
            case _:  # done
                _done(state, move)
    except IllegalMove:
        state.log = before
        raise
    return state


def _take(state: State, player: int, move: Move) -> None:
    if state.phase not in ("draw", "offer") or (state.phase == "draw" and state.passed):
        raise _phase_refusal(state, move)
    if not state.pile:
        raise _refuse("there is no discard to take: draw from the deck", "no-discard")
    state.hands[player].append(state.pile.pop())
    if state.phase == "offer":
        extra = _draw_card(state)
        if extra is not None:
            state.hands[player].append(extra)
        state.offer_to = None
        state.phase = "draw"
        if not state.pile:
            _to_deck(state)
        return
    state.got = True
    state.phase = "play"


def _pass(state: State, player: int, move: Move) -> None:
    if state.phase not in ("draw", "offer") or (state.phase == "draw" and state.passed):
        raise _phase_refusal(state, move)
    if not state.pile:
        raise _refuse("there is no discard to pass on: draw from the deck", "no-discard")
    _offer_after(state, player)


def _offer_after(state: State, player: int) -> None:
    """Offer the top card to the next player after ``player``, or send the player whose turn
    it is to the deck when the offer has gone round."""
    following = _next_active(state, player)
    if following == state.current:
        _to_deck(state)
        return
    state.phase = "offer"
    state.offer_to = following
    _new_decision(state, following)


def _draw(state: State, move: Move) -> None:
    if state.phase != "draw" or not state.passed:
        raise _phase_refusal(state, move)
    card = _draw_card(state)
    assert card is not None, "the draw phase is skipped when nothing can be drawn"
    state.hands[state.current].append(card)
    state.got = True
    state.phase = "play"


def _carry_out(state: State, player: int, done: Plan) -> None:
    hand = state.hands[player]
    for card in done.out:
        hand.remove(card)
    if done.back is not None:
        hand.append(done.back)
    for number, slots in done.changes:
        if slots is None:
            del state.table[number]
        else:
            state.table[number] = slots
    if done.move.kind in ("lay", "cross"):
        state.next_series += 1
    state.laid[player] = True
    state.scores[player] += done.points
    state.owed = done.owed
    state.plays += 1
    if not hand:  # the simplified version: a play may empty the hand
        state.turns[player] += 1
        _end_deal(state, player)


def _check_turn_may_end(state: State, move: Move) -> None:
    if state.phase != "play":
        raise _phase_refusal(state, move)
    if state.owed is not None:
        raise _refuse(
            f"play the joker {state.owed} again before the turn ends: it may not be kept",
            "joker-owed",
            joker=state.owed,
        )


def _discard(state: State, player: int, move: Move) -> None:
    if state.options.simplified:
        raise _refuse(
            "in the simplified version a turn ends without a discard: say done",
            "no-discard-in-simplified",
        )
    _check_turn_may_end(state, move)
    assert move.card is not None
    hand = state.hands[player]
    if move.card not in hand:
        raise _refuse(f"you do not hold {move.card}", "not-in-hand", card=move.card)
    hand.remove(move.card)
    state.pile.append(move.card)
    state.idle = 0
    if not hand:
        state.turns[player] += 1
        _end_deal(state, player)
        return
    _end_turn(state)


def _done(state: State, move: Move) -> None:
    if not state.options.simplified:
        raise _refuse(
            "a turn ends with a discard (done is for the simplified version)", "discard-to-end"
        )
    _check_turn_may_end(state, move)
    state.idle = 0 if state.got or state.plays else state.idle + 1
    if state.idle >= len(state.active):
        state.turns[state.current] += 1
        _end_deal(state, None)
        return
    _end_turn(state)


def leave(state: State, player: int) -> State:
    """``player`` leaves the match (resigned or dropped): no more decisions, ranked last."""
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < state.players:
        raise _refuse(f"there is no player {player!r}", "no-such-player", player=player)
    if state.over or state.left[player]:
        state.left[player] = True
        return state
    state.left[player] = True
    state.log += (Logged(state.deal, player, "leave"),)
    if len(state.active) <= 1:
        _finish(state)
        return state
    if state.phase == "offer" and state.offer_to == player:
        _offer_after(state, player)
    elif state.current == player:
        state.owed = None
        _start_turn(state, _next_active(state, player))
    return state


# ---------------------------------------------------------------------- positions for tests


def _parse_cards(text: str | Iterable[str]) -> list[str]:
    items = text.split(",") if isinstance(text, str) else list(text)
    cards = []
    for item in items:
        item = item.strip().upper()
        if not item:
            continue
        if item not in CARDS:
            raise ValueError(f"no card {item!r}")
        cards.append(item)
    return cards


def _parse_series(text: str) -> tuple[Slot, ...]:
    slots = tuple(
        sorted(
            ((p.card, p.number) for p in (Placed.parse(part) for part in text.split(","))),
            key=lambda s: s[1],
        )
    )
    problem = series_problem(_numbers(slots), advanced=False)
    if problem is not None:
        raise ValueError(f"not a series: {text!r} ({problem})")
    return slots


def position(
    *,
    hands: Sequence[str | Iterable[str]],
    table: Sequence[str] = (),
    deck: str | Iterable[str] | None = None,
    pile: str | Iterable[str] = "",
    laid: Sequence[bool] | None = None,
    scores: Sequence[int] | None = None,
    current: int = 0,
    phase: str = "play",
    options: Options | None = None,
    seed: int = 0,
) -> State:
    """A hand-built position (for tests and examples): ``hands`` and cards as text like
    ``"12,14,JR"``, the table as series texts like ``"10,JR=20,30"`` (numbered from 1),
    the deck and the pile with their top card last. The deck defaults to every card not
    placed elsewhere, in order. ``laid`` defaults to True for everyone when the table has
    series.

    >>> state = position(hands=["12,14,16,30", "1,2,3"], table=["20,JR=22,24"], pile="99")
    >>> state.table, state.top, len(state.deck)
    ({1: (('20', 20), ('JR', 22), ('24', 24))}, '99', 93)
    """
    options = options or Options()
    players = len(hands)
    check_players(players)
    state = State(
        players=players,
        seed=seed,
        options=options,
        scores=list(scores) if scores is not None else [options.start_points] * players,
        left=[False] * players,
        turns=[0] * players,
        decisions=[0] * players,
        deal=1,
    )
    state.hands = [_parse_cards(hand) for hand in hands]
    state.table = {index + 1: _parse_series(text) for index, text in enumerate(table)}
    state.next_series = len(state.table) + 1
    state.pile = _parse_cards(pile)
    placed = [card for hand in state.hands for card in hand] + state.pile
    placed += [card for slots in state.table.values() for card, _ in slots]
    if deck is None:
        taken = set(placed)
        state.deck = [card for card in deck_of(options.simplified) if card not in taken]
    else:
        state.deck = _parse_cards(deck)
    everything = placed + state.deck
    if len(set(everything)) != len(everything):
        twice = sorted({c for c in everything if everything.count(c) > 1})
        raise ValueError(f"cards placed twice: {', '.join(twice)}")
    state.laid = list(laid) if laid is not None else [bool(table)] * players
    state.current = current
    state.decision = 1
    state.decisions[current] = 1
    if phase not in ("draw", "play"):
        raise ValueError(f"phase must be draw or play, not {phase!r}")
    state.phase = phase
    if phase == "draw" and not state.pile:
        _to_deck(state)
    if phase == "play":
        state.got = True
    return state
