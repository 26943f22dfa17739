"""What ``iolab bench run`` costs over running fio directly, on this machine's local disk.

Runs the same job file alternately through fio and through ``iolab bench run`` (each a
fresh process, as a user would run them; the order flips every round) and compares:

- IOPS: the median over rounds of iolab's IOPS / fio's IOPS must be within 5 % of 1
  (a shared cloud disk's IOPS drift by tens of percent between minutes, so each round's
  pair is compared, and the medians are shown too);
- wall time: iolab's median minus fio's must be under 1 s. ``iolab --version`` is timed
  too: the part of the overhead that is starting Python and loading the CLI.

iolab runs as an installed program does, with Python's bytecode cache (the warm-up run
writes it even when PYTHONDONTWRITEBYTECODE is set in the environment).

Usage (from the repository root; the directory must be on a local disk)::

    .venv/bin/python benchmarks/bench_fio_overhead.py [--rounds 5] [--runtime 5] [--dir DIR] [--json]

Exit status 0 when both bounds hold, 1 otherwise. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IOPS_TOLERANCE = 0.05
WALL_BUDGET = 1.0
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _startup() -> float:
    """Wall seconds of ``iolab --version``: Python's start and the CLI's imports."""
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "iolab", "--version"], capture_output=True, check=True, env=ENV)
    return time.monotonic() - t0


def _iolab(directory: Path, db: Path, runtime: int) -> tuple[float, float, int]:
    """One ``iolab bench run``: (wall seconds, IOPS, run id)."""
    argv = [sys.executable, "-m", "iolab", "bench", "run", "--target", str(directory), "--rw", "randread", "--bs", "4k", "--size", "64m",
            "--ioengine", "psync", "--runtime", str(runtime), "--db", str(db), "--json"]
    t0 = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=ENV)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        raise SystemExit(f"iolab bench run failed: {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    return wall, float(doc["iops"]), int(doc["run_id"])


def _fio(directory: Path, jobfile: Path, out: Path) -> tuple[float, float]:
    """fio itself on the job file iolab ran: (wall seconds, IOPS)."""
    from iolab.fio import parse_output

    argv = [shutil.which("fio") or "fio", "--output-format=json+", f"--output={out}", "--eta=never", str(jobfile)]
    t0 = time.monotonic()
    done = subprocess.run(argv, cwd=directory, capture_output=True, text=True, check=False)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        raise SystemExit(f"fio failed: {done.stderr.strip()}")
    return wall, parse_output(out.read_text(), source=str(out)).total().iops


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="fio/iolab pairs (default 5)")
    parser.add_argument("--runtime", type=int, default=5, help="seconds each run measures (default 5)")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="a directory on the disk to measure "
                        "(default: the current one; a temporary directory is made inside it)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="iolab-overhead-", dir=args.dir))
    try:
        target = work / "target"
        target.mkdir()
        db = work / "results.db"
        _, _, first = _iolab(target, db, 1)  # warm the page cache of the programs; gives the job file
        jobfile = work / "job.fio"
        shown = subprocess.run([sys.executable, "-m", "iolab", "results", "show", str(first), "--jobfile",
                                "--db", str(db)], capture_output=True, text=True, check=True)
        jobfile.write_text(shown.stdout.replace("runtime=1\n", f"runtime={args.runtime}\n"))
        fio_runs, iolab_runs, startups = [], [], []
        for n in range(args.rounds):
            for which in ("fio", "iolab") if n % 2 == 0 else ("iolab", "fio"):
                if which == "fio":
                    fio_runs.append(_fio(target, jobfile, work / "fio.json"))
                else:
                    wall, iops, _ = _iolab(target, db, args.runtime)
                    iolab_runs.append((wall, iops))
            startups.append(_startup())
        left = list(target.iterdir())
    finally:
        shutil.rmtree(work, ignore_errors=True)

    fio_wall = statistics.median(w for w, _ in fio_runs)
    fio_iops = statistics.median(i for _, i in fio_runs)
    io_wall = statistics.median(w for w, _ in iolab_runs)
    io_iops = statistics.median(i for _, i in iolab_runs)
    startup = statistics.median(startups)
    iops_diff = statistics.median(ii / fi for (_, fi), (_, ii) in zip(fio_runs, iolab_runs)) - 1
    overhead = io_wall - fio_wall
    ok = abs(iops_diff) <= IOPS_TOLERANCE and overhead < WALL_BUDGET and not left
    doc = {"rounds": args.rounds, "runtime": args.runtime, "fio": {"iops": fio_iops, "wall": fio_wall},
           "iolab": {"iops": io_iops, "wall": io_wall},
           "pairs": [{"fio": {"iops": fi, "wall": fw}, "iolab": {"iops": ii, "wall": iw}}
                     for (fw, fi), (iw, ii) in zip(fio_runs, iolab_runs)],
           "iops_difference": iops_diff,
           "wall_overhead": overhead, "startup": startup, "files_left": len(left), "ok": ok}
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        for n, ((fw, fi), (iw, ii)) in enumerate(zip(fio_runs, iolab_runs), start=1):
            print(f"round {n}: fio {fi:,.0f} IOPS in {fw:.2f} s, iolab {ii:,.0f} IOPS in {iw:.2f} s")
        print(f"{'':8}{'median IOPS':>14}{'median wall':>14}")
        print(f"{'fio':8}{fio_iops:>14,.0f}{fio_wall:>13.2f}s")
        print(f"{'iolab':8}{io_iops:>14,.0f}{io_wall:>13.2f}s")
        print(f"IOPS: median iolab/fio ratio {iops_diff:+.1%} (bound ±{IOPS_TOLERANCE:.0%}); "
              f"wall overhead {overhead:+.2f} s (bound {WALL_BUDGET:.0f} s), of which starting iolab "
              f"(iolab --version) {startup:.2f} s; files left: {len(left)}")
        print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
