"""Each measurement predicted as it ran: a calibration from read, write and randrw runs
predicts each with its own job (its rw and mix), and the error table, the JSON and the RMS
line show the same numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

TRUTH = "{read_latency: 150us, write_latency: 60us, cpu_per_io: 25us}"
START = "{read_latency: 100us, write_latency: 100us, cpu_per_io: 25us}"
#: the runs' own jobs, as bench stores each job file: none is the scenario's job
JOBS = {
    "reads": "[reads]\nrw=randread\nbs=4k\niodepth=4\nioengine=libaio\ndirect=1\nsize=1g\n",
    "writes": "[writes]\nrw=randwrite\nbs=4k\niodepth=2\nioengine=libaio\ndirect=1\nsize=1g\n",
    "mixed": "[mixed]\nrw=randrw\nrwmixread=70\nbs=4k\niodepth=8\nioengine=libaio\ndirect=1\nsize=1g\n",
    "mixed-qd1": "[mixed-qd1]\nrw=randrw\nrwmixread=30\nbs=8k\niodepth=1\nioengine=libaio\ndirect=1\nsize=1g\n",
}


def _scenario(path: Path, device: str) -> Path:
    """The device scenario of test_calibrate, its one job reading only (none of the runs' jobs)."""
    from test_calibrate import _scenario as device_scenario

    return device_scenario(path, device, "randread")


def _store(tmp_path: Path) -> Path:
    """A results database whose runs measured exactly what the model says with TRUTH for
    each run's own job (fio's JSON read as bench reads it)."""
    from iolab.bench.compare import predicted
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore
    from iolab.fio import parse_jobfile
    from iolab.scenario import load_scenario

    truth = load_scenario(_scenario(tmp_path / "truth.yaml", TRUTH))
    db = tmp_path / "runs.db"
    with ResultsStore(db) as store:
        for text in JOBS.values():
            doc = predicted(truth, parse_jobfile(text, source="run"))
            figs = {k: Figures(v["iops"], v["bandwidth"], {"mean": v["latency"]["mean"]})
                    for k, v in (("total", doc), ("read", doc.get("read")), ("write", doc.get("write"))) if v}
            store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:10+00:00",
                                 jobfile=text, measured=Measured(figs["total"], figs.get("read"), figs.get("write"))))
    return db


def test_each_run_is_predicted_with_its_own_mix(iolab, tmp_path):
    db = _store(tmp_path)
    start = _scenario(tmp_path / "start.yaml", START)
    doc = iolab(f"calibrate {start} --runs 1,2,3,4 --db {db} --json").json()
    points = {p["run_id"]: p for p in doc["points"]}
    # the randrw runs: read and write measured apart and predicted with the run's mix
    for run, mix in ((3, 0.7), (4, 0.3)):
        before = points[run]["before"]
        assert before["read.iops"] == pytest.approx(mix * before["iops"], rel=1e-3)
        assert before["write.iops"] == pytest.approx((1 - mix) * before["iops"], rel=1e-3)
    # with each run as it ran, both latencies are told apart and every figure fits
    got = {p["name"].rsplit(".", 1)[1]: p for p in doc["parameters"]}
    assert got["read_latency"]["after"] == pytest.approx(150e-6, rel=0.02)
    assert got["write_latency"]["identifiable"] and got["write_latency"]["after"] == pytest.approx(60e-6, rel=0.02)
    for p in doc["points"]:
        assert all(abs(e) < 0.01 for e in p["error_after"].values() if e is not None), p
    assert doc["rms_log_after"] < 0.01 < doc["rms_log_before"]


def test_table_json_and_rms_line_agree(iolab, tmp_path):
    db = _store(tmp_path)
    start = _scenario(tmp_path / "start.yaml", START)
    doc = iolab(f"calibrate {start} --runs 1,2,3,4 --db {db} --json").json()
    text = iolab(f"calibrate {start} --runs 1,2,3,4 --db {db}").out
    table = text[text.index("fitted runs"):]
    lines = [ln for ln in table.splitlines() if "%" in ln]
    for p in doc["points"]:
        row = next(i for i, ln in enumerate(lines) if f"run {p['run_id']} " in ln or ln.rstrip(" │").endswith(
            f"run {p['run_id']}"))
        scoped = [("", lines[row])] + [(f"{d}.", ln) for d, ln in zip(
            [d for d in ("read", "write") if f"{d}.iops" in p["error_before"]], lines[row + 1:])]
        for scope, line in scoped:
            for key in ("iops", "latency.mean"):
                for when in ("error_before", "error_after"):
                    value = p[when].get(scope + key)
                    if value is not None:
                        assert f"{value * 100:+.1f} %" in line, (p["run_id"], scope, key, when, line)
    # the RMS line is the root mean square of log(1 + error) over the same figures
    residuals = [math.log(1 + e) for p in doc["points"] for e in p["error_before"].values() if e is not None]
    rms = math.sqrt(sum(r * r for r in residuals) / len(residuals))
    assert doc["rms_log_before"] == pytest.approx(rms, rel=1e-9)
    assert f"{doc['rms_log_before']:.3f} before, {doc['rms_log_after']:.3f} after" in text


def test_a_parameter_no_run_informs_names_the_run_that_would(iolab, tmp_path):
    """Read runs alone cannot tell the write latency: the warning says which run would."""
    db = _store(tmp_path)
    start = _scenario(tmp_path / "start.yaml", START)
    r = iolab(f"calibrate {start} --runs 1 --db {db} --json")
    assert r.code == 0, r.err
    note = next(n for n in r.json()["notes"] if "write_latency" in n)
    assert note == ("no run informs volumes.disk.device.write_latency; a run that writes (rw=randwrite or randrw) "
                    "at a low iodepth would inform it")
    r = iolab(f"calibrate {start} --runs 1 --db {db} --fit write_latency")
    assert r.code == 2 and "no run informs volumes.disk.device.write_latency (none writes): a run that writes" in r.err
