"""Options that only mean something beside another are refused alone (exit 2, the option
named) rather than ignored; ``characterize --live all`` samples every device and works on
any Linux machine, whatever its root filesystem."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DATA, EXAMPLES

TELEMETRY = str(DATA / "telemetry" / "iostat-12.5.txt")


def _alone(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    out = tmp_path / "out.html"
    bench = ["bench", "run", "--target", str(target), "--rw", "randread", "--size", "1m", "--runtime", "100ms"]
    return target, out, [
        ([*bench, "--latency-percentile", "99.9"], "--latency-percentile", "with --latency-target"),
        ([*bench, "--sweep", "iodepth=1,2", "--latency-percentile", "90"], "--latency-percentile", "--latency-target"),
        ([*bench, "--volume", "data"], "--volume", "with a scenario file"),
        (["characterize", TELEMETRY, "--duration", "5s", "--no-store"], "--duration", "with --live"),
        (["calibrate", str(EXAMPLES / "local-nvme.yaml"), "--runs", "1", "--force"], "--force", "with --output"),
        (["catalog", "import-prices", str(DATA / "catalog" / "retail" / "westeurope-1.json"), "--force"], "--force",
         "with -o OUT"),
        (["report", "run", "1", "-o", str(out), "--top", "3"], "--top", "to plan reports"),
        (["report", "predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "-o", str(out), "--top", "3"], "--top", "plan"),
        (["report", "run", "1", "-o", str(out), "--calibration", "c.yaml"], "--calibration",
         "to predict and plan reports"),
        (["report", "run", "1", "-o", str(out), "--region", "westeurope"], "--region", "to plan reports"),
        (["report", "run", "1", "-o", str(out), "--catalog", str(EXAMPLES / "private-catalog.yaml")], "--catalog",
         "to predict and plan reports"),
    ]


def test_an_option_without_its_partner_is_refused_and_nothing_is_done(iolab, tmp_path):
    target, out, cases = _alone(tmp_path)
    for args, option, words in cases:
        r = iolab(*args)
        assert r.code == 2, (args, r.err)
        assert r.err.startswith(f"error: {option}: has no effect here: it applies ") and words in r.err, r.err
        assert r.err.count("\n") == 1 and r.out == ""
        assert list(target.iterdir()) == [] and not out.exists()
    assert not (tmp_path / "xdg-data" / "iolab" / "results.db").exists()  # no run stored, no database made


def test_the_same_options_with_their_partner_are_taken(iolab, tmp_path):
    r = iolab("report", "plan", str(EXAMPLES / "oltp-requirements.yaml"), "-o", str(tmp_path / "p.html"), "--top", "2",
              "--json")
    assert r.code == 0, r.err
    assert r.json()["kind"] == "plan"


@pytest.mark.skipif(not Path("/proc/diskstats").exists(), reason="needs Linux /proc")
def test_live_all_samples_every_device(iolab):
    names = {line.split()[2] for line in Path("/proc/diskstats").read_text().splitlines() if len(line.split()) > 3}
    r = iolab("characterize", "--live", "all", "--duration", "1s", "--interval", "0.5s", "--no-store", "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert set(d["source"]["devices"]) <= names and d["source"]["devices"]
    assert 2 <= d["samples"] <= 3


def test_live_all_on_a_saved_proc_combines_whole_disks(tmp_path):
    from iolab.telemetry import Trace
    from iolab.telemetry.live import resolve_target, sample_live

    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "mountstats").write_text("")
    (tmp_path / "self" / "mountinfo").write_text("")

    def proc(n: int) -> None:  # sda +100 reads per step, sdb +300 writes per step, 8 sectors each
        (tmp_path / "diskstats").write_text(
            f"   8       0 sda {100 * n} 0 {800 * n} {100 * n} 0 0 0 0 0 {n} {100 * n}\n"
            f"   8      16 sdb 0 0 0 0 {300 * n} 0 {2400 * n} {300 * n} 0 {n} {300 * n}\n")

    proc(0)
    now, step = [0.0], [0]

    def sleep(dt):
        step[0] += 1
        now[0] += 1.0
        proc(step[0])

    trace = Trace()
    got = sample_live(resolve_target("all", tmp_path), duration=2, interval=1, trace=trace, clock=lambda: now[0],
                      sleep=sleep)
    by = {(s.device, round(s.time)): s for s in got}
    assert sorted(by) == [("sda", 1), ("sda", 2), ("sdb", 1), ("sdb", 2)]
    assert by["sda", 2].r_iops == pytest.approx(100) and by["sdb", 2].w_iops == pytest.approx(300)
    assert by["sdb", 1].w_bw == pytest.approx(300 * 4096)


def test_a_mount_without_a_device_names_the_way_out(iolab, tmp_path):
    from iolab.errors import SchemaError
    from iolab.telemetry.live import resolve_target

    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "mountstats").write_text("")
    (tmp_path / "self" / "mountinfo").write_text("27 1 0:31 / / rw - overlay overlay rw\n")
    (tmp_path / "diskstats").write_text("   8       0 sda 0 0 0 0 0 0 0 0 0 0 0\n")
    with pytest.raises(SchemaError) as e:
        resolve_target("/", tmp_path)
    assert "'all'" in str(e.value) and "sda" in str(e.value)
