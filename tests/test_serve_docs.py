"""Every `iolab serve` line the docs show (``# serves until stopped``) starts, says where, and
answers: the page, a prediction equal to `iolab predict --json` with the same scenario and
catalog, the stored runs, and bench runs only with --allow-bench. Each runs on a free port
(``--port 0`` in place of the port shown) so that a server already running is no matter."""

from __future__ import annotations

import re
import shlex

import pytest

from conftest import EXAMPLES, ROOT
from serving import endpoint, request, start, stop
from test_docs import COMMANDS

SERVED = [(page, command) for page, command, expected in COMMANDS
          if expected is None and command.startswith("iolab serve")]


def test_the_docs_show_servers():
    assert {page for page, _ in SERVED} >= {"serve.md", "README.md"}


@pytest.mark.parametrize("page,command", SERVED, ids=[f"{p}:{c}" for p, c in SERVED])
def test_a_documented_server_answers(page, command, tmp_path, iolab, monkeypatch):
    monkeypatch.chdir(ROOT)
    argv = [a.replace("$TMP", str(tmp_path)) for a in shlex.split(command)][2:]
    if "--port" in argv:  # start() gives --port 0
        at = argv.index("--port")
        argv = argv[:at] + argv[at + 2:]
    s = start(*argv)
    try:
        assert request(s.local + ("?token=" + s.token if s.token else "")).status == 200
        if s.token is None:
            assert s.base.startswith("http://127.0.0.1:")
        else:
            assert request(s.local).status == 403
        scenario = next((a for a in argv if a.endswith(".yaml") and argv[argv.index(a) - 1] != "--catalog"),
                        "examples/oltp-ds13-p30.yaml")
        catalogs = [argv[i + 1] for i, a in enumerate(argv) if a == "--catalog"]
        cli = iolab("predict", scenario, "--json", *[x for c in catalogs for x in ("--catalog", c)])
        got = request(endpoint(s, "/api/predict", name=scenario), method="POST",
                      body=(ROOT / scenario).read_text())
        assert got.status == 200 and got.json() == cli.json()
        assert request(endpoint(s, "/api/runs")).status == 200
        bench = request(endpoint(s, "/api/bench"), method="POST",
                        body=(EXAMPLES / "local-disk.yaml").read_text())
        if "--allow-bench" in argv:
            assert bench.status == 400 and bench.json()["field"] == "--target"
        else:
            assert bench.status == 403
    finally:
        stop(s)


def test_every_serve_option_is_in_a_documented_server():
    shown = " ".join(c for _, c in SERVED)
    for option in ("--host", "--port", "--db", "--allow-bench", "--catalog"):  # and a SCENARIO
        assert re.search(rf" {option}\b", shown), option
