"""The Procfile's release step, run on a fresh copy of the repository (its tracked files
alone, as a clone has them: no compiled translations), leaves a site that speaks German."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# It copies the working tree's files: in the parallel run's process that runs the tests that
# write some of them (tests/test_i18n.py).
pytestmark = pytest.mark.xdist_group("working_tree")

# A request in German to the copy, through Django's test client, in a process of its own.
ASK_IN_GERMAN = """
import django
from django.conf import settings
from django.test import Client

django.setup()
print("BASE_DIR", settings.BASE_DIR)
response = Client(HTTP_HOST="localhost").get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="de")
print("STATUS", response.status_code)
print(response.text)
home = Client(HTTP_HOST="localhost").get("/", HTTP_ACCEPT_LANGUAGE="de")
print("HOME", home.status_code)
print(home.text)
"""


def release_command() -> str:
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == "release":
            return command.strip()
    raise AssertionError("the Procfile has no release step")


def fresh_copy(target: Path) -> None:
    """The files git tracks, as they are in the working tree."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in filter(None, listed.stdout.split(b"\0")):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            destination = target / os.fsdecode(name)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)


@pytest.fixture
def clone(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    copy = tmp_path / "site"
    fresh_copy(copy)
    return copy


def test_the_release_step_compiles_the_translations_on_a_fresh_copy(clone, tmp_path):
    assert (clone / "locale/de/LC_MESSAGES/django.po").is_file()
    assert not list(clone.rglob("*.mo"))  # a clone has none: they are not tracked
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'release.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "nmbr9site.settings",
    }
    env.pop("PYTHONPATH", None)
    release = subprocess.run(
        release_command(), shell=True, cwd=clone, env=env, capture_output=True, text=True
    )
    assert release.returncode == 0, release.stderr
    assert (clone / "locale/de/LC_MESSAGES/django.mo").is_file()
    for package in ("games/web/nmbr9", "games/web/nmbrs"):  # each game's own German
        assert (clone / package / "locale/de/LC_MESSAGES/django.mo").is_file()

    served = subprocess.run(
        [sys.executable, "-c", ASK_IN_GERMAN], cwd=clone, env=env, capture_output=True, text=True
    )
    assert served.returncode == 0, served.stderr
    assert f"BASE_DIR {clone}\n" in served.stdout  # the copy's settings, and so its locale/
    assert "STATUS 200" in served.stdout
    assert "Konto erstellen" in served.stdout  # "Create an account": the site's own German
    assert "Create an account" not in served.stdout
    assert "HOME 200" in served.stdout
    assert "Staple die Zahlen" in served.stdout  # a game package's German: NMBR 9's line
