"""`iolab plan` over managed disks, on the small catalog tests/data/plan/catalog.yaml.

Every expected answer is worked out by hand below from that catalog's round figures.
Common arithmetic (8 KiB random reads, stripe 64 KiB, so each IO touches one disk):

- T_Big / T_Small / T_NoPremium uncached cap 20,000 IOPS, 400 MB/s: the demand of an 8 KiB
  IO is max(1/20000, 8192/400e6) = 50 µs.
- T_P (2,000 IOPS, 100 MB/s, 2 ms): max(1/2000, 8192/100e6) = 0.5 ms per IO it serves.
- T_E (500 IOPS): 2 ms per IO.
"""

from __future__ import annotations

import math

import pytest

from conftest import bare




def req(vms: str, skus: str, iops: int = 5400, extra: str = "", caching: str = "[none]") -> str:
    return f"""
version: 1
jobs: [{{rw: randread, bs: 8k, iodepth: 16, ioengine: libaio}}]
require: {{iops: {iops}{extra}, max_utilization: 1}}
search: {{kind: disks, vms: {vms}, skus: {skus}, caching: {caching}}}
"""


def test_a_cheaper_vm_loses_because_it_takes_too_few_disks(plan):
    # 5,400 IOPS on T_P (2,000 each): 3 disks are 5400/3/2000 = 90 % busy; 2 would be 135 %.
    # T_Small ($100) takes at most 2 disks: its best try, 2 × T_P at $200, fails on the disks.
    # T_Big ($300) takes 3: $300 + 3 × $50 = $450.
    # Latency of the winner (each cap a throttle, an M/D/1 queue: D × (1 + U / (2 (1 − U)))):
    # delay 2 ms − 50 µs − 0.5 ms = 1.45 ms; VM 5400 × 50 µs = 27 % busy: 50 µs × (1 + 0.27 /
    # 1.46) = 59.2466 µs; each disk 1/3 × 0.5 ms = 0.1667 ms per IO at 90 %: 3 × 0.1667 ms ×
    # (1 + 0.9 / 0.2) = 2.75 ms. Total 4.2592466 ms.
    doc = plan(req("[T_Small, T_Big]", "[T_P]"))
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Big", "disks": [{"sku": "T_P", "count": 3, "caching": "none"}]}
    assert first["monthly_cost"] == 450.0
    assert first["prediction"]["latency"]["mean"] == pytest.approx(4.2592466e-3, rel=1e-5)
    assert first["prediction"]["bottleneck"]["kind"] == "disk"
    assert first["prediction"]["bottleneck"]["utilization"] == pytest.approx(0.9)
    assert first["headroom"] == pytest.approx(0.1)
    small = [m for m in doc["rejected"] if m["config"]["vm"] == "T_Small"]
    assert small[0]["config"]["disks"] == [{"sku": "T_P", "count": 2, "caching": "none"}]
    assert small[0]["monthly_cost"] == 200.0
    assert "the disks would be 135% busy" in small[0]["lacks"][0]
    assert small[0]["facts"] == ["T_Small takes at most 2 data disks"]


def test_a_cheaper_vm_loses_because_it_takes_no_premium_disks(plan):
    # T_NoPremium ($80) can only take T_E (500 IOPS): 8 of them give 4,000 IOPS, 135 % busy
    # at 5,400; its best try is 8 × T_E = $80 + $160 = $240, cheaper than T_Big + 3 × T_P.
    doc = plan(req("[T_NoPremium, T_Big]", "[T_P, T_E]"))
    assert doc["candidates"][0]["config"]["vm"] == "T_Big"
    assert doc["candidates"][0]["monthly_cost"] == 450.0
    miss = next(m for m in doc["rejected"] if m["config"]["vm"] == "T_NoPremium")
    assert miss["config"]["disks"] == [{"sku": "T_E", "count": 8, "caching": "none"}]
    assert miss["monthly_cost"] == 240.0
    assert "the disks would be 135% busy" in miss["lacks"][0]
    assert "T_NoPremium takes no premium disks" in miss["facts"]
    assert "T_NoPremium takes at most 8 data disks" in miss["facts"]


def test_a_vm_without_premium_support_is_excluded_when_only_premium_skus_are_searched(plan):
    doc = plan(req("[T_NoPremium, T_Big]", "[T_P]"))
    assert any(x.startswith("T_NoPremium: takes no premium disks") for x in doc["excluded"])
    assert all(c["config"]["vm"] == "T_Big" for c in doc["candidates"])


def test_host_caching_decides(plan):
    # Working set 200 GiB (the capacity) < T_Cache's 256 GiB cache: every read hits.
    # With caching none T_Cache's uncached 5,000 IOPS would be 5400/5000 = 108 % busy.
    # With readonly, reads only load the cached cap: 5400 × max(1/20000, 8192/400e6) = 27 %;
    # one T_P is enough for the capacity: $250 + $50 = $300, cheaper than T_Big + 3 × T_P.
    # Latency: a hit takes the cache latency (0.2 ms, the catalog default) whose delay is
    # 0.2 ms − 50 µs; the cached cap adds 50 µs × (1 + 0.27 / 1.46): 0.15 + 0.0592466 = 0.2092466 ms.
    doc = plan(req("[T_Cache, T_Big]", "[T_P]", extra=", capacity: 200GiB", caching="[none, readonly]"))
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Cache", "disks": [{"sku": "T_P", "count": 1, "caching": "readonly"}]}
    assert first["monthly_cost"] == 300.0
    assert first["prediction"]["latency"]["mean"] == pytest.approx(0.2092466e-3, rel=1e-5)
    assert first["prediction"]["bottleneck"]["kind"] == "vm-cache"


def test_a_sku_without_host_caching_loses_the_cache(plan):
    # T_P4T is 4 TiB: no host caching. T_Cache + T_P4T can only run uncached: 108 % busy.
    # T_Big + 1 × T_P4T (8,000 IOPS, 67.5 % busy) at $300 + $300 = $600 wins; T_Cache's try
    # costs $550 and says why.
    doc = plan(req("[T_Cache, T_Big]", "[T_P4T]", extra=", capacity: 200GiB", caching="[none, readonly]"))
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Big", "disks": [{"sku": "T_P4T", "count": 1, "caching": "none"}]}
    assert first["monthly_cost"] == 600.0
    miss = next(m for m in doc["rejected"] if m["config"]["vm"] == "T_Cache")
    assert miss["monthly_cost"] == 550.0
    assert "the VM's uncached limit would be 108% busy" in miss["lacks"][0]
    assert any("T_P4T has no host caching" in f for f in miss["facts"])


def test_capacity_sets_the_count(plan):
    # 1,000 IOPS need one T_P, but 2 TiB of capacity needs 4 × 512 GiB: $300 + 4 × $50.
    doc = plan(req("[T_Big]", "[T_P]", iops=1000, extra=", capacity: 2TiB"))
    first = doc["candidates"][0]
    assert first["config"]["disks"][0]["count"] == 4
    assert first["monthly_cost"] == 500.0
    miss = doc["rejected"][0]
    assert miss["lacks"][0].startswith("holds 1.5 TiB, not the 2 TiB required")


def test_latency_requirement_adds_disks(plan):
    # Without a bound 3 × T_P do (4.26 ms, above). At 4 ms: with 4 disks each is 5400/4 × 0.5 ms
    # = 67.5 % busy; R = 1.45 + 0.0592466 + 4 × 0.125 × (1 + 0.675 / 0.65) = 2.5284774 ms; 3
    # disks give 4.26 ms.
    doc = plan(req("[T_Big]", "[T_P]", extra=", latency: 4ms"))
    first = doc["candidates"][0]
    assert first["config"]["disks"][0]["count"] == 4
    assert first["prediction"]["latency"]["mean"] == pytest.approx(2.5284774e-3, rel=1e-5)
    miss = doc["rejected"][0]
    assert miss["config"]["disks"][0]["count"] == 3
    assert miss["lacks"][0].startswith("mean latency 4.259 ms over the required 4 ms")


def test_unpriced_candidates_rank_after_priced_ones_and_say_so(plan):
    # T_Big takes 3 to 8 T_P (6 priced rows); T_Unpriced the same, without a price.
    doc = plan(req("[T_Unpriced, T_Big]", "[T_P]"), "--top", "8")
    assert len(doc["candidates"]) == 8
    ranks = [(c["config"]["vm"], c["priced"]) for c in doc["candidates"]]
    first_unpriced = next(i for i, (_, priced) in enumerate(ranks) if not priced)
    assert all(priced for _, priced in ranks[:first_unpriced])
    assert all(not priced for _, priced in ranks[first_unpriced:])
    assert first_unpriced == 6
    unpriced = doc["candidates"][first_unpriced]
    assert unpriced["monthly_cost"] is None
    # Unpriced ones come tightest fit first: 3 disks (90 % busy) before 4.
    assert unpriced["config"]["disks"][0]["count"] == 3
    assert "no price in the catalog for T_Unpriced" in unpriced["notes"][0]


def test_search_max_disks_limits_the_count(plan):
    doc = plan(req("[T_Big]", "[T_P]").replace("caching: [none]", "caching: [none], max_disks: 2"))
    assert doc["candidates"] == []
    assert doc["feasible"] == 0
    assert doc["nearest"][0]["facts"] == ["search.max_disks is 2"]


def _premium_v2_iops(lam: float, slack: float) -> float:
    """Provisioned IOPS of one Premium SSD v2 disk carrying ``lam`` IOPS of 8 KiB reads so
    that the disk's queueing adds at most ``slack`` seconds (a throttle, M/D/1: d·U/(2(1−U))
    with d = 1/IOPS, U = lam·d): U²/(2(1−U)) = lam·slack, so U = −a + √(a² + 2a)."""
    a = lam * slack
    u = -a + math.sqrt(a * a + 2 * a)
    return lam / u


def test_premium_v2_is_provisioned_for_the_load(plan):
    # One disk on T_Big, 5,400 IOPS of 8 KiB reads, mean latency ≤ 2 ms. The disk's latency
    # is 1 ms (the catalog file); the VM adds 50 µs × 0.27 / 1.46 of queueing; the disk
    # d·U/(2(1−U)). So the disk's queueing may add 2 − 1 − 0.0092466 = 0.9907534 ms, which
    # needs 5,864.6 IOPS → 5,865 (throughput stays at the free 125 MB/s). Size: 5,865 / 500
    # per GiB → 12 GiB. Price: $300 + 12 × 0.1 + (5,865 − 3,000) × 0.01 = $329.85.
    doc = plan(req("[T_Big]", "[premium-v2]", extra=", latency: 2ms").replace("caching: [none]",
                                                                              "caching: [none], max_disks: 1"))
    iops = math.ceil(_premium_v2_iops(5400, 0.9907534e-3))
    assert iops == 5865
    disk = doc["candidates"][0]["config"]["disks"][0]
    assert disk == {"sku": "premium-v2", "count": 1, "caching": "none", "size": 12 * 2**30,
                    "iops": 5865.0, "bandwidth": 125e6}
    assert doc["candidates"][0]["monthly_cost"] == pytest.approx(300 + 1.2 + 28.65)
    assert doc["candidates"][0]["prediction"]["latency"]["mean"] <= 2e-3


def test_premium_v2_spreads_over_disks_when_baselines_are_free(plan):
    # Two disks carry 2,700 IOPS each; the queueing slack is the same 0.9907534 ms (each IO
    # visits one disk): 3,134.6 → 3,135 IOPS each, 7 GiB, $300 + 2 × (0.7 + 1.35) = $304.10.
    # Three disks carry 1,800 each, within the free 3,000: 3 × 1 GiB = $300.30, the cheapest.
    doc = plan(req("[T_Big]", "[premium-v2]", extra=", latency: 2ms").replace("caching: [none]",
                                                                              "caching: [none], max_disks: 3"))
    assert math.ceil(_premium_v2_iops(2700, 0.9907534e-3)) == 3135
    first = doc["candidates"][0]
    assert first["config"]["disks"][0] == {"sku": "premium-v2", "count": 3, "caching": "none",
                                           "size": 2**30, "iops": 3000.0, "bandwidth": 125e6}
    assert first["monthly_cost"] == pytest.approx(300.30)
    # the same disk type on the same VM is shown once, at its best: two disks are #1 when at
    # most two may be attached
    assert [c["config"]["disks"][0]["sku"] for c in doc["candidates"]].count("premium-v2") == 1
    doc = plan(req("[T_Big]", "[premium-v2]", extra=", latency: 2ms").replace("caching: [none]",
                                                                              "caching: [none], max_disks: 2"))
    two = doc["candidates"][0]
    assert two["config"]["disks"][0]["count"] == 2
    assert two["config"]["disks"][0]["iops"] == 3135.0
    assert two["config"]["disks"][0]["size"] == 7 * 2**30
    assert two["monthly_cost"] == pytest.approx(304.10)


def test_several_clients_share_the_requirement(plan):
    # 10,800 IOPS over 2 clients is 5,400 each: each needs 3 × T_P as above; the cost doubles.
    text = req("[T_Big]", "[T_P]", iops=10800) + "clients: 2\n"
    doc = plan(text)
    first = doc["candidates"][0]
    assert bare(first["config"]) == {"vm": "T_Big", "disks": [{"sku": "T_P", "count": 3, "caching": "none"}],
                               "clients": 2}
    assert first["monthly_cost"] == 900.0
    assert first["prediction"]["iops"] == 10800.0
    assert first["prediction"]["latency"]["mean"] == pytest.approx(4.2592466e-3, rel=1e-5)
