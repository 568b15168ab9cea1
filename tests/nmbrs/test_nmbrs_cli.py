"""The command line: ``python -m games.nmbrs play`` prints a whole match by the policy."""

import io
import re
import subprocess
import sys
from pathlib import Path

from games.nmbrs import Options
from games.nmbrs.__main__ import main, play

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "games.nmbrs", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_play_prints_every_move_each_deal_and_the_winner():
    result = run("play", "--seed", "7", "--players", "3")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    moves = re.findall(r"^  player [123]: (.+)$", out, re.M)
    assert moves and all(
        re.fullmatch(
            r"(take|pass|draw|done|(lay|extend|insert|cross|join|swap|discard) .+)"
            r"( \(\+\d+\)| \(offered\))?",
            move,
        )
        for move in moves
    )
    deals = re.findall(r"^deal (\d+): player ([123]) starts", out, re.M)
    assert [int(d) for d, _ in deals] == list(range(1, len(deals) + 1))
    assert [int(p) for _, p in deals] == [1 + i % 3 for i in range(len(deals))]
    assert len(re.findall(r"^deal \d+ ends: ", out, re.M)) == len(deals)
    last = re.search(r"^game over after (\d+) moves: (.+) won; (.+)$", out, re.M)
    assert int(last.group(1)) == len(moves)
    scores = [int(s) for s in re.findall(r"player \d: (-?\d+)", last.group(3))]
    assert max(scores) >= 100
    assert run("play", "--seed", "7", "--players", "3").stdout == out


def test_play_with_options():
    out = io.StringIO()
    moves = play(3, 4, Options(simplified=True, advanced=True, target=30), out)
    text = out.getvalue()
    assert moves == len(re.findall(r"^  player", text, re.M))
    assert ": discard" not in text and ": done" in text
    assert main(["play", "--seed", "1", "--target", "60"]) == 0


def test_play_refuses_bad_arguments():
    assert run("play", "--players", "9").returncode == 2
    result = run("play", "--target", "0")
    assert result.returncode == 2 and "must be a whole number of 1 or more" in result.stderr
