"""What characterize writes, plan takes unedited: any latency percentile from p50 to p99.99,
and a capacity (the measured size, or a warning in both commands when it is not known)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from conftest import DATA

T = DATA / "telemetry"
P95 = DATA / "requirements-measured" / "p95.yaml"


def _characterize(iolab, tmp_path: Path, *files: Path) -> tuple[Path, str]:
    out = tmp_path / "req.yaml"
    r = iolab("characterize", *[str(f) for f in files], "-o", str(out), "--no-store")
    assert r.code == 0, r.err
    return out, r.out


def test_characterized_requirements_plan_unedited_with_a_capacity_warning(iolab, tmp_path):
    out, text = _characterize(iolab, tmp_path, T / "sysstat" / "12.6.1" / "sar-d-p.txt")
    assert "capacity:" in out.read_text() and "capacity" not in yaml.safe_load(out.read_text())["require"]
    assert "the telemetry does not say how large the devices are" in " ".join(text.split())
    r = iolab("plan", str(out), "--top", "1")
    assert r.code == 0, r.err
    assert f"warning: {out}: require.capacity: no capacity is required" in r.err


def test_the_suggested_latency_line_plans_as_written(iolab, tmp_path):
    out, _ = _characterize(iolab, tmp_path, T / "iostat-12.5.txt")
    text = out.read_text()
    suggested = re.search(r"add `(latency: [^`]+)` under require:", text).group(1)
    out.write_text(text.replace("require:\n", f"require:\n  {suggested}\n  capacity: 1TiB\n"))
    r = iolab("plan", str(out), "--top", "1", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["warnings"] == []
    assert d["required"]["latency"] == pytest.approx(float(suggested.split()[1][:-2]) / 1000)


@pytest.mark.parametrize("key,level", [("p50", 0.5), ("p75", 0.75), ("p95", 0.95), ("p99.5", 0.995),
                                       ("p99.99", 0.9999)])
def test_any_percentile_from_p50_to_p99_99_is_a_bound(iolab, tmp_path, key, level):
    f = tmp_path / "req.yaml"
    f.write_text(P95.read_text().replace("{p95: 5ms}", f"{{{key}: 5ms}}"))
    r = iolab("check", str(f), "--json")
    assert r.code == 0, r.err
    from iolab.plan import load_requirements
    from iolab.plan.requirements import percentile_level

    assert dict(load_requirements(f).require.percentiles) == {key: 0.005}
    assert percentile_level(key) == level


@pytest.mark.parametrize("key", ["p40", "p99.999", "p100"])
def test_a_percentile_outside_p50_to_p99_99_is_refused(iolab, tmp_path, key):
    f = tmp_path / "req.yaml"
    f.write_text(P95.read_text().replace("{p95: 5ms}", f"{{{key}: 5ms}}"))
    r = iolab("plan", str(f))
    assert r.code == 2
    assert r.err.strip() == f"error: {f}: require.latency.{key}: a latency percentile from p50 to p99.99 (got {key})"


def test_p95_plans_and_is_checked_by_simulation(iolab):
    r = iolab("plan", str(P95), "--top", "1", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["required"]["percentiles"] == {"p95": 0.005}
    sim = d["candidates"][0]["simulated"]
    # p95 lies between the simulated p90 and p99, and within the bound
    assert sim["percentiles"]["p90"] <= sim["percentiles"]["p95"] <= sim["percentiles"]["p99"]
    assert sim["percentiles"]["p95"] <= 0.005 and sim["meets"] is True


def test_a_percentile_between_two_reported_is_exact_for_an_exponential_tail():
    # an exponential distribution of rate 1/ms: the q-quantile is -ln(1 − q) ms
    from iolab.plan.tail import between

    q = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999, "p99.99": 0.9999}
    est = {k: -math.log(1 - v) * 1e-3 for k, v in q.items()}
    assert between(est, "p95") == pytest.approx(-math.log(0.05) * 1e-3, rel=1e-12)
    assert between(est, "p99.5") == pytest.approx(-math.log(0.005) * 1e-3, rel=1e-12)
    assert between(est, "p99") == est["p99"]


def test_live_sampling_writes_the_measured_device_size(tmp_path):
    from iolab.telemetry import Trace
    from iolab.telemetry.live import Target, device_size
    from iolab.telemetry.model import Sample
    from iolab.telemetry.profile import profile, requirements_yaml

    sys_root = tmp_path / "sys"
    (sys_root / "class" / "block" / "sdb").mkdir(parents=True)
    (sys_root / "class" / "block" / "sdb" / "size").write_text("2147483648\n")   # 1 TiB in sectors
    target = Target("disk", "sdb", tmp_path)
    assert device_size(target, "sdb", sys_root) == 1 << 40
    assert device_size(target, "sdz", sys_root) is None
    trace = Trace(samples=[Sample(float(t), 1.0, "sdb", 100.0, 50.0, 409600.0, 204800.0) for t in range(1, 5)],
                  sizes={"sdb": 1 << 40})
    p = profile(trace)
    assert p.requirements["require"]["capacity"] == 1 << 40
    doc = yaml.safe_load(requirements_yaml(p, "test"))
    assert doc["require"]["capacity"] == 1 << 40
    assert not any("how large" in n for n in p.notes)
