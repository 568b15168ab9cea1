"""docs/rules.md §4: what a spectator (``view(None)``) may know of a running game, checked
against games that differ only in what nobody watching may know: the order of the cards
not yet shown to every player, and (free pace) the turns of the players ahead."""

import random
from dataclasses import replace

import pytest

from games.nmbr9 import Game, Options
from games.nmbr9.turn import SPECIALS

PLUSPLUS = {"start_tiles": True, "fillers": True, "specials": SPECIALS}
#: What only a player's own view holds, as a spectator's view has it: nothing.
NOBODYS = {
    "decision": None,
    "round_cards": [],
    "reserved": None,
    "lost": [],
    "markers": 0,
    "fillers": [],
    "tiles_left": None,
}


def spectator(game: Game) -> dict:
    data = game.view(None).to_dict()
    assert {name: data[name] for name in NOBODYS} == NOBODYS
    return data


def some_decision(game: Game, rng: random.Random, *, not_of=()) -> int | None:
    """A player (not one of ``not_of``) who owes a decision, drawn with ``rng``."""
    owing = [p for p in range(game.players) if p not in not_of and game.decision(p) is not None]
    return rng.choice(owing) if owing else None


@pytest.mark.parametrize(
    "options",
    [Options(), Options(removed=2), Options(**PLUSPLUS)],
    ids=["base", "removed", "plusplus"],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_4_free_pace_a_spectator_sees_only_the_round_every_player_has_reached(options, seed):
    """The spectator's view of a game equals that of the game cut back to the round the
    slowest player is in (each player's turns after it undone): the turns of the players
    ahead never show, and a player ahead moving changes nothing a spectator sees."""
    rng = random.Random(seed)
    game = Game(3, seed=seed, pace="free", options=options)
    for _ in range(60):
        before = spectator(game)
        steps = [game.turns_taken(p) for p in range(game.players)]
        player = some_decision(game, rng)
        if player is None:
            break
        game.play(player, game.random_turn(player, rng))
        reached = min(steps)
        if steps[player] > reached or steps.count(reached) > 1:
            assert spectator(game) == before, (player, steps)  # the slowest did not advance
        reached = min(game.turns_taken(p) for p in range(game.players))
        cut = Game(3, seed=seed, pace="free", options=options)
        made = [0] * game.players
        for who, turn in game.turns:
            if made[who] < reached:
                cut.play(who, turn)
                made[who] += 1
        assert spectator(cut) == spectator(game)
        assert [d["progress"] for d in spectator(game)["displays"]] == [reached] * 3
    assert game.turns_taken(0) > 1


@pytest.mark.parametrize(
    "options",
    [Options(), Options(**PLUSPLUS), Options(variant="two_of_three", **PLUSPLUS)],
    ids=["base", "plusplus", "two_of_three"],
)
@pytest.mark.parametrize("seed", [4, 5])
def test_4_rounds_pace_a_spectator_sees_the_card_showing_and_no_card_after_it(options, seed):
    """The spectator's view is the same whatever order the cards not yet shown come in
    (the same turns replayed on a deal with those cards shuffled), and the same before and
    after a player deals with the card showing, as long as others still have to."""
    rng = random.Random(seed)
    game = Game(3, seed=seed, pace="rounds", options=options)
    checked = 0
    while checked < 12:
        before = spectator(game)
        shown = game.deal.cards[: game.completed_rounds() + 1]
        assert before["cards"] == [[None, shown[-1]]]
        player = some_decision(game, rng)
        if player is None:
            break
        game.play(player, game.random_turn(player, rng))
        after = spectator(game)
        if game.completed_rounds() + 1 == len(shown):  # the others still have to
            assert after == {**before, "waiting_for": after["waiting_for"]}
            assert player not in after["waiting_for"] and player in before["waiting_for"]
        hidden = list(game.deal.cards[len(shown) :])
        for again in range(3):
            random.Random(again).shuffle(hidden)
            other = Game(
                3,
                seed=None,
                pace="rounds",
                options=options,
                deal=replace(game.deal, cards=(*shown, *hidden)),
            )
            for who, turn in game.turns:
                other.play(who, turn)
            if game.completed_rounds() + 1 == len(shown):
                assert spectator(other) == after
        checked += 1
    assert checked == 12


def test_4_a_spectator_never_learns_a_reserved_tile_until_it_is_built():
    game = Game(2, seed=9, pace="free", options=Options(specials=("reserve",)))
    card = game.decision(0).cards[0][1]
    game.play(0, "reserve")
    game.play(1, game.random_turn(1, random.Random(0)))
    data = spectator(game)
    (logged,) = data["displays"][0]["log"]
    assert logged["turn"] == "reserve" and logged["card"] is None
    assert game.view(0).reserved == card
