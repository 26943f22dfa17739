"""max_iops, the knee and outstanding_at_90 agree with every limit and with a sweep."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iolab.prediction import predict
from iolab.service.sweep import Axis, sweep_points
from iolab.scenario import parse_scenario

DS14 = """
clients: {vm: Standard_DS14}
volumes:
  cached: {disks: [{sku: P30, caching: readonly}]}
  nocache: {disks: [{sku: P30, count: 10, caching: none}]}
jobs:
  - {name: reads, volume: cached, rw: randread, bs: 8k, iodepth: 256, numjobs: 4, ioengine: libaio, size: 30g}
  - {name: writes, volume: nocache, rw: randwrite, bs: 8k, iodepth: 256, numjobs: 4, ioengine: libaio, size: 30g}
"""


def test_cached_readers_and_uncached_writers_stay_under_max_iops():
    """The guide's DS14 benchmark: cached reads are held by the 64,000-IOPS cached limit, the
    uncached writes by the VM's 51,200 uncached limit (10 P30 allow 50,000): together about
    100,000+ IOPS; the bound is taken for the predicted mix, so it is never below them."""
    p = predict(parse_scenario(__import__("yaml").safe_load(DS14)))
    assert p.iops <= p.upper_iops * (1 + 1e-9)
    assert p.iops > 100000


def test_slot_limits_bound_max_iops_and_the_knee():
    """NFSv4.1 with 64 session slots at 1 ms: at most about 64,000 IOPS whatever nconnect is,
    so the knee is about 64 in flight, not the connections' or the volume's."""
    text = ("clients: {vm: Standard_D32s_v3}\nvolumes:\n  s: {service: anf, level: ultra, size: 16TiB, "
            "protocol: nfs4.1, nconnect: 16, latency: 1ms}\njobs:\n"
            "  - {rw: randread, bs: 8k, iodepth: 64, numjobs: 8, ioengine: libaio}\n")
    p = predict(parse_scenario(__import__("yaml").safe_load(text)))
    assert p.upper_iops == pytest.approx(64000, rel=0.01)
    assert p.solution.knee_outstanding == pytest.approx(64, rel=0.01)
    assert p.iops <= p.upper_iops * (1 + 1e-9)


VOLUMES = {
    "disks": "d: {disks: [{sku: P30, count: %(n)d}]}",
    "share": "d: {service: anf, level: ultra, size: 4TiB, protocol: %(proto)s, nconnect: %(n)d}",
    "device": "d: {device: {iops: 100000, bandwidth: 1GB/s, read_latency: 100us, cpu_per_io: 10us}}",
}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(VOLUMES)), n=st.integers(1, 8), proto=st.sampled_from(["nfs3", "nfs4.1", "smb3"]),
       bs=st.sampled_from(["4k", "8k", "64k", "1m"]), rw=st.sampled_from(["randread", "randwrite", "randrw"]),
       numjobs=st.integers(1, 4), two_jobs=st.booleans())
def test_predicted_iops_never_exceed_max_iops_and_a_sweep_climbs_to_it(kind, n, proto, bs, rw, numjobs, two_jobs):
    jobs = f"  - {{name: a, rw: {rw}, bs: {bs}, numjobs: {numjobs}, ioengine: libaio, size: 1g}}\n"
    if two_jobs:
        jobs += "  - {name: b, rw: randread, bs: 4k, numjobs: 1, ioengine: libaio, size: 1g}\n"
    text = (f"clients: {{vm: Standard_D8s_v5}}\nvolumes:\n  {VOLUMES[kind] % {'n': n, 'proto': proto}}\n"
            f"jobs:\n{jobs}")
    scenario = parse_scenario(__import__("yaml").safe_load(text))
    points = [(pt.values["iodepth"], pt.prediction)
              for pt in sweep_points(scenario, [Axis("iodepth", [1, 4, 16, 64, 256, 1024])])]
    last = 0.0
    for _, p in points:
        assert p.iops <= p.upper_iops * (1 + 1e-6)
        assert p.iops >= last * (1 - 1e-3)            # more IOs in flight never give fewer IOPS
        last = p.iops
        if p.reach_90 is not None and p.solution.outstanding >= p.reach_90 * 1.05:
            assert p.iops >= 0.9 * p.upper_iops * (1 - 0.02)
    top = points[-1][1]
    assert top.iops >= 0.8 * top.upper_iops           # the deepest point is close to the bound
