"""Requirements files: malformed ones exit 2 with one line naming the file, the field and
what is wrong; good ones load into typed requirements."""

from __future__ import annotations

import pytest

from conftest import bare, EXAMPLES

OK_JOBS = "jobs: [{rw: read}]\n"
OK_REQUIRE = "require: {iops: 100, capacity: 1TiB}\n"

BAD = [
    ("unknown-top", "requir: {iops: 100}\n" + OK_JOBS, "requir", "did you mean 'require'?"),
    ("unknown-require-field", OK_JOBS + "require: {iop: 100}\n", "require.iop", "did you mean 'iops'?"),
    ("unknown-search-field", OK_JOBS + OK_REQUIRE + "search: {vm: [Standard_DS13]}\n", "search.vm",
     "did you mean 'vms'?"),
    ("clients-type", OK_JOBS + OK_REQUIRE + "clients: two\n", "clients", "whole number of clients"),
    ("bad-unit", OK_JOBS + "require: {iops: 100, latency: 5parsecs}\n", "require.latency", "is not a duration"),
    ("bad-size", OK_JOBS + "require: {iops: 100, capacity: 2 terabytes}\n", "require.capacity", "is not a size"),
    ("negative", OK_JOBS + "require: {iops: -100}\n", "require.iops", "negative"),
    ("unknown-kind", OK_JOBS + OK_REQUIRE + "search: {kind: tape}\n", "search.kind",
     "expected 'disks', 'share' or 'any', or a list of them (got 'tape')"),
    ("empty-jobs", "jobs: []\n" + OK_REQUIRE, "jobs", "non-empty list of jobs"),
    ("jobs-not-a-list", "jobs: {rw: read}\n" + OK_REQUIRE, "jobs", "non-empty list of jobs"),
    ("no-load", OK_JOBS + "require: {latency: 5ms}\n", "require", "give iops or bandwidth"),
    ("no-require", OK_JOBS, "require", "missing required field"),
    ("unknown-vm", OK_JOBS + OK_REQUIRE + "search: {vms: [Standard_DS13x]}\n", "search.vms[0]",
     "unknown VM size 'Standard_DS13x'; nearest: Standard_DS13"),
    ("glob-matches-nothing", OK_JOBS + OK_REQUIRE + 'search: {vms: ["Standard_Q*"]}\n', "search.vms[0]",
     "matches no VM size"),
    ("unknown-sku", OK_JOBS + OK_REQUIRE + "search: {skus: [P31]}\n", "search.skus[0]", "unknown disk SKU 'P31'"),
    ("bad-caching", OK_JOBS + OK_REQUIRE + "search: {caching: [none, sometimes]}\n", "search.caching[1]",
     "expected 'none', 'readonly' or 'readwrite'"),
    ("share-field-on-disks", OK_JOBS + OK_REQUIRE + "search: {services: [anf]}\n", "search.services",
     "applies to kind: share"),
    ("disk-field-on-share", OK_JOBS + OK_REQUIRE + "search: {kind: share, max_disks: 3}\n", "search.max_disks",
     "applies to kind: disks"),
    ("nconnect-range", OK_JOBS + OK_REQUIRE + "search: {kind: share, nconnect: [32]}\n", "search.nconnect[0]",
     "1 to 16"),
    ("unknown-level", OK_JOBS + OK_REQUIRE + "search: {kind: share, levels: [platinum]}\n", "search.levels[0]",
     "unknown service level 'platinum'"),
    ("job-volume", "jobs: [{rw: read, volume: data}]\n" + OK_REQUIRE, "jobs[0].volume", "leave 'volume' out"),
    ("bad-rw", "jobs: [{rw: randwalk}]\n" + OK_REQUIRE, "jobs[0].rw", "unknown rw 'randwalk'"),
    ("version", "version: 2\n" + OK_JOBS + OK_REQUIRE, "version", "unsupported version 2"),
    ("missing-catalog", OK_JOBS + OK_REQUIRE + "catalog: [nofile.yaml]\n", "catalog[0]", "not found"),
    ("pool-and-require", OK_JOBS + OK_REQUIRE + "pool: {service: anf, volumes: []}\n", "jobs",
     "a pool plan takes pool: alone"),
    ("pool-duplicate-volume", "pool: {service: anf, volumes: [{name: a, capacity: 1TiB, bandwidth: 10MiB/s}, "
     "{name: a, capacity: 1TiB, bandwidth: 10MiB/s}]}\n", "pool.volumes[1].name", "two volumes are named 'a'"),
    ("pool-unknown-level", "pool: {service: anf, level: ultrafast, volumes: [{name: a, capacity: 1TiB, "
     "bandwidth: 10MiB/s}]}\n", "pool.level", "nearest: ultra"),
    ("pool-missing-bandwidth", "pool: {service: anf, volumes: [{name: a, capacity: 1TiB}]}\n",
     "pool.volumes[0].bandwidth", "missing required field"),
]


@pytest.mark.parametrize("name,text,field,message", BAD, ids=[b[0] for b in BAD])
def test_malformed_requirements_exit_2_naming_file_and_field(iolab, tmp_path, name, text, field, message):
    path = tmp_path / f"{name}.yaml"
    path.write_text("version: 1\n" + text if not text.startswith("version") else text)
    r = iolab("plan", str(path))
    assert r.code == 2, r.out + r.err
    assert r.out == ""
    line = r.err.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"error: {path}: {field}: "), line
    assert message in line


def test_not_a_mapping(iolab, tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n")
    r = iolab("plan", str(path))
    assert r.code == 2
    assert r.err.strip() == f"error: {path}: a requirements file must be a mapping with jobs, require and search (or pool)"


def test_catalog_paths_are_relative_to_the_requirements_file(iolab, tmp_path):
    (tmp_path / "prices.yaml").write_text("vms:\n  Standard_D8s_v5: {price_per_month: 280.32}\n"
                                          "disks:\n  P30: {price_per_month: 100}\n")
    # 6,000 IOPS at the default 80 % margin need 7,500: one P30 with performance plus (8,000
    # IOPS, the same price): $280.32 + $100; without performance plus two P30 (5,000 IOPS each).
    for plus, cost, disk in (("", 380.32, {"sku": "P30", "count": 1, "caching": "none", "performance_plus": True}),
                             (", performance_plus: false", 480.32, {"sku": "P30", "count": 2, "caching": "none"})):
        (tmp_path / "req.yaml").write_text(
            "version: 1\njobs: [{rw: randread, bs: 8k}]\nrequire: {iops: 6000}\n"
            f"search: {{vms: [Standard_D8s_v5], skus: [P30]{plus}}}\ncatalog: [prices.yaml]\n")
        r = iolab("plan", str(tmp_path / "req.yaml"), "--json")
        assert r.code == 0, r.err
        first = r.json()["candidates"][0]
        assert bare(first["config"]) == {"vm": "Standard_D8s_v5", "disks": [disk]}
        assert first["monthly_cost"] == pytest.approx(cost)


def test_summary_for_check():
    from iolab.plan import load_requirements

    req = load_requirements(EXAMPLES / "oltp-requirements.yaml")
    s = req.summary()
    assert s["require"]["iops"] == 16000 and s["clients"] == 1
    assert s["jobs"][0]["rw"] == "randrw"
    pool = load_requirements(EXAMPLES / "pool-requirements.yaml").summary()
    assert [v["name"] for v in pool["pool"]["volumes"]] == ["data", "log", "shared"]
