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
    assert first["config"] == {"vm": "T_Big", "disks": [{"sku": "T_P", "count": 3, "caching": "none"}],
                               "arch": "x86_64", "vcpus": 8, "memory": 32 * 2**30}
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


# --- several workloads on one machine, and pools: the same explanations -----------------------

MACHINE = """
version: 1
workloads:
  data:
    jobs: [{rw: randread, bs: 8k, iodepth: 16, ioengine: libaio}]
    require: {iops: 3000, capacity: 200GiB}
    caching: [none]
  log:
    jobs: [{rw: write, bs: 8k, iodepth: 4, ioengine: libaio}]
    require: {iops: 1500, latency: 2.5ms, capacity: 100GiB}
search: {kind: disks, vms: [%s], skus: [T_P]}
"""


def test_a_machines_near_misses_are_ordered_by_shortfall(plan, iolab, tmp_path):
    # T_Big + 4 × T_P wins at $500 (tests/test_plan_production.py works it out). Cheaper:
    # T_Cache ($450 with 4 × T_P): its uncached cap would carry data 60 % + log 30 % = 90 %
    # where 80 % is allowed (1.125), and log's latency 3.05 ms over 2.5 ms: 1.22, the worse;
    # T_Small ($100 + 4 × T_P = $300) takes 2 data disks where the volumes need 4: 4 / 2 = 2.
    doc = plan(MACHINE % "T_Small, T_Cache, T_Big")
    first = doc["candidates"][0]
    assert first["config"]["vm"] == "T_Big" and first["monthly_cost"] == 500.0
    near = doc["near_misses"]
    assert [(m["config"]["vm"], m["monthly_cost"]) for m in near] == [("T_Cache", 450.0), ("T_Small", 300.0)]
    assert near[0]["shortfall"] == pytest.approx(3.05 / 2.5, abs=1e-3)
    assert near[1]["shortfall"] == pytest.approx(2.0)
    assert near[1]["lacks"] == ["the volumes need 4 data disks; T_Small takes at most 2"]
    assert doc["best_by_kind"] == [{"kind": "disks", "service": None, "candidate": first}]
    path = tmp_path / "machine.yaml"
    path.write_text(MACHINE % "T_Small, T_Cache, T_Big")
    lines = iolab("plan", str(path), "--catalog", CATALOG).out.splitlines()
    at = lines.index("  near misses, closest first (cheaper than #1, but short of a requirement):")
    assert lines[at + 1:at + 3] == [f"  - {near_miss_line(m)}" for m in near]
    assert lines[at + 1].startswith("  - T_Cache + data: 2 × T_P; log: 2 × T_P ($450.00/month, 1.22× its limit): ")


def test_a_machine_without_a_price_says_which_and_how_to_supply_it(plan, tmp_path):
    # T_Unpriced (T_Big's figures, no price) carries the layout T_Big does: ranked after the
    # priced one, and named with the price it lacks; supplied as told, it is the answer
    text = MACHINE % "T_Unpriced, T_Big"
    doc = plan(text, "--top", "1")
    assert doc["candidates"][0]["config"]["vm"] == "T_Big"
    (entry,) = doc["unpriced"]
    assert entry["config"]["vm"] == "T_Unpriced" and entry["missing"] == ["T_Unpriced"]
    assert entry["supply"] == ["vms: {T_Unpriced: {price_per_hour: ...}}"]
    prices = tmp_path / "prices.yaml"
    prices.write_text("vms: {T_Unpriced: {price_per_hour: 0.1}}\n")   # $73 a month
    priced = plan(text, "--catalog", str(prices))
    assert priced["candidates"][0]["config"]["vm"] == "T_Unpriced"
    assert priced["candidates"][0]["monthly_cost"] == pytest.approx(73.0 + 4 * 50.0)
    assert priced["unpriced"] == []


POOL = "version: 1\npool:\n  service: anf\n  level: %s\n  volumes:\n%s"


def test_a_pools_near_misses_say_how_far_each_rule_is(plan, iolab, tmp_path):
    # t-pool: one volume at most 1,000 MiB/s, so 1,200 asked is 1.2× the rule; pools at most
    # 50 TiB, so four 10 TiB volumes at 900 MiB/s (3,600 MiB/s: 56.25 TiB of pool) are 1.125×
    over_volume = plan(POOL % ("t-pool", "    - {name: data, capacity: 4TiB, bandwidth: 1200MiB/s}\n"))
    (m,) = over_volume["near_misses"]
    assert m["config"] == {"service": "anf", "level": "t-pool"} and m["monthly_cost"] is None
    assert m["shortfall"] == pytest.approx(1.2)
    assert m["lacks"] == [over_volume["rejected"][0]["lacks"][0]]
    volumes = "".join(f"    - {{name: v{i}, capacity: 10TiB, bandwidth: 900MiB/s}}\n" for i in range(4))
    over_pool = plan(POOL % ("t-pool", volumes))
    assert over_pool["near_misses"][0]["shortfall"] == pytest.approx(56.25 / 50)
    path = tmp_path / "pool.yaml"
    path.write_text(POOL % ("t-pool", "    - {name: data, capacity: 4TiB, bandwidth: 1200MiB/s}\n"))
    lines = iolab("plan", str(path), "--catalog", CATALOG).out.splitlines()
    assert "  near misses, closest first (short of a requirement):" in lines
    assert f"  - anf t-pool (1.20× its limit): {m['lacks'][0]}" in lines  # nothing was sized: no cost


def test_a_pool_without_a_price_says_which_and_how_to_supply_it(plan, iolab, tmp_path):
    # t-nopool is t-pool without a price: its pool is sized, ranked last, and the plan says
    # which price is missing; supplied as told ($0.10 per GiB-month), it prices the pool
    catalog = tmp_path / "levels.yaml"
    catalog.write_text("services:\n  t-nopool: {service: anf, level: t-nopool, rate_per_tib: 64MiB/s, min_size: 50GiB,"
                       " max_size: 100TiB, max_throughput: 1000MiB/s, manual_qos: true, pool_min_size: 1TiB,"
                       " pool_max_size: 50TiB, volume_min_throughput: 1MiB/s, volume_max_throughput: 1000MiB/s,"
                       " latency: 1ms}\n")
    text = POOL % ("t-nopool", "    - {name: data, capacity: 2TiB, bandwidth: 100MiB/s}\n")
    doc = plan(text, "--catalog", str(catalog))
    (c,) = doc["candidates"]
    assert c["monthly_cost"] is None and c["config"]["pool"] == 2 * 2**40
    assert doc["unpriced"] == [{"config": c["config"], "missing": ["t-nopool"],
                                "supply": ["services: {t-nopool: {price_per_gib_month: ...}}"]}]
    assert doc["best_by_kind"] == [{"kind": "share", "service": "anf", "candidate": c}]
    path = tmp_path / "pool.yaml"
    path.write_text(text)
    out = iolab("plan", str(path), "--catalog", CATALOG, "--catalog", str(catalog)).out
    assert f"  - {unpriced_line(doc['unpriced'][0], 'eastus')}\n" in out
    prices = tmp_path / "prices.yaml"
    prices.write_text("services: {t-nopool: {price_per_gib_month: 0.1}}\n")
    priced = plan(text, "--catalog", str(catalog), "--catalog", str(prices))
    assert priced["candidates"][0]["monthly_cost"] == pytest.approx(2048 * 0.1) and priced["unpriced"] == []
