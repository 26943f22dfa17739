"""plan's share search loads a buffered sequential NFS reader as the candidates' compiled
networks are loaded for the figures shown: in the client's read-ahead requests (128 KiB by
default), not in the application's 4 KiB reads. So search and shown figures agree on every
row, the chosen candidate's shown figures meet the requirement, a cheaper size the search
rejected does fail, and percentile checks simulate the same load."""

from __future__ import annotations

import numpy as np
import pytest
from msgspec.structs import replace

REQ = """version: 1
jobs:
  - {rw: read, bs: 4k, iodepth: 1, numjobs: 4, direct: 0}
require:
  iops: 50000
  latency: LATENCY
search:
  kind: share
  services: [azure-files, anf]
  protocols: [nfs4.1, nfs3]
  vms: [Standard_D16s_v5]
"""


def _req(tmp_path, latency: str = "2ms"):
    path = tmp_path / "buffered.yaml"
    path.write_text(REQ.replace("LATENCY", latency))
    return path


def test_every_searched_row_agrees_with_its_shown_figures(tmp_path):
    from iolab.plan import Workload, load_requirements, predict_at_load, space
    from iolab.plan.shares import search_shares

    req = load_requirements(_req(tmp_path))
    wl = Workload.of(req)
    rows = 0
    for batch in search_shares(req, wl, space.levels(req)):
        for r in range(len(batch.cost)):
            pred = predict_at_load(req, wl, batch.config(r))
            rows += 1
            assert batch.latency[r] == pytest.approx(pred.latency, rel=0.01), batch.config(r).describe()
            for kind, u in pred.by_kind().items():
                assert batch.util[kind][r] == pytest.approx(u, rel=0.01, abs=1e-4), (batch.config(r).describe(), kind)
    assert rows > 20


def test_the_chosen_share_meets_the_requirement_and_a_cheaper_size_fails(iolab, tmp_path):
    from iolab.plan import Limits, Workload, load_requirements, plan, predict_at_load
    from iolab.plan.cost import bill
    from iolab.plan.rank import _meets
    from iolab.units import GiB, TiB

    path = _req(tmp_path)
    shown = iolab("plan", str(path), "--json").json()["candidates"][0]["prediction"]
    assert shown["latency"]["mean"] <= 0.002 * (1 + 1e-9)
    assert all(r["utilization"] <= 0.8 + 1e-9 for r in shown["resources"] + shown.get("slots", []))
    # the same share in a pool one TiB smaller, so cheaper: the search rejected it, and its figures fail
    req = load_requirements(path)
    wl = Workload.of(req)
    chosen = plan(req, top=1).candidates[0].config
    share = chosen.share
    assert share is not None and share.pool is not None and not share.manual
    pool = share.pool - TiB
    size = min(share.size, pool) // GiB * GiB
    cheaper = replace(chosen, share=replace(share, size=size, pool=pool, throughput=share.throughput * size / share.size))
    assert bill(req.catalog, cheaper).total < bill(req.catalog, chosen).total
    pred = predict_at_load(req, wl, cheaper)
    assert not _meets(pred, Limits.of(req)) and pred.latency > 0.002


def test_nfs41_is_not_refused_for_session_slots_the_requests_do_not_fill(iolab, tmp_path):
    # 50,000 reads/s of 4 KiB are 1,563 read-ahead requests/s of 128 KiB: the 64 session slots hold them
    doc = iolab("plan", str(_req(tmp_path, "5ms")), "--json").json()
    first = doc["candidates"][0]["monthly_cost"]
    same = [c for c in doc["candidates"] if c["monthly_cost"] == pytest.approx(first)]
    assert {c["config"]["protocol"] for c in same} == {"nfs3", "nfs4.1"}
    assert first == pytest.approx(1364.97, abs=0.01)  # anf ultra, 2 TiB pool, at 80 % of its quota


def test_percentiles_are_simulated_at_the_load_shown(iolab, tmp_path):
    path = _req(tmp_path, "{mean: 5ms, p99: 20ms}")
    doc = iolab("plan", str(path), "--check-top", "1", "--sim-ios", "3000", "--replications", "2", "--json").json()
    assert doc["candidates"], doc["rejected"]
    sim = doc["candidates"][0]["simulated"]
    # the requests' own latency: a few ms (simulated at the application's rate it was over a second)
    assert sim["meets"] and sim["percentiles"]["p99"] < 0.020
    assert np.isfinite(sim["mean"]) and sim["mean"] < 0.005
