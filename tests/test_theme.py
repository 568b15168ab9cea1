"""The footer's theme switch: a cookie for light or dark, none to follow the system; bad
input changes nothing; a redirect never leaves the site."""

import pytest

pytestmark = pytest.mark.django_db


def test_a_chosen_theme_is_kept_and_marks_every_page(client):
    answer = client.post("/theme/", {"theme": "dark", "next": "/privacy/"})
    assert answer.status_code == 302 and answer["Location"] == "/privacy/"
    assert answer.cookies["theme"].value == "dark"
    page = client.get("/lobby/").content.decode()
    assert '<html lang="en" data-theme="dark">' in page
    assert '<option value="dark" selected>' in page
    assert '<meta name="color-scheme" content="dark">' in page


def test_following_the_system_forgets_the_choice(client):
    client.post("/theme/", {"theme": "light", "next": "/"})
    answer = client.post("/theme/", {"theme": "auto", "next": "/"})
    assert answer.cookies["theme"].value == ""
    page = client.get("/lobby/").content.decode()
    assert "data-theme=" not in page.split(">", 2)[1]
    assert '<meta name="color-scheme" content="light dark">' in page
    assert '<option value="auto" selected>' in page


def test_bad_input_is_refused_and_changes_nothing(client):
    client.post("/theme/", {"theme": "dark", "next": "/"})
    answer = client.post("/theme/", {"theme": "purple", "next": "/"}, HTTP_ACCEPT_LANGUAGE="de")
    assert answer.status_code == 400
    assert "Wähle hell, dunkel oder automatisch." in answer.content.decode()
    assert "theme" not in answer.cookies
    assert 'data-theme="dark"' in client.get("/lobby/").content.decode()
    assert client.get("/theme/").status_code == 405


def test_it_never_sends_the_reader_to_another_site(client):
    answer = client.post("/theme/", {"theme": "dark", "next": "https://elsewhere.example/"})
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert client.cookies["theme"].value == "dark"
