import json
import random
from collections import Counter

import pytest
from scripted import auto_place

from games.contract import Outcome, competition_ranks
from games.nmbr9 import (
    Board,
    Game,
    GameError,
    IllegalPlacement,
    InvalidPlacement,
    Placement,
    deal,
)
from games.nmbr9.policy import choose, fallback_placement
from games.nmbr9.rules import RULES


def sequence(game: Game) -> list[int]:
    """Play a solo game out with the policy and return the numbers that came."""
    numbers = []
    while not game.is_over():
        numbers.append(game.current_number(0))
        auto_place(game, 0)
    return numbers


def first_legal(game: Game, player: int) -> Placement:
    return game.board(player).legal_placements(game.current_number(player))[0]


# ----------------------------------------------------------------- the deck


def test_deck_is_two_of_each_number_shuffled_by_the_seed_alone():
    random.seed(1)
    a = sequence(Game(seed=42))
    random.seed(2)
    b = sequence(Game(seed=42))
    assert a == b
    assert len(a) == 20
    assert Counter(a) == {n: 2 for n in range(10)}
    expected = [n for n in range(10) for _ in range(2)]
    random.Random(42).shuffle(expected)
    assert a == expected
    assert deal(42) == (tuple(expected), 0)


def test_different_seeds_give_different_decks():
    decks = {deal(seed)[0] for seed in range(50)}
    assert len(decks) == 50
    assert deal("match-17")[0] == deal("match-17")[0]


def test_game_has_twenty_rounds():
    game = Game(players=3, seed=5)
    assert game.rounds == 20 and game.removed == 0
    assert [game.round_of(p) for p in range(3)] == [1, 1, 1]


@pytest.mark.parametrize("removed", [1, 2, 4])
def test_removed_cards_shorten_the_game_and_stay_hidden(removed):
    cards, count = deal(9)
    game = Game(seed=9, removed=removed)
    assert game.rounds == 20 - removed and game.removed == removed
    played = sequence(game)
    assert played == list(cards[: 20 - removed])
    # the removed cards never showed up: they still count as possible in the supply
    supply = game.supply(0)
    assert sum(supply.values()) == removed
    assert Counter(played) + Counter({n: c for n, c in supply.items() if c}) == Counter(
        {n: 2 for n in range(10)}
    )


def test_random_removal_is_drawn_from_the_seed():
    counts = {Game(seed=seed, removed="random").removed for seed in range(60)}
    assert counts == {0, 1, 2, 3, 4}
    for seed in range(10):
        assert (
            Game(seed=seed, removed="random").removed == Game(seed=seed, removed="random").removed
        )
        game = Game(seed=seed, removed="random")
        assert game.rounds == 20 - game.removed
        assert deal(seed, "random")[0] == deal(seed, game.removed)[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 0}, "players must be 1-6"),
        ({"players": 7}, "players must be 1-6"),
        ({"players": True}, "players must be a whole number"),
        ({"players": 2.0}, "players must be a whole number"),
        ({"pace": "fast"}, "pace must be"),
        ({"removed": 5}, "removed must be 0-4"),
        ({"removed": -1}, "removed must be 0-4"),
        ({"removed": "some"}, "removed must be 0-4"),
        ({"removed": 1.0}, "removed must be 0-4"),
        ({"seed": None}, "seed must be"),
        ({"seed": 1.5}, "seed must be"),
        ({"seed": True}, "seed must be"),
    ],
)
def test_bad_arguments(kwargs, message):
    args = {"players": 2, "seed": 1, **kwargs}
    with pytest.raises(GameError, match=message):
        Game(**args)
    assert issubclass(GameError, ValueError)


# ----------------------------------------------------------------- pace


def test_rounds_pace_waits_for_everyone():
    game = Game(players=3, seed=11)
    first = game.current_number(0)
    game.place(0, first_legal(game, 0))
    assert game.current_number(0) is None
    assert game.round_of(0) == 2
    assert game.waiting_for() == (1, 2)
    with pytest.raises(GameError, match="waiting for the other players"):
        game.place(0, Placement(0, 5, 5, 0))
    assert game.supply(0)[first] == 1  # the next card is not revealed yet
    assert sum(game.supply(0).values()) == 19
    game.place(1, first_legal(game, 1))
    assert game.current_number(0) is None
    game.place(2, first_legal(game, 2))
    assert game.waiting_for() == (0, 1, 2)
    second = game.current_number(0)
    assert second == game.current_number(1) == game.current_number(2) is not None
    assert sum(game.supply(0).values()) == 18


def test_free_pace_lets_each_player_go_ahead():
    game = Game(players=2, seed=11, pace="free")
    for _ in range(5):
        auto_place(game, 0)
    assert game.round_of(0) == 6 and game.round_of(1) == 1
    assert game.current_number(1) == deal(11)[0][0]
    assert game.current_number(0) == deal(11)[0][5]
    assert game.waiting_for() == ()
    while game.current_number(0) is not None:
        auto_place(game, 0)
    assert game.finished(0) and not game.is_over()
    assert game.outcome() is None
    with pytest.raises(GameError, match="placed all their tiles"):
        game.place(0, Placement(0, 0, 0, 0))
    while not game.is_over():
        auto_place(game, 1)
    assert game.outcome() is not None


def test_resign_ranks_last_and_nobody_waits():
    game = Game(players=3, seed=3)
    auto_place(game, 0)
    auto_place(game, 1)
    game.resign(2)
    assert game.resigned == {2}
    assert game.current_number(2) is None
    assert game.current_number(0) is not None  # round 1 ended without player 2
    with pytest.raises(GameError, match="resigned"):
        game.place(2, Placement(0, 0, 0, 0))
    with pytest.raises(GameError, match="resigned"):
        game.resign(2)
    while not game.is_over():
        for player in (0, 1):
            if game.current_number(player) is not None:
                auto_place(game, player)
    outcome = game.outcome()
    assert outcome.ranks[2] == 3
    assert outcome.left == {2}
    assert 2 not in outcome.winners
    assert outcome.left != {0, 1, 2}  # completed: not everybody resigned
    assert outcome.scores == tuple(game.score(p) for p in range(3))


def test_everyone_resigning_abandons_the_game():
    game = Game(players=2, seed=3)
    game.resign(0)
    assert not game.is_over()
    game.resign(1)
    assert game.is_over()
    outcome = game.outcome()
    assert outcome.left == {0, 1}  # abandoned: everybody resigned
    assert outcome.ranks == (1, 1) and outcome.winners == ()
    with pytest.raises(GameError, match="over"):
        game.resign(0)


def test_solo_game_to_the_end():
    game = Game(seed=0)
    assert game.outcome() is None
    sequence(game)
    assert game.is_over()
    outcome = game.outcome()
    assert outcome.ranks == (1,) and outcome.winners == (0,)
    assert game.current_number(0) is None
    with pytest.raises(GameError, match="the game is over"):
        game.place(0, Placement(0, 0, 0, 0))
    with pytest.raises(GameError, match="the game is over"):
        auto_place(game, 0)


# ----------------------------------------------------------------- outcome


def test_ranks_share_ties():
    assert competition_ranks([10, 30, 30, 20]) == (4, 1, 1, 3)
    assert competition_ranks([5, 5, 5]) == (1, 1, 1)
    assert competition_ranks([50, 70, 50, 90], left=[3]) == (2, 1, 2, 4)
    assert competition_ranks([50, 70, 90], left=[1, 2]) == (1, 2, 2)


def test_outcome_ties_in_a_real_game():
    game = Game(players=3, seed=21)
    while not game.is_over():
        placement = fallback_placement(game, 0)
        game.place(0, placement)
        game.place(1, placement)  # the same display: the same score
        game.place(2, first_legal(game, 2))
    outcome = game.outcome()
    assert outcome.scores[0] == outcome.scores[1] > outcome.scores[2]
    assert outcome.ranks == (1, 1, 3)
    assert outcome.winners == (0, 1)
    assert isinstance(outcome, Outcome)
    assert outcome.to_dict()["ranks"] == [1, 1, 3]
    with pytest.raises(AttributeError):
        outcome.ranks = (1, 2, 3)  # type: ignore[misc]


# ----------------------------------------------------------------- moves and errors


def test_place_checks_player_and_tile():
    game = Game(players=2, seed=7)
    number = game.current_number(0)
    wrong = (number + 1) % 10
    with pytest.raises(GameError, match=f"the tile to place is a {number}"):
        game.place(0, Placement(wrong, 0, 0, 0))
    for player in (2, -1, True, "0", None):
        with pytest.raises(GameError, match="player must be"):
            game.place(player, Placement(number, 0, 0, 0))
    with pytest.raises(InvalidPlacement):
        game.place(0, f"{number}@0,0r0")
    assert game.moves == ()
    game.place(0, Placement(number, 0, 0, 0))
    before = game.to_dict()
    game.place(1, Placement(number, 0, 0, 0))
    with pytest.raises(IllegalPlacement, match="not adjacent"):
        game.place(0, Placement(game.current_number(0), 20, 20, 0))
    assert game.board(0).tiles == ((Placement(number, 0, 0, 0), 0),)
    assert len(game.moves) == len(before["moves"]) + 1


def test_boards_are_copies():
    game = Game(players=2, seed=7)
    auto_place(game, 0)
    board = game.board(0)
    board.place(board.legal_placements(5)[0])
    assert len(game.board(0)) == 1
    assert [len(b) for b in game.boards] == [1, 0]
    assert isinstance(game.boards[0], Board)


def test_auto_place_uses_the_policy_with_the_supply():
    game = Game(players=1, seed=13)
    auto_place(game, 0)
    board = game.board(0)
    number = game.current_number(0)
    expected = choose(board, number, supply=game.supply(0))
    assert fallback_placement(game, 0) == expected
    assert auto_place(game, 0) == expected


# ----------------------------------------------------------------- views


def placements_of(display):
    """The placements a ``DisplayView`` shows, in placement order."""
    return tuple(p for p, _ in display.tiles)


def test_view_hides_the_future():
    # two seeds that start with the same card but continue differently
    by_first: dict[int, list[int]] = {}
    for seed in range(100):
        by_first.setdefault(deal(seed)[0][0], []).append(seed)
    seeds = next(s for s in by_first.values() if len(s) >= 2)
    a, b = seeds[0], next(s for s in seeds[1:] if deal(s)[0][1] != deal(seeds[0])[0][1])
    views = [json.dumps(RULES.view(Game(players=2, seed=seed), 0).to_dict()) for seed in (a, b)]
    assert views[0] == views[1]
    data = json.loads(views[0])
    assert set(data) == {
        "viewer",
        "players",
        "pace",
        "options",
        "specials",
        "over",
        "round",
        "rounds",
        "cards",
        "supply",
        "displays",
        "waiting_for",
        "left",
        "decision",
        "round_cards",
        "reserved",
        "lost",
        "markers",
        "fillers",
        "tiles_left",
        "level_markers",
        "pile",
        "outcome",
    }
    assert "seed" not in views[0]
    current_number = data["decision"]["cards"][0][1]
    assert data["supply"] == {str(n): 2 - (n == current_number) for n in range(10)}


def test_views_agree_while_the_revealed_cards_agree():
    # two decks with the same first three cards and a different fourth
    first = {}
    for seed in range(20000):
        cards = deal(seed)[0]
        other = first.setdefault(cards[:3], seed)
        if deal(other)[0][3] != cards[3]:
            a, b = other, seed
            break
    games = [Game(players=2, seed=seed) for seed in (a, b)]
    for game in games:
        for _ in range(2):
            auto_place(game, 0)
            auto_place(game, 1)
        auto_place(game, 0)  # player 0 placed tile 3 and waits: card 4 is not revealed
    assert games[0].moves == games[1].moves
    assert RULES.view(games[0], 0).to_dict() == RULES.view(games[1], 0).to_dict()
    assert RULES.view(games[0], 1).to_dict() == RULES.view(games[1], 1).to_dict()
    assert RULES.view(games[0], 0).decision is None  # no current number
    auto_place(games[0], 1)
    auto_place(games[1], 1)
    assert RULES.view(games[0], 0).to_dict() != RULES.view(games[1], 0).to_dict()


def test_rounds_pace_shows_opponents_up_to_the_last_completed_round():
    game = Game(players=2, seed=4)
    auto_place(game, 0)
    auto_place(game, 1)
    auto_place(game, 0)  # round 2: player 0 has placed, player 1 not yet
    view1 = RULES.view(game, 1)
    opponent = placements_of(view1.displays[0])
    assert len(opponent) == 1
    assert opponent == game.board(0).placements[:1]
    assert view1.waiting_for == (1,)
    view0 = RULES.view(game, 0)
    assert len(placements_of(view0.displays[0])) == 2 and view0.decision is None
    assert len(placements_of(view0.displays[1])) == 1
    assert [p for p, _ in view0.to_dict()["displays"][1]["tiles"]] == [
        str(game.board(1).placements[0])
    ]


def test_free_pace_shows_an_opponent_as_of_ones_own_round():
    game = Game(players=2, seed=4, pace="free")
    for _ in range(6):
        auto_place(game, 0)
    for _ in range(2):
        auto_place(game, 1)
    behind = RULES.view(game, 1)
    assert behind.round == 3
    assert placements_of(behind.displays[0]) == game.board(0).placements[:2]
    assert behind.displays[0].score == Board(game.board(0).placements[:2]).score()
    ahead = RULES.view(game, 0)
    assert placements_of(ahead.displays[1]) == game.board(1).placements
    assert ahead.supply == game.supply(0)
    assert sum(ahead.supply.values()) == 20 - 7
    assert sum(behind.supply.values()) == 20 - 3


def test_view_marks_resigned_players_and_the_end():
    game = Game(players=2, seed=4)
    game.resign(1)
    view = RULES.view(game, 0)
    assert view.left == (1,) and view.displays[1].left
    sequence(game)
    view = RULES.view(game, 0)
    assert view.over and view.displays[0].progress == 20 and view.decision is None
    assert view.round == 20


# ----------------------------------------------------------------- replay


def play_mixed(game: Game, rng: random.Random) -> None:
    """Random progress for every player, with a resignation now and then."""
    steps = 0
    while not game.is_over() and steps < 200:
        steps += 1
        player = rng.randrange(game.players)
        if game.current_number(player) is None:
            continue
        if rng.random() < 0.01 and len(game.active_players()) > 1:
            game.resign(player)
            continue
        auto_place(game, player)


@pytest.mark.parametrize("pace", ["rounds", "free"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_rebuilds_the_same_state(pace, seed):
    game = Game(players=3, seed=seed, pace=pace, removed="random")
    rng = random.Random(seed)
    for _ in range(3):
        play_mixed(game, rng)
        copy = Game.replay(
            3,
            seed=seed,
            pace=pace,
            removed=game.removed,
            moves=game.moves,
            resignations=game.resignations,
        )
        assert copy.to_dict() == game.to_dict()
        assert copy.boards == game.boards
        assert [b.tiles for b in copy.boards] == [b.tiles for b in game.boards]
        assert copy.is_over() == game.is_over()
        for player in range(3):
            assert RULES.view(copy, player) == RULES.view(game, player)
        again = Game.from_json(game.to_json())
        assert again.to_dict() == game.to_dict()
        assert again.outcome() == game.outcome()


def test_replay_refuses_a_bad_log():
    game = Game(seed=8)
    auto_place(game, 0)
    moves = [(0, "9@50,50r0"), *game.moves]
    with pytest.raises(GameError):
        Game.replay(seed=8, moves=moves)
    with pytest.raises(IllegalPlacement):
        Game.replay(seed=8, moves=[*game.moves, (0, Placement(deal(8)[0][1], 40, 40, 0))])
