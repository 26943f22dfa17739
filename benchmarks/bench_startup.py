"""Start-up of the command line: ``iolab --version``, ``iolab check``, ``iolab predict`` and
``iolab plan`` as whole commands (a fresh process each), against the floor every Typer + Rich
command line pays (``python -c "import typer, rich"``) and against the code before the
start-up work (a temporary ``git worktree`` of ``--base``, removed afterwards).

The machine this runs on is often shared and busy, so each figure is the CPU time (user +
system, ``getrusage(RUSAGE_CHILDREN)``) of the child process, the minimum of several runs,
and the result is reported as ratios measured in the same run. Byte code is written (as
an installed package has it) and a warm-up run precedes the measured ones, so the catalog
cache and ``.pyc`` files exist.

Targets: ``--version``, ``check`` and ``predict`` within 2× the floor (``plan`` is reported);
the exit status is 1 when ``--version`` misses it. ``--phases`` also shows where the CPU time
of ``check``, ``predict`` and ``plan`` goes: a fresh process imports each group of modules in the order
the command needs them, then runs the command, timing each step with ``time.process_time``
(least of the runs for each step); see ``docs/performance.md`` for what they cost and why.

Run: ``python benchmarks/bench_startup.py [--base REF] [--runs N] [--phases]`` (or
``python -m benchmarks startup``)."""

from __future__ import annotations

import argparse
import json
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


# Steps of a command's start-up, in the order it needs them: (label, modules imported).
PHASES = [
    ("Typer and Rich (the floor's imports)", ["typer", "rich"]),
    ("iolab's command line (Rich console, the command's module)", ["iolab.cli", "iolab.cli.{command}"]),
    ("pydantic (BaseModel, fields, types, validators)", ["pydantic", "pydantic.main", "pydantic.fields",
                                                         "pydantic.types", "pydantic.functional_validators"]),
    ("PyYAML", ["yaml"]),
    ("iolab's input models (schema, catalog, fio jobs, scenario)", ["iolab.schema", "iolab.catalog",
                                                                    "iolab.fio", "iolab.scenario"]),
    ("numpy", ["numpy"]),
    ("the model (network, compiler, analytic, prediction)", ["iolab.network", "iolab.compile.disks",
                                                              "iolab.analytic", "iolab.prediction"]),
    ("the planner (requirements, search, ranking)", ["iolab.plan"]),
]
PHASE_COMMANDS = {"check": (["check", "examples/oltp-ds13-p30.yaml"], 5),
                  "predict": (["predict", "examples/oltp-ds13-p30.yaml"], 7),
                  "plan": (["plan", "examples/oltp-requirements.yaml"], 8)}
# A child process's first lines: PHASES imported step by step, each step's CPU time marked.
IMPORTS = """
import contextlib, importlib, io, json, sys, time
marks = [("Python itself (interpreter start-up)", time.process_time())]
for label, modules in PHASES:
    for m in modules:
        importlib.import_module(m)
        if m == "iolab.cli":  # the console script's settings, before pydantic and numpy load
            importlib.import_module("iolab.cli.process").prepare()
    marks.append((label, time.process_time()))
"""
_CHILD = IMPORTS + """
import atexit, iolab.cli


@atexit.register
def report():  # the console script leaves at once after the command, running exit handlers
    marks.append(("the command itself (arguments, catalog copy, reading and validating the file, the work, output)",
                  time.process_time()))
    steps = [(label, t - (marks[i - 1][1] if i else 0.0)) for i, (label, t) in enumerate(marks)]
    sys.__stdout__.write(json.dumps(steps) + "\\n")
    sys.__stdout__.flush()


sys.argv = ["iolab", *ARGV]
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    iolab.cli.main()
"""


def phases(name: str, env: dict[str, str], runs: int, floor: float | None, argv: list[str] | None = None) -> None:
    """Where `iolab NAME`'s CPU time goes (see the module's docstring); ``argv`` replaces the
    command's own arguments. Without a ``floor``, each step's share of the total is shown."""
    own, steps = PHASE_COMMANDS[name]
    argv = argv or own
    plan = [(label, [m.format(command=name) for m in modules]) for label, modules in PHASES[:steps]]
    code = f"PHASES = {plan!r}\nARGV = {argv!r}\n" + _CHILD
    least: dict[str, float] = {}
    for _ in range(runs + 1):  # the first run writes byte code and the catalog copy
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                             check=True).stdout
        for label, seconds in json.loads(out.splitlines()[-1]):
            least[label] = min(least.get(label, float("inf")), seconds) if _ else float("inf")
    print(f"where `iolab {' '.join(argv)}` spends its CPU time (ms, least of {runs} runs per step):")
    total = sum(least.values())
    for label, seconds in [*least.items(), ("total of the steps", total)]:
        share = f"{seconds / floor:4.2f}× the floor" if floor else f"{seconds / total:6.1%} of the total"
        print(f"  {seconds * 1000:6.1f} ms = {share}  {label}")


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
    ap.add_argument("--phases", action="store_true", help="also show where check's, predict's and plan's CPU time goes")
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
                if name != "plan":
                    met = now <= 2 * floor
                    ok = ok and (met or name != "--version")
                    line += f" (target ≤ 2×: {'ok' if met else 'MISSED'})"
                print(line, flush=True)
        finally:
            if base is not None:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
        if args.phases:
            for name in PHASE_COMMANDS:
                phases(name, env, args.runs, floor)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
