"""User catalog files: how they extend and override the bundled data, and how bad ones fail.

Every malformed file is tried through the CLI (``--catalog FILE``): exit code 2 and one
error line naming the file and the field path, never a traceback.
"""

from __future__ import annotations

import pytest

from conftest import DATA
from iolab.catalog import bundled_catalog, load_catalog
from iolab.errors import SchemaError
from iolab.units import GiB

PRICES = DATA / "catalog" / "private-prices.yaml"


def write(tmp_path, text: str | bytes, name: str = "mine.yaml"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# ---- merging


def test_user_file_adds_and_overrides():
    cat = load_catalog([PRICES])
    ds13 = cat.vm("Standard_DS13")
    assert ds13.price_per_month == pytest.approx(1.2 * 730)
    assert not ds13.is_assumed("price_per_month")
    assert ds13.uncached_iops == 25600                                  # untouched fields stay
    assert ds13.source.endswith(f"; price_per_hour from {PRICES}")
    lab = cat.vm("Lab_Client_16")
    assert (lab.vcpus, lab.memory, lab.uncached_bandwidth) == (16, 64 * GiB, 800e6)
    assert lab.source == "measured with iolab bench on the lab's client (2026-01-15)"
    p30 = cat.disk("P30")
    assert p30.price_per_month == 120 and not p30.is_assumed("price_per_month")
    assert p30.read_latency == 0.0015 and p30.is_assumed("read_latency")  # from the user's default
    assert cat.disk("premium-v2").price_per_gib_month == 0.08          # given under disks:
    assert cat.disk("E30").read_latency == 0.005


def test_bundled_catalog_is_left_alone():
    load_catalog([PRICES])
    assert bundled_catalog().disk("P30").price_per_month == 135.17
    assert bundled_catalog().defaults.latency["premium"] == 0.002
    assert "Lab_Client_16" not in bundled_catalog().vms


def test_nested_fields_merge_and_null_clears(tmp_path):
    f = write(tmp_path, "disks:\n  P20:\n    burst: {iops: 4000}\n  P30:\n    performance_plus: null\n")
    cat = load_catalog([f])
    burst = cat.disk("P20").burst
    assert (burst.kind, burst.iops, burst.bandwidth, burst.duration) == ("credit", 4000, 170e6, 1800)
    assert cat.disk("P30").performance_plus is None


def test_later_files_win_and_errors_blame_the_file_that_set_the_field(tmp_path):
    a = write(tmp_path, "vms:\n  Standard_DS13:\n    vcpus: 0\n", "a.yaml")
    b = write(tmp_path, "vms:\n  Standard_DS13:\n    memory: 64GiB\n", "b.yaml")
    with pytest.raises(SchemaError) as e:
        load_catalog([a, b])
    assert (e.value.file, e.value.field) == (str(a), "vms.Standard_DS13.vcpus")
    c = write(tmp_path, "vms:\n  Standard_DS13:\n    vcpus: 12\n", "c.yaml")
    assert load_catalog([c, write(tmp_path, "vms:\n  Standard_DS13:\n    vcpus: 10\n", "d.yaml")]).vm(
        "Standard_DS13").vcpus == 10
    assert load_catalog([c]).vm("Standard_DS13").vcpus == 12


def test_explicit_source_and_assumptions_win(tmp_path):
    f = write(tmp_path, "disks:\n  P10:\n    price_per_month: 18\n    source: our EA price sheet (2026-02-01)\n"
                        "    assumptions: [price_per_month]\n")
    p10 = load_catalog([f]).disk("P10")
    assert p10.source == "our EA price sheet (2026-02-01)"
    assert p10.assumptions == ("price_per_month", "read_latency", "write_latency")


def test_hourly_price_replaces_monthly_price(tmp_path):
    f = write(tmp_path, "vms:\n  Standard_D16s_v5:\n    price_per_month: 500\n")
    g = write(tmp_path, "vms:\n  Standard_D16s_v5:\n    price_per_hour: 0.5\n", "g.yaml")
    assert load_catalog([f]).vm("Standard_D16s_v5").price_per_month == 500
    assert load_catalog([f, g]).vm("Standard_D16s_v5").price_per_month == pytest.approx(365)


def test_new_disk_takes_default_latency_and_new_provisioned_tier(tmp_path):
    f = write(tmp_path, "version: 1\ndisks:\n  P35:\n    tier: premium\n    size: 1.5TiB\n    iops: 6000\n"
                        "    bandwidth: 220MB/s\n")
    p35 = load_catalog([f]).disk("P35")
    assert (p35.read_latency, p35.is_assumed("read_latency")) == (0.002, True)
    assert p35.source == f"catalog file {f}"
    assert p35.host_caching


# ---- malformed files, through the CLI


CASES = [
    # (name, content, field path or None, words in the message)
    ("yaml-syntax", "vms:\n  Standard_DS13:\n    uncached_iops: [1,\n", None, "YAML syntax error at line 4, column 1"),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00", None, "binary content, not a YAML text file"),
    ("not-utf8", b"vms:\n  Standard_DS13:\n    vcpus: \xff\xfe\n", None, "not UTF-8 text (byte 0xff"),
    ("empty", "# nothing here\n", None, "the file is empty"),
    ("duplicate-key", "vms:\n  Standard_DS13:\n    vcpus: 8\n    vcpus: 9\n", None,
     "duplicate key 'vcpus' (key 'vcpus' first given at line 3)"),
    ("unknown-field", "vms:\n  Standard_DS13:\n    uncached_iop: 30000\n", "vms.Standard_DS13.uncached_iop",
     "unknown field 'uncached_iop'; did you mean 'uncached_iops'?"),
    ("unknown-nested-field", "disks:\n  P30:\n    burst: {kind: credit, iop: 5, bandwidth: 1MB/s, duration: 1m}\n",
     "disks.P30.burst.iop", "unknown field 'iop'; did you mean 'iops'?"),
    ("wrong-type", "vms:\n  Standard_DS13:\n    vcpus: eight\n", "vms.Standard_DS13.vcpus",
     "expected a valid integer"),
    ("wrong-bool", "vms:\n  Standard_DS13:\n    premium_storage: maybe\n", "vms.Standard_DS13.premium_storage",
     "expected a valid boolean"),
    ("negative", "disks:\n  P30:\n    iops: -5\n", "disks.P30.iops", "operation rate '-5' is negative"),
    ("zero", "disks:\n  P30:\n    iops: 0\n", "disks.P30.iops", "must be greater than 0 (got 0)"),
    ("zero-rate", "services:\n  anf-ultra:\n    rate_per_tib: 0MiB/s\n", "services.anf-ultra.rate_per_tib",
     "must be greater than 0"),
    ("bad-unit", "vms:\n  Standard_DS13:\n    uncached_bandwidth: 256 parsecs\n",
     "vms.Standard_DS13.uncached_bandwidth", "'256 parsecs' is not a data rate"),
    ("bad-size", "disks:\n  P30:\n    size: 1 TiBs\n", "disks.P30.size", "'1 TiBs' is not a size"),
    ("bad-duration", "defaults:\n  latency:\n    premium: 2 lightyears\n", "defaults.latency.premium",
     "'2 lightyears' is not a duration"),
    ("unknown-section", "vm:\n  Standard_DS13:\n    vcpus: 8\n", "vm", "unknown section 'vm'; did you mean 'vms'?"),
    ("bad-version", "version: 2\n", "version", "unsupported catalog version 2"),
    ("top-level-list", "- vms\n- disks\n", None, "expected a mapping of sections"),
    ("section-list", "vms: [Standard_DS13]\n", "vms", "expected a mapping of id to fields, got a list"),
    ("row-scalar", "vms:\n  Standard_DS13: 5\n", "vms.Standard_DS13", "expected a mapping of fields, got 5"),
    ("missing-field", "vms:\n  Standard_X1:\n    vcpus: 2\n", "vms.Standard_X1.memory", "missing required field"),
    ("bad-choice", "disks:\n  P30:\n    tier: premium-ssd\n", "disks.P30.tier",
     "expected 'premium', 'standard-ssd' or 'standard-hdd' (got 'premium-ssd')"),
    ("fraction", "protocols:\n  smb3:\n    encryption_loss: 1.5\n", "protocols.smb3.encryption_loss",
     "must be at most 1"),
    ("unpaired-cap", "vms:\n  Standard_DS13:\n    burst_iops: 30000\n", "vms.Standard_DS13",
     "burst_iops and burst_bandwidth go together"),
    ("bad-hourly-price", "vms:\n  Standard_DS13:\n    price_per_hour: cheap\n", "vms.Standard_DS13.price_per_hour",
     "expected a valid number"),
    ("unknown-assumption", "disks:\n  P30:\n    assumptions: [latency]\n", "disks.P30",
     "assumptions names 'latency', which is not a field"),
    ("id-mismatch", "disks:\n  P30:\n    id: P40\n", "disks.P30.id", "id 'P40' differs from its key 'P30'"),
    ("id-clash", "vms:\n  P30: {vcpus: 1, memory: 1GiB, max_data_disks: 1, premium_storage: true}\n", "vms.P30",
     "id 'P30' is already used in section 'disks'"),
    ("provisioned-range", "disks:\n  premium-v2:\n    max_iops: 1000\n", "disks.premium-v2",
     "min_iops must not be above max_iops"),
]


@pytest.mark.parametrize("name,content,field,words", CASES, ids=[c[0] for c in CASES])
def test_malformed_catalog_file(iolab, tmp_path, name, content, field, words):
    path = write(tmp_path, content, f"{name}.yaml")
    r = iolab("catalog", "show", "P30", "--catalog", str(path))
    assert r.code == 2, r.err
    assert r.out == ""
    assert "Traceback" not in r.err
    where = f"{path}: {field}: " if field else f"{path}: "
    assert r.err.startswith(f"error: {where}"), r.err
    assert words in r.err


def test_missing_catalog_file(iolab, tmp_path):
    r = iolab("catalog", "list", "vms", "--catalog", str(tmp_path / "nope.yaml"))
    assert (r.code, r.err.strip()) == (2, f"error: {tmp_path / 'nope.yaml'}: file not found")
    r = iolab("catalog", "list", "vms", "--catalog", str(tmp_path))
    assert (r.code, r.err.strip()) == (2, f"error: {tmp_path}: is a directory, not a file")


def test_second_file_is_named(iolab, tmp_path):
    good = write(tmp_path, "disks:\n  P30:\n    price_per_month: 120\n", "good.yaml")
    bad = write(tmp_path, "disks:\n  P30:\n    bandwidht: 300MB/s\n", "bad.yaml")
    r = iolab("catalog", "show", "P30", "--catalog", str(good), "--catalog", str(bad), "--json")
    assert r.code == 2
    assert r.err.startswith(f"error: {bad}: disks.P30.bandwidht: unknown field 'bandwidht'; did you mean 'bandwidth'?")
