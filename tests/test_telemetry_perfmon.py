"""Windows PerfMon CSV in every regional format reads the same figures
(tests/data/telemetry/perfmon: the same three rows in each format, see its README)."""

from __future__ import annotations

import pytest

from conftest import DATA

P = DATA / "telemetry" / "perfmon"
LOCALES = ["en-US", "en-US-grouped", "en-GB", "de-DE", "de-DE-semicolon", "fr-FR", "fr-FR-narrow", "de-CH", "ja-JP"]


def test_every_file_is_in_the_table():
    assert {f.name for f in P.glob("*.csv")} == {f"perfmon-{n}.csv" for n in LOCALES}


@pytest.mark.parametrize("locale", LOCALES)
def test_regional_format_reads_the_same_figures(iolab, locale):
    r = iolab("characterize", str(P / f"perfmon-{locale}.csv"), "--no-store", "--json")
    assert r.code == 0, r.err
    d = r.json()
    c = d["combined"]
    assert d["samples"] == 3 and d["interval"] == 15
    # reads 1,000.5 / 2,001 / 3,001.5 a second: P50 2,001; writes' bytes 250.25·3·65,536 at most
    assert c["read"]["iops"]["p50"] == pytest.approx(2001.0)
    assert c["write"]["iops"]["max"] == pytest.approx(750.75)
    assert c["read"]["bandwidth"]["max"] == pytest.approx(3001.5 * 8192)
    assert c["write"]["bandwidth"]["max"] == pytest.approx(750.75 * 65536)
    assert c["read"]["latency"]["p50"] == pytest.approx(0.0015)
    assert c["write"]["latency"]["p50"] == pytest.approx(0.004)
    assert c["queue_depth"]["p50"] == pytest.approx(2.5)
    assert c["utilization"]["p50"] == pytest.approx(0.4)


def test_values_that_read_either_way_are_refused(iolab, tmp_path):
    # every value "1,234"-shaped: a thousand and more, or one and a bit — iolab cannot tell
    text = (P / "perfmon-en-US.csv").read_text()
    head, *rows = text.splitlines()
    cells = ",".join(f'"{c}"' for c in ["11/27/2026 21:25:15.000"] + ["1,250"] * 8)
    f = tmp_path / "ambiguous.csv"
    f.write_text(head + "\n" + cells + "\n")
    r = iolab("characterize", str(f), "--no-store")
    assert r.code == 2
    assert f"error: {f}: line 2:" in r.err
    assert "cannot tell whether '1,250' has a decimal mark or a thousands separator" in r.err


def test_two_decimal_marks_in_one_file_are_refused(iolab, tmp_path):
    text = (P / "perfmon-de-DE.csv").read_text().replace('"0,001500"', '"0.001500"', 1)
    f = tmp_path / "mixed.csv"
    f.write_text(text)
    r = iolab("characterize", str(f), "--no-store")
    assert r.code == 2
    assert "not one regional format" in r.err
