"""Property: malformed scenario, requirements, catalog and fio job files give exit 0 or 2
with one clean ``error:`` line, never a traceback, and answer within a time bound."""

from __future__ import annotations

import os
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BOUND = 5.0  # CPU seconds per input (CPU, not wall time: a busy machine must not fail it)
#: CPU seconds of each ``catalog list SECTION`` on the bundled catalog alone, measured once: a
#: malformed entry may take that long plus the bound, since the whole section is still listed
#: (about 1,300 VM sizes), and a loaded machine slows both alike.
_LISTED: dict[str, float] = {}

KEYS = ["version", "clients", "count", "vm", "limits", "volumes", "data", "disks", "sku", "caching", "size",
        "iops", "bandwidth", "latency", "read_latency", "write_latency", "device", "service", "level",
        "protocol", "nconnect", "jobs", "name", "rw", "bs", "iodepth", "numjobs", "ioengine", "rwmixread",
        "volume", "fio", "fio_file", "require", "capacity", "search", "kind", "vms", "skus", "catalog",
        "disks", "services", "price_per_month", "tier", "vcpus", "memory", "uncached_iops", "cache_size",
        "source", "stripe_size", "throughput", "workloads", "max_utilization", "p99", "mean", "region"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, 4, 4096, 2**63, 10**20, 1e308, -1e308, 1e-300, float("inf"), float("nan")]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["4k", "1e300s", "200MB/s", "P30", "Standard_DS13", "randrw", "libaio", "nfs3", "anf",
                     "ultra", "8TiB", "-5", "0x10", "1.5k", "${X}", "$ncpus", "fio --name=x --bs=4k", "/dev/zero",
                     "none", "readonly", "disks", "share", "", " ", "\t", "∞", "a" * 300]),
    st.text(max_size=12),
)
TREES = st.recursive(SCALARS, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.sampled_from(KEYS), kids, max_size=5)), max_leaves=25)
DOCS = st.dictionaries(st.sampled_from(KEYS), TREES, max_size=6)


def _scenario_like(doc: dict) -> dict:
    base = {"version": 1, "volumes": {"x": {"device": {"iops": 1000, "read_latency": "1ms"}}}, "jobs": [{"rw": "read"}]}
    base.update(doc)
    return base


def _requirements_like(doc: dict) -> dict:
    base = {"version": 1, "jobs": [{"rw": "randread", "bs": "4k"}], "require": {"iops": 1000}}
    base.update(doc)
    return base


def _check(iolab, *args, bound: float = BOUND):
    start = time.process_time()
    r = iolab(*args)
    took = time.process_time() - start
    assert r.code in (0, 2), (r.code, r.err[-400:])
    assert "Traceback" not in r.err
    if r.code == 2:
        assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err[:400]
    assert took < bound, f"{took:.1f} s for {args} (bound {bound:.1f} s)"
    return r


def _write(tmp_path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, default_flow_style=None))
    return str(path)


# IOLAB_FUZZ_EXAMPLES=2000 runs a long, randomized search instead (not in the suite)
_LONG = int(os.environ.get("IOLAB_FUZZ_EXAMPLES", "0"))
FAST = settings(max_examples=_LONG or 20, deadline=None, derandomize=not _LONG,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@FAST
@given(doc=DOCS)
def test_malformed_scenarios(iolab, tmp_path, doc):
    _check(iolab, "check", _write(tmp_path, "s.yaml", _scenario_like(doc)))


@FAST
@given(doc=DOCS)
def test_malformed_requirements(iolab, tmp_path, doc):
    _check(iolab, "check", _write(tmp_path, "r.yaml", _requirements_like(doc)))


@FAST
@given(section=st.sampled_from(["vms", "disks", "services"]), name=st.sampled_from(["P30", "Standard_DS13", "new"]),
       entry=st.one_of(TREES, st.dictionaries(st.sampled_from(KEYS), TREES, max_size=6)))
def test_malformed_catalogs(iolab, tmp_path, section, name, entry):
    if section not in _LISTED:
        start = time.process_time()
        assert iolab("catalog", "list", section).code == 0
        _LISTED[section] = time.process_time() - start
    _check(iolab, "catalog", "list", section, "--catalog", _write(tmp_path, "c.yaml", {section: {name: entry}}),
           bound=BOUND + 2 * _LISTED[section])


OPTIONS = ["rw", "bs", "iodepth", "numjobs", "size", "filesize", "runtime", "ramp_time", "rate_iops", "ioengine",
           "direct", "kb_base", "rwmixread", "offset", "nrfiles", "nr_files", "ratemin", "stonewall", "time_based",
           "write_bw_log", "threads", "filename", "directory", "include", "bogus_option", "zonemode", "rate_process"]
VALUES = st.one_of(st.sampled_from(["", "4k", "8k,64k", ",64k", "128z", "1m-2m", "50%", "$ncpus", "$pagesize",
                                    "${X}", "(1+2)*3", "9^9999", "2^70", "1//", "randrw", "libaio", "cpp_null", "1",
                                    "0", "-1", "99999999999999999999999", "1.5k", "#x", "1e3"]),
                   st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"),
                           max_size=10))
LINES = st.one_of(st.tuples(st.sampled_from(OPTIONS), VALUES).map(lambda kv: f"{kv[0]}={kv[1]}"),
                  st.sampled_from(OPTIONS), st.sampled_from(["[global]", "[job]", "[]", "[a", "; c", "# c"]))


@FAST
@given(lines=st.lists(LINES, max_size=12))
def test_malformed_job_files(iolab, tmp_path, lines):
    path = tmp_path / "j.fio"
    path.write_text("[j]\n" + "\n".join(lines) + "\n")
    _check(iolab, "check", str(path))


@pytest.mark.parametrize("name", ["[a, b]", "{a: 1}", "7", "true", "null"])
def test_a_job_name_must_be_text(iolab, tmp_path, name):
    path = tmp_path / "s.yaml"
    path.write_text(f"version: 1\njobs: [{{name: {name}}}]\nvolumes: {{x: {{device: {{iops: 1, read_latency: 1ms}}}}}}\n")
    r = _check(iolab, "check", str(path))
    assert r.code == 2 and r.err.startswith(f"error: {path}: jobs[0].name: a job name is text, not "), r.err


# ----------------------------------------------------------------------------------------------
# Mutations of valid inputs: one node of a bundled example (scenario, requirements, calibration)
# replaced, deleted or given a sibling; one line of a telemetry fixture or of one of fio's own
# example job files damaged. They reach deep into valid structure, where random documents
# rarely go. Every answer is exit 0, or exit 2 with one line naming the damaged file.

from pathlib import Path  # noqa: E402

from conftest import DATA, EXAMPLES  # noqa: E402

MUTANTS = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=2))
_REFS = ("fio_file", "catalog")


def _absolute(node, base: Path):
    """The example with its relative file references (fio_file, catalog) made absolute."""
    if isinstance(node, dict):
        return {k: (str(base / v) if k in _REFS and isinstance(v, str) else
                    [str(base / x) if isinstance(x, str) else x for x in v] if k in _REFS and isinstance(v, list) else
                    _absolute(v, base)) for k, v in node.items()}
    if isinstance(node, list):
        return [_absolute(v, base) for v in node]
    return node


def _paths(node, here=()):
    yield here
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*here, i))


def _mutated(doc, path, action: str, value):
    import copy

    doc = copy.deepcopy(doc)
    if not path:
        return value if action == "replace" else doc
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if action == "replace":
        parent[last] = value
    elif action == "delete":
        del parent[last]
    elif isinstance(parent, dict):
        parent[f"{last}_x" if isinstance(last, str) else "extra"] = value
    else:
        parent.append(value)
    return doc


def _kind(doc) -> str:
    if isinstance(doc, dict) and {"require", "pool", "workloads"} & doc.keys():
        return "requirements"
    return "scenario" if isinstance(doc, dict) and "volumes" in doc else "other"


YAML_EXAMPLES = sorted(p for p in EXAMPLES.glob("*.yaml") if _kind(yaml.safe_load(p.read_text())) != "other")


def _names_file(err: str, *files) -> bool:
    """The error line names the damaged file (or a file it refers to), then a colon."""
    return any(err.startswith(f"error: {f}: ") for f in files) or err.startswith("error: /")


@FAST
@given(data=st.data(), example=st.sampled_from(YAML_EXAMPLES), action=st.sampled_from(["replace", "delete", "add"]),
       value=MUTANTS)
def test_mutated_examples(iolab, tmp_path, data, example, action, value):
    doc = _absolute(yaml.safe_load(example.read_text()), example.parent)
    path = data.draw(st.sampled_from(list(_paths(doc))))
    bad = _mutated(doc, path, action, value)
    file = _write(tmp_path, example.name, bad)
    commands = [("check", file)] + ([("predict", file, "--json")] if _kind(doc) == "scenario" else [])
    for args in commands:
        r = _check(iolab, *args)
        if r.code == 2:
            assert _names_file(r.err, file), r.err


TELEMETRY = sorted(p for p in (DATA / "telemetry").iterdir() if p.is_file())
DAMAGE = st.sampled_from(["nan", "inf", "-inf", "-1", "1e400", "99999999999999999999999", "", "x", "0", "-0",
                          "1,5", "12:00:00", "\t", "∞", "%", "1e-400"])


def _damaged(text: str, data) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = data.draw(st.integers(0, len(lines) - 1))
    how = data.draw(st.sampled_from(["token", "token", "token", "drop", "repeat", "cut", "swap"]))
    line = lines[i]
    if how == "token":
        import re

        tokens = list(re.finditer(r"[^\s,;\"]+", line))
        if tokens:
            m = data.draw(st.sampled_from(tokens))
            lines[i] = line[:m.start()] + data.draw(DAMAGE) + line[m.end():]
    elif how == "drop":
        del lines[i]
    elif how == "repeat":
        lines.insert(i, line)
    elif how == "cut":
        lines[i] = line[: data.draw(st.integers(0, len(line)))]
        del lines[i + 1:]
    else:
        j = data.draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


@FAST
@given(data=st.data(), fixture=st.sampled_from(TELEMETRY))
def test_damaged_telemetry(iolab, tmp_path, data, fixture):
    path = tmp_path / fixture.name
    path.write_text(_damaged(fixture.read_text(), data))
    # --interval only for the formats without times of their own (it is refused for the others)
    spacing = ["--interval", "5s"] if fixture.name in ("iostat-10.1.5.txt", "nfsiostat.txt") else []
    r = _check(iolab, "characterize", str(path), "--no-store", "--json", *spacing)
    if r.code == 2:
        assert _names_file(r.err, path), r.err
    else:
        import json
        import math

        doc = json.loads(r.out)  # parseable; every figure finite and not negative
        total = doc["combined"]["total"]["iops"]
        assert all(v is None or (math.isfinite(v) and v >= 0) for v in total.values()), total


FIO_EXAMPLES = sorted((DATA / "fio-examples").glob("*.fio"))


@FAST
@given(data=st.data(), example=st.sampled_from(FIO_EXAMPLES))
def test_damaged_fio_examples(iolab, tmp_path, data, example):
    path = tmp_path / example.name
    path.write_text(_damaged(example.read_text(), data))
    r = _check(iolab, "check", str(path))
    if r.code == 2:
        assert _names_file(r.err, path), r.err


@FAST
@given(data=st.data(), action=st.sampled_from(["replace", "delete", "add"]), value=MUTANTS)
def test_mutated_calibration(iolab, tmp_path, data, action, value):
    doc = yaml.safe_load((EXAMPLES / "p30-calibration.yaml").read_text())
    path = data.draw(st.sampled_from(list(_paths(doc))))
    file = _write(tmp_path, "cal.yaml", _mutated(doc, path, action, value))
    _check(iolab, "predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--calibration", file)
