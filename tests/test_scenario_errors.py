"""Malformed scenario files: exit 2, a message naming the file and the field, no traceback."""

from __future__ import annotations

import pytest

GOOD_VOLUME = "volumes:\n  data:\n    disks:\n      - {sku: P30, count: 1}\n"
GOOD_JOB = "jobs:\n  - {rw: randread, bs: 8k, iodepth: 4, ioengine: libaio}\n"

CASES = [
    # (id, content, words that must appear in the error)
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", ["scenario.yaml"]),
    ("yaml-syntax", "version: 1\nvolumes: [\n", ["scenario.yaml", "line"]),
    ("empty", "", ["scenario.yaml"]),
    ("not-a-mapping", "- 1\n- 2\n", ["scenario.yaml", "mapping"]),
    ("unknown-top-field", "version: 1\nvolume: {}\n" + GOOD_JOB, ["volume", "volumes"]),
    ("bad-version", "version: 2\n" + GOOD_VOLUME + GOOD_JOB, ["version"]),
    ("no-volumes", "version: 1\n" + GOOD_JOB, ["volumes"]),
    ("volume-kind", "volumes:\n  data: {foo: 1}\n" + GOOD_JOB, ["volumes.data", "disks"]),
    ("unknown-sku", "volumes:\n  data:\n    disks:\n      - {sku: P31}\n" + GOOD_JOB,
     ["volumes.data.disks[0].sku", "P30"]),
    ("unknown-disk-field", "volumes:\n  data:\n    disks:\n      - {sku: P30, cachng: none}\n" + GOOD_JOB,
     ["volumes.data.disks[0]", "cachng", "caching"]),
    ("zero-count", "volumes:\n  data:\n    disks:\n      - {sku: P30, count: 0}\n" + GOOD_JOB,
     ["volumes.data.disks[0].count"]),
    ("negative-latency", "volumes:\n  data:\n    disks:\n      - {sku: P30, latency: -2ms}\n" + GOOD_JOB,
     ["volumes.data.disks[0].latency"]),
    ("bad-caching", "volumes:\n  data:\n    disks:\n      - {sku: P30, caching: sometimes}\n" + GOOD_JOB,
     ["volumes.data.disks[0].caching"]),
    ("bad-stripe-unit", "volumes:\n  data:\n    disks:\n      - {sku: P30}\n    stripe_size: 64 bananas\n"
     + GOOD_JOB, ["volumes.data.stripe_size", "bananas"]),
    ("wrong-type-count", "volumes:\n  data:\n    disks:\n      - {sku: P30, count: many}\n" + GOOD_JOB,
     ["volumes.data.disks[0].count"]),
    ("unknown-vm", "clients: {vm: Standard_DS13x}\n" + GOOD_VOLUME + GOOD_JOB, ["clients.vm", "Standard_DS13"]),
    ("zero-clients", "clients: {count: 0}\n" + GOOD_VOLUME + GOOD_JOB, ["clients.count"]),
    ("premium-on-ds-less-vm", "clients: {vm: Standard_D16_v4}\n" + GOOD_VOLUME + GOOD_JOB,
     ["premium-storage", "volumes.data.disks[0].sku"]),
    ("too-many-disks", "clients: {vm: Standard_DS1}\nvolumes:\n  data:\n    disks:\n      - {sku: P30, count: 5}\n"
     + GOOD_JOB, ["max-data-disks", "at most 4"]),
    ("caching-on-big-disk", "clients: {vm: Standard_DS14}\nvolumes:\n  data:\n    disks:\n"
     "      - {sku: P50, caching: readonly}\n" + GOOD_JOB, ["host-caching", "volumes.data.disks[0].caching"]),
    ("mixed-caching", "clients: {vm: Standard_DS14}\nvolumes:\n  data:\n    disks:\n      - {sku: P30, caching: none}\n"
     "      - {sku: P30, caching: readonly}\n" + GOOD_JOB, ["uniform-caching"]),
    ("nconnect-17", "volumes:\n  s: {service: anf, level: ultra, size: 8TiB, nconnect: 17}\n" + GOOD_JOB,
     ["volumes.s.nconnect"]),
    ("signing-on-nfs", "volumes:\n  s: {service: anf, level: ultra, size: 8TiB, signing: true}\n" + GOOD_JOB,
     ["smb-only", "volumes.s.signing"]),
    ("unknown-level", "volumes:\n  s: {service: anf, level: platinum, size: 8TiB}\n" + GOOD_JOB,
     ["volumes.s.level", "platinum"]),
    ("share-too-small", "volumes:\n  s: {service: anf, level: ultra, size: 10GiB}\n" + GOOD_JOB,
     ["volume-size", "volumes.s.size"]),
    ("qos-without-manual", "volumes:\n  s: {service: azure-files, level: premium, size: 1TiB, protocol: nfs4.1,"
     " throughput: 500MiB/s}\n" + GOOD_JOB, ["manual-qos"]),
    ("pool-budget", "volumes:\n  s: {service: anf, level: standard, size: 4TiB, pool: 4TiB, throughput: 500MiB/s}\n"
     + GOOD_JOB, ["pool-budget", "volumes.s.throughput"]),
    ("no-jobs", GOOD_VOLUME + "jobs: []\n", ["jobs"]),
    ("job-not-mapping", GOOD_VOLUME + "jobs:\n  - randread\n", ["jobs[0]"]),
    ("job-unknown-volume", GOOD_VOLUME + "jobs:\n  - {volume: logs, rw: read}\n", ["jobs[0].volume", "data"]),
    ("job-volume-ambiguous", "volumes:\n  a:\n    disks: [{sku: P30}]\n  b:\n    disks: [{sku: P30}]\n"
     "jobs:\n  - {rw: read}\n", ["jobs[0].volume"]),
    ("job-bad-rw", GOOD_VOLUME + "jobs:\n  - {rw: sideways}\n", ["jobs[0].rw"]),
    ("job-unknown-option", GOOD_VOLUME + "jobs:\n  - {rw: read, iodepht: 4}\n", ["jobs[0]", "iodepht"]),
    ("job-bad-bs", GOOD_VOLUME + "jobs:\n  - {rw: read, bs: eight}\n", ["jobs[0].bs"]),
    ("job-zero-iodepth", GOOD_VOLUME + "jobs:\n  - {rw: read, iodepth: 0}\n", ["jobs[0].iodepth"]),
    ("fio-cmdline-bad", GOOD_VOLUME + "jobs:\n  - fio: \"fio --name=x --rw=randread --bs=4k --iodepth=-3\"\n",
     ["jobs[0]", "iodepth"]),
    ("fio-file-missing", GOOD_VOLUME + "jobs:\n  - fio_file: nowhere.fio\n", ["jobs[0].fio_file", "nowhere.fio"]),
    ("fio-and-options", GOOD_VOLUME + "jobs:\n  - {fio: \"fio --name=x\", rw: read}\n", ["jobs[0].rw"]),
    ("duplicate-key", "volumes:\n  data:\n    disks: [{sku: P30}]\n  data:\n    disks: [{sku: P20}]\n" + GOOD_JOB,
     ["scenario.yaml", "data"]),
    ("v2-needs-size", "volumes:\n  data:\n    disks:\n      - {sku: premium-v2, iops: 5000}\n" + GOOD_JOB,
     ["volumes.data.disks[0].size"]),
    ("v2-too-many-iops", "volumes:\n  data:\n    disks:\n      - {sku: premium-v2, size: 8GiB, iops: 50000}\n"
     + GOOD_JOB, ["volumes.data.disks[0]", "iops"]),
]


@pytest.mark.parametrize("content,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_scenario(iolab, tmp_path, content, words):
    path = tmp_path / "scenario.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    for command in ("check", "predict"):
        r = iolab(command, path, "--json")
        assert r.code == 2, (r.code, r.err)
        assert r.out == ""
        assert "Traceback" not in r.err
        assert r.err.startswith("error: ") and "scenario.yaml" in r.err
        for w in words:
            assert w in r.err, f"{w!r} not in {r.err!r}"


def test_missing_file(iolab, tmp_path):
    r = iolab("predict", tmp_path / "nope.yaml")
    assert r.code == 2 and "nope.yaml" in r.err


def test_relative_fio_file(iolab, tmp_path):
    """fio_file paths are relative to the scenario; the job file's options become the job."""
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "oltp.fio").write_text(
        "[global]\nioengine=libaio\ndirect=1\nbs=8k\n\n[oltp]\nrw=randrw\nrwmixread=70\niodepth=32\nnumjobs=4\n")
    (tmp_path / "s.yaml").write_text("clients: {vm: Standard_DS13}\nvolumes:\n  data:\n    disks:\n"
                                      "      - {sku: P30, count: 4, latency: 2ms}\njobs:\n  - fio_file: jobs/oltp.fio\n")
    doc = iolab("predict", tmp_path / "s.yaml", "--json").json()
    assert doc["outstanding"] == 128
    assert doc["iops"] == pytest.approx(19777, rel=1e-3)
