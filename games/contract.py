"""The game contract: what a game provides so that the platform can host it.

A game is data plus functions (boardgame.io's ``Game``, python-chess's variants). Each game
lives in its own package under ``games/`` with no Django import and exposes one object that
satisfies ``Rules``; ``games.registry.find_game(slug)`` finds it. The platform knows nothing
else about a game: it stores a match as

- the game's ``slug``, its options as JSON (``rules.dump_options``) and a seed;
- the move texts in the order they were made, each with the player (seat index) who made it;
  leaving the match (resigning, or being dropped for missed deadlines) is written as the
  platform's own text ``LEAVE`` in the same list,

and rebuilds the state from them whenever it needs it::

    state = rules.setup(players, seed, rules.options(stored_options))
    for player, text in moves:
        if text == LEAVE:
            state = rules.leave(state, player)
        else:
            state = rules.apply(state, player, rules.parse_move(text))

So a game must be **pure and seeded**: every random choice comes from the seed (and the moves),
replaying the same texts gives the same state, and ``str(move)`` is the text that is stored.

**Kept states.** The platform also keeps each match's current state beside its moves, so that
no page or move replays the match: ``save(state)`` writes it as bytes and ``restore(data)``
reads them back into a state equal to it in everything. ``state_format`` names what the
game's code writes; a state kept in another format (the game's code changed since), or one
that ``restore`` refuses, is rebuilt from the moves, which stay the truth.

**Secrets stay in the state.** ``view(state, player)`` is all that ``player`` may know (None:
a spectator, who may know what every player may know); the services hand views, never states,
to the web layer. ``sample_hidden`` draws a state the player cannot tell from the real one; the
contract tests use it to prove that views hold no secret, and bots use it to guess.

**States may be changed in place.** ``apply`` and ``leave`` return the state (the same object
or a new one); when ``apply`` refuses a move it raises ``IllegalMove`` and the state is exactly
as before. Use ``rules.dump(state)`` to compare states.

**Who moves.** ``to_move(state)`` is the set of players who owe a decision now: everybody at
once in NMBR 9, one player at a time in nmbrs!. ``turn(state, player)`` numbers the player's
decisions: the platform starts a new deadline for a player when the number changes, so moves
that continue the same turn (the plays of an nmbrs! turn) share one deadline. ``due`` says how
long the deadline is and whether missing it is a strike; when it passes the platform plays
``auto_move`` until the player owes nothing more for that turn.

**Drafts.** A game whose move has several steps (an NMBR 9 ++ turn) may let a player see
each step before they confirm the whole move (``DraftRules.draft``): the view after the
steps so far, on a copy, with the first refused step's reason.

**Commitments.** A game may let a player bind themselves before they try the move they owe
(``CommitRules``; NMBR 9 ++ "2 of 3": a player chooses "build" before trying where to build,
and may then not reject). The platform keeps a commitment with the player's seat for the
decision it was made in (``turn``): it refuses the moves that break it, plays
``committed_auto_move`` when the time runs out, and, while a player may still commit, drafts
nothing for them (``DraftRules``) and refuses every move that would keep a commitment they
were offered (only moves that keep none are played at once): committing comes before
trying, and a refused move's reason tells nothing of the move tried.

**Standing answers.** A game may let a player choose answers given for them at once
(``StandingRules.standing_move(state, player, prefs)``: a move, or None; nmbrs!'s "always
pass"), from the player's choices for the match, which its web adapter names in ``prefs``.

**Own pace.** A game may let the players of a match go through it each at their own speed
(``PaceRules``; NMBR 9's free pace): a player ahead then knows what those behind have yet to
see, so the platform lets the players of such a match say nothing to each other while it runs.

**Bots.** A game may let bots play it (``BotRules``): ``bot_move`` gives the move of a bot of
one of its ``bot_strengths`` from a state drawn by ``sample_hidden`` for the bot's seat, so a
bot knows no more than a player in its seat.

**Puzzles.** A game may also offer puzzles (``PuzzleRules``): a deal fixed by a seed, played
alone with ``puzzle_options`` and measured against ``puzzle_par(seed)``, the best score a
search finds knowing every secret of the deal (``puzzle_par_line`` also gives its moves).

``tests/contract/`` runs every registered game through random playouts that check all of this;
the type checker (``./run check``) holds each game's rules object to ``Rules`` and to the
Protocols of what it offers besides where ``games.registry`` names them.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

__all__ = [
    "LEAVE",
    "Due",
    "IllegalMove",
    "InvalidMove",
    "BotRules",
    "CommitRules",
    "DraftRules",
    "Outcome",
    "PaceRules",
    "PuzzleRules",
    "Rules",
    "StandingRules",
    "View",
    "competition_ranks",
]

#: The move text the platform writes when a player leaves a match (resigned or dropped).
LEAVE = "leave"


class IllegalMove(ValueError):
    """A move the rules refuse; ``str()`` says why in words a player understands.

    ``code`` names the reason and ``params`` fill it in, so a web layer can say it in
    another language; the English text is the engine's own (its command line prints it).
    """

    def __init__(self, reason: str, *, code: str = "", **params: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code or reason
        self.params = params


class InvalidMove(IllegalMove):
    """A move text that does not even describe a move."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: each player's score and place (1 is best, ties share a place).

    Players who left the match are ``left`` and share the last place.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    left: frozenset[int] = frozenset()

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(i for i, r in enumerate(self.ranks) if r == 1 and i not in self.left)

    def to_dict(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks), "left": sorted(self.left)}


def competition_ranks(scores: Iterable[int], left: Iterable[int] = ()) -> tuple[int, ...]:
    """Ranks by score, highest first, ties sharing ("1, 1, 3"); ``left`` players share last.

    >>> competition_ranks([50, 70, 50, 90], left=[3])
    (2, 1, 2, 4)
    """
    scores = tuple(scores)
    out = frozenset(left)
    playing = [s for i, s in enumerate(scores) if i not in out]
    last = len(playing) + 1
    return tuple(
        last if i in out else 1 + sum(1 for other in playing if other > s)
        for i, s in enumerate(scores)
    )


@dataclass(frozen=True, slots=True)
class Due:
    """How a decision's deadline is set: ``share`` of the match's time per move, at least
    ``minimum_seconds``; missing it is a strike unless ``strike`` is False."""

    share: float = 1.0
    minimum_seconds: int = 0
    strike: bool = True


@runtime_checkable
class View(Protocol):
    """What one player may know, as plain data."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data: the contract tests serialise it to look for secrets."""
        ...


S = TypeVar("S")
M = TypeVar("M")
V = TypeVar("V", bound=View, covariant=True)
O = TypeVar("O")  # noqa: E741


@runtime_checkable
class Rules(Protocol[S, M, V, O]):
    """A game: pure functions over its own state, move and view types."""

    #: Short name used in URLs and stored with every match ("nmbr9", "nmbrs").
    slug: str
    #: The game's name as players know it.
    name: str
    #: The player counts a match may have.
    players: range

    def options(self, data: Mapping[str, Any]) -> O:
        """Options from plain data (a form, stored JSON); ValueError with a reason if invalid.

        Options may depend on the number of players: ``data`` holds ``"players"`` when known.
        """
        ...

    def dump_options(self, options: O) -> dict[str, Any]:
        """JSON-ready data that ``options`` reads back to equal options."""
        ...

    def setup(self, players: int, seed: int, options: O) -> S:
        """The state before the first move; every random choice comes from ``seed``."""
        ...

    def parse_move(self, text: str) -> M:
        """The move written ``text``; InvalidMove if it is not one. ``str(move)`` round-trips."""
        ...

    def to_move(self, state: S) -> frozenset[int]:
        """The players who owe a decision now (empty when the game is over)."""
        ...

    def turn(self, state: S, player: int) -> int:
        """A number that changes whenever ``player`` starts a new decision."""
        ...

    def due(self, state: S, player: int) -> Due:
        """How long ``player`` has for the decision they owe now."""
        ...

    def apply(self, state: S, player: int, move: M) -> S:
        """``player`` makes ``move``; IllegalMove (state unchanged) if they may not."""
        ...

    def leave(self, state: S, player: int) -> S:
        """``player`` resigns or is dropped: no more decisions, ranked last."""
        ...

    def auto_move(self, state: S, player: int) -> M:
        """The fallback move for ``player`` (their deadline passed): always legal."""
        ...

    def random_move(self, state: S, player: int, rng: random.Random) -> M:
        """A legal move for ``player`` drawn with ``rng`` (for playouts and tests)."""
        ...

    def view(self, state: S, player: int | None) -> V:
        """All that ``player`` may know (None: a spectator); never a secret of the state."""
        ...

    def sample_hidden(self, state: S, player: int | None, rng: random.Random) -> S:
        """A state ``player`` cannot tell from ``state``: whatever they may not know is drawn
        afresh from ``rng``, so ``view`` of it for ``player`` is equal."""
        ...

    def score(self, state: S, player: int) -> int:
        """``player``'s score now, as everybody may see it once the game is over."""
        ...

    def progress(self, state: S, player: int) -> int:
        """How far ``player`` has got (the game counts it: decisions made, say), for lists."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """None while the game runs; then every player's score and place."""
        ...

    def dump(self, state: S) -> dict[str, Any]:
        """The whole state as JSON-ready data, secrets included (for comparing states)."""
        ...

    #: The format of the states ``save`` writes: a word that changes whenever the game's code
    #: does (a state kept in another format is rebuilt from the moves).
    state_format: str

    def save(self, state: S) -> bytes:
        """The whole state as bytes, secrets included, for the platform to keep."""
        ...

    def restore(self, data: bytes) -> S:
        """The state ``save`` wrote (the caller's own, equal to the saved one in ``dump``,
        every view and every answer, and playing on the same); ValueError if ``data`` is
        not one that this ``state_format`` wrote."""
        ...


@runtime_checkable
class DraftRules(Protocol):
    """What a game adds to let a player compose a move of several steps."""

    def draft(self, state: Any, player: int, text: str) -> tuple[View, IllegalMove | None]:
        """What ``player`` would see after the steps ``text`` ("" for none) of the move they
        owe, carried out in order until one is refused; the state does not change. Returns
        that view and the refusal (None if every step was accepted)."""
        ...


@runtime_checkable
class CommitRules(Protocol):
    """What a game adds to let a player commit to a kind of move before trying it."""

    def commitments(self, state: Any, player: int) -> tuple[str, ...]:
        """What ``player`` may commit to now, before making the move they owe (names of at
        most 20 characters, which the game's web adapter shows); empty when there is nothing
        to commit to."""
        ...

    def check_commitment(self, state: Any, player: int, commitment: str, move: Any) -> None:
        """IllegalMove (with the reason) if ``move`` breaks ``commitment``, which ``player``
        made for the decision they owe."""
        ...

    def committed_auto_move(self, state: Any, player: int, commitment: str) -> Any:
        """The fallback move (``Rules.auto_move``) of a player who made ``commitment`` for
        the decision they owe: always legal, and it keeps the commitment."""
        ...


@runtime_checkable
class StandingRules(Protocol):
    """What a game adds to let a player choose answers given for them at once."""

    def standing_move(self, state: Any, player: int, prefs: Mapping[str, Any]) -> Any:
        """The move ``player`` makes without being asked now, from their standing choices
        for the match (``prefs``, named by the game's web adapter); None for none."""
        ...


@runtime_checkable
class PaceRules(Protocol):
    """What a game adds whose players may go through a match each at their own speed."""

    def own_pace(self, options: Any) -> bool:
        """Whether in a match with ``options`` (``Rules.options``) each player goes at their
        own speed, so that one ahead may know what the others have yet to see."""
        ...


@runtime_checkable
class StepRules(Protocol):
    """What a game adds whose deal many players can play in step, each in a game of their
    own on it (a live duplicate tournament): the deal is shown one step at a time to all of
    them at once, and a player who went through the steps shown so far waits for the next."""

    def steps_taken(self, state: Any, player: int) -> int:
        """How many of the deal's steps ``player`` has gone through."""
        ...

    def view_dealt(self, state: Any, player: int | None, dealt: int) -> View:
        """``Rules.view`` while only the deal's first ``dealt`` steps have been shown: a
        player who went through them owes no decision and sees nothing of the next step."""
        ...


@runtime_checkable
class BotRules(Protocol):
    """What a game adds to let bots play it."""

    @property
    def bot_strengths(self) -> tuple[str, ...]:
        """The strengths of its bots, weakest first (a read-only member: a game may give
        a narrower type, such as its own tuple of three)."""
        ...

    def bot_move(self, state: Any, player: int, strength: str, rng: random.Random) -> Any:
        """The move a bot of ``strength`` makes for ``player``, who owes a decision.

        ``state`` is one ``sample_hidden`` drew for ``player`` (the caller's to change); every
        random choice comes from ``rng``, so the same state and generator give the same move.
        """
        ...


@runtime_checkable
class PuzzleRules(Protocol):
    """What a game adds to offer puzzles: fixed deals played alone, scored against par."""

    @property
    def puzzle_options(self) -> Mapping[str, Any]:
        """The options of a game played on a puzzle (``Rules.options`` reads them; a
        read-only member: a game may give a narrower type, such as a dict)."""
        ...

    #: ``Rules.progress`` of a player whose game on a puzzle is over.
    puzzle_length: int

    def puzzle_start(self, seed: int) -> str:
        """What the puzzle of ``seed`` shows before the first move, as text the game's web
        adapter reads back; it may be shown to anybody."""
        ...

    def puzzle_par(self, seed: int, effort: float = 1.0) -> int:
        """The best score found for the puzzle of ``seed`` by a search that knows its secrets;
        ``effort`` (0 < effort <= 1) is the share of the full search spent (less for tests
        and quick checks)."""
        ...

    def puzzle_par_line(self, seed: int, effort: float = 1.0) -> tuple[int, tuple[str, ...]]:
        """``puzzle_par`` and the moves (their texts) of a game on the puzzle that scores it,
        from the puzzle's start: replayed, they show how par is reached."""
        ...
