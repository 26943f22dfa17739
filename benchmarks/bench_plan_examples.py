"""Speed of ``iolab plan`` on every requirements file in examples/, as a whole command.

Target: each example planned within 0.7 s (a fresh ``iolab plan FILE`` process: start-up,
imports, catalog from its cached copy, search, ranking, explanations, output), in two
regions of its cloud (East US and West Europe; us-central1 and europe-west1; AWS's
us-east-1, the one region where every EC2 type and EBS volume type has a price).

The machine this runs on is often shared, so every figure is CPU time (user + system of
the child process, ``getrusage(RUSAGE_CHILDREN)``), the least of several runs after a
warm-up that fills the catalog cache (a temporary directory). The code of ``--base`` (a
``git archive`` of that commit's python/ in a temporary directory, with the simulator
extension copied in) is measured in the same run, file by file, for the ratios; the
answers of both are compared too (the same first candidate and cost).

The target was set on a machine where the code before the plan service (``--base``'s
default) planned ``sql-workloads-requirements.yaml`` in 2 s and the other examples of the
day (any, oltp, p99, pool, share) in 0.6 s. This machine's speed relative to that one is
the median, over those examples, of the base's time here over that reference; each example is also shown
scaled by it (the time it would take there), and meets the target when that is within
0.7 s. Both the figure here and the scaled one are printed. With another ``--base`` (or
none) the figures here are judged as they are.

``--instructions`` counts each command's instructions instead (Valgrind's callgrind, one run
after the warm-up, ``PYTHONHASHSEED=0``): a deterministic figure for comparing two versions
on a shared machine, where CPU time of single processes varies by ±20 %. It judges no target.

Run: ``python benchmarks/bench_plan_examples.py [--base REF] [--runs N] [--only NAME] [--instructions]``."""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_startup import cpu_seconds, environment  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# The code before the plan service: the ratios compare against it.
DEFAULT_BASE = "74f1c01"
TARGET = 0.7  # CPU seconds per example, the whole command
#: what the base took where the target was set (seconds), for the examples of the day:
#: sql-workloads 2 s, the others 0.6 s
REFERENCE = {"sql-workloads-requirements.yaml": 2.0, **{f"{name}-requirements.yaml": 0.6
                                                       for name in ("any", "oltp", "p99", "pool", "share")}}


#: the regions each cloud's examples are planned in
REGIONS = {"azure": ("eastus", "westeurope"), "gcp": ("us-central1", "europe-west1"), "aws": ("us-east-1",)}


def regions(path: Path) -> tuple[str, ...]:
    from iolab.plan import load_requirements

    return REGIONS[load_requirements(path).cloud or "azure"]


def examples() -> list[Path]:
    sys.path.insert(0, str(ROOT / "python"))
    from iolab.filekind import sniff

    return [p for p in sorted((ROOT / "examples").glob("*.yaml")) if sniff(p) == "requirements"]


def base_copy(ref: str, where: Path) -> Path | None:
    """The python/ tree of `ref` unpacked in `where` (the simulator extension copied in), or None."""
    archive = subprocess.run(["git", "archive", ref, "python"], cwd=ROOT, capture_output=True)
    if archive.returncode != 0:
        print(f"base {ref}: not measured ({archive.stderr.decode().strip()})")
        return None
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
    for ext in (ROOT / "python" / "iolab").glob("_sim*.so"):
        shutil.copy(ext, where / "python" / "iolab" / ext.name)
    return where


def answer(cmd: list[str], env: dict[str, str]) -> tuple:
    """The first candidate's cost and configuration of a ``plan --json`` run."""
    out = subprocess.run(cmd + ["--json"], cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    first = (json.loads(out).get("candidates") or [{}])[0]
    return first.get("monthly_cost"), json.dumps(first.get("config"), sort_keys=True)


def instructions(cmd: list[str], env: dict[str, str], runs: int) -> float:
    """Millions of instructions `cmd` executes (Valgrind's callgrind), after one warm-up run."""
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", *cmd], cwd=ROOT,
                              env={**env, "PYTHONHASHSEED": "0"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, check=True)
    counted = re.search(r"Collected : (\d+)", done.stderr)
    if counted is None:
        raise SystemExit(f"valgrind counted nothing: {done.stderr[-500:]}")
    return int(counted.group(1)) / 1e6


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=DEFAULT_BASE, help="git ref of the code to compare against ('' for none)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", action="append", default=[], help="only this example (repeatable)")
    ap.add_argument("--instructions", action="store_true", help="count instructions (Valgrind) instead of CPU time")
    args = ap.parse_args(argv)
    measure = instructions if args.instructions else cpu_seconds
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load {load:.1f}; " + ("millions of instructions" if args.instructions else
                                   f"CPU seconds, least of {args.runs} runs; target {TARGET} s per example"))
    py = sys.executable
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        env = environment(ROOT, Path(tmp) / "cache")
        base = base_copy(args.base, Path(tmp)) if args.base else None
        base_env = environment(base, Path(tmp) / "base-cache") if base is not None else None
        print(f"{'example':42} {'region':11} {'now':>7} {'before':>7} {'ratio':>6}  same answer")
        rows = []
        for path in examples():
            if args.only and path.name not in args.only and path.stem not in args.only:
                continue
            for region in regions(path):
                cmd = [py, "-m", "iolab", "plan", str(path.relative_to(ROOT)), "--region", region]
                now = measure(cmd, env, args.runs)
                before, same = float("nan"), None
                if base_env is not None:
                    try:
                        before = measure(cmd, base_env, args.runs)
                        same = answer(cmd, env) == answer(cmd, base_env)
                    except subprocess.CalledProcessError:  # an example newer than the base
                        pass
                rows.append((path.name, region, now, before))
                print(f"{path.name:42} {region:11} {now:7.3f} {before:7.3f} {before / now:6.2f}  {same}", flush=True)
    if args.instructions:
        return 0
    # the reference times are those of the default base: another base (or none) is judged here
    factors = sorted(before / REFERENCE[name] for name, _, _, before in rows
                     if args.base == DEFAULT_BASE and before == before and name in REFERENCE)
    factor = factors[len(factors) // 2] if factors else 1.0
    if factors:
        print(f"this machine runs the base {factor:.2f}x as long as the machine the target was set on "
              f"(median of {len(factors)}: {factors[0]:.2f}-{factors[-1]:.2f}); scaled there:")
    for name, region, now, _ in rows:
        scaled = now / factor
        mark = "" if scaled <= TARGET else "  over the target"
        if scaled > TARGET:
            failed.append(f"{name} {region}")
        print(f"{name:42} {region:11} {now:7.3f} here {scaled:7.3f} there{mark}")
    if failed:
        print(f"over {TARGET} s: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
