"""Finding a player by the beginning of their name: active accounts and bots, never guests
nor closed accounts, at most ten; a page of its own and a list for htmx."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from games.models import Profile
from games.services.features import closing, search
from games.services.match import bot_seats

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def user(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.com", "a-Long-pa55word")


def names(found) -> list[str]:
    return [u.username for u in found]


def test_the_prefix_is_matched_whatever_the_capitals_and_at_most_ten_by_name(db):
    for name in ["Alma", "albert", "ALF", "bob", "xal"] + [f"al{n:02}" for n in range(12)]:
        user(name)
    found = names(search.players("AL"))
    assert found[:3] == ["al00", "al01", "al02"] and len(found) == search.FOUND == 10
    assert names(search.players("alb")) == ["albert"]
    assert names(search.players(" alm ")) == ["Alma"]
    assert search.players("") == [] and search.players("zz") == []


def test_guests_closed_and_inactive_accounts_are_never_found_bots_are(client, alice):
    guest = Client()
    guest.post(reverse("new_solo"))
    carol = user("closer")
    closing.close(carol)
    inactive = user("asleep")
    inactive.is_active = False
    inactive.save()
    bot = bot_seats.account("easy", "nmbr9")
    assert search.players("guest-") == [] and search.players("closed") == []
    assert search.players("asl") == []
    found = search.players("bot-")
    assert names(found) == [bot.username] and found[0].bot == "easy"
    assert Profile.objects.filter(guest=True).count() == 1


def test_the_reader_is_left_out(alice):
    user("alicia")
    assert names(search.players("ali", alice)) == ["alicia"]


def test_a_prefix_no_name_could_begin_with_is_refused_with_a_word(client):
    response = client.get(reverse("players"), {"q": "a b<"})
    assert response.status_code == 400
    assert "Names have only letters, digits and the signs @ . + - _" in response.text
    assert client.get(reverse("players"), {"q": "x" * 151}).status_code == 400


def test_the_page_and_the_htmx_list(client, alice, bob):
    user("bobby")
    page = client.get(reverse("players"), {"q": "bo"})
    assert page.status_code == 200 and "<html" in page.text and 'value="bo"' in page.text
    assert 'data-name="bob"' in page.text and 'data-name="bobby"' in page.text
    part = client.get(reverse("players"), {"q": "bo"}, **HTMX)
    assert "<html" not in part.text and part.text.startswith("<ul")
    assert f'href="{reverse("profile", args=["bob"])}"' in part.text
    none = client.get(reverse("players"), {"q": "zed"}, **HTMX)
    assert "No player's name begins with “zed”." in none.text
    assert client.get(reverse("players"), **HTMX).text.strip() == ""
    german = client.get(reverse("players"), {"q": "zed"}, HTTP_ACCEPT_LANGUAGE="de")
    assert "Kein Spielername beginnt mit „zed“." in german.text
