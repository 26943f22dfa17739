"""iolab calibrate: parameters known in advance are recovered from runs generated with
them; data that cannot tell a parameter gets the warning; the calibration file feeds
predict and simulate; bad input is refused with one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

TRUE = {"read_latency": 150e-6, "write_latency": 60e-6, "cpu_per_io": 25e-6}


def _scenario(path: Path, device: str, rw: str = "randrw") -> Path:
    path.write_text(f"""version: 1
clients: {{cpus: 2}}
volumes:
  disk:
    device: {device}
jobs:
  - {{name: mix, rw: {rw}, rwmixread: 70, bs: 4k, iodepth: 1, ioengine: libaio, direct: 1, size: 1g}}
""")
    return path


TRUTH = "{read_latency: 150us, write_latency: 60us, cpu_per_io: 25us}"


def _runs(tmp_path: Path, depths: list[int], *, rw: str = "randrw", truth: str = TRUTH) -> Path:
    """A results database whose runs measured exactly what the model says with TRUE."""
    from iolab.bench.compare import predicted
    from iolab.bench.jobs import override
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore
    from iolab.scenario import load_scenario

    s = load_scenario(_scenario(tmp_path / "truth.yaml", truth, rw))
    db = tmp_path / "runs.db"
    with ResultsStore(db) as store:
        sweep = store.new_sweep({"iodepth": depths})
        for d in depths:
            doc = predicted(s, override([j.fio for j in s.jobs], {"iodepth": d}))
            figs = {k: Figures(v["iops"], v["bandwidth"], {"mean": v["latency"]["mean"]})
                    for k, v in (("total", doc), ("read", doc.get("read")), ("write", doc.get("write"))) if v}
            store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:10+00:00",
                                 jobfile="", params={"iodepth": d}, sweep_id=sweep,
                                 measured=Measured(figs["total"], figs.get("read"), figs.get("write"))))
    return db


def test_known_parameters_are_recovered_within_two_percent(iolab, tmp_path):
    db = _runs(tmp_path, [1, 2, 4, 8, 16, 32, 64])
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us, write_latency: 100us}")
    out = tmp_path / "cal.yaml"
    r = iolab(f"calibrate {start} --sweep 1 --db {db} -o {out} --json")
    assert r.code == 0, r.err
    doc = r.json()
    got = {p["name"].rsplit(".", 1)[1]: p for p in doc["parameters"]}
    for name, value in TRUE.items():
        assert got[name]["identifiable"] and not got[name]["fixed"], got[name]
        assert got[name]["after"] == pytest.approx(value, rel=0.02), name
    assert got["iops"]["fixed"] and got["iops"]["identifiable"] is None
    assert doc["rms_log_after"] < 0.01 < doc["rms_log_before"]
    assert doc["error_after"]["iops"] < 0.01 < doc["error_before"]["iops"]
    assert [p["run_id"] for p in doc["points"]] == list(range(1, 8))
    assert not doc["warnings"]
    written = yaml.safe_load(out.read_text())
    assert written["volumes"]["disk"]["device"]["cpu_per_io"] == pytest.approx(25e-6, rel=0.02)
    assert written["calibration"]["runs"] == list(range(1, 8)) and written["calibration"]["sweep"] == 1
    after = {p["run_id"]: p for p in written["calibration"]["residuals"]["after"]}
    assert all(abs(after[i]["iops"]) < 0.01 for i in after)


def test_a_named_cap_is_fitted_and_a_published_one_held(iolab, tmp_path):
    db = _runs(tmp_path, [1, 4, 16, 64], truth="{iops: 50000, read_latency: 150us, write_latency: 60us, cpu_per_io: 25us}")
    start = _scenario(tmp_path / "s.yaml", "{iops: 30000, read_latency: 150us, write_latency: 60us, cpu_per_io: 25us}")
    held = iolab(f"calibrate {start} --sweep 1 --db {db} --json").json()
    assert next(p for p in held["parameters"] if p["name"] == "volumes.disk.device.iops")["fixed"]
    assert held["rms_log_after"] > 0.1  # the wrong cap, held, keeps the error
    fitted = iolab(f"calibrate {start} --sweep 1 --db {db} --fit iops --hold cpu_per_io --json").json()
    caps = {p["name"]: p for p in fitted["parameters"]}
    assert caps["volumes.disk.device.iops"]["after"] == pytest.approx(50_000, rel=0.02)
    assert fitted["rms_log_after"] < 0.02


def test_data_that_cannot_identify_a_parameter_gets_the_warning(iolab, tmp_path):
    db = _runs(tmp_path, [1], rw="randread")
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us}", rw="randread")
    r = iolab(f"calibrate {start} --runs 1 --db {db} --json")
    assert r.code == 0, r.err
    doc = r.json()
    cpu = next(p for p in doc["parameters"] if p["name"].endswith("cpu_per_io"))
    assert cpu["identifiable"] is False
    assert "cannot identify volumes.disk.device.cpu_per_io" in cpu["warning"]
    assert any("cpu_per_io" in w for w in doc["warnings"])
    assert "cpu_per_io" not in doc["overrides"]["volumes"]["disk"]["device"]  # left unset, not guessed
    lat = next(p for p in doc["parameters"] if p["name"].endswith("read_latency"))
    assert lat["identifiable"] and lat["after"] == pytest.approx(150e-6, rel=0.02)
    text = iolab(f"calibrate {start} --runs 1 --db {db}")
    assert "warning: the data cannot identify volumes.disk.device.cpu_per_io" in text.err


def test_predict_and_simulate_take_the_calibration(iolab, tmp_path):
    db = _runs(tmp_path, [1, 2, 4, 8, 16, 32, 64])
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us, write_latency: 100us}")
    cal = tmp_path / "cal.yaml"
    assert iolab(f"calibrate {start} --sweep 1 --db {db} -o {cal}").code == 0
    plain = iolab(f"predict {start} --json").json()
    tuned = iolab(f"predict {start} --calibration {cal} --json").json()
    assert plain["latency"]["mean"] == pytest.approx(0.7 * 100e-6 + 0.3 * 100e-6, rel=1e-3)
    assert tuned["latency"]["mean"] == pytest.approx(0.7 * 150e-6 + 0.3 * 60e-6, rel=0.02)
    assert tuned["max_iops"] == pytest.approx(2 / 25e-6, rel=0.02)
    sim = iolab(f"simulate {start} --calibration {cal} --ios 20000 --json")
    assert sim.code == 0, sim.err
    assert sim.json()["latency"]["mean"] == pytest.approx(tuned["latency"]["mean"], rel=0.1)


def test_held_out_runs_are_predicted_not_fitted(iolab, tmp_path):
    db = _runs(tmp_path, [1, 2, 4, 8, 16, 32, 64])
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us, write_latency: 100us}")
    doc = iolab(f"calibrate {start} --runs 1,2,3,5,7 --validate 4,6 --db {db} --json").json()
    assert [p["run_id"] for p in doc["held_out"]] == [4, 6]
    assert all(abs(p["error_after"]["iops"]) < 0.02 for p in doc["held_out"])
    assert doc["held_out_error_after"]["iops"] < 0.02


def test_the_figures_after_the_fit_are_those_predict_gives_with_the_file(iolab, tmp_path):
    """Calibration applied one way: the figures calibrate reports after its fit (run 1, at the
    scenario's own iodepth; a held-out run too) are, to the last digits, those `predict
    --calibration FILE` gives with the file it wrote (the values as the file keeps them)."""
    db = _runs(tmp_path, [1, 2, 4, 8, 16, 32, 64])
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us, write_latency: 100us}")
    cal = tmp_path / "cal.yaml"
    doc = iolab(f"calibrate {start} --runs 1,2,3,5,7 --validate 4,6 --db {db} -o {cal} --json").json()
    point = next(p for p in doc["points"] if p["run_id"] == 1)["after"]
    tuned = iolab(f"predict {start} --calibration {cal} --json").json()
    assert tuned["iops"] != pytest.approx(iolab(f"predict {start} --json").json()["iops"], rel=1e-3)
    assert point["iops"] == pytest.approx(tuned["iops"], rel=1e-12)
    assert point["bandwidth"] == pytest.approx(tuned["bandwidth"], rel=1e-12)
    assert point["latency.mean"] == pytest.approx(tuned["latency"]["mean"], rel=1e-12)
    held = next(p for p in doc["held_out"] if p["run_id"] == 4)["after"]
    deeper = tmp_path / "s4.yaml"
    deeper.write_text(start.read_text().replace("iodepth: 1,", "iodepth: 8,"))
    at4 = iolab(f"predict {deeper} --calibration {cal} --json").json()
    assert held["iops"] == pytest.approx(at4["iops"], rel=1e-12)


def test_the_example_calibration_gives_what_its_fitted_values_give(iolab):
    """examples/p30-calibration.yaml as predict --calibration reads it (the service behind the
    command), and its fitted value applied by the function calibrate uses after its fit: the
    same figures."""
    from iolab.calibrate.calibration import calibrated
    from iolab.prediction import predict
    from iolab.scenario import load_scenario
    from iolab.service.predict import PredictOptions, predict_file

    doc = yaml.safe_load(Path("examples/p30-calibration.yaml").read_text())
    values = {f["parameter"]: f["value"] for f in doc["calibration"]["fitted"]}
    scenario = Path("examples/oltp-ds13-p30.yaml")
    served = predict_file(scenario, PredictOptions(calibration=Path("examples/p30-calibration.yaml"))).phases[0]
    plain = predict_file(scenario).phases[0]
    direct = predict(calibrated(load_scenario(scenario), values))
    assert served.latency > plain.latency   # 3 ms disks instead of 2 ms
    assert direct.iops == pytest.approx(served.iops, rel=1e-12)
    assert direct.latency == pytest.approx(served.latency, rel=1e-12)


def test_existing_output_is_left_intact_without_force(iolab, tmp_path):
    db = _runs(tmp_path, [1, 4])
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us, write_latency: 100us}")
    out = tmp_path / "cal.yaml"
    out.write_bytes(b"precious\n")
    r = iolab(f"calibrate {start} --sweep 1 --db {db} -o {out}")
    assert r.code == 2
    assert r.err.strip() == f"error: --output: {out} exists; add --force to replace it"
    assert out.read_bytes() == b"precious\n"
    assert iolab(f"calibrate {start} --sweep 1 --db {db} -o {out} --force").code == 0
    assert out.read_bytes() != b"precious\n"


@pytest.mark.parametrize("args, message", [
    ("--db {db}", "error: --runs: give the runs to fit: --runs ID... or --sweep ID (one of them)"),
    ("--runs 1 --sweep 1 --db {db}", "error: --runs: give the runs to fit: --runs ID... or --sweep ID (one of them)"),
    ("--runs x --db {db}", "error: --runs: expected run ids (whole numbers, comma-separated), got 'x'"),
    ("--runs 99 --db {db}", "error: --runs: no run with id 99 in {db}"),
    ("--sweep 1 --db {db} --fit nonsense", "error: --fit: the scenario has no parameter 'nonsense' to fit"),
    ("--sweep 1 --db {db} --hold cpu_per_io", "error: --hold: volumes.disk.device.cpu_per_io is unset in the "
     "scenario: give it a value there to hold it"),
])
def test_bad_input_is_one_line_and_exit_2(iolab, tmp_path, args, message):
    db = _runs(tmp_path, [1, 4])
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us, write_latency: 100us}")
    r = iolab(f"calibrate {start} " + args.format(db=db))
    assert r.code == 2
    assert r.err.startswith(message.format(db=db)) and r.err.count("\n") == 1, r.err


def test_a_calibration_naming_an_unknown_volume_is_refused(iolab, tmp_path):
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us}")
    cal = tmp_path / "cal.yaml"
    cal.write_text("version: 1\nvolumes:\n  data:\n    device: {read_latency: 1ms}\n")
    r = iolab(f"predict {start} --calibration {cal}")
    assert r.code == 2
    assert r.err.startswith(f"error: {cal}: volumes.data: unknown volume of {start} 'data'")
    cal.write_text("version: 1\nvolumes:\n  disk:\n    device: {read_latency: -1ms}\n")
    r = iolab(f"predict {start} --calibration {cal}")
    assert r.code == 2 and r.err.startswith(f"error: {cal}: volumes.disk.device.read_latency:")


def test_a_disk_latency_fitted_here_carries_into_plan(iolab, tmp_path):
    """Runs of four P30 measured at 3 ms: the calibration's catalog section gives plan that
    latency for P30, so P30 configurations predict slower there."""
    from iolab.bench.compare import predicted
    from iolab.bench.jobs import override
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore
    from iolab.scenario import load_scenario

    example = (Path(__file__).resolve().parent.parent / "examples" / "oltp-ds13-p30.yaml").read_text()
    truth = tmp_path / "truth.yaml"
    truth.write_text(example.replace("latency: 2ms", "latency: 3ms"))
    start = tmp_path / "start.yaml"
    start.write_text(example)
    s = load_scenario(truth)
    db = tmp_path / "runs.db"
    with ResultsStore(db) as store:
        for d in (1, 2, 4):
            doc = predicted(s, override([j.fio for j in s.jobs], {"iodepth": d}))
            store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:10+00:00",
                                 jobfile="", params={"iodepth": d},
                                 measured=Measured(Figures(doc["iops"], doc["bandwidth"], {"mean": doc["latency"]["mean"]}))))
    cal = tmp_path / "cal.yaml"
    r = iolab(f"calibrate {start} --runs 1,2,3 --db {db} -o {cal} --json")
    assert r.code == 0, r.err
    assert r.json()["catalog"]["disks"]["P30"]["read_latency"] == pytest.approx(3e-3, rel=0.02)
    req = Path(__file__).resolve().parent.parent / "examples" / "oltp-requirements.yaml"

    def p30_latency(*extra: str) -> float:
        doc = iolab("plan", str(req), "--json", "--top", "20", *extra).json()
        return min(c["prediction"]["latency"]["mean"] for c in doc["candidates"]
                   if c["config"]["disks"][0]["sku"] == "P30" and c["config"]["vm"] == "Standard_D16s_v5"
                   and c["config"]["disks"][0]["count"] == 4)

    assert p30_latency("--calibration", str(cal)) > p30_latency() * 1.2


def test_plan_refuses_a_calibration_without_catalog_values(iolab, tmp_path):
    db = _runs(tmp_path, [1, 4, 16])
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us, write_latency: 100us}")
    cal = tmp_path / "cal.yaml"
    assert iolab(f"calibrate {start} --sweep 1 --db {db} -o {cal}").code == 0
    req = Path(__file__).resolve().parent.parent / "examples" / "oltp-requirements.yaml"
    r = iolab(f"plan {req} --calibration {cal}")
    assert r.code == 2
    assert r.err.startswith(f"error: {cal}: catalog: has no catalog values for plan to use")


def test_percentiles_are_set_beside_the_simulators(iolab, tmp_path):
    """Runs whose percentiles are the simulator's at the true parameters: after the fit the
    simulated p50 and p99 match them; before (a wrong latency) they do not."""
    from iolab.bench.compare import predicted
    from iolab.bench.jobs import override
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore
    from iolab.calibrate.fit import _simulated
    from iolab.calibrate.observations import Observation
    from iolab.service.calibrate import SIMULATED_IOS
    from iolab.scenario import load_scenario

    s = load_scenario(_scenario(tmp_path / "truth.yaml", TRUTH, "randread"))
    db = tmp_path / "runs.db"
    with ResultsStore(db) as store:
        for d in (1, 8, 64):
            jobs = override([j.fio for j in s.jobs], {"iodepth": d})
            doc = predicted(s, jobs)
            sim = _simulated(s, Observation(0, {}, jobs, {}, None), SIMULATED_IOS)  # type: ignore[arg-type]
            lat = {"mean": doc["latency"]["mean"], "p50": sim["p50"], "p90": sim["p90"], "p99": sim["p99"]}
            store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:10+00:00",
                                 jobfile="", params={"iodepth": d},
                                 measured=Measured(Figures(doc["iops"], doc["bandwidth"], lat))))
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 300us}", "randread")
    doc = iolab(f"calibrate {start} --runs 1,2,3 --db {db} --percentiles --json").json()
    for point in doc["points"]:
        for key in ("latency.p50", "latency.p99"):
            assert abs(point["error_after"][key]) < 0.05, (point["point"], key, point["error_after"])
            assert abs(point["error_before"][key]) > 0.15
    assert doc["error_after"]["latency.p99"] < 0.05


def test_runs_of_another_scenario_get_a_note(iolab, tmp_path):
    from iolab.bench.record import Figures, Measured, RunRecord
    from iolab.bench.store import ResultsStore

    db = tmp_path / "runs.db"
    with ResultsStore(db) as store:
        for d, name in ((1, "elsewhere/other.yaml"), (4, str(tmp_path / "s.yaml"))):
            store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00", ended="2026-01-01T00:00:10+00:00",
                                 jobfile="", params={"iodepth": d}, scenario=name,
                                 measured=Measured(Figures(5000.0 * d, 5000.0 * d * 4096, {"mean": 2e-4}))))
    start = _scenario(tmp_path / "s.yaml", "{read_latency: 100us}", rw="randread")
    r = iolab(f"calibrate {start} --runs 1,2 --db {db}")
    assert r.code == 0, r.err
    assert f"note: run 1 was measured with scenario elsewhere/other.yaml, not {start}" in r.err
    assert "note: run 2" not in r.err
