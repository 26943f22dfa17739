"""`iolab serve`: its endpoints answer what the command line's --json prints, and it is safe
by default (token off loopback, Host and Origin checked, bounded bodies, no bench run)."""

from __future__ import annotations

import json
import urllib.error
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT
from serving import endpoint, request, start, stop

SCENARIOS = sorted(p for p in EXAMPLES.glob("*.yaml")
                   if "volumes:" in p.read_text() and "jobs:" in p.read_text() and "require" not in p.read_text())


def stored_runs(path: Path) -> Path:
    """A results database holding a run measured at 0.9 × its prediction and a sweep of three
    points, each with the prediction beside it (as bench run stores them)."""
    from iolab.bench.compare import predicted
    from iolab.bench.jobs import override
    from iolab.bench.record import Figures, JobMeasure, Measured, RunRecord
    from iolab.bench.store import ResultsStore
    from iolab.scenario import load_scenario

    scenario = EXAMPLES / "local-disk.yaml"
    s = load_scenario(scenario)

    def record(depth: int, **extra) -> RunRecord:
        doc = predicted(s, override([j.fio for j in s.jobs], {"iodepth": depth}))
        total = Figures(doc["iops"] * 0.9, doc["bandwidth"] * 0.9,
                        {"mean": doc["latency"]["mean"] / 0.9, "p50": doc["latency"]["mean"],
                         "p99": doc["latency"]["mean"] * 3})
        return RunRecord(status="ok", started="2026-01-02T03:04:05+00:00", ended="2026-01-02T03:04:35+00:00",
                         jobfile=f"[disk]\nrw=randread\niodepth={depth}\n", fio_argv=("fio", "run.fio"),
                         fio_version="fio-3.33", host="lab-host-7", kernel="6.1.0-lab", target="/mnt/data/iolab",
                         measured=Measured(total, read=total), jobs=(JobMeasure("disk", Measured(total)),),
                         predicted=doc, scenario="examples/local-disk.yaml", **extra)

    with ResultsStore(path) as store:
        store.save(record(8))
        sweep = store.new_sweep({"iodepth": [1, 4, 16]})
        for d in (1, 4, 16):
            store.save(record(d, params={"iodepth": d}, sweep_id=sweep))
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return stored_runs(tmp_path_factory.mktemp("serve") / "runs.db")


@pytest.fixture(scope="module")
def served(db):
    s = start("--db", str(db))
    yield s
    stop(s)


def post(served, path: str, body: str, **params: object):
    return request(endpoint(served, path, **params), method="POST", body=body)


def test_the_first_line_says_where_and_the_page_comes_whole(served):
    assert served.line.startswith("iolab serve: http://127.0.0.1:") and served.line.endswith("/")
    page = request(served.url)
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    text = page.text
    assert "What-if" in text and "Plan" in text and "Results" in text
    # one response holds everything: no script, style or image is fetched from anywhere
    assert "<script src" not in text and "<link" not in text and "http://" not in text and "https://" not in text


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.name)
def test_predict_returns_what_predict_json_prints(served, scenario, iolab, monkeypatch):
    monkeypatch.chdir(ROOT)
    name = f"examples/{scenario.name}"
    cli = iolab("predict", name, "--json")
    assert cli.code == 0, cli.err
    got = post(served, "/api/predict", scenario.read_text(), name=name)
    assert got.status == 200, got.text
    assert got.json() == json.loads(cli.out)


def test_plan_returns_what_plan_json_prints(served, iolab, monkeypatch):
    monkeypatch.chdir(ROOT)
    cli = iolab("plan", "examples/oltp-requirements.yaml", "--json", "--top", "3", "--region", "westeurope")
    assert cli.code == 0, cli.err
    got = post(served, "/api/plan", (EXAMPLES / "oltp-requirements.yaml").read_text(),
               name="examples/oltp-requirements.yaml", top=3, region="westeurope")
    assert got.status == 200, got.text
    assert got.json() == json.loads(cli.out)


def test_runs_return_what_results_list_json_prints(served, db, iolab):
    cli = iolab("results", "list", "--db", str(db), "--json")
    got = request(endpoint(served, "/api/runs"))
    assert got.status == 200 and got.json() == json.loads(cli.out)
    assert len(got.json()["runs"]) == 4
    one = request(endpoint(served, "/api/runs/1"))
    assert one.json() == json.loads(iolab("results", "show", "1", "--db", str(db), "--json").out)
    assert request(endpoint(served, "/api/runs/99")).status == 400


def test_a_stored_run_and_sweep_come_as_their_report(served):
    run = request(endpoint(served, "/report/run/1"))
    assert run.status == 200 and "lab-host-7" in run.text and "<script" not in run.text
    assert "default-src 'none'" in run.headers["content-security-policy"]
    sweep = request(endpoint(served, "/report/sweep/1"))
    assert sweep.status == 200 and "iodepth=16" in sweep.text


def test_a_bad_field_is_400_naming_it_as_the_cli_does(served, iolab, tmp_path):
    text = (EXAMPLES / "oltp-ds13-p30.yaml").read_text().replace("Standard_DS13", "Standard_DS99")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    cli = iolab("predict", str(path), "--json")
    got = post(served, "/api/predict", text, name=str(path))
    assert cli.code == 2 and got.status == 400
    doc = got.json()
    assert doc["field"] == "clients.vm" and "Standard_DS13" in doc["error"]
    assert cli.err == f"error: {path}: clients.vm: {doc['error']}\n"
    syntax = post(served, "/api/predict", "version: 1\nclients: [", name="x.yaml")
    assert syntax.status == 400 and "line" in syntax.json()["error"]
    plan = post(served, "/api/plan", "version: 1\njobs: [{rw: randread}]\nrequire: {iops: lots}\nsearch: {kind: disks}\n")
    assert plan.status == 400 and plan.json()["field"] == "require.iops"


def test_what_if_gives_the_prediction_its_sentence_and_bill(served, iolab, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (EXAMPLES / "oltp-ds13-p30.yaml").read_text()
    got = post(served, "/api/whatif", text, name="examples/oltp-ds13-p30.yaml").json()
    assert got["prediction"] == iolab("predict", "examples/oltp-ds13-p30.yaml", "--json").json()
    printed = iolab("predict", "examples/oltp-ds13-p30.yaml").out
    assert f"Bottleneck: {got['bottleneck']}" in " ".join(printed.split())
    # Standard_DS13 and four P30 in eastus, as the catalog lists them
    vm = iolab("catalog", "show", "Standard_DS13", "--json").json()["price_per_month"]
    disk = iolab("catalog", "show", "P30", "--json").json()["price_per_month"]
    bill = got["cost"]["bill"]
    assert bill["vm"] == pytest.approx(vm, abs=0.01) and bill["disks"] == pytest.approx(4 * disk, abs=0.01)
    assert bill["total"] == pytest.approx(vm + 4 * disk, abs=0.02)
    device = post(served, "/api/cost", (EXAMPLES / "local-nvme.yaml").read_text()).json()
    assert device["bill"] is None and "generic device" in device["missing"][0]


def test_curve_and_percentiles(served):
    text = (EXAMPLES / "oltp-ds13-p30.yaml").read_text()
    curve = post(served, "/api/curve", text).json()
    depths = [p["params"]["iodepth"] for p in curve["points"]]
    assert depths[0] == 1 and all(b == 2 * a for a, b in zip(depths, depths[1:]))
    assert depths[-1] >= 4 * curve["knee_outstanding"] / 4  # up to four times the knee, per job
    iops = [p["iops"] for p in curve["points"]]
    assert iops == sorted(iops) and iops[-1] <= curve["max_iops"] * 1.0001
    pct = post(served, "/api/percentiles", text).json()
    lat = pct["latency"]
    assert pct["ios"] >= 20000 and lat["p50"] <= lat["p99"] <= lat["p99.9"]


def test_save_scenario_gives_yaml_that_predict_takes_unchanged(served, iolab, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    data = {"version": 1, "clients": {"vm": "Standard_D8s_v5"},
            "volumes": {"data": {"disks": [{"sku": "P20", "count": 2}]}},
            "jobs": [{"name": "j", "rw": "randread", "bs": "4k", "iodepth": 16}]}
    saved = post(served, "/api/scenario.yaml", json.dumps(data), name="mine.yaml")
    assert saved.status == 200 and 'filename="mine.yaml"' in saved.headers["content-disposition"]
    path = tmp_path / "mine.yaml"
    path.write_bytes(saved.body)
    cli = iolab("predict", str(path), "--json")
    assert cli.code == 0, cli.err
    assert post(served, "/api/predict", json.dumps(data), name=str(path)).json() == cli.json()


def test_reads_only_on_get_and_bounds_bodies(served):
    assert request(endpoint(served, "/api/predict")).status == 405
    assert request(endpoint(served, "/api/runs"), method="POST", body="x").status == 405
    big = post(served, "/api/predict", "#" * (1024 * 1024 + 1))
    assert big.status == 413 and big.json()["field"] == "body"
    # without a Content-Length (chunked), the body is counted as it arrives
    chunks = iter([b"#" * 65536] * 17)
    import urllib.request

    req = urllib.request.Request(endpoint(served, "/api/predict"), data=chunks, method="POST",
                                 headers={"Transfer-Encoding": "chunked"})
    try:
        urllib.request.urlopen(req, timeout=60)
        raise AssertionError("a chunked body past the bound was taken")
    except urllib.error.HTTPError as e:
        assert e.code == 413 and json.loads(e.read())["field"] == "body"


def test_another_site_or_host_name_is_refused(served):
    text = (EXAMPLES / "oltp-ds13-p30.yaml").read_text()
    other = request(endpoint(served, "/api/predict"), method="POST", body=text,
                    headers={"Origin": "http://example.org"})
    assert other.status == 403 and other.json()["field"] == "origin"
    rebound = request(endpoint(served, "/api/runs"), headers={"Host": f"attacker.example:{served.base.split(':')[-1]}"})
    assert rebound.status == 403 and rebound.json()["field"] == "host"


def test_no_bench_run_from_the_page_without_allow_bench(served):
    got = post(served, "/api/bench", (EXAMPLES / "local-disk.yaml").read_text(), target="/tmp")
    assert got.status == 403 and "--allow-bench" in got.json()["error"]


def test_off_loopback_every_request_needs_the_token():
    s = start("--host", "0.0.0.0")
    try:
        assert s.line.startswith("iolab serve: http://0.0.0.0:") and "/?token=" in s.line
        assert s.token and len(s.token) >= 24
        for path, method in (("", "GET"), ("api/runs", "GET"), ("api/predict", "POST")):
            refused = request(s.local + path, method=method, body="x" if method == "POST" else None)
            assert refused.status == 403 and refused.json()["field"] == "token"
            wrong = request(s.local + path + "?token=" + s.token[:-1] + "x", method=method,
                            body="x" if method == "POST" else None)
            assert wrong.status == 403
        assert request(s.local + "?token=" + s.token).status == 200
        header = request(s.local + "api/runs", headers={"X-Iolab-Token": s.token})
        assert header.status == 200
    finally:
        stop(s)


def test_a_bad_scenario_or_catalog_is_refused_before_listening(tmp_path):
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text((EXAMPLES / "oltp-ds13-p30.yaml").read_text().replace("P30", "P31"))
    r = subprocess.run([sys.executable, "-m", "iolab", "serve", str(bad), "--port", "0"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: {bad}: volumes.data.disks[0].sku: unknown disk SKU 'P31'")
    req = subprocess.run([sys.executable, "-m", "iolab", "serve", "examples/oltp-requirements.yaml", "--port", "0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert req.returncode == 2 and "this is a requirements file, not a scenario" in req.stderr


def test_warnings_come_from_the_text_sent_not_a_file_of_that_name(served, iolab, tmp_path):
    text = (EXAMPLES / "oltp-ds13-p30.yaml").read_text().replace("latency: 2ms", "latency: 2")
    assert "latency: 2\n" in text
    path = tmp_path / "bare.yaml"
    path.write_text(text)
    cli = iolab("predict", str(path), "--json").json()
    assert [w["field"] for w in cli["warnings"]] == ["volumes.data.disks[0].latency"]
    got = post(served, "/api/predict", text, name="not-on-disk.yaml").json()
    assert got["warnings"] == [{**w, "file": "not-on-disk.yaml"} for w in cli["warnings"]]
    plan = post(served, "/api/plan", "version: 1\njobs: [{rw: randread, bs: 4k}]\nrequire: {iops: 1000, latency: 2, capacity: 100GiB}\n"
                "search: {kind: disks, vms: [Standard_D2s_v5], skus: [P10]}\n", name="req.yaml").json()
    assert [w["field"] for w in plan["warnings"]] == ["require.latency"]
    scenario = post(served, "/api/plan", text, name="s.yaml")
    assert scenario.status == 400 and "this is a scenario" in scenario.json()["error"]


def test_with_allow_bench_a_run_follows_the_cli_safety_rules(tmp_path):
    db = tmp_path / "bench.db"
    s = start("--allow-bench", "--db", str(db))
    try:
        target = tmp_path / "target"
        target.mkdir()
        text = (EXAMPLES / "local-disk.yaml").read_text().replace("size: 32m", "size: 4m")
        ran = post(s, "/api/bench", text, name="examples/local-disk.yaml", target=str(target), runtime="300ms")
        assert ran.status == 200, ran.text
        doc = ran.json()
        assert doc["status"] == "ok" and doc["iops"] > 0 and doc["predicted"]["iops"] > 0
        assert list(target.iterdir()) == []  # its own files, removed afterwards
        assert [r["run_id"] for r in request(endpoint(s, "/api/runs")).json()["runs"]] == [doc["run_id"]]
        victim = tmp_path / "precious"
        victim.write_bytes(b"keep me")
        write = text.replace("rw: randread", "rw: write")
        refused = post(s, "/api/bench", write, target=str(victim), runtime="300ms")
        assert refused.status == 403 and "existing file" in refused.json()["error"]
        assert victim.read_bytes() == b"keep me"
        assert post(s, "/api/bench", text, runtime="300ms").json()["field"] == "--target"
    finally:
        stop(s)


def test_a_port_in_use_is_a_runtime_failure_naming_the_address():
    import socket
    import subprocess
    import sys

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "iolab", "serve", "--port", str(port)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: ") and "in use" in r.stderr
    assert r.stderr.count("\n") == 1
