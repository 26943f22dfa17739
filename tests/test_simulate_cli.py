"""`iolab simulate`: agreement with the analytic engine on every published case, determinism,
the JSON keys of docs/simulate.md, plots, and bad options."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES, ROOT
from test_validation import CASES

V = ROOT / "tests" / "validation"
KEYS = {"mean", "p50", "p90", "p99", "p99.9", "p99.99"}


@pytest.mark.parametrize("name", [c[0] for c in CASES] + ["../../examples/oracle-anf-knfs.yaml",
                                                          "../../examples/oracle-anf-dnfs.yaml",
                                                          "../../examples/smb-small-io.yaml",
                                                          "../../examples/nfs-small-io-nconnect.yaml"])
def test_simulation_agrees_with_analytic(iolab, name):
    """The published cases (tests/validation): every case's simulated mean IOPS within 5 % of the analytic engine's."""
    predicted = iolab("predict", V / name, "--json").json()
    simulated = iolab("simulate", V / name, "--json", "--ios", "60000", "--ramp", "0.05").json()
    expected = predicted["iops"]
    burst = predicted.get("burst")
    if burst and (burst["duration"] is None or simulated["duration"] < burst["duration"]):
        expected = burst["iops"]  # the simulation starts with full credits and is still bursting
    assert simulated["iops"] == pytest.approx(expected, rel=0.05)
    if not burst:
        assert simulated["bottleneck"]["kind"] == predicted["bottleneck"]["kind"]
    assert KEYS <= set(simulated["latency"])


def test_same_seed_same_bytes(iolab):
    a = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--json", "--ios", "50000", "--seed", "7")
    b = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--json", "--ios", "50000", "--seed", "7")
    c = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--json", "--ios", "50000", "--seed", "8")
    assert a.code == 0 and a.out == b.out
    assert c.out != a.out


def test_contract_keys_and_series(iolab):
    doc = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--json", "--duration", "2s").json()
    assert {"iops", "bandwidth", "latency", "read", "write", "jobs", "series", "resources"} <= set(doc)
    assert doc["series"] and all({"t", "iops", "bandwidth"} <= set(p) for p in doc["series"])
    assert all({"resource", "kind", "utilization", "throttled"} <= set(r) for r in doc["resources"])
    assert doc["duration"] == pytest.approx(2.0, rel=0.01)
    assert doc["outstanding"] == 128
    lat = doc["latency"]
    assert lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99.9"] <= lat["p99.99"]


def test_replications_give_confidence(iolab):
    doc = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", "--json", "--ios", "30000",
                "--replications", "3").json()
    lo, hi = doc["confidence"]["iops"]
    assert lo <= hi and lo > 15000


def test_plot_is_a_png(iolab, tmp_path):
    out = tmp_path / "sim.png"
    r = iolab("simulate", V / "v12-azure-files-1024g-4k.yaml", "--ios", "20000", "--plot", out)
    assert r.code == 0, r.err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000


@pytest.mark.parametrize("args,words", [
    (["--ios", "10", "--duration", "1s"], ["--ios", "not both"]),
    (["--duration", "soon"], ["--duration"]),
    (["--ios", "0"], ["ios"]),
    (["--replications", "0"], ["replications"]),
    (["--plot", "x.gif"], ["--plot", ".png"]),
])
def test_bad_options(iolab, args, words):
    r = iolab("simulate", EXAMPLES / "oltp-ds13-p30.yaml", *args)
    assert r.code == 2, r.err
    for w in words:
        assert w in r.err


def test_cold_host_cache_warms_up(iolab):
    """A cold ReadOnly cache: predict gives the warm steady state (reads served by the cache, the
    VM's cached limit saturated); the simulation starts with misses on the disks and a hit
    ratio that grows interval by interval."""
    predicted = iolab("predict", EXAMPLES / "sql-data-and-log.yaml", "--json").json()
    assert predicted["bottleneck"]["kind"] == "vm-cache"
    assert any("starts cold" in n for n in predicted["notes"])
    sim = iolab("simulate", EXAMPLES / "sql-data-and-log.yaml", "--json", "--duration", "5s").json()
    cache = sim["cache"][0]
    ratios = [p["hit_ratio"] for p in cache["series"] if p["hit_ratio"] is not None]
    assert ratios[0] < 0.01 and ratios[-1] > ratios[0]
    assert cache["hit_ratio"] < 0.1
    assert sim["iops"] < 0.5 * predicted["iops"]  # the disks carry the misses while cold


def test_ctrl_c_stops_cleanly_with_a_partial_result(tmp_path):
    """SIGINT during a long simulation: exit 0, one JSON document, marked partial."""
    import json
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "iolab", "simulate", str(EXAMPLES / "oltp-ds13-p30.yaml"),
                             "--json", "--ios", "2000000000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    from test_voice_exits import _wait_for_cpu

    _wait_for_cpu(proc.pid, 1.5)  # the engine is running (start-up takes well under a second of CPU)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err  # Ctrl-C exits 130 even though the figures so far are printed
    assert err.startswith("error: interrupted (Ctrl-C)") and err.count("\n") == 1
    doc = json.loads(out)
    assert doc["partial"] is True
    assert 0 < doc["ios"] < 2_000_000_000 and doc["iops"] > 10000


def test_cli_default_ios_is_the_simulators():
    from iolab.cli import simulate as cli
    from iolab.sim import DEFAULT_IOS

    assert cli.DEFAULT_IOS == DEFAULT_IOS
