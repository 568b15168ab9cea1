"""The contract tests run every game of the site and the games made for the tests alone
(``tests/race21``): each module sees them all registered (``GAME_PACKAGES``)."""

import pytest
from django.test import override_settings

from tests.factories import PACKAGES


@pytest.fixture(autouse=True, scope="module")
def every_game():
    with override_settings(GAME_PACKAGES=PACKAGES):
        yield
