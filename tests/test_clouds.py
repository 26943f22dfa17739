"""Clouds: every catalog row belongs to one cloud, every region to one cloud, and a scenario or
a requirements file draws its parts from one cloud (docs/catalog.md, "Clouds and regions")."""

from __future__ import annotations

import pytest

from conftest import ROOT

from iolab.catalog import bundled_catalog
from iolab.catalog.cloud import clouds, region_cloud
from iolab.catalog.prices import price_table
from iolab.errors import UnknownIdError

SHARE = """version: 1
clients: {{vm: {vm}}}
volumes:
  share: {{service: {service}, level: {level}, size: 100TiB}}
jobs:
  - {{rw: randread, bs: 8k, iodepth: 8}}
"""


def test_rows_carry_their_cloud(iolab):
    vms = iolab("catalog list vms --json --cloud azure").json()
    assert vms and all(v["cloud"] == "azure" and v["region"] == "eastus" for v in vms)
    gcp = iolab("catalog list services --json --cloud gcp").json()
    assert {s["id"] for s in gcp} == {"gcnv-flex", "gcnv-flex-custom", "gcnv-standard", "gcnv-premium", "gcnv-extreme"}
    assert all(s["cloud"] == "gcp" and s["region"] == "us-central1" for s in gcp)
    # without --cloud or --region: every cloud's rows, each priced in its cloud's default region
    every = {s["id"]: s for s in iolab("catalog list services --json").json()}
    assert every["anf-ultra"]["region"] == "eastus" and every["gcnv-extreme"]["region"] == "us-central1"
    assert every["gcnv-extreme"]["price_status"] == {"price_per_gib_month": "priced"}


def test_region_picks_its_cloud(iolab):
    rows = iolab("catalog list services --json --region europe-west3").json()
    assert rows and {r["cloud"] for r in rows} == {"gcp"}
    shown = iolab("catalog show gcnv-premium --json").json()
    assert shown["region"] == "us-central1" and shown["cloud"] == "gcp"


def test_region_of_another_cloud_is_refused(iolab):
    r = iolab("catalog list vms --cloud gcp --region eastus")
    assert r.code == 2
    assert r.err.startswith("error: --region: eastus is an Azure (azure) region, and --cloud gcp wants a Google "
                            "Cloud (gcp) region; nearest: ")
    assert "us-east1" in r.err
    r = iolab("catalog show gcnv-extreme --region westeurope")
    assert r.code == 2 and "westeurope is an Azure (azure) region" in r.err and "europe-west" in r.err


def test_unknown_region_names_the_nearest_of_every_cloud(iolab):
    r = iolab("catalog list vms --region us-centrl1")
    assert r.code == 2 and r.err.startswith("error: --region: unknown region 'us-centrl1'; nearest: us-central1")
    with pytest.raises(UnknownIdError):
        region_cloud("mars")
    r = iolab("catalog list vms --cloud gpc")
    assert r.code == 2 and "unknown cloud 'gpc'; nearest: gcp" in r.err


def test_each_region_belongs_to_one_cloud_and_the_price_table_uses_them():
    owner: dict[str, str] = {}
    for c in clouds().values():
        assert c.default_region in c.regions
        for r in c.regions:
            assert r not in owner, f"{r} is in {owner.get(r)} and {c.name}"
            owner[r] = c.name
    assert set(price_table().regions) <= set(owner)
    assert region_cloud("us-central1")[0].name == "gcp" and region_cloud("WestEurope") == (clouds()["azure"],
                                                                                          "westeurope")


def test_every_priced_row_is_priced_in_its_own_clouds_regions():
    cat, table = bundled_catalog(), price_table()
    for (section, ident, _), row in table.rows.items():
        cells = dict(zip(table.regions, row[7:]))
        home = getattr(cat, section)[ident].cloud if ident in getattr(cat, section) else None
        for region, cell in cells.items():
            if cell and home is not None:
                assert region_cloud(region)[0].name == home, f"{ident} ({home}) priced in {region}"


def test_scenario_mixing_clouds_is_refused(iolab, tmp_path):
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(SHARE.format(vm="Standard_D16s_v5", service="gcnv", level="extreme"))
    before = mixed.read_text()
    for command in ("check", "predict"):
        r = iolab(command, mixed)
        assert r.code == 2
        assert r.err.strip() == (f"error: {mixed}: volumes.share.service: clients.vm Standard_D16s_v5 is an Azure "
                                 "(azure) VM size but volumes.share.service gcnv-extreme is a Google Cloud (gcp) "
                                 "service level: a scenario's parts come from one cloud (rule: one-cloud)")
    assert mixed.read_text() == before
    one = tmp_path / "one.yaml"
    one.write_text(SHARE.format(vm="Standard_D16s_v5", service="anf", level="ultra"))
    assert iolab("check", one).code == 0
    # each cloud's own word for a VM's kind: Compute Engine's machine type
    mixed.write_text(SHARE.format(vm="n2-standard-32", service="anf", level="ultra"))
    r = iolab("check", mixed)
    assert r.code == 2 and ("clients.vm n2-standard-32 is a Google Cloud (gcp) machine type but "
                            "volumes.share.service anf-ultra is an Azure (azure) service level") in r.err


def test_requirements_mixing_clouds_is_refused(iolab, tmp_path):
    req = tmp_path / "req.yaml"
    req.write_text("version: 1\njobs: [{rw: randread, bs: 8k, iodepth: 16}]\nrequire: {iops: 10000}\n"
                   "search: {kind: share, vms: [Standard_D16s_v5], services: [anf, gcnv]}\n")
    for command in ("check", "plan"):
        r = iolab(command, req)
        assert r.code == 2
        assert ("search.vms[0] Standard_D16s_v5 is an Azure (azure) VM size but search.services[1] gcnv is a "
                "Google Cloud (gcp) service: a requirements file's parts come from one cloud (rule: one-cloud)") in r.err


def test_plan_region_must_be_the_parts_cloud(iolab):
    r = iolab("plan", ROOT / "examples" / "oltp-requirements.yaml", "--region", "us-central1")
    assert r.code == 2
    assert "us-central1 is a Google Cloud (gcp) region, and " in r.err
    assert "oltp-requirements.yaml (search.vms[0] Standard_D*s_v5, search.vms[1] Standard_DS13, ...) wants an Azure " \
        "(azure) region; nearest: " in r.err
    assert "centralus" in r.err.rpartition("nearest: ")[2]


def test_pool_plan_of_netapp_volumes_is_priced_in_google_cloud(iolab, tmp_path):
    req = tmp_path / "pool.yaml"
    req.write_text("version: 1\npool: {service: gcnv, level: premium, volumes: [{name: a, capacity: 4TiB, "
                   "bandwidth: 200MiB/s}]}\n")
    doc = iolab("plan", req, "--json").json()
    # 4 TiB of Premium at us-central1's $0.29420022 per GiB-month (the bundled table)
    assert doc["candidates"][0]["priced"] is True
    assert doc["candidates"][0]["monthly_cost"] == pytest.approx(4096 * 0.29420022, abs=0.01)
