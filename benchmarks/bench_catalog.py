"""Start-up cost of the catalog: does a catalog ten times larger slow every command?

Measures the CPU time (user + system, least of several runs: on a shared machine wall time
mostly measures the other work) of whole commands in fresh processes, all in one run:

- ``iolab predict examples/oltp-ds13-p30.yaml`` with the bundled catalog, and with a copy of
  the package whose catalog has ten times the VM sizes (each size repeated under ten new
  ids) and a price table ten times longer;
- ``iolab plan`` over the whole bundled catalog (the requirements of ``bench_plan.py``);

each once as before the prebuilt catalog cache ("cold": ``XDG_CACHE_HOME`` pointing where
nothing can be written, so the YAML files are read and validated every time) and once
after ("warm": the cache written by a first run). The price table is read only by commands
that need prices, so ``predict`` never reads it.

Target: ``predict`` on the ten-times catalog with a warm cache within 10 % of ``predict``
on the bundled catalog (a larger catalog does not slow every command).

Run: ``python benchmarks/bench_catalog.py`` (or ``python -m benchmarks catalog``)."""

from __future__ import annotations

import copy
import csv
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_plan import REQUIREMENTS  # noqa: E402

SCENARIO = ROOT / "examples" / "oltp-ds13-p30.yaml"


def _copy_package(dest: Path) -> Path:
    shutil.copytree(ROOT / "python", dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _enlarge(python_dir: Path, factor: int = 10) -> int:
    """Repeat every VM size ``factor`` times (new ids) and the price table's VM rows likewise."""
    data = python_dir / "iolab" / "catalog" / "data"
    vms = yaml.safe_load((data / "vms.yaml").read_text())["vms"]
    # each copy its own object: a row repeated as one object would be written as YAML aliases
    big = {f"{ident}_x{i}" if i else ident: copy.deepcopy(row) for ident, row in vms.items() for i in range(factor)}
    (data / "vms.yaml").write_text(yaml.safe_dump({"vms": big}, sort_keys=False))
    table = data / "prices" / "prices.csv"
    rows = list(csv.reader(table.open()))
    with table.open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(rows[0])
        for row in rows[1:]:
            for i in range(factor if row[0] == "vms" else 1):
                writer.writerow([row[0], f"{row[1]}_x{i}" if i else row[1], *row[2:]])
    return len(big)


def _run(cmd: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one fresh process running ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(repeat: int = 7) -> int:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()}, "
          f"Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("")
        cold = str(blocker / "cache")  # nothing can be written under a regular file
        base = _copy_package(tmp_path / "base")
        large = _copy_package(tmp_path / "large")
        sizes = _enlarge(large)
        req = tmp_path / "requirements.yaml"
        req.write_text(REQUIREMENTS)
        predict = ["predict", str(SCENARIO), "--json"]
        rows = [
            ("predict, bundled catalog", predict, base),
            (f"predict, 10x catalog ({sizes} VM sizes)", predict, large),
            ("plan, whole bundled catalog", ["plan", str(req), "--json"], base),
        ]
        runs = []  # (name, "cold"/"warm", command, env)
        for name, args, python_dir in rows:
            for kind, cache in (("cold", cold), ("warm", str(tmp_path / f"cache-{python_dir.name}"))):
                env = dict(os.environ, PYTHONPATH=str(python_dir), XDG_CACHE_HOME=cache)
                cmd = [sys.executable, "-m", "iolab", *args]
                _run(cmd, env)  # warm the OS's file cache, and write ours
                runs.append((name, kind, cmd, env))
        samples: dict[tuple[str, str], list[float]] = {}
        for _ in range(repeat):  # interleaved, so that load from other work hits every case alike
            for name, kind, cmd, env in runs:
                samples.setdefault((name, kind), []).append(_run(cmd, env))
        results = {}
        print("CPU seconds (user + system) of the whole command, least of", repeat, "runs")
        print(f"{'command':44} {'cold cache (s)':>15} {'warm cache (s)':>15} {'warm/cold':>10}")
        for name, _, _ in rows:
            t_cold, t_warm = min(samples[(name, "cold")]), min(samples[(name, "warm")])
            results[name] = (t_cold, t_warm)
            print(f"{name:44} {t_cold:15.3f} {t_warm:15.3f} {t_warm / t_cold:10.2f}")
    base_warm = results["predict, bundled catalog"][1]
    large_warm = next(v for k, v in results.items() if k.startswith("predict, 10x"))[1]
    ratio = large_warm / base_warm
    ok = ratio <= 1.10
    print(f"predict with the 10x catalog / with the bundled one (warm caches): {ratio:.2f} "
          f"(target <= 1.10): {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
