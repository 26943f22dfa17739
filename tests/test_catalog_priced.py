"""The bundled catalog a plan ranks by: at least 400 VM sizes, and in East US every size of a
current series (a ``_v3`` to ``_v6`` name) carries its pay-as-you-go price; a size without
one is named as missing in that region, never given another region's figure."""

from __future__ import annotations

import re


def test_eastus_lists_400_sizes_and_prices_every_current_one(iolab):
    r = iolab("catalog list vms --region eastus --json")
    assert r.code == 0, r.err
    vms = r.json()
    assert len(vms) >= 400
    current = [v for v in vms if re.search(r"_v[3-6]$", v["id"])]
    assert len(current) >= 350
    unpriced = [v["id"] for v in current if v["price_per_month"] is None]
    assert unpriced == []
    for v in vms:
        assert v["region"] == "eastus"
        if v["price_per_month"] is None:  # a retired size: missing here, not borrowed
            assert v["price_status"]["price_per_month"] in ("missing", "unpublished"), v["id"]
    # D4s_v5: $0.192 an hour in East US (Azure Retail Prices, via the bundled table) x 730 h
    d4 = next(v for v in vms if v["id"] == "Standard_D4s_v5")
    assert abs(d4["price_per_month"] - 0.192 * 730) < 0.01


def test_a_missing_price_is_shown_as_missing_in_the_table(iolab):
    r = iolab("catalog list vms --region eastus")
    assert r.code == 0, r.err
    gs5 = next(line for line in r.out.splitlines() if line.startswith("Standard_GS5 "))
    assert gs5.rstrip().endswith("missing")
