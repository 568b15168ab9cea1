"""docs/rules.md §6.5 ("2 of 3") and §6.6 ("level to level"), clause by clause, on scripted
games."""

from collections import Counter

import pytest
from scripted import P, T, auto_play, refused_turn, scripted

from games.nmbr9 import Board, Game, GameError, Options, Turn
from games.nmbr9.policy import choose_turn, fallback_turn
from games.nmbr9.rules import RULES
from games.nmbr9.turn import Place, Reject
from games.nmbr9.views import Logged


def place_first(game, player, marker=None, level=0):
    """Build the card (under ``marker``) on its first legal placement on ``level``."""
    decision = game.decision(player)
    cards = dict(decision.cards)
    number = cards[marker if marker is not None else next(iter(cards))]
    placement = next(
        p
        for p, lv in game.board(player).legal_moves(number, max_level=decision.cap(marker))
        if lv == level
    )
    game.play(player, Turn.place(placement, (), marker))
    return placement


# ----------------------------------------------------------------- 6.5 two of three


def test_6_5_thirty_cards_ten_rounds_three_markers():
    game = Game(2, seed=4, options=Options(variant="two_of_three", specials="random2"))
    assert Counter(game.deal.cards) == {n: 3 for n in range(10)}
    assert game.rounds == 10 and game.decision(0).markers == 3
    assert [game.decision(0).round, game.decision(0).step] == [1, 0]
    with pytest.raises(GameError, match="1-4 players"):
        Game(5, seed=4, options=Options(variant="two_of_three"))


def test_6_5_rejecting_the_first_card_forces_the_other_two():
    game = scripted([5, 9, 1, 7], variant="two_of_three")
    assert game.decision(0).may_reject
    game.play(0, T("reject"))
    decision = game.decision(0)
    assert decision.cards == ((None, 9),) and not decision.may_reject
    refused_turn(game, 0, "reject", "must build")
    game.play(0, T("place 9@0,0r0"))
    assert not game.decision(0).may_reject and game.decision(0).cards == ((None, 1),)
    refused_turn(game, 0, "reject", "must build")
    game.play(0, T("place 1@3,0r0"))
    assert game.decision(0).round == 2 and game.decision(0).may_reject
    assert [c for c, _ in game.view(0).round_cards] == [7]


def test_6_5_building_the_first_two_rejects_the_third_by_itself():
    game = scripted([5, 9, 1, 7], variant="two_of_three")
    game.play(0, T("place 5@0,0r0"))
    assert game.decision(0).may_reject
    game.play(0, T("place 9@3,0r0"))
    # the third card (1) is rejected without a question: the next decision is round 2
    decision = game.decision(0)
    assert (decision.round, decision.step, decision.cards) == (2, 3, ((None, 7),))
    assert game.turns_taken(0) == 2
    view = game.view(0)
    assert view.round_cards == ((7, None),)
    assert game.supply(0)[1] == 2  # the rejected 1 was revealed


def test_6_5_building_the_first_and_rejecting_the_second_forces_the_third():
    game = scripted([5, 9, 1, 7], variant="two_of_three")
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("reject"))
    assert not game.decision(0).may_reject
    assert game.view(0).round_cards == ((5, "built"), (9, "rejected"), (1, None))
    refused_turn(game, 0, "reject", "must build")
    game.play(0, T("place 1@3,0r0"))
    assert game.decision(0).round == 2


def test_6_5_reserve_counts_as_building():
    game = scripted([5, 9, 1, 7], variant="two_of_three", specials=("reserve",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("reserve"))
    assert game.decision(0).round == 2  # two built (one set aside): the 1 is rejected
    assert game.decision(0).reserved == 9


def test_6_5_each_player_builds_twenty_tiles():
    for seed in range(3):
        game = Game(2, seed=seed, options=Options(variant="two_of_three"))
        while not game.is_over():
            for player in range(2):
                if game.decision(player) is not None:
                    auto_play(game, player)
        for player in range(2):
            numbers = [p.number for p, _ in game.board(player).tiles]
            assert len(numbers) == 20
            assert not Counter(numbers) - Counter(game.deal.cards)


def test_6_5_rounds_pace_reveals_the_next_card_when_everyone_has_decided():
    game = scripted([5, 9, 1, 7], players=2, variant="two_of_three")
    game.play(0, T("place 5@0,0r0"))
    assert game.decision(0) is None and game.waiting_for() == (1,)
    assert game.view(0).cards == ((None, 5),)
    assert game.supply(0)[9] == 3, "the second card is not revealed yet"
    game.play(1, T("reject"))
    assert game.view(0).cards == ((None, 9),) and game.supply(0)[9] == 2
    assert game.decision(0).may_reject and not game.decision(1).may_reject


def test_6_5_free_pace_lets_each_player_go_through_the_cards():
    game = scripted([5, 9, 1, 7, 2, 8], players=2, pace="free", variant="two_of_three")
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("place 9@3,0r0"))
    assert game.decision(0).cards == ((None, 7),) and game.decision(1).cards == ((None, 5),)
    opponent = game.view(1).displays[0]
    assert opponent.tiles == () and opponent.progress == 0


def test_6_5_a_player_who_chose_to_build_cannot_reject_and_the_fallback_builds():
    """docs/rules.md §6.5: "once the player chooses build the tile is shown and must be built". The
    commitment is offered exactly while the card may be rejected; once made, a reject is
    refused, reserve still counts as building, and a missed deadline builds."""
    rules = RULES
    options = rules.options({"variant": "two_of_three", "specials": ["reserve", "one"]})
    rejected_by_fallback = 0
    for seed in range(40):
        state = rules.setup(1, seed, options)
        while rules.outcome(state) is None:
            decision = state.decision(0)
            assert rules.commitments(state, 0) == (("build",) if decision.may_reject else ())
            if decision.may_reject:
                with pytest.raises(GameError, match="you chose to build"):
                    rules.check_commitment(state, 0, "build", Turn.parse("reject"))
                rules.check_commitment(state, 0, "build", Turn.parse("reserve"))
                committed = rules.committed_auto_move(state, 0, "build")
                assert not isinstance(committed.main, Reject)
                if isinstance(rules.auto_move(state, 0).main, Reject):
                    rejected_by_fallback += 1
                    assert isinstance(committed.main, Place)
            state = rules.apply(state, 0, rules.auto_move(state, 0))
    assert rejected_by_fallback  # the uncommitted fallback did reject somewhere


def test_6_5_no_rejects_outside_the_variant():
    game = scripted([5])
    assert not game.decision(0).may_reject
    refused_turn(game, 0, "reject", "no rejects")


# ----------------------------------------------------------------- 6.6 level to level

# the first rounds: 5 and 9 under marker 0, then 1 and 1, then 3 and 1 (markers 0 and 1)
LEVELS = [5, 9, 1, 1, 3, 1, 6, 7, 8]


def test_6_6_forty_cards_and_rounds_pace_only():
    game = Game(3, seed=2, options=Options(variant="level_to_level"))
    assert Counter(game.deal.cards) == {n: 4 for n in range(10)}
    assert game.rounds is None  # known when the pile runs out
    with pytest.raises(GameError, match="rounds"):
        Game(2, seed=2, pace="free", options=Options(variant="level_to_level"))
    with pytest.raises(GameError, match="1-4 players"):
        Game(5, seed=2, options=Options(variant="level_to_level"))


def test_6_6_level_to_level_activation():
    game = scripted(LEVELS, variant="level_to_level")
    # rounds 1 and 2: one card under marker 0
    assert game.decision(0).cards == ((0, 5),) and game.decision(0).max_level == 4
    game.play(0, T("place 5@0,0r0"))
    assert game.decision(0).cards == ((0, 9),)
    game.play(0, T("place 9@3,0r0 from 0"))
    # round 3: two tiles on level 0, marker 1 is active
    assert game.decision(0).cards == ((0, 1), (1, 1))
    assert game.view(0).level_markers == ((0, 1), (1, 1)) and game.view(0).pile == 36
    # the tile under marker 0 may only lie on level 0
    error = refused_turn(game, 0, "place 1@2,0r1 from 0", "too high")
    assert error.params["max_level"] == 0
    game.play(0, T("place 1@2,0r1 from 1"))
    # round 4: one tile on level 1 is not enough for marker 2
    assert game.decision(0).cards == ((0, 3), (1, 1))
    game.play(0, T("place 1@0,2r1 from 1"))
    # round 5: two tiles on level 1: marker 2, and only marker 2, is added
    assert game.decision(0).cards == ((0, 6), (1, 7), (2, 8))
    assert game.board(0).score() == 2


def test_6_6_a_card_must_be_shown():
    game = scripted(LEVELS, variant="level_to_level")
    refused_turn(game, 0, "place 5@0,0r0 from 1", "no card")
    refused_turn(game, 0, "place 9@0,0r0", "wrong tile")
    game.play(0, T("place 5@0,0r0"))


def test_6_6_the_reserved_tile_keeps_its_markers_level():
    game = scripted(LEVELS, variant="level_to_level", specials=("reserve",))
    game.play(0, T("place 5@0,0r0"))
    game.play(0, T("place 9@3,0r0"))
    game.play(0, T("reserve from 0"))  # the 1 under marker 0
    decision = game.decision(0)
    assert (decision.reserved, decision.reserved_marker, decision.reserved_cap) == (1, 0, 0)
    # the 1 under marker 1 may lie on level 1, the reserved 1 from marker 0 may not
    error = refused_turn(game, 0, "place 1@2,0r1 from 1; build 1@0,2r1", "too high")
    assert error.params["max_level"] == 0
    game.play(0, T("place 1@2,0r1 from 1; build 1@-2,0r0"))
    assert game.board(0).tiles[-2:] == ((P("1@2,0r1"), 1), (P("1@-2,0r0"), 0))


def test_6_6_nothing_on_level_5():
    # a display up to level 4, set up directly (a game would take long to build one): 5s
    # stacked square on square, as "one" allows
    board = Board.from_tiles([(P("5@0,0r0"), level) for level in range(5)])
    assert board.height() == 5 and board.level_of(P("F1@0,0r0")) == 5
    game = scripted(LEVELS, variant="level_to_level", fillers=True)
    game._seats[0].board = board
    error = refused_turn(game, 0, "place 5@3,0r0; fill F1@0,0r0", "too high")
    assert error.params["max_level"] == 4
    assert "0-4" in str(error)


# 7 7 7 0 8 1 8 2 8 3 7 8: rounds 1-2 show 7, 7; rounds 3-6 show (7, 0) (8, 1) (8, 2) (8, 3);
# round 7 shows (7, 8)
SEVENS = [7, 7, 7, 0, 8, 1, 8, 2, 8, 3, 7, 8]


@pytest.mark.parametrize(("players", "skips"), [(4, True), (3, False)])
def test_6_6_four_players_have_three_tiles_of_each_number_and_skip(players, skips):
    game = scripted(SEVENS, players=players, variant="level_to_level")
    for _ in range(6):
        for player in range(players):
            place_first(game, player, marker=0)
    taken = game.tiles_left(0)
    assert (taken[7], taken[8]) == ((0, 0) if skips else (1, 1))
    decision = game.decision(0)
    if skips:
        # round 7 shows only 7 and 8: every player has built three of each, so all skip
        assert decision.round == 8 and {7, 8}.isdisjoint(dict(decision.cards).values())
        assert game.view(0).round == 8
        assert all(game.turns_taken(p) == 6 for p in range(players))  # nothing in round 7
    else:
        assert decision.round == 7 and decision.cards == ((0, 7), (1, 8))


def test_6_6_the_game_ends_when_the_pile_cannot_fill_every_marker():
    for seed in range(4):
        game = Game(1, seed=seed, options=Options(variant="level_to_level"))
        while not game.is_over():
            game.play(0, choose_turn(game, 0))
        view = game.view(0)
        shown = game.rounds
        assert shown == view.round
        markers = len(view.level_markers)
        assert 0 <= view.pile < markers, "the next round could not be filled"
        assert sum(view.supply.values()) == view.pile, "the cards left were never revealed"
        assert game.decision(0) is None and game.outcome() is not None


def test_6_6_the_game_ends_after_the_pile_runs_out_exactly():
    # everyone keeps to level 0: markers 0 and 1 from round 3, two cards a round
    game = scripted(list(range(10)), variant="level_to_level")
    while not game.is_over():
        place_first(game, 0, marker=0)
    assert game.rounds == 2 + 38 // 2 and game.view(0).pile == 0


def test_6_5_a_display_says_in_which_round_of_three_cards_each_tile_was_placed():
    game = Game(1, seed=3, options=Options(variant="two_of_three"))
    for _ in range(2):  # the first two cards built: the third is rejected by itself
        game.play(0, str(fallback_turn(game, 0, reject=False)))
    game.play(0, "reject")  # round 2: the first card rejected, the other two built
    for _ in range(2):
        game.play(0, str(fallback_turn(game, 0, reject=False)))
    display = game.view(0).displays[0]
    assert display.progress == 6 and game.round_of(0) == 3
    assert display.placed_in == (1, 1, 2, 2)
    assert display.to_dict()["placed_in"] == [1, 1, 2, 2]


def test_6_5_a_card_the_rules_reject_is_logged_as_theirs():
    game = Game(1, seed=3, options=Options(variant="two_of_three"))
    for _ in range(2):  # the first two cards built: the third is rejected by itself
        game.play(0, str(fallback_turn(game, 0, reject=False)))
    log = game.view(0).displays[0].log
    assert [entry.round for entry in log] == [1, 1, 1]
    assert log[2] == Logged(1, T("reject"), card=game.deal.cards[2], forced=True)
    assert [entry.forced for entry in log] == [False, False, True]
    assert log[0].levels == (0,) and log[0].turn.main.placement == game.board(0).tiles[0][0]


def test_6_6_the_log_keeps_another_players_reserved_card_and_its_marker_secret():
    game = scripted(LEVELS, players=2, variant="level_to_level", specials=("reserve",))
    for text in ("place 5@0,0r0", "place 9@3,0r0"):
        for player in range(2):
            game.play(player, T(text))
    game.play(0, T("reserve from 1"))  # the 1 under marker 1
    game.play(1, T("place 1@2,0r1 from 1"))
    own = game.view(0).displays
    assert own[0].log[2] == Logged(3, T("reserve from 1"), (), 1)
    assert own[1].log[2] == Logged(3, T("place 1@2,0r1 from 1"), (1,))
    for viewer in (1, None):
        entry = game.view(viewer).displays[0].log[2]
        assert entry == Logged(3, T("reserve"), (), None)
        assert entry.to_dict() == {
            "round": 3,
            "turn": "reserve",
            "levels": [],
            "card": None,
            "forced": False,
        }


def test_6_6_a_skipped_round_is_logged():
    game = scripted(SEVENS, players=4, variant="level_to_level")
    for _ in range(6):
        for player in range(4):
            place_first(game, player, marker=0)
    # round 7 shows only 7 and 8: every player has built three of each, so all skip
    for display in game.view(0).displays:
        assert display.log[6] == Logged(7, None)
        assert [entry.turn is None for entry in display.log] == [False] * 6 + [True]
