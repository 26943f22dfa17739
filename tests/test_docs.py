"""Every command shown in README.md and docs/*.md runs and exits as the page says.

A page shows commands in ```console blocks as lines starting with ``$ iolab``. A command
is expected to exit 0 unless the line ends with ``# exit N``; one ending ``# serves until
stopped`` is a server, started and asked by tests/test_serve_docs.py. ``$TMP`` in a command is a
temporary directory of the page's own, shared by its commands in the order they appear (a
benchmark stores a run that a later ``iolab results`` command reads).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from conftest import ROOT

BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def _commands() -> list[tuple[str, str, int]]:
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if not page.exists():
            continue
        for block in BLOCK.findall(page.read_text()):
            for line in block.splitlines():
                if not line.startswith("$ iolab"):
                    continue
                command, _, comment = line[2:].partition("  # ")
                m = re.search(r"exit (\d+)", comment)
                # a server (`# serves until stopped`) never exits: tests/test_serve_docs.py runs it
                expected = None if comment.startswith("serves") else int(m.group(1)) if m else 0
                found.append((page.name, command.strip(), expected))
    return found


COMMANDS = _commands()
EXITING = [c for c in COMMANDS if c[2] is not None]


def test_docs_have_examples():
    assert len(COMMANDS) >= 1


@pytest.fixture(scope="module")
def page_dirs(tmp_path_factory):
    dirs: dict[str, Path] = {}

    def get(page: str) -> Path:
        if page not in dirs:
            dirs[page] = tmp_path_factory.mktemp(page.replace(".", "-"))
        return dirs[page]

    return get


@pytest.mark.parametrize("page,command,expected", EXITING, ids=[f"{p}:{c}" for p, c, _ in EXITING])
def test_documented_command(page, command, expected, iolab, page_dirs, monkeypatch):
    tmp = page_dirs(page)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("TMP", str(tmp))
    argv = [a.replace("$TMP", str(tmp)) for a in shlex.split(command)][1:]
    result = iolab(*argv)
    assert result.code == expected, f"{page}: `{command}` exited {result.code}\n{result.out}\n{result.err}"


def _cli_options() -> list[tuple[str, tuple[str, ...]]]:
    """(command path, spellings of one option) for every option of every command."""
    import typer

    from iolab.cli import app

    out = []

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{path} {name}".strip())
            return
        for param in cmd.params:
            spellings = tuple(o for o in (*param.opts, *getattr(param, "secondary_opts", ())) if o.startswith("--"))
            if spellings and "--help" not in spellings:
                out.append((path, spellings))

    walk(typer.main.get_command(app), "")
    return out


@pytest.mark.parametrize("path,spellings", _cli_options(), ids=lambda v: v if isinstance(v, str) else v[0])
def test_every_option_has_an_executed_example(path, spellings):
    """Every command's every option appears in a documented command line that this file runs."""
    lines = [c for _, c, _ in COMMANDS if c.startswith(f"iolab {path} ") or c == f"iolab {path}"]
    assert lines, f"no documented example of `iolab {path}`"
    assert any(any(f" {s}" in f" {c} " for s in spellings) for c in lines), \
        f"`iolab {path}`: no documented example uses {' or '.join(spellings)}"


def _model_fields(model, prefix=""):
    """Dotted names of a pydantic model's fields, nested models included."""
    from pydantic import BaseModel
    import typing

    for name, info in model.model_fields.items():
        yield name
        for arg in (info.annotation, *typing.get_args(info.annotation)):
            for inner in (arg, *typing.get_args(arg)):
                if isinstance(inner, type) and issubclass(inner, BaseModel):
                    yield from _model_fields(inner)


def test_every_scenario_field_is_documented():
    """Each field of the scenario schema is named in docs/scenario.md."""
    from iolab import scenario

    text = (ROOT / "docs" / "scenario.md").read_text()
    for model in (scenario.Clients, scenario.DiskVolume, scenario.ShareVolume, scenario.DeviceVolume):
        for field in _model_fields(model):
            assert f"`{field}" in text or f".{field}`" in text or f"{field}`" in text, \
                f"{model.__name__}.{field} is not documented in docs/scenario.md"
