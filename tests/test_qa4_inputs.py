"""Inputs a user may hand over by mistake, each refused with one line naming the file
(exit 2), never a traceback."""

from __future__ import annotations


def test_characterize_a_byte_order_mark_on_text_that_is_not_utf16(iolab, tmp_path):
    # a UTF-16 byte-order mark (\xff\xfe) followed by an odd number of bytes
    path = tmp_path / "latin.txt"
    path.write_bytes(b"\xff\xfe volumes: 1")
    r = iolab("characterize", str(path), "--no-store")
    assert r.code == 2, r.err
    assert r.err.startswith(f"error: {path}: ") and "not a text file iolab can read" in r.err
    assert "Traceback" not in r.err


def test_check_shows_the_io_sizes_a_job_issues(iolab, tmp_path):
    """bssplit and bsrange are modelled, so `check` does not call them ignored; it shows the
    sizes the model uses, a write size of its own, and refuses a split `predict` refuses."""
    job = tmp_path / "split.fio"
    job.write_text("[mix]\nrw=randread\nbssplit=4k/50:1m/50\n\n[rw]\nrw=randrw\nbs=4k,16k\n\n"
                   "[w]\nrw=randwrite\nbs=4k,16k\n")
    r = iolab("check", str(job))
    assert r.code == 0, r.err
    assert "job mix: randread, bssplit 4k/50:1m/50, psync" in r.out
    assert "job rw: randrw 50% reads, 4 KiB reads, 16 KiB writes, psync" in r.out
    assert "job w: randwrite, 16 KiB, psync" in r.out
    assert "not modelled" not in r.out
    assert iolab("check", str(job), "--json").json()["ignored"] == []

    job.write_text("[mix]\nrw=randread\nbssplit=4k/60:64k/60\n")
    r = iolab("check", str(job))
    assert r.code == 2
    assert r.err == f"error: {job}: [mix].bssplit: the percentages add up to 120, over 100\n"


def test_check_scenario_table_shows_a_bssplit(iolab):
    from conftest import EXAMPLES

    r = iolab("check", str(EXAMPLES / "bssplit-nvme.yaml"))
    assert r.code == 0, r.err
    assert "bssplit 4k/50:1m/50" in r.out


def test_fio_numbers_are_ascii_digits(iolab, tmp_path):
    """Python reads digits of any script (int('４') is 4); fio reads ASCII ones only and drops
    the job, so such a value is refused up front (exit 2) instead of failing fio's run."""
    for option, value in (("bs", "８k"), ("iodepth", "٣"), ("runtime", "１s"), ("size", "1.５k"),
                          ("bssplit", "4k/５０:64k/50")):
        shown = "５０" if option == "bssplit" else value
        job = tmp_path / "u.fio"
        job.write_text(f"[job]\nrw=randread\n{option}={value}\n")
        r = iolab("check", str(job))
        assert r.code == 2, (option, r.out)
        assert r.err.startswith(f"error: {job}: [job].{option}: ") and repr(shown) in r.err, r.err
    target = tmp_path / "target"
    target.mkdir()
    r = iolab("bench", "run", "--target", str(target), "--rw", "randread", "--bs", "４k",
              "--db", str(tmp_path / "r.db"))
    assert r.code == 2 and r.err.startswith("error: --bs: '４k' is not a fio integer/size"), r.err
    assert list(target.iterdir()) == [] and not (tmp_path / "r.db").exists()


def _report_json(iolab, tmp_path, kind: str, doc: dict) -> tuple:
    path = tmp_path / f"{kind}.json"
    path.write_text(__import__("json").dumps(doc))
    out = tmp_path / "out.html"
    out.unlink(missing_ok=True)
    return iolab("report", kind, str(path), "-o", str(out)), path, out


def test_report_refuses_json_items_of_the_wrong_shape(iolab, tmp_path):
    """A predict, plan or characterize JSON edited by hand or cut short: every field the
    page reads is checked first, and a wrong one is named with its file (exit 2, no file)."""
    import copy
    import json

    from conftest import DATA, EXAMPLES

    predicted = iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--json").json()
    planned = iolab("plan", str(EXAMPLES / "oltp-requirements.yaml"), "--json").json()
    characterized = json.loads((DATA / "report" / "characterize.json").read_text())

    def edited(doc, path, value):
        doc = copy.deepcopy(doc)
        here = doc
        for key in path[:-1]:
            here = here[key]
        here[path[-1]] = value
        return doc

    cases = [
        ("predict", predicted, ("iops",), "x", "iops: expected a number, got a string"),
        ("predict", predicted, ("latency",), -1, "latency: expected an object, got the number -1"),
        ("predict", predicted, ("resources", 0, "utilization"), "x",
         "resources[0].utilization: expected a number, got a string"),
        ("predict", predicted, ("bottleneck", "utilization"), -0.5,
         "bottleneck.utilization: expected a finite number, not negative, got -0.5"),
        ("plan", planned, ("candidates", 0, "monthly_cost"), "x",
         "candidates[0].monthly_cost: expected a number, got a string"),
        ("plan", planned, ("candidates", 0, "config", "disks", 0), {}, "candidates[0].config.disks[0].count: missing"),
        ("plan", planned, ("evaluated",), "many", "evaluated: expected a number, got a string"),
        ("characterize", characterized, ("devices", 0, "read", "iops", "p50"), "x",
         "devices[0].read.iops.p50: expected a number, got a string"),
        ("characterize", characterized, ("interval",), "5s", "interval: expected a number, got a string"),
    ]
    for kind, doc, path, value, message in cases:
        r, file, out = _report_json(iolab, tmp_path, kind, edited(doc, path, value))
        assert r.code == 2, (path, r.err)
        assert r.err == f"error: {file}: {message}; expected the output of iolab {kind} --json\n", r.err
        assert not out.exists()


def test_report_takes_json_with_nulls_where_iolab_writes_them(iolab, tmp_path):
    """null stands for a missing figure (iolab writes one for an infinite knee); a list or
    a utilization given as null is drawn as missing, never a traceback."""
    from conftest import EXAMPLES

    doc = iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--json").json()
    doc.update(jobs=None, notes=None, knee_outstanding=None)
    doc["bottleneck"]["utilization"] = None
    doc["resources"][0]["utilization"] = None
    r, _, out = _report_json(iolab, tmp_path, "predict", doc)
    assert r.code == 0, r.err
    assert out.exists()

    plan = iolab("plan", str(EXAMPLES / "oltp-requirements.yaml"), "--json").json()
    plan.update(rejected=None, others=None, excluded=None, evaluated=None)
    plan["candidates"][0]["headroom"] = None
    r, _, out = _report_json(iolab, tmp_path, "plan", plan)
    assert r.code == 0, r.err


def test_cpu_per_io_is_bounded_like_every_duration(iolab, tmp_path):
    """cpu_per_io past a year (1e308 s would overflow the model's nanoseconds) is refused at
    its field, as every duration is; a calibration that sets it is read the same way."""
    from conftest import EXAMPLES

    text = (EXAMPLES / "local-disk.yaml").read_text()
    for value in ("1e308", "1e10", "400d"):
        path = tmp_path / "s.yaml"
        path.write_text(text.replace("device: {", f"device: {{cpu_per_io: {value}, "))
        r = iolab("predict", str(path))
        assert r.code == 2, r.err
        assert r.err == (f"error: {path}: volumes.disk.device.cpu_per_io: must be at most 31,622,400 "
                         f"(got '{value}')\n")
    cal = tmp_path / "cal.yaml"
    cal.write_text("version: 1\ncalibration: {scenario: x, fitted: []}\n"
                   "volumes:\n  disk:\n    device: {cpu_per_io: 1e308}\n")
    r = iolab("predict", str(EXAMPLES / "local-disk.yaml"), "--calibration", str(cal))
    assert r.code == 2 and "cpu_per_io: must be at most 31,622,400" in r.err, r.err


def test_report_refuses_a_calibration_file_of_the_wrong_shape(iolab, tmp_path):
    cal = tmp_path / "cal.yaml"
    out = tmp_path / "cal.html"
    head = "version: 1\ncalibration:\n  scenario: x.yaml\n  fitted: []\n"
    for body, message in (("  residuals: {rms_log_before: x}\n",
                           "calibration.residuals.rms_log_before: expected a number, got a string"),
                          ("  residuals: {before: [{run_id: [1]}]}\n",
                           "calibration.residuals.before[0].run_id: expected a number, got a list"),
                          ("  runs: 3\n", "calibration.runs: expected a list, got the number 3")):
        cal.write_text(head + body)
        r = iolab("report", "calibration", str(cal), "-o", str(out))
        assert r.code == 2, r.err
        assert r.err == f"error: {cal}: {message}; expected the output of iolab calibrate -o\n"
        assert not out.exists()
    cal.write_text(head + "  residuals: {rms_log_before: null, before: [{run_id: 1, iops: -0.5}], after: null}\n")
    r = iolab("report", "calibration", str(cal), "-o", str(out))
    assert r.code == 0, r.err


def test_results_refuse_a_stored_figure_iolab_never_writes(iolab, tmp_path):
    """A measurement stored as text, as an infinity (SQLite reads '1e999' into a REAL column
    as inf) or negative, or a sweep id that is no id, names the run (exit 2) in every reader;
    before, `results list` printed inf and `results export`, `calibrate` failed with a traceback."""
    import shutil
    import sqlite3

    from conftest import saved_run_db

    good = saved_run_db(tmp_path / "good.db")
    for sql, shown in (("UPDATE measurements SET value = 'x' WHERE metric = 'iops'", "column value holds 'x'"),
                       ("UPDATE measurements SET value = '1e999' WHERE metric = 'iops'", "column value holds 'inf'"),
                       ("UPDATE measurements SET value = -5 WHERE metric = 'iops'", "column value holds '-5.0'"),
                       ("UPDATE runs SET sweep_id = '1e999'", "column sweep_id holds 'inf', not an id")):
        db = tmp_path / "bad.db"
        shutil.copy(good, db)
        with sqlite3.connect(db) as c:
            c.execute(sql)
        c.close()
        for command in ("results list", "results show 1", "results show 1 --json", "results export --csv",
                        "results export --json"):
            r = iolab(f"{command} --db {db}")
            assert r.code == 2, (command, sql, r.out)
            assert r.err.startswith(f"error: {db}: run 1: damaged results database: ") and shown in r.err, r.err


def test_an_empty_path_is_refused_not_read_as_the_working_directory(iolab, tmp_path, monkeypatch):
    """Path("") is "."; `--target "$DIR"` with DIR unset ran fio in the working directory and
    `--db ""` named it. Every path option and argument refuses an empty value (exit 2)."""
    from conftest import EXAMPLES

    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    nvme = str(EXAMPLES / "local-nvme.yaml")
    for argv, field in ((["bench", "run", "--target", "", "--rw", "read"], "--target"),
                        (["bench", "run", "", "--target", str(tmp_path)], "SOURCE"),
                        (["results", "list", "--db", ""], "--db"),
                        (["check", ""], "FILE"),
                        (["predict", nvme, "--catalog", ""], "--catalog"),
                        (["predict", nvme, "--calibration", ""], "--calibration"),
                        (["report", "predict", nvme, "-o", ""], "--output"),
                        (["report", "plan", "", "-o", str(tmp_path / "r.html")], "ITEM"),
                        (["doctor", "--root", ""], "--root"),
                        (["characterize", "", "--no-store"], "FILE")):
        r = iolab(*argv)
        assert r.code == 2, (argv, r.out)
        assert r.err.startswith(f"error: {field}: an empty "), r.err
    assert list(here.iterdir()) == []


def test_simulate_names_the_option_or_job_past_the_longest_simulation(iolab, tmp_path):
    """The engine runs at most 10,000,000 s; past it the error named `options.duration`
    (a field of the engine's request) with no file. Now the option, or the job whose
    runtime or ramp_time was used, is named."""
    from conftest import EXAMPLES

    nvme = EXAMPLES / "local-nvme.yaml"
    r = iolab("simulate", str(nvme), "--duration", "1000d")
    assert r.code == 2
    assert r.err.startswith("error: --duration: must be shorter than 10,000,000 s"), r.err
    r = iolab("simulate", str(nvme), "--ramp", "200d", "--ios", "1000")
    assert r.code == 2 and r.err.startswith("error: --ramp: must be shorter than 10,000,000 s"), r.err
    for extra, field, option in (("ramp_time: 200d", "ramp_time", "--ramp"),
                                 ("runtime: 200d\n    time_based: 1", "runtime", "--duration or --ios")):
        path = tmp_path / "s.yaml"
        path.write_text(nvme.read_text().replace("size: 10g", f"size: 10g\n    {extra}"))
        r = iolab("simulate", str(path))
        assert r.code == 2, r.err
        assert r.err == (f"error: {path}: jobs[0].{field}: 4,800 h is longer than the 10,000,000 s (about 116 days) "
                         f"a simulation runs; give {option}\n")
    r = iolab("simulate", str(path), "--ios", "1000", "--json")
    assert r.code == 0, r.err


def test_characterize_names_the_option_of_a_bad_duration(iolab):
    from conftest import DATA

    iostat = str(DATA / "telemetry" / "iostat-12.5.txt")
    for argv, shown in (([iostat, "--interval", "abc", "--no-store"], "--interval: 'abc' is not a duration"),
                        ([iostat, "--interval", "-1", "--no-store"], "--interval: duration '-1' is negative"),
                        (["--live", "/tmp", "--duration", "xyz"], "--duration: 'xyz' is not a duration")):
        r = iolab("characterize", *argv)
        assert r.code == 2 and r.err.startswith(f"error: {shown}"), r.err


def test_bench_flags_are_read_as_a_job_file_reads_them(iolab, tmp_path):
    """--ioengine takes a name fio knows (as `ioengine=` in a job file does: exit 2 with the
    nearest names), not a failed run stored after fio started; --runtime and --ramp past a
    year name their option, not 'fio job: bench.runtime'. Nothing is written or stored."""
    target = tmp_path / "target"
    target.mkdir()
    db = tmp_path / "r.db"
    for argv, message in ((["--ioengine", "libaoi"], "--ioengine: unknown ioengine 'libaoi'; nearest: libaio"),
                          (["--ioengine", ""], "--ioengine: an empty ioengine; name one"),
                          (["--runtime", "400d"], "--runtime: must be at most 8,784 h, got '400d'"),
                          (["--ramp", "400d"], "--ramp: must be at most 8,784 h, got '400d'")):
        r = iolab("bench", "run", "--target", str(target), "--rw", "read", "--db", str(db), *argv)
        assert r.code == 2, (argv, r.err)
        assert r.err.startswith(f"error: {message}"), r.err
    assert list(target.iterdir()) == [] and not db.exists()


def test_plan_names_its_option_for_a_seed_or_ios_past_the_simulator(iolab):
    """The simulator's own limits came out as `seed: ...` and `ios: ...`; now the option."""
    from conftest import EXAMPLES

    p99 = str(EXAMPLES / "p99-requirements.yaml")
    for option, most in (("--seed", "18446744073709551615"), ("--sim-ios", "1000000000000")):
        r = iolab("plan", p99, option, "99999999999999999999")
        assert r.code == 2
        assert r.err.startswith(f"error: {option}: must be at most {most}"), r.err


def test_an_unknown_top_level_key_that_yaml_reads_as_a_date_or_number_is_named_as_written(iolab, tmp_path):
    """YAML reads `2024-01-01:` as a date and `42:` as a number; the unknown key is named as
    written, not as Python's repr (`datetime.date(2024, 1, 1)`)."""
    for key in ("2024-01-01", "42", "true"):
        path = tmp_path / "s.yaml"
        path.write_text(f"version: 1\n{key}: x\nclients: {{vm: Standard_DS13}}\n")
        r = iolab("check", path)
        assert r.code == 2
        assert r.err.strip().startswith(f"error: {path}: ") and f"unknown field '{'True' if key == 'true' else key}'" in r.err, r.err
        assert "datetime" not in r.err


def test_a_refused_run_or_sweep_creates_no_results_database(iolab, tmp_path):
    """A run refused before it starts (the safety rules, exit 3; a target that is not there,
    exit 2) leaves no results database behind, nor its folder: the default one in the
    user's data directory included. A run that starts creates it."""
    data = tmp_path / "xdg-data"                      # the iolab fixture's data directory
    lab = tmp_path / "lab"
    lab.mkdir()
    existing = lab / "precious.dat"
    existing.write_bytes(b"keep")
    for extra in ([], ["--sweep", "iodepth=1,2"]):
        refused = iolab("bench", "run", "--target", existing, "--rw", "write", "--size", "1m", *extra)
        assert refused.code == 3, refused.err
        missing = iolab("bench", "run", "--target", tmp_path / "nowhere", "--rw", "read", *extra)
        assert missing.code == 2, missing.err
        assert not data.exists(), list(data.rglob("*"))
        db = tmp_path / "named" / "r.db"
        refused = iolab("bench", "run", "--target", existing, "--rw", "write", "--size", "1m", "--db", db, *extra)
        assert refused.code == 3 and not db.parent.exists()
    assert existing.read_bytes() == b"keep"
    ran = iolab("bench", "run", "--target", lab, "--rw", "read", "--size", "1m", "--runtime", "1s",
                "--db", tmp_path / "named" / "r.db")
    assert ran.code == 0, ran.err
    assert (tmp_path / "named" / "r.db").is_file()


def test_check_of_requirements_shows_the_sizes_a_job_issues(iolab, tmp_path):
    """A requirements file's job with a bssplit, or its own write size, is shown as the model
    reads it (as a scenario's check shows it), not as its bs."""
    path = tmp_path / "req.yaml"
    path.write_text("version: 1\njobs:\n  - {rw: randrw, rwmixread: 70, bssplit: '4k/50:64k/50', iodepth: 32, ioengine: libaio}\n"
                    "  - {rw: randrw, bs: '4k,16k', iodepth: 8, ioengine: libaio}\nrequire: {iops: 40000}\nsearch: {kind: disks}\n")
    r = iolab("check", path)
    assert r.code == 0, r.err
    assert "job job1: randrw 70% reads, bssplit 4k/50:64k/50, 32 in flight" in r.out
    assert "job job2: randrw 50% reads, 4 KiB reads, 16 KiB writes, 8 in flight" in r.out, r.out
    assert iolab("check", path, "--json").json()["jobs"][0]["sizes"] == "bssplit 4k/50:64k/50"


def test_a_sweep_with_an_empty_or_repeated_value_is_refused(iolab, tmp_path):
    """`iodepth=1,,2` or a trailing comma is a typo, not two points; a repeated point is
    refused as bench refuses it (exit 2, --sweep named), in predict and bench alike."""
    scenario = "examples/oltp-ds13-p30.yaml"
    lab = tmp_path / "lab"
    lab.mkdir()
    for value, said in (("iodepth=1,,2", "an empty value in 'iodepth=1,,2'"),
                        ("iodepth=1,2,", "an empty value in 'iodepth=1,2,'"),
                        ("iodepth=4,2,4", "iodepth repeats a value: 4,2,4")):
        r = iolab("predict", scenario, "--sweep", value)
        assert r.code == 2 and r.err.startswith(f"error: --sweep: {said}"), r.err
        b = iolab("bench", "run", "--target", lab, "--rw", "read", "--sweep", value)
        assert b.code == 2 and said in b.err and "--sweep" in b.err, b.err
    assert not list(lab.iterdir()) and not (tmp_path / "xdg-data").exists()


def test_an_empty_ioengine_asks_for_one_instead_of_suggesting_unrelated_names(iolab, tmp_path):
    job = tmp_path / "e.fio"
    job.write_text("[j]\nioengine=\nrw=read\n")
    for r, where in ((iolab("check", job), f"error: {job}: [j].ioengine: "),
                     (iolab("bench", "run", "--target", tmp_path, "--rw", "read", "--ioengine", ""), "error: --ioengine: ")):
        assert r.code == 2 and r.err.startswith(where + "an empty ioengine; name one (libaio, io_uring, psync"), r.err
