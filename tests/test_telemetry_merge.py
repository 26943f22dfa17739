"""Several inputs of one machine and time are merged, not summed; inputs that cannot be told
apart are refused with the reason (real captures: tests/data/telemetry/merge, sysstat/)."""

from __future__ import annotations

import re

import pytest

from conftest import DATA

M = DATA / "telemetry" / "merge"
S = DATA / "telemetry" / "sysstat"


def run(iolab, *args):
    r = iolab("characterize", *[str(a) for a in args], "--no-store", "--json")
    assert r.code == 0, r.err
    return r.json()


def test_iostat_and_diskstats_of_the_same_seconds_count_once(iolab):
    # fio ran at --rate_iops=1500,700 for 9 of the 12 s: the busy seconds' median is 1,500
    # reads and 700 writes a second, once; summed, it would be twice that
    d = run(iolab, M / "iostat-vm.txt", M / "diskstats-vm.log")
    c = d["combined"]
    assert d["source"]["devices"] == ["vda"]
    assert c["read"]["iops"]["p50"] == pytest.approx(1500, rel=0.02)
    assert c["write"]["iops"]["p50"] == pytest.approx(700, rel=0.02)
    merged = [m for m in d["source"]["merged"] if m["device"] == "vda"]
    assert merged and merged[0]["files"] == [str(M / "iostat-vm.txt"), str(M / "diskstats-vm.log")]
    assert merged[0]["kept"] == str(M / "iostat-vm.txt")
    note = next(n for n in d["source"]["notes"] if "merged" in n)
    assert "iostat-vm.txt and diskstats-vm.log record the same IO of host vm" in note
    assert "counted once (from iostat-vm.txt)" in note


def test_three_inputs_of_one_machine_count_once(iolab):
    d = run(iolab, M / "iostat-vm.txt", M / "iostat-vm.json", M / "diskstats-vm.log")
    assert d["source"]["devices"] == ["vda"]
    assert d["combined"]["read"]["iops"]["p50"] == pytest.approx(1500, rel=0.02)
    assert {tuple(m["files"]) for m in d["source"]["merged"] if m["device"] == "vda"} == {
        (str(M / "iostat-vm.txt"), str(M / "iostat-vm.json")),
        (str(M / "iostat-vm.txt"), str(M / "diskstats-vm.log"))}


def test_the_text_says_what_was_merged(iolab):
    r = iolab("characterize", str(M / "iostat-vm.txt"), str(M / "diskstats-vm.log"), "--no-store")
    assert r.code == 0, r.err
    assert "merged, counted once (from iostat-vm.txt)" in " ".join(r.out.split())


def test_sar_and_sadf_of_one_file_count_once(iolab):
    d = run(iolab, S / "12.6.1" / "sar-d-p.txt", S / "12.6.1" / "sadf-j.json")
    assert d["source"]["devices"] == ["vda"]
    assert "vda" in [m["device"] for m in d["source"]["merged"]]
    assert d["combined"]["total"]["iops"]["max"] < 3000      # fio: 2,200 a second at most, once


def test_two_hosts_of_the_same_seconds_are_added(iolab, tmp_path):
    # the same capture under another host name: two machines, each under its file's name
    other = tmp_path / "db2.txt"
    other.write_text((M / "iostat-vm.txt").read_text().replace("(vm)", "(db2)", 1))
    d = run(iolab, M / "iostat-vm.txt", other)
    assert d["source"]["devices"] == ["iostat-vm.txt:vda", "db2.txt:vda"]
    assert d["source"]["merged"] == []
    assert d["combined"]["read"]["iops"]["p50"] == pytest.approx(3000, rel=0.02)


def test_one_host_the_same_seconds_other_io_is_refused(iolab, tmp_path):
    # 12.7.9's capture relabelled with the times of 12.6.1's: host vm, the same seconds,
    # different IO — iolab cannot tell which is right
    times = [l for l in (S / "12.6.1" / "iostat-x-t.txt").read_text().splitlines() if re.match(r"^\d\d/\d\d/\d\d ", l)]
    lines, k = [], 0
    for l in (S / "12.7.9" / "iostat-x-t.txt").read_text().splitlines():
        if re.match(r"^\d\d/\d\d/\d\d ", l):
            l, k = times[k], k + 1
        lines.append(l)
    other = tmp_path / "relabelled.txt"
    other.write_text("\n".join(lines) + "\n")
    r = iolab("characterize", str(S / "12.6.1" / "iostat-x-t.txt"), str(other), "--no-store")
    assert r.code == 2
    assert f"error: {other}:" in r.err
    assert "both record vda of host vm from" in r.err
    assert "count different IO there" in r.err and "give one of them" in r.err


def test_one_host_and_a_file_without_times_is_refused(iolab):
    r = iolab("characterize", str(S / "12.6.1" / "sar-d-p.txt"), str(S / "12.6.1" / "iostat-x.txt"),
              "--interval", "1s", "--no-store")
    assert r.code == 2
    assert f"error: {S / '12.6.1' / 'iostat-x.txt'}:" in r.err
    assert "has no times of its own: iolab cannot tell whether they cover the same seconds" in r.err
