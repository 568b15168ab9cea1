"""Property tests over random NMBR 9 ++ option sets and positions from random play."""

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_level_plusplus

from games.contract import IllegalMove
from games.nmbr9 import Deal, Game, IllegalPlacement, Options, Placement, Turn
from games.nmbr9.board import WINDOW
from games.nmbr9.policy import choose_turn, fallback_turn
from games.nmbr9.setup import DECKS
from games.nmbr9.turn import SPECIALS, Fill, Place, Reject

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SPECIAL_SETS = [(), "random2", SPECIALS, ("one", "bridge"), ("move", "reserve"), ("black", "loose")]


@st.composite
def games(draw):
    """A game with random options, some way through, and a generator for further choices."""
    variant = draw(st.sampled_from(["base", "two_of_three", "level_to_level"]))
    players = draw(st.integers(1, 6 if variant == "base" else 4))
    pace = "rounds" if variant == "level_to_level" else draw(st.sampled_from(["rounds", "free"]))
    options = Options(
        start_tiles=draw(st.booleans()),
        fillers=draw(st.booleans()),
        specials=draw(st.sampled_from(SPECIAL_SETS)),
        variant=variant,
        removed=draw(st.sampled_from([0, 2, "random"])) if variant == "base" else 0,
    )
    seed = draw(st.integers(0, 10**6))
    game = Game(players, seed=seed, pace=pace, options=options)
    rng = random.Random(seed)
    for _ in range(draw(st.integers(0, 12 * players))):
        movers = [p for p in range(players) if game.decision(p) is not None]
        if not movers:
            break
        player = rng.choice(movers)
        if rng.random() < 0.03 and players > 1:
            game.resign(player)
            continue
        turn = game.random_turn(player, rng) if rng.random() < 0.6 else fallback_turn(game, player)
        game.play(player, turn)
    return game, rng


def everything(game):
    viewers = [*range(game.players), None]
    return (
        game.to_dict(),
        [json.dumps(game.view(v).to_dict(), sort_keys=True) for v in viewers],
        [game.board(p).tiles for p in range(game.players)],
        [game.decision(p) for p in range(game.players)],
    )


@SETTINGS
@given(games())
def test_every_turn_the_engine_lists_or_plays_is_accepted(position):
    game, rng = position
    for player in range(game.players):
        if game.decision(player) is None:
            continue
        listed = game.legal_turns(player)
        chosen = [
            fallback_turn(game, player),
            choose_turn(game, player),
            game.random_turn(player, rng),
            *rng.sample(listed, min(8, len(listed))),
        ]
        for turn in chosen:
            assert Turn.parse(str(turn)) == turn
            copy = game.copy()
            copy.play(player, turn)
            assert copy.turns[-1] == (player, turn)
        fallback = chosen[0]
        assert len(fallback.steps) == 1 and isinstance(fallback.main, Place | Reject)
        assert not isinstance(fallback.main, Place) or not fallback.main.specials


def mutations(game, player, rng):
    """Turns near legal ones, most of them refused."""
    turn = game.random_turn(player, rng)
    for _ in range(6):
        steps = list(turn.steps)
        index = rng.randrange(len(steps))
        step = steps[index]
        choice = rng.randrange(4)
        if choice == 0 and hasattr(step, "placement"):
            p = step.placement
            moved = p.moved(p.x + rng.randint(-3, 3), p.y + rng.randint(-3, 3), rng.randrange(4))
            steps[index] = type(step)(
                moved, *([step.specials, step.marker] if isinstance(step, Place) else [])
            )
        elif choice == 1:
            steps.append(
                Fill(Placement(rng.choice(["F1", "F2"]), rng.randint(-6, 6), rng.randint(-6, 6)))
            )
        elif choice == 2:
            steps.insert(rng.randrange(len(steps) + 1), Reject())
        else:
            steps.append(
                Turn.parse(f"place {rng.randrange(10)}@{rng.randint(-5, 5)},0r0 with one").steps[0]
            )
        yield Turn(tuple(steps))


@SETTINGS
@given(games())
def test_a_refused_turn_leaves_the_game_identical(position):
    game, rng = position
    for player in range(game.players):
        if game.decision(player) is None:
            continue
        for turn in mutations(game, player, rng):
            before = everything(game)
            if not game.is_legal(player, turn):
                try:
                    game.play(player, turn)
                except ValueError as error:
                    assert getattr(error, "code", None), error
                else:
                    raise AssertionError(f"{turn} was refused by is_legal but played")
                assert everything(game) == before
    # a player who is not to decide is refused too
    for player in range(game.players):
        if game.decision(player) is None:
            before = everything(game)
            with pytest.raises(IllegalMove):
                game.play(player, Turn.parse("place 0@0,0r0"))
            assert everything(game) == before


@SETTINGS
@given(games())
def test_replay_from_the_seed_and_the_turn_texts_gives_the_same_game(position):
    game, _ = position
    again = Game.from_json(game.to_json())
    assert everything(again) == everything(game)
    turns = [(player, str(turn)) for player, turn in game.turns]
    replayed = Game.replay(
        game.players,
        seed=game.seed,
        pace=game.pace,
        options=game.options,
        moves=turns,
        resignations=game.resignations,
    )
    assert everything(replayed) == everything(game)


def reshuffled(game, rng):
    """The same game with the cards nobody has seen yet in another order."""
    seen = max(
        [game._seen(p) for p in range(game.players)] + [game._seen(None)],
    )
    if game.options.variant == "level_to_level":
        known = sum(len(show) for show in game._shows[:seen])
    else:
        known = seen
    cards = list(game.deal.cards[:known])
    rest = list((Counter(DECKS[game.options.variant]) - Counter(cards)).elements())
    rng.shuffle(rest)
    cards += rest[: len(game.deal.cards) - known]
    deal = Deal(tuple(cards), game.deal.removed, game.deal.start_tiles, game.deal.specials)
    return Game.replay(
        game.players,
        seed=None,
        pace=game.pace,
        options=game.options,
        deal=deal,
        moves=game.turns,
        resignations=game.resignations,
    )


@SETTINGS
@given(games())
def test_decisions_and_views_never_hold_a_card_not_yet_seen(position):
    game, rng = position
    other = reshuffled(game, rng)
    for viewer in [*range(game.players), None]:
        assert other.view(viewer).to_dict() == game.view(viewer).to_dict()
        sample = game.sample_hidden(viewer, rng)
        assert sample.view(viewer).to_dict() == game.view(viewer).to_dict()
    for player in range(game.players):
        assert other.decision(player) == game.decision(player)


@SETTINGS
@given(games(), st.data())
def test_the_board_follows_the_literal_rules_with_every_relaxation(position, data):
    game, rng = position
    board = game.board(rng.randrange(game.players))
    if not len(board):
        return
    min_x, min_y, max_x, max_y = board.bounds()
    relax = data.draw(st.sets(st.sampled_from(["one", "bridge", "loose"])))
    max_level = data.draw(st.sampled_from([None, 0, 1, 2]))
    piece = data.draw(st.sampled_from([*range(10), "F1", "F2"]))
    mirrored = isinstance(piece, int) and data.draw(st.booleans())
    listed = {p.cells(): level for p, level in board.legal_moves(piece, relax, mirrored, max_level)}
    for _ in range(30):
        placement = Placement(
            piece,
            data.draw(st.integers(min_x - 4, max_x + 1)),
            data.draw(st.integers(min_y - 4, max_y + 1)),
            data.draw(st.integers(0, 3)),
            mirrored,
        )
        expected = reference_level_plusplus(board.tiles, placement, relax, max_level)
        if any(abs(x) > WINDOW or abs(y) > WINDOW for x, y in placement.cells()):
            expected = "out of range"
        try:
            level = board.level_of(placement, relax=relax, max_level=max_level)
        except IllegalPlacement as error:
            assert not isinstance(expected, int), (placement, relax, expected, error)
            assert placement.cells() not in listed
        else:
            assert level == expected, (placement, relax, max_level)
            assert listed.get(placement.cells()) == level
