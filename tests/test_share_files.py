"""One file's limit on Azure Files (the file scale targets of storage-files-scale-targets.md,
2021-10-06): a file in a premium (SSD) share serves at most 8,000 IOPS, one in a standard (HDD)
share 1,000 IOPS and 60 MiB/s. fio gives each clone (numjobs) its own nrfiles files unless
filename names them. Worked by hand: a 100 TiB premium share allows 102,400 IOPS; four SMB
channels carry 4 x 62,500 requests/s; so one file at 4 KiB and 64 in flight gets 8,000 IOPS,
four clones 4 x 8,000 = 32,000, sixteen clones would have 128,000 but the share holds them at
102,400; four clones on one filename get 8,000 together."""

from __future__ import annotations

import pytest

MiB = 2**20

SHARE = """clients: {{vm: Standard_D32s_v3}}
volumes:
  share: {{service: azure-files, level: {level}, size: {size}, protocol: smb3, nconnect: 4}}
jobs:
  - {{name: f, rw: {rw}, bs: {bs}, iodepth: 64, numjobs: {jobs}, ioengine: libaio, direct: 1{extra}}}
"""


def predict(iolab, tmp_path, *, level="premium", size="100TiB", rw="randread", bs="4k", jobs=1, extra=""):
    path = tmp_path / "s.yaml"
    path.write_text(SHARE.format(level=level, size=size, rw=rw, bs=bs, jobs=jobs, extra=extra))
    r = iolab("predict", path, "--json")
    assert r.code == 0, r.err
    return r.json()


@pytest.mark.parametrize("jobs,extra,iops,kind,label", [
    (1, "", 8000, "file", "share: f's file (8,000 IOPS per file)"),
    (4, "", 32000, "file", "share: f's 4 files (8,000 IOPS per file)"),
    (1, ", nrfiles: 2", 16000, "file", "share: f's 2 files (8,000 IOPS per file)"),
    (4, ", filename: data.bin", 8000, "file", "share: file data.bin (8,000 IOPS per file)"),
    (16, "", 102400, "service", "share: azure-files-premium 100 TiB"),
], ids=["one-file", "four-clones", "two-files-per-clone", "four-clones-one-filename", "share-binds"])
def test_a_premium_file_serves_8000_iops(iolab, tmp_path, jobs, extra, iops, kind, label):
    doc = predict(iolab, tmp_path, jobs=jobs, extra=extra)
    assert doc["iops"] == pytest.approx(iops, rel=0.02)
    assert doc["bottleneck"]["kind"] == kind and doc["bottleneck"]["resource"] == label


def test_a_standard_file_serves_60_mibps_and_the_sentence_names_the_file(iolab, tmp_path):
    """1 MiB reads of one file in a 10 TiB standard share (265 MiB/s): 60 MiB/s, the file's
    limit, which the text output names as such."""
    doc = predict(iolab, tmp_path, level="standard-v2", size="10TiB", rw="read", bs="1m")
    assert doc["bandwidth"] == pytest.approx(60 * MiB, rel=0.02)
    assert doc["bottleneck"]["resource"] == "share: f's file (1,000 IOPS and 60 MiB/s per file)"
    text = iolab("predict", tmp_path / "s.yaml")
    assert text.code == 0
    assert ("Bottleneck: One file's limit caps it: share: f's file (1,000 IOPS and 60 MiB/s per file) is "
            "100.0% busy.") in text.out


def test_a_plan_for_one_file_names_the_file_limit(iolab, tmp_path):
    """20,000 IOPS from one clone: no share size helps, and the plan says it is one file's limit
    (8,000 IOPS: 250% busy)."""
    path = tmp_path / "req.yaml"
    path.write_text("version: 1\njobs: [{rw: randread, bs: 4k, iodepth: 64, numjobs: 1, ioengine: libaio}]\n"
                    "require: {iops: 20000, capacity: 1TiB}\n"
                    "search: {kind: share, services: [azure-files], protocols: [smb3], vms: [Standard_D32s_v3]}\n")
    r = iolab("plan", path)
    assert r.code == 0, r.err
    assert "0 feasible" in r.out
    assert ("one file's limit would be 250% busy at 20,000 IOPS (one file in a share of azure-files-premium "
            "serves at most 8,000 IOPS") in r.out
