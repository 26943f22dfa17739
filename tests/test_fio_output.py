"""fio's json/json+ output from several versions and modes into results in base units.

Real outputs of fio 3.33 and hand-written ones of fio 2.2.10, 2.6 and 3.1 live in
tests/data/fio (its README says how each was made)."""

from __future__ import annotations

import json
import math

import pytest

from conftest import DATA
from iolab.errors import SchemaError
from iolab.fio import FioResult, LatencyStats, parse_output
from iolab.fio.results import merge_latency

FIO = DATA / "fio"
OUTPUTS = sorted(p.name for p in FIO.glob("fio-*.json*"))


def load(name: str) -> FioResult:
    return parse_output((FIO / name).read_text(), source=name)


@pytest.mark.parametrize("name", OUTPUTS)
def test_units_are_consistent_in_every_output(name):
    """Bytes per IO from the rates equals bytes per IO from the totals: catches KiB read as B."""
    result = load(name)
    assert result.jobs
    for job in result.jobs:
        for direction, r in job.directions().items():
            if r.iops and r.total_ios:
                assert r.bandwidth / r.iops == pytest.approx(r.io_bytes / r.total_ios, rel=0.01), direction
            for stats in (r.clat, r.lat, r.slat):
                if stats is not None:
                    assert 0 <= stats.min <= stats.mean <= stats.max < 10  # seconds, not ns or us
                    assert 0.0 not in stats.percentiles
                    assert list(stats.percentiles.values()) == sorted(stats.percentiles.values())


def test_psync_sequential_read():
    result = load("fio-3.33-psync-read.json")
    assert (result.fio_version, result.timestamp) == ("fio-3.33", 1795320217)
    (job,) = result.jobs
    assert (job.name, job.hostname, job.write, job.trim, job.error) == ("seqread", None, None, None, 0)
    r = job.read
    assert (r.iops, r.bandwidth, r.io_bytes, r.total_ios, r.runtime) == (16000.0, 1048576000.0, 4194304, 64, 0.004)
    assert r.clat.mean == pytest.approx(55080.1875e-9)
    assert r.clat.percentiles[99.0] == pytest.approx(1.859584e-3)
    assert r.clat.samples == 64 and r.clat.bins is None
    assert r.lat.mean == pytest.approx(55136.640625e-9)
    assert r.slat is None  # psync has no submission latency (N = 0)
    assert (job.usr_cpu, job.sys_cpu, job.ctx, job.elapsed) == (pytest.approx(33.333333), 0.0, 3, 1.0)
    assert job.job_options["rw"] == "read"
    assert job.latency_buckets[4e-6] == pytest.approx(29.6875)
    assert sum(job.latency_buckets.values()) == pytest.approx(100.0, abs=0.01)
    assert result.disk_util[0]["name"] == "vda" and "util" in result.disk_util[0]


def test_json_plus_bins_reproduce_fios_percentiles():
    result = load("fio-3.33-libaio-randrw.jsonplus")
    (job,) = result.jobs
    for r in (job.read, job.write):
        bins = r.clat.bins
        assert sum(bins.values()) == r.clat.samples == r.total_ios
        for pct, value in r.clat.percentiles.items():
            assert LatencyStats(0, 0, 0, 0, {}, bins).percentile(pct) == pytest.approx(value)
    assert job.read.total_ios + job.write.total_ios == 2048  # 8 MiB of 4 KiB IOs
    assert job.read.slat is not None  # libaio measures submission latency
    assert job.read.total_ios / 2048 == pytest.approx(0.7, abs=0.05)


def test_numjobs_without_group_reporting_gives_one_result_per_job_and_totals_add_up():
    result = load("fio-3.33-numjobs2-write.json")
    a, b = result.jobs
    assert a.name == b.name == "writers" and a.read is None
    total = result.total()
    assert total.iops == pytest.approx(a.write.iops + b.write.iops)
    assert total.bandwidth == pytest.approx(a.write.bandwidth + b.write.bandwidth)
    assert total.write.total_ios == 256  # 2 jobs × 2 MiB / 16 KiB
    expected = (a.write.lat.mean * a.write.total_ios + b.write.lat.mean * b.write.total_ios) / 256
    assert total.latency.mean == pytest.approx(expected)
    # no bins in json output: merged percentiles are the worst job's (documented upper bound)
    assert total.write.clat.percentiles[99.0] == max(a.write.clat.percentiles[99.0], b.write.clat.percentiles[99.0])


def test_group_reporting_collapses_jobs():
    (job,) = load("fio-3.33-numjobs2-group-randread.jsonplus").jobs
    assert job.name == "grouped" and job.read.total_ios == 1024  # both jobs' 512 IOs


def test_time_based_rate_limited_run():
    (job,) = load("fio-3.33-time-based-randread.json").jobs
    assert job.read.runtime == pytest.approx(2.0, abs=0.01)  # ramp_time excluded
    assert job.read.iops == pytest.approx(2000, rel=0.01)
    assert job.job_options["rate_iops"] == "2000"


def test_status_interval_output_takes_the_last_document():
    text = (FIO / "fio-3.33-status-interval-randwrite.json").read_text()
    assert text.count('"fio version"') == 3
    (job,) = parse_output(text).jobs
    assert job.write.runtime == pytest.approx(2.0, abs=0.01)
    assert job.write.iops == pytest.approx(200, rel=0.01)


def test_failed_job_reports_its_error_after_fio_messages():
    (job,) = load("fio-3.33-error-einval.json").jobs
    assert job.error == 22


@pytest.mark.parametrize("name", ["fio-3.33-client-server-2hosts.json", "fio-3.33-client-server-2hosts.jsonplus"])
def test_client_server_output(name):
    result = load(name)
    assert len(result.clients) == 2 and len(result.jobs) == 2
    assert all(j.hostname and j.port in (8761, 8762) for j in result.jobs)
    everyone = result.all_clients
    assert everyone is not None and everyone.name == "All clients"
    total = result.total()
    assert total.total_ios == everyone.read.total_ios == 1024
    assert total.iops == pytest.approx(sum(c.total().iops for c in result.clients))
    assert total.read.io_bytes == 2 * 2 * 1024 * 1024


def test_client_server_json_plus_merges_bins_across_hosts():
    result = load("fio-3.33-client-server-2hosts.jsonplus")
    assert result.hostnames == ("127.0.0.1", "localhost")
    total = result.total()
    merged = total.read.clat
    assert sum(merged.bins.values()) == 1024
    # exact merge: the share of IOs at or under the merged p50 is at least half
    p50_ns = merged.percentiles[50.0] * 1e9
    assert sum(c for v, c in merged.bins.items() if v <= p50_ns + 1) >= 512
    assert result.all_clients.read.clat.bins is None  # fio prints no bins for the aggregate


def test_fio_2_output_in_microseconds_and_kib():
    result = load("fio-2.2.10-libaio-randwrite.json")
    (job,) = result.jobs
    w = job.write
    assert job.read is None and job.trim is None
    assert w.io_bytes == 3750000 * 1024 and w.bandwidth == 62500 * 1024
    assert w.iops * 4096 == pytest.approx(w.bandwidth)
    assert (w.runtime, w.total_ios) == (60.0, 937500)
    assert w.clat.mean == pytest.approx(2036.52e-6) and w.clat.percentiles[99.0] == pytest.approx(4.384e-3)
    assert w.slat.mean == pytest.approx(9.84e-6) and w.clat.samples is None
    assert set(w.clat.percentiles) == {1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0,
                                       99.0, 99.5, 99.9, 99.95, 99.99}
    assert job.latency_buckets[0.004] == pytest.approx(50.41) and math.inf in job.latency_buckets
    disk = result.disk_util[0]
    assert (disk["name"], disk["util"], disk["write_time"]) == ("sdc", 99.87, pytest.approx(1902.644))


def test_fio_2_client_output_with_unified_reporting():
    result = load("fio-2.6-client-unified.json")
    assert result.hostnames == ("func12-loader1", "func12-loader2")
    assert result.global_options["unified_rw_reporting"] == "1"
    a, b = result.jobs
    assert a.mixed is not None and a.read is None and a.mixed.clat is None
    assert a.mixed.lat.mean == pytest.approx(1774.10e-6)
    total = result.total()
    assert total.mixed.total_ios == result.all_clients.mixed.total_ios == 273369
    assert total.iops == pytest.approx(result.all_clients.mixed.iops)
    assert total.latency.mean == pytest.approx(result.all_clients.mixed.lat.mean, rel=1e-5)
    assert total.bandwidth == pytest.approx(16653 * 1024)


def test_fio_3_1_output_without_bw_bytes():
    result = load("fio-3.1-sync-write.json")
    w = result.jobs[0].write
    assert w.bandwidth == 1753471 * 1024 and w.io_bytes == 1 << 30
    assert w.clat.mean == pytest.approx(2076.404373e-9) and w.clat.samples is None
    assert result.disk_util[0]["aggregate_util"] == 0.0 and "aggregate_util" not in result.disk_util[1]


def test_direction_latency_combines_lat_mean_with_clat_percentiles():
    r = load("fio-3.33-psync-read.json").jobs[0].read
    assert r.latency.mean == r.lat.mean and r.latency.percentiles == r.clat.percentiles


def test_lat_percentiles_make_latency_the_total_latency():
    w = load("fio-3.33-lat-percentiles-randwrite.jsonplus").jobs[0].write
    assert w.lat.bins and w.clat.bins and w.latency is w.lat
    assert sum(w.lat.bins.values()) == w.total_ios == 512
    assert w.latency.percentiles[99.0] >= w.clat.percentiles[99.0]


def test_merge_latency_is_io_weighted_and_exact_with_bins():
    a = LatencyStats(1e-3, 0.0, 1e-3, 1e-3, {50.0: 1e-3}, {1_000_000: 300})
    b = LatencyStats(3e-3, 0.0, 3e-3, 3e-3, {50.0: 3e-3}, {3_000_000: 100})
    m = merge_latency([(a, 300), (b, 100)])
    assert m.mean == pytest.approx(1.5e-3)
    assert m.stddev == pytest.approx(math.sqrt(0.75) * 1e-3)
    assert m.percentiles[50.0] == pytest.approx(1e-3) and m.percentile(90.0) == pytest.approx(3e-3)
    assert (m.min, m.max) == (1e-3, 3e-3)


# --- bad output: SchemaError naming the source --------------------------------------------

def _doc(**read) -> str:
    block = {"io_bytes": 4096, "bw_bytes": 4096, "iops": 1.0, "runtime": 1000, "total_ios": 1, **read}
    return json.dumps({"fio version": "fio-3.33", "jobs": [{"jobname": "x", "read": block}]}, indent=1)


@pytest.mark.parametrize("text,field,words", [
    ("fio: no such file\n", None, "no fio JSON document"),
    ("", None, "no fio JSON document"),
    ('{\n  "fio version" : "fio-3.33",\n  "jobs" : [\n    {\n', None, "malformed fio JSON"),
    ('{"hello": 1}', None, "no fio JSON document"),
    ('{"fio version": "fio-3.33"}', "jobs", "neither 'jobs' nor 'client_stats'"),
    ('{"fio version": "fio-3.33", "jobs": {}}', "jobs", "expected a list"),
    (_doc(iops="fast"), "jobs[0].read.iops", "expected a number"),
    (_doc(clat_ns={"min": 1, "max": 2, "mean": 1.5, "stddev": 0, "N": 1, "percentile": {"p99": 2}}),
     "jobs[0].read.clat_ns.percentile", "not a number"),
    ('{"fio version": "fio-3.33", "jobs": [{"read": {}}]}', "jobs[0].jobname", "missing job name"),
])
def test_bad_output(text, field, words):
    with pytest.raises(SchemaError) as info:
        parse_output(text, source="run.json")
    assert info.value.file == "run.json" and info.value.field == field
    assert words in str(info.value)


def test_compact_json_and_trailing_text_are_accepted():
    result = parse_output("warning: something\n" + json.dumps(json.loads(_doc())) + "\ntrailing text\n")
    assert result.jobs[0].read.iops == 1.0 and result.jobs[0].read.runtime == 1.0


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=7000), st.text(max_size=20))
def test_cut_or_garbled_output_is_a_schema_error(cut, noise):
    """fio killed mid-write (or noise glued in): a SchemaError, never another exception."""
    text = (FIO / "fio-3.33-psync-read.json").read_text()
    try:
        result = parse_output(noise + text[:cut])
    except SchemaError as e:
        assert e.file == "fio output"
    else:
        assert result.jobs[0].read.total_ios == 64
