"""Several workloads on one Compute Engine machine: each workload its own volume, the
machine's caps per disk type shared by the workloads whose volumes use that type.

The worked example is tests/data/plan/gcp-workloads.yaml: a database's data (10,000 IOPS of
8 KiB, 80 % reads, 1 TiB) and log (100 MB/s of 64 KiB sequential writes, 256 GiB) on N2, N2D
or C3 machines with pd-balanced, pd-ssd or Hyperdisk Extreme. Its answer is worked here from
the catalog's own figures: the machine types' per-type limits (gce.yaml's ``disk_limits``),
the disks' performance per GiB (gcp-disks.yaml) and the prices of gcp.csv.
"""

from __future__ import annotations

import csv
import fnmatch
import json
import math

import pytest

from conftest import ROOT
from iolab.catalog import bundled_catalog
from iolab.units import GiB, MiB, TiB

EXAMPLE = ROOT / "tests" / "data" / "plan" / "gcp-workloads.yaml"
PRICES = ROOT / "python" / "iolab" / "catalog" / "data" / "prices" / "gcp.csv"
HOURS = 730
MARGIN = 0.8                      # the workloads' default max_utilization
DATA_IOPS = 10_000                # 8 KiB, 1 TiB
LOG_BYTES = 100e6                 # 100 MB/s of 64 KiB writes, 256 GiB
LOG_IOPS = LOG_BYTES / (64 * 1024)


def _price(section: str, ident: str, field: str, region: str) -> float | None:
    """One cell of gcp.csv, the catalog's Google Cloud price table (None where empty)."""
    with PRICES.open(newline="") as f:
        [row] = [r for r in csv.DictReader(f) if (r["section"], r["id"], r["field"]) == (section, ident, field)]
    return float(row[region]) if row[region] else None


def _machine(vm: str, region: str) -> float:
    return _price("vms", vm, "price_per_hour", region) * HOURS  # type: ignore[operator]


def _per_gib(sku: str, region: str) -> float:
    return _price("provisioned", sku, "price_per_gib_month", region)  # type: ignore[return-value]


def _busy(vm: str, tier: str, iops: float, nbytes: int) -> float:
    """How busy ``iops`` IOs of ``nbytes`` keep machine ``vm``'s limit over its disks of
    ``tier``: each IO takes the longer of one IO's share of the IOPS limit and its bytes'
    share of the throughput limit (the machine types' limits are the same for reads and
    writes at these sizes)."""
    (ri, rb), (wi, wb) = bundled_catalog().vm(vm).disk_caps(tier)
    assert (ri, rb) == (wi, wb)
    return iops * max(1 / ri, nbytes / rb)


def _resources(candidate: dict) -> dict[str, float]:
    return {r["resource"]: r["utilization"] for r in candidate["prediction"]["resources"]}


def _disks(candidate: dict) -> dict[str, list[tuple[str, int, float]]]:
    return {name: [(d["sku"], d["count"], d["size"] / GiB) for d in v["disks"]]
            for name, v in candidate["config"]["volumes"].items()}


def _plan(iolab, *args) -> dict:
    r = iolab("plan", *map(str, args), "--json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_data_and_log_on_one_compute_engine_machine_worked_by_hand(iolab):
    """By hand (us-central1): the data is cheapest on pd-ssd, the log on pd-balanced, each
    type under its own limit of the machine.

    - Data: pd-ssd gives 30 IOPS per GiB, so the 1 TiB it must hold gives more than the
      12,500 IOPS that keep 10,000 at 80 %: 1,024 GiB x $0.17. On pd-balanced (6 per GiB) the
      IOPS would need 2,084 GiB x $0.10, dearer.
    - Log: 100 MB/s at most 80 % busy is 125 MB/s; pd-balanced gives 0.28 MiB/s per GiB:
      426 GiB x $0.10 = $42.60 (pd-ssd: 0.48 per GiB, 249 GiB, but 256 GiB for the capacity
      x $0.17 = $43.52).
    - Machine: the cheapest searched, n2d-standard-2 ($0.084492 an hour x 730). Its pd-ssd
      limit (15,000 IOPS) carries the data alone at 67 %; its pd-balanced limit (240 MiB/s)
      the log alone at 40 %: the log is on another type, so the two never add up.
    """
    region = "us-central1"
    out = _plan(iolab, EXAMPLE)
    assert out["region"] == region
    cat = bundled_catalog()
    ssd, bal = cat.disk("pd-ssd"), cat.disk("pd-balanced")
    # the cheapest machine type searched
    patterns = ("n2-standard-*", "n2d-standard-*", "c3-standard-*")
    prices = {vm: p for vm in cat.vms if any(fnmatch.fnmatch(vm, x) for x in patterns)
              if (p := _price("vms", vm, "price_per_hour", region)) is not None}
    assert min(prices, key=prices.get) == "n2d-standard-2"
    # the data: the capacity's size gives the IOPS; the log: the size its throughput needs
    assert 1 * TiB / GiB * ssd.iops_per_gib >= DATA_IOPS / MARGIN
    log_gib = math.ceil(LOG_BYTES / MARGIN / bal.bandwidth_per_gib)
    assert log_gib == 426
    assert log_gib * _per_gib("pd-balanced", region) < 256 * _per_gib("pd-ssd", region)
    assert math.ceil(DATA_IOPS / MARGIN / bal.iops_per_gib) * _per_gib("pd-balanced", region) > \
        1024 * _per_gib("pd-ssd", region)
    best = out["candidates"][0]
    assert best["config"]["vm"] == "n2d-standard-2"
    assert _disks(best) == {"data": [("pd-ssd", 1, 1024)], "log": [("pd-balanced", 1, log_gib)]}
    disks = 1024 * _per_gib("pd-ssd", region) + log_gib * _per_gib("pd-balanced", region)
    assert best["bill"]["vm"] == pytest.approx(_machine("n2d-standard-2", region), abs=0.01)
    assert best["bill"]["disks"] == pytest.approx(disks, abs=0.01)
    assert best["monthly_cost"] == pytest.approx(_machine("n2d-standard-2", region) + disks, abs=0.01)
    # each type its own limit: data alone on the pd-ssd one, log alone on the pd-balanced one
    busy = _resources(best)
    assert busy["n2d-standard-2 pd-ssd limit"] == pytest.approx(_busy("n2d-standard-2", "pd-ssd", DATA_IOPS, 8192),
                                                                abs=0.002)
    assert busy["n2d-standard-2 pd-balanced limit"] == pytest.approx(
        _busy("n2d-standard-2", "pd-balanced", LOG_IOPS, 65536), abs=0.002)
    assert busy["n2d-standard-2 pd-ssd limit"] == pytest.approx(2 / 3, abs=0.002)
    assert busy["n2d-standard-2 pd-balanced limit"] == pytest.approx(LOG_BYTES / (240 * MiB), abs=0.002)
    # Hyperdisk Extreme: the machine has no limit of its own over it (the catalog gives none);
    # a log there leaves the machine's pd-ssd limit to the data alone
    hdx = [c for c in out["candidates"] if _disks(c)["log"][0][0] == "hyperdisk-extreme"]
    assert hdx, "a Hyperdisk Extreme log among the candidates"
    vm = hdx[0]["config"]["vm"]
    assert cat.vm(vm).disk_caps("hyperdisk-extreme") is None
    assert [r for r in _resources(hdx[0]) if r.startswith(vm)] == [f"{vm} pd-ssd limit"]
    assert _resources(hdx[0])[f"{vm} pd-ssd limit"] == pytest.approx(2 / 3, abs=0.002)
    assert [c["monthly_cost"] for c in out["candidates"]] == sorted(c["monthly_cost"] for c in out["candidates"])


def test_the_example_is_priced_in_the_region_asked(iolab):
    region = "europe-west1"
    out = _plan(iolab, EXAMPLE, "--region", region)
    assert out["region"] == region
    best = out["candidates"][0]
    assert best["config"]["vm"] == "n2d-standard-2"
    assert _disks(best) == {"data": [("pd-ssd", 1, 1024)], "log": [("pd-balanced", 1, 426)]}
    assert best["monthly_cost"] == pytest.approx(
        _machine("n2d-standard-2", region) + 1024 * _per_gib("pd-ssd", region) + 426 * _per_gib("pd-balanced", region),
        abs=0.01)
    assert _machine("n2d-standard-2", region) != pytest.approx(_machine("n2d-standard-2", "us-central1"))


SSD_ONLY = EXAMPLE.read_text().replace("skus: [pd-balanced, pd-ssd, hyperdisk-extreme]", "skus: [pd-ssd]")


def test_two_workloads_on_pd_ssd_share_the_machines_limit_and_predict_agrees(iolab, tmp_path):
    """With pd-ssd alone both volumes are on one type, so the machine's pd-ssd limit carries
    both. On n2d-standard-2 (15,000 IOPS, 240 MiB/s) the data keeps it 67 % busy and the log
    40 %: 106 %, over the 80 % allowed. n2d-standard-8 has 800 MiB/s: 67 % + 12 % = 79 %.
    Its price plus 1,024 + 256 GiB of pd-ssd (the log's 125 MB/s need 249 GiB at 0.48 MiB/s
    per GiB; its capacity, 256). `iolab predict` of that configuration, each job held at its
    workload's rate, puts the same load on the shared limit."""
    assert "skus: [pd-ssd]" in SSD_ONLY
    path = tmp_path / "ssd.yaml"
    path.write_text(SSD_ONLY)
    out = _plan(iolab, path)
    best = out["candidates"][0]
    shared = _busy("n2d-standard-8", "pd-ssd", DATA_IOPS, 8192) + _busy("n2d-standard-8", "pd-ssd", LOG_IOPS, 65536)
    assert shared == pytest.approx(DATA_IOPS / 15000 + LOG_BYTES / (800 * MiB))
    assert best["config"]["vm"] == "n2d-standard-8"
    assert _disks(best) == {"data": [("pd-ssd", 1, 1024)], "log": [("pd-ssd", 1, 256)]}
    assert best["monthly_cost"] == pytest.approx(
        _machine("n2d-standard-8", "us-central1") + (1024 + 256) * _per_gib("pd-ssd", "us-central1"), abs=0.01)
    assert _resources(best)["n2d-standard-8 pd-ssd limit"] == pytest.approx(shared, abs=0.002)
    # the cheaper machines' one limit would carry both: named, with each workload's share
    small = _busy("n2d-standard-2", "pd-ssd", DATA_IOPS, 8192) + _busy("n2d-standard-2", "pd-ssd", LOG_IOPS, 65536)
    assert round(small * 100) == 106
    miss = next(m for m in out["near_misses"] if m["config"]["vm"] == "n2d-standard-2")
    assert "the machine's pd-ssd limit would be 106% busy (data 67%, log 40%), over the 80% allowed" in miss["lacks"]
    # iolab predict of the chosen configuration, its jobs held at the workloads' rates
    def group(d: dict) -> str:
        return (f"{{sku: {d['sku']}, count: {d['count']}, size: {d['size']}, iops: {d['iops']:.0f}, "
                f"bandwidth: {d['bandwidth']:.0f}}}")

    volumes = best["config"]["volumes"]
    scenario = tmp_path / "chosen.yaml"
    scenario.write_text(f"""version: 1
clients: {{vm: {best['config']['vm']}}}
volumes:
  data: {{disks: [{group(volumes['data']['disks'][0])}]}}
  log: {{disks: [{group(volumes['log']['disks'][0])}]}}
jobs:
  - {{name: data, volume: data, rw: randrw, rwmixread: 80, bs: 8k, iodepth: 32, numjobs: 4, ioengine: libaio, direct: 1,
     rate_iops: "{DATA_IOPS * 0.8 / 4:.0f},{DATA_IOPS * 0.2 / 4:.0f}"}}
  - {{name: log, volume: log, rw: write, bs: 64k, iodepth: 4, ioengine: libaio, direct: 1, rate_iops: {LOG_IOPS:.0f}}}
""")
    r = iolab("predict", str(scenario), "--json")
    assert r.code == 0, r.err
    pred = json.loads(r.out)
    jobs = {j["name"]: j for j in pred["jobs"]}
    assert jobs["data"]["iops"] == pytest.approx(DATA_IOPS, rel=0.001)
    assert jobs["log"]["bandwidth"] == pytest.approx(LOG_BYTES, rel=0.001)
    predicted = {r["resource"]: r["utilization"] for r in pred["resources"]}
    assert predicted["n2d-standard-8 pd-ssd limit"] == pytest.approx(shared, rel=0.02)
    assert predicted["n2d-standard-8 pd-ssd limit"] == pytest.approx(
        _resources(best)["n2d-standard-8 pd-ssd limit"], rel=0.02)


@pytest.mark.parametrize("old,new,field,message", [
    ("capacity: 256GiB}\n    caching: [none]", "capacity: 256GiB}\n    caching: [readonly]", "workloads.log.caching",
     "readonly only, but no disk searched has host caching (pd-balanced, pd-ssd, hyperdisk-extreme): add none"),
    ("iops: 10000,", "iops: lots,", "workloads.data.require.iops", "'lots' is not an operation rate"),
    ("skus: [pd-balanced, pd-ssd, hyperdisk-extreme]", "skus: [pd-ssd, gp3]", "search.skus[1]",
     "search.vms[0] n2-standard-* is a Google Cloud (gcp) machine type but search.skus[1] gp3 is an AWS (aws) disk"),
])
def test_bad_input_names_the_file_and_field(iolab, tmp_path, old, new, field, message):
    """Exit 2, naming the file and the field: host caching that no Google Cloud disk has, a
    malformed figure, parts of two clouds (refused as for one workload)."""
    text = EXAMPLE.read_text()
    assert old in text
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new))
    r = iolab("plan", path)
    assert r.code == 2
    assert f"error: {path}: {field}: {message}" in r.err
    assert "Traceback" not in r.err
