import re

from bench.movegen import main


def test_benchmark_runs(capsys):
    main(["--repeat", "1", "--games", "2"])
    out = capsys.readouterr().out
    assert re.search(r"median \d+\.\d+ ms +p95 \d+\.\d+ ms", out)
    for relax in ("one", "bridge", "loose", "bridge\\+loose\\+one"):
        assert re.search(rf"relax {relax} +median \d+\.\d+ ms .* \d+\.\d+x the plain median", out)
    assert "level_of" in out
    assert re.search(r"average score \d+\.\d+", out)


def test_par_benchmark_runs(capsys):
    from bench.par import main as par_main

    par_main(["--puzzles", "2", "--beam", "2", "--branch", "2"])
    out = capsys.readouterr().out
    assert re.search(r"median \d+\.\d+ s +p95 \d+\.\d+ s per puzzle", out)
    assert re.search(r"average par \d+\.\d+ +policy alone \d+\.\d+", out)


def test_plusplus_benchmark_runs(capsys):
    from bench.plusplus import main as plusplus_main

    plusplus_main(["--games", "1"])
    out = capsys.readouterr().out
    for label in ("base", "gap fillers", "all modules", "2 of 3", "level to level, all modules"):
        assert re.search(rf"^  {label} +\d+\.\d+ +\d+\.\d+ +\d+\.\d+ +\d+\.\d+$", out, re.M)


def test_bots_benchmark_runs(capsys):
    from bench.bots import main as bots_main

    bots_main(["--games", "2", "--strong-games", "0", "--pars", "0", "--processes", "1"])
    out = capsys.readouterr().out
    for strength in ("easy", "medium"):
        assert re.search(
            rf"^{strength} +2 games: average \d+\.\d +per move median \d+\.\d ms, p95", out, re.M
        )
    assert "strong" not in out and "par " not in out


def test_kernel_benchmark_runs(capsys):
    from bench.kernel import main as kernel_main
    from games.nmbr9 import kernel

    kernel_main(
        [
            "--repeat",
            "1",
            "--games",
            "1",
            "--strong-games",
            "0",
            "--pars",
            "1",
            "--par-effort",
            "0.05",
        ]
    )
    out = capsys.readouterr().out
    if kernel.KERNEL is None:
        assert "nothing to compare" in out
        return
    assert re.search(r"scored_moves\): pure Python \d+\.\d+ µs +kernel \d+\.\d+ µs", out)
    assert re.search(r"same values: yes", out) and "same best: yes" in out
    assert "same placements: yes" in out
    assert re.search(r"^medium bot, 1 seeded games .*average \d+\.\d$", out, re.M)
    assert re.search(r"speed-up \d+\.\dx +same games: yes", out)
    assert "strong" not in out
    assert re.search(r"speed-up \d+\.\dx +same result: yes", out)
