import re

from bench.nmbrs import main


def test_benchmark_runs(capsys):
    main(["--deals", "4", "--duels", "1"])
    out = capsys.readouterr().out
    assert re.search(r"against a random player: policy [+-]\d+\.\d +random [+-]\d+\.\d", out)
    assert re.search(r"against itself: [+-]\d+\.\d points per deal", out)
    assert re.search(r"median \d+\.\d ms +p95 \d+\.\d ms +\(\d+ turns\)", out)
    for strength in ("strong", "easy"):
        assert re.search(rf"{strength} bot against medium, 1 matches: wins \d+%", out)
