"""One answer everywhere: every example scenario through every interface (the predict
command's text and JSON, the HTML report, the service a web page calls; the simulate
command's text and JSON) gives the same figures."""

from __future__ import annotations

import html
import json
import re

import pytest

from conftest import EXAMPLES

from iolab.filekind import sniff
from iolab.units import format_ops

SCENARIOS = sorted(p for p in EXAMPLES.glob("*.yaml") if sniff(p) == "scenario")


def test_the_examples_hold_scenarios_and_a_phased_one():
    names = {p.name for p in SCENARIOS}
    assert len(SCENARIOS) >= 15 and "phases-fill-then-read.yaml" in names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_predict_is_the_same_through_every_interface(iolab, tmp_path, path):
    from iolab.service.predict import predict_file
    from iolab.service.source import Source

    doc = iolab("predict", path, "--json").json()
    headline = format_ops(doc["iops"])
    text = " ".join(iolab("predict", path).out.split())
    assert headline in text
    page = tmp_path / "report.html"
    r = iolab("report", "predict", path, "-o", page)
    assert r.code == 0, r.err
    shown = html.unescape(page.read_text(encoding="utf-8"))
    bare = headline.removesuffix(" IOPS")  # the report's table gives the unit in its header
    assert f">{bare}<" in shown
    said = text.split("Bottleneck: ")[1].split(";")[0].split(" Load:")[0].split(" Knee:")[0].rstrip(".")
    assert said in " ".join(shown.split())  # the same sentence names what limits it
    # the service, as a web page calls it with the file's text in memory
    body = Source.memory(path.read_text(encoding="utf-8"), path.name, base=path.parent)
    served = predict_file(body).to_json()
    for key in ("iops", "bandwidth", "latency", "bottleneck", "resources", "jobs"):
        assert served[key] == doc[key], key
    if "phases" in doc:
        assert [p["iops"] for p in served["phases"]] == [p["iops"] for p in doc["phases"]]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_simulate_is_the_same_in_text_and_json(iolab, path):
    doc = iolab("simulate", path, "--ios", "4000", "--json").json()
    text = " ".join(iolab("simulate", path, "--ios", "4000").out.split())
    figure = format_ops(doc["iops"]) if "phases" in doc else f"{doc['iops']:,.0f}"
    assert figure in text
    assert json.dumps(doc["bottleneck"])  # named on every path, phases included
    for phase in doc.get("phases", [doc]):
        assert phase["bottleneck"]["why"] in ("saturated", "slots", "rate", "thinktime", "concurrency")


def test_phases_give_the_file_total_in_the_report(iolab, tmp_path):
    """The fill-then-read example: the report shows the file's total, as the command does."""
    path = EXAMPLES / "phases-fill-then-read.yaml"
    doc = iolab("predict", path, "--json").json()
    assert len(doc["phases"]) == 2
    page = tmp_path / "report.html"
    iolab("report", "predict", path, "-o", page)
    shown = html.unescape(page.read_text(encoding="utf-8"))
    total = re.search(r">total</td>\s*<td[^>]*>([^<]+)<", shown)
    assert total and total.group(1) == format_ops(doc["iops"]).removesuffix(" IOPS")
