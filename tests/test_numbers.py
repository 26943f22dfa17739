"""Numbers read the same in every command: one formatter (:mod:`iolab.units`) for counts,
rates, sizes, durations, percentages and money, with thousands separators throughout and
money in dollars and cents."""

from __future__ import annotations

import html

from conftest import EXAMPLES

from iolab.units import (GiB, MiB, format_count, format_duration, format_money, format_ops, format_percent,
                         format_rate, format_size)


def test_thousands_separators_in_every_unit():
    # a binary rate between 1,000 and 1,023 MiB/s stays in MiB/s: it reads like the IOPS beside it
    assert format_rate(1000 * MiB, binary=True) == "1,000 MiB/s"
    assert format_size(1020 * GiB) == "1,020 GiB"
    assert format_duration(4800 * 3600) == "4,800 h"
    assert format_ops(19776.8) == "19,777 IOPS"
    assert format_count(876768) == "876,768"
    assert format_money(1234.5) == "$1,234.50" and format_money(0.004) == "$0.00" and format_money(None) == "unpriced"
    assert format_percent(0.6667) == "67%" and format_percent(0.98884, 1) == "98.9%"
    assert format_rate(162011529.0) == "162 MB/s" and format_duration(0.006472231) == "6.472 ms"


def test_the_same_figure_reads_alike_in_predict_plan_report_and_results(iolab, tmp_path):
    # examples/oltp-ds13-p30.yaml predicts 19,776.8 IOPS, 162.0 MB/s at 6.472 ms (README.md).
    # A run measured at exactly those figures lists them alike; a plan required to carry
    # 19,776.8 IOPS shows the same 19,777 in its header, its table and its report.
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore

    scenario = str(EXAMPLES / "oltp-ds13-p30.yaml")
    doc = iolab("predict", scenario, "--json").json()
    assert (doc["iops"], doc["latency"]["mean"]) == (19776.8, 0.006472231)
    figures = ("19,777", "162 MB/s", "6.472 ms")
    predict = iolab("predict", scenario).out
    assert "19,777 IOPS" in predict and all(f in predict for f in figures[1:])
    report = tmp_path / "predict.html"
    assert iolab("report", "predict", scenario, "-o", str(report)).code == 0
    body = html.unescape(report.read_text())
    assert all(f">{f}<" in body for f in figures)
    db = tmp_path / "runs.db"
    total = Figures(doc["iops"], doc["bandwidth"], {"mean": doc["latency"]["mean"]})
    with ResultsStore(db) as store:
        store.save(RunRecord(status="ok", started="2026-01-02T03:04:05+00:00", ended="2026-01-02T03:04:35+00:00",
                             jobfile="[oltp]\nrw=randrw\n", fio_argv=("fio", "run.fio"), fio_version="fio-3.33",
                             host="lab", kernel="6.1", target="/mnt/data", measured=Measured(total)))
    listed = iolab("results", "list", "--db", str(db)).out
    assert all(f in listed for f in figures)
    req = tmp_path / "req.yaml"
    req.write_text("version: 1\njobs: [{rw: randrw, rwmixread: 70, bs: 8k, iodepth: 32, ioengine: libaio}]\n"
                   "require: {iops: 19776.8}\nsearch: {kind: disks, vms: [Standard_D16s_v5], skus: [P30]}\n")
    plan = iolab("plan", str(req)).out
    assert "— 19,777 IOPS (162 MB/s)" in plan
    rows = [line for line in plan.splitlines() if line.lstrip().startswith("1 ")]
    assert rows and "  19,777  " in rows[0] and "  162 MB/s  " in rows[0]
    page = tmp_path / "plan.html"
    assert iolab("report", "plan", str(req), "-o", str(page)).code == 0
    assert ">19,777<" in html.unescape(page.read_text())


def test_share_throughput_limits_read_in_the_unit_that_states_them_exactly(iolab, tmp_path):
    # Azure NetApp Files publishes one regular volume's ceiling as 4,500 MiB/s; a manual-QoS
    # volume asking 5,000 MiB/s is refused in that unit, never as 4.395 GiB/s; a pool's budget
    # (16 TiB of Ultra at 128 MiB/s per TiB) is 2 GiB/s exactly; the volume asks 3,000 MiB/s
    from iolab.units import format_limit

    assert format_limit(4500 * MiB) == "4,500 MiB/s" and format_limit(128 * MiB) == "128 MiB/s"
    assert format_limit(4608 * MiB) == "4.5 GiB/s" and format_limit(1.5 * MiB) == "1.5 MiB/s"  # NetApp Volumes' 4.5 GiB/s
    assert format_limit(1000.123 * MiB) == "1,000 MiB/s"
    text = (EXAMPLES / "oracle-anf-knfs.yaml").read_text()
    for extra, words in (("    pool: 40TiB\n    throughput: 5000MiB/s\n",
                          "volumes.oradata.throughput: one anf-ultra volume is capped at 4,500 MiB/s; 5,000 MiB/s asked"),
                         ("    pool: 16TiB\n    throughput: 3000MiB/s\n",
                          "volumes.oradata.throughput: a 16 TiB anf-ultra pool has 2 GiB/s to assign; the volume "
                          "asks 3,000 MiB/s")):
        path = tmp_path / "qos.yaml"
        path.write_text(text.replace("    nconnect: 1\n", "    nconnect: 1\n" + extra))
        r = iolab("predict", str(path))
        assert r.code == 2 and words in r.err and "4.395" not in r.err, r.err


def test_catalog_prices_read_as_money_with_their_unit(iolab):
    # a VM's month in dollars and cents; a unit price with the digits its source gives (gp3 in
    # us-east-1: $0.08 per GiB, $0.005 per IOPS and $0.04 per MiB/s, i.e. $0.038147 per MB/s)
    from iolab.units import format_price

    assert (format_price(1134.34), format_price(0.08), format_price(0.005)) == ("$1,134.34", "$0.08", "$0.005")
    assert format_price(0.04 / 1.048576) == "$0.038147" and format_price(0.5) == "$0.50"
    out = iolab("catalog", "show", "gp3", "--region", "us-east-1").out
    for text in ("$0.08 per GiB-month", "$0.005 per IOPS-month", "$0.038147 per MB/s-month"):
        assert text in out, out
    assert "$560.64 a month" in iolab("catalog", "show", "Standard_D16s_v5").out  # 0.768 $/h x 730
