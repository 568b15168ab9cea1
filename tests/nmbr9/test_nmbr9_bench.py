import re

from bench.movegen import main


def test_benchmark_runs(capsys):
    main(["--repeat", "1", "--games", "2"])
    out = capsys.readouterr().out
    assert re.search(r"median \d+\.\d+ ms +p95 \d+\.\d+ ms", out)
    assert "level_of" in out
    assert re.search(r"average score \d+\.\d+", out)
