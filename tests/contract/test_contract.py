"""Every registered game against the game contract (games/contract.py), by seeded playouts.

``CASES`` lists, per game, player counts with option sets (each game package's examples,
the tests' own games among them); every case plays several seeds to the end with random and
fallback moves, and checks at every step what the contract
promises: refused moves change nothing, texts round-trip, replays are identical, views hold
no secret, and the outcome appears exactly at the end.
"""

import copy
import importlib
import json
import random

import pytest

from games.contract import (
    LEAVE,
    CommitRules,
    Due,
    IllegalMove,
    Outcome,
    PuzzleRules,
    Rules,
    competition_ranks,
)
from games.models import Seat
from games.registry import GAMES, find_game
from tests.factories import CASES, PACKAGES, cases

SEEDS = range(3)
MAX_STEPS = 5000


def _setup(rules: Rules, players: int, seed: int, options: dict):
    opts = rules.options({**options, "players": players})
    assert rules.options({**rules.dump_options(opts), "players": players}) == opts
    return rules.setup(players, seed, opts)


def _replay(rules: Rules, players: int, seed: int, options: dict, log):
    state = _setup(rules, players, seed, options)
    for player, text in log:
        if text == LEAVE:
            state = rules.leave(state, player)
        else:
            state = rules.apply(state, player, rules.parse_move(text))
    return state


def _views(rules: Rules, state, players: int) -> dict:
    return {p: rules.view(state, p).to_dict() for p in [*range(players), None]}


def _check_views_hold_no_secret(rules: Rules, state, players: int, rng: random.Random) -> bool:
    """Every view survives JSON and equals the view of a state with its secrets redrawn.
    True if some redrawn state differed from the real one (there was a secret to redraw)."""
    redrawn = False
    before = rules.dump(state)
    for viewer in [*range(players), None]:
        view = rules.view(state, viewer).to_dict()
        json.dumps(view)
        other = rules.sample_hidden(state, viewer, rng)
        assert rules.view(other, viewer).to_dict() == view, f"view of {viewer} shows a secret"
        redrawn |= rules.dump(other) != before
        assert rules.dump(state) == before, "sample_hidden changed the real state"
    return redrawn


def playout(rules: Rules, players: int, seed: int, options: dict, *, leave_at: int | None):
    """Play to the end; returns the state and the move log."""
    rng = random.Random(f"playout:{rules.slug}:{players}:{seed}")
    state = _setup(rules, players, seed, options)
    log: list[tuple[int, str]] = []
    redrawn = False
    for step in range(MAX_STEPS):
        if rules.outcome(state) is not None:
            break
        movers = sorted(rules.to_move(state))
        assert movers, "nobody is to move, yet the game is not over"
        player = rng.choice(movers)
        assert isinstance(rules.turn(state, player), int)
        assert isinstance(rules.due(state, player), Due)
        if leave_at is not None and step == leave_at and player != 0:
            state = rules.leave(state, player)
            log.append((player, LEAVE))
            continue
        if rng.random() < 0.5:
            move = rules.auto_move(state, player)
        else:
            move = rules.random_move(state, player, rng)
        text = str(move)
        assert rules.parse_move(text) == move, f"{text!r} does not round-trip"
        before = rules.dump(state)
        state = rules.apply(state, player, move)  # an auto or random move is always legal
        log.append((player, text))
        after = rules.dump(state)
        assert after != before, f"{text!r} changed nothing"
        # The same move again, and the move by somebody who is not to move, are either
        # legal or refused without a trace.
        for again_player in {player, *(p for p in range(players) if p not in rules.to_move(state))}:
            if rules.outcome(state) is not None:
                break
            probe = copy.deepcopy(state)
            try:
                rules.apply(probe, again_player, rules.parse_move(text))
            except IllegalMove:
                assert rules.dump(probe) == after, f"refused {text!r} left a trace"
        if step % 7 == 0:
            redrawn |= _check_views_hold_no_secret(rules, state, players, rng)
    else:
        pytest.fail(f"no end after {MAX_STEPS} moves")
    _check_views_hold_no_secret(rules, state, players, rng)
    return state, log, redrawn


@pytest.mark.parametrize(("slug", "players", "options"), list(cases()))
def test_playouts_keep_the_contract(slug, players, options):
    rules = find_game(slug)
    assert rules.slug == slug and players in rules.players
    secrets_seen = False
    for seed in SEEDS:
        leave_at = 5 + seed * 3 if seed % 2 and players > 1 else None
        state, log, redrawn = playout(rules, players, seed, options, leave_at=leave_at)
        secrets_seen |= redrawn
        outcome = rules.outcome(state)
        assert isinstance(outcome, Outcome)
        assert len(outcome.scores) == len(outcome.ranks) == players
        assert outcome.ranks == competition_ranks(outcome.scores, outcome.left)
        assert rules.to_move(state) == frozenset()
        left = {player for player, text in log if text == LEAVE}
        assert outcome.left >= left
        for player in left:
            assert outcome.ranks[player] == max(outcome.ranks)
        for player in range(players):
            assert rules.score(state, player) == outcome.scores[player]
        replayed = _replay(rules, players, seed, options, log)
        assert rules.dump(replayed) == rules.dump(state)
        assert _views(rules, replayed, players) == _views(rules, state, players)
    if players > 1:
        assert secrets_seen, "sample_hidden never redrew anything: is nothing hidden?"


@pytest.mark.parametrize(("slug", "players", "options"), list(cases()))
def test_a_kept_state_is_the_state_and_plays_on_the_same(slug, players, options):
    """``restore(save(state))`` at any point of a match equals the state (its dump, every
    view, who moves and how far each got), and the rest of the match played on it ends where
    the match ended; it is the caller's own (changing it leaves the saved state alone)."""
    rules = find_game(slug)
    assert isinstance(rules.state_format, str) and rules.state_format
    final, log, _ = playout(rules, players, 5, options, leave_at=4 if players > 1 else None)
    for cut in sorted({0, 1, len(log) // 3, len(log) // 2, len(log) - 1, len(log)}):
        state = _replay(rules, players, 5, options, log[:cut])
        data = rules.save(state)
        assert isinstance(data, bytes)
        kept = rules.restore(data)
        assert kept is not state
        assert rules.dump(kept) == rules.dump(state)
        assert _views(rules, kept, players) == _views(rules, state, players)
        assert rules.to_move(kept) == rules.to_move(state)
        for player in range(players):
            assert rules.progress(kept, player) == rules.progress(state, player)
            assert rules.score(kept, player) == rules.score(state, player)
        for player, text in log[cut:]:
            if text == LEAVE:
                kept = rules.leave(kept, player)
            else:
                kept = rules.apply(kept, player, rules.parse_move(text))
        assert rules.dump(kept) == rules.dump(final)
        assert _views(rules, kept, players) == _views(rules, final, players)
        assert rules.dump(rules.restore(data)) == rules.dump(state), "restore shared the state"


class _Called:
    """Pickled, it asks for ``print`` to be called on load."""

    def __reduce__(self):
        return (print, ("called",))


@pytest.mark.parametrize("slug", sorted(CASES))
def test_restore_refuses_anything_but_a_kept_state(slug, capsys):
    """Damaged bytes, another game's state and a pickle that would call a function are all
    refused with a ValueError, and nothing is called."""
    import pickle

    rules = find_game(slug)
    other = next(r for s, r in GAMES.items() if s != slug)
    state = _setup(rules, max(2, rules.players.start), 1, {})
    data = rules.save(state)
    for bad in (
        b"",
        b"not a state",
        data[: len(data) // 2],
        pickle.dumps(_Called()),
        pickle.dumps({"a": 1}),
        other.save(_setup(other, max(2, other.players.start), 1, {})),
    ):
        with pytest.raises(ValueError):
            rules.restore(bad)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(("slug", "players", "options"), list(cases()))
def test_outcome_is_none_until_the_end(slug, players, options):
    rules = find_game(slug)
    state, log, _ = playout(rules, players, 11, options, leave_at=None)
    for end in sorted({*range(0, len(log), max(1, len(log) // 25)), len(log) - 1}):
        partial = _replay(rules, players, 11, options, log[:end])
        assert rules.outcome(partial) is None
        assert rules.to_move(partial)


def test_every_registered_game_has_cases():
    assert set(GAMES) == set(CASES)


def test_find_game_refuses_an_unknown_slug():
    with pytest.raises(ValueError, match="unsupported game"):
        find_game("chess")


RULES = {
    importlib.import_module(package).RULES.slug: importlib.import_module(package).RULES
    for package in PACKAGES
}
PUZZLE_GAMES = [slug for slug, rules in RULES.items() if isinstance(rules, PuzzleRules)]


def test_the_site_has_a_puzzle_game():
    assert PUZZLE_GAMES


@pytest.mark.parametrize("slug", PUZZLE_GAMES)
def test_a_game_on_a_puzzle_is_played_alone_to_its_length(slug):
    rules = find_game(slug)
    for seed in SEEDS:
        start = rules.puzzle_start(seed)
        assert isinstance(start, str) and start == rules.puzzle_start(seed)
        state, log, _ = playout(rules, 1, seed, dict(rules.puzzle_options), leave_at=None)
        assert rules.progress(state, 0) == rules.puzzle_length
        assert rules.outcome(state).scores == (rules.score(state, 0),)
        # Par knows the order: the fallback's moves never beat it.
        fallback = _setup(rules, 1, seed, dict(rules.puzzle_options))
        while rules.to_move(fallback):
            fallback = rules.apply(fallback, 0, rules.auto_move(fallback, 0))
        # (true of any effort; the full search is measured by the benchmarks)
        assert rules.puzzle_par(seed, 0.05) >= rules.score(fallback, 0)
        # and its moves, replayed from the start, reach it
        score, line = rules.puzzle_par_line(seed, 0.05)
        solved = _setup(rules, 1, seed, dict(rules.puzzle_options))
        for text in line:
            solved = rules.apply(solved, 0, rules.parse_move(text))
        assert rules.outcome(solved) is not None and rules.score(solved, 0) == score


COMMIT_GAMES = [slug for slug, rules in RULES.items() if isinstance(rules, CommitRules)]


@pytest.mark.parametrize("slug", COMMIT_GAMES)
def test_a_committed_fallback_keeps_its_commitment(slug):
    """Wherever a game offers a commitment (a name the seat can store), the fallback for a
    player who made it is legal and keeps it, and asking about commitments changes nothing."""
    rules = find_game(slug)
    offered = broken = 0
    for players, options in CASES[slug]:
        rng = random.Random(f"commit:{slug}:{players}")
        state = _setup(rules, players, 5, options)
        while rules.outcome(state) is None:
            player = rng.choice(sorted(rules.to_move(state)))
            for commitment in rules.commitments(state, player):
                offered += 1
                assert 0 < len(commitment) <= Seat._meta.get_field("commitment").max_length
                before = rules.dump(state)
                move = rules.committed_auto_move(state, player, commitment)
                rules.check_commitment(state, player, commitment, move)
                rules.apply(copy.deepcopy(state), player, move)
                for _ in range(3):
                    try:
                        rules.check_commitment(
                            state, player, commitment, rules.random_move(state, player, rng)
                        )
                    except IllegalMove:
                        broken += 1
                assert rules.dump(state) == before
            state = rules.apply(state, player, rules.random_move(state, player, rng))
    assert offered and broken, "no commitment was offered, or none could be broken"
