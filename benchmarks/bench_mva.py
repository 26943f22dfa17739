"""Speed of exact MVA at large populations: the one-step solution past saturation against
exact MVA climbing every population, in the same run.

The network is the worked example's (Standard_DS13's uncached cap, four P30 striped as
parallel fork members, 2 ms latency); a second network has sixteen connections of equal
demand (it saturates slowly, so exact MVA stops at its step budget and Schweitzer's
approximation finishes). For each, populations 10^3 to 10^8: the time of ``exact_mva``
(median of repeats) and, up to 10^5, the time and answer of exact MVA forced to climb all the
way (``SATURATED`` and ``EXACT_STEPS`` out of reach), with the ratio of the two and the
throughputs' relative difference. Run with ``python -m benchmarks mva`` (or this file); it
exits 1 when a target is missed.

Targets: iodepth 10^8 answers in less than 1 s (aim: milliseconds), and the answers agree
with exact MVA within 0.1 % wherever both run.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from iolab.analytic import mva
from iolab.analytic.mva import exact_mva

NETWORKS = {
    "worked example": (np.array([1 / 25_600, 2e-4, 2e-4, 2e-4, 2e-4]), 0.0016, np.array([1, .25, .25, .25, .25])),
    "sixteen equal connections": (np.full(16, 1e-3), 0.0, None),
}
POPULATIONS = (1_000, 10_000, 100_000, 100_000_000)
FULL_UP_TO = 100_000


def _median(fn, repeat: int) -> tuple[float, object]:
    out = fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples), out


def _climbing_all_the_way(D, Z, N, phi):
    saved = mva.SATURATED, mva.EXACT_STEPS
    mva.SATURATED, mva.EXACT_STEPS = 2.0, 1 << 62
    try:
        return exact_mva(D, Z, N, phi)
    finally:
        mva.SATURATED, mva.EXACT_STEPS = saved


def main() -> dict:
    figures: dict[str, float] = {"load average (1 min)": os.getloadavg()[0]}
    worst_t, worst_diff = 0.0, 0.0
    for name, (D, Z, phi) in NETWORKS.items():
        for N in POPULATIONS:
            t, (X, _) = _median(lambda: exact_mva(D, Z, N, phi), 5)
            figures[f"{name}, N={N:,}: seconds"] = t
            if N == POPULATIONS[-1]:
                worst_t = max(worst_t, t)
            if N <= FULL_UP_TO:
                t0 = time.perf_counter()
                X_full, _ = _climbing_all_the_way(D, Z, N, phi)
                t_full = time.perf_counter() - t0
                diff = abs(X / X_full - 1)
                worst_diff = max(worst_diff, diff)
                figures[f"{name}, N={N:,}: exact MVA all the way (s)"] = t_full
                figures[f"{name}, N={N:,}: speed-up"] = t_full / t
                figures[f"{name}, N={N:,}: throughput difference"] = diff
    figures["slowest answer at N=10^8 (s)"] = worst_t
    figures["largest throughput difference"] = worst_diff
    return figures


TARGETS = {
    "slowest answer at N=10^8 (s)": ("<", 1.0),
    "largest throughput difference": ("<", 1e-3),
}


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from targets import verdict

    sys.exit(verdict(main(), TARGETS, 64))
