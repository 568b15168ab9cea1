"""The machine's speed at the time of a measurement: how long ``sum(range(10**7))`` takes.

The development machine's speed moves threefold from hour to hour, so every figure is
printed beside this one, taken in the same run, and CPU times are also given as multiples
of it, which compare across hours.
"""

import time


def calibrate(runs: int = 3) -> float:
    """Seconds ``sum(range(10**7))`` takes in this process, the fastest of ``runs``."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        sum(range(10**7))
        best = min(best, time.perf_counter() - started)
    return best
