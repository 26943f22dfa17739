"""Long output folds: alike resources collapse into one row with a count; --all lists them."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES

GCNV = EXAMPLES / "gcnv-extreme-qos.yaml"  # 4 n2-standard-16 clients × 16 connections


def _rows(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("│")]


def test_predict_folds_64_connections_into_one_row(iolab):
    folded = _rows(iolab(f"predict {GCNV}").out)
    full = _rows(iolab(f"predict {GCNV} --all").out)
    conn = [r for r in folded if "connection #" in r and "slots" not in r]
    # 4,500 MiB/s over 64 connections of 1.3 GB/s each: 4,718,592,000 / 64 / 1.3e9 = 5.7 %
    assert len(conn) == 1 and "64 × client *: analytics: connection #*" in conn[0] and "5.7%" in conn[0]
    assert len([r for r in full if "connection #" in r and "slots" not in r]) == 64
    # the connections and their slot limits (64 rows each, one folded), and each client's
    # network receive and cores (4 rows each, one folded)
    assert len(full) - len(folded) == 2 * 63 + 2 * 3
    assert any(r.startswith("│ 4 × client *: n2-standard-16 network receive") for r in folded)


def test_simulate_folds_alike_rows_and_adds_their_throttled_time(iolab):
    folded = _rows(iolab(f"simulate {GCNV} --ios 30000").out)
    full = _rows(iolab(f"simulate {GCNV} --ios 30000 --all").out)
    conn = [r for r in folded if "connection #*" in r and "slots" not in r]
    assert len(conn) == 1 and conn[0].split("│")[1].strip().startswith("64 ×")
    each = [float(r.split("│")[5]) for r in full if "connection #" in r and "slots" not in r]
    assert len(each) == 64
    assert float(conn[0].split("│")[5]) == pytest.approx(sum(each), rel=0.01, abs=0.01)


def test_different_resources_do_not_fold(iolab):
    rows = _rows(iolab(f"predict {EXAMPLES / 'sql-data-and-log.yaml'}").out)
    labels = [r.split("│")[1].strip() for r in rows]
    assert "4 × data: P30 #*" in labels and "2 × log: P20 #*" in labels
    assert "Standard_DS14 cached" in labels and "Standard_DS14 uncached" in labels


def test_fold_rule():
    from iolab.cli.common import fold

    rows = [["data: P30 #1", "disk", "62.3%"], ["data: P30 #2", "disk", "62.3%"], ["vm", "vm", "40.0%"],
            ["data: P30 #3", "disk", "61.0%"]]
    assert fold(rows) == [["2 × data: P30 #*", "disk", "62.3%"], ["vm", "vm", "40.0%"],
                          ["data: P30 #3", "disk", "61.0%"]]
    assert fold([["client 1: c #2", "x"], ["client 2: c #2", "x"]]) == [["2 × client *: c #2", "x"]]
