"""Race to 21: the players take turns adding 1, 2 or 3 to a running total; whoever brings it
to the target (21 unless chosen otherwise) exactly wins. Each holds two cards from a deck of
1s, 2s and 3s, seen by nobody else: adding 2 or 3 plays such a card (and draws another),
adding 1 is always allowed. Plain Python, no Django: the rules of a game made for the tests
only, which prove that a game is a package of its own.

>>> state = RULES.setup(2, 7, RULES.options({"target": 10}))
>>> state.next, state.hands
(1, [[1, 3], [1, 2]])
>>> RULES.apply(state, 1, RULES.parse_move("add 3"))
Traceback (most recent call last):
    ...
games.contract.IllegalMove: you hold no 3
>>> state = RULES.apply(state, 1, RULES.parse_move("add 2"))
>>> state = RULES.apply(state, 0, RULES.parse_move("add 3"))
>>> while RULES.outcome(state) is None:
...     state = RULES.apply(state, state.next, RULES.parse_move("add 1"))
>>> state.total, RULES.outcome(state)
(10, Outcome(scores=(0, 1), ranks=(2, 1), left=frozenset()))
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from games.contract import Due, IllegalMove, InvalidMove, Outcome, competition_ranks


@dataclass(frozen=True, slots=True)
class Options:
    target: int = 21


@dataclass(frozen=True, slots=True)
class Move:
    add: int

    @classmethod
    def parse(cls, text: str) -> Move:
        word, _, number = text.strip().partition(" ")
        if word != "add" or number not in ("1", "2", "3"):
            raise InvalidMove(f"not a move: {text!r}", code="not_a_move")
        return cls(int(number))

    def __str__(self) -> str:
        return f"add {self.add}"


@dataclass(slots=True)
class State:
    players: int
    options: Options
    next: int
    total: int = 0
    left: list[int] = field(default_factory=list)
    winner: int | None = None
    made: list[int] = field(default_factory=list)
    #: Each player's cards (secret), and the deck they draw from (secret).
    hands: list[list[int]] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    #: Every move so far: (player, what they added).
    history: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class View:
    """Everything: the game has no secret."""

    players: int
    target: int
    total: int
    next: int | None
    #: The viewer's own cards (None: a spectator), how many each player holds.
    hand: tuple[int, ...] | None
    hand_sizes: tuple[int, ...]
    deck_size: int
    left: tuple[int, ...]
    winner: int | None
    history: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Race21Rules:
    slug = "race21"
    name = "Race to 21"
    players = range(2, 5)
    bot_strengths = ("easy", "strong")
    state_format = "race21-1"

    def options(self, data: Mapping[str, Any]) -> Options:
        target = data.get("target", 21)
        if not isinstance(target, int) or isinstance(target, bool) or not 10 <= target <= 50:
            raise ValueError("the target is a number from 10 to 50")
        return Options(target)

    def dump_options(self, options: Options) -> dict[str, Any]:
        return {"target": options.target}

    def setup(self, players: int, seed: int, options: Options) -> State:
        deck = [1, 2, 3] * 8
        random.Random(seed).shuffle(deck)
        hands = [sorted(deck[2 * p : 2 * p + 2]) for p in range(players)]
        return State(
            players,
            options,
            next=seed % players,
            made=[0] * players,
            hands=hands,
            deck=deck[2 * players :],
        )

    def steps(self, state: State, player: int) -> list[int]:
        """What ``player`` may add now: 1, and the cards they hold, as far as the target."""
        room = state.options.target - state.total
        return sorted(s for s in {1, *state.hands[player]} if s <= room)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def to_move(self, state: State) -> frozenset[int]:
        return frozenset() if state.winner is not None else frozenset((state.next,))

    def turn(self, state: State, player: int) -> int:
        return state.made[player]

    def due(self, state: State, player: int) -> Due:
        return Due()

    def apply(self, state: State, player: int, move: Move) -> State:
        if player not in self.to_move(state):
            raise IllegalMove("it is not your turn", code="not_your_turn")
        room = state.options.target - state.total
        if move.add > room:
            raise IllegalMove(f"you may add at most {room}", code="too_far", most=room)
        if move.add != 1 and move.add not in state.hands[player]:
            raise IllegalMove(f"you hold no {move.add}", code="no_card", card=move.add)
        if move.add in state.hands[player]:
            state.hands[player].remove(move.add)
            if state.deck:
                state.hands[player] = sorted([*state.hands[player], state.deck.pop()])
        state.total += move.add
        state.made[player] += 1
        state.history.append((player, move.add))
        if state.total == state.options.target:
            state.winner = player
        else:
            state.next = self._after(state, player)
        return state

    def _after(self, state: State, player: int) -> int:
        for step in range(1, state.players + 1):
            other = (player + step) % state.players
            if other not in state.left:
                return other
        return player

    def leave(self, state: State, player: int) -> State:
        state.left.append(player)
        staying = [p for p in range(state.players) if p not in state.left]
        if state.winner is None and len(staying) == 1:
            state.winner = staying[0]
        elif state.winner is None and state.next == player:
            state.next = self._after(state, player)
        return state

    def auto_move(self, state: State, player: int) -> Move:
        return Move(1)

    def random_move(self, state: State, player: int, rng: random.Random) -> Move:
        return Move(rng.choice(self.steps(state, player)))

    def bot_move(self, state: State, player: int, strength: str, rng: random.Random) -> Move:
        room = state.options.target - state.total
        if strength == "strong":
            for step in self.steps(state, player):
                if (room - step) % 4 == 0:
                    return Move(step)
        return self.random_move(state, player, rng)

    def view(self, state: State, player: int | None) -> View:
        return View(
            players=state.players,
            target=state.options.target,
            total=state.total,
            next=None if state.winner is not None else state.next,
            hand=None if player is None else tuple(state.hands[player]),
            hand_sizes=tuple(len(hand) for hand in state.hands),
            deck_size=len(state.deck),
            left=tuple(state.left),
            winner=state.winner,
            history=tuple(state.history),
        )

    def sample_hidden(self, state: State, player: int | None, rng: random.Random) -> State:
        drawn = self.restore(self.save(state))
        others = [p for p in range(state.players) if p != player]
        unknown = [card for p in others for card in drawn.hands[p]] + drawn.deck
        rng.shuffle(unknown)
        for p in others:
            size = len(drawn.hands[p])
            drawn.hands[p], unknown = sorted(unknown[:size]), unknown[size:]
        drawn.deck = unknown
        return drawn

    def score(self, state: State, player: int) -> int:
        return int(state.winner == player)

    def progress(self, state: State, player: int) -> int:
        return state.made[player]

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        scores = tuple(self.score(state, p) for p in range(state.players))
        return Outcome(scores, competition_ranks(scores, state.left), frozenset(state.left))

    def dump(self, state: State) -> dict[str, Any]:
        return {**asdict(state), "history": [list(h) for h in state.history]}

    def save(self, state: State) -> bytes:
        return json.dumps(self.dump(state)).encode()

    def restore(self, data: bytes) -> State:
        try:
            saved = json.loads(data)
            state = State(**{**saved, "options": Options(**saved["options"])})
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(f"not a saved state of race21: {error}") from None
        return replace(state, history=[tuple(h) for h in state.history])


RULES = Race21Rules()
