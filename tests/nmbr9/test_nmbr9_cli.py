import io
import json
import re
import subprocess
import sys
from pathlib import Path

from games.nmbr9.__main__ import check_perft, main

ROOT = Path(__file__).resolve().parents[2]
PERFT = Path(__file__).parent / "data" / "perft.json"


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "games.nmbr9", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_play_prints_levels_and_score():
    result = run("play", "--seed", "7")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        len(re.findall(r"^round +\d+: tile \d -> \d@-?\d+,-?\d+r\d on level \d$", out, re.M)) == 20
    )
    assert "level 0:" in out
    score = int(re.search(r"^score: (\d+)$", out, re.M).group(1))
    assert score > 0
    assert run("play", "--seed", "7").stdout == out


def test_play_with_removed_cards(capsys):
    assert main(["play", "--seed", "3", "--removed", "2"]) == 0
    assert len(re.findall(r"^round", capsys.readouterr().out, re.M)) == 18


def test_play_refuses_bad_removed():
    result = run("play", "--removed", "9")
    assert result.returncode == 2
    assert "must be 0-4" in result.stderr


def test_perft_agrees():
    result = run("perft", str(PERFT))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("200/200 positions agree")


def test_perft_reports_disagreement(tmp_path):
    positions = json.loads(PERFT.read_text())["positions"][:5]
    positions[3] = {**positions[3], "legal": positions[3]["legal"] + 1}
    positions[4] = {**positions[4], "score": 99}
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"positions": positions}))
    assert main(["perft", str(broken)]) == 1
    out = io.StringIO()
    assert check_perft(positions, out) == 2
    text = out.getvalue()
    assert "position 3" in text and "expected" in text and "position 4" in text
    assert "3/5 positions agree" in text


def test_play_with_plusplus_options(capsys):
    argv = ["play", "--seed", "7", "--start-tiles", "--fillers", "--specials", "one,move,reserve"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^start tile S\d@0,0r0$", out, re.M)
    assert "special tiles in play: move, one, reserve" in out
    turns = re.findall(r"^round +\d+: \d -> (.*)$", out, re.M)
    assert len(turns) == 20
    assert all(t.startswith(("place", "fill", "move", "reserve")) for t in turns)
    assert int(re.search(r"^score: (\d+)$", out, re.M).group(1)) > 0
    assert main(argv) == 0 and capsys.readouterr().out == out


def test_play_a_variant(capsys):
    assert main(["play", "--seed", "2", "--variant", "level_to_level"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^round +3: \d \(marker 0\) \d \(marker 1\) -> place ", out, re.M)


def test_play_refuses_bad_options():
    result = run("play", "--specials", "jump")
    assert result.returncode == 2 and "unknown special tile 'jump'" in result.stderr
    result = run("play", "--variant", "two_of_three", "--removed", "2")
    assert result.returncode == 2 and "only in the base game" in result.stderr
