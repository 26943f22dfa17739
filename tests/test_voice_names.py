"""Order and names: JSON jobs[] in the scenario's order, usage lines as a person writes them,
README links every docs page."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT

SCENARIO = """version: 1
clients:
  vm: Standard_D16s_v5
  count: 2
volumes:
  a:
    disks: [{sku: P30, count: 1, caching: none}]
  b:
    disks: [{sku: P20, count: 1, caching: none}]
jobs:
  - {name: zeta, volume: b, rw: randread, bs: 4k, iodepth: 4, ioengine: libaio}
  - {name: alpha, volume: a, rw: randwrite, bs: 4k, iodepth: 4, ioengine: libaio}
  - {name: mid, volume: b, rw: read, bs: 64k, iodepth: 2, ioengine: libaio}
"""
ORDER = ["zeta", "alpha", "mid"]


@pytest.mark.parametrize("command", ["predict", "simulate --ios 20000", "check", "predict --sweep iodepth=1,2"])
def test_json_jobs_follow_the_scenario(iolab, tmp_path, command):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)  # jobs on volume b come first and last: the network groups them by volume
    name, *rest = command.split()
    doc = iolab(name, str(path), *rest, "--json").json()
    assert [j["name"] for j in doc["jobs"]] == ORDER
    for point in doc.get("points", []):
        assert [j["name"] for j in point["jobs"]] == ORDER


def test_human_job_rows_follow_the_scenario(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    for command in ("predict", "simulate --ios 20000"):
        name, *rest = command.split()
        out = iolab(name, str(path), *rest).out
        found = [n for n in re.findall(r"job (\w+)", out) if n in ORDER]
        assert found == ORDER, command


def _commands():
    from iolab.cli import app
    from iolab.cli.command_line import build

    def walk(cmd, path):
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path)

    return list(walk(build(app), []))


@pytest.mark.parametrize("path", _commands())
def test_usage_lines_read_as_a_person_writes_them(iolab, path):
    out = iolab(*path.split(), "--help").out
    usage = out.splitlines()[0]
    assert usage.startswith(f"Usage: iolab {path} [OPTIONS]")
    assert not re.search(r"[{}<>]|\[\[|\.\.\.\]", usage), usage
    words = usage.split("[OPTIONS]", 1)[1].split()
    assert all(re.fullmatch(r"\[?[A-Z_]+\]?(\.\.\.)?", w) for w in words), usage


def test_named_usage_lines(iolab):
    assert iolab("plan --help").out.splitlines()[0] == "Usage: iolab plan [OPTIONS] FILE"
    assert iolab("results export --help").out.splitlines()[0] == "Usage: iolab results export [OPTIONS] [ID]..."
    assert iolab("predict --help").out.splitlines()[0] == "Usage: iolab predict [OPTIONS] SCENARIO"


def test_readme_links_every_docs_page():
    readme = (ROOT / "README.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in readme, f"README.md does not link docs/{page.name}"


def test_help_names_arguments_as_the_usage_line_does(iolab):
    plan = iolab("plan --help").out
    assert "  FILE <path>" in plan and "file <path>" not in plan
    export = iolab("results export --help").out
    assert "  ID... " in export and "[ID...]" not in export
