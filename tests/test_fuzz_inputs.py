"""Malformed input of every kind iolab reads, through every command that reads it: exit 2,
one ``error:`` line naming the file (and, where one is to blame, the field), never a
traceback, and nothing written anywhere.

Inputs: scenarios (predict, simulate, check, report predict, bench run, calibrate, doctor
--scenario), requirements (plan, report plan), fio job files (check, bench run), catalog
files (--catalog), calibration files (--calibration), Retail Prices pages (catalog
import-prices), iolab's own JSON (report), telemetry (characterize), fio server lists (bench
run --clients), results databases (--db), fio's JSON output (read after each bench run), and
option values. Every property runs derandomized (the same examples every time).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, EXAMPLES, saved_run_db
from test_malformed_property import _absolute, _mutated, _paths

DERANDOMIZED = settings(max_examples=12, deadline=None, derandomize=True,
                        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

SCENARIO = EXAMPLES / "oltp-ds13-p30.yaml"
REQUIREMENTS = EXAMPLES / "oltp-requirements.yaml"
LAUGHS = "".join(f"{c}: &{c} [{','.join([f'*{p}'] * 9 if p else ['x'] * 9)}]\n"
                 for p, c in zip(["", *"abcdefg"], "abcdefgh"))

#: whole-file damage: each is refused by every file input, whatever kind of file it stands for
DAMAGED: dict[str, bytes] = {
    "empty": b"",
    "blank": b"  \n\n\t\n",
    "binary": b"\x00\x01\x02\x7fELF\xff\xfe garbage",
    "not UTF-8": b"version: 1\nname: caf\xe9\xff\n",
    "UTF-16 without a mark": "version: 1\n".encode("utf-16-le"),
    "a list": b"- 1\n- two\n",
    "a number": b"42\n",
    "null": b"null\n",
    "billion laughs": LAUGHS.encode(),
    "deep nesting": b"a: " + b"[" * 300 + b"]" * 300 + b"\n",
    "duplicate keys": b"version: 1\nversion: 1\n",
    "YAML syntax": b"a: [1, 2\nb: {\n",
    "JSON cut short": b'{"Items": [{"a": ',
    "a 5000-digit integer": b"version: " + b"9" * 5000 + b"\n",
}


def _slots(tmp: Path) -> dict[str, tuple]:
    """Every file input: (suffix, argv with ``{}`` where the file goes)."""
    out, db = tmp / "out", tmp / "stored.db"
    target = tmp / "target"
    return {
        "predict": (".yaml", ["predict", "{}", "--json"]),
        "simulate": (".yaml", ["simulate", "{}", "--ios", "1000"]),
        "check": (".yaml", ["check", "{}"]),
        "check a job file": (".fio", ["check", "{}"]),
        "report predict": (".yaml", ["report", "predict", "{}", "-o", out / "r.html"]),
        "report predict JSON": (".json", ["report", "predict", "{}", "-o", out / "r.html"]),
        "report plan": (".yaml", ["report", "plan", "{}", "-o", out / "r.html"]),
        "report plan JSON": (".json", ["report", "plan", "{}", "-o", out / "r.html"]),
        "report characterize": (".json", ["report", "characterize", "{}", "-o", out / "r.html"]),
        "report calibration": (".yaml", ["report", "calibration", "{}", "-o", out / "r.html"]),
        "plan": (".yaml", ["plan", "{}"]),
        "bench run scenario": (".yaml", ["bench", "run", "{}", "--target", target, "--db", db]),
        "bench run job file": (".fio", ["bench", "run", "{}", "--target", target, "--db", db]),
        "bench run --clients": (".txt", ["bench", "run", "--rw", "read", "--target", target, "--clients", "{}",
                                         "--db", db]),
        "calibrate": (".yaml", ["calibrate", "{}", "--runs", "1", "--db", db, "-o", out / "c.yaml"]),
        "doctor --scenario": (".yaml", ["doctor", "--scenario", "{}", "--root", DATA / "doctor" / "nfs-client"]),
        "--catalog predict": (".yaml", ["predict", SCENARIO, "--catalog", "{}"]),
        "--calibration simulate": (".yaml", ["simulate", SCENARIO, "--ios", "1000", "--calibration", "{}"]),
        "import-prices": (".json", ["catalog", "import-prices", "{}", "-o", out / "p.yaml"]),
        "characterize": (".txt", ["characterize", "{}", "--no-store", "-o", out / "req.yaml"]),
        "results list --db": (".db", ["results", "list", "--db", "{}"]),
        "results export --db": (".db", ["results", "export", "--csv", "--db", "{}"]),
        "report run --db": (".db", ["report", "run", "1", "--db", "{}", "-o", out / "r.html"]),
        "calibrate --db": (".db", ["calibrate", SCENARIO, "--runs", "1", "--db", "{}"]),
    }


def _files(root: Path) -> set[Path]:
    """Everything under `root` but the cache of the bundled catalog (the ``iolab`` fixture's
    XDG_CACHE_HOME), which any command may fill."""
    return {p for p in root.rglob("*") if "xdg-cache" not in p.relative_to(root).parts}


def _refused(iolab, argv: list, file: Path, root: Path, *, field: str | None = None):
    """Run `argv` and check the refusal: exit 2, one line naming `file` (and `field`), no
    traceback, and no file made or changed anywhere under `root`."""
    before = {p: (p.read_bytes() if p.is_file() else None) for p in _files(root)}
    r = iolab(*[str(file) if a == "{}" else str(a) for a in argv])
    shown = " ".join(map(str, argv)).replace("{}", str(file))
    assert r.code == 2, (shown, r.code, r.err[-600:])
    assert "Traceback" not in r.err + r.out, (shown, r.err[-600:])
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, (shown, r.err[:400])
    # the file first; a missing --db is named as the option's value: "error: --db: no ... at FILE: ..."
    assert r.err.startswith(f"error: {file}: ") or r.err.startswith(f"error: --db: no results database at {file}: "), \
        (shown, r.err[:400])
    if field is not None:
        assert r.err.startswith(f"error: {file}: {field}: "), (shown, r.err[:400])
    after = {p: (p.read_bytes() if p.is_file() else None) for p in _files(root)}
    assert after == before, (shown, sorted(set(after) ^ set(before)))
    return r


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A working directory of its own (a stray write shows there) with the target and output
    directories the commands name."""
    for d in ("work", "target", "out"):
        (tmp_path / d).mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path


SLOT_NAMES = list(_slots(Path("/")))


@pytest.mark.parametrize("slot", SLOT_NAMES)
def test_every_file_input_refuses_a_damaged_file(iolab, place, slot):
    suffix, argv = _slots(place)[slot]
    for name, content in DAMAGED.items():
        if slot == "bench run --clients" and name == "null":
            continue  # a host named "null" is a well-formed line (exit 1 when it does not resolve)
        file = place / f"damaged-{name.replace(' ', '-')}{suffix}"
        file.write_bytes(content)
        _refused(iolab, argv, file, place)
        file.unlink()
    missing = place / f"missing{suffix}"
    _refused(iolab, argv, missing, place)
    folder = place / f"folder{suffix}"
    folder.mkdir()
    _refused(iolab, argv, folder, place)
    folder.rmdir()
    if os.geteuid() != 0:  # the superuser reads any file whatever its mode
        locked = place / f"locked{suffix}"
        locked.write_text("version: 1\n")
        locked.chmod(0)
        _refused(iolab, argv, locked, place)


# ----------------------------------------------------------------------------------------------
# One field of a shipped example given a wrong value: text for a number, a list for a mapping,
# null, negative, zero, 1e308, NaN, infinity, a boolean for a count, 2^70; or deleted; or a
# sibling added. Each answer is exit 0, or exit 2 naming the file; nothing else is written.

WRONG = st.sampled_from(["x", "", "-1", -1, 0, -1e-9, 1e308, -1e308, float("nan"), float("inf"), True, False,
                         None, [], {}, [1, 2], {"a": 1}, 2**70, "1e400", "4k", "9" * 40])
ACTIONS = st.sampled_from(["replace", "replace", "replace", "delete", "add"])


def _mutant(data, source: Path, doc_of=None):
    doc = doc_of(source) if doc_of else _absolute(yaml.safe_load(source.read_text()), source.parent)
    path = data.draw(st.sampled_from(list(_paths(doc))[1:]))
    return _mutated(doc, path, data.draw(ACTIONS), data.draw(WRONG)), path


def _answered(iolab, argv: list, file: Path, root: Path) -> None:
    before = _files(root)
    r = iolab(*map(str, argv))
    assert r.code in (0, 2), (argv, r.code, r.err[-600:])
    assert "Traceback" not in r.err + r.out, r.err[-600:]
    if r.code == 2:
        assert r.err.startswith(f"error: {file}: ") and r.err.count("\n") == 1, (argv, r.err[:400])
        assert _files(root) == before, sorted(_files(root) ^ before)


def _kind(path: Path) -> str | None:
    doc = yaml.safe_load(path.read_text())
    if not isinstance(doc, dict):
        return None
    return "requirements" if {"require", "pool", "workloads"} & doc.keys() else "scenario" if "volumes" in doc else None


MUTABLE = sorted(p for p in EXAMPLES.glob("*.yaml") if _kind(p))
#: what each kind is run with (predict and check are fuzzed in test_malformed_property)
RUNS = {"scenario": ["simulate", "{}", "--ios", "1000", "--json"], "requirements": ["plan", "{}", "--json"]}


@settings(DERANDOMIZED, max_examples=20)
@given(data=st.data(), example=st.sampled_from(MUTABLE))
def test_simulate_or_plan_a_mutated_example(iolab, place, data, example):
    bad, _ = _mutant(data, example)
    file = place / example.name
    file.write_text(yaml.safe_dump(bad, allow_unicode=True))
    _answered(iolab, [file if a == "{}" else a for a in RUNS[_kind(example)]], file, place)


CATALOGS = [EXAMPLES / "private-catalog.yaml", DATA / "catalog" / "private-prices.yaml",
            DATA / "catalog" / "aws-reserved.yaml", DATA / "plan" / "catalog.yaml"]


@settings(DERANDOMIZED, max_examples=8)  # each run merges the file over the whole bundled catalog
@given(data=st.data(), catalog=st.sampled_from(CATALOGS))
def test_a_mutated_catalog_file(iolab, place, data, catalog):
    bad, _ = _mutant(data, catalog)
    file = place / catalog.name
    file.write_text(yaml.safe_dump(bad, allow_unicode=True))
    _answered(iolab, ["plan", REQUIREMENTS, "--json", "--catalog", file], file, place)


@DERANDOMIZED
@given(data=st.data())
def test_a_mutated_calibration_file(iolab, place, data):
    bad, _ = _mutant(data, EXAMPLES / "p30-calibration.yaml")
    file = place / "cal.yaml"
    file.write_text(yaml.safe_dump(bad, allow_unicode=True))
    _answered(iolab, ["simulate", SCENARIO, "--ios", "1000", "--json", "--calibration", file], file, place)
    _answered(iolab, ["report", "calibration", file, "-o", place / "out" / "c.html", "--force"], file, place)
    _answered(iolab, ["plan", REQUIREMENTS, "--json", "--calibration", file], file, place)


def _page(path: Path):
    doc = json.loads(path.read_text())
    doc["Items"] = doc["Items"][:3]  # one item stands for the others
    return doc


PAGES = sorted(p for p in (DATA / "catalog" / "retail").glob("*.json") if p.name != "malformed.json")


@DERANDOMIZED
@given(data=st.data(), page=st.sampled_from(PAGES))
def test_a_mutated_price_page(iolab, place, data, page):
    bad, _ = _mutant(data, page, _page)
    file = place / page.name
    file.write_text(json.dumps(bad))
    _answered(iolab, ["catalog", "import-prices", file, "--region", "westeurope", "-o", place / "out" / "p.yaml",
                      "--force"], file, place)


@DERANDOMIZED
@given(lines=st.lists(st.one_of(
    st.sampled_from(["42", "10.1", "1.2.3.256", "[name]:80", "[::1", "h:0", "h:65536", "h:x", "a..b", "-h", "é.example",
                     "a" * 64 + ".example", "h h", "::ffff:zz", "[fd00::zz]:80", "@!", "h:", ":80", "\t", "# c"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"), max_size=12)),
    min_size=1, max_size=4))
def test_a_damaged_clients_file(iolab, place, lines):
    """Every line a host (a name or an address) or a comment: anything else is refused before
    any host is contacted (a line such as ``42``, which a resolver reads as 0.0.0.42, too)."""
    file = place / "hosts.txt"
    file.write_text("127.0.0.2\n" + "\n".join(lines) + "\n")
    r = iolab("bench", "run", "--rw", "read", "--target", place / "target", "--clients", file,
              "--db", place / "r.db", "--fio", "/nonexistent/fio")
    assert "Traceback" not in r.err
    # a file of good lines goes on to the run, which stops at the missing fio (exit 1)
    assert r.code in (1, 2) and r.err.count("\n") == 1, r.err
    if r.code == 2:
        assert r.err.startswith(f"error: {file}: line "), r.err
    assert not (place / "r.db").exists()


FIO_OUTPUTS = sorted(p for p in (DATA / "fio").glob("*.json*") if not p.name.endswith("status-interval-randwrite.json"))


def _fio_doc(path: Path):
    text = path.read_text()
    return json.loads(text[text.find("{"):])


@settings(DERANDOMIZED, max_examples=200)
@given(data=st.data(), output=st.sampled_from(FIO_OUTPUTS))
def test_damaged_fio_output_is_named_by_field(data, output):
    """What bench run reads from fio: a damaged document parses or is refused naming its field
    (the run is then stored as failed with that message), never another exception."""
    from iolab.errors import InputError
    from iolab.fio.output import parse_output

    bad, _ = _mutant(data, output, _fio_doc)
    try:
        parse_output(json.dumps(bad), source="fio output")
    except InputError as e:
        assert e.file == "fio output" and e.field, str(e)


# ----------------------------------------------------------------------------------------------
# Regressions: each hole the harness found, with the message and exit code users now get.

def test_a_size_in_bssplit_or_bsrange_is_bounded_as_bs(iolab, tmp_path):
    """Before: ``bssplit: 1180591620717411303424`` (one size of 2^70 bytes) passed; predict
    printed 0 IOPS and a mean latency of 2 years, simulate failed naming no file."""
    scenario = tmp_path / "split.yaml"
    scenario.write_text((EXAMPLES / "bssplit-nvme.yaml").read_text().replace('"4k/50:1m/50"', str(2**70)))
    for command in ("predict", "simulate"):
        r = iolab(command, scenario)
        assert r.code == 2 and r.err == (f"error: {scenario}: jobs[0].bssplit: sizes must be at most 2.14748e+09 "
                                         f"bytes, as bs, got '{2**70}'\n"), r.err
    job = tmp_path / "range.fio"
    job.write_text("[j]\nrw=randread\nbsrange=4k-3g\n")
    r = iolab("check", job)
    assert r.code == 2 and r.err == f"error: {job}: [j].bsrange: sizes must be at most 2.14748e+09 bytes, as bs, " \
                                    "got '3g'\n", r.err
    job.write_text("[j]\nrw=randread\nbsrange=4k-2g\n")
    assert iolab("check", job).code == 0  # 2 GiB itself, fio's largest block, is taken


def test_a_capacity_no_fio_job_can_hold_names_the_requirement(iolab, tmp_path):
    """Before: ``capacity: 2^70`` was refused as ``error: fio job: job1.size: ...``, naming
    neither the file nor the field."""
    req = tmp_path / "req.yaml"
    req.write_text(REQUIREMENTS.read_text().replace("capacity: 2TiB", f"capacity: {2**70}"))
    r = iolab("plan", req)
    assert r.code == 2 and r.err.startswith(f"error: {req}: require.capacity: too large: each job's share of it is "
                                            "refused by fio (size must be at most "), r.err
    sql = tmp_path / "sql.yaml"
    doc = yaml.safe_load((EXAMPLES / "sql-workloads-requirements.yaml").read_text())
    doc["workloads"]["log"]["require"]["capacity"] = 2**70
    sql.write_text(yaml.safe_dump(doc))
    r = iolab("plan", sql)
    assert r.code == 2 and r.err.startswith(f"error: {sql}: workloads.log.require.capacity: too large"), r.err


@pytest.mark.parametrize("option", ["--interval", "--duration"])
def test_characterize_durations_are_at_most_a_year(iolab, option):
    """Before: ``--interval 1e308`` ended in a traceback (OverflowError)."""
    files = [str(DATA / "telemetry" / "iostat-10.1.5.txt")] if option == "--interval" else ["--live", "/tmp"]
    r = iolab("characterize", *files, option, "1e308", "--no-store")
    assert r.code == 2 and r.err == f"error: {option}: must be at most 8,784 h, got '1e308'\n", r.err
    r = iolab("characterize", *files, option, "0", "--no-store")
    assert r.code == 2 and r.err == f"error: {option}: must be more than 0 s, got '0'\n", r.err


def test_an_output_name_the_system_cannot_take_is_refused_before_any_work(iolab, place):
    """Before: a file name longer than the system allows gave a traceback (OSError); a blank
    name (``-o ' '``) wrote a file called ' ' in the working directory."""
    long = "a" * 300
    page = str(DATA / "catalog" / "retail" / "westeurope-1.json")
    nvme = str(EXAMPLES / "local-nvme.yaml")
    cases = [(["report", "predict", nvme, "-o"], "--output", ".html"),
             (["catalog", "import-prices", page, "-o"], "--output", ".yaml"),
             (["characterize", str(DATA / "telemetry" / "iostat-12.5.txt"), "--no-store", "-o"], "--output", ".yaml"),
             (["predict", nvme, "--sweep", "iodepth=1,2", "--plot"], "--plot", ".png")]
    for argv, option, suffix in cases:
        r = iolab(*argv, long + suffix)
        assert r.code == 2 and r.err == f"error: {option}: cannot write '{'a' * 100}...': File name too long\n", r.err
        if option == "--output":
            r = iolab(*argv, " ")
            assert r.code == 2 and r.err == f"error: {option}: expected a file name, got ' '\n", r.err
    assert sorted(p.name for p in place.rglob("*")) == ["out", "target", "work"]  # nothing written


def test_results_list_of_a_database_that_is_not_there(iolab, tmp_path):
    """Before: ``results list --db typo.db`` printed "no runs stored yet" and exited 0 (the
    default database, absent until the first run, still lists none)."""
    r = iolab("results", "list", "--db", tmp_path / "typo.db")
    assert r.code == 2 and r.err == (f"error: --db: no results database at {tmp_path / 'typo.db'}: run `iolab bench "
                                     "run` first, or name one with --db\n"), r.err
    assert not (tmp_path / "typo.db").exists()
    r = iolab("results", "list")
    assert r.code == 0 and r.out == "no runs stored yet\n", r.err
    db = saved_run_db(tmp_path / "r.db")
    assert iolab("results", "list", "--db", db, "--json").json()["runs"][0]["run_id"] == 1


@pytest.mark.parametrize("host, problem", [
    ("42", "'42' is not an IPv4 address (four numbers 0..255, as 10.0.0.5)"),
    ("10.1:8765", "'10.1' is not an IPv4 address (four numbers 0..255, as 10.0.0.5) in '10.1:8765'"),
    ("bad_host!", "'bad_host!' is not a host name (letters, digits and '-', dot-separated labels of at most 63)"),
    ("[fd00::zz]:80", "'fd00::zz' is not an IPv6 address in '[fd00::zz]:80'"),
    ("[name]:80", "expected [IPv6] or [IPv6]:PORT, got '[name]:80' (write HOST:PORT for a name or an IPv4 address)"),
])
def test_a_host_that_is_neither_a_name_nor_an_address(iolab, tmp_path, host, problem):
    """Before: ``42`` in a clients file was dialled (as 0.0.0.42) and the run failed with exit
    1; ``[name]`` and ``bad_host!`` went to the resolver."""
    r = iolab("bench", "run", "--rw", "read", "--target", tmp_path, "--client", host)
    assert r.code == 2 and r.err == f"error: --client: {problem}\n", r.err
    hosts = tmp_path / "hosts.txt"
    hosts.write_text(f"# servers\n127.0.0.2\n{host}\n")
    r = iolab("bench", "run", "--rw", "read", "--target", tmp_path, "--clients", hosts)
    assert r.code == 2 and r.err == f"error: {hosts}: line 3: {problem}\n", r.err


def test_hosts_that_are_names_or_addresses_are_taken():
    from iolab.bench.hosts import Host, parse_host

    assert [parse_host(h) for h in ("fio-1.example.com", "h_2", "10.0.0.5:9000", "[fd00::1]:80", "fd00::1", "db.")] \
        == [Host("fio-1.example.com"), Host("h_2"), Host("10.0.0.5", 9000), Host("fd00::1", 80), Host("fd00::1"),
            Host("db.")]


def test_a_price_page_of_another_currency_is_named_with_its_item(iolab, tmp_path):
    """Before: ``error: currencyCode: the pages mix currencies (USD, EUR)`` named neither the
    page nor the item; a blank currency or region was taken as one."""
    doc = json.loads((DATA / "catalog" / "retail" / "westeurope-2.json").read_text())
    first = tmp_path / "one.json"
    first.write_text((DATA / "catalog" / "retail" / "westeurope-1.json").read_text())
    second = tmp_path / "two.json"
    kept = 0  # Premium SSD v2's capacity: a price import-prices keeps
    doc["Items"][kept]["currencyCode"] = "EUR"
    second.write_text(json.dumps(doc))
    r = iolab("catalog", "import-prices", first, second)
    assert r.code == 2 and r.err == (f"error: {second}: Items[{kept}].currencyCode: the pages mix currencies (USD, "
                                     "EUR); save pages of one currency\n"), r.err
    for name in ("currencyCode", "armRegionName"):
        doc["Items"][kept]["currencyCode"] = "USD"
        doc["Items"][0][name] = " "
        second.write_text(json.dumps(doc))
        r = iolab("catalog", "import-prices", second)
        what = "currency" if name == "currencyCode" else "region"
        assert r.code == 2 and r.err == f"error: {second}: Items[0].{name}: expected a {what} name, got ' '\n", r.err
        doc["Items"][0][name] = "USD" if name == "currencyCode" else "westeurope"


def test_plan_names_the_calibration_file_for_a_fault_in_its_catalog_section(iolab, tmp_path):
    """Before: plan named the temporary copy it made of the section (``/tmp/iolab-x/cal.yaml:
    disks.P30: ...``), a file the user never saw, and not the field's place in the file."""
    doc = yaml.safe_load((EXAMPLES / "p30-calibration.yaml").read_text())
    doc["catalog"]["disks"]["P30"] = 0
    cal = tmp_path / "cal.yaml"
    cal.write_text(yaml.safe_dump(doc))
    r = iolab("plan", REQUIREMENTS, "--calibration", cal)
    assert r.code == 2 and r.err == f"error: {cal}: catalog.disks.P30: expected a mapping of fields, got 0\n", r.err


def test_fio_output_with_a_count_past_64_bits_or_a_bucket_that_is_no_latency():
    """Before: ``io_bytes: 1e308`` raised OverflowError and a ``latency_us`` key ``"a"``
    ValueError out of the reader, past bench run's handling of fio's output."""
    from iolab.errors import SchemaError
    from iolab.fio.output import parse_output

    doc = _fio_doc(DATA / "fio" / "fio-2.2.10-libaio-randwrite.json")
    bad = json.loads(json.dumps(doc))
    bad["jobs"][0]["write"]["io_bytes"] = 1e308
    with pytest.raises(SchemaError) as e:
        parse_output(json.dumps(bad), source="out.json")
    assert str(e.value) == "out.json: jobs[0].write.io_bytes: expected a whole number from 0 to 9223372036854775807, " \
                           "got 1e+308"
    bad = json.loads(json.dumps(doc))
    bad["jobs"][0]["latency_us"]["a"] = 1.0
    with pytest.raises(SchemaError) as e:
        parse_output(json.dumps(bad), source="out.json")
    assert str(e.value) == "out.json: jobs[0].latency_us: expected latency bounds ('250', '>=2000'), got 'a'"
    assert parse_output(json.dumps(doc)).jobs[0].latency_buckets  # the real buckets still read
