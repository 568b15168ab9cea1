import doctest

import pytest

from games import ratings
from games.ratings import expected, k_factor, new_ratings


def test_expected_scores_are_symmetric():
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 2000) + expected(2000, 1900) == pytest.approx(1.0)
    assert expected(1900, 2000) == pytest.approx(0.359935, abs=1e-6)


def test_the_hand_computed_vector_without_scaling():
    after = new_ratings([1900, 2000, 2000], [1, 2, 2], [24, 24, 24], scale=False)
    assert [round(r, 2) for r in after] == [1930.72, 1984.64, 1984.64]


def test_scaling_divides_the_change_by_n_minus_one():
    after = new_ratings([1900, 2000, 2000], [1, 2, 2], [24, 24, 24])
    assert [round(r, 2) for r in after] == [1915.36, 1992.32, 1992.32]


def test_two_players_is_plain_elo():
    after = new_ratings([1500, 1500], [1, 2], [40, 40])
    assert after == [1520.0, 1480.0]
    assert new_ratings([1500, 1500], [1, 1], [40, 40]) == [1500.0, 1500.0]


def test_equal_k_conserves_rating_points():
    before = [1450.0, 1600.0, 1510.0, 1720.0]
    after = new_ratings(before, [2, 1, 4, 3], [20] * 4)
    assert sum(after) == pytest.approx(sum(before))


def test_k_is_40_for_the_first_20_rated_matches_then_20():
    assert [k_factor(n) for n in (0, 19, 20, 100)] == [40, 40, 20, 20]


def test_lengths_must_agree():
    with pytest.raises(ValueError):
        new_ratings([1500, 1500], [1], [40, 40])


def test_docstring_examples():
    assert doctest.testmod(ratings).failed == 0
