"""nmbrs! under the game contract: options, who moves, turn numbers, deadlines, fallback and
random steps, progress and scores, views and states with the secrets redrawn."""

import json
import random

import pytest

from games.contract import Due, IllegalMove
from games.nmbrs import RULES, Move, Options, apply, leave, position, setup
from games.nmbrs.policy import choose
from games.nmbrs.view import sample_hidden, view

from .playouts import cards_in, playout

# ---------------------------------------------------------------------- options


def test_options_from_plain_data_and_back():
    assert RULES.options({}) == Options()
    opts = RULES.options({"players": 3, "advanced": True, "simplified": False})
    assert opts == Options(advanced=True)
    assert RULES.dump_options(opts) == {"advanced": True, "simplified": False, "target": 100}
    assert RULES.options({**RULES.dump_options(opts), "players": 3}) == opts
    quick = RULES.options({"simplified": True, "target": 30})
    assert (quick.simplified, quick.target) == (True, 30)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"advanced": "yes"}, "advanced must be true or false"),
        ({"simplified": 1}, "simplified must be true or false"),
        ({"target": 0}, "target must be a whole number of 1 or more"),
        ({"target": -5}, "target must be"),
        ({"target": "100"}, "target must be"),
        ({"target": True}, "target must be"),
        ({"target": 2.5}, "target must be"),
        ({"players": 9}, "2-8 players"),
        ({"players": "3"}, "players must be a whole number"),
        ({"colour": "red"}, "unknown option 'colour'"),
    ],
)
def test_invalid_options_are_refused_with_a_reason(data, message):
    with pytest.raises(ValueError, match=message):
        RULES.options(data)


def test_the_simplified_version_keeps_the_target_of_100():
    assert RULES.options({"simplified": True}).target == 100


# ---------------------------------------------------------------------- who moves, deadlines


def test_one_player_moves_at_a_time_and_a_turn_keeps_its_number_until_the_next_turn():
    state = position(
        hands=["12,14,16,30,50", "1,2", "3,4"], pile="18,60", deck="70,71,72", phase="draw"
    )
    first = RULES.turn(state, 0)
    assert RULES.to_move(state) == {0} and RULES.due(state, 0) == Due()
    apply(state, 0, "pass")
    assert RULES.to_move(state) == {1} and RULES.offer_pending(state, 1)
    offer = RULES.turn(state, 1)
    assert offer != RULES.turn(state, 2)
    assert RULES.due(state, 1) == Due(share=0.25, minimum_seconds=600, strike=False)
    apply(state, 1, "pass")
    assert RULES.to_move(state) == {2} and RULES.turn(state, 2) not in (offer, first)
    apply(state, 2, "take")  # takes 60, draws 72; the player decides again on 18
    assert RULES.to_move(state) == {0} and not RULES.offer_pending(state, 0)
    for text in ("take", "lay 12,14,16", "extend 1: 18"):
        assert RULES.turn(state, 0) == first
        apply(state, 0, text)
    assert RULES.turn(state, 0) == first and RULES.progress(state, 0) == 0
    apply(state, 0, "discard 30")
    assert RULES.to_move(state) == {1} and not RULES.offer_pending(state, 1)
    assert RULES.turn(state, 1) not in (offer, first) and RULES.due(state, 1) == Due()
    assert RULES.progress(state, 0) == 1 and RULES.progress(state, 1) == 0
    assert RULES.score(state, 0) == state.scores[0] > 50


def test_the_fallback_answers_an_offer_with_pass():
    state = position(hands=["1,2", "12,14,16,30"], pile="18", phase="draw")
    apply(state, 0, "pass")
    assert RULES.offer_pending(state, 1)
    assert RULES.auto_move(state, 1) == Move("pass")
    assert choose(state, 1) == Move("take")  # the policy as a bot would take it


@pytest.mark.parametrize("players", [2, 3, 5, 8])
@pytest.mark.parametrize("options", [Options(), Options(simplified=True), Options(advanced=True)])
def test_the_fallback_finishes_every_turn(players, options):
    """Called until the player owes nothing for the turn, auto_move ends it with a discard
    (done), whatever the position."""
    for seed in range(4):
        state, _ = playout(players, seed, options, steps=15 + 9 * seed)
        if state.over:
            continue
        player, number, deal = state.current, RULES.turn(state, state.current), state.deal
        steps = []
        while (
            not state.over
            and state.deal == deal
            and state.current == player
            and RULES.turn(state, player) == number
        ):
            mover = state.to_move
            move = RULES.auto_move(state, mover)
            steps.append((mover, move))
            apply(state, mover, move)
            assert len(steps) < 60
        own = [move.kind for mover, move in steps if mover == player]
        assert own[-1] in ("discard", "done") or state.deal != deal or state.over
        assert all(move.kind == "pass" for mover, move in steps if mover != player)


def test_auto_and_random_moves_are_only_for_the_player_to_move():
    state = setup(3, seed=1)
    with pytest.raises(IllegalMove):
        RULES.auto_move(state, 1)
    with pytest.raises(IllegalMove):
        RULES.random_move(state, 2, random.Random(1))


def test_random_steps_are_legal_and_bounded_per_turn():
    rng = random.Random(5)
    for seed in range(6):
        state = setup(2 + seed % 4, seed)
        plays = 0
        for _ in range(300):
            if state.over:
                break
            player = state.to_move
            move = RULES.random_move(state, player, rng)
            apply(state, player, move)
            plays = plays + 1 if move.is_play else 0
            assert plays <= 6  # RANDOM_PLAYS, plus playing a swapped joker again


# ---------------------------------------------------------------------- views


def test_a_view_shows_the_table_the_top_card_sizes_scores_and_the_own_hand_only():
    state = position(
        hands=["12,14,16,31,JB", "1,2,3", "40,41"],
        table=["10,JR=20,30"],
        pile="77,99",
        laid=[False, True, False],
        scores=[50, 61, 40],
    )
    mine = RULES.view(state, 0).to_dict()
    json.dumps(mine)
    assert mine["hand"] == [
        {"card": "12", "number": 12, "colour": "red", "value": 1, "joker": False},
        {"card": "14", "number": 14, "colour": "red", "value": 1, "joker": False},
        {"card": "16", "number": 16, "colour": "green", "value": 1, "joker": False},
        {"card": "31", "number": 31, "colour": "blue", "value": 3, "joker": False},
        {"card": "JB", "number": None, "colour": "blue", "value": 0, "joker": True},
    ]
    assert mine["table"] == [
        {
            "series": 1,
            "step": 10,
            "cards": [
                {"card": "10", "number": 10, "colour": "red", "value": 1, "joker": False},
                {"card": "JR", "number": 20, "colour": "red", "value": 0, "joker": True},
                {"card": "30", "number": 30, "colour": "green", "value": 1, "joker": False},
            ],
        }
    ]
    assert mine["discard"]["card"] == "99" and mine["discard_size"] == 2
    assert mine["deck_size"] == 104 - 10 - 3 - 2
    assert mine["hand_sizes"] == [5, 3, 2] and mine["scores"] == [50, 61, 40]
    assert mine["laid"] == [False, True, False]
    assert (mine["turn"], mine["to_move"], mine["phase"], mine["deal"]) == (0, 0, "play", 1)
    assert cards_in(mine) & {"1", "2", "3", "40", "41"} == set()
    spectator = RULES.view(state, None).to_dict()
    assert spectator["hand"] is None and spectator["hand_sizes"] == [5, 3, 2]
    assert cards_in(spectator) == {"10", "JR", "30", "99"}


def test_a_view_says_who_is_offered_the_discard_and_when_the_player_must_draw():
    state = position(hands=["1,2", "3,4", "5,6"], pile="42", phase="draw")
    assert RULES.view(state, 2).to_dict()["phase"] == "draw"
    apply(state, 0, "pass")
    data = RULES.view(state, 2).to_dict()
    assert (data["phase"], data["offer_to"], data["to_move"], data["turn"]) == ("offer", 1, 1, 0)
    apply(state, 1, "pass")
    apply(state, 2, "pass")
    data = RULES.view(state, 2).to_dict()
    assert (data["phase"], data["must_draw"], data["to_move"]) == ("draw", True, 0)


def test_a_view_shows_a_joker_owed_after_a_swap():
    state = position(hands=["20,41,99", "2,3"], table=["10,JR=20,30"])
    apply(state, 0, "swap 1: 20")
    assert RULES.view(state, 1).to_dict()["owed"] == "JR"


def test_after_the_game_the_final_hands_are_shown():
    state = position(hands=["12,14,16,88", "97,2"], scores=[99, 50])
    assert RULES.view(state, 1).to_dict()["final_hands"] is None
    apply(state, 0, "lay 12,14,16")
    apply(state, 0, "discard 88")
    data = RULES.view(state, None).to_dict()
    assert [[c["card"] for c in hand] for hand in data["final_hands"]] == [[], ["2", "97"]]
    assert data["phase"] == "over" and data["to_move"] is None
    assert data["outcome"] == {"scores": [102, 45], "ranks": [1, 2], "left": []}
    assert data["last_deal"] == {"deal": 1, "out": 0, "lost": [0, 5]}


def test_views_of_other_players_and_spectators_never_hold_a_hand():
    """Apart from the public history (tested below: it only names cards that lay face up),
    a view names no card of the deck or of another player's hand."""
    state, _ = playout(4, 3, steps=40)
    for viewer in [0, 1, 2, 3, None]:
        data = view(state, viewer).to_dict()
        assert data.pop("log")
        secret = set(state.deck)
        for player in range(4):
            if player != viewer:
                secret |= set(state.hands[player])
        assert cards_in(data) & secret == set()


@pytest.mark.parametrize("options", [Options(), Options(simplified=True)])
def test_the_public_history_holds_only_what_the_table_saw(options):
    """Each move adds its line (and a deal's end its result); a take or pass names the card
    that lay face up, a discard the card discarded, a draw no card: the card drawn from the
    deck, also after taking an offer, is never in the history. Every viewer gets the same."""
    state = setup(3, 5, options)
    rng = random.Random(5)
    seen = {"take", "pass", "draw", "end"}
    for _ in range(3000):
        if state.over:
            break
        player, top, deal = state.to_move, state.top, state.deal
        offered = state.phase == "offer"
        move = RULES.auto_move(state, player) if rng.random() < 0.5 else None
        if move is None:
            from games.nmbrs.policy import random_step

            move = random_step(state, player, rng)
        hand = list(state.hands[player])
        before = len(state.log)
        apply(state, player, move)
        new = state.log[before:]
        line = new[0]
        assert (line.deal, line.player, line.move) == (deal, player, str(move))
        if move.kind in ("take", "pass"):
            assert line.card == top and line.offered == offered
        elif move.kind == "discard":
            assert line.card == move.card and line.card in hand
        else:
            assert line.card is None
        if move.kind == "take" and offered:
            drawn = [c for c in state.hands[player] if c not in hand and c != top]
            assert all(c not in str(line.to_data()) for c in drawn)
        assert all(end.move == "end" for end in new[1:])
        if len(new) > 1:
            assert new[1].lost == tuple(state.last_deal["lost"])
        seen.discard(move.kind)
        seen.discard("end" if len(new) > 1 else "")
        logs = {view(state, viewer).log for viewer in [0, 1, 2, None]}
        assert logs == {state.log}
    assert seen == set()


@pytest.mark.parametrize("viewer", [0, 1, 2, None])
def test_sample_hidden_redraws_what_the_viewer_cannot_see(viewer):
    state, _ = playout(3, 8, steps=25)
    before = state.dump()
    rng = random.Random(1)
    other = sample_hidden(state, viewer, rng)
    assert state.dump() == before
    assert view(other, viewer) == view(state, viewer)
    if viewer is not None:
        assert other.hands[viewer] == state.hands[viewer]
    assert [len(h) for h in other.hands] == [len(h) for h in state.hands]
    assert len(other.deck) == len(state.deck)
    hidden = [p for p in range(3) if p != viewer]
    pool = sorted(state.deck + [c for p in hidden for c in state.hands[p]])
    assert sorted(other.deck + [c for p in hidden for c in other.hands[p]]) == pool
    assert other.dump() != before
    assert other.table == state.table and other.pile == state.pile


def test_sample_hidden_keeps_a_swapped_joker_in_the_hand_that_owes_it():
    state = position(hands=["20,41,42,99", "2,3,4"], table=["10,JR=20,30"])
    apply(state, 0, "swap 1: 20")
    for seed in range(10):
        other = sample_hidden(state, 1, random.Random(seed))
        assert "JR" in other.hands[0] and other.owed == "JR"
        apply(other, 0, "extend 1: JR=40")  # the redrawn state still plays on


def test_leave_passes_the_turn_on():
    state = setup(3, seed=2)
    leave(state, 0)
    assert RULES.to_move(state) == {1} and not state.over
    assert RULES.outcome(state) is None
    leave(state, 2)
    outcome = RULES.outcome(state)
    assert outcome.ranks == (2, 1, 2) and outcome.left == frozenset({0, 2})
    assert RULES.to_move(state) == frozenset()
