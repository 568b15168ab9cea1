"""docs/rules.md §4 and §6.8: the fallback on a missed deadline, and what each player may see."""

import json
import random

from scripted import T, auto_play, level0, scripted

from games.nmbr9 import Game, Options, Place, Reject
from games.nmbr9.policy import fallback_turn
from games.nmbr9.turn import SPECIALS

ALL = {"start_tiles": True, "fillers": True, "specials": SPECIALS}


def play_out(game, choose):
    while not game.is_over():
        for player in range(game.players):
            if game.decision(player) is not None:
                game.play(player, choose(game, player))


def test_6_8_the_fallback_places_without_special_tiles_or_fillers():
    for variant in ("base", "two_of_three", "level_to_level"):
        game = Game(2, seed=5, options=Options(variant=variant, **ALL))
        turns = []

        def fallback(game, player, turns=turns):
            turn = fallback_turn(game, player)
            turns.append(turn)
            return turn

        play_out(game, fallback)
        for turn in turns:
            (step,) = turn.steps
            assert isinstance(step, Place | Reject)
            assert not isinstance(step, Place) or step.specials == ()
        view = game.view(0)
        assert view.fillers == ("F1", "F2") and view.markers == (
            3 if variant == "two_of_three" else 2
        )
        assert any(isinstance(t.main, Reject) for t in turns) == (variant == "two_of_three")


def test_6_8_a_player_sees_their_reserved_tile_markers_and_fillers():
    game = scripted([5, 8, 9, 1], players=2, fillers=True, specials=("reserve", "one"))
    game.play(0, T("place 5@0,0r0; fill F1@3,0r0"))
    game.play(1, T("place 5@0,0r0"))
    game.play(0, T("reserve"))
    mine = game.view(0)
    assert (mine.reserved, mine.markers, mine.fillers) == (8, 1, ("F2",))
    assert mine.decision is None and mine.waiting_for == (1,)


def test_6_8_others_see_markers_and_fillers_used_but_not_the_reserved_tile():
    # level to level: player 0 sets aside the card under marker 0 in one game and the one
    # under marker 1 in the other; player 1 sees the same
    views = []
    for marker in (0, 1):
        game = scripted([5, 9, 1, 3, 2], players=2, variant="level_to_level", specials=("reserve",))
        for _ in range(2):
            for player in (0, 1):
                game.play(
                    player, T(f"place {level0(game, player, game.decision(player).cards[0][1])}")
                )
        game.play(0, T(f"reserve from {marker}"))
        game.play(1, T(f"place {level0(game, 1, 1)}"))
        views.append(game.view(1).to_dict())
        assert game.view(0).reserved == (1, 3)[marker]
    assert views[0] == views[1]
    assert views[0]["displays"][0]["specials_used"] == ["reserve"]
    assert views[0]["reserved"] is None


def test_4_rounds_pace_shows_others_up_to_the_last_completed_round():
    game = scripted([5, 9, 1], players=2, fillers=True)
    game.play(0, T("place 5@0,0r0; fill F1@3,0r0"))
    other = game.view(1).displays[0]
    assert other.tiles == () and other.fillers_used == () and other.progress == 0
    assert game.view(1).waiting_for == (1,)
    game.play(1, T("place 5@0,0r0"))
    other = game.view(1).displays[0]
    assert len(other.tiles) == 2 and other.fillers_used == ("F1",) and other.progress == 1


def test_4_free_pace_shows_others_as_they_were_at_ones_own_round():
    game = Game(3, seed=8, pace="free", options=Options(fillers=True))
    for _ in range(6):
        auto_play(game, 0)
    for _ in range(2):
        auto_play(game, 1)
    game.resign(2)
    behind = game.view(1)
    ahead = behind.displays[0]
    # the fallback builds one tile a turn: player 0's display after two turns
    assert ahead.progress == 2 and ahead.tiles == game.board(0).tiles[:2]
    assert behind.displays[2].left and behind.displays[2].progress == 0
    assert "round" not in json.dumps(behind.displays[2].to_dict())
    spectator = game.view(None)
    assert [d.progress for d in spectator.displays] == [2, 2, 0]
    assert spectator.decision is None and spectator.cards == ()
    assert game.view(0).displays[1].progress == 2


def test_4_views_never_hold_the_seed_and_show_everything_at_the_end():
    game = Game(2, seed=123456789, options=Options(**ALL))
    assert "123456789" not in json.dumps(game.view(0).to_dict())
    play_out(game, lambda g, p: fallback_turn(g, p))
    for viewer in (0, 1, None):
        view = game.view(viewer)
        assert view.over and view.outcome is not None
        assert [d.tiles for d in view.displays] == [game.board(p).tiles for p in range(2)]
    assert "123456789" not in json.dumps(game.view(None).to_dict())


def test_4_sample_hidden_redraws_what_a_viewer_cannot_know():
    game = Game(3, seed=4, options=Options(variant="two_of_three", fillers=True))
    rng = random.Random(1)
    while game.round_of(1) < 3 or game.decision(0) is None or game.decision(1) is None:
        for player in range(3):
            if game.decision(player) is not None:
                game.play(player, game.random_turn(player, rng))
    player = 0
    game.play(player, game.random_turn(player, rng))  # a decision player 1 cannot see yet
    assert game.decision(1) is not None
    before = game.to_dict()
    cards = game.deal.cards
    view = game.view(1)
    seen = 3 * (view.round - 1) + len(view.round_cards)  # the cards player 1 has seen
    orders, replaced = set(), set()
    for seed in range(10):
        sample = game.sample_hidden(1, random.Random(seed))
        assert sample.view(1).to_dict() == game.view(1).to_dict()
        assert sample.seed is None and sample.deal.cards[:seen] == cards[:seen]
        assert sorted(sample.deal.cards) == sorted(cards)
        assert [t for t in sample.turns if t[0] == 1] == [t for t in game.turns if t[0] == 1]
        assert sample.turns[:-1] == game.turns[:-1] and sample.turns[-1][0] == player
        orders.add(sample.deal.cards)
        replaced.add(str(sample.turns[-1][1]))
    assert len(orders) > 1 and len(replaced) > 1
    assert game.to_dict() == before


def test_4_sample_hidden_undoes_what_a_viewer_cannot_see_in_free_pace():
    game = Game(2, seed=4, pace="free")
    for _ in range(5):
        auto_play(game, 0)
    auto_play(game, 1)
    sample = game.sample_hidden(1, random.Random(0))
    assert sample.turns_taken(0) == 1 and sample.turns_taken(1) == 1
    assert sample.view(1).to_dict() == game.view(1).to_dict()
    assert game.sample_hidden(0, random.Random(0)).turns == game.turns
