"""Start-up of the command line: ``iolab --version``, ``iolab check``, ``iolab predict`` and
``iolab plan`` as whole commands (a fresh process each), against the floor every Typer + Rich
command line pays (``python -c "import typer, rich"``) and against the code before the
start-up work (a temporary ``git worktree`` of ``--base``, removed afterwards).

The machine this runs on is often shared and busy, so each figure is the CPU time (user +
system, ``getrusage(RUSAGE_CHILDREN)``) of the child process, the minimum of several runs,
and the result is reported as ratios measured in the same run. Byte code is written (as
an installed package has it) and a warm-up run precedes the measured ones, so the catalog
cache and ``.pyc`` files exist.

Target: ``--version`` within 2× the floor. ``check``, ``predict`` and ``plan`` are reported;
see ``docs/performance.md`` for what they cost and why.

Run: ``python benchmarks/bench_startup.py [--base REF] [--runs N]`` (or
``python -m benchmarks startup``)."""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The last commit before the start-up work: the code path the ratios compare against.
DEFAULT_BASE = "14eaaf5"
COMMANDS = [
    ("--version", ["--version"]),
    ("check", ["check", "examples/oltp-ds13-p30.yaml"]),
    ("predict", ["predict", "examples/oltp-ds13-p30.yaml"]),
    ("plan", ["plan", "examples/oltp-requirements.yaml"]),
]


def cpu_seconds(cmd: list[str], env: dict[str, str], runs: int) -> float:
    """The least CPU time (user + system, seconds) of `runs` runs of `cmd`, after one warm-up."""
    subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def environment(source: Path, cache: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(source / "python"), XDG_CACHE_HOME=str(cache), COLUMNS="120")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def base_tree(ref: str, where: Path) -> Path | None:
    """A checkout of `ref` in `where` (with the simulator extension copied in), or None."""
    done = subprocess.run(["git", "worktree", "add", "--detach", str(where), ref], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"base {ref}: not measured ({done.stderr.strip()})")
        return None
    for ext in (ROOT / "python" / "iolab").glob("_sim*.so"):
        shutil.copy(ext, where / "python" / "iolab" / ext.name)
    return where


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default=DEFAULT_BASE, help="git ref of the code to compare against ('' for none)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load {load:.1f}; CPU seconds, least of {args.runs} runs")
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        env = environment(ROOT, cache)
        floor = cpu_seconds([py, "-c", "import typer, rich"], env, args.runs)
        print(f"floor  python -c 'import typer, rich': {floor:.3f} s")
        base = base_tree(args.base, Path(tmp) / "base") if args.base else None
        ok = True
        try:
            for name, cmd in COMMANDS:
                now = cpu_seconds([py, "-m", "iolab", *cmd], env, args.runs)
                line = f"iolab {name:<10} {now:.3f} s = {now / floor:.2f}× the floor"
                if base is not None:
                    before = cpu_seconds([py, "-m", "iolab", *cmd], environment(base, cache), args.runs)
                    line += f"; before: {before:.3f} s = {before / floor:.2f}× ({before / now:.2f}× as long as now)"
                if name == "--version":
                    met = now <= 2 * floor
                    ok = ok and met
                    line += f" (target ≤ 2×: {'ok' if met else 'MISSED'})"
                print(line, flush=True)
        finally:
            if base is not None:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
