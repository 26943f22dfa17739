"""Explanations that help decide: near misses closest first, the best of each kind under
``kind: any``, feasible configurations without a price and how to price them; and text
that survives a pipe (every row, reason and note whole on one line)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import DATA, EXAMPLES, ROOT

from iolab.plan.labels import config_label, kind_line, near_miss_line, unpriced_line

CATALOG = str(DATA / "plan" / "catalog.yaml")


def _reads(search: str, extra: str = "") -> str:
    return ("version: 1\njobs: [{rw: randread, bs: 8k, iodepth: 16, ioengine: libaio}]\n"
            f"require: {{iops: 5400{extra}}}\nsearch: {{{search}}}\n")


def test_near_misses_are_ordered_by_shortfall(plan):
    # 5,400 IOPS over T_P disks of 2,000 IOPS, at most 80 % busy: T_Big + 4 × T_P wins at
    # $500. Three T_P would be 5400 / 3 / 2000 = 90 % busy: 0.90 / 0.80 = 1.125 of the
    # margin; T_Small takes only two, 135 % busy: 1.35 / 0.8 = 1.6875.
    doc = plan(_reads("kind: disks, vms: [T_Small, T_Big], skus: [T_P]"))
    assert doc["candidates"][0]["monthly_cost"] == 500.0
    near = doc["near_misses"]
    assert [m["shortfall"] for m in near] == sorted(m["shortfall"] for m in near)
    first, second = near[0], near[1]
    assert first["config"] == {"vm": "T_Big", "disks": [{"sku": "T_P", "count": 3, "caching": "none"}]}
    assert first["shortfall"] == pytest.approx(1.125, abs=1e-4) and first["monthly_cost"] == 450.0
    assert first["lacks"] == ["the disks would be 90% busy at 5,400 IOPS, over the 80% allowed"]
    assert second["config"]["vm"] == "T_Small" and second["shortfall"] == pytest.approx(1.6875, abs=1e-4)
    assert all(1 <= m["shortfall"] and m["monthly_cost"] < 500.0 for m in near)


def test_a_latency_near_miss_is_its_latency_over_the_bound(plan):
    # one T_Slow disk (1,000 IOPS, 1 ms alone) at 750 IOPS: 75 % busy, 2.5 ms by the open
    # model (1 ms + 1 ms × 0.75 / (2 × 0.25)); with 2 ms required it misses by 2.5 / 2.
    doc = plan("version: 1\njobs: [{rw: randread, bs: 8k, iodepth: 4, ioengine: libaio}]\n"
               "require: {iops: 750, latency: 2ms, max_utilization: 1}\n"
               "search: {kind: disks, vms: [T_Wide], skus: [T_Slow, T_Quick]}\n")
    slow = [m for m in doc["near_misses"] if m["config"]["disks"][0] == {"sku": "T_Slow", "count": 1,
                                                                        "caching": "none"}]
    assert slow and slow[0]["shortfall"] == pytest.approx(2.5 / 2, abs=1e-3)
    assert "mean latency 2.5 ms over the required 2 ms" in slow[0]["lacks"][0]


def test_best_by_kind_under_kind_any(plan, iolab, tmp_path):
    # a 3,375 GiB t-cheap share from T_Small ($235) beats four T_P disks on T_Big ($500)
    search = "kind: any, vms: [T_Small, T_Big], skus: [T_P], levels: [t-cheap], protocols: [nfs3], nconnect: [1]"
    doc = plan(_reads(search))
    kinds = {(k["kind"], k["service"]): k["candidate"] for k in doc["best_by_kind"]}
    assert set(kinds) == {("disks", None), ("share", "anf")}
    share, disks = kinds[("share", "anf")], kinds[("disks", None)]
    assert share["rank"] == 1 and share["monthly_cost"] == 235.0
    assert disks["monthly_cost"] == 500.0 and disks["config"]["vm"] == "T_Big"
    assert disks["why"].startswith("costs $265.00/month more than #1")
    path = tmp_path / "any.yaml"
    path.write_text(_reads(search))
    out = iolab("plan", str(path), "--catalog", CATALOG).out
    assert "  the best of each kind searched:\n" in out
    for k in doc["best_by_kind"]:
        assert f"  - {kind_line(k)}\n" in out


def test_best_by_kind_finds_a_kind_outside_the_top(plan):
    # with --top 1 the disks are not ranked, but their best is still named with its cost
    search = "kind: any, vms: [T_Small, T_Big], skus: [T_P], levels: [t-cheap], protocols: [nfs3], nconnect: [1]"
    doc = plan(_reads(search), "--top", "1")
    assert len(doc["candidates"]) == 1
    disks = next(k["candidate"] for k in doc["best_by_kind"] if k["kind"] == "disks")
    assert disks["rank"] is None and disks["monthly_cost"] == 500.0 and disks["prediction"]["iops"] == 5400.0


def test_unpriced_names_the_missing_price_and_how_to_supply_it(plan, iolab, tmp_path):
    # T_Unpriced has no price: its feasible layouts rank after every priced one, and the
    # plan says which price is missing and the catalog entry that would supply it
    text = _reads("kind: disks, vms: [T_Unpriced, T_Big], skus: [T_P]")
    doc = plan(text)
    assert doc["candidates"][0]["config"]["vm"] == "T_Big"
    (entry,) = [u for u in doc["unpriced"] if u["config"]["vm"] == "T_Unpriced"]
    assert entry["missing"] == ["T_Unpriced"]
    assert entry["supply"] == ["vms: {T_Unpriced: {price_per_hour: ...}}"]
    # supplying it as told prices it: $0.10 an hour is $73 a month, + 4 × T_P = $273, the cheapest
    prices = tmp_path / "prices.yaml"
    prices.write_text("vms: {T_Unpriced: {price_per_hour: 0.1}}\n")
    priced = plan(text, "--catalog", str(prices))
    first = priced["candidates"][0]
    assert first["config"]["vm"] == "T_Unpriced" and first["monthly_cost"] == pytest.approx(273.0)
    assert priced["unpriced"] == []
    path = tmp_path / "u.yaml"
    path.write_text(text)
    out = iolab("plan", str(path), "--catalog", CATALOG).out
    assert f"  - {unpriced_line(entry, 'eastus')}\n" in out


def test_a_piped_plan_keeps_every_line_whole():
    # a real pipe, no COLUMNS: nothing is wrapped, so each row and reason is one grep-able line
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(ROOT / "python")
    path = str(EXAMPLES / "any-requirements.yaml")
    run = [sys.executable, "-m", "iolab", "plan", path]
    text = subprocess.run(run, capture_output=True, text=True, env=env, cwd=ROOT, check=True).stdout
    doc = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True, env=env, cwd=ROOT,
                                    check=True).stdout)
    lines = text.splitlines()
    for c in doc["candidates"]:
        assert sum(config_label(c["config"]) in line and line.lstrip().startswith(f"{c['rank']} ")
                   for line in lines) == 1
        if c.get("why"):
            assert f"  #{c['rank']} {config_label(c['config'])}: {c['why']}" in lines
    for m in doc["near_misses"]:
        assert f"  - {near_miss_line(m)}" in lines
    for k in doc["best_by_kind"]:
        assert f"  - {kind_line(k)}" in lines
    for u in doc["unpriced"]:
        assert f"  - {unpriced_line(u, doc['region'])}" in lines
    assert max(map(len, lines)) > 140  # the old 140-column fold would have split these
    assert not any(line.startswith("(") for line in lines)
