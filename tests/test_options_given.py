"""Options are taken as given or refused (exit 2, one line naming the option), never ignored:
an option that does nothing in a mode (``plan --seed`` when nothing is simulated), and an
option that takes one value given twice (``--region a --region b``), on every command."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

REQ = str(EXAMPLES / "oltp-requirements.yaml")
TAIL = "has no effect here: it applies when the requirements bound a latency percentile"


@pytest.mark.parametrize("option, value", [("--check-top", "10"), ("--sim-ios", "5000"), ("--replications", "5"),
                                           ("--seed", "1")])
def test_plan_simulation_options_are_refused_when_nothing_is_simulated(iolab, option, value):
    # the default value given explicitly is still given: the command line named the option
    r = iolab("plan", REQ, option, value)
    assert r.code == 2 and r.out == ""
    assert r.err == f"error: {option}: {TAIL} (latency: {{p99: 10ms}}), which plan checks by simulating candidates\n"


def test_plan_simulation_options_are_taken_with_a_percentile_required(iolab, tmp_path):
    req = tmp_path / "p99.yaml"
    req.write_text("version: 1\njobs: [{rw: randread, bs: 8k, iodepth: 8, numjobs: 2, ioengine: libaio}]\n"
                   "require: {iops: 4000, latency: {p99: 20ms}}\n"
                   "search: {kind: disks, vms: [Standard_D4s_v5], skus: [P30], caching: [none]}\n")
    r = iolab("plan", str(req), "--check-top", "1", "--sim-ios", "2000", "--replications", "2", "--seed", "7",
              "--json")
    assert r.code == 0, r.err
    d = r.json()
    sim = d["candidates"][0]["simulated"]
    assert d["checked"] == 1 and (sim["replications"], sim["seed"]) == (2, 7) and sim["ios"] >= 2000
    assert sim["meets"] and sim["percentiles"]["p99"] <= 0.020


def test_plan_top_is_refused_for_a_pool_plan(iolab):
    r = iolab("plan", str(EXAMPLES / "pool-requirements.yaml"), "--top", "3")
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("error: --top: has no effect here: it applies to disk and share plans")


def test_options_silent_in_a_mode_are_refused(iolab, tmp_path):
    jobfile = DATA / "fio" / "jobs" / "rate-limited-oltp.fio"
    target = tmp_path / "target"
    target.mkdir()
    predicted = tmp_path / "p.json"
    predicted.write_text(iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--json").out)
    cases = [
        (["simulate", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--interval", "1s"], "--interval", "with --json or --plot"),
        (["report", "plan", REQ, "-o", str(tmp_path / "r.html"), "--db", str(tmp_path / "x.db")], "--db",
         "to run and sweep reports"),
        (["characterize", str(DATA / "telemetry" / "iostat-12.5.txt"), "--no-store", "--db", str(tmp_path / "x.db")],
         "--db", "with --store"),
        (["bench", "run", str(jobfile), "--target", str(target), "--volume", "data"], "--volume", "with a scenario"),
        (["bench", "run", str(jobfile), "--target", str(target), "--catalog", str(EXAMPLES / "private-catalog.yaml")],
         "--catalog", "with a scenario"),
        (["bench", "run", "--target", str(target), "--rw", "randread", "--rwmixread", "70"], "--rwmixread",
         "to a mixed pattern"),
        (["report", "predict", str(predicted), "-o", str(tmp_path / "r.html"), "--catalog",
          str(EXAMPLES / "private-catalog.yaml")], "--catalog", "to a scenario (YAML); a JSON item"),
        (["report", "predict", str(predicted), "-o", str(tmp_path / "r.html"), "--calibration",
          str(EXAMPLES / "p30-calibration.yaml")], "--calibration", "to a scenario (YAML)"),
    ]
    for args, option, words in cases:
        r = iolab(*args)
        assert r.code == 2, (args, r.err)
        assert r.err.startswith(f"error: {option}: has no effect here: it applies {words}"), r.err
        assert r.err.count("\n") == 1 and r.out == ""
    assert list(target.iterdir()) == [] and not (tmp_path / "x.db").exists() and not (tmp_path / "r.html").exists()


def test_a_rwmixread_sweep_without_a_mixed_job_is_refused_and_a_mixed_one_taken(iolab, tmp_path):
    r = iolab("bench", "run", "--target", str(tmp_path), "--rw", "randread", "--sweep", "rwmixread=50,70")
    assert r.code == 2 and r.err.startswith("error: --sweep: rwmixread has no effect here: it applies to a mixed")
    assert list(tmp_path.iterdir()) == []
    # a mixed pattern takes it: the refusal is about the pattern, not the option (the target is missing)
    r = iolab("bench", "run", "--target", str(tmp_path / "missing"), "--rw", "randrw", "--rwmixread", "70")
    assert r.code == 2 and r.err.startswith("error: --target: ")


def test_characterize_interval_is_refused_for_files_with_their_own_times(iolab):
    from conftest import DATA

    timed = str(DATA / "telemetry" / "iostat-12.5.txt")  # iostat -t: every report has its time
    r = iolab("characterize", timed, "--interval", "5s", "--no-store")
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: --interval: has no effect here: it applies with --live, or to files without times of "
                     "their own (these files carry theirs)\n")
    untimed = str(DATA / "telemetry" / "iostat-10.1.5.txt")  # no times: --interval sets the spacing
    assert iolab("characterize", untimed, "--interval", "5s", "--no-store", "--json").json()["interval"] == 5
    # with one file of each kind it applies to one of them: taken
    assert iolab("characterize", timed, untimed, "--interval", "5s", "--no-store", "--json").code == 0


@pytest.mark.parametrize("command", ["predict", "simulate --ios 2000"])
def test_all_is_refused_with_json_whose_lists_are_never_folded(iolab, command):
    name, *rest = command.split()
    r = iolab(name, str(EXAMPLES / "oltp-ds13-p30.yaml"), *rest, "--json", "--all")
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("error: --all: has no effect here: it applies to the tables")


def test_all_unfolds_every_phase_of_a_phased_file(iolab, tmp_path):
    path = tmp_path / "phases.yaml"
    path.write_text("version: 1\nclients: {vm: Standard_DS13}\nvolumes:\n  data:\n    disks: [{sku: P30, count: 4}]\n"
                    "jobs:\n  - {name: fill, rw: write, bs: 1m, iodepth: 4, ioengine: libaio, size: 1g}\n"
                    "  - {name: probe, rw: randread, bs: 8k, iodepth: 8, ioengine: libaio, stonewall: 1}\n")
    folded = iolab("predict", str(path)).out
    assert folded.count("Phase ") == 2 and folded.count("4 × data: P30 #*") == 2 and "data: P30 #4" not in folded
    every = iolab("predict", str(path), "--all").out
    assert every.count("data: P30 #4") == 2 and "4 × data" not in every


def test_report_top_is_refused_for_a_pool_plan(iolab, tmp_path):
    out = tmp_path / "pool.html"
    r = iolab("report", "plan", str(EXAMPLES / "pool-requirements.yaml"), "-o", str(out), "--top", "3")
    assert r.code == 2 and r.err.startswith("error: --top: has no effect here: it applies to disk and share plans")
    assert not out.exists()
    assert iolab("report", "plan", str(EXAMPLES / "pool-requirements.yaml"), "-o", str(out)).code == 0


@pytest.mark.parametrize("args", [["list", "protocols"], ["show", "nfs3"], ["show", "defaults"]])
def test_catalog_region_is_refused_for_rows_without_prices(iolab, args):
    r = iolab("catalog", *args, "--region", "eastus")  # the default value, given: still given
    assert r.code == 2 and r.out == ""
    assert r.err == ("error: --region: has no effect here: it applies to rows with prices (VMs, disks, services); "
                     "protocols and the defaults have none\n")
    assert iolab("catalog", *args).code == 0
    assert iolab("catalog", "show", "P30", "--region", "westeurope", "--json").json()["region"] == "westeurope"


def test_results_show_refuses_jobfile_with_json(iolab, tmp_path):
    r = iolab("results", "show", "1", "--jobfile", "--json", "--db", str(tmp_path / "x.db"))
    assert r.code == 2 and r.err.startswith("error: --jobfile: give --jobfile or --json, not both")


def _single_valued(command, path=()):
    """(command words, option) for every option of the tree that takes one value."""
    subs = getattr(command, "commands", None)
    if subs:
        for name, sub in subs.items():
            yield from _single_valued(sub, (*path, name))
        return
    for p in command.params:
        if p.param_type_name == "option" and not p.is_flag and not p.multiple and p.name != "help":
            yield path, next(o for o in p.opts if o.startswith("--"))


def test_every_single_valued_option_given_twice_is_refused(iolab):
    from iolab.cli import make_app
    from iolab.cli.command_line import build

    cases = list(_single_valued(build(make_app())))
    assert len(cases) > 40 and (("plan",), "--region") in cases and (("bench", "run"), "--target") in cases
    for words, option in cases:
        r = iolab(*words, option, "a", option, "b")
        assert r.code == 2, (words, option, r.err)
        assert r.err == f"error: {option}: given twice ('a', 'b'); give it once\n", (words, r.err)


def test_a_short_and_long_spelling_count_as_the_same_option(iolab, tmp_path):
    r = iolab("characterize", str(DATA / "telemetry" / "iostat-12.5.txt"), "-o", str(tmp_path / "a.yaml"),
              "--output", str(tmp_path / "b.yaml"), "--no-store")
    assert r.code == 2 and r.err.startswith("error: --output: given twice (")
    assert not (tmp_path / "a.yaml").exists() and not (tmp_path / "b.yaml").exists()
    r = iolab("plan", REQ, "--region", "westeurope", "--region", "eastus", "--region", "eastus")
    assert r.err == "error: --region: given 3 times ('westeurope', 'eastus', 'eastus'); give it once\n"


def test_a_flag_with_its_opposite_is_refused_and_lists_repeat(iolab):
    telemetry = str(DATA / "telemetry" / "iostat-12.5.txt")
    r = iolab("characterize", telemetry, "--store", "--no-store")
    assert r.code == 2 and r.err == "error: --store: given with its opposite (--store and --no-store); give one\n"
    r = iolab("characterize", telemetry, "--no-store", "--no-store", "--json")  # the same flag twice: as once
    assert r.code == 0, r.err
    private = str(EXAMPLES / "private-catalog.yaml")
    r = iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--catalog", private, "--catalog", private, "--json")
    assert r.code == 0, r.err  # --catalog is a list: it repeats
