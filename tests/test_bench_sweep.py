"""Sweeps and multi-host runs with a fake fio: points, knee, plot, per-host figures."""

from __future__ import annotations

import re

import pytest

import iolab.cli.bench as cli_bench
from iolab.bench.executor import FakeExecutor, FakeRun
from iolab.bench.fakejson import FakeJob, fio_json
from iolab.bench.hosts import Host, check_reachable, parse_host, read_clients, server_argv
from iolab.bench.jobs import Settings
from iolab.bench.runner import Bench, Request
from iolab.bench.store import ResultsStore
from iolab.bench.sweep import Point, find_knee, parse_axes, points
from iolab.errors import InputError, RunError, SafetyError
from iolab.fio import FioJob

VERSION = FakeRun(stdout="fio-3.33\n")


def option(argv, name):
    m = re.search(rf"^{name}=(\d+)$", open(argv[-1]).read(), re.M)
    return int(m.group(1)) if m else 1  # fio's default


def saturating(argv):
    """A device that gives 1,000 IOPS per IO in flight up to 4,000 (latency = depth / IOPS)."""
    depth = option(argv, "iodepth") * option(argv, "numjobs")
    iops = min(1000.0 * depth, 4000.0)
    return FakeRun(output=fio_json([FakeJob("bench", read_iops=iops, latency=depth / iops)]))


def test_axes_and_cartesian_product():
    axes = parse_axes(["numjobs=1,4", "bs=4k,64k"])
    assert axes == {"numjobs": [1, 4], "bs": [4096, 65536]}
    assert points(axes) == [{"numjobs": 1, "bs": 4096}, {"numjobs": 1, "bs": 65536},
                            {"numjobs": 4, "bs": 4096}, {"numjobs": 4, "bs": 65536}]
    for bad, why in [(["iodepth"], "NAME=V1"), (["depth=1"], "cannot sweep"), (["iodepth=1,1"], "repeats"),
                     (["iodepth=1", "iodepth=2"], "twice"), (["iodepth=0"], "at least 1"),
                     (["rwmixread=101"], "0..100")]:
        with pytest.raises(InputError, match=why):
            parse_axes(bad)


def pt(depth, iops, mean, p99=None, status="ok"):
    return Point({"iodepth": depth}, iops, iops * 4096, {"mean": mean, "p50": mean, "p99": p99 or mean * 2},
                 depth, status, depth)


def test_knee_without_target_is_where_iops_stop_growing_while_latency_grows():
    curve = [pt(1, 1000, 1e-3), pt(2, 1900, 1.05e-3), pt(4, 3000, 1.3e-3), pt(8, 3200, 2.5e-3), pt(16, 3250, 5e-3)]
    assert find_knee(curve).params == {"iodepth": 4}
    assert find_knee(curve[:3]) is None  # still growing by 10 % or more
    flat_latency = [pt(1, 1000, 1e-3), pt(2, 1050, 1e-3)]
    assert find_knee(flat_latency) is None


def test_knee_with_latency_target_is_the_highest_iops_meeting_it():
    curve = [pt(1, 1000, 1e-3, 1.5e-3), pt(4, 3000, 1.3e-3, 1.9e-3), pt(8, 3200, 2.5e-3, 4e-3),
             pt(16, 9000, 5e-3, 1.0e-3, status="failed")]
    assert find_knee(curve, latency_target=2e-3).params == {"iodepth": 4}
    assert find_knee(curve, latency_target=1e-3) is None
    assert find_knee(curve, latency_target=3e-3, percentile=50.0).params == {"iodepth": 8}
    with pytest.raises(InputError, match="percentile 95"):
        find_knee(curve, latency_target=2e-3, percentile=95.0)


def test_sweep_stores_one_run_per_point_and_plots(iolab, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(VERSION, saturating))
    plot = tmp_path / "curve.png"
    r = iolab("bench", "run", "--target", tmp_path, "--ioengine", "libaio", "--sweep", "iodepth=1,2,4,8,16",
              "--plot", plot, "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert [p["params"] for p in doc["points"]] == [{"iodepth": d} for d in (1, 2, 4, 8, 16)]
    assert [p["iops"] for p in doc["points"]] == [1000, 2000, 4000, 4000, 4000]
    assert doc["knee"]["params"] == {"iodepth": 4}
    store = ResultsStore(tmp_path / "r.db")
    assert [s.run_id for s in store.summaries(sweep_id=doc["sweep_id"])] == [5, 4, 3, 2, 1]
    assert store.sweep(doc["sweep_id"])["knee"] == {"params": {"iodepth": 4}, "run_id": 3}
    data = plot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    r = iolab("bench", "run", "--target", tmp_path, "--ioengine", "libaio", "--sweep", "iodepth=1,2,4,8",
              "--latency-target", "1.5ms", "--latency-percentile", "99", "--db", tmp_path / "r.db")
    assert r.code == 0, r.err
    assert "◀ knee" in r.out and "iodepth=1" in r.out and "whose p99 latency meets 1.5 ms" in r.out


def test_product_sweep_orders_the_curve_by_ios_in_flight(tmp_path):
    bench = Bench(ResultsStore(tmp_path / "r.db"), executor=FakeExecutor(VERSION, saturating))
    from iolab.bench.sweep import run_sweep

    sweep = run_sweep(bench, Request((FioJob(name="bench", ioengine="libaio"),), str(tmp_path)),
                      {"numjobs": [1, 2], "iodepth": [1, 2, 4]})
    assert len(sweep.curve) == 6
    # in flight: 1, 2, 2, 4, 4, 8; IOPS stop growing at 4 in flight and latency grows after it
    assert sweep.knee.outstanding == 4 and sweep.knee.params == {"numjobs": 2, "iodepth": 2}


def clients_run(failing=()):
    def run(argv):
        host = next(a for a in argv if a.startswith("--client=")).split("=", 1)[1].split(",")[0]
        if host in failing:
            return FakeRun(returncode=1, stderr="fio: client: host=%s disconnected\n" % host)
        iops = {"10.0.0.1": 1000.0, "10.0.0.2": 3000.0}[host]
        return FakeRun(output=fio_json([FakeJob("bench", read_iops=iops, latency=0.001, hostname=host)]))
    return run


def test_hosts_add_up_and_a_failed_host_keeps_the_others(tmp_path):
    hosts = (Host("10.0.0.1"), Host("10.0.0.2"))
    bench = Bench(ResultsStore(tmp_path / "r.db"), executor=FakeExecutor(VERSION, clients_run()),
                  reachable=lambda hosts: None)
    record = bench.run(Request((FioJob(name="bench"),), "/remote/dir", Settings(runtime=1), hosts))
    doc = record.to_json()
    assert [h["host"] for h in doc["hosts"]] == ["10.0.0.1", "10.0.0.2"]
    assert doc["iops"] == sum(h["iops"] for h in doc["hosts"]) == 4000
    jobfile = record.jobfile
    assert "directory=/remote/dir" in jobfile and "$clientuid" in jobfile and "unlink=1" in jobfile
    bench = Bench(ResultsStore(tmp_path / "r.db"), executor=FakeExecutor(VERSION, clients_run({"10.0.0.1"})),
                  reachable=lambda hosts: None)
    record = bench.run(Request((FioJob(name="bench"),), "/remote/dir", Settings(runtime=1), hosts))
    assert record.status == "failed" and "host 10.0.0.1 failed" in record.error
    stored = ResultsStore(tmp_path / "r.db").load(record.run_id)
    assert [(h.host, h.status) for h in stored.hosts] == [("10.0.0.1", "failed"), ("10.0.0.2", "ok")]
    assert stored.measured.total.iops == 3000


def test_remote_writes_to_named_files_need_destructive(tmp_path):
    bench = Bench(ResultsStore(tmp_path / "r.db"), executor=FakeExecutor(VERSION), reachable=lambda hosts: None)
    job = FioJob(name="j", rw="randwrite", filename="/dev/sdb")
    with pytest.raises(SafetyError, match="cannot check"):
        bench.run(Request((job,), "/data", hosts=(Host("10.0.0.1"),)))


def test_host_parsing_and_clients_file():
    assert parse_host("h") == Host("h") and parse_host("h:9000") == Host("h", 9000)
    assert parse_host("[fd00::1]:9000") == Host("fd00::1", 9000) and parse_host("fd00::1").port == 8765
    assert Host("fd00::1", 9000).client_option() == "--client=ip6:fd00::1,9000"
    assert Host("10.0.0.1").client_option() == "--client=10.0.0.1,8765"
    assert read_clients("# lab\n10.0.0.1\n\n10.0.0.2:9000  # second\n", file="c.txt") == [
        Host("10.0.0.1"), Host("10.0.0.2", 9000)]
    with pytest.raises(InputError, match="line 2") as e:
        read_clients("a\nb:x\n", file="c.txt")
    assert e.value.file == "c.txt"


def test_unreachable_hosts_are_all_named():
    def connect(addr, timeout):
        raise ConnectionRefusedError(111, "Connection refused")

    with pytest.raises(RunError, match="10.0.0.1: Connection refused; 10.0.0.2:9000: Connection refused"):
        check_reachable([Host("10.0.0.1"), Host("10.0.0.2", 9000)], connect=connect)


def test_server_binds_one_address():
    assert server_argv("fio", "10.1.2.3") == ["fio", "--server=ip:10.1.2.3,8765"]
    assert server_argv("fio", "fd00::1", 9000) == ["fio", "--server=ip6:fd00::1,9000"]
    for bad in ("0.0.0.0", "::", "myhost"):
        with pytest.raises(InputError, match="--bind|address"):
            server_argv("fio", bad)


def test_cli_server_port_is_fios_default():
    from iolab.bench.hosts import DEFAULT_PORT

    assert cli_bench.DEFAULT_PORT == DEFAULT_PORT == 8765


def test_a_sweep_refused_before_its_first_point_leaves_nothing(iolab, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(VERSION, saturating))
    data = tmp_path / "data.db"
    data.write_bytes(b"keep")
    r = iolab("bench", "run", "--target", data, "--rw", "randwrite", "--sweep", "iodepth=1,2",
              "--db", tmp_path / "r.db")
    assert r.code == 3 and data.read_bytes() == b"keep"
    store = ResultsStore(tmp_path / "r.db")
    assert store.ids() == [] and store._db.execute("SELECT COUNT(*) FROM sweeps").fetchone()[0] == 0


def test_remote_target_must_be_absolute(iolab, tmp_path):
    r = iolab("bench", "run", "--target", "data/dir", "--client", "127.0.0.2", "--db", tmp_path / "r.db")
    assert r.code == 2 and "absolute path" in r.err


def test_sweep_of_a_scenario_carries_the_prediction_at_every_point(iolab, monkeypatch, tmp_path):
    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(VERSION, saturating))
    scenario = tmp_path / "local.yaml"
    scenario.write_text("version: 1\nvolumes:\n  local:\n    device: {iops: 4000, bandwidth: 1GB/s, read_latency: 1ms}\n"
                        "jobs:\n  - {name: bench, rw: randread, bs: 4k, ioengine: libaio, size: 4m}\n")
    plot = tmp_path / "curve.svg"
    r = iolab("bench", "run", scenario, "--target", tmp_path, "--sweep", "iodepth=1,4,16", "--plot", plot,
              "--db", tmp_path / "r.db", "--json")
    assert r.code == 0, r.err
    points = r.json()["points"]
    predicted = [p["predicted"]["iops"] for p in points]
    assert predicted[0] == pytest.approx(1000, rel=0.05) and predicted == sorted(predicted)
    assert predicted[-1] <= 4000 * 1.001
    assert plot.read_text().lstrip().startswith("<?xml") and "predicted" in plot.read_text()
    r = iolab("bench", "run", scenario, "--target", tmp_path, "--sweep", "iodepth=1,4", "--db", tmp_path / "r.db")
    assert "predicted IOPS" in r.out and "1.00" in r.out  # the fake device behaves as predicted at QD 1


@pytest.mark.parametrize("bind,why", [
    ("::ffff:0:0", "every interface"), ("::ffff:0.0.0.0", "every interface"), ("0.0.0.0", "every interface"),
    ("::", "every interface"), ("0.1.2.3", "every interface"),
    ("224.0.0.1", "multicast"), ("239.1.2.3", "multicast"), ("ff02::1", "multicast"), ("::ffff:224.0.0.1", "multicast"),
    ("255.255.255.255", "broadcast"), ("240.0.0.1", "reserved"),
    ("8.8.8.8", "public"), ("2001:4860::8888", "public"), ("::ffff:8.8.8.8", "public"), ("100.64.0.1", "public"),
])
def test_server_binds_only_one_private_address(iolab, bind, why):
    r = iolab("bench", "server", "--bind", bind, "--fio", "/nonexistent/fio")
    assert r.code == 2 and r.err.startswith("error: --bind: ") and why in r.err, r.err


@pytest.mark.parametrize("bind,arg", [("127.0.0.1", "ip:127.0.0.1"), ("192.168.1.10", "ip:192.168.1.10"),
                                      ("172.16.0.1", "ip:172.16.0.1"), ("fd12::3", "ip6:fd12::3"),
                                      ("::1", "ip6:::1"), ("169.254.1.1", "ip:169.254.1.1"),
                                      ("::ffff:10.0.0.5", "ip6:::ffff:a00:5")])
def test_private_addresses_are_served(bind, arg):
    assert server_argv("fio", bind) == ["fio", f"--server={arg},8765"]
