"""Plans as a buyer pays and with a real workload's constraints: `pricing:` and `require.vm:`.
Expected answers are worked out by hand from the bundled East US prices (the price table's
hourly figures x 730 hours) and the VM rows' limits."""

from __future__ import annotations

import json
import math

import pytest

from conftest import DATA, EXAMPLES

HOURS = 730
P30 = 135.17  # zombiescan disk table, eastus, one P30 a month


def _plan(iolab, tmp_path, text: str, *extra: str):
    path = tmp_path / "req.yaml"
    path.write_text(text)
    r = iolab("plan", str(path), "--json", *extra)
    assert r.code == 0, r.err
    return r.json()


def _oltp(tmp_path, vm: str) -> str:
    text = (EXAMPLES / "oltp-requirements.yaml").read_text()
    return text.replace("  capacity: 2TiB\n", f"  capacity: 2TiB\n  vm: {vm}\n")


SMALL = """version: 1
jobs: [{rw: randread, bs: 8k}]
require: {iops: 4000, latency: 10ms, capacity: 1TiB%s}
search: {kind: disks, vms: [%s], skus: [P30]}
"""


def test_an_amd_size_wins_at_its_linux_price(iolab, tmp_path):
    # Easv5 sizes and E4s/E8s/E16s_v5 with at least 64 GiB: E8as_v5 (64 GiB) at its Linux 0.452 $/h =
    # $329.96 against E8s_v5 at 0.504 $/h = $367.92 (E4 sizes have 32 GiB). The table's
    # source had E8as_v5 at its Windows price, 0.820 $/h ($598.60), where E8s_v5 would win.
    # (the constrained-core E8-4as_v5 has E8as_v5's price: require.vm.exclude leaves it out)
    doc = _plan(iolab, tmp_path, SMALL % (', vm: {min_memory: 64GiB, exclude: ["Standard_E*-*"]}', '"Standard_E*as_v5", Standard_E4s_v5, Standard_E8s_v5, Standard_E16s_v5'))
    first = doc["candidates"][0]
    assert first["config"]["vm"] == "Standard_E8as_v5"
    assert first["bill"]["vm"] == pytest.approx(0.452 * HOURS, abs=0.01)
    assert first["monthly_cost"] == pytest.approx(0.452 * HOURS + P30, abs=0.01)
    assert first["config"]["arch"] == "x86_64" and first["config"]["vcpus"] == 8
    assert first["config"]["memory"] == 64 * 2**30


def test_arch_and_memory_change_the_oltp_answer(iolab, tmp_path):
    # The example's answer is Standard_D16pls_v5 (Arm, 32 GiB) + 3 x P30 at $802.63. With
    # x86_64 and 64 GiB at least, the Dplsv5/Dpsv5 (Arm) and Dlsv5 (32 GiB) sizes go; the
    # cheapest 16-vCPU size left is D16as_v5, 0.688 $/h: $502.24 + 3 x $135.17 = $907.75.
    before = _plan(iolab, tmp_path, (EXAMPLES / "oltp-requirements.yaml").read_text())
    assert before["candidates"][0]["config"]["vm"] == "Standard_D16pls_v5"
    assert before["candidates"][0]["config"]["arch"] == "arm64"
    after = _plan(iolab, tmp_path, _oltp(tmp_path, "{arch: x86_64, min_memory: 64GiB}"))
    first = after["candidates"][0]
    assert first["config"]["vm"] == "Standard_D16as_v5" and first["config"]["arch"] == "x86_64"
    assert first["monthly_cost"] == pytest.approx(0.688 * HOURS + 3 * P30, abs=0.01)
    assert all(c["config"]["arch"] == "x86_64" and c["config"]["memory"] >= 64 * 2**30 for c in after["candidates"])


def test_the_arm_answer_is_said_with_the_cheapest_x86_beside_it(iolab):
    r = iolab(f"plan {EXAMPLES / 'oltp-requirements.yaml'}")
    assert r.code == 0
    # #3 of the example, D16ls_v5 (0.68 $/h = $496.40) + 3 x P30 = $901.91, is the cheapest x86_64
    assert ("Arm (arm64): Standard_D16pls_v5 is an Arm VM" in r.out.replace("\n", " ")
            and "$901.91/month (#3)" in r.out.replace("\n", " "))


def test_licensed_cores_make_a_constrained_core_size_win(iolab, tmp_path):
    # 20,000 IOPS need E16s_v5's 25,600 uncached IOPS (E8s_v5 has 12,800). E16s_v5 and its
    # constrained-core sizes E16-8s_v5 and E16-4s_v5 keep its limits and its price, 1.008 $/h
    # = $735.84. With a licence of $150 per core a month: E16s_v5 $735.84 + 16 x 150 =
    # $3,135.84, E16-4s_v5 $735.84 + 4 x 150 = $1,335.84: the 4-core size wins.
    text = """version: 1
jobs: [{rw: randread, bs: 8k}]
require: {iops: 20000, latency: 10ms, capacity: 1TiB, vm: {licensed_cores: 150}}
search: {kind: disks, vms: [Standard_E8s_v5, Standard_E16s_v5, Standard_E16-8s_v5, Standard_E16-4s_v5], skus: [P30], max_disks: 8}
"""
    doc = _plan(iolab, tmp_path, text)
    first = doc["candidates"][0]
    assert first["config"]["vm"] == "Standard_E16-4s_v5" and first["config"]["vcpus"] == 4
    disks = sum(g["count"] for g in first["config"]["disks"]) * P30
    assert first["bill"]["vm"] == pytest.approx(1.008 * HOURS + 4 * 150, abs=0.01)
    assert first["monthly_cost"] == pytest.approx(1.008 * HOURS + 4 * 150 + disks, abs=0.01)
    assert first["bill"]["pricing"]["licensed_cores"] == 150
    # without the licence the three sizes cost the same; E16s_v5 carries 16 cores of it
    doc = _plan(iolab, tmp_path, text.replace("licensed_cores: 150", "licensed_cores: 0").replace(
        "Standard_E16-8s_v5, Standard_E16-4s_v5", "Standard_E16-8s_v5"), "--top", "20")
    full = next(c for c in doc["candidates"] if c["config"]["vm"] == "Standard_E16s_v5")
    assert full["bill"]["vm"] == pytest.approx(1.008 * HOURS, abs=0.01)


def test_reserved_rates_change_the_winner(iolab, tmp_path):
    # Reserved rates imported from a saved Retail Prices page (tests/data: type Reservation,
    # reservationTerm "3 Years", the price of the whole term): D16pls_v5 $8,672.40 / 26,280 h
    # = 0.330 $/h, D16ls_v5 $7,884 / 26,280 h = 0.300 $/h; other sizes have no reserved-3y
    # rate and are unpriced under that model. Pay-as-you-go D16pls_v5 wins ($802.63); reserved
    # for 3 years D16ls_v5 does: 0.300 x 730 + 3 x 135.17 = $624.51 against $646.41.
    rates = tmp_path / "reserved.yaml"
    r = iolab(f"catalog import-prices {DATA / 'catalog' / 'retail' / 'eastus-reserved.json'} -o {rates}")
    assert r.code == 0, r.err
    assert "reserved-3y: 0.3" in rates.read_text() and "reserved-1y: 0.4" in rates.read_text()  # 3504 / 8760
    text = (EXAMPLES / "oltp-requirements.yaml").read_text()
    payg = _plan(iolab, tmp_path, text, "--catalog", str(rates))
    assert payg["candidates"][0]["config"]["vm"] == "Standard_D16pls_v5"
    assert payg["candidates"][0]["bill"]["pricing"] == {"vm": "payg", "disks": "payg", "shares": "payg"}
    doc = _plan(iolab, tmp_path, text + "pricing: {model: reserved-3y}\n", "--catalog", str(rates))
    first = doc["candidates"][0]
    assert first["config"]["vm"] == "Standard_D16ls_v5"
    assert first["monthly_cost"] == pytest.approx(0.300 * HOURS + 3 * P30, abs=0.01)
    assert first["bill"]["pricing"] == {"vm": "reserved-3y", "disks": "payg", "shares": "payg"}
    second = doc["candidates"][1]
    assert second["config"]["vm"] == "Standard_D16pls_v5"
    assert second["monthly_cost"] == pytest.approx(0.330 * HOURS + 3 * P30, abs=0.01)


def test_a_discount_per_part(iolab, tmp_path):
    # 20 % off the VM, 10 % off the disks: D16pls_v5 $397.12 x 0.8 + $405.51 x 0.9 = $682.65
    text = (EXAMPLES / "oltp-requirements.yaml").read_text() + "pricing: {discount: {vm: 20%, disks: 0.1}}\n"
    first = _plan(iolab, tmp_path, text)["candidates"][0]
    assert first["monthly_cost"] == pytest.approx(397.12 * 0.8 + 405.51 * 0.9, abs=0.01)
    assert first["bill"]["pricing"]["discount"] == {"vm": 0.2, "disks": 0.1, "shares": 0.0}


@pytest.mark.parametrize("text, field", [
    ("pricing: {model: reserved-5y}\n", "pricing.model"),
    ("pricing: {discount: {vm: 1.5}}\n", "pricing.discount.vm"),
    ("pricing: {discount: {cpu: 0.1}}\n", "pricing.discount.cpu"),
])
def test_bad_pricing_names_file_and_field(iolab, tmp_path, text, field):
    path = tmp_path / "req.yaml"
    path.write_text((EXAMPLES / "oltp-requirements.yaml").read_text() + text)
    r = iolab("plan", str(path))
    assert r.code == 2 and str(path) in r.err and field in r.err


def test_bad_vm_requirement_names_the_field(iolab, tmp_path):
    path = tmp_path / "req.yaml"
    path.write_text(_oltp(tmp_path, "{arch: sparc}"))
    r = iolab("plan", str(path))
    assert r.code == 2 and "require.vm.arch" in r.err
    path.write_text(_oltp(tmp_path, "{min_vcpus: 16, max_vcpus: 8}"))
    r = iolab("plan", str(path))
    assert r.code == 2 and "require.vm" in r.err and "min_vcpus 16 is above max_vcpus 8" in r.err


def test_pricing_option_overrides_the_model(iolab, tmp_path):
    # --pricing reserved-3y on plan is pricing: {model: reserved-3y}; on catalog show and list
    # the VM's price_per_month is its reserved rate (D16ls_v5: 0.300 $/h x 730 = $219)
    rates = tmp_path / "reserved.yaml"
    assert iolab(f"catalog import-prices {DATA / 'catalog' / 'retail' / 'eastus-reserved.json'} -o {rates}").code == 0
    doc = _plan(iolab, tmp_path, (EXAMPLES / "oltp-requirements.yaml").read_text(), "--catalog", str(rates),
                "--pricing", "reserved-3y")
    assert doc["candidates"][0]["config"]["vm"] == "Standard_D16ls_v5"
    shown = iolab(f"catalog show Standard_D16ls_v5 --catalog {rates} --pricing reserved-3y --json").json()
    assert shown["price_per_month"] == pytest.approx(219.0) and shown["pricing"] == "reserved-3y"
    rows = iolab(f"catalog list vms --catalog {rates} --pricing reserved-3y --json").json()
    d16s = next(r for r in rows if r["id"] == "Standard_D16s_v5")
    assert d16s["price_per_month"] is None   # no reserved rate: unpriced, never the pay-as-you-go price
    r = iolab("catalog show Standard_D16s_v5 --pricing reserved-3y")
    assert "no reserved-3y rate" in r.out
    r = iolab("catalog show Standard_D16s_v5 --pricing reserved-5y")
    assert r.code == 2 and "--pricing" in r.err
    r = iolab("catalog show nfs3 --pricing reserved-3y")
    assert r.code == 2 and "--pricing" in r.err


def test_azure_files_provisioned_prices_from_imported_pages(iolab, tmp_path):
    # Hand-written Retail Prices items (tests/data): Premium Files "Premium LRS Provisioned"
    # $0.16 per GiB-month; Azure Files Provisioned v2 "SSD LRS Provisioned Storage" $0.0001 per
    # GiB-hour, "... IOPS" $0.00001 per IOPS-hour, "... Throughput MiBPS" $0.0001 per MiB/s-hour
    # (x 730: 0.073, 0.0073, 0.073 a month); the Ultra per-vCPU reservation meter is skipped.
    prices = tmp_path / "files.yaml"
    r = iolab(f"catalog import-prices {DATA / 'catalog' / 'retail' / 'eastus-files.json'} -o {prices}")
    assert r.code == 0 and "1 Ultra reservation per vCPU" in r.err
    assert "azure-files-premium-v2: {price_per_gib_month: 0.073, price_per_iops_month: 0.0073, " \
           "price_per_mibps_month: 0.073}" in prices.read_text()
    text = """version: 1
jobs: [{rw: randread, bs: 64k}]
require: {bandwidth: 200MiB/s, capacity: 1TiB}
search: {kind: share, services: [azure-files], levels: [premium, premium-v2], protocols: [nfs4.1]}
"""
    doc = _plan(iolab, tmp_path, text, "--catalog", str(prices))
    first = doc["candidates"][0]
    assert first["config"]["level"] == "premium-v2"
    gib = first["config"]["size"] / 2**30
    mibps = 100 + math.ceil(0.1 * gib)              # the recommended throughput of provisioned v2
    iops = 3000 + gib                               # and its recommended IOPS
    assert first["config"]["throughput"] == mibps * 2**20
    assert first["bill"]["shares"] == pytest.approx(gib * 0.073, abs=0.01)
    assert first["bill"]["provisioned"] == pytest.approx(iops * 0.0073 + mibps * 0.073, abs=0.01)
    v1 = doc["candidates"][1]
    assert v1["config"]["level"] == "premium"
    assert v1["monthly_cost"] == pytest.approx(math.ceil(v1["config"]["size"] / 2**30) * 0.16, abs=0.01)


def test_savings_plan_rates_come_from_the_pages_savings_plan_list(iolab, tmp_path):
    # The page's pay-as-you-go D16ls_v5 item lists savingsPlan rates: 3 years 0.37 $/h, 1 year
    # 0.52 $/h. Under savings-3y only D16ls_v5 has a rate: 0.37 x 730 + 3 x 135.17 = $675.61.
    rates = tmp_path / "rates.yaml"
    assert iolab(f"catalog import-prices {DATA / 'catalog' / 'retail' / 'eastus-reserved.json'} -o {rates}").code == 0
    assert "savings-1y: 0.52, savings-3y: 0.37" in rates.read_text()
    doc = _plan(iolab, tmp_path, (EXAMPLES / "oltp-requirements.yaml").read_text(), "--catalog", str(rates),
                "--pricing", "savings-3y")
    first = doc["candidates"][0]
    assert first["config"]["vm"] == "Standard_D16ls_v5"
    assert first["monthly_cost"] == pytest.approx(0.37 * HOURS + 3 * P30, abs=0.01)
    assert first["bill"]["pricing"]["vm"] == "savings-3y"


def test_a_malformed_savings_plan_names_the_item(iolab, tmp_path):
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"Items": [{
        "currencyCode": "USD", "retailPrice": 0.68, "unitPrice": 0.68, "armRegionName": "eastus",
        "effectiveStartDate": "2026-01-01T00:00:00Z", "meterName": "D16ls v5",
        "productName": "Virtual Machines Dlsv5 Series", "skuName": "D16ls v5", "serviceName": "Virtual Machines",
        "armSkuName": "Standard_D16ls_v5", "unitOfMeasure": "1 Hour", "type": "Consumption",
        "savingsPlan": [{"retailPrice": "0.37", "term": "3 Years"}]}]}))
    r = iolab(f"catalog import-prices {page}")
    assert r.code == 2 and f"{page}: Items[0].savingsPlan[0].retailPrice: expected a price" in r.err


def test_several_workloads_on_an_arm_vm_get_the_note_in_every_rendering(iolab, tmp_path):
    # The SQL example's #1 is Standard_D16pls_v5 (Arm); SQL Server does not run there. The note
    # names the cheapest x86_64 answer: the first x86_64 candidate of the full plan, and with
    # --top 1 (none shown) the same answer planned again with require.vm.arch x86_64.
    from iolab.catalog import load_catalog

    arch = {k: v.arch for k, v in load_catalog().vms.items()}
    path = str(EXAMPLES / "sql-workloads-requirements.yaml")
    whole = iolab("plan", path, "--json")
    assert whole.code == 0, whole.err
    cands = whole.json()["candidates"]
    assert arch[cands[0]["config"]["vm"]] == "arm64"
    x86 = next(c for c in cands if arch[c["config"]["vm"]] == "x86_64")
    from iolab.plan.labels import config_label

    named = f"The cheapest x86_64 answer is {config_label(x86['config'])} at ${x86['monthly_cost']:,.2f}/month"
    [note] = cands[0]["notes"]
    assert note.startswith("Arm (arm64): Standard_D16pls_v5 is an Arm VM; software built only for x86_64")
    assert f"{named} (#{x86['rank']})" in note
    alone = iolab("plan", path, "--json", "--top", "1")
    assert alone.code == 0, alone.err
    [again] = alone.json()["candidates"][0]["notes"]
    assert f"{named}." in again and "(#" not in again
    text = iolab("plan", path)
    assert text.code == 0, text.err
    assert f"note: {note}" in text.out
    report = tmp_path / "plan.html"
    r = iolab("report", "plan", path, "-o", str(report))
    assert r.code == 0, r.err
    import html

    assert f"Note: {note}" in html.unescape(report.read_text())


def test_several_workloads_show_one_layout_per_vm_and_disk_type(iolab, tmp_path):
    # Premium SSD v2 on Esv5 sizes: one, two, four or eight log disks on the same VM cost the
    # same (each takes the free 3,000 IOPS and 125 MB/s): the ranking shows the VM once, at its
    # best layout, and the runners-up are other VM sizes
    text = """version: 1
workloads:
  data:
    jobs: [{rw: randrw, rwmixread: 80, bs: 8k, iodepth: 32, numjobs: 4, ioengine: libaio}]
    require: {iops: 12000, latency: 5ms, capacity: 1TiB}
    caching: [none]
  log:
    jobs: [{rw: write, bs: 64k, iodepth: 4, ioengine: libaio}]
    require: {bandwidth: 100MB/s, latency: 3ms, capacity: 256GiB}
    caching: [none]
search: {kind: disks, vms: ["Standard_E*s_v5"], skus: [premium-v2]}
"""
    doc = _plan(iolab, tmp_path, text)
    cands = doc["candidates"]
    assert len(cands) == 5 and len({c["config"]["vm"] for c in cands}) == 5
    assert [c["monthly_cost"] for c in cands] == sorted(c["monthly_cost"] for c in cands)
    assert _plan(iolab, tmp_path, text, "--top", "1")["candidates"][0]["monthly_cost"] == cands[0]["monthly_cost"]
