"""Amazon EC2 and EBS: the published figures of the EBS pages, reproduced by predict.

Sources (awsdocs/amazon-ec2-user-guide at e3707c43): ebs-optimized.md (instance limits),
general-purpose.md (gp2, gp3), provisioned-iops.md (io1, io2, Block Express), hdd-vols.md
(st1, sc1), ebs-io-characteristics.md (IO accounting). Tolerance: 1 % on rates and durations
(the analytic engine is exact on throttles; the 1 % allows rounding of the pages' figures).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from iolab.catalog import bundled_catalog
from iolab.errors import RuleViolation
from iolab.units import GiB, MiB, TiB

ROOT = Path(__file__).resolve().parents[1]
REL = 0.01


def iolab(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iolab", *map(str, args)], capture_output=True, text=True, cwd=ROOT)


def json_of(*args: str | Path) -> dict:
    r = iolab(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def predict(scenario: str, tmp_path: Path) -> dict:
    path = tmp_path / "s.yaml"
    path.write_text(scenario)
    return json_of("predict", path)


def scenario(vm: str, disk: str, job: str) -> str:
    return (f"version: 1\nclients: {{vm: {vm}}}\nvolumes:\n  data:\n    disks:\n      - {disk}\n"
            f"jobs:\n  - {{name: j, {job}, ioengine: libaio, direct: 1, size: 100g}}\n")


def test_instance_baseline_binds_below_its_volume(tmp_path):
    # m6i.xlarge: 6,000 IOPS baseline (16 KiB), 40,000 for 30 minutes a day; the gp3 volume
    # takes 10,000: the instance binds at 6,000 sustained, the volume at 10,000 in the burst.
    out = predict((ROOT / "examples" / "aws-baseline-binds.yaml").read_text(), tmp_path)
    assert out["iops"] == pytest.approx(6000, rel=REL)
    assert out["bottleneck"]["resource"] == "m6i.xlarge EBS limit"
    assert out["burst"]["iops"] == pytest.approx(10000, rel=REL)


@pytest.mark.parametrize("size, baseline, seconds", [(100, 300, 2000), (334, 1002, 2703), (750, 2250, 7200)])
def test_gp2_burst_duration_from_its_bucket(tmp_path, size, baseline, seconds):
    # general-purpose.md's table: burst duration at 3,000 IOPS from 5.4 million credits.
    out = predict(scenario("m6i.4xlarge", f"{{sku: gp2, size: {size}GiB}}", "rw: randwrite, bs: 8k, iodepth: 64"),
                  tmp_path)
    assert out["iops"] == pytest.approx(baseline, rel=REL)
    assert out["burst"]["iops"] == pytest.approx(3000, rel=REL)
    assert out["burst"]["duration"] == pytest.approx(seconds, rel=REL)


def test_gp2_of_a_terabyte_does_not_burst(tmp_path):
    out = predict(scenario("m6i.4xlarge", "{sku: gp2, size: 1000GiB}", "rw: randread, bs: 8k, iodepth: 64"), tmp_path)
    assert out["iops"] == pytest.approx(3000, rel=REL)
    assert not out["burst"] or out["burst"]["iops"] == pytest.approx(3000, rel=REL)


@pytest.mark.parametrize("sku, iops, bs, mib_s", [
    ("io2", 2000, "256k", 500),        # peak throughput reached at 2,000 IOPS with 256 KiB IO
    ("io2", 32000, "16k", 500),        # 32,000 IOPS x 16 KiB = 500 MiB/s
    ("io2", 32000, "8k", 250),         # IOPS-bound: 32,000 x 8 KiB
    ("io2", 48000, "256k", 750),       # above 32,000 IOPS: 16 KiB per IOPS (the page's 48,000 -> 750 MiB/s)
    ("io2-bx", 16000, "256k", 4000),   # Block Express: 0.256 MiB/s per IOPS, 4,000 MiB/s at 16,000 IOPS
])
def test_io2_throughput_at_an_io_size(tmp_path, sku, iops, bs, mib_s):
    out = predict(scenario("r5b.24xlarge", f"{{sku: {sku}, size: 1TiB, iops: {iops}}}",
                           f"rw: randread, bs: {bs}, iodepth: 256"), tmp_path)
    assert out["bandwidth"] == pytest.approx(mib_s * MiB, rel=REL)


def test_io1_reaches_its_maximum_throughput_at_64000_iops():
    io1 = bundled_catalog().disk("io1")
    assert io1.caps(1280 * GiB, 64000) == (64000.0, 1000 * MiB)
    assert io1.caps(1280 * GiB, 32000) == (32000.0, 500 * MiB)
    with pytest.raises(RuleViolation, match="64,000 IOPS needs at least 1.25 TiB"):
        io1.caps(1000 * GiB, 64000)


def test_st1_bursts_for_large_sequential_io(tmp_path):
    # hdd-vols.md: a 1 TiB st1 bursts to 250 MiB/s, fills at 40 MiB/s and holds 1 TiB of credits.
    out = predict(scenario("m6i.8xlarge", "{sku: st1, size: 1TiB}", "rw: read, bs: 1m, iodepth: 8"), tmp_path)
    assert out["bandwidth"] == pytest.approx(40 * MiB, rel=REL)
    assert out["burst"]["bandwidth"] == pytest.approx(250 * MiB, rel=REL)
    assert out["burst"]["duration"] == pytest.approx(TiB / (210 * MiB), rel=REL)


def test_st1_merges_sequential_io_but_counts_random_io(tmp_path):
    # ebs-io-characteristics.md: sequential 128 KiB IOs merge into 1 MiB ones (the throughput
    # binds); random ones count one each against 500 IOPS (62.5 MiB/s at 128 KiB).
    seq = predict(scenario("m6i.8xlarge", "{sku: st1, size: 2TiB}", "rw: read, bs: 128k, iodepth: 32"), tmp_path)
    rnd = predict(scenario("m6i.8xlarge", "{sku: st1, size: 2TiB}", "rw: randread, bs: 128k, iodepth: 32"), tmp_path)
    assert seq["burst"]["bandwidth"] == pytest.approx(500 * MiB, rel=REL)
    assert seq["bandwidth"] == pytest.approx(80 * MiB, rel=REL)
    assert rnd["bandwidth"] == pytest.approx(500 * 128 * 1024, rel=REL)


def test_gp3_provisioning_at_its_ratio_limits():
    gp3 = bundled_catalog().disk("gp3")
    # 500 IOPS per GiB: 16,000 IOPS from 32 GiB; 0.25 MiB/s per IOPS: 1,000 MiB/s from 4,000 IOPS.
    assert gp3.caps(32 * GiB, 16000) == (16000.0, 125 * MiB)
    assert gp3.caps(8 * GiB, 4000, 1000 * MiB) == (4000.0, 1000 * MiB)
    with pytest.raises(RuleViolation, match="gp3 iops <= 500 per GiB"):
        gp3.caps(31 * GiB, 16000)
    with pytest.raises(RuleViolation, match="needs at least 3,996 IOPS"):
        gp3.caps(31 * GiB, 3000, 999 * MiB)
    with pytest.raises(RuleViolation, match="allows at most"):
        gp3.caps(100 * GiB, 3999, 1000 * MiB)


@pytest.mark.parametrize("vm, disk, bs, words", [
    # io2's throughput follows its IOPS: it is not provisioned
    ("m6i.4xlarge", "{sku: io2, size: 100GiB, iops: 5000, bandwidth: 300MiB/s}", "16k",
     ["volumes.data.disks[0]", "io2 bandwidth follows from iops"]),
    ("m6i.4xlarge", "{sku: gp2}", "16k", ["volumes.data.disks[0].size", "gp2"]),  # its baseline is per GiB
    ("m6i.xlarge", "{sku: P30}", "8k", ["m6i.xlarge is an AWS (aws) instance type", "P30 is an Azure (azure) disk"]),
], ids=["io2-bandwidth", "gp2-size", "clouds-mixed"])
def test_a_scenario_aws_cannot_build_is_refused_naming_the_field(tmp_path, vm, disk, bs, words):
    path = tmp_path / "s.yaml"
    path.write_text(scenario(vm, disk, f"rw: randread, bs: {bs}, iodepth: 8"))
    r = iolab("predict", path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("error: ") and all(w in r.stderr for w in words), r.stderr


def plan(path: Path) -> dict:
    return json_of("plan", path, "--region", "us-east-1")


def test_oltp_plan_on_aws_worked_by_hand(tmp_path):
    """The README's OLTP requirement (16,000 IOPS of 8 KiB, 70 % reads, 5 ms, 2 TiB) on AWS.

    By hand (us-east-1 prices of the catalog): the instance must carry 16,000 IOPS at most 80 %
    busy, so its EBS baseline must be at least 20,000 IOPS (a 30-minute burst does not count
    for a sustained requirement): m6a.4xlarge is the cheapest such type among those searched,
    0.6912 $/h x 730 = $504.58. gp3: eight 256 GiB volumes give the 2 TiB and 8 x 3,000 free
    IOPS = 24,000 (67 % busy), 2,048 GiB x $0.08 = $163.84, nothing provisioned above the free
    baseline: $668.42 a month. io2 for the same: 2,048 GiB x $0.125 = $256 plus 20,000 IOPS
    (16,000 at most 80 % busy) x $0.065 = $1,300: $2,060.58. gp3 wins because its 3,000 IOPS
    per volume are free and eight volumes already carry the load; io2 bills every IOPS."""
    out = plan(ROOT / "examples" / "aws-oltp-requirements.yaml")
    best = out["candidates"][0]
    assert best["config"]["vm"] == "m6a.4xlarge"
    assert {d["sku"] for d in best["config"]["disks"]} == {"gp3"}
    assert sum(d["count"] * d["size"] for d in best["config"]["disks"]) >= 2 * TiB
    assert best["monthly_cost"] == pytest.approx(0.6912 * 730 + 2048 * 0.08, abs=0.5)
    assert best["prediction"]["iops"] >= 16000 and best["prediction"]["latency"]["mean"] <= 0.005
    io2 = plan_in_process(ROOT / "examples" / "aws-oltp-requirements.yaml", "[io2]").plan.candidates[0]
    assert io2.monthly_cost == pytest.approx(0.6912 * 730 + 2048 * 0.125 + 20000 * 0.065, abs=1.0)
    assert io2.monthly_cost > 3 * best["monthly_cost"]


def plan_in_process(path: Path, skus: str | None = None, region: str = "us-east-1", pricing: str | None = None,
                    catalog: tuple[Path, ...] = ()):
    """The plan of the requirements at ``path`` with ``search.skus`` replaced by ``skus``."""
    from iolab.service.plan import PlanOptions, plan_text

    text = path.read_text()
    if skus is not None:
        text = text.replace("skus: [gp3, io2, gp2, st1, sc1]", f"skus: {skus}")
        assert f"skus: {skus}" in text
    return plan_text(text, path.name, catalog, PlanOptions(region=region, pricing=pricing), base=ROOT)


def test_reserved_pricing_on_aws_warns_without_rates_and_uses_given_ones():
    """No source publishes AWS reservation rates per type: under reserved-3y every candidate
    is unpriced and the plan warns, naming the model and the entry that prices a type. With
    the user's rates (tests/data/catalog/aws-reserved.yaml, example figures): m6a.4xlarge at
    0.30 $/h x 730 = $219.00 plus the eight gp3 volumes' $163.84 = $382.84 a month."""
    oltp = ROOT / "examples" / "aws-oltp-requirements.yaml"
    bare = plan_in_process(oltp, pricing="reserved-3y").to_json()
    (warning,) = [w for w in bare["warnings"] if w["field"] == "pricing.model"]
    assert "no AWS VM in the catalog has a reserved-3y rate" in warning["message"]
    assert "rates_per_hour: {reserved-3y: ...}" in warning["message"]
    assert bare["candidates"] and all(c["monthly_cost"] is None for c in bare["candidates"])
    assert any("rates_per_hour: {reserved-3y: ...}" in s for u in bare["unpriced"] for s in u["supply"])
    rated = plan_in_process(oltp, pricing="reserved-3y",
                            catalog=(ROOT / "tests" / "data" / "catalog" / "aws-reserved.yaml",)).to_json()
    assert not [w for w in rated["warnings"] if w["field"] == "pricing.model"]
    best = rated["candidates"][0]
    assert best["config"]["vm"] == "m6a.4xlarge" and best["bill"]["pricing"]["vm"] == "reserved-3y"
    assert best["monthly_cost"] == pytest.approx(0.30 * 730 + 2048 * 0.08, abs=0.01)


def test_oltp_plan_sizes_gp2_by_its_baseline_and_never_picks_hdd():
    """gp2 and the HDD volumes are searched too, and lose the OLTP requirement.

    By hand: gp2 gives 3 IOPS per GiB sustained; its burst to 3,000 IOPS lasts minutes, so
    the plan sizes it by the baseline: 16,000 IOPS at most 80 % busy need 20,000 IOPS, 6,667
    GiB, two volumes of 3,334 GiB (10,002 IOPS each): 6,668 GiB x $0.10 = $666.80, plus the
    m6a.4xlarge's $504.58: $1,171.38, against gp3's $668.42. st1 counts each random 8 KiB IO
    as one of its 500 IOPS: 27 volumes (the most an instance takes) give 13,500, short of 16,000."""
    gp2 = plan_in_process(ROOT / "examples" / "aws-oltp-requirements.yaml", "[gp2]").plan.candidates[0]
    (group,) = gp2.config.disks
    assert gp2.config.vm == "m6a.4xlarge" and group.sku == "gp2"
    assert group.count * group.size == pytest.approx(6668 * GiB, rel=0.001)
    assert gp2.monthly_cost == pytest.approx(0.6912 * 730 + 6668 * 0.10, abs=0.5)
    hdd = plan_in_process(ROOT / "examples" / "aws-oltp-requirements.yaml", "[st1, sc1]").plan
    assert not hdd.candidates and hdd.near_misses


def test_a_sequential_scan_plan_picks_st1_worked_by_hand():
    """200 MiB/s of 1 MiB sequential reads on 4 TiB (examples/aws-scan-requirements.yaml).

    By hand (us-east-1): the instance's EBS baseline must carry 209.7 MB/s at most 80 % busy:
    m6i.2xlarge (312.5 MB/s, 67 %) at 0.384 $/h x 730 = $280.32. st1 gives 40 MiB/s per TiB
    sustained (sequential IO merges into 1 MiB IOs, so its 500 IOPS do not bind): 250 MiB/s
    need 6.25 TiB, 6,400 GiB x $0.045 = $288.00, more than the 4 TiB asked for and still the
    cheapest: $568.32. sc1 (12 MiB/s per TiB): 20.8 TiB, two volumes of 10,667 GiB x $0.015 =
    $320.01, $600.33. gp3: the 4 TiB at $0.08 = $327.68, two volumes' free 125 MiB/s each
    carry it: $608.00."""
    out = plan(ROOT / "examples" / "aws-scan-requirements.yaml")
    best = out["candidates"][0]
    (group,) = best["config"]["disks"]
    assert best["config"]["vm"] == "m6i.2xlarge" and group["sku"] == "st1"
    assert group["count"] * group["size"] == pytest.approx(6400 * GiB, rel=0.001)
    assert group["bandwidth"] * group["count"] == pytest.approx(250 * MiB, rel=0.001)  # sustained, not the burst
    assert best["monthly_cost"] == pytest.approx(280.32 + 288.00, abs=0.05)
    assert best["bill"]["disks"] == pytest.approx(288.00, abs=0.05)
    assert best["prediction"]["bottleneck"]["kind"] == "disk"
    assert best["prediction"]["bottleneck"]["utilization"] == pytest.approx(0.8, abs=0.005)
    for skus, cost in (("[sc1]", 280.32 + 320.01), ("[gp3]", 280.32 + 327.68)):
        other = plan_in_process(ROOT / "examples" / "aws-scan-requirements.yaml", skus).plan.candidates[0]
        assert other.monthly_cost == pytest.approx(cost, abs=0.05)
        assert other.monthly_cost > best["monthly_cost"]


LOG = """version: 1
jobs: [{rw: write, bs: 16k, iodepth: 8, ioengine: libaio, direct: 1}]
require: {bandwidth: 100MB/s, capacity: 200GiB}
search: {kind: disks, vms: [m6i.2xlarge], skus: [%s], caching: [none]}
"""


def test_a_sequential_log_plan_provisions_io2_for_merged_ios_as_predict_counts_them(tmp_path):
    """A database log: 100 MB/s of 16 KiB sequential writes on 200 GiB, one io2 volume.

    EBS merges physically sequential IOs up to 256 KiB, so the volume counts 100 MB/s ÷
    262,144 B = 381.5 IOPS, not 6,104; io2's throughput is its IOPS × 256 KiB. At most 80 %
    busy: IOPS ≥ 381.47 / 0.8 = 476.8 → 477 (125.04 MB/s). By hand (us-east-1): m6i.2xlarge
    0.384 $/h × 730 = $280.32, 200 GiB × $0.125 = $25.00, 477 IOPS × $0.065 = $31.01:
    $336.33. Counted unmerged it would need 7,630 IOPS ($495.95). predict of the same
    volume finds the disk as busy as the plan said."""
    path = tmp_path / "log.yaml"
    path.write_text(LOG % "io2")
    best = plan(path)["candidates"][0]
    (group,) = best["config"]["disks"]
    assert (group["sku"], group["count"], group["iops"]) == ("io2", 1, 477)
    assert group["bandwidth"] == pytest.approx(477 * 256 * 1024, rel=1e-6)
    assert best["monthly_cost"] == pytest.approx(280.32 + 25.00 + 477 * 0.065, abs=0.01)
    util = best["prediction"]["bottleneck"]
    assert util["kind"] == "disk" and util["utilization"] == pytest.approx(100e6 / (477 * 262144), abs=0.001)
    scenario_path = tmp_path / "log-scenario.yaml"
    scenario_path.write_text(scenario("m6i.2xlarge", "{sku: io2, size: 200GiB, iops: 477}",
                                      "rw: write, bs: 16k, iodepth: 8, rate: 100000000"))
    figures = json_of("predict", scenario_path)
    disk = next(r for r in figures["resources"] if r["kind"] == "disk")
    assert disk["utilization"] == pytest.approx(util["utilization"], abs=0.002)
    # gp3: one volume's free 3,000 IOPS count the merged IOs (381 IOPS), its 125 MiB/s carry 76 %
    path.write_text((LOG % "gp3").replace("search: {", "search: {max_disks: 1, "))
    (gp3,) = plan(path)["candidates"][0]["config"]["disks"]
    assert (gp3["sku"], gp3["count"], gp3["iops"]) == ("gp3", 1, 3000)


def simulate(path: Path, *args: str) -> dict:
    return json_of("simulate", path, *args)


def assert_burst_then_baseline(series: list[dict], key: str, burst: float, baseline: float, ends: float,
                               step: float) -> None:
    """Every point of ``series`` up to ``ends`` seconds at ``burst``, every one from a step after at ``baseline``."""
    during = [p[key] for p in series if p["t"] <= ends]
    after = [p[key] for p in series if p["t"] > ends + step]
    assert len(during) == round(ends / step) and all(x == pytest.approx(burst, rel=REL) for x in during)
    assert after and all(x == pytest.approx(baseline, rel=REL) for x in after)


def test_simulate_an_instances_30_minute_burst():
    # m6i.large: 1,250 MB/s for 30 minutes from a full bucket, then its 81.25 MB/s baseline.
    out = simulate(ROOT / "examples" / "aws-instance-burst.yaml", "--duration", "40m", "--interval", "1m")
    assert_burst_then_baseline(out["series"], "bandwidth", 1250e6, 81.25e6, 1800, 60)


def test_simulate_a_gp2_volume_running_out_of_credits():
    # 100 GiB gp2: 3,000 IOPS for 2,000 s from 5.4 million credits, then its 300 IOPS baseline.
    out = simulate(ROOT / "examples" / "aws-gp2-burst.yaml", "--duration", "2500s", "--interval", "100s")
    assert_burst_then_baseline(out["series"], "iops", 3000, 300, 2000, 100)
    assert out["iops"] == pytest.approx((2000 * 3000 + 500 * 300) / 2500, rel=REL)
    # While it bursts the volume is ten times as busy as it sustains: the sentence says so
    # in those words, not "1000% busy" beside a table whose busy column reads 100 %.
    text = iolab("simulate", ROOT / "examples" / "aws-gp2-burst.yaml", "--duration", "100s").stdout
    assert ("Bottleneck: The disks limit it: data: gp2 #1 is busy at 1000.0% of its sustained rate, "
            "on burst credits.") in text


def test_aws_plan_takes_its_default_region_and_refuses_an_azure_one():
    assert json_of("plan", "examples/aws-oltp-requirements.yaml")["region"] == "us-east-1"
    r = iolab("plan", "examples/aws-oltp-requirements.yaml", "--region", "eastus")
    assert r.returncode == 2 and "us-east-1" in r.stderr


def test_catalog_lists_aws_rows_only_with_cloud_aws():
    rows = json_of("catalog", "list", "vms", "--cloud", "aws")
    assert len(rows) >= 500 and all(row["cloud"] == "aws" for row in rows)
    m6i = next(row for row in rows if row["id"] == "m6i.2xlarge")
    # ebs-optimized.md: 2,500 / 10,000 Mbit/s, 312.5 / 1,250 MB/s, 12,000 / 40,000 IOPS
    assert (m6i["uncached_iops"], m6i["uncached_bandwidth"]) == (12000, 312.5e6)
    assert (m6i["burst_iops"], m6i["burst_bandwidth"], m6i["burst_kind"]) == (40000, 1250e6, "credit")
    assert m6i["price_per_month"] == pytest.approx(0.384 * 730)


def test_each_cloud_names_a_vms_disk_cap_in_its_own_words(tmp_path):
    # Azure's "uncached" cap is an EC2 instance's EBS-optimized limit and a Compute Engine
    # machine's limit per disk type: the bottleneck sentence and a plan's reasons say so.
    out = iolab("predict", ROOT / "examples" / "aws-baseline-binds.yaml")
    assert "Bottleneck: The instance's EBS limit caps it: m6i.xlarge EBS limit is 100.0% busy." in out.stdout
    out = iolab("predict", ROOT / "examples" / "gce-pd-ssd.yaml")
    assert "Bottleneck: The machine's disk limit caps it: n2-standard-8 pd-ssd limit is 100.0% busy." in out.stdout
    path = tmp_path / "ds13.yaml"
    path.write_text(scenario("Standard_DS13", "{sku: P30, count: 8}", "rw: randread, bs: 8k, iodepth: 256"))
    out = iolab("predict", path)
    assert "Bottleneck: The VM's uncached limit caps it: Standard_DS13 uncached is" in out.stdout, out.stderr
    misses = plan(ROOT / "examples" / "aws-oltp-requirements.yaml")["near_misses"]
    reasons = " ".join(r for m in misses for r in m["lacks"])
    assert "the instance's EBS limit would be" in reasons and "uncached" not in reasons


def test_the_ranking_shows_one_layout_per_instance_and_volume_type():
    # eight, sixteen or ten gp3 volumes on m6a.4xlarge cost the same or cents more: one line,
    # the best; the runners-up are other instance types and volume types
    cands = plan(ROOT / "examples" / "aws-oltp-requirements.yaml")["candidates"]
    kinds = [(c["config"]["vm"], c["config"]["disks"][0]["sku"]) for c in cands]
    assert len(kinds) == 5 and len(set(kinds)) == 5
    assert kinds[:3] == [("m6a.4xlarge", "gp3"), ("m6i.4xlarge", "gp3"), ("r6i.4xlarge", "gp3")]
    assert [c["monthly_cost"] for c in cands] == sorted(c["monthly_cost"] for c in cands)


def test_several_workloads_on_one_instance_worked_by_hand():
    """tests/data/plan/aws-workloads.yaml: data 12,000 IOPS of 8 KiB (1 TiB), log 100 MB/s of
    64 KiB sequential writes (256 GiB), on m6i/m6a with gp3, io2 or gp2.

    By hand (us-east-1): the instance's EBS baseline must carry 12,000 + 1,526 IOPS at most 80 %
    busy: m6a.4xlarge (20,000 IOPS, 68 %) at 0.6912 $/h x 730 = $504.58 (m6a.2xlarge's 12,000
    IOPS would be 100 % busy with the data alone). Data: eight 128 GiB gp3 carry 12,000 IOPS at
    50 % of their free 3,000 each; log: one 256 GiB gp3, 100 MB/s of its free 131.1 MB/s (76 %).
    1,280 GiB x $0.08 = $102.40: $606.98."""
    out = plan(ROOT / "tests" / "data" / "plan" / "aws-workloads.yaml")
    best = out["candidates"][0]
    assert best["config"]["vm"] == "m6a.4xlarge"
    assert best["monthly_cost"] == pytest.approx(504.58 + 1280 * 0.08, abs=0.01)
    assert best["bill"]["disks"] == pytest.approx(102.40, abs=0.01)
    assert best["prediction"]["bottleneck"]["utilization"] == pytest.approx(100e6 / (125 * MiB), abs=0.002)
    reasons = " ".join(r for m in out["near_misses"] for r in m["lacks"])
    assert "m6a.2xlarge" in json.dumps(out["near_misses"]) and "the instance's EBS limit would be 100% busy" in reasons


def test_gp2_between_170_and_334_gib_holds_128_mib_s():
    # the EBS page: "larger than 170 GiB but smaller than 334 GiB deliver a maximum throughput of
    # 250 MiB/s if burst credits are available"; sustained, 128 MiB/s; from 334 GiB, 250 MiB/s
    gp2 = bundled_catalog().scaled["gp2"]
    assert [float(gp2.sustained(s * GiB)[1]) / MiB for s in (100, 170, 256, 333, 334, 1000)] == \
        [128, 128, 128, 128, 250, 250]
