"""The site as an installable app: the manifest and its icons, the service worker served
from the site's root, the offline page, and what every page names of them."""

import json
import re
import struct
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import override_settings

from games.views import app

pytestmark = pytest.mark.django_db

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(url: str) -> tuple[int, int]:
    """The width and height a PNG among the static files says it has (its IHDR chunk)."""
    path = finders.find(url.removeprefix(static("")))
    assert path, url
    header = Path(path).read_bytes()[:24]
    assert header[:8] == PNG_SIGNATURE and header[12:16] == b"IHDR", url
    return struct.unpack(">II", header[16:24])


def colour(name: str) -> str:
    """A colour of the site's palette (static/css/site.css)."""
    css = (Path(settings.BASE_DIR) / "static" / "css" / "site.css").read_text()
    return re.search(rf"--{name}: (#[0-9a-f]{{6}});", css).group(1)


def test_the_manifest_names_the_app_its_colours_and_icons(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    assert "max-age=86400" in response["Cache-Control"]
    manifest = json.loads(response.content)
    assert manifest["name"] == "nmbr9site" and manifest["short_name"]
    assert manifest["description"].startswith("Play NMBR 9 and nmbrs! online")
    assert manifest["lang"] == "en"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    assert manifest["background_color"] == colour("paper")
    assert manifest["theme_color"] == colour("ink")
    icons = {(icon["sizes"], icon["purpose"]): icon for icon in manifest["icons"]}
    assert set(icons) == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for (sizes, _purpose), icon in icons.items():
        assert icon["type"] == "image/png"
        assert "x".join(map(str, png_size(icon["src"]))) == sizes


def test_the_manifest_speaks_the_requests_language(client):
    manifest = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="de").json()
    assert manifest["lang"] == "de"
    assert manifest["description"].startswith("Spiele NMBR 9 und nmbrs! online")
    assert manifest["name"] == "nmbr9site"


def test_the_service_worker_is_served_from_the_root_and_never_from_a_cache(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    script = response.content.decode()
    constants = dict(re.findall(r'^const (\w+) = "(.*)";$', script, flags=re.M))
    unescaped = {name: json.loads(f'"{value}"') for name, value in constants.items()}
    assert unescaped == {
        "CACHE": f"offline-{app.offline_version()}",
        "OFFLINE": "/offline/",
        "HOME": "/",
        "ICON": static("icons/icon-192.png"),
        "BADGE": static("icons/badge-96.png"),
    }
    assert png_size(unescaped["ICON"]) == (192, 192)
    assert png_size(unescaped["BADGE"]) == (96, 96)
    assert client.post("/sw.js").status_code == 405


def test_the_workers_cache_is_named_after_what_the_offline_page_is_made_of():
    before = app.offline_version()
    with override_settings(STATIC_URL="/assets/"):  # another stylesheet address
        assert app.offline_version() != before
    assert app.offline_version() == before


@pytest.mark.parametrize(
    "language, heading, retry",
    [("en", "You are offline", "Try again"), ("de", "Du bist offline", "Noch einmal versuchen")],
)
def test_the_offline_page_in_each_language(client, language, heading, retry):
    response = client.get("/offline/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    page = response.content.decode()
    assert f"<h1>{heading}</h1>" in page
    assert f'<a class="button" href="" data-retry>{retry}</a>' in page


def test_every_page_names_the_manifest_its_colour_and_a_touch_icon(client):
    response = client.get("/")
    page = response.content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest"' in page
    assert f'<meta name="theme-color" content="{colour("ink")}">' in page
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', page).group(1)
    assert png_size(touch) == (180, 180)
    policy = response["Content-Security-Policy"]
    assert "worker-src 'self'" in policy and "manifest-src 'self'" in policy


def test_the_offline_page_speaks_the_language_asked_for(client):
    german = client.get("/offline/?language=de", HTTP_ACCEPT_LANGUAGE="en")
    assert german["Content-Language"] == "de" and 'lang="de"' in german.text
    assert "offline" in german.text.lower() and "You are offline" not in german.text
    unknown = client.get("/offline/?language=xx", HTTP_ACCEPT_LANGUAGE="en")
    assert unknown["Content-Language"] == "en" and "You are offline" in unknown.text
