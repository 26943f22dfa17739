"""Time-varying answers say so: when a credit bucket empties within the run, simulate gives
the burst and the sustained rates apart, with their times; when the run was too short, the
hint names the duration that would show the sustained rate, and that duration does."""

from __future__ import annotations

import re

import pytest

from conftest import DATA

P10 = DATA / "scenarios" / "p10-burst.yaml"   # 500 IOPS sustained, 3,500 on credits for 30 min


def test_a_bucket_that_empties_splits_burst_and_sustained(iolab):
    doc = iolab(f"simulate {P10} --duration 40m --json").json()
    assert doc["bucket_turns"] == [{"resource": "data: P10 #1", "event": "empties", "t": pytest.approx(1800, rel=0.01)}]
    burst, sustained = doc["credit_phases"]
    assert (burst["name"], sustained["name"]) == ("burst", "sustained")
    assert burst["iops"] == pytest.approx(3500, rel=0.01) and burst["duration"] == pytest.approx(1800, rel=0.01)
    assert sustained["iops"] == pytest.approx(500, rel=0.01) and sustained["duration"] == pytest.approx(600, rel=0.01)
    # the headline blends them by time, and the text says so instead of hinting at a longer run
    assert doc["iops"] == pytest.approx((3500 * 1800 + 500 * 600) / 2400, rel=0.01)
    text = " ".join(iolab(f"simulate {P10} --duration 40m").out.split())
    assert "emptied 30 m into the run: on burst credits 3,500 IOPS" in text
    assert "at the sustained rate 500 IOPS" in text and "for 10 m" in text
    assert "--duration" not in text


def test_a_run_too_short_names_the_duration_that_shows_the_sustained_rate(iolab):
    doc = iolab(f"simulate {P10} --duration 10m --json").json()
    assert doc["bucket_turns"] == [] and doc["credit_phases"] == []
    text = " ".join(iolab(f"simulate {P10} --duration 10m").out.split())
    hint = re.search(r"simulate --duration (\d+)m to see the sustained rate", text)
    assert hint, text
    longer = iolab(f"simulate {P10} --duration {hint.group(1)}m --json").json()
    assert [t["event"] for t in longer["bucket_turns"]] == ["empties"]
    assert longer["credit_phases"][1]["iops"] == pytest.approx(500, rel=0.01)
