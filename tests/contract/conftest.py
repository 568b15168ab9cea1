"""The contract tests run every game of the site and the games made for the tests alone
(``tests/race21``): each module sees them all registered (``GAME_PACKAGES``)."""

import pytest
from django.conf import settings
from django.test import override_settings

#: The game packages made for the tests.
TEST_GAMES = ["tests.race21"]
#: The site's game packages, and with the tests' own.
SITE_GAMES = list(settings.GAME_PACKAGES)
PACKAGES = [*SITE_GAMES, *TEST_GAMES]


@pytest.fixture(autouse=True, scope="module")
def every_game():
    with override_settings(GAME_PACKAGES=PACKAGES):
        yield
