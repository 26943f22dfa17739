"""`iolab plan` over file shares, on the small catalog tests/data/plan/catalog.yaml.

Its levels (service anf, picked by `levels:`): t-fast 128 MiB/s per TiB from 1 TiB, at most
1,000 MiB/s, $0.30/GiB; t-cheap 16 MiB/s per TiB from 100 GiB, $0.04/GiB; t-large regular
volumes capped at 500 MiB/s, large ones 20-100 TiB up to 2,000 MiB/s, 64 MiB/s per TiB,
$0.05/GiB; t-slots 1,024 MiB/s per TiB from 1 TiB, $0.50/GiB. Every level's unloaded latency
is 1 ms. One connection (or SMB channel) carries 500 MiB/s and 50,000 requests/s; NFSv3 has
128 slots per connection, NFSv4.1 one session of 64 slots. A client VM's protocol stack runs
on at most 4 of its cores, 1 / 50,000 s per IO plus 1 / 500 MiB/s per byte.

Open model per IO, each cap a throttle (M/D/1): R = Σ Z + Σ D × (1 + U / (2 (1 − U))) with
Z = 1 ms − Σ D, i.e. R = 1 ms + Σ D·U/(2 (1 − U)).
"""

from __future__ import annotations

import math

import pytest

from conftest import bare


GiB, TiB, MiB = 2**30, 2**40, 2**20


def test_a_service_minimum_decides(plan):
    # 64 KiB reads at 60 MiB/s: λ = 960 IOPS. One SMB channel: D = 64 KiB / 500 MiB/s = 125 µs,
    # U = 0.12, adding 125 µs × 0.12 / 1.76 = 8.5227 µs. Within 2 ms the service may add
    # 0.9914773 ms: D·U/(2(1−U)) with D = U/960, so U²/(2(1−U)) = 0.951818, U = 0.724366: the
    # service needs 60 / 0.724366 = 82.831 MiB/s.
    # t-cheap: 82.831 / 16 TiB = 5,301.2 GiB → 5,302 GiB at $0.04 = $212.08.
    # t-fast would need 82.831 / 128 TiB = 663 GiB ($199), but its volumes start at 1 TiB:
    # $307.20. The minimum makes it lose.
    a = 960 * 0.9914773e-3
    u = -a + math.sqrt(a * a + 2 * a)
    size_gib = math.ceil(60 / u / 16 * 1024)
    assert size_gib == 5302
    doc = plan("""
version: 1
jobs: [{rw: read, bs: 64k, iodepth: 4, ioengine: libaio}]
require: {bandwidth: 60MiB/s, latency: 2ms, capacity: 100GiB, max_utilization: 1}
search: {kind: share, levels: [t-fast, t-cheap], protocols: [smb3], nconnect: [1]}
""")
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"service": "anf", "level": "t-cheap", "size": 5302 * GiB,
                               "throughput": pytest.approx(5302 / 1024 * 16 * MiB, abs=0.1),
                               "protocol": "smb3", "nconnect": 1, "qos": "auto"}
    assert first["monthly_cost"] == pytest.approx(212.08)
    assert first["prediction"]["latency"]["mean"] <= 2e-3
    fast = next(c for c in doc["candidates"] + doc["others"] if c["config"]["level"] == "t-fast")
    assert fast["config"]["size"] == TiB
    assert fast["monthly_cost"] == pytest.approx(307.20)


def test_a_client_vm_in_the_search_is_paid_for(plan):
    # As test_a_service_minimum_decides, plus T_Big's cores and receive: the stack costs
    # 20 µs + 125 µs = 145 µs of a core per IO on 4 cores (D = 36.25 µs, U = 0.0348) and the
    # receive capacity is 2.5 × 8,000 Mbit/s = 2.5 GB/s (D = 26.214 µs, U = 0.0252); they add
    # 0.653 + 0.338 µs, the service may add 0.990485 ms: U = 0.7241, 5,303 GiB = $212.12.
    a = 960 * (0.9914773e-3 - 0.992e-6)
    u = -a + math.sqrt(a * a + 2 * a)
    assert math.ceil(60 / u / 16 * 1024) == 5303
    doc = plan("""
version: 1
jobs: [{rw: read, bs: 64k, iodepth: 4, ioengine: libaio}]
require: {bandwidth: 60MiB/s, latency: 2ms, capacity: 100GiB, max_utilization: 1}
search: {kind: share, levels: [t-cheap], protocols: [smb3], nconnect: [1], vms: [T_Big]}
""")
    first = doc["candidates"][0]
    assert first["config"]["vm"] == "T_Big"
    assert first["monthly_cost"] == pytest.approx(212.12 + 300)


def test_a_volume_maximum_forces_a_large_volume(plan):
    # 1,200 MiB/s of 64 KiB reads over 4 channels (2,000 MiB/s, 60 % busy).
    # t-large: a regular volume stops at 500 MiB/s (240 % busy at any size); a large one
    # starts at 20 TiB = 1,280 MiB/s (93.75 % busy): 20,480 GiB × $0.05 = $1,024.
    # t-cheap needs 1,200 / 16 = 75 TiB: $3,072.
    doc = plan("""
version: 1
jobs: [{rw: read, bs: 64k, iodepth: 16, numjobs: 4, ioengine: libaio}]
require: {bandwidth: 1200MiB/s, capacity: 1TiB, max_utilization: 1}
search: {kind: share, levels: [t-large, t-cheap], protocols: [smb3], nconnect: [4]}
""")
    first = doc["candidates"][0]
    assert first["config"]["level"] == "t-large"
    assert first["config"]["large"] is True
    assert first["config"]["size"] == 20 * TiB
    assert first["monthly_cost"] == pytest.approx(1024.0)
    assert first["prediction"]["bottleneck"]["kind"] == "service"
    assert first["prediction"]["bottleneck"]["utilization"] == pytest.approx(0.9375)
    # The regular volume's best try (10 TiB, $512) is cheaper, and fails.
    regular = next(m for m in doc["rejected"] if m["config"]["level"] == "t-large")
    assert "large" not in regular["config"] and regular["config"]["size"] == 10 * TiB
    assert regular["feasible"] is False
    assert "the service's limit would be 240% busy" in regular["lacks"][0]
    assert "one t-large volume is capped at 500 MiB/s" in regular["facts"]
    cheap = doc["candidates"][1]
    assert cheap["config"]["level"] == "t-cheap" and cheap["config"]["size"] == 75 * TiB
    assert cheap["monthly_cost"] == pytest.approx(3072.0)
    assert cheap["why"].startswith("costs $2,048.00/month more than #1")


def test_nfs41_session_slots_decide(plan):
    # 80,000 IOPS of 8 KiB reads (625 MiB/s). One connection (50,000 requests/s) would be 160 %
    # busy; two are 80 % busy each (D = max(1 / 50,000, 8 KiB / 500 MiB/s) = 20 µs), taken in
    # turn: each waits half a lone throttle's 20 × 0.8 / 0.4 = 40 µs, adding 20 µs.
    # t-slots at its 1 TiB minimum gives 1,024 MiB/s: U = 0.61035, D = 7.629 µs, adds 5.975 µs.
    # NFSv3, nconnect 2: time inside a connection's slots 1.025975 ms; 40,000 IOPS per
    # connection keep 41.04 of its 128 slots busy (32.1 %): feasible at 1 TiB, $512.
    # NFSv4.1: one session of 64 slots whatever nconnect is; 80,000 IOPS × at least 1 ms is 80
    # IOs: even at 10 TiB (U = 0.061), with the connections' 20 µs, they keep 81.6 in the
    # session, 128 % of its slots.
    doc = plan("""
version: 1
jobs: [{rw: randread, bs: 8k, iodepth: 32, numjobs: 4, ioengine: libaio}]
require: {iops: 80000, capacity: 1TiB, max_utilization: 1}
search: {kind: share, levels: [t-slots], protocols: [nfs3, nfs4.1], nconnect: [1, 2]}
""")
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"service": "anf", "level": "t-slots", "size": TiB, "throughput": 1024.0 * MiB,
                               "protocol": "nfs3", "nconnect": 2, "qos": "auto"}
    assert first["monthly_cost"] == pytest.approx(512.0)
    pred = first["prediction"]
    assert pred["latency"]["mean"] == pytest.approx(1.025975e-3, rel=1e-5)
    assert max(s["utilization"] for s in pred["slots"]) == pytest.approx(40000 * 1.025975e-3 / 128, abs=1e-4)
    assert doc["feasible"] == 1
    nfs41 = next(m for m in doc["others"] if m["config"]["protocol"] == "nfs4.1")
    assert nfs41["config"]["nconnect"] == 2
    assert nfs41["lacks"] == ["the NFSv4.1 session slots would be 128% busy at 80,000 IOPS"]
    assert nfs41["facts"] == ["NFSv4.1 has one session of 64 slots per client, whatever nconnect is"]


def test_nothing_feasible_gives_the_nearest_misses(plan):
    doc = plan("""
version: 1
jobs: [{rw: read, bs: 64k, iodepth: 16, numjobs: 4, ioengine: libaio}]
require: {bandwidth: 3000MiB/s, max_utilization: 1}
search: {kind: share, levels: [t-fast], protocols: [smb3], nconnect: [8]}
""")
    assert doc["candidates"] == [] and doc["feasible"] == 0
    near = doc["nearest"][0]
    assert near["config"]["size"] == 10 * TiB
    assert "the service's limit would be 300% busy" in near["lacks"][0]
    assert near["facts"] == ["one t-fast volume is capped at 1,000 MiB/s"]
