"""Speed of ``iolab plan`` over the whole bundled Azure disk catalog: every VM size × every
disk SKU (fixed sizes, Premium SSD v2, Ultra) × every count from 1 to the VM's maximum ×
two host-caching modes, for 40,000 IOPS / 300 MB/s / 10 ms / 4 TiB.

Targets: the whole command (a fresh ``iolab plan FILE`` process: start-up, imports, catalog,
search, ranking, output) under 2 s; the search itself reported in configurations per second.

Run: ``python benchmarks/bench_plan.py`` (or ``make bench``)."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

REQUIREMENTS = """\
version: 1
jobs:
  - {rw: randrw, rwmixread: 70, bs: 8k, iodepth: 32, numjobs: 4, ioengine: libaio}
require: {iops: 40000, bandwidth: 300MB/s, latency: 10ms, capacity: 4TiB}
search:
  kind: disks            # every VM, every SKU, every count
  caching: [none, readonly]
"""


def _iolab() -> list[str]:
    exe = Path(sys.executable).with_name("iolab")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "iolab"]


def whole_command(path: Path, repeat: int = 7) -> tuple[float, float]:
    """Median and worst wall time (seconds) of ``iolab plan PATH`` in a fresh process."""
    cmd = _iolab() + ["plan", str(path)]
    subprocess.run(cmd, check=True, capture_output=True)  # warm the file system cache
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), max(times)


def in_process(path: Path, repeat: int = 7) -> tuple[int, int, float, float]:
    """(configurations evaluated, feasible, median seconds of the search alone, of load + plan)."""
    from iolab.plan import load_requirements, plan

    req = load_requirements(path)
    result = plan(req)
    searches, totals = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        req = load_requirements(path)
        t1 = time.perf_counter()
        plan(req)
        t2 = time.perf_counter()
        searches.append(t2 - t1)
        totals.append(t2 - t0)
    return result.evaluated, result.feasible, statistics.median(searches), statistics.median(totals)


def main() -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numpy as np

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "full-catalog-requirements.yaml"
        path.write_text(REQUIREMENTS)
        evaluated, feasible, search, total = in_process(path)
        median, worst = whole_command(path)
    print(f"configurations evaluated: {evaluated:,} ({feasible:,} feasible)")
    print(f"search and ranking in-process: {search * 1e3:.0f} ms, {evaluated / search:,.0f} configurations/s; "
          f"with loading the requirements and catalog: {total * 1e3:.0f} ms")
    ok = median < 2.0
    print(f"whole command `iolab plan`: median {median:.2f} s, worst {worst:.2f} s (target < 2 s): "
          f"{'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
