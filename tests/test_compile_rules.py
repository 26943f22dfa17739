"""The compiler's rules (docs/model.md), each checked through `iolab predict --json` on a small
scenario whose answer follows from the rule by hand."""

from __future__ import annotations

import pytest

MiB = 2**20


def predict(iolab, tmp_path, text: str) -> dict:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    r = iolab("predict", path, "--json")
    assert r.code == 0, r.err
    return r.json()


def test_network_egress_caps_writes_to_a_share_and_receive_caps_reads(iolab, tmp_path):
    """Azure caps a VM's outbound traffic: Standard_DS1 (500 Mbit/s = 62.5 MB/s) writes to an ANF
    volume at 62.5 MB/s. Reads count against what the VM can receive instead: 2.5 x 62.5 =
    156.25 MB/s by the assumed receive-over-egress ratio."""
    base = ("clients: {vm: Standard_DS1}\nvolumes:\n  s: {service: anf, level: ultra, size: 8TiB, nconnect: 4}\n"
            "jobs:\n  - {rw: %s, bs: 1m, iodepth: 16, ioengine: libaio, direct: 1}\n")
    write = predict(iolab, tmp_path, base % "write")
    assert write["bandwidth"] == pytest.approx(62.5e6, rel=0.01)
    assert write["bottleneck"]["kind"] == "network"
    read = predict(iolab, tmp_path, base % "read")
    assert read["bandwidth"] == pytest.approx(156.25e6, rel=0.01)
    assert read["bottleneck"] == {"resource": "Standard_DS1 network receive", "kind": "receive",
                                  "utilization": pytest.approx(1.0, abs=0.01), "why": "saturated"}
    assert all(r["kind"] != "network" for r in read["resources"])
    assert all(r["kind"] != "receive" for r in write["resources"])


def test_clients_share_the_service(iolab, tmp_path):
    """Four clients on one 1 TiB Ultra volume (128 MiB/s) get 128 MiB/s between them, not each."""
    doc = predict(iolab, tmp_path, "clients: {count: 4}\nvolumes:\n  s: {service: anf, level: ultra, size: 1TiB}\n"
                  "jobs:\n  - {name: r, rw: read, bs: 64k, iodepth: 16, ioengine: libaio, direct: 1}\n")
    assert doc["bandwidth"] == pytest.approx(128 * MiB, rel=0.01)
    assert doc["outstanding"] == 64
    assert doc["bottleneck"]["kind"] == "service"
    assert [j["name"] for j in doc["jobs"]] == ["r"]


def test_smb_encryption_costs_the_service_its_share(iolab, tmp_path):
    """SMB encryption lowers the service's throughput by the catalog's 12.5 % (published: 10-15 %)."""
    base = ("volumes:\n  s: {service: anf, level: ultra, size: 4TiB, protocol: smb3, nconnect: 4%s}\n"
            "jobs:\n  - {rw: read, bs: 1m, iodepth: 16, ioengine: libaio}\n")
    plain = predict(iolab, tmp_path, base % "")
    encrypted = predict(iolab, tmp_path, base % ", encryption: true")
    assert plain["bandwidth"] == pytest.approx(512 * MiB, rel=0.01)
    assert encrypted["bandwidth"] == pytest.approx(0.875 * 512 * MiB, rel=0.01)
    assert any("encryption" in n for n in encrypted["notes"])


def test_readwrite_cache_writes_see_the_cache_and_flush_to_the_disks(iolab, tmp_path):
    """ReadWrite host caching: a lone write takes the cache's 0.2 ms, yet the lazy flush still
    loads the disk (its utilization is the write rate over its IOPS)."""
    doc = predict(iolab, tmp_path, "clients: {vm: Standard_DS13}\nvolumes:\n  d:\n    disks:\n"
                  "      - {sku: P30, caching: readwrite}\njobs:\n"
                  "  - {rw: randwrite, bs: 8k, iodepth: 1, ioengine: libaio, size: 10g}\n")
    assert doc["latency"]["mean"] == pytest.approx(0.2e-3, rel=0.01)
    disk = next(r for r in doc["resources"] if r["kind"] == "disk")
    assert disk["utilization"] == pytest.approx(doc["iops"] / 5000, rel=0.02)


def test_readonly_cache_hit_ratio_follows_the_working_set(iolab, tmp_path):
    """ReadOnly: a warm cache serves min(1, cache share / working set) of the reads. DS13's
    288 GiB cache over a 576 GiB working set serves half, so half the reads reach the disk."""
    doc = predict(iolab, tmp_path, "clients: {vm: Standard_DS13}\nvolumes:\n  d:\n    disks:\n"
                  "      - {sku: P30, caching: readonly}\njobs:\n"
                  "  - {rw: randread, bs: 8k, iodepth: 2, numjobs: 4, ioengine: libaio, size: 144g}\n")
    disk = next(r for r in doc["resources"] if r["kind"] == "disk")
    assert disk["utilization"] == pytest.approx(0.5 * doc["iops"] / 5000, rel=0.02)
    assert any("hit ratio 50%" in n for n in doc["notes"])
