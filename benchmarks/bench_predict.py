"""Speed of the analytic engine: one prediction in-process for every example (target: the
largest under 10 ms) and bulk open-model evaluation (target: at least 1,000,000
configurations per second on one core).

Run: ``python benchmarks/bench_predict.py`` (or ``make bench``)."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent


def _median_seconds(fn, repeat: int) -> float:
    fn()  # warm caches (catalog, imports)
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def bench_examples(repeat: int = 50) -> list[tuple[str, float, float, int]]:
    from iolab.compile import compile_scenario
    from iolab.prediction import predict
    from iolab.filekind import kind_of_data
    from iolab.scenario import load_scenario

    rows = []
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        if kind_of_data(yaml.safe_load(path.read_text())) != "scenario":  # requirements, catalogs, calibrations
            continue
        s = load_scenario(path)
        size = sum(len(compile_scenario(s).classes) for _ in [0]), len(compile_scenario(s).resources)
        t_predict = _median_seconds(lambda: predict(s), repeat)
        t_load = _median_seconds(lambda: predict(load_scenario(path)), max(5, repeat // 5))
        rows.append((path.name, t_predict, t_load, size[0] * 1000 + size[1]))
    return rows


def bench_bulk(n: int = 1_000_000, k: int = 8, rounds: int = 5) -> float:
    """Configurations per second of the vectorised open model (n configs × k caps)."""
    from iolab.analytic import open_model

    rng = np.random.default_rng(1)
    D = rng.uniform(1e-6, 1e-4, size=(n, k))
    Z = rng.uniform(1e-4, 2e-3, size=n)
    lam = rng.uniform(1e3, 2e4, size=n)
    open_model(D[:1000], Z[:1000], lam[:1000])
    best = min(_time(lambda: open_model(D, Z, lam)) for _ in range(rounds))
    return n / best


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}")
    rows = bench_examples()
    print(f"{'example':40} {'predict (ms)':>13} {'load+predict (ms)':>18}")
    for name, t, tl, _ in rows:
        print(f"{name:40} {t * 1e3:13.3f} {tl * 1e3:18.3f}")
    worst = max(rows, key=lambda r: r[1])
    print(f"slowest prediction: {worst[0]} {worst[1] * 1e3:.3f} ms (target < 10 ms): "
          f"{'ok' if worst[1] < 0.010 else 'MISSED'}")
    rate = bench_bulk()
    print(f"bulk open model: {rate:,.0f} configurations/s on one core (target >= 1,000,000): "
          f"{'ok' if rate >= 1e6 else 'MISSED'}")
    return 0 if worst[1] < 0.010 and rate >= 1e6 else 1


if __name__ == "__main__":
    sys.exit(main())
