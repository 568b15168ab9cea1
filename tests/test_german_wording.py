"""The German of the site says "du" to everybody, and the tournaments' words keep one meaning
each: "Status" is a tournament's state, "Tabelle" its standings, "Spiel" a game of a
duplicate and "Partie" a table of a swiss."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from games.models import Tournament
from games.services.features import tournaments

ROOT = Path(settings.BASE_DIR)
CATALOGUES = [ROOT / "locale/de/LC_MESSAGES/django.po"] + sorted(
    ROOT.glob("games/web/*/locale/de/LC_MESSAGES/django.po")
)
#: The polite "Sie" and "Ihr" (capitalised anywhere, even where "sie"/"ihr" is meant).
FORMAL = re.compile(r"\b(Sie|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres|Ihnen)\b")


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_german_message_reads_as_the_formal_sie(path):
    formal = []
    for message in read_po(path.open("rb"), locale="de"):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        formal += [text for text in strings if text and FORMAL.search(text)]
    assert formal == []


@pytest.mark.django_db
def test_a_duplicate_reads_status_tabelle_and_spiel_in_german(client, alice, bob):
    tournament = tournaments.create(
        alice,
        name="Pokal",
        game="nmbr9",
        games=2,
        window="1d",
        starts=timezone.now() + timedelta(hours=1),
        open=True,
    )
    tournaments.join(tournament.pk, bob)
    Tournament.objects.filter(pk=tournament.pk).update(starts=timezone.now())
    tournaments.start(tournament.pk)
    client.force_login(alice)
    page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Status:" in page and ">Tabelle</h2>" in page and "Stand" not in page
    assert "Spiel 1 spielen" in page and "2 Spiele" in page and "Partie" not in page
    listed = client.get(reverse("tournaments"), HTTP_ACCEPT_LANGUAGE="de").text
    assert "Stand" not in listed and "dieselben Spiele" in listed


def test_a_duplicates_game_is_a_spiel_in_every_german_message():
    """The reminders of a duplicate's game that closes soon (page and e-mail) say "Spiel",
    as its page does; "Partie" is a swiss's table."""
    messages = read_po((ROOT / "locale/de/LC_MESSAGES/django.po").open("rb"), locale="de")
    about_a_game = [
        m
        for m in messages
        if m.id and re.search(r"[Gg]ame %\(number\)s of %\(tournament\)s", str(m.id))
    ]
    assert len(about_a_game) >= 3
    for message in about_a_game:
        assert "Spiel %(number)s" in message.string and "Partie" not in message.string, message.id


@pytest.mark.django_db
def test_no_cards_removed_is_said_as_a_number_not_none(client, alice):
    client.force_login(alice)
    for language, words in (("en", "0 (none)"), ("de", "0 (keine)")):
        page = client.get(reverse("new_tournament"), HTTP_ACCEPT_LANGUAGE=language).text
        chosen = re.search(r'<select name="removed".*?</select>', page, flags=re.S).group()
        assert f'value="0" selected>{words}</option>' in chosen
        assert ">None<" not in chosen and ">-<" not in chosen
