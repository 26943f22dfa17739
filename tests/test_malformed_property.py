"""Property: malformed scenario, requirements, catalog and fio job files give exit 0 or 2
with one clean ``error:`` line, never a traceback, and answer within a time bound."""

from __future__ import annotations

import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BOUND = 5.0  # seconds per input, generous for a loaded machine

KEYS = ["version", "clients", "count", "vm", "limits", "volumes", "data", "disks", "sku", "caching", "size",
        "iops", "bandwidth", "latency", "read_latency", "write_latency", "device", "service", "level",
        "protocol", "nconnect", "jobs", "name", "rw", "bs", "iodepth", "numjobs", "ioengine", "rwmixread",
        "volume", "fio", "fio_file", "require", "capacity", "search", "kind", "vms", "skus", "catalog",
        "disks", "services", "price_per_month", "tier", "vcpus", "memory", "uncached_iops", "cache_size",
        "source", "stripe_size", "throughput", "workloads", "max_utilization", "p99", "mean", "region"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, 4, 4096, 2**63, 10**20, 1e308, -1e308, 1e-300, float("inf"), float("nan")]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["4k", "1e300s", "200MB/s", "P30", "Standard_DS13", "randrw", "libaio", "nfs3", "anf",
                     "ultra", "8TiB", "-5", "0x10", "1.5k", "${X}", "$ncpus", "fio --name=x --bs=4k", "/dev/zero",
                     "none", "readonly", "disks", "share", "", " ", "\t", "∞", "a" * 300]),
    st.text(max_size=12),
)
TREES = st.recursive(SCALARS, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.sampled_from(KEYS), kids, max_size=5)), max_leaves=25)
DOCS = st.dictionaries(st.sampled_from(KEYS), TREES, max_size=6)


def _scenario_like(doc: dict) -> dict:
    base = {"version": 1, "volumes": {"x": {"device": {"iops": 1000, "read_latency": "1ms"}}}, "jobs": [{"rw": "read"}]}
    base.update(doc)
    return base


def _requirements_like(doc: dict) -> dict:
    base = {"version": 1, "jobs": [{"rw": "randread", "bs": "4k"}], "require": {"iops": 1000}}
    base.update(doc)
    return base


def _check(iolab, *args):
    start = time.monotonic()
    r = iolab(*args)
    took = time.monotonic() - start
    assert r.code in (0, 2), (r.code, r.err[-400:])
    assert "Traceback" not in r.err
    if r.code == 2:
        assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err[:400]
    assert took < BOUND, f"{took:.1f} s for {args}"


def _write(tmp_path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, default_flow_style=None))
    return str(path)


FAST = settings(max_examples=20, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@FAST
@given(doc=DOCS)
def test_malformed_scenarios(iolab, tmp_path, doc):
    _check(iolab, "check", _write(tmp_path, "s.yaml", _scenario_like(doc)))


@FAST
@given(doc=DOCS)
def test_malformed_requirements(iolab, tmp_path, doc):
    _check(iolab, "check", _write(tmp_path, "r.yaml", _requirements_like(doc)))


@FAST
@given(section=st.sampled_from(["vms", "disks", "services"]), name=st.sampled_from(["P30", "Standard_DS13", "new"]),
       entry=st.one_of(TREES, st.dictionaries(st.sampled_from(KEYS), TREES, max_size=6)))
def test_malformed_catalogs(iolab, tmp_path, section, name, entry):
    _check(iolab, "catalog", "list", section, "--catalog", _write(tmp_path, "c.yaml", {section: {name: entry}}))


OPTIONS = ["rw", "bs", "iodepth", "numjobs", "size", "filesize", "runtime", "ramp_time", "rate_iops", "ioengine",
           "direct", "kb_base", "rwmixread", "offset", "nrfiles", "nr_files", "ratemin", "stonewall", "time_based",
           "write_bw_log", "threads", "filename", "directory", "include", "bogus_option", "zonemode", "rate_process"]
VALUES = st.one_of(st.sampled_from(["", "4k", "8k,64k", ",64k", "128z", "1m-2m", "50%", "$ncpus", "$pagesize",
                                    "${X}", "(1+2)*3", "9^9999", "2^70", "1//", "randrw", "libaio", "cpp_null", "1",
                                    "0", "-1", "99999999999999999999999", "1.5k", "#x", "1e3"]),
                   st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"),
                           max_size=10))
LINES = st.one_of(st.tuples(st.sampled_from(OPTIONS), VALUES).map(lambda kv: f"{kv[0]}={kv[1]}"),
                  st.sampled_from(OPTIONS), st.sampled_from(["[global]", "[job]", "[]", "[a", "; c", "# c"]))


@FAST
@given(lines=st.lists(LINES, max_size=12))
def test_malformed_job_files(iolab, tmp_path, lines):
    path = tmp_path / "j.fio"
    path.write_text("[j]\n" + "\n".join(lines) + "\n")
    _check(iolab, "check", str(path))


@pytest.mark.parametrize("text", ["version: 1\njobs: [{name: [a, b]}]\nvolumes: {x: {device: {iops: 1, read_latency: 1ms}}}\n"])
def test_a_job_name_must_be_text(iolab, tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    _check(iolab, "check", str(path))
