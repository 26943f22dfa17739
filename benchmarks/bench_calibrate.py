"""Calibrate a generic-device scenario of this machine's own disk, then predict held-out
points of the sweep.

1. ``iolab bench run`` sweeps random 4 KiB and 16 KiB reads (libaio, O_DIRECT) over
   iodepth 1, 2, 4, 8, 16, 32 on a temporary directory (on the disk under test), ``--repeat``
   times (a shared machine's load moves single points; every repeat is fitted, and a
   held-out point's error is that of the median of its repeats);
2. ``iolab calibrate`` fits the device's read latency and the client CPU each IO costs to
   the points at iodepth 1, 4, 16 and 32, starting from a deliberately wrong guess;
3. the points at iodepth 2 and 8 are held out: predicted with the calibration, never fitted.

Target: every held-out point's IOPS within 10 % of the measurement (on a quiet machine;
other load on the disk or the cores moves the curve between the sweep's points).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_calibrate.py [--dir DIR] [--runtime 3] [--repeat 1] [--json]

Exit status 0 when the target holds, 1 otherwise. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET = 0.10
DEPTHS = (1, 2, 4, 8, 16, 32)
FIT = (1, 4, 16, 32)
SIZES = ("4k", "16k")

SCENARIO = """\
# This machine's disk as a generic device: a guessed latency, no caps, no CPU cost yet.
version: 1
volumes:
  disk:
    device: {read_latency: 1ms}
jobs:
  - {name: randread, rw: randread, bs: 4k, iodepth: 1, ioengine: libaio, direct: 1, size: 256m}
"""


def _iolab(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "iolab", *args, "--json"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"iolab {' '.join(args[:2])} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def run(directory: Path, runtime: str, repeat: int = 1) -> dict:
    """Sweep (`repeat` times), calibrate on FIT, predict the rest; the calibrate JSON plus the sweeps."""
    with tempfile.TemporaryDirectory(prefix="iolab-calibrate-", dir=directory) as tmp:
        work = Path(tmp)
        scenario = work / "disk.yaml"
        scenario.write_text(SCENARIO)
        db = str(work / "runs.db")
        points = []
        for _ in range(repeat):
            sweep = _iolab("bench", "run", str(scenario), "--target", str(work), "--runtime", runtime, "--ramp", "0.5",
                           "--sweep", f"bs={','.join(SIZES)}", "--sweep", f"iodepth={','.join(map(str, DEPTHS))}",
                           "--db", db)
            points += sweep["points"]
        fit = [str(p["run_id"]) for p in points if p["params"]["iodepth"] in FIT]
        held = [str(p["run_id"]) for p in points if p["params"]["iodepth"] not in FIT]
        doc = _iolab("calibrate", str(scenario), "--runs", ",".join(fit), "--validate", ",".join(held), "--db", db,
                     "--fit", "bandwidth", "-o", str(work / "calibration.yaml"))
        doc["calibration"] = (work / "calibration.yaml").read_text()
        doc["sweep_points"] = points
        return doc


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def held_out(doc: dict) -> list[dict]:
    """Per held-out sweep point: the median measured IOPS of its repeats, the prediction, the error."""
    params = {p["run_id"]: p["params"] for p in doc["sweep_points"]}
    groups: dict[str, list[dict]] = {}
    for row in doc["held_out"]:
        p = params[row["run_id"]]
        groups.setdefault(f"bs={p['bs']}, iodepth={p['iodepth']}", []).append(row)
    out = []
    for label, rows in groups.items():
        measured = _median([r["measured"]["iops"] for r in rows])
        predicted = rows[0]["after"]["iops"]
        out.append({"point": label, "repeats": len(rows), "measured_iops": measured, "predicted_iops": predicted,
                    "error": (predicted - measured) / measured})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()), help="a directory on the disk under test")
    ap.add_argument("--runtime", default="3", help="seconds per sweep point")
    ap.add_argument("--repeat", type=int, default=1, help="run the sweep this many times")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    doc = run(args.dir, args.runtime, max(1, args.repeat))
    held = held_out(doc)
    errors = [abs(p["error"]) for p in held]
    worst, median = max(errors), _median(errors)
    ok = worst <= TARGET
    if args.json:
        print(json.dumps({"worst_held_out_iops_error": worst, "median_held_out_iops_error": median, "target": TARGET,
                          "ok": ok, "load_average": os.getloadavg(), "held_out_points": held, **doc}, indent=2))
        return 0 if ok else 1
    print(f"machine: {platform.node()} ({platform.system()} {platform.release()}), {os.cpu_count()} cores, "
          f"directory {args.dir}, load average {os.getloadavg()[0]:.1f}")
    for p in doc["parameters"]:
        if not p["fixed"]:
            print(f"  {p['name']}: {p['after']:.4g} (±{(p['relative_error'] or 0) * 100:.0f} %"
                  f"{', not identified' if not p['identifiable'] else ''})")
    print(f"{'point':28} {'measured IOPS':>14} {'predicted':>10} {'error':>8}  {'latency meas.':>13} {'pred.':>9}")
    for tag, rows in (("fit", doc["points"]), ("held out", doc["held_out"])):
        for row in rows:
            m, p = row["measured"], row["after"]
            print(f"{tag + ': ' + row['point']:28} {m['iops']:>14,.0f} {p['iops'] or 0:>10,.0f} "
                  f"{row['error_after']['iops'] * 100:>+7.1f}%  {m['latency.mean'] * 1e6:>10.0f} us "
                  f"{(p['latency.mean'] or 0) * 1e6:>6.0f} us")
    for p in held:
        print(f"held-out point {p['point']}: median of {p['repeats']} measured {p['measured_iops']:,.0f} IOPS, "
              f"predicted {p['predicted_iops']:,.0f}: {p['error'] * 100:+.1f} %")
    print(f"held-out IOPS error: median {median * 100:.1f} %, worst {worst * 100:.1f} % (target: every point within "
          f"{TARGET * 100:.0f} %): {'met' if ok else 'NOT met'}")
    for w in doc["warnings"]:
        print(f"warning: {w}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
