"""What users rely on from the simulator: rates, bursting, stripes, caches, determinism."""

from __future__ import annotations

import json
import threading

import pytest

from iolab.errors import SchemaError
from iolab.network import Burst, Cache, Cap, Class, Delay, Fork, Hold, Job, Network, Resource, SlotLimit, Visit
from iolab.sim import simulate


def within(got: float, want: float, tol: float) -> bool:
    return abs(got - want) <= tol * abs(want)


def one_cap(cap: Cap, population: int = 8, **job) -> Network:
    return Network(
        resources=(Resource("d", "data: P20 #1", "disk", cap=cap),),
        classes=(Class("c", "j", "read", 1.0, 8192, (Visit("d", 8192),)),),
        jobs=(Job("j", "j", 0, population, 1 << 30, **job),),
    )


def test_token_bucket_delivers_exactly_its_rate():
    sim = simulate(one_cap(Cap(ops_per_s=5000, bytes_per_s=200e6)), duration=20.0)
    assert within(sim.total.iops, 5000, 1e-4)
    assert within(sim.total.bandwidth, 5000 * 8192, 1e-4)
    assert all(within(p.iops, 5000, 1e-3) for p in sim.series)
    assert len(sim.series) == 100 and sim.series[-1].t == pytest.approx(20.0)
    assert sim.resources[0].utilization == pytest.approx(1.0, abs=1e-6)


def test_bandwidth_cap_binds_large_ios_with_io_units():
    # 1 MiB IOs count 4 ops of 256 KiB: 5,000 IOPS allows 1,250/s, 200 MB/s allows 190.7/s.
    net = Network(
        resources=(Resource("d", "P30", "disk", cap=Cap(ops_per_s=5000, bytes_per_s=200e6, io_unit=256 * 1024)),),
        classes=(Class("c", "j", "read", 1.0, 1 << 20, (Visit("d", 1 << 20),)),),
        jobs=(Job("j", "j", 0, 8, 1 << 30),),
    )
    sim = simulate(net, duration=10.0)
    assert within(sim.total.bandwidth, 200e6, 1e-3)
    assert within(sim.total.iops, 200e6 / (1 << 20), 1e-3)


def test_rate_limited_job_issues_evenly_at_its_rate():
    sim = simulate(one_cap(Cap(ops_per_s=5000), population=4, rate=1000.0), duration=10.0)
    assert within(sim.total.iops, 1000, 1e-3)
    # Evenly spaced arrivals never queue at a 5,000 IOPS cap: latency is the service time.
    assert sim.total.latency.max == pytest.approx(1 / 5000, rel=0.005)


def test_p20_bursts_at_3500_for_30_minutes_then_2300():
    cap = Cap(ops_per_s=2300, bytes_per_s=150e6,
              burst=Burst(ops_per_s=3500, bytes_per_s=170e6, credit_ops=(3500 - 2300) * 1800, initial=1.0))
    sim = simulate(one_cap(cap, population=32), duration=2400.0, interval=60.0)
    rates = [p.iops for p in sim.series]
    assert len(rates) == 40
    assert all(within(r, 3500, 1e-3) for r in rates[:30])     # the first 30 minutes
    assert all(within(r, 2300, 1e-3) for r in rates[31:])     # then the baseline
    credits = sim.credits[0]
    assert credits.resource == "data: P20 #1"
    assert within(credits.series[0].ops, (3500 - 2300) * (1800 - 60), 1e-3)
    assert credits.series[-1].ops < 1
    doc = sim.to_json()
    assert doc["credits"][0]["series"][0]["t"] == pytest.approx(60.0)


def test_striped_io_takes_as_long_as_its_slowest_member():
    net = Network(
        resources=tuple(Resource(f"m{i}", f"member {i}", "disk", delay=Delay("deterministic")) for i in range(3)),
        classes=(Class("c", "j", "read", 1.0, 4096, (
            Fork(((Visit("m0", 4096, 0.001),), (Visit("m1", 4096, 0.002),), (Visit("m2", 4096, 0.005),)),
                 choose=3),)),),
        jobs=(Job("j", "j", 0, 4, 1 << 30),),
    )
    sim = simulate(net, ios=10_000)
    assert sim.total.latency.mean == pytest.approx(0.005, rel=1e-9)
    assert sim.total.latency.p99_99 == pytest.approx(0.005, rel=1e-9)


def test_random_stripe_spreads_evenly_and_round_robin_takes_turns():
    def net(pick: str) -> Network:
        members = tuple(Resource(f"m{i}", f"member {i}", "disk", cap=Cap(ops_per_s=1000)) for i in range(4))
        return Network(
            resources=members,
            classes=(Class("c", "j", "read", 1.0, 4096,
                           (Fork(tuple((Visit(m.id, 4096),) for m in members), choose=1, pick=pick),)),),
            jobs=(Job("j", "j", 0, 64, 1 << 30),),
        )

    rr = simulate(net("round-robin"), ios=40_000)
    visits = [r.visits for r in rr.resources]
    assert visits == [visits[0]] * 4 and within(visits[0], 10_000, 0.01)
    rnd = simulate(net("random"), ios=40_000)
    assert all(within(r.visits, 10_000, 0.05) for r in rnd.resources)
    assert within(rnd.total.iops, 4000, 0.03)


def test_slot_limit_holds_concurrency():
    # 64 IOs outstanding, 8 slots, 1 ms inside: 8,000 IOPS and 8 ms latency (Little's law).
    net = Network(
        resources=(Resource("svc", "service", "service", delay=Delay("deterministic")),),
        slot_limits=(SlotLimit("s", "session slots", "session", 8),),
        classes=(Class("c", "j", "read", 1.0, 4096, (Hold("s", (Visit("svc", 4096, 0.001),)),)),),
        jobs=(Job("j", "j", 0, 64, 1 << 30),),
    )
    sim = simulate(net, duration=5.0)
    assert within(sim.total.iops, 8000, 1e-3)
    assert within(sim.total.latency.mean, 0.008, 1e-3)
    slots = [r for r in sim.resources if r.slots is not None][0]
    assert slots.kind == "session" and slots.utilization == pytest.approx(1.0, abs=1e-3)
    assert slots.to_json()["slots"] == 8


def cached(size: int, warm: bool, working_set: int, sequential: bool = False) -> Network:
    route_hit = (Visit("cache", 4096, 0.0001),)
    route_miss = (Visit("disk", 4096, 0.002),)
    return Network(
        resources=(Resource("cache", "host cache", "vm-cache", delay=Delay("deterministic")),
                   Resource("disk", "disk", "disk", delay=Delay("deterministic"))),
        caches=(Cache("hc", "host cache", size, warm=warm),),
        classes=(Class("hit", "j", "read", 0.5, 4096, route_hit, outcome="hit", cache="hc"),
                 Class("miss", "j", "read", 0.5, 4096, route_miss, outcome="miss", cache="hc")),
        jobs=(Job("j", "j", 0, 1, working_set, sequential=sequential, block=4096),),
    )


def test_cold_cache_reaches_all_hits_once_every_block_was_read():
    blocks = 1000
    sim = simulate(cached(1 << 30, warm=False, working_set=blocks * 4096, sequential=True), ios=10_000)
    cache = sim.cache[0]
    assert cache.lookups == 10_000
    assert cache.hits == 10_000 - blocks            # one miss per block, then hits only
    assert cache.series[-1].hit_ratio == 1.0
    assert cache.series[0].hit_ratio == 0.0


def test_lookup_without_a_miss_class_still_reports_real_misses():
    # A network may carry only the hit class (its warm hit ratio is 1); a cold cache still
    # misses until it holds the working set, and the counts say so.
    net = cached(1 << 30, warm=False, working_set=100 * 4096, sequential=True)
    net = Network(net.resources, net.classes[:1], net.jobs, caches=net.caches)
    cache = simulate(net, ios=1000).cache[0]
    assert (cache.lookups, cache.hits) == (1000, 900)


def test_writes_through_a_cache_make_their_blocks_resident():
    # Nearly all IOs write, sequentially over 100 blocks of a cold cache: the rare reads
    # find their block written moments before.
    base = cached(1 << 30, warm=False, working_set=100 * 4096, sequential=True)
    write = Class("w", "j", "write", 0.995, 4096, (Visit("cache", 4096, 0.0001),), cache="hc")
    hit, miss = (Class(c.id, c.job, c.direction, 0.0025, c.bytes, c.route, c.outcome, c.cache) for c in base.classes)
    net = Network(base.resources, (write, hit, miss), base.jobs, caches=base.caches)
    cache = simulate(net, ios=100_000, seed=4).cache[0]
    assert 300 < cache.lookups < 700            # reads only
    assert cache.hits >= cache.lookups - 1


def test_warm_cache_hit_ratio_is_capacity_over_working_set():
    sim = simulate(cached(25 * 4096 * 100, warm=True, working_set=100 * 4096 * 100), ios=200_000, seed=3)
    assert within(sim.cache[0].hit_ratio, 0.25, 0.02)
    # A cold cache bigger than a random working set ends up holding all of it.
    cold = simulate(cached(1 << 30, warm=False, working_set=500 * 4096), ios=50_000, seed=3)
    assert cold.cache[0].series[-1].hit_ratio == 1.0


def test_same_seed_same_json_and_other_seeds_differ():
    net = cached(25 * 4096 * 10, warm=True, working_set=1000 * 4096)
    a = json.dumps(simulate(net, ios=20_000, seed=5, replications=3).to_json())
    b = json.dumps(simulate(net, ios=20_000, seed=5, replications=3).to_json())
    c = json.dumps(simulate(net, ios=20_000, seed=6, replications=3).to_json())
    assert a == b
    assert a != c


def test_replications_give_confidence_intervals():
    net = Network(
        resources=(Resource("k", "k", "disk", cap=Cap(ops_per_s=1000, service="exponential")),
                   Resource("z", "z", "disk", delay=Delay("exponential"))),
        classes=(Class("c", "j", "read", 1.0, 4096, (Visit("k", 4096), Visit("z", 4096, 0.002))),),
        jobs=(Job("j", "j", 0, 4, 1 << 30),),
    )
    sim = simulate(net, ios=20_000, replications=4)
    assert len(sim.replications) == 4 and len({r.seed for r in sim.replications}) == 4
    assert sim.ios == 80_000
    lo, hi = sim.confidence.mean
    assert lo < sim.total.latency.mean < hi
    lo, hi = sim.confidence.p99
    assert lo < hi
    doc = sim.to_json()
    assert doc["confidence"]["level"] == 0.95 and doc["replications"] == 4
    assert "confidence" not in simulate(net, ios=1000).to_json()


def write_back(population: int, rate: float | None) -> Network:
    """Writes acknowledged after 1 ms (the host cache), flushed in the background to a disk
    of 100 IOPS."""
    return Network(
        resources=(Resource("fast", "cache", "vm-cache", delay=Delay("deterministic")),
                   Resource("flush", "disk", "disk", cap=Cap(ops_per_s=100))),
        classes=(Class("w", "j", "write", 1.0, 4096, (Visit("fast", 4096, 0.001),),
                       background=(Visit("flush", 4096),)),),
        jobs=(Job("j", "j", 0, population, 1 << 30, rate=rate),),
    )


def test_ramp_is_not_measured_and_background_is_not_in_latency():
    # 50 writes/s against a flush of 100/s: the cache never fills, the flush stays off the
    # writes' path.
    sim = simulate(write_back(1, 50.0), duration=4.0, ramp=1.0)
    assert sim.total.latency.max == pytest.approx(0.001)
    assert within(sim.total.iops, 50, 0.02)
    assert sim.duration == pytest.approx(4.0)
    assert sim.read is None and sim.write is not None
    assert sim.resources[0].utilization == pytest.approx(0.5, abs=0.02)


def test_steady_writes_wait_for_the_flush_once_the_cache_is_full():
    # One write at a time acknowledged in 1 ms would run at 1000/s; the cache holds at most
    # 256 unflushed writes, so past them the writes run at the flush's 100/s and each waits
    # for a flush (10 ms).
    sim = simulate(write_back(1, None), duration=5.0, ramp=3.0)
    assert within(sim.total.iops, 100, 0.01)
    assert sim.total.latency.mean == pytest.approx(0.01, rel=0.01)
    assert sim.resources[0].utilization == pytest.approx(1.0, abs=1e-3)


def test_json_has_the_contract_keys():
    net = Network(
        resources=(Resource("d", "data: P30 #1", "disk", cap=Cap(ops_per_s=5000)),),
        classes=(Class("r", "j@0", "read", 0.7, 8192, (Visit("d", 8192),)),
                 Class("w", "j@0", "write", 0.3, 8192, (Visit("d", 8192),)),
                 Class("r1", "j@1", "read", 1.0, 8192, (Visit("d", 8192),))),
        jobs=(Job("j@0", "oltp", 0, 4, 1 << 30), Job("j@1", "oltp", 1, 4, 1 << 30)),
    )
    doc = simulate(net, ios=5000, seed=7).to_json()
    for key in ("iops", "bandwidth", "latency", "read", "write", "jobs", "series", "resources",
                "credits", "cache", "ios", "duration", "seed", "partial"):
        assert key in doc
    assert set(doc["latency"]) >= {"mean", "p50", "p90", "p99", "p99.9", "p99.99"}
    assert set(doc["read"]) == {"iops", "bandwidth", "latency"}
    assert [j["name"] for j in doc["jobs"]] == ["oltp"]           # both clients' jobs summed
    assert doc["jobs"][0]["iops"] == pytest.approx(doc["iops"])
    assert set(doc["series"][0]) == {"t", "iops", "bandwidth"}
    assert doc["resources"] == [{"resource": "data: P30 #1", "kind": "disk",
                                 "utilization": doc["resources"][0]["utilization"],
                                 "throttled": doc["resources"][0]["throttled"]}]
    assert doc["ios"] == 5000 and doc["seed"] == 7 and doc["partial"] is False
    assert 100 <= len(doc["series"]) <= 200


def test_cancel_returns_partial_results_and_progress_is_reported():
    net = one_cap(Cap(ops_per_s=1000, service="exponential"))
    seen: list[tuple[float, int]] = []
    flag = threading.Event()

    def progress(fraction: float, ios: int) -> None:
        seen.append((fraction, ios))
        if ios > 0:
            flag.set()

    sim = simulate(net, ios=10**12, progress=progress, cancel=flag)
    assert sim.partial and sim.stopped == "cancelled"
    assert 0 < sim.ios < 10**12
    assert sim.to_json()["partial"] is True
    assert seen[-1][0] == 1.0


@pytest.mark.parametrize("kwargs,field", [
    ({"ios": 10, "duration": 1.0}, "ios"),
    ({"ios": 0}, "ios"),
    ({"duration": -1.0}, "duration"),
    ({"ios": 10, "interval": 0}, "interval"),
    ({"ios": 10, "replications": 0}, "replications"),
    ({"ios": 10, "seed": -1}, "seed"),
    ({"ios": 10, "ramp": float("nan")}, "ramp"),
])
def test_bad_options_name_the_option(kwargs, field):
    with pytest.raises(SchemaError) as e:
        simulate(one_cap(Cap(ops_per_s=1000)), **kwargs)
    assert e.value.field == field


def test_bad_network_names_the_field():
    net = Network(
        resources=(Resource("d", "d", "disk", cap=Cap(ops_per_s=1000)),),
        classes=(Class("c", "j", "read", 1.0, 4096, (Visit("d", 4096), Hold("nope", ()))),),
        jobs=(Job("j", "j", 0, 1, 1 << 30),),
    )
    with pytest.raises(SchemaError) as e:
        simulate(net, ios=10)
    assert e.value.field == "network.classes[0].route[1].hold.slot_limit"
    assert "unknown slot limit 'nope'" in str(e.value)
    assert str(e.value).startswith("network.classes[0].route[1].hold.slot_limit: ")


def test_a_closed_job_whose_ios_take_no_time_is_refused():
    net = Network(
        resources=(Resource("z", "nothing", "device", delay=Delay("deterministic")),),
        classes=(Class("c", "j", "read", 1.0, 4096, (Visit("z", 4096, 0.0),)),),
        jobs=(Job("j", "j", 0, 1, 1 << 30),),
    )
    with pytest.raises(SchemaError) as e:
        simulate(net, ios=10)
    assert e.value.field == "network.jobs[0]" and "take no time" in str(e.value)
