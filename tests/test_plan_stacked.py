"""The stacked search (every VM × SKU × count × caching evaluated as one set of arrays)
gives the same feasible set, figures and ranking as a straightforward evaluation of each
configuration on its own: the catalog's rules applied one configuration at a time, the
compiled scenario analysed at the required load, the bill added up part by part. Random
slices of the bundled catalog and random workloads (seeded)."""

from __future__ import annotations

import math

import numpy as np
import pytest

REL = 1e-7  # the bulk figures and the compiled network's agree to about 1e-9; margin for rounding


def _slice(seed: int):
    """Requirements over a random slice of the bundled catalog: 4 VM sizes (one with a host
    cache, one without premium storage), 3 fixed-size SKUs and Premium SSD v2 or Ultra, at
    most 6 disks, a random workload and requirement (most slices have feasible rows)."""
    from iolab.catalog import bundled_catalog
    from iolab.plan import parse_requirements

    rng = np.random.default_rng(seed)
    cat = bundled_catalog().of_cloud("azure")  # one cloud's parts, as a requirements file draws them
    vms = sorted(cat.vms)
    cached = [v for v in vms if cat.vms[v].cache_size]
    plain = [v for v in vms if not cat.vms[v].premium_storage] or vms
    pick = {str(rng.choice(cached)), str(rng.choice(plain)), *(str(v) for v in rng.choice(vms, size=2))}
    skus = sorted({str(s) for s in rng.choice(sorted(cat.disks), size=3, replace=False)}
                  | {str(rng.choice(sorted(cat.provisioned)))})
    bs = int(rng.choice([4096, 8192, 65536, 262144, 1048576]))
    mix = int(rng.choice([0, 30, 70, 100]))
    job = {"rw": "randrw", "rwmixread": mix, "bs": bs, "iodepth": 16, "ioengine": "libaio"}
    if rng.random() < 0.5:
        job["size"] = int(rng.choice([10, 200])) * 2**30  # a working set the host cache may hold
    iops = float(rng.choice([300, 1000, 3000, 10000]))
    require = {"iops": iops, "latency": float(rng.choice([0.005, 0.02, 0.1])),
               "capacity": int(rng.choice([64, 256, 1024])) * 2**30,
               "max_utilization": float(rng.choice([0.7, 0.8, 1.0]))}
    caching = ["none", "readonly", "readwrite"][: int(rng.integers(1, 4))]
    doc = {"version": 1, "jobs": [job], "require": require, "clients": int(rng.integers(1, 3)),
           "search": {"kind": "disks", "vms": sorted(pick), "skus": skus, "caching": caching, "max_disks": 6,
                      "stripe_size": int(rng.choice([65536, 262144]))}}
    return parse_requirements(doc).in_region("eastus")


def _one_by_one(req, wl):
    """Each fixed-size configuration the rules allow, evaluated alone: {describe: (cost, feasible, prediction)}."""
    from iolab.plan import Config, DiskChoice, predict_at_load
    from iolab.plan.table import Limits

    cat, limits = req.catalog, Limits.of(req)
    out = {}
    for vm_id in req.search.vms:
        vm = cat.vms[vm_id]
        for sku_id in req.search.skus:
            if sku_id not in cat.disks:
                continue
            sku = cat.disks[sku_id]
            for caching in req.search.caching:
                if sku.tier == "premium" and not vm.premium_storage:
                    continue
                if caching != "none" and not (sku.host_caching and vm.cache_size):
                    continue
                for n in range(1, min(vm.max_data_disks, req.search.max_disks) + 1):
                    for plus in (False, True) if sku.performance_plus else (False,):
                        config = Config(vm_id, req.clients, (DiskChoice(sku_id, n, caching, performance_plus=plus),))
                        pred = predict_at_load(req, wl, config)
                        holds = n * sku.size * req.clients >= req.require.capacity * (1 - 1e-12)
                        feasible = holds and not any(limits.over(r.kind, r.utilization) for r in pred.loads) \
                            and pred.latency <= limits.latency * (1 + 1e-9)
                        price = None if vm.price_per_month is None or sku.price_per_month is None else \
                            (vm.price_per_month + n * sku.price_per_month) * req.clients
                        out[config.describe()] = (price, feasible, pred)
    return out


def _borderline(pred, req) -> bool:
    """A figure within rounding of its limit: either answer is right."""
    m = req.require.max_utilization
    return any(abs(r.utilization - m) <= 1e-6 * m for r in pred.loads) or \
        abs(pred.latency - req.require.latency) <= 1e-6 * req.require.latency


@pytest.mark.parametrize("seed", range(6))
def test_stacked_rows_match_each_configuration_evaluated_alone(seed):
    from iolab.plan import Workload, plan
    from iolab.plan.search import _disks
    from iolab.plan.table import Limits

    req = _slice(seed)
    wl = Workload.of(req)
    batches, _ = _disks(req, wl)
    alone = _one_by_one(req, wl)
    limits = Limits.of(req)
    stacked = {}
    for b in batches:
        ok = b.feasible(limits)
        for i in range(len(b)):
            stacked[b.config(i).describe()] = (b, i, bool(ok[i]))
    fixed = {k: v for k, v in stacked.items() if "premium-v2" not in k and "ultra" not in k}
    assert set(fixed) == set(alone), "the stacked rows are exactly the configurations the rules allow"
    for key, (price, feasible, pred) in alone.items():
        b, i, ok = fixed[key]
        if not _borderline(pred, req):
            assert ok == feasible, key
        if price is None:
            assert math.isnan(b.cost[i]), key
        else:
            assert b.cost[i] == pytest.approx(price, rel=1e-12), key
        if math.isfinite(pred.latency):
            assert b.latency[i] == pytest.approx(pred.latency, rel=REL), key
    # Ranking: the plan's candidates cost what the cheapest feasible configurations cost, in
    # order (Premium SSD v2 and Ultra rows solved VM by VM, each type shown once per VM at its
    # best count; a configuration shown once whatever its host caching, and with or without
    # performance plus).
    best: dict = {}
    for key, (price, feasible, pred) in alone.items():
        if feasible and price is not None:
            variant = key.split(" caching")[0] if " caching" in key else key
            variant = variant.replace(" performance plus", "")  # the same disks at the same price
            best[variant] = min(price, best.get(variant, math.inf))
    for key, (b, i, ok) in _provisioned_alone(req, wl).items():
        if ok and not math.isnan(b.cost[i]):
            config = b.config(i)
            kind = (config.vm, config.disks[0].sku)
            best[kind] = min(float(b.cost[i]), best.get(kind, math.inf))
    result = plan(req, top=5)
    assert result.evaluated == len(stacked)
    assert result.feasible == sum(ok for _, _, ok in stacked.values())
    near = any(_borderline(v[2], req) for v in alone.values())
    if not near:
        costs = sorted(best.values())[:5]
        assert [c.monthly_cost for c in result.candidates if c.monthly_cost is not None] == \
            pytest.approx(costs, rel=1e-12)


def _provisioned_alone(req, wl) -> dict:
    """Premium SSD v2 and Ultra rows solved for one VM and one SKU at a time: {describe: (batch, row, feasible)}."""
    from iolab.plan.disks import Clients, Streams
    from iolab.plan.provisioned import search_provisioned
    from iolab.plan.table import Limits

    st = Streams.of(wl)
    out = {}
    for vm in req.search.vms:
        for sku in [req.catalog.provisioned[s] for s in req.search.skus if s in req.catalog.provisioned]:
            for b in search_provisioned(req, wl, Clients.of(req, [vm], st.sizes), st, [sku]):
                ok = b.feasible(Limits.of(req))
                out.update({b.config(i).describe(): (b, i, bool(ok[i])) for i in range(len(b))})
    return out


@pytest.mark.parametrize("seed", range(6))
def test_stacked_provisioned_rows_match_each_vm_solved_alone(seed):
    """Premium SSD v2 and Ultra: every VM × count solved in one bisection gives each row the
    same provisioning, figures and price as the VM's rows solved on their own, and the
    compiled scenario of each row agrees on feasibility."""
    from iolab.plan import Workload, predict_at_load
    from iolab.plan.disks import Clients, Streams
    from iolab.plan.provisioned import search_provisioned
    from iolab.plan.table import Limits

    req = _slice(seed)
    wl = Workload.of(req)
    st = Streams.of(wl)
    skus = [req.catalog.provisioned[s] for s in req.search.skus if s in req.catalog.provisioned]
    together = search_provisioned(req, wl, Clients.of(req, list(req.search.vms), st.sizes), st, skus)
    rows = {b.config(i).describe(): (b, i) for b in together for i in range(len(b))}
    limits = Limits.of(req)
    alone = _provisioned_alone(req, wl)
    assert set(alone) == set(rows)
    for n, (key, (b, i, _)) in enumerate(sorted(alone.items())):
        big, j = rows[key]
        assert big.config(j) == b.config(i)
        assert np.array_equal(big.cost[j], b.cost[i], equal_nan=True)
        assert big.latency[j] == b.latency[i]
        assert {k: u[j] for k, u in big.util.items()} == {k: u[i] for k, u in b.util.items()}
        if n % 2 == 0:  # half of them compiled: a few seconds in all
            pred = predict_at_load(req, wl, b.config(i))
            if not _borderline(pred, req) and b.util["capacity"][i] <= 1:
                feasible = not any(limits.over(r.kind, r.utilization) for r in pred.loads) and \
                    pred.latency <= limits.latency * (1 + 1e-9)
                assert bool(big.feasible(limits)[j]) == feasible, key
    assert len(alone) == (sum(len(b) for b in together) if "none" in req.search.caching else 0)
