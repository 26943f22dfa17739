"""Start-up stays cheap: importing the command line, and running ``--version``, pull in none
of the heavy libraries or models that only some commands need (see docs/performance.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# numpy, matplotlib, SQLite, YAML and pydantic (with the schema and catalog models built on
# it), the models themselves and the catalog data: none is needed to parse a command line.
HEAVY = ["numpy", "matplotlib", "sqlite3", "yaml", "pydantic", "pydantic_core", "importlib.metadata",
         "iolab.schema", "iolab.scenario", "iolab.catalog", "iolab.catalog.loader", "iolab.analytic",
         "iolab.network", "iolab.prediction", "iolab.plan", "iolab.sim", "iolab.bench", "iolab.fio",
         "iolab._sim"]


def _loaded(code: str, *, ends: bool = False, **extra_env: str) -> set[str]:
    """The modules loaded by a fresh process running `code` (which prints them itself at
    exit when it `ends` the process)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), **extra_env)
    if not ends:
        code += "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                         check=not ends).stdout
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


# What `iolab check` and `iolab predict` must not load (docs/performance.md, Start-up): the
# benchmark, simulator, planner and results-database code, plotting, pydantic validators of
# command-line values (Typer's adapters); `check` also no numpy, no queueing network and no model.
NEVER_FOR_SCENARIOS = ["matplotlib", "sqlite3", "typer._adapters",
                       "pydantic.type_adapter", "iolab.plan", "iolab.sim", "iolab._sim", "iolab.bench",
                       "iolab.fio.output", "iolab.fio.results", "iolab.fio.status",
                       "iolab.calibrate", "iolab.report"]
NOT_FOR_CHECK = NEVER_FOR_SCENARIOS + ["numpy", "iolab.network", "iolab.compile.builder", "iolab.compile.disks",
                                       "iolab.analytic", "iolab.prediction"]


def _command_loads(*argv: str) -> set[str]:
    """The modules a fresh process running `iolab ARGV` as the console script has loaded, once
    the catalog's prebuilt copy exists (the first run in a cache directory builds it)."""
    code = ("import atexit, contextlib, io, json, sys, iolab.cli\n"
            "def loaded():  # the console script leaves at once, running only exit handlers\n"
            "    sys.__stdout__.write('\\n' + json.dumps(sorted(sys.modules)) + '\\n')\n"
            "    sys.__stdout__.flush()\n"
            "atexit.register(loaded)\n"
            f"sys.argv = ['iolab', *{list(argv)!r}]\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    iolab.cli.main()\n")
    with tempfile.TemporaryDirectory(prefix="iolab-startup-") as cache:
        _loaded(code, ends=True, XDG_CACHE_HOME=cache)
        return _loaded(code, ends=True, XDG_CACHE_HOME=cache)


def test_check_loads_neither_numpy_nor_the_model_nor_what_other_commands_use():
    loaded = _command_loads("check", "examples/oltp-ds13-p30.yaml")
    assert "iolab.scenario" in loaded  # the file was read
    assert sorted(loaded & set(NOT_FOR_CHECK)) == []


def test_predict_loads_only_what_a_prediction_uses():
    loaded = _command_loads("predict", "examples/oltp-ds13-p30.yaml")
    assert {"iolab.prediction", "numpy"} <= loaded  # the prediction was made
    assert sorted(loaded & set(NEVER_FOR_SCENARIOS)) == []


def _main(*args: str, before: str = "") -> subprocess.CompletedProcess:
    """``python -m iolab ARGS`` in a fresh process, after the Python code ``before``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), COLUMNS="120")
    env.pop("PYTHONUNBUFFERED", None)  # output buffered, as a user's shell has it
    argv = [sys.executable, "-m", "iolab", *args]
    if before:
        argv = [sys.executable, "-c", f"{before}\nimport runpy, sys\nsys.argv = ['iolab', *{list(args)!r}]\n"
                                     "runpy.run_module('iolab', run_name='__main__', alter_sys=True)"]
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)


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
    """Every parameter converted without pydantic (iolab.cli.conversions) gives Typer's own value
    for good input and Typer's own error for bad input, --help included."""
    import typer._click
    from typer._coercion import build_runtime_param

    import iolab.cli
    from iolab.cli.command_line import build
    from iolab.cli.conversions import _Direct

    outside = tmp_path / "scenario.yaml"
    outside.write_text("x: 1\n")
    samples = {
        "path": ["examples/oltp-ds13-p30.yaml", "examples", "missing.yaml", "-", "", "a b/c.png",
                 str(outside), str(tmp_path), Path("examples"), 3, None],
        "str": ["iodepth=1,2,4", " padded ", "", "é", "-", b"bytes", 5, None],
        "bool": [True, False, None, "true", "no", "maybe", 1],
        "int": ["1", "-3", "007", "+2", " 4", "1_000", "1.0", "x", "", "99999999999999999999", 5, True, 2.5, None],
        # a value of any other kind goes to Typer's converter, built when a value is first given
        "typer": ["1", "0.5", "payg", "reserved-3y", "x", "", 3, None],
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
    assert direct == {"one path", "one str", "one bool", "one int", "one typer", "list path", "list str", "list int"}
    assert compared > 300


def test_commands_that_leave_at_once_print_and_exit_as_the_in_process_command_line(iolab):
    """check, predict and plan skip the interpreter's teardown: their whole output still arrives
    through a pipe, with the same exit code, as from the command line run in-process; called
    with arguments (embedded), the entry point raises SystemExit as usual."""
    for args in (["predict", "examples/oltp-ds13-p30.yaml", "--json"], ["check", "examples/oltp-ds13-p30.yaml"],
                 ["--version"], ["plan", "examples/oltp-requirements.yaml", "--json"],
                 ["predict", "examples/oltp-requirements.yaml"], ["check", "examples/missing.yaml"]):
        inside = iolab(*args)
        alone = _main(*args)
        assert (alone.returncode, alone.stdout, alone.stderr) == (inside.code, inside.out, inside.err), args
    assert alone.returncode == 2 and alone.stderr.startswith("error: examples/missing.yaml")
    # Embedded, it also keeps the program's own collector settings (the console script's
    # are below).
    embedded = ("import contextlib, gc, io, iolab.cli\n"
                "gc.set_threshold(1234, 10, 10)\n"
                "try:\n"
                "    with contextlib.redirect_stdout(io.StringIO()):\n"
                "        iolab.cli.main(['check', 'examples/oltp-ds13-p30.yaml'])\n"
                "except SystemExit as e:\n"
                "    print('exit', e.code, 'threshold', gc.get_threshold()[0])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, "-c", embedded], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.stdout == "exit 0 threshold 1234\n", out.stderr


def test_printed_names_are_kept_as_given_not_read_as_emoji_codes(iolab, tmp_path):
    # The console prints text as given: Rich's emoji codes (":fire:") are not replaced, and
    # its emoji table is not loaded to look for them.
    scenario = tmp_path / "db:fire:01.yaml"
    scenario.write_text((ROOT / "examples" / "oltp-ds13-p30.yaml").read_text())
    ok = iolab("check", scenario)
    assert ok.code == 0 and f"ok {scenario}: a valid scenario file" in ok.out
    missing = iolab("check", tmp_path / "gone:fire:.yaml")
    assert missing.code == 2 and missing.err.strip() == f"error: {tmp_path / 'gone:fire:.yaml'}: file not found"
    loaded = _command_loads("predict", str(scenario))
    assert "rich._emoji_codes" not in loaded and "iolab.prediction" in loaded


def test_the_console_script_collects_young_garbage_less_often():
    """The console script raises the collector's youngest threshold (start-up's long-lived
    objects are not walked again and again; an embedding program keeps its own: above)."""
    from iolab.cli.process import YOUNG_COLLECTION

    at_exit = "import atexit, gc; atexit.register(lambda: print('threshold', gc.get_threshold()[0]))"
    alone = _main("check", "examples/oltp-ds13-p30.yaml", before=at_exit)
    assert alone.returncode == 0 and alone.stdout.splitlines()[-1] == f"threshold {YOUNG_COLLECTION}", alone.stderr


def test_the_console_script_skips_pydantics_plugin_loader_when_plugins_are_disabled():
    """pydantic imports its plugin loader (importlib.metadata, the email package) to find
    plugins even when they are disabled; the console script answers that import itself, with
    the same answer (no plugins) and the same plan; a user who enables plugins gets pydantic's."""
    report = ("import atexit, sys; atexit.register(lambda: print('loaded', "
              "sorted(m for m in ('importlib.metadata', 'email') if m in sys.modules)))")
    args = ("plan", "examples/oltp-requirements.yaml", "--json")
    quick = _main(*args, before=report)
    assert quick.returncode == 0, quick.stderr
    assert quick.stdout.splitlines()[-1] == "loaded []"
    enabled = _main(*args, before="import os; os.environ['PYDANTIC_DISABLE_PLUGINS'] = ''\n" + report)
    assert enabled.returncode == 0 and enabled.stdout.splitlines()[-1] == "loaded ['email', 'importlib.metadata']"
    assert json.loads("\n".join(quick.stdout.splitlines()[:-1])) == json.loads("\n".join(enabled.stdout.splitlines()[:-1]))


def test_the_stand_in_plugin_loader_finds_no_plugins_and_hands_other_names_to_pydantics():
    code = ("import sys\nfrom iolab.cli.process import _no_plugins\n"
            "sys.modules['pydantic.plugin._loader'] = _no_plugins()\n"
            "from pydantic.plugin._loader import get_plugins\nprint(get_plugins())\n"
            "from pydantic.plugin._loader import PYDANTIC_ENTRY_POINT_GROUP\n"
            "print(PYDANTIC_ENTRY_POINT_GROUP, sys.modules['pydantic.plugin._loader'].__file__.endswith('_loader.py'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT / "python")))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["()", "pydantic", "True"]
