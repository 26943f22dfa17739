"""Pool plans: several volumes in one capacity pool with manual QoS.

tests/data/plan/catalog.yaml's level t-pool (service anf): budget = pool TiB × 64 MiB/s;
pools 1 to 50 TiB; volumes from 50 GiB, 1 to 1,000 MiB/s each; $0.20 per GiB-month of pool.
"""

from __future__ import annotations

import pytest

from conftest import DATA

CATALOG = DATA / "plan" / "catalog.yaml"
GiB, TiB, MiB = 2**30, 2**40, 2**20


@pytest.fixture
def pool(iolab, tmp_path):
    def run(volumes: str, level: str = "t-pool", code: int = 0):
        path = tmp_path / "pool.yaml"
        path.write_text(f"version: 1\npool:\n  service: anf\n  level: {level}\n  volumes:\n{volumes}")
        r = iolab("plan", str(path), "--json", "--catalog", str(CATALOG))
        assert r.code == code, r.err
        return r.json() if code == 0 else r

    return run


def test_the_budget_sizes_the_pool(pool):
    # 2 TiB + 256 GiB hold 2.25 TiB, but 500 + 200 = 700 MiB/s need 700 / 64 = 10.9375 TiB
    # = 11,200 GiB of pool: $2,240. Each volume gets what it asks; nothing is spare.
    doc = pool("    - {name: data, capacity: 2TiB, bandwidth: 500MiB/s}\n"
               "    - {name: log, capacity: 256GiB, bandwidth: 200MiB/s}\n")
    c = doc["candidates"][0]
    assert c["config"]["pool"] == 11200 * GiB
    assert c["monthly_cost"] == pytest.approx(2240.0)
    assert c["sized_by"] == "throughput"
    assert c["config"]["volumes"] == [{"name": "data", "size": 2 * TiB, "throughput": 500.0 * MiB},
                                      {"name": "log", "size": 256 * GiB, "throughput": 200.0 * MiB}]
    assert c["budget"] == {"total": 700.0 * MiB, "assigned": 700.0 * MiB, "spare": 0.0}


def test_the_capacity_sizes_the_pool_and_the_rest_is_spare(pool):
    # 8 TiB + 1 TiB = 9 TiB of pool ($1,843.20) has 9 × 64 = 576 MiB/s; 150 are assigned.
    doc = pool("    - {name: data, capacity: 8TiB, bandwidth: 100MiB/s}\n"
               "    - {name: log, capacity: 1TiB, bandwidth: 50MiB/s}\n")
    c = doc["candidates"][0]
    assert c["config"]["pool"] == 9 * TiB
    assert c["monthly_cost"] == pytest.approx(1843.20)
    assert c["sized_by"] == "capacity"
    assert c["budget"]["spare"] == pytest.approx(426.0 * MiB)
    assert c["headroom"] == pytest.approx(426 / 576, abs=1e-4)


def test_the_pool_minimum_and_the_volume_minimum(pool):
    # 10 GiB becomes a 50 GiB volume (the level's minimum) in a 1 TiB pool (the pool minimum).
    doc = pool("    - {name: tiny, capacity: 10GiB, bandwidth: 10MiB/s}\n")
    c = doc["candidates"][0]
    assert c["config"]["volumes"][0]["size"] == 50 * GiB
    assert c["config"]["pool"] == TiB
    assert c["sized_by"] == "pool minimum"
    assert c["monthly_cost"] == pytest.approx(204.80)


def test_a_volume_over_the_per_volume_maximum_cannot_share_the_pool(pool):
    doc = pool("    - {name: data, capacity: 4TiB, bandwidth: 1200MiB/s}\n"
               "    - {name: log, capacity: 1TiB, bandwidth: 100MiB/s}\n")
    assert doc["candidates"] == [] and doc["feasible"] == 0
    miss = doc["nearest"][0]
    assert miss["rule"] == "volume-max-throughput"
    assert miss["volume"] == "data"
    assert "volume data asks 1.172 GiB/s, over one t-pool volume's 1,000 MiB/s" in miss["lacks"][0]


def test_volumes_beyond_the_pool_maximum(pool):
    # 3 × 900 MiB/s = 2,700 MiB/s need 42.19 TiB of pool; with 3 × 10 TiB more it is 30 TiB of
    # volumes, but 4 × 900 = 3,600 MiB/s need 56.25 TiB: over the 50 TiB maximum.
    volumes = "".join(f"    - {{name: v{i}, capacity: 10TiB, bandwidth: 900MiB/s}}\n" for i in range(4))
    doc = pool(volumes)
    assert doc["candidates"] == []
    assert doc["nearest"][0]["rule"] == "pool-size"
    assert "56.25 TiB pool" in doc["nearest"][0]["lacks"][0]


def test_a_level_without_manual_qos_is_refused(pool):
    r = pool("    - {name: data, capacity: 4TiB, bandwidth: 100MiB/s}\n", level="t-fast", code=2)
    assert "pool.level" in r.err and "manual-qos" in r.err


def test_pool_text_output(iolab, tmp_path):
    path = tmp_path / "pool.yaml"
    path.write_text("version: 1\npool:\n  service: anf\n  level: t-pool\n  volumes:\n"
                    "    - {name: data, capacity: 8TiB, bandwidth: 100MiB/s}\n")
    r = iolab("plan", str(path), "--catalog", str(CATALOG))
    assert r.code == 0, r.err
    assert "t-pool" in r.out and "8 TiB" in r.out
    # An 8 TiB pool has 8 × 64 = 512 MiB/s; the volume takes 100.
    assert "412 MiB/s of the budget is unassigned" in r.out


def test_a_negotiated_discount_on_shares_prices_the_pool(iolab, tmp_path):
    # the 9 TiB pool above ($1,843.20 at $0.20 per GiB-month) with 10 % off shares: $1,658.88
    path = tmp_path / "pool.yaml"
    path.write_text("version: 1\npricing: {discount: {shares: 10%}}\npool:\n  service: anf\n  level: t-pool\n"
                    "  volumes:\n    - {name: data, capacity: 8TiB, bandwidth: 100MiB/s}\n"
                    "    - {name: log, capacity: 1TiB, bandwidth: 50MiB/s}\n")
    r = iolab("plan", str(path), "--json", "--catalog", str(CATALOG))
    assert r.code == 0, r.err
    assert r.json()["candidates"][0]["monthly_cost"] == pytest.approx(9 * 1024 * 0.20 * 0.9)


def test_a_pool_plan_loads_neither_the_queueing_model_nor_the_search():
    # a pool is sized by arithmetic on the catalog's rules: the command starts without the
    # model, the network compiler, the simulator or the disk search (start-up is most of it)
    from test_startup import _command_loads

    loaded = _command_loads("plan", "examples/pool-requirements.yaml")
    assert "iolab.plan.pool" in loaded  # the pool was planned
    model = {"iolab.analytic", "iolab.network", "iolab.compile", "iolab.sim", "iolab.plan.prediction",
             "iolab.plan.rank", "iolab.plan.disks", "iolab.plan.shares", "iolab.plan.machine"}
    assert sorted(loaded & model) == []
