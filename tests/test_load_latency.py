"""A share's latency under load (docs/model.md, "Latency under load at the service").

The law: an extra delay of 0.95 ms × ((u − 0.3) / 0.7) above 30 % of the quota, nothing below,
0.95 ms at a full quota (services.yaml, fitted to Azure NetApp Files' Oracle tests). The
published curve (Oracle SLOB with Direct NFS on a 16 TiB Ultra volume, 2,048 MiB/s = 262,144
IOs/s of 8 KiB): read latency from about 0.5 ms at a light load to about 1.3 ms where the curve
bends, at about 165,000 reads/s (206,000 IOs/s with the writes, 79 % of the quota); 90 % of
the reads under 2 ms at the highest concurrency."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from iolab.catalog import load_catalog
from iolab.network import LoadLaw

ORACLE = EXAMPLES / "oracle-anf-dnfs.yaml"   # 16 Direct NFS processes, 80 % reads, 8 KiB
QUOTA = 2048 * 2**20 / 8192                  # 262,144 IOs/s
DEPTHS = (1, 2, 4, 8, 12, 15, 16, 24, 32, 64)


def law() -> LoadLaw:
    ll = load_catalog().service("anf", "ultra").load_latency
    assert ll is not None
    return LoadLaw("quota", ll.delay, ll.onset, ll.exponent)


def test_the_law_by_hand():
    """Nothing up to 30 %; 0.95 ms × (0.79 − 0.3) / 0.7 = 0.665 ms at 79 %; 0.95 ms at a full
    quota and beyond."""
    lw = law()
    assert lw.delay(0.0) == 0.0 and lw.delay(0.25) == 0.0 and lw.delay(0.3) == 0.0
    assert lw.delay(0.79) == pytest.approx(0.665e-3, rel=1e-9)
    assert lw.delay(0.65) == pytest.approx(0.475e-3, rel=1e-9)
    assert lw.delay(1.0) == pytest.approx(0.95e-3) and lw.delay(1.5) == pytest.approx(0.95e-3)


def test_the_worked_example_by_hand(iolab):
    """docs/model.md: 240 in flight (16 processes × iodepth 15) at 0.5 ms unloaded. Without the
    caps' small queues X (0.5 ms + 0.95 ms × (X / 262,144 − 0.3) / 0.7) = 240, a quadratic:
    X = 206,528 IOs/s (78.8 % of the quota), 0.662 ms of load delay, 1.162 ms in all. MVA,
    which adds the queues at the connections, the cores and the quota, gives a little less."""
    k = 0.95e-3 / 0.7
    a, b = 0.5e-3 - 0.3 * k, k / QUOTA
    x = 2 * 240 / (a + (a * a + 4 * b * 240) ** 0.5)
    assert x == pytest.approx(206_528, abs=1)
    assert law().delay(x / QUOTA) == pytest.approx(0.662e-3, abs=1e-6)
    doc = iolab("predict", ORACLE, "--json", "--sweep", "iodepth=15").json()["points"][0]
    assert doc["outstanding"] == 240
    assert doc["iops"] == pytest.approx(x, rel=0.01)
    assert doc["latency"]["mean"] == pytest.approx(240 / x, rel=0.01)
    load = doc["load_delay"][0]
    assert load["resource"] == "oradata: anf-ultra 16 TiB"
    assert load["utilization"] == pytest.approx(doc["iops"] / QUOTA, rel=1e-3)
    assert load["delay"] == pytest.approx(law().delay(load["utilization"]), rel=1e-3)


def test_the_oracle_curve(iolab):
    """The sweep of the Oracle example: read latency near 0.5 ms at a light load, about 1.3 ms
    (± 15 %) at 165,000 reads/s (79 % of the quota), latency and IOPS rising with the
    concurrency, and the volume's 2,048 MiB/s reached at high concurrency."""
    doc = iolab("predict", ORACLE, "--json", "--sweep", "iodepth=" + ",".join(map(str, DEPTHS))).json()
    points = doc["points"]
    reads = [(p["read"]["iops"], p["read"]["latency"]["mean"]) for p in points]
    assert reads[0][1] == pytest.approx(0.5e-3, rel=0.02)
    assert all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(reads, reads[1:]))
    # the read latency at 165,000 reads/s, between the two sweep points around it
    (x0, r0), (x1, r1) = next((a, b) for a, b in zip(reads, reads[1:]) if a[0] <= 165_000 <= b[0])
    at = r0 + (r1 - r0) * (165_000 - x0) / (x1 - x0)
    assert at == pytest.approx(1.3e-3, rel=0.15)
    # below the onset (30 % of the quota) the latency stays at the unloaded figure
    light = [r for x, r in reads if x / 0.8 < 0.3 * QUOTA]
    assert light and all(r == pytest.approx(0.5e-3, rel=0.02) for r in light)
    top = points[-1]
    assert top["bandwidth"] == pytest.approx(2048 * 2**20, rel=0.01) and top["bottleneck"]["kind"] == "service"
    assert all(p["iops"] <= doc["max_iops"] * (1 + 1e-9) for p in points)


def test_the_simulator_follows_the_same_curve(iolab, tmp_path):
    """At 79 % of the quota the simulator, which measures the quota's recent utilization as
    IOs go by, agrees with the analytic engine within 5 % (IOPS and mean latency), and 90 % of
    its reads take under 2 ms, as published."""
    path = tmp_path / "oracle-240.yaml"
    path.write_text(ORACLE.read_text().replace("iodepth: 64", "iodepth: 15"))
    predicted = iolab("predict", path, "--json").json()
    simulated = iolab("simulate", path, "--json", "--ios", "150000", "--ramp", "0.05").json()
    assert predicted["iops"] / QUOTA == pytest.approx(0.79, abs=0.02)
    assert simulated["iops"] == pytest.approx(predicted["iops"], rel=0.05)
    assert simulated["latency"]["mean"] == pytest.approx(predicted["latency"]["mean"], rel=0.05)
    assert simulated["read"]["latency"]["p90"] < 2e-3


def test_a_catalog_file_can_turn_it_off(iolab, tmp_path):
    """load_latency: {delay: 0} in a catalog file: the share's latency stays at its unloaded
    0.5 ms until the quota binds (the model without the mechanism). 64 in flight: about
    128,000 IOs/s, 49 % of the quota, where the law adds 0.95 ms x 0.19 / 0.7 = 0.26 ms less
    what the lower rate gives back."""
    cat = tmp_path / "flat.yaml"
    cat.write_text("services:\n  anf-ultra:\n    load_latency: {delay: 0}\n")
    flat = iolab("predict", ORACLE, "--json", "--sweep", "iodepth=4", "--catalog", cat).json()["points"][0]
    assert flat["latency"]["mean"] == pytest.approx(0.5e-3, rel=0.02)
    assert "load_delay" not in flat
    loaded = iolab("predict", ORACLE, "--json", "--sweep", "iodepth=4").json()["points"][0]
    assert loaded["latency"]["mean"] > 1.2 * flat["latency"]["mean"]
    assert loaded["load_delay"][0]["delay"] > 0.1e-3


def test_borrowed_laws_are_marked_as_assumptions():
    cat = load_catalog()
    for level in cat.services.values():
        assert level.load_latency is not None, level.id
        borrowed = level.service != "anf"
        assert level.is_assumed("load_latency") == borrowed, level.id
    assert set(cat.service("anf", "ultra").load_latency.assumptions) == {"onset", "exponent"}


def test_a_bad_law_is_refused_naming_the_field(iolab, tmp_path):
    cat = tmp_path / "bad.yaml"
    cat.write_text("services:\n  anf-ultra:\n    load_latency: {onset: 1.5}\n")
    r = iolab("predict", ORACLE, "--json", "--catalog", cat)
    assert r.code == 2 and r.out == ""
    assert "services.anf-ultra.load_latency.onset" in r.err and "Traceback" not in r.err


def test_the_catalog_shows_the_law_in_words(iolab):
    r = iolab("catalog", "show", "anf-ultra")
    assert r.code == 0, r.err
    text = " ".join(r.out.split())
    assert "none below 30%* of the quota, rising to 950 us at a full quota (exponent 1*)" in text
    borrowed = " ".join(iolab("catalog", "show", "gcnv-extreme").out.split())
    assert "rising to 950 us* at a full quota" in borrowed


@pytest.mark.parametrize("load", [
    ((1.0, LoadLaw("q", 0.95e-3, 0.3, 1.0), 1 / 262_144),),                                # a share
    ((1.0, LoadLaw("q", 2e-3, 0.2, 2.0), 1 / 200_000),),                                   # Newton
    ((0.5, LoadLaw("a", 1e-3, 0.3, 1.0), 1 / 100_000), (0.5, LoadLaw("b", 1e-3, 0.0, 1.0), 1 / 300_000)),
])
def test_the_throughput_and_its_load_delay_agree(load):
    """At each population step X (A + Σ p × delay(X c)) = n: the MVA's solution against a
    plain bisection, for a share's law, a convex law and two laws at once."""
    from iolab.analytic.load_delays import loaded_rate, rate_function

    def residual(x, n, a):
        return x * (a + sum(p * lw.delay(x * c) for p, lw, c in load)) - n

    for n, a in ((16, 0.5e-3), (128, 0.5e-3), (240, 0.5e-3), (600, 1e-3), (5000, 0.2e-3)):
        lo, hi = 0.0, n / a
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if residual(mid, n, a) < 0 else (lo, mid)
        assert loaded_rate(n, a, load) == pytest.approx(lo, rel=1e-9)
        assert rate_function(load)(n, a) == pytest.approx(lo, rel=1e-9)
