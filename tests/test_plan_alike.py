"""The disk search evaluates each (family, class of alike VM sizes, count) once and copies the
figures to every VM size of the class. That must not change a single bit: every array of
every batch, and the whole plan (candidates, rejected, others, explanations), are compared
with the search that evaluates every VM size on its own (each VM its own class), over the
whole bundled catalog, and the printed plan (text and JSON) of every requirements file in
``examples/`` against the straightforward search (each VM alone, every feasible row sorted)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent

WHOLE_CATALOG = {
    "version": 1,
    "jobs": [{"rw": "randrw", "rwmixread": 70, "bs": "8k", "iodepth": 32, "numjobs": 4, "ioengine": "libaio",
              "size": "200g"},
             {"rw": "randwrite", "bs": "64k", "iodepth": 8, "ioengine": "libaio"}],
    "require": {"iops": 20000, "bandwidth": "200MB/s", "latency": "5ms", "capacity": "2TiB"},
    "search": {"kind": "disks", "caching": ["none", "readonly", "readwrite"]},
}


def _each_vm_alone(clients):
    return clients, np.arange(len(clients.ids))


def _batches(req):
    from iolab.plan import disks, space
    from iolab.plan.provisioned import search_provisioned
    from iolab.plan.workload import Workload

    wl = Workload.of(req)
    st = disks.Streams.of(wl)
    cl = disks.Clients.of(req, space.vms(req), st.sizes)
    skus = space.skus(req)
    fixed = [req.catalog.disks[s] for s in skus if s in req.catalog.disks]
    prov = [req.catalog.provisioned[s] for s in skus if s in req.catalog.provisioned]
    return disks.search_fixed(req, wl, cl, st, fixed) + search_provisioned(req, wl, cl, st, prov)


def _columns(batch) -> dict[str, bytes]:
    cols = {"cost": batch.cost, "latency": batch.latency, "count": batch.count,
            "group": batch.group.index, "families": batch.families.index}
    cols.update({f"util {k}": u for k, u in batch.util.items()})
    cols.update({f"path {k}": u for k, u in batch.vm_path.items()})
    return {k: np.ascontiguousarray(v).tobytes() for k, v in cols.items()}


def test_classes_are_fewer_than_vm_sizes_and_group_alike_ones():
    from iolab.catalog import bundled_catalog
    from iolab.plan import disks, parse_requirements, space
    from iolab.plan.workload import Workload

    req = parse_requirements(WHOLE_CATALOG).in_region("eastus")
    st = disks.Streams.of(Workload.of(req))
    cl = disks.Clients.of(req, space.vms(req), st.sizes)
    classes, of = disks.alike(cl)
    assert len(classes.ids) < len(cl.ids) / 2 and len(of) == len(bundled_catalog().of_cloud("azure").vms)
    for v in range(len(cl.ids)):
        c = of[v]
        assert (cl.d_uncached[v] == classes.d_uncached[c]).all() and (cl.d_cached[v] == classes.d_cached[c]).all()
        assert cl.cache_size[v] == classes.cache_size[c] and cl.premium[v] == classes.premium[c]
        assert cl.max_disks[v] <= classes.max_disks[c]


def test_whole_catalog_batches_are_bit_for_bit_those_of_each_vm_alone(monkeypatch):
    from iolab.plan import disks, parse_requirements, plan

    req = parse_requirements(WHOLE_CATALOG).in_region("eastus")
    by_class = _batches(req)
    answer = plan(req).to_json()
    monkeypatch.setattr(disks, "alike", _each_vm_alone)
    alone = _batches(req)
    assert [b.family for b in by_class] == [b.family for b in alone] == ["fixed-size disks", "provisioned disks"]
    for a, b in zip(by_class, alone):
        assert _columns(a) == _columns(b)
        for i in range(0, len(a), 4099):
            assert (a.config(i), a.facts(i), a.variant(i)) == (b.config(i), b.facts(i), b.variant(i))
    assert plan(req).to_json() == answer


def _sorting_route(self, group_code, groups):
    """Each group's first row in the order, found by sorting every feasible row."""
    order = self.rows[self._sort(np.arange(len(self.rows)))].tolist()
    first: dict[int, int] = {}
    for idx in order:
        first.setdefault(int(group_code[idx]), idx)
    return list(first.values())


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*requirements*.yaml")), ids=lambda p: p.name)
def test_example_plans_print_what_the_straightforward_search_prints(path, iolab, monkeypatch):
    # `iolab plan FILE` and `iolab plan FILE --json`, byte for byte, against the same with
    # every VM size evaluated on its own and every feasible row sorted.
    from iolab.plan import disks, rank

    fast = [iolab("plan", path), iolab("plan", path, "--json")]
    monkeypatch.setattr(disks, "alike", _each_vm_alone)
    monkeypatch.setattr(rank._Order, "HEAD", 10**12)
    monkeypatch.setattr(rank._Order, "group_firsts", _sorting_route)
    slow = [iolab("plan", path), iolab("plan", path, "--json")]
    assert [(r.code, r.out, r.err) for r in fast] == [(r.code, r.out, r.err) for r in slow]
    assert fast[0].code == 0 and fast[0].out and fast[1].json()
