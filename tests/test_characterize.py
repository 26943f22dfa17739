"""`iolab characterize` on one fixture per telemetry format; every expected figure is worked
out by hand from the fixture (tests/data/telemetry) in the comment above it.

Percentiles interpolate linearly: with n sorted values v, P = v[k] + f·(v[k+1] − v[k]) where
k + f = P/100 · (n − 1).
"""

from __future__ import annotations

import pytest
import yaml

from conftest import DATA

T = DATA / "telemetry"


def run(iolab, *args):
    r = iolab("characterize", *[str(a) for a in args], "--no-store", "--json")
    assert r.code == 0, r.err
    return r.json()


def close(a, b, rel=1e-6):
    assert a == pytest.approx(b, rel=rel)


def test_iostat_12_grouped_layout_two_disks(iolab):
    # sysstat >= 12.1.2 layout, 6 reports; the first (since boot) is dropped. Combined: sda + sdb
    # (dm-0 stacked, sda1 a partition, loop0 virtual are left out).
    # total IOPS per report: sda r 100..500 + w 50, sdb w 100,100,100,100,600
    #   -> 250, 350, 450, 550, 1150; P95: k+f = 3.8 -> 550 + 0.8·600 = 1030
    # KiB/s: sda r·8 + 800 + sdb w·4 -> 2000, 2800, 3600, 4400, 7200; P95 = 4400 + 0.8·2800 = 6640 KiB/s
    # write latency: (50·2 ms + 100·4 ms)/150 = 3.333 ms four times, (100 + 2400)/650 = 3.846 ms;
    #   P95 = 3.333 + 0.8·(3.846 − 3.333) = 3.744 ms
    d = run(iolab, T / "iostat-12.5.txt")
    c = d["combined"]
    assert d["source"]["devices"] == ["sda", "sdb"]
    assert d["samples"] == 5 and d["interval"] == 60
    close(c["total"]["iops"]["p95"], 1030)
    close(c["total"]["iops"]["p50"], 450)
    close(c["total"]["iops"]["max"], 1150)
    close(c["total"]["bandwidth"]["p95"], 6640 * 1024)
    close(c["write"]["latency"]["p95"], (100 / 300 * 10 + 0.8 * (2500 / 650 - 10 / 3)) / 1000)
    close(c["read"]["latency"]["p99"], 0.001)
    close(c["queue_depth"]["p95"], 0.6)
    # sizing: 1030 × 1.3 = 1339 IOPS; 6640 KiB/s × 1.3 = 8.839 MB/s -> 8.9 MB/s
    # mean IO size 20000 KiB / 2750 IOs = 7.27 KiB -> 7k; reads 1500 of 2750 IOs = 54.5 % -> 55
    assert d["requirements"]["require"] == {"iops": 1339, "bandwidth": 8.9e6}
    assert d["requirements"]["jobs"] == [{"rw": "randrw", "rwmixread": 55, "bs": "7k", "iodepth": 1,
                                          "ioengine": "libaio"}]
    per = {x["name"]: x for x in d["devices"]}
    close(per["sdb"]["write"]["iops"]["p95"], 100 + 0.8 * 500)
    # the busy window: only the last report (1150 IOPS) is at or above P95; it covers 10:04-10:05
    assert len(d["busy_windows"]) == 1 and d["busy_windows"][0]["duration"] == 60


def test_iostat_11_5_7_layout_iso_times(iolab):
    # r/s 1000, 2000, 3000 (after the since-boot report), 64 KiB each, r_await 0.5/1.0/1.5 ms,
    # aqu-sz 0.5/2/4.5. P95 (k+f = 1.9): 2900 IOPS, 2900·64 KiB/s, 1.45 ms, queue 4.25 -> iodepth 5
    d = run(iolab, T / "iostat-11.5.7-iso.txt")
    c = d["combined"]
    close(c["read"]["iops"]["p95"], 2900)
    close(c["total"]["bandwidth"]["p95"], 2900 * 64 * 1024)
    close(c["read"]["latency"]["p95"], 0.00145)
    close(c["read"]["io_size"]["p50"], 65536)
    assert d["interval"] == 10
    assert d["requirements"]["jobs"][0] == {"rw": "randread", "bs": "64k", "iodepth": 5, "ioengine": "libaio"}
    assert d["requirements"]["require"]["iops"] == 3770          # 2900 × 1.3


def test_iostat_10_layout_in_sectors_without_times(iolab):
    # sysstat 10.1.5: rsec/s/wsec/s in 512-byte sectors; w/s 200, 400 with wsec/s 1600, 3200 (4 KiB)
    # P95 = 200 + 0.95·200 = 390 IOPS, 390 · 4096 B/s; no times: --interval 5s sets the spacing
    d = run(iolab, T / "iostat-10.1.5.txt", "--interval", "5s")
    c = d["combined"]
    close(c["write"]["iops"]["p95"], 390)
    close(c["total"]["bandwidth"]["p95"], 390 * 4096)
    close(c["write"]["io_size"]["max"], 4096)
    close(c["write"]["latency"]["mean"], 0.003)
    assert d["interval"] == 5
    assert d["requirements"]["jobs"][0]["rw"] == "randwrite"


def test_iostat_json(iolab):
    # r/s 500, 700 (+ w/s 100 each) after the since-boot report: total 600, 800; P95 = 790
    # KiB/s 500·4 + 1600 = 3600, 4400 -> P95 4360 KiB/s; r_await 0.2, 0.4 ms -> P95 0.39 ms
    c = run(iolab, T / "iostat-12.5.json")["combined"]
    close(c["total"]["iops"]["p95"], 790)
    close(c["total"]["bandwidth"]["p95"], 4360 * 1024)
    close(c["read"]["latency"]["p95"], 0.00039)


def test_sar_d_splits_tps_by_bytes(iolab):
    # tps 300, 600, 900 with reads 2/3 of the bytes -> reads 200, 400, 600; P95 (k+f = 1.9):
    # total 600 + 0.9·300 = 870, reads 400 + 0.9·200 = 580; KiB/s 2400, 4800, 7200 -> 6960
    d = run(iolab, T / "sar-d-12.txt")
    c = d["combined"]
    close(c["total"]["iops"]["p95"], 870)
    close(c["read"]["iops"]["p95"], 580)
    close(c["total"]["bandwidth"]["p95"], 6960 * 1024)
    close(c["read"]["latency"]["p50"], 0.002)
    assert d["interval"] == 600


def test_sadf_d_old_sectors(iolab):
    # rd_sec/s = tps·16 sectors (8 KiB reads); tps 100, 200, 400 -> P95 = 200 + 0.9·200 = 380
    c = run(iolab, T / "sadf-d-11.csv")["combined"]
    close(c["read"]["iops"]["p95"], 380)
    close(c["total"]["bandwidth"]["p95"], 380 * 8192)
    close(c["read"]["io_size"]["mean"], 8192)


def test_sadf_j(iolab):
    # tps 1000, 3000; rkB = wkB = tps·16 -> P95 tps 2900, bytes 2900·32 KiB; await 1 ms
    c = run(iolab, T / "sadf-j-12.json")["combined"]
    close(c["total"]["iops"]["p95"], 2900)
    close(c["total"]["bandwidth"]["p95"], 2900 * 32 * 1024)
    close(c["read_share"]["p50"], 0.5)


def test_diskstats_snapshots(iolab):
    # 5 s apart. Δ1: 5000 reads (1000/s), 1000 writes (200/s), read ms 2500 -> 0.5 ms, weighted 3500 ms
    # -> queue 0.7. Δ2: 10000 reads (2000/s), 2000 writes (400/s), 10000 ms -> 1 ms, queue 2.6.
    # totals 1200, 2400 -> P95 2340; reads of 16 sectors (8 KiB), writes of 8 (4 KiB)
    d = run(iolab, T / "diskstats.log")
    c = d["combined"]
    assert d["source"]["devices"] == ["sda"]
    close(c["total"]["iops"]["p95"], 2340)
    close(c["read"]["latency"]["p50"], 0.00075)
    close(c["queue_depth"]["max"], 2.6)
    close(c["read"]["io_size"]["p50"], 8192)
    close(c["write"]["io_size"]["p50"], 4096)
    close(c["utilization"]["max"], 0.8)


def test_mountstats_nconnect_sums_every_transport(iolab):
    # 10 s apart; READ ops +20000 then +40000 (2000/s, 4000/s), WRITE +5000 twice (500/s):
    # totals 2500, 4500 -> P95 4400; READ execute 16000 ms / 20000 = 0.8 ms, 1.0 ms -> P95 0.99 ms
    # RPCs: four xprt lines, each +6250 then +11250 sends -> 2500/s and 4500/s (one line alone: 1/4)
    d = run(iolab, T / "mountstats.log")
    c = d["combined"]
    assert d["source"]["devices"] == ["/mnt/anf"]
    close(c["total"]["iops"]["p95"], 4400)
    close(c["read"]["latency"]["p95"], 0.00099)
    close(c["rpc_ops"]["max"], 4500)
    close(c["rpc_ops"]["p50"], 3500)
    close(c["read"]["io_size"]["p50"], 65536)
    close(c["write"]["io_size"]["p50"], 32768)
    # queue: (16000 + 10000) ms / 10 s = 2.6, then (40000 + 15000) / 10 = 5.5
    close(c["queue_depth"]["max"], 5.5)


def test_nfsiostat(iolab):
    # reports 2 and 3: read 3000 + write 1000, then 1000 + 1000 ops/s -> P95 = 2000 + 0.95·2000 = 3900
    # read avg exe 0.9 ms and 0.5 ms -> P50 0.7 ms
    c = run(iolab, T / "nfsiostat.txt", "--interval", "5s")["combined"]
    close(c["total"]["iops"]["p95"], 3900)
    close(c["read"]["latency"]["p50"], 0.0007)
    close(c["total"]["bandwidth"]["max"], (192000 + 32000) * 1024)


def test_perfmon_csv_german_regional_format(iolab):
    # relog CSV, comma decimals, dd.mm.yyyy dates, blank first row. Combined = 0 C: + 1 F: (not _Total):
    # 1200.5 + 300 + 30 = 1530.5, 3030.5, 4530.5 -> P95 = 3030.5 + 0.9·1500 = 4380.5
    # F: read latency 2, 3, 4 ms weighted with C:'s 10 reads at 0.5 ms
    d = run(iolab, T / "perfmon-de.csv")
    c = d["combined"]
    assert d["source"]["devices"] == ["PhysicalDisk(0 C:)", "PhysicalDisk(1 F:)"]
    assert d["samples"] == 3 and d["interval"] == 15
    close(c["total"]["iops"]["p95"], 4380.5)
    close(c["read"]["latency"]["max"], (3600.5 * 0.004 + 10 * 0.0005) / 3610.5)
    close(c["write"]["bandwidth"]["p50"], 600 * 65536 + 81920)
    per = {x["name"]: x for x in d["devices"]}
    close(per["PhysicalDisk(1 F:)"]["utilization"]["max"], 0.8)     # % Idle Time 20


def test_fio_logs_of_two_jobs_add_up(iolab):
    # log_avg_msec=1000. Reads: job 1 100, 200, 300; job 2 100 each -> 200, 300, 400; writes 50 + 50.
    # totals 300, 400, 500 -> P95 490; latency: mean of the jobs' 0.5 ms and 1.5 ms = 1 ms
    files = [T / f"db_{k}.{j}.log" for k in ("iops", "bw", "lat") for j in (1, 2)]
    d = run(iolab, *files)
    c = d["combined"]
    close(c["total"]["iops"]["p95"], 490)
    close(c["read"]["latency"]["p50"], 0.001)
    close(c["write"]["latency"]["p50"], 0.002)
    close(c["total"]["bandwidth"]["max"], 500 * 8 * 1024)


def test_results_database_as_telemetry(iolab, tmp_path):
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore

    db = tmp_path / "runs.db"
    with ResultsStore(db) as s:
        for i, (r, w) in enumerate(((1000.0, 0.0), (3000.0, 1000.0))):
            s.save(RunRecord("ok", f"2026-11-24T10:0{i}:00+00:00", f"2026-11-24T10:0{i}:30+00:00", "[job]",
                             measured=Measured(Figures(r + w, (r + w) * 4096), Figures(r, r * 4096, {"mean": 0.001}),
                                               Figures(w, w * 4096, {"mean": 0.002})), target="/mnt/data"))
        s.save(RunRecord("failed", "2026-11-24T10:05:00+00:00", "2026-11-24T10:05:01+00:00", "[job]"))
    # two finished runs: totals 1000, 4000 -> P95 = 1000 + 0.95·3000 = 3850
    c = run(iolab, db)["combined"]
    close(c["total"]["iops"]["p95"], 3850)
    close(c["read"]["latency"]["max"], 0.001)


def test_percentile_and_comfort_options(iolab):
    # sar fixture: P99 of 300, 600, 900 = 600 + 0.98·300 = 894; comfort 1.0 -> 894 IOPS
    d = run(iolab, T / "sar-d-12.txt", "--percentile", "99", "--comfort", "1.0")
    assert d["requirements"]["require"]["iops"] == 894


def test_device_option_selects_what_is_combined(iolab):
    d = run(iolab, T / "iostat-12.5.txt", "--device", "sdb")
    # sdb alone: 100 ×4 and 600 -> P95 = 100 + 0.8·500 = 500
    close(d["combined"]["total"]["iops"]["p95"], 500)
    r = iolab("characterize", str(T / "iostat-12.5.txt"), "--device", "sdz", "--no-store")
    assert r.code == 2 and "--device: no device 'sdz'" in r.err


def test_requirements_file_feeds_plan_unedited(iolab, tmp_path):
    out = tmp_path / "req.yaml"
    r = iolab("characterize", str(T / "iostat-12.5.txt"), "-o", str(out), "--no-store")
    assert r.code == 0, r.err
    doc = yaml.safe_load(out.read_text())
    assert doc["require"] == {"iops": 1339, "bandwidth": "8.9MB/s"}
    p = iolab("plan", str(out), "--json", "--catalog", str(DATA / "plan" / "catalog.yaml"))
    assert p.code == 0, p.err
    plan = p.json()
    assert plan["candidates"], plan
    # the plan carries the larger of the two loads: 8.9 MB/s at 7 KiB (7168 B) is 1241.6 IOPS < 1339
    assert plan["candidates"][0]["prediction"]["iops"] == pytest.approx(1339, rel=0.01)


def test_characterization_is_stored_like_a_run(iolab, tmp_path):
    db = tmp_path / "r.db"
    r = iolab("characterize", str(T / "iostat-11.5.7-iso.txt"), "--db", str(db), "--json")
    assert r.code == 0, r.err
    run_id = r.json()["run_id"]
    shown = iolab("results", "show", str(run_id), "--db", str(db), "--json")
    assert shown.code == 0, shown.err
    doc = shown.json()
    assert doc["params"]["kind"] == "characterize"
    assert doc["iops"] == pytest.approx(2900)           # the P95 load before the comfort factor


def test_plot_is_written(iolab, tmp_path):
    png = tmp_path / "load.png"
    r = iolab("characterize", str(T / "diskstats.log"), "--plot", str(png), "--no-store")
    assert r.code == 0, r.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_iostat_json_of_sysstat_11_keys(iolab, tmp_path):
    # sysstat <= 11.5.6 JSON: "r", "w", "rkB", "wkB" (per second despite the names), "avgqu-sz", "await"
    rows = [(5.0, 1.0), (300.0, 100.0), (500.0, 300.0)]
    stats = ",\n".join(
        '{"timestamp": "11/24/26 10:00:%02d", "avg-cpu": {"user": 1.00}, "disk": [{"disk_device": "sdb", '
        '"rrqm": 0.00, "wrqm": 0.00, "r": %.2f, "w": %.2f, "rkB": %.2f, "wkB": %.2f, "avgrq-sz": 16.00, '
        '"avgqu-sz": 0.50, "await": 2.00, "r_await": 1.50, "w_await": 3.00, "svctm": 0.10, "util": 10.00}]}'
        % (i * 5, r, w, r * 8, w * 8) for i, (r, w) in enumerate(rows))
    f = tmp_path / "iostat11.json"
    f.write_text('{"sysstat": {"hosts": [{"nodename": "old", "statistics": [\n' + stats + "\n]}]}}\n")
    # after the since-boot report: totals 400, 800 -> P95 = 400 + 0.95·400 = 780; 8 KiB each
    c = run(iolab, f)["combined"]
    close(c["total"]["iops"]["p95"], 780)
    close(c["total"]["bandwidth"]["p95"], 780 * 8192)
    close(c["read"]["latency"]["p50"], 0.0015)
    close(c["write"]["latency"]["p50"], 0.003)


def test_typeperf_en_us_logicaldisk(iolab):
    # LogicalDisk(D:) (not _Total); the third sample has blank values and is skipped.
    # totals 500, 600, 1100 -> P95 = 600 + 0.9·500 = 1050; 4 KiB each; every 5 s
    d = run(iolab, T / "typeperf-en-us.csv")
    c = d["combined"]
    assert d["source"]["devices"] == ["LogicalDisk(D:)"]
    assert d["samples"] == 3 and d["interval"] == 5
    close(c["total"]["iops"]["p95"], 1050)
    close(c["total"]["bandwidth"]["p95"], 1050 * 4096)
    close(c["write"]["latency"]["max"], 0.0016)
    close(c["queue_depth"]["p50"], 2.0)


def test_two_hosts_same_device_names_are_told_apart_and_added(iolab, tmp_path):
    # two diskstats logs of the same seconds with different IO on sda and no host name: two
    # machines, renamed by file, added up. db2's sda does 3 × db1's IO: totals 4 × db1's.
    a, b = tmp_path / "db1.log", tmp_path / "db2.log"
    a.write_bytes((T / "diskstats.log").read_bytes())
    tripled = []
    for line in (T / "diskstats.log").read_text().splitlines():
        f = line.split()
        if len(f) > 3 and f[2] == "sda":
            line = " ".join(f[:3] + [str(3 * int(x)) for x in f[3:]])
        tripled.append(line)
    b.write_text("\n".join(tripled) + "\n")
    d = run(iolab, a, b)
    assert d["source"]["devices"] == ["db1.log:sda", "db2.log:sda"]
    close(d["combined"]["total"]["iops"]["p95"], 4 * 2340)
    assert d["samples"] == 2
    assert d["source"]["merged"] == []
    assert any("taken as two machines" in n for n in d["source"]["notes"])


def test_the_same_log_given_twice_counts_once(iolab, tmp_path):
    # identical figures over the same seconds: one machine seen twice, not two machines
    a, b = tmp_path / "db1.log", tmp_path / "db2.log"
    a.write_bytes((T / "diskstats.log").read_bytes())
    b.write_bytes((T / "diskstats.log").read_bytes())
    d = run(iolab, a, b)
    assert d["source"]["devices"] == ["sda"]
    close(d["combined"]["total"]["iops"]["p95"], 2340)
    assert {m["device"] for m in d["source"]["merged"]} == {"sda", "sda1", "loop0"}


def test_nfs_telemetry_plans_nfs_shares(iolab, tmp_path):
    out = tmp_path / "nfs.yaml"
    r = iolab("characterize", str(T / "mountstats.log"), "-o", str(out), "--no-store")
    assert r.code == 0, r.err
    doc = yaml.safe_load(out.read_text())
    assert doc["search"] == {"kind": "share", "protocols": ["nfs3", "nfs4.1"]}
    assert doc["require"]["iops"] == 5720                      # P95 4400 × 1.3
    p = iolab("plan", str(out), "--json", "--top", "1")
    assert p.code == 0, p.err
    cand = p.json()["candidates"][0]
    assert cand["config"]["protocol"] in ("nfs3", "nfs4.1")


def test_sar_d_sysstat_10_across_midnight(iolab):
    # 24-hour clock, wr_sec/s in sectors (16 = 8 KiB writes), 23:50 -> 00:00 -> 00:10: still 600 s apart
    # tps 100, 200, 300 -> P95 = 200 + 0.9·100 = 290
    d = run(iolab, T / "sar-d-10.txt")
    c = d["combined"]
    assert d["interval"] == 600
    close(c["write"]["iops"]["p95"], 290)
    close(c["total"]["bandwidth"]["p95"], 290 * 8192)
    close(c["write"]["latency"]["p50"], 0.005)
    assert d["busy_windows"][0]["end"] - d["busy_windows"][0]["start"] == 600


def test_perfmon_of_two_hosts_keeps_their_disks_apart(iolab, tmp_path):
    # one relog CSV merging two servers' logs: each has PhysicalDisk(0 C:); per row 100 + 300 reads/s
    head = ['"(PDH-CSV 4.0) (UTC)(0)"'] + [f'"\\\\{h}\\PhysicalDisk(0 C:)\\{c}"' for h in ("SQL01", "SQL02")
                                          for c in ("Disk Reads/sec", "Disk Writes/sec", "Disk Read Bytes/sec",
                                                    "Disk Write Bytes/sec")]
    rows = [",".join(['"11/24/2026 10:00:0%d.000"' % k] + [f'"{v}"' for v in (r1, 0, r1 * 8192, 0, r2, 0, r2 * 8192, 0)])
            for k, (r1, r2) in enumerate([(100, 300), (200, 300), (300, 300)])]
    f = tmp_path / "merged.csv"
    f.write_text("\r\n".join([",".join(head)] + rows) + "\r\n")
    d = run(iolab, f)
    assert d["source"]["devices"] == ["SQL01:PhysicalDisk(0 C:)", "SQL02:PhysicalDisk(0 C:)"]
    # totals 400, 500, 600 -> P95 = 500 + 0.9·100 = 590
    close(d["combined"]["total"]["iops"]["p95"], 590)


def test_perfmon_semicolon_separated(iolab, tmp_path):
    # a PerfMon CSV re-saved with ';' between fields (as spreadsheet programs in comma-decimal
    # locales write it): 100 and 300 reads/s of 8 KiB -> P50 200
    f = tmp_path / "semi.csv"
    f.write_text('"(PDH-CSV 4.0) (UTC)(0)";"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec";'
                 '"\\\\H\\PhysicalDisk(0 C:)\\Disk Writes/sec";"\\\\H\\PhysicalDisk(0 C:)\\Disk Read Bytes/sec";'
                 '"\\\\H\\PhysicalDisk(0 C:)\\Disk Write Bytes/sec"\r\n'
                 '"24.11.2026 10:00:00,000";"100";"0";"819200";"0"\r\n"24.11.2026 10:00:05,000";"300";"0";"2457600";"0"\r\n')
    c = run(iolab, f)["combined"]
    close(c["read"]["iops"]["p50"], 200)
    close(c["read"]["io_size"]["max"], 8192)
