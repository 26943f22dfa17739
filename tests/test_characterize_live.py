"""`iolab characterize --live`: on this machine's own devices, and on a fake /proc whose
counters move by known amounts (to check the figures and the Ctrl-C stop)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.telemetry import Trace
from iolab.telemetry.live import resolve_target, sample_live


def _a_device() -> str:
    names = [l.split()[2] for l in Path("/proc/diskstats").read_text().splitlines() if len(l.split()) > 3]
    real = [n for n in names if not n.startswith(("loop", "ram", "zram"))]
    return (real or names)[0]


@pytest.mark.skipif(not Path("/proc/diskstats").exists(), reason="needs Linux /proc")
def test_live_on_this_machine(iolab):
    dev = _a_device()
    r = iolab("characterize", "--live", dev, "--duration", "2s", "--interval", "0.5s", "--no-store", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["source"]["devices"] == [dev]
    assert 3 <= d["samples"] <= 4
    assert d["interval"] == pytest.approx(0.5, abs=0.2)
    assert d["combined"]["total"]["iops"]["max"] >= 0


def test_live_unknown_target_is_bad_input(iolab):
    r = iolab("characterize", "--live", "no-such-device-xyz", "--duration", "1s", "--no-store")
    assert r.code == 2
    assert r.err.startswith("error: --live: 'no-such-device-xyz' is neither")


def _proc(tmp: Path, reads: int) -> None:
    # sda: `reads` reads of 8 sectors, each taking 1 ms; nothing else
    (tmp / "diskstats").write_text(f"   8       0 sda {reads} 0 {reads * 8} {reads} 0 0 0 0 0 {reads // 2} {reads}\n")


def test_live_figures_and_ctrl_c_keep_what_was_taken(tmp_path):
    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "mountstats").write_text("")
    (tmp_path / "self" / "mountinfo").write_text("")
    _proc(tmp_path, 0)
    target = resolve_target("/dev/sda", tmp_path)
    now = [1000.0]
    calls = [0]

    def sleep(dt):
        calls[0] += 1
        if calls[0] == 4:
            raise KeyboardInterrupt
        now[0] += 0.5
        _proc(tmp_path, 100 * calls[0])        # +100 reads every 0.5 s -> 200 IOPS, 4 KiB each

    trace = Trace()
    got = sample_live(target, duration=600, interval=0.5, trace=trace, clock=lambda: now[0], sleep=sleep)
    assert len(got) == 3                        # the fourth interval was interrupted
    assert all(s.r_iops == pytest.approx(200) for s in got)
    assert all(s.r_bw == pytest.approx(200 * 4096) for s in got)
    assert all(s.r_lat == pytest.approx(0.001) for s in got)
    assert got[0].queue == pytest.approx(0.2)   # 100 weighted ms over 0.5 s
    assert any("Ctrl-C" in n for n in trace.notes)


def test_live_nfs_mount_sums_every_transport(tmp_path):
    # the mountstats fixture's three snapshots, served one per read: READ +20000 then +40000 over
    # 10 s each (2000 and 4000 reads/s); RPCs over four transports: 2500/s then 4500/s
    from conftest import DATA

    snaps = [s.split("\n", 1)[1] for s in (DATA / "telemetry" / "mountstats.log").read_text().split("\n1795514")
             if "device" in s]
    assert len(snaps) == 3
    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "mountinfo").write_text("")
    (tmp_path / "diskstats").write_text("")
    (tmp_path / "self" / "mountstats").write_text(snaps[0])
    target = resolve_target("/mnt/anf", tmp_path)
    assert target.kind == "nfs"
    now = [0.0]
    step = [0]

    def sleep(dt):
        step[0] += 1
        now[0] += 10.0
        (tmp_path / "self" / "mountstats").write_text(snaps[step[0]])

    trace = Trace()
    got = sample_live(target, duration=20, interval=10, trace=trace, clock=lambda: now[0], sleep=sleep)
    assert [s.r_iops for s in got] == pytest.approx([2000, 4000])
    assert [s.rpc_ops for s in got] == pytest.approx([2500, 4500])
    assert got[1].r_lat == pytest.approx(0.001)
