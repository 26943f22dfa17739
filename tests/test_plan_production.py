"""`iolab plan` for production: a utilization margin, disks and shares in one search, the
monthly bill by part, regions, and requirements written by a program — on the small
catalog tests/data/plan/catalog.yaml, with every answer worked out by hand.

Common arithmetic (see tests/test_plan_disks.py): an 8 KiB IO costs T_Big's uncached cap
max(1/20000, 8192/400e6) = 50 µs and a T_P disk max(1/2000, 8192/100e6) = 0.5 ms.
"""

from __future__ import annotations

import re

import pytest

from conftest import bare, DATA

GiB, TiB, MiB = 2**30, 2**40, 2**20


def reads(extra: str = "", search: str = "kind: disks, vms: [T_Small, T_Big], skus: [T_P]") -> str:
    return f"""
version: 1
jobs: [{{rw: randread, bs: 8k, iodepth: 16, ioengine: libaio}}]
require: {{iops: 5400{extra}}}
search: {{{search}}}
"""


def test_the_default_margin_changes_the_winner(plan):
    # 5,400 IOPS over n × T_P (2,000 IOPS each): 3 disks are 5400/3/2000 = 90 % busy, 4 are
    # 67.5 %. Without a margin (max_utilization: 1) T_Big + 3 × T_P wins at $300 + 3 × $50 =
    # $450; with the default 80 % 3 disks break the margin and 4 win at $500.
    loose = plan(reads(", max_utilization: 1"))
    assert loose["candidates"][0]["config"]["disks"][0]["count"] == 3
    assert loose["candidates"][0]["monthly_cost"] == 450.0
    assert loose["required"]["max_utilization"] == 1.0
    doc = plan(reads())
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Big", "disks": [{"sku": "T_P", "count": 4, "caching": "none"}]}
    assert first["monthly_cost"] == 500.0
    assert first["headroom"] == pytest.approx(1 - 0.675)
    assert doc["required"]["max_utilization"] == 0.8
    # The 3-disk row is cheaper and fails: the explanation names the disks and the margin.
    three = next(m for m in doc["rejected"] if m["config"]["vm"] == "T_Big")
    assert three["config"]["disks"][0]["count"] == 3 and three["monthly_cost"] == 450.0
    assert three["lacks"] == ["the disks would be 90% busy at 5,400 IOPS, over the 80% allowed"]


def test_every_candidate_keeps_the_margin_on_every_resource(plan):
    doc = plan(reads(", max_utilization: 70%"), "--top", "5")
    assert doc["required"]["max_utilization"] == 0.7
    for c in doc["candidates"]:
        pred = c["prediction"]
        assert all(r["utilization"] <= 0.7 + 1e-9 for r in pred["resources"] + pred.get("slots", []))
        assert c["headroom"] >= 0.3 - 1e-9


def test_a_margin_on_session_slots(plan):
    # 40,000 IOPS of 8 KiB reads on t-slots over NFSv4.1 (one session of 64 slots) with
    # nconnect 2. At the 1 TiB minimum the service gives 1,024 MiB/s: D = 7.629 µs,
    # U = 40000 × 7.629 µs = 30.5 %; each connection carries 50,000 requests/s and 500 MiB/s:
    # D = max(20, 15.625) = 20 µs for half the IOs, U = 40 %. An IO spends (each cap a
    # throttle, M/D/1; the two connections taken in turn wait half as long) 1 ms + 7.629 ×
    # 0.305/1.39 + 20 × 0.4/1.2 / 2 µs = 1.005009 ms inside the session: 40,000 × 1.005009 ms
    # = 40.20 IOs in 64 slots, 62.8 % busy; fine at 80 %, not at 62 %
    # (the session binds the margin: the connections are 40 %, the service 30.5 %).
    text = """
version: 1
jobs: [{rw: randread, bs: 8k, iodepth: 32, numjobs: 4, ioengine: libaio}]
require: {iops: 40000, capacity: 1TiB%s}
search: {kind: share, levels: [t-slots], protocols: [nfs4.1], nconnect: [2]}
"""
    doc = plan(text % "")
    slots = doc["candidates"][0]["prediction"]["slots"]
    assert slots[0]["utilization"] == pytest.approx(40000 * 1.005009e-3 / 64, abs=1e-4)
    tight = plan(text % ", max_utilization: 0.62")
    assert tight["candidates"] == []
    lacks = tight["nearest"][0]["lacks"]
    assert "the NFSv4.1 session slots would be 63% busy at 40,000 IOPS, over the 62% allowed" in lacks
    assert tight["nearest"][0]["facts"] == ["NFSv4.1 has one session of 64 slots per client, whatever nconnect is"]


def test_kind_any_picks_a_share_over_disks_where_cheaper(plan):
    # Disks: T_Small takes two T_P (135 % busy); T_Big needs 4 × T_P for the 80 % margin: $500.
    # Share t-cheap over NFSv3 (16 MiB/s per TiB): 5,400 × 8 KiB = 42.1875 MiB/s must keep
    # the service ≤ 80 % busy: 52.734 MiB/s, 3.2959 TiB = 3,375 GiB × $0.04 = $135. Its client
    # VM: T_Small ($100; no network figure, so no egress cap) is cheaper than T_Big and as
    # good: $235, the answer. The disk attempt on T_Small ($200) is cheaper and fails.
    doc = plan(reads(search="kind: any, vms: [T_Small, T_Big], skus: [T_P], levels: [t-cheap], "
                            "protocols: [nfs3], nconnect: [1]"))
    first = doc["candidates"][0]
    assert first["kind"] == "share"
    assert bare(first["config"]) == {"service": "anf", "level": "t-cheap", "size": 3375 * GiB,
                               "throughput": pytest.approx(3375 / 1024 * 16 * MiB, abs=0.1),
                               "protocol": "nfs3", "nconnect": 1, "qos": "auto", "vm": "T_Small"}
    assert first["monthly_cost"] == pytest.approx(235.0)
    assert first["bill"] == {"vm": 100.0, "disks": 0.0, "shares": 135.0, "provisioned": 0.0, "total": 235.0,
                           "pricing": {"vm": "payg", "disks": "payg", "shares": "payg"}}
    disks = next(c for c in doc["candidates"] if c["kind"] == "disks")
    assert bare(disks["config"]) == {"vm": "T_Big", "disks": [{"sku": "T_P", "count": 4, "caching": "none"}]}
    assert disks["why"].startswith("costs $265.00/month more than #1")
    small = next(m for m in doc["rejected"] if m["config"].get("disks"))
    assert small["config"]["vm"] == "T_Small" and small["monthly_cost"] == 200.0
    assert "the disks would be 135% busy" in small["lacks"][0]
    assert small["facts"] == ["T_Small takes at most 2 data disks"]
    # A list of kinds is the same search.
    same = plan(reads(search="kind: [disks, share], vms: [T_Small, T_Big], skus: [T_P], levels: [t-cheap], "
                             "protocols: [nfs3], nconnect: [1]"))
    assert same["candidates"] == doc["candidates"]


def test_kind_any_tries_host_caching_where_published(plan):
    # No caching given: kind any tries none and ReadOnly (the workload only reads). T_Cache's
    # 256 GiB cache holds the 200 GiB working set: every read hits the cached cap
    # (20,000 IOPS: 27 % busy) and one T_P holds the capacity: $250 + $50 = $300, cheaper
    # than T_Big + 4 × T_P ($500). Uncached, T_Cache's 5,000 IOPS would be 108 % busy.
    doc = plan(reads(", capacity: 200GiB", search="kind: any, vms: [T_Cache, T_Big], skus: [T_P], "
                                                 "levels: [t-fast], protocols: [nfs3], nconnect: [1]"))
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Cache", "disks": [{"sku": "T_P", "count": 1, "caching": "readonly"}]}
    assert first["monthly_cost"] == 300.0


def test_readwrite_is_tried_only_when_writes_need_not_be_durable(tmp_path):
    from iolab.plan import load_requirements

    base = "version: 1\njobs: [{rw: randrw, rwmixread: 50, bs: 8k}]\nrequire: {iops: 100%s}\nsearch: {kind: %s}\n"
    cases = {("", "any"): ["none", "readonly"], (", durable: false", "any"): ["none", "readonly", "readwrite"],
             ("", "disks"): ["none"]}
    for (extra, kind), modes in cases.items():
        path = tmp_path / "req.yaml"
        path.write_text(base % (extra, kind))
        assert load_requirements(path).search.caching == modes, (extra, kind)
    path.write_text("version: 1\njobs: [{rw: randread, bs: 8k}]\nrequire: {iops: 100, durable: false}\n"
                    "search: {kind: any}\n")
    assert load_requirements(path).search.caching == ["none", "readonly"]  # no writes: ReadWrite is ReadOnly


def test_the_bill_adds_up_to_the_monthly_cost(plan):
    # T_Big + 1 × Premium SSD v2 with 5,400 IOPS under the 80 % margin: 6,750 IOPS at least
    # (more for a 2 ms mean); price per GiB-month $0.10, per IOPS-month above 3,000 $0.01.
    doc = plan(reads(", latency: 2ms", search="kind: disks, vms: [T_Big], skus: [premium-v2], max_disks: 1"))
    first = doc["candidates"][0]
    disk = first["config"]["disks"][0]
    assert disk["iops"] >= 5400 / 0.8
    bill = first["bill"]
    assert bill["vm"] == 300.0
    assert bill["disks"] == pytest.approx(disk["size"] / GiB * 0.10)
    assert bill["provisioned"] == pytest.approx((disk["iops"] - 3000) * 0.01)
    assert bill["shares"] == 0.0
    assert bill["total"] == pytest.approx(first["monthly_cost"], abs=0.01)
    assert sum(bill[k] for k in ("vm", "disks", "shares", "provisioned")) == pytest.approx(bill["total"], abs=0.02)


def test_the_bill_of_a_manual_qos_pool(plan):
    # t-pool ($0.20/GiB, pool ≥ 1 TiB, 64 MiB/s per TiB): 5,400 × 8 KiB = 42.1875 MiB/s needs
    # ≥ 52.734 MiB/s at 80 %: a volume of 843.75 → 844 GiB (52.75 MiB/s), billed by its pool
    # of at least 1 TiB: $204.80, nothing provisioned on top (the level prices no throughput).
    doc = plan(reads(search="kind: share, levels: [t-pool], protocols: [nfs3], nconnect: [1]"))
    first = doc["candidates"][0]
    assert first["config"]["size"] == 844 * GiB and first["config"]["pool"] == TiB
    assert first["config"]["throughput"] == pytest.approx(52.75 * MiB)
    assert first["bill"] == {"vm": 0.0, "disks": 0.0, "shares": 204.8, "provisioned": 0.0, "total": 204.8,
                           "pricing": {"vm": "payg", "disks": "payg", "shares": "payg"}}


def test_region_is_passed_to_the_catalog(iolab, tmp_path, monkeypatch):
    from iolab.catalog import Catalog

    asked = []
    real = Catalog.in_region

    def spy(self, region):
        asked.append(region)
        return real(self, region)

    monkeypatch.setattr(Catalog, "in_region", spy)
    path = tmp_path / "req.yaml"
    path.write_text(reads())
    r = iolab("plan", str(path), "--json", "--catalog", str(DATA / "plan" / "catalog.yaml"))
    assert r.code == 0, r.err
    assert asked == ["eastus"] and r.json()["region"] == "eastus"
    r = iolab("plan", str(path), "--catalog", str(DATA / "plan" / "catalog.yaml"), "--region", "westeurope")
    assert r.code == 0, r.err
    assert asked[-1] == "westeurope" and "prices of westeurope" in r.out


# --- Latency percentiles, checked by simulation --------------------------------------------

TAIL = """
version: 1
jobs: [{rw: randread, bs: 8k, iodepth: 16, ioengine: libaio}]
require: {iops: 750, latency: %s}
search: {kind: disks, vms: [T_Wide], skus: [T_Slow, T_Quick]}
"""
DETERMINISTIC = str(DATA / "plan" / "deterministic.yaml")


def md1_wait_quantile(q: float, lam: float, d: float) -> float:
    """The q-quantile of the wait in an M/D/1 queue (Poisson arrivals at ``lam``, service
    ``d`` seconds), from Erlang's formula P(W ≤ t) = (1 − ρ) Σ_{k=0}^{⌊t/d⌋}
    (λ(kd − t))^k / k! · e^{−λ(kd − t)}, found by stepping up then bisecting."""
    import math

    def cdf(t: float) -> float:
        return (1 - lam * d) * sum((lam * (k * d - t)) ** k / math.factorial(k) * math.exp(-lam * (k * d - t))
                                   for k in range(int(t // d) + 1))

    hi = d / 8
    while cdf(hi) < q:
        hi += d / 8
    lo = hi - d / 8
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if cdf(mid) >= q else (mid, hi)
    return hi


def test_a_p99_bound_changes_the_winner(plan):
    # 750 IOPS of 8 KiB reads on T_Wide (caps too high to matter, $100). T_Slow ($40) serves an
    # IO in 1 ms (1,000 IOPS), T_Quick ($60) in 0.5 ms (2,000 IOPS); both take 1 ms unloaded.
    # On means (M/D/1, as the plan reckons): 1 × T_Slow is 75 % busy, 1 ms × (1 + 0.75 / 0.5) = 2.5 ms ≤ 5 ms:
    # T_Wide + 1 × T_Slow wins at $140.
    mean_only = plan(TAIL % "5ms", "--catalog", DETERMINISTIC)
    first = mean_only["candidates"][0]
    assert first["config"]["disks"] == [{"sku": "T_Slow", "count": 1, "caching": "none"}]
    assert first["monthly_cost"] == 140.0
    assert "simulated" not in first and "checked" not in mean_only
    # Simulated, each disk is an M/D/1 queue (Poisson arrivals, a throttle's even service)
    # plus a fixed delay of 1 ms − service: latency = 1 ms + wait. The exact p99s:
    # 1 × T_Slow: λ 750, d 1 ms → 9.04 ms; 1 × T_Quick: λ 750, d 0.5 ms → 2.18 ms;
    # 2 × T_Slow: λ 375 each, d 1 ms → 3.36 ms. With p99 ≤ 4 ms, T_Slow alone fails and
    # T_Wide + 1 × T_Quick wins at $160.
    exact = {("T_Slow", 1): 1e-3 + md1_wait_quantile(0.99, 750, 1e-3),
             ("T_Quick", 1): 1e-3 + md1_wait_quantile(0.99, 750, 0.5e-3),
             ("T_Slow", 2): 1e-3 + md1_wait_quantile(0.99, 375, 1e-3)}
    assert exact[("T_Slow", 1)] == pytest.approx(9.04e-3, abs=1e-5)
    assert exact[("T_Quick", 1)] == pytest.approx(2.18e-3, abs=1e-5)
    doc = plan(TAIL % "{mean: 5ms, p99: 4ms}", "--catalog", DETERMINISTIC, "--top", "2", "--sim-ios", "20000")
    assert doc["required"]["percentiles"] == {"p99": 0.004} and doc["required"]["latency"] == 0.005
    first = doc["candidates"][0]
    assert first["config"]["disks"] == [{"sku": "T_Quick", "count": 1, "caching": "none"}]
    assert first["monthly_cost"] == 160.0
    assert doc["checked"] == 3  # T_Slow alone, T_Quick alone, 2 × T_Slow: two meet, --top 2
    slow = doc["rejected"][0]
    assert slow["config"]["disks"] == [{"sku": "T_Slow", "count": 1, "caching": "none"}]
    assert slow["lacks"][0].startswith("simulated p99 ") and slow["lacks"][0].endswith("over the required 4 ms")
    seen = {(c["config"]["disks"][0]["sku"], c["config"]["disks"][0]["count"]): c["simulated"]
            for c in doc["candidates"] + doc["rejected"]}
    assert set(seen) == set(exact)
    for key, sim in seen.items():
        assert sim["percentiles"]["p99"] == pytest.approx(exact[key], rel=0.05), key
        low, high = sim["interval"]["p99"]
        assert low < sim["percentiles"]["p99"] < high and high - low < 0.25 * exact[key]
        assert sim["replications"] == 5 and sim["ios"] == 5 * 20000
        assert sim["meets"] == (sim["percentiles"]["p99"] <= 0.004)
    # Seeded: the same command gives the same figures.
    again = plan(TAIL % "{mean: 5ms, p99: 4ms}", "--catalog", DETERMINISTIC, "--top", "2", "--sim-ios", "20000")
    assert again == doc


def test_no_candidate_meets_the_percentile(plan, iolab, tmp_path):
    # p99 ≤ 1.5 ms leaves 0.5 ms of wait at the 99th percentile. The two cheapest on means,
    # 1 × T_Slow (exact p99 9.04 ms) and 1 × T_Quick (2.18 ms), both fail; with --check-top 2
    # nothing else is simulated, so nothing is proposed (a configuration not simulated is
    # never proposed), and the nearest misses come least shortfall first: T_Quick, T_Slow.
    doc = plan(TAIL % "{p99: 1.5ms}", "--catalog", DETERMINISTIC, "--check-top", "2", "--sim-ios", "5000")
    assert doc["candidates"] == [] and doc["checked"] == 2
    assert doc["required"]["latency"] is None
    assert [m["config"]["disks"][0]["sku"] for m in doc["nearest"][:2]] == ["T_Quick", "T_Slow"]
    assert all(m["lacks"][0].startswith("simulated p99") for m in doc["nearest"][:2])
    path = tmp_path / "tail.yaml"
    path.write_text(TAIL % "{p99: 1.5ms}")
    r = iolab("plan", str(path), "--catalog", str(DATA / "plan" / "catalog.yaml"), "--catalog", DETERMINISTIC,
              "--check-top", "2", "--sim-ios", "5000")
    assert r.code == 0, r.err
    assert "No configuration meets the requirements" in r.out and "simulated p99" in r.out


# --- Several workloads on one machine -------------------------------------------------------

MACHINE = """
version: 1
workloads:
  data:
    jobs: [{rw: randread, bs: 8k, iodepth: 16, ioengine: libaio}]
    require: {iops: 3000, capacity: 200GiB}%s
  log:
    jobs: [{rw: write, bs: 8k, iodepth: 4, ioengine: libaio}]
    require: {iops: 1500, latency: 2.5ms, capacity: 100GiB}
search: {kind: disks, vms: [T_Small, T_Cache, T_Big], skus: [T_P]}
"""


def test_two_workloads_share_the_vms_caps(plan):
    # T_Cache ($250): uncached 5,000 IOPS (an 8 KiB IO costs 200 µs there), cached 20,000
    # (50 µs), a 256 GiB cache, 4 data disks. Alone, data (3,000 IOPS) would keep its
    # uncached cap 60 % busy and log (1,500) 30 %: each fits 80 %, together 90 % do not.
    # With ReadOnly caching (allowed by default: data only reads) data's 200 GiB all hit the
    # cache: its reads move to the cached cap (3,000 × 50 µs = 15 %); log keeps 30 %.
    # Disks: data needs one T_P for its capacity (hits never reach it); log's 1,500 IOPS on
    # T_P (2,000) need 2 disks for 2.5 ms (each cap a throttle, M/D/1: D (1 + U / (2 (1 − U)))):
    # delay 2 ms − 0.2 − 0.5 = 1.3 ms, VM 0.2 × (1 + 0.3 / 1.4) = 0.242857 ms, disks 0.5 × (1 +
    # 0.375 / 1.25) = 0.65 ms: 2.192857 ms (1 disk, 75 % busy: 1.25 ms there, 2.79 ms in all).
    # data: hit 0.2 ms − 50 µs = 0.15 ms + 50 µs × (1 + 0.15 / 1.7) = 0.204412 ms.
    # $250 + 3 × $50 = $400.
    doc = plan(MACHINE % "")
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Cache", "volumes": {
        "data": {"disks": [{"sku": "T_P", "count": 1, "caching": "readonly"}]},
        "log": {"disks": [{"sku": "T_P", "count": 2, "caching": "none"}]}}}
    assert first["monthly_cost"] == 400.0
    assert first["workloads"]["data"]["latency"]["mean"] == pytest.approx(0.2044118e-3, rel=1e-5)
    assert first["workloads"]["log"]["latency"]["mean"] == pytest.approx(2.192857e-3, rel=1e-5)
    loads = {r["kind"]: r["utilization"] for r in first["prediction"]["resources"] if r["kind"].startswith("vm")}
    assert loads == {"vm": pytest.approx(0.3), "vm-cache": pytest.approx(0.15)}
    assert first["bill"] == {"vm": 250.0, "disks": 150.0, "shares": 0.0, "provisioned": 0.0, "total": 400.0,
                           "pricing": {"vm": "payg", "disks": "payg", "shares": "payg"}}
    assert doc["required"]["workloads"]["log"]["caching"] == ["none", "readonly"]
    # T_Small ($100) has no host cache and takes 2 data disks: data needs 2 × T_P uncached
    # (3,000 / 2 / 2,000 = 75 % busy), log 2: 4 disks.
    small = next(m for m in doc["rejected"] if m["config"]["vm"] == "T_Small")
    assert small["lacks"] == ["the volumes need 4 data disks; T_Small takes at most 2"]


def test_without_caching_the_shared_cap_moves_the_machine(plan):
    # data without caching: on T_Cache both workloads load the uncached cap, 60 % + 30 % =
    # 90 % > 80 %, and log's VM term becomes 0.2 × (1 + 0.9 / 0.2) = 1.1 ms: 1.3 + 1.1 + 0.65 =
    # 3.05 ms > 2.5 ms. T_Big (uncached 20,000: 50 µs, 22.5 % busy) with data on 2 × T_P (75 %)
    # and log on 2 × T_P (one would give 2.76 ms): $300 + 4 × $50 = $500. T_Cache's try
    # ($250 + 4 × $50 = $450) says why.
    doc = plan(MACHINE % "\n    caching: [none]")
    first = doc["candidates"][0]
    assert first["config"]["vm"] == "T_Big" and first["monthly_cost"] == 500.0
    cache = next(m for m in doc["rejected"] if m["config"]["vm"] == "T_Cache")
    assert cache["monthly_cost"] == 450.0
    assert cache["lacks"] == ["the VM's uncached limit would be 90% busy (data 60%, log 30%), over the 80% allowed",
                              "log: mean latency 3.05 ms over the required 2.5 ms"]


def test_workloads_text_output(iolab, tmp_path):
    path = tmp_path / "machine.yaml"
    path.write_text(MACHINE % "")
    r = iolab("plan", str(path), "--catalog", str(DATA / "plan" / "catalog.yaml"))
    assert r.code == 0, r.err
    assert "2 workloads on one machine" in r.out
    assert "T_Cache + data: 1 × T_P, cache readonly; log: 2 × T_P" in r.out
    assert "Monthly bill of #1: VM $250.00 + disks $150.00 = $400.00" in r.out


@pytest.mark.parametrize("body,field,message", [
    ("workloads: {data: {jobs: [{rw: read}], require: {iops: 10}}}\njobs: [{rw: read}]\n", "jobs",
     "each workload has its own jobs"),
    ("workloads: {data: {jobs: [{rw: read}]}}\n", "workloads.data.require", "missing required field"),
    ("workloads: {data: {jobs: [{rw: read}], require: {iops: 10}, cache: [none]}}\n", "workloads.data.cache",
     "did you mean 'caching'"),
    ("workloads: {data: {jobs: [{rw: read}], require: {iops: 10}, caching: [sometimes]}}\n",
     "workloads.data.caching[0]", "expected 'none', 'readonly' or 'readwrite'"),
    ("workloads: {data: {jobs: [{rw: walk}], require: {iops: 10}}}\n", "workloads.data.jobs[0].rw",
     "unknown rw 'walk'"),
    ("workloads: {data: {jobs: [{rw: read}], require: {iops: 10}}}\nsearch: {kind: share}\n", "search.kind",
     "planned on managed disks"),
    ("workloads: []\n", "workloads", "expected a mapping of workload names"),
])
def test_malformed_workloads_exit_2(iolab, tmp_path, body, field, message):
    path = tmp_path / "bad.yaml"
    path.write_text("version: 1\n" + body)
    r = iolab("plan", str(path))
    assert r.code == 2, r.out + r.err
    line = r.err.strip()
    assert "\n" not in line and line.startswith(f"error: {path}: {field}: "), line
    assert message in line


# --- Requirements written by a program (iolab characterize) ---------------------------------

def test_a_requirements_file_written_by_a_program_plans_unedited(iolab, tmp_path):
    """What a measuring tool writes: measured floats (1,234.5 IOPS, 70.6 % reads), base units
    in floats (seconds, bytes/s, bytes, 8192.0-byte blocks, even 2.0 clients), sizes and
    rates as strings with units, percentiles as keys — dumped by PyYAML as it would."""
    import yaml

    from iolab.plan import load_requirements

    doc = {"version": 1,
           "jobs": [{"name": "measured", "rw": "randrw", "rwmixread": 70.6, "bs": 8192.0, "iodepth": 7.0,
                     "ioengine": "libaio"}],
           "require": {"iops": 1234.5, "bandwidth": "9.9 MB/s", "latency": {"mean": 0.0021, "p99": 0.0123,
                                                                             "p99.9": "25.5 ms"},
                       "capacity": "1.5 TiB", "max_utilization": 0.75},
           "clients": 2.0,
           "search": {"kind": "disks", "vms": ["T_Big"], "skus": ["T_P"]}}
    path = tmp_path / "characterized.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    req = load_requirements(path, [DATA / "plan" / "catalog.yaml"])
    need = req.require
    assert (need.iops, need.bandwidth, need.latency) == (1234.5, 9.9e6, 0.0021)
    assert need.percentiles == {"p99": 0.0123, "p99.9": pytest.approx(0.0255)}
    assert need.capacity == int(1.5 * 2**40) and need.max_utilization == 0.75 and req.clients == 2
    fio = req.jobs[0].fio  # a measured 70.6 % reads is 71 % for fio; 8192.0 and 7.0 are whole
    assert (fio.rwmixread, fio.bs, fio.iodepth) == (71, 8192, 7)
    # Load: the larger of 1,234.5 IOPS and 9.9 MB/s / 8 KiB = 1,208.5: 1,234.5 IOPS, 617.25 per
    # client; 1.5 TiB over 2 clients is 768 GiB each: 2 × T_P (512 GiB) per client, 15 % busy.
    r = iolab("plan", str(path), "--json", "--catalog", str(DATA / "plan" / "catalog.yaml"), "--check-top", "1",
              "--sim-ios", "2000", "--replications", "2")
    assert r.code == 0, r.err
    out = r.json()
    assert out["required"]["iops"] == 1234.5 and out["required"]["clients"] == 2
    first = out["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Big", "disks": [{"sku": "T_P", "count": 2, "caching": "none"}],
                               "clients": 2}
    assert set(first["simulated"]["percentiles"]) >= {"p99", "p99.9"}
    # The same numbers written back as strings with units plan the same.
    doc["require"] = {"iops": "1234.5", "bandwidth": 9900000.0, "latency": "2.1ms", "capacity": 1649267441664.0,
                      "max_utilization": "75%"}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    again = load_requirements(path, [DATA / "plan" / "catalog.yaml"]).require
    assert (again.iops, again.bandwidth, again.capacity, again.max_utilization) == (1234.5, 9.9e6, 1649267441664, 0.75)
    assert again.latency == pytest.approx(0.0021)


def test_progress_is_reported_while_simulating_and_json_stays_clean(iolab, tmp_path):
    from iolab.plan import load_requirements, plan
    from iolab.plan.tail import TailOptions

    path = tmp_path / "tail.yaml"
    path.write_text(TAIL % "{mean: 5ms, p99: 4ms}")
    seen = []
    req = load_requirements(path, [DATA / "plan" / "catalog.yaml"])
    result = plan(req, top=1, tail=TailOptions(top=3, ios=2000, replications=2,
                                                progress=lambda done, total, f: seen.append((done, total, f))))
    # 1 × T_Slow fails its p99, 1 × T_Quick meets it and is the one candidate asked for.
    assert result.checked == 2 and len(result.candidates) == 1
    assert {d for d, _, _ in seen} == {0, 1} and all(t == 3 for _, t, _ in seen)
    assert [f for d, _, f in seen if d == 1][-1] == 1.0
    r = iolab("plan", str(path), "--json", "--catalog", str(DATA / "plan" / "catalog.yaml"), "--sim-ios", "2000")
    # nothing on stderr but the warning that the file gives no capacity
    assert r.code == 0 and [l.split(": ")[2] for l in r.err.splitlines()] == ["require.capacity"], r.err


def test_burst_credits_never_count(plan):
    # 1,500 IOPS of 8 KiB reads on T_Wide ($100). T_Burst ($30) sustains 1,000 IOPS (bursts
    # to 3,000 on credits): one would be 150 % busy on its sustained cap, two 75 % ($60).
    # One T_P (2,000 IOPS, $50) is 75 % busy: T_Wide + 1 × T_P wins at $150. Counting the
    # burst, one T_Burst at 50 % ($130) would have looked cheapest.
    doc = plan("""
version: 1
jobs: [{rw: randread, bs: 8k, iodepth: 16, ioengine: libaio}]
require: {iops: 1500, latency: {p99: 50ms}}
search: {kind: disks, vms: [T_Wide], skus: [T_Burst, T_P]}
""", "--check-top", "2", "--sim-ios", "2000", "--replications", "2", "--top", "1")
    first = doc["candidates"][0]
    assert first["config"]["disks"] == [{"sku": "T_P", "count": 1, "caching": "none"}]
    assert first["monthly_cost"] == 150.0
    burst = next(m for m in doc["rejected"] if m["config"]["disks"][0]["sku"] == "T_Burst")
    assert burst["config"]["disks"][0]["count"] == 1
    assert burst["lacks"] == ["the disks would be 150% busy at 1,500 IOPS"]


def test_the_simulated_check_runs_without_burst_credits(tmp_path):
    from iolab.compile import compile_scenario
    from iolab.plan import load_requirements
    from iolab.plan.config import Config, DiskChoice
    from iolab.plan.tail import job_rates, open_network

    path = tmp_path / "req.yaml"
    path.write_text("version: 1\njobs: [{rw: randread, bs: 8k, iodepth: 4, numjobs: 2}]\nrequire: {iops: 900}\n")
    req = load_requirements(path, [DATA / "plan" / "catalog.yaml"])
    network = compile_scenario(Config("T_Wide", 1, (DiskChoice("T_Burst", 2),)).scenario(req))
    assert any(r.cap is not None and r.cap.burst is not None for r in network.resources)
    rates = job_rates(network, 900.0)
    assert rates == {"job1": 900.0}
    opened = open_network(network, rates)
    assert all(r.cap is None or r.cap.burst is None for r in opened.resources)
    assert [(j.rate, j.arrival) for j in opened.jobs] == [(900.0, "poisson")]
    assert all(c.warm for c in opened.caches)


def test_a_workloads_percentile_is_simulated_on_the_whole_machine(plan):
    # With fixed delays, each log IO takes at least 1.3 ms of delay + 0.2 ms at the VM's cap +
    # 0.5 ms on a disk = 2 ms, so p99 ≤ 10 ms holds on the $400 machine and p99 ≤ 1.9 ms on none.
    text = (MACHINE % "").replace("latency: 2.5ms", "latency: {mean: 2.5ms, p99: %s}")
    doc = plan(text % "10ms", "--catalog", DETERMINISTIC, "--check-top", "2", "--sim-ios", "3000",
               "--replications", "2", "--top", "1")
    first = doc["candidates"][0]
    assert first["monthly_cost"] == 400.0 and doc["checked"] == 1
    log = first["workloads"]["log"]["simulated"]
    assert 2e-3 <= log["percentiles"]["p99"] <= 10e-3 and log["meets"] is True
    assert "simulated" not in first["workloads"]["data"]
    none = plan(text % "1.9ms", "--catalog", DETERMINISTIC, "--check-top", "2", "--sim-ios", "3000",
                "--replications", "2")
    assert none["candidates"] == [] and none["checked"] == 2
    # the nearest misses, closest first: the simulated ones (log's p99 at least 2 ms over 1.9 ms)
    # among the machines whose disks or caps fail on means
    assert [m["shortfall"] for m in none["nearest"]] == sorted(m["shortfall"] for m in none["nearest"])
    simulated = [m for m in none["nearest"] if m["lacks"][0].startswith("log: simulated p99 ")]
    assert simulated and all(m["shortfall"] >= 2 / 1.9 for m in simulated)
    assert none["near_misses"] == [{k: m[k] for k in ("config", "monthly_cost", "shortfall", "lacks")} | {"facts": []}
                                   for m in none["nearest"]]


def test_text_output_shows_the_margin_the_kinds_and_the_percentiles(iolab, tmp_path):
    path = tmp_path / "tail.yaml"
    path.write_text(TAIL % "{mean: 5ms, p99: 4ms}")
    r = iolab("plan", str(path), "--catalog", str(DATA / "plan" / "catalog.yaml"), "--catalog", DETERMINISTIC,
              "--sim-ios", "5000", "--top", "1")
    assert r.code == 0, r.err
    assert "p99 ≤ 4 ms (simulated), no resource over 80% busy" in r.out
    assert "feasible on means; the cheapest 2 simulated" in r.out
    assert "p99 (95% interval)" in r.out and "T_Wide + 1 × T_Quick" in r.out
    # a near miss says how far it came: its simulated p99 over the 4 ms bound
    miss = re.search(r"T_Wide \+ 1 × T_Slow \(\$140\.00/month, ([\d.]+)× its limit\): simulated p99 ([\d.]+) ms", r.out)
    assert miss, r.out
    assert float(miss.group(1)) == pytest.approx(float(miss.group(2)) / 4, abs=0.006)
    path.write_text(reads(search="kind: any, vms: [T_Small], skus: [T_P], levels: [t-cheap], protocols: [nfs3], "
                                 "nconnect: [1]"))
    r = iolab("plan", str(path), "--catalog", str(DATA / "plan" / "catalog.yaml"))
    assert r.code == 0, r.err
    assert "(disks and share; prices of eastus)" in r.out
    assert "Monthly bill of #1: VM $100.00 + shares and pools $135.00 = $235.00" in r.out


def test_check_summarises_the_new_fields(iolab, tmp_path):
    path = tmp_path / "machine.yaml"
    path.write_text((MACHINE % "").replace("latency: 2.5ms", "latency: {mean: 2.5ms, p99: 6ms}, max_utilization: 70%"))
    r = iolab("check", str(path), "--catalog", str(DATA / "plan" / "catalog.yaml"))
    assert r.code == 0, r.err
    out = " ".join(r.out.split())  # long lines wrap at the terminal's width
    assert ("workload log: require: 1,500 IOPS; mean latency ≤ 2.5 ms; 100 GiB usable; no resource over 70% busy; "
            "writes durable; p99 latency ≤ 6 ms") in out
    assert "workload data: job data: randread, 8 KiB, 16 in flight" in out


def test_a_margin_message_never_reads_the_same_figure_twice():
    from iolab.plan.rank import over_margin

    # 63.49 % over a 63 % margin would read "63% ... over the 63% allowed": one more decimal.
    assert over_margin(0.6349, 0.63) == ("63.5%", "63.0%")
    assert over_margin(0.6349, 0.62) == ("63%", "62%")
    assert over_margin(0.81, 0.8) == ("81%", "80%")


def test_the_plan_reckons_a_throttle_as_md1_and_the_simulator_agrees(plan):
    """750 IOPS at random (Poisson) arrivals on one T_Slow (1 ms service, 75 % busy): the
    open model's mean is M/D/1's, 1 ms × (1 + 0.75 / (2 × 0.25)) = 2.5 ms (M/M/1 would say
    4 ms), and the simulation of the candidate agrees within 5 %."""
    doc = plan(TAIL % "{mean: 5ms, p99: 20ms}", "--catalog", DETERMINISTIC, "--top", "1", "--sim-ios", "20000")
    first = doc["candidates"][0]
    assert first["config"]["disks"] == [{"sku": "T_Slow", "count": 1, "caching": "none"}]
    assert first["prediction"]["latency"]["mean"] == pytest.approx(2.5e-3, rel=1e-3)
    assert first["simulated"]["mean"] == pytest.approx(2.5e-3, rel=0.05)
