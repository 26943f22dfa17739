"""Start-up stays cheap: importing the command line, and running ``--version``, pull in none
of the heavy libraries or models that only some commands need (see docs/performance.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# numpy, matplotlib, SQLite, YAML and pydantic (with the schema and catalog models built on
# it), the models themselves and the catalog data: none is needed to parse a command line.
HEAVY = ["numpy", "matplotlib", "sqlite3", "yaml", "pydantic", "pydantic_core", "importlib.metadata",
         "iolab.schema", "iolab.scenario", "iolab.catalog", "iolab.catalog.loader", "iolab.analytic",
         "iolab.network", "iolab.prediction", "iolab.plan", "iolab.sim", "iolab.bench", "iolab.fio",
         "iolab._sim"]


def _loaded(code: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, env=env, cwd=ROOT, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_importing_the_command_line_loads_no_heavy_module():
    loaded = _loaded("import iolab.cli")
    assert "iolab.cli" in loaded and "typer" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_version_loads_no_heavy_module_and_prints_the_installed_version():
    code = ("import io, contextlib, iolab.cli\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            "    from iolab.cli.common import run\n"
            "    assert run(iolab.cli.app, ['--version']) == 0\n"
            "assert buf.getvalue().startswith('iolab '), buf.getvalue()\n")
    loaded = _loaded(code)
    assert sorted(loaded & set(HEAVY)) == []


def test_every_command_still_builds_its_help(iolab):
    """Only the invoked command's tree is built: each command's own help still comes out
    whole, and the root help lists them all."""
    root = iolab("--help")
    assert root.code == 0
    for name in ("catalog", "check", "predict", "simulate", "plan", "bench", "results", "characterize", "doctor"):
        assert name in root.out
        r = iolab(f"{name} --help")
        assert r.code == 0, (name, r.err)
        assert f"Usage: iolab {name} [OPTIONS]" in r.out
