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


def _main(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "iolab", *args], capture_output=True, text=True, env=env, cwd=ROOT)


def test_every_command_builds_its_help_in_a_process_that_builds_only_it():
    """The console script builds only the invoked command; each command's help still comes
    out whole, the root help lists every command, and a misspelt one gets its suggestion."""
    from iolab.cli import COMMANDS

    root = _main("--help")
    assert root.returncode == 0
    for name in COMMANDS:
        assert f"  {name} " in root.stdout
        r = _main(name, "--help")
        assert r.returncode == 0, (name, r.stderr)
        assert f"Usage: iolab {name} [OPTIONS]" in r.stdout
    typo = _main("predcit", "x.yaml")
    assert typo.returncode == 2
    assert typo.stderr == "error: no such command 'predcit'; did you mean 'predict'? (see 'iolab --help')\n"


def test_an_error_in_the_invoked_command_reads_as_before():
    r = _main("predict", "examples/oltp-ds13-p30.yaml", "--bogus")
    assert r.returncode == 2
    assert r.stderr == "error: no such option: --bogus (see 'iolab predict --help')\n"


def _converted(runtime, value, param, ctx):
    """What a parameter's converter makes of `value`: ("ok", result) or ("error", type, text)."""
    try:
        return ("ok", runtime.coerce(value, param=param, ctx=ctx))
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return ("error", type(e).__name__, str(getattr(e, "message", e)))


def test_command_line_values_convert_exactly_as_typer_converts_them(tmp_path):
    """Every parameter converted without pydantic (iolab.cli.values) gives Typer's own value
    for good input and Typer's own error for bad input, --help included."""
    import typer._click
    from typer._coercion import build_runtime_param

    import iolab.cli
    from iolab.cli.usage import build
    from iolab.cli.values import _Direct

    outside = tmp_path / "scenario.yaml"
    outside.write_text("x: 1\n")
    samples = {
        "path": ["examples/oltp-ds13-p30.yaml", "examples", "missing.yaml", "-", "", "a b/c.png",
                 str(outside), str(tmp_path), Path("examples"), 3, None],
        "str": ["iodepth=1,2,4", " padded ", "", "é", "-", b"bytes", 5, None],
        "bool": [True, False, None, "true", "no", "maybe", 1],
    }
    direct, compared = set(), 0
    stack = [build(iolab.cli.app)]
    while stack:
        command = stack.pop()
        stack.extend(getattr(command, "commands", {}).values())
        ctx = typer._click.Context(command)
        for param in [*command.params, command.get_help_option(ctx)]:
            fast = getattr(param, "_runtime_param", None)
            if not isinstance(fast, _Direct):
                continue
            direct.add(f"{fast.shape} {fast.leaf}")
            real = build_runtime_param(param.type_descriptor)
            values = samples[fast.leaf]
            if fast.shape == "list":
                values = [*values, ["examples", "x.yaml"], ("a", "b"), [], [3]]
            for value in values:
                got = _converted(fast, value, param, ctx)
                param._runtime_param = fast  # a refused value handed it to Typer's converter
                assert got == _converted(real, value, param, ctx), (command.name, param.name, value)
                compared += 1
    assert direct == {"one path", "one str", "one bool", "list path", "list str"}
    assert compared > 300
