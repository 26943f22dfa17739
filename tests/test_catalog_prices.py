"""Prices per region: `Catalog.in_region`, `--region` on `catalog list/show`, the user's own
prices. Expected figures are read by hand off the saved source extracts
(tools/catalog/sources/prices/): hourly VM prices times 730 hours."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import DATA, ROOT

from iolab.catalog import bundled_catalog
from iolab.errors import UnknownIdError

PRIVATE = DATA / "catalog" / "private-prices.yaml"


def _vm(rows, ident):
    return next(r for r in rows if r["id"] == ident)


def test_known_vm_price_per_region(iolab):
    # karpenter table: Standard_D4s_v5 0.192 $/h in eastus, 0.230 in westeurope
    east = _vm(iolab("catalog list vms --json").json(), "Standard_D4s_v5")
    assert east["region"] == "eastus"
    assert east["price_per_month"] == pytest.approx(0.192 * 730, abs=1e-9)
    assert east["price_status"] == {"price_per_month": "priced"}
    west = _vm(iolab("catalog list vms --json --region westeurope").json(), "Standard_D4s_v5")
    assert west["price_per_month"] == pytest.approx(0.230 * 730, abs=1e-9)
    # the published price is no assumption any more
    assert "price_per_month" not in west["assumptions"]


def test_known_disk_prices_per_region():
    # zombiescan disk table (secondary): P30 LRS 135.17 $/month in eastus, 163.548 in uksouth;
    # Premium SSD v2 0.08103 $/GiB-month in eastus; Ultra 0.11972 $/GiB-month in eastus, which
    # infracost's golden file confirms independently: 2,048 GiB cost $245.19 (245.19 / 2048).
    cat = bundled_catalog()
    assert cat.in_region("eastus").disk("P30").price_per_month == 135.17
    assert cat.in_region("uksouth").disk("P30").price_per_month == 163.548
    assert cat.in_region("eastus").disk("premium-v2").price_per_gib_month == 0.08103
    ultra = cat.in_region("eastus").disk("ultra")
    assert ultra.price_per_gib_month == pytest.approx(245.19 / 2048, rel=2e-4)
    # infracost: 4,000 IOPS cost $198.56, 20 MB/s $6.99 a month
    assert ultra.price_per_iops_month == pytest.approx(198.56 / 4000, abs=1e-12)
    assert ultra.price_per_mbps_month == pytest.approx(6.99 / 20, abs=1e-12)


def test_a_price_the_region_lacks_is_missing_not_borrowed(iolab):
    cat = bundled_catalog()
    west = cat.in_region("westeurope")
    # Ultra per IOPS is published for eastus only: westeurope gets None, not eastus's figure
    assert cat.in_region("eastus").disk("ultra").price_per_iops_month is not None
    assert west.disk("ultra").price_per_iops_month is None
    assert west.price_status[("provisioned", "ultra", "price_per_iops_month")] == "missing"
    # Standard_GS5: 9.99 $/h in westeurope, absent from eastus's table
    assert west.vm("Standard_GS5").price_per_month == pytest.approx(9.99 * 730)
    assert cat.in_region("eastus").vm("Standard_GS5").price_per_month is None
    out = iolab("catalog show Standard_GS5").out
    assert "missing in eastus" in out
    listed = iolab("catalog list vms").out
    assert any(line.startswith("Standard_GS5 ") and line.rstrip().endswith("missing") for line in listed.splitlines())
    # Azure Files premium: westus only
    assert iolab("catalog show azure-files-premium --json --region westus").json()["price_per_gib_month"] == \
        pytest.approx(8.80 / 50)
    doc = iolab("catalog show azure-files-premium --json").json()
    assert doc["price_per_gib_month"] is None and doc["price_status"] == {"price_per_gib_month": "missing"}


def test_unpublished_prices_say_so(iolab):
    # Premium SSD v2 per IOPS is in no source; Lab_Client_16 (the user's own size) has no price
    doc = iolab("catalog show premium-v2 --json").json()
    assert doc["price_per_iops_month"] is None
    assert doc["price_status"]["price_per_iops_month"] == "unpublished"
    out = iolab(f"catalog show Lab_Client_16 --catalog {PRIVATE}").out
    assert "no published price in any region" in out


def test_unknown_region_exits_2_with_nearest_names(iolab):
    r = iolab("catalog list vms --region eastu")
    assert r.code == 2 and r.out == ""
    assert r.err.strip() == "error: --region: unknown region 'eastu'; nearest: eastus, eastus2, westus"
    with pytest.raises(UnknownIdError):
        bundled_catalog().in_region("mars")
    assert iolab("catalog show P30 --json --region WestEurope").json()["price_per_month"] == 148.68


def test_user_catalog_prices_are_kept_in_every_region(iolab):
    for region in ("eastus", "westeurope"):
        p30 = iolab(f"catalog show P30 --json --catalog {PRIVATE} --region {region}").json()
        assert p30["price_per_month"] == 120 and p30["price_status"] == {"price_per_month": "own"}
        ds13 = _vm(iolab(f"catalog list vms --json --catalog {PRIVATE} --region {region}").json(), "Standard_DS13")
        assert ds13["price_per_month"] == pytest.approx(1.2 * 730)
    # a field the user did not set still comes from the region
    v2 = iolab(f"catalog show premium-v2 --json --catalog {PRIVATE} --region westeurope").json()
    assert v2["price_per_gib_month"] == 0.08
    assert v2["price_status"] == {"price_per_gib_month": "own", "price_per_iops_month": "unpublished",
                                  "price_per_mbps_month": "unpublished"}


def test_in_region_leaves_the_catalog_it_was_called_on_alone():
    cat = bundled_catalog()
    before = cat.vm("Standard_D16s_v5").price_per_month
    cat.in_region("brazilsouth")
    assert cat.vm("Standard_D16s_v5").price_per_month == before and cat.region is None


def test_commands_without_prices_do_not_read_the_price_table(tmp_path):
    code = ("import sys; from iolab.cli import app; from iolab.cli.common import run;"
            "rc = run(app, ['predict', 'examples/oltp-ds13-p30.yaml', '--json']);"
            "print('iolab.catalog.prices' in sys.modules, rc, file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin",
                            "XDG_CACHE_HOME": str(tmp_path)})
    assert r.stderr.strip().splitlines()[-1] == "False 0"


@pytest.mark.parametrize("series", ["D{}s_v5", "D{}ds_v5", "D{}as_v5", "D{}s_v6", "E{}s_v5", "E{}s_v6",
                                    "E{}bs_v5", "F{}s_v2", "F{}as_v6", "L{}s_v3", "L{}as_v3"])
def test_current_series_are_priced_in_eastus(series):
    # The price table covers sizes beyond today's vms.yaml, so that a larger catalog of VM
    # sizes joins with it: every size of these current series has an East US price.
    from iolab.catalog.prices import price_table

    table = price_table()
    pattern = re.compile("Standard_" + series.replace("{}", r"\d+"))
    sizes = [k[1] for k in table.rows if k[0] == "vms" and pattern.fullmatch(k[1])]
    assert len(sizes) >= 6, sizes
    for size in sizes:
        price, status = table.lookup("vms", size, "price_per_hour", "eastus")
        assert status == "priced" and price.value > 0, size


def test_a_size_new_to_the_catalog_takes_its_price_from_the_table(iolab, tmp_path):
    # Standard_L8s_v3 is not in the bundled VM rows; a file adding its limits gets the
    # table's East US price, 0.696 $/h (karpenter table), with no price of its own.
    extra = tmp_path / "l8s.yaml"
    extra.write_text("vms:\n  Standard_L8s_v3: {vcpus: 8, memory: 64GiB, max_data_disks: 16, premium_storage: true,"
                     " uncached_iops: 12800, uncached_bandwidth: 290MB/s, source: test}\n")
    doc = iolab(f"catalog show Standard_L8s_v3 --json --catalog {extra}").json()
    assert doc["price_per_month"] == pytest.approx(0.696 * 730) and doc["price_status"] == {"price_per_month": "priced"}
