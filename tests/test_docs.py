"""Every command shown in README.md and docs/*.md runs and exits as the page says.

A page shows commands in ```console blocks as lines starting with ``$ iolab``. A command
is expected to exit 0 unless the line ends with ``# exit N``. ``$TMP`` in a command is a
fresh temporary directory (for bench targets and databases).
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
                found.append((page.name, command.strip(), int(m.group(1)) if m else 0))
    return found


COMMANDS = _commands()


def test_docs_have_examples():
    assert len(COMMANDS) >= 1


@pytest.mark.parametrize("page,command,expected", COMMANDS, ids=[f"{p}:{c}" for p, c, _ in COMMANDS])
def test_documented_command(page, command, expected, iolab, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("TMP", str(tmp_path))
    argv = [a.replace("$TMP", str(tmp_path)) for a in shlex.split(command)][1:]
    result = iolab(*argv)
    assert result.code == expected, f"{page}: `{command}` exited {result.code}\n{result.out}\n{result.err}"
