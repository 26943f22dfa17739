"""Every sysstat layout a user has, read from real captures (tests/data/telemetry/sysstat).

Each version's folder was captured in one session on one machine (see its README): the
sysstat of that version ran every iostat, sar and sadf option against the same seconds of
fio randrw IO on ``vda``. The expected totals are worked out here, independently of
iolab's readers, from the plainest layout of each family:

* sar's family (``sar``, ``sadf``, every option, every locale) reads one binary file, so
  each layout must give the totals of ``sadf -d`` (``;``-separated, summed below with the
  csv module) to the rounding of the layout (0.5 %; 2.5 % for ``-h``/``--human``, whose
  ``5.9M`` keeps two digits);
* iostat's family ran as separate processes over the same seconds: each layout must give
  the totals of plain ``iostat -x -t`` text (summed below) within 3 %.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from conftest import DATA

S = DATA / "telemetry" / "sysstat"
VERSIONS = ["10.2.1", "11.5.6", "11.7.4", "12.0.6", "12.6.1", "12.7.9"]

#: file -> (how it was made, family, tolerance)
LAYOUTS = {
    "iostat-x.txt": ("iostat -x (no times)", "iostat", 0.03),
    "iostat-x-t.txt": ("iostat -x -t", "iostat", 0.03),
    "iostat-x-k-t.txt": ("iostat -x -k -t", "iostat", 0.03),
    "iostat-x-m-t.txt": ("iostat -x -m -t", "iostat", 0.03),
    "iostat-x-t-p.txt": ("iostat -x -t -p ALL", "iostat", 0.03),
    "iostat-x-t-h.txt": ("iostat -x -t -h", "iostat", 0.03),
    "iostat-x-t-human.txt": ("iostat -x -t --human", "iostat", 0.03),
    "iostat-x-t-pretty.txt": ("iostat -x -t --pretty", "iostat", 0.03),
    "iostat-x-t-de_DE.txt": ("LC_ALL=de_DE.UTF-8 iostat -x -t", "iostat", 0.03),
    "iostat-x-t.json": ("iostat -x -t -o JSON", "iostat", 0.03),
    "sar-d.txt": ("sar -d", "sar", 0.005),
    "sar-d-p.txt": ("sar -d -p", "sar", 0.005),
    "sar-d-h.txt": ("sar -d -h", "sar", 0.025),
    "sar-d-human.txt": ("sar -d --human", "sar", 0.025),
    "sar-d-pretty.txt": ("sar -d --pretty", "sar", 0.005),
    "sar-d-p-dec0.txt": ("sar -d -p --dec=0", "sar", 0.005),
    "sar-d-p-de_DE.txt": ("LC_ALL=de_DE.UTF-8 sar -d -p", "sar", 0.005),
    "sar-d-p-en_US.txt": ("LC_ALL=en_US.UTF-8 sar -d -p (12-hour clock)", "sar", 0.005),
    "sar-A.txt": ("sar -A (every activity)", "sar", 0.005),
    "sadf-d.csv": ("sadf -d -- -d -p", "sar", 0.005),
    "sadf-d-h.csv": ("sadf -d -h -- -d -p (one row per time)", "sar", 0.005),
    "sadf-d-T.csv": ("sadf -d -T -- -d (local time)", "sar", 0.005),
    "sadf-d-U.csv": ("sadf -d -U -- -d (epoch seconds)", "sar", 0.005),
    "sadf-d-de_DE.csv": ("LC_ALL=de_DE.UTF-8 sadf -d -- -d", "sar", 0.005),
    "sadf-j.json": ("sadf -j -- -d -p", "sar", 0.005),
    "sadf-p.txt": ("sadf -p -- -d -p", "sar", 0.005),
    "sadf-p-de_DE.txt": ("LC_ALL=de_DE.UTF-8 sadf -p -- -d", "sar", 0.005),
}
#: layouts without -p name devices by number before sysstat 12.6 (vda is 254:0)
NUMBERED = {"sar-d.txt", "sar-d-human.txt", "sadf-d-T.csv", "sadf-d-U.csv", "sadf-d-de_DE.csv", "sadf-p-de_DE.txt"}
REFUSED = {"iostat-x-t-s.txt"}   # iostat -s: reads and writes added together

CASES = [(v, f.name) for v in VERSIONS for f in sorted((S / v).iterdir()) if f.name in LAYOUTS]


def test_every_capture_is_in_the_table():
    for v in VERSIONS:
        names = {f.name for f in (S / v).iterdir()} - {"README.md"}
        assert names - set(LAYOUTS) <= REFUSED, (v, names - set(LAYOUTS))
        assert {"iostat-x-t.txt", "sadf-d.csv", "sar-d-p.txt", "sadf-j.json", "sadf-p.txt"} <= names


def _sadf_totals(path: Path, device: str) -> tuple[float, float, float]:
    """(IOs, bytes read, bytes written) of ``device`` in a ``sadf -d`` file."""
    ios = rd = wr = 0.0
    rows = [r for r in csv.reader(path.read_text().splitlines(), delimiter=";")]
    head = [c.lstrip("# ") for c in rows[0]]
    for r in rows[1:]:
        row = dict(zip(head, r))
        if row.get("DEV") != device:
            continue
        dt = float(row["interval"])
        ios += float(row["tps"]) * dt
        rd += (float(row["rkB/s"]) * 1024 if "rkB/s" in row else float(row["rd_sec/s"]) * 512) * dt
        wr += (float(row["wkB/s"]) * 1024 if "wkB/s" in row else float(row["wr_sec/s"]) * 512) * dt
    return ios, rd, wr


def _iostat_totals(path: Path, device: str) -> tuple[float, float, float, float]:
    """(reads, writes, bytes read, bytes written) of ``device`` in plain ``iostat -x -t``
    text taken at 1 s, leaving out the first report (since boot)."""
    reports: list[dict[str, float]] = []
    cols: list[str] = []
    for line in path.read_text().splitlines():
        w = line.split()
        if w and w[0].rstrip(":") == "Device":
            cols = w[1:]
        elif w and w[0] == device and cols:
            reports.append(dict(zip(cols, map(float, w[1:]))))
    reads = sum(r["r/s"] for r in reports[1:])
    writes = sum(r["w/s"] for r in reports[1:])
    return reads, writes, sum(r["rkB/s"] for r in reports[1:]) * 1024, sum(r["wkB/s"] for r in reports[1:]) * 1024


def _iolab_totals(iolab, path: Path, device: str) -> dict:
    args = ["characterize", str(path), "--no-store", "--json"]
    if path.name == "iostat-x.txt":
        args += ["--interval", "1s"]
    r = iolab(*args)
    assert r.code == 0, r.err
    d = r.json()
    dev = next(x for x in d["devices"] if x["name"] == device)
    n = dev["samples"] * d["interval"]
    return {"reads": dev["read"]["iops"]["mean"] * n, "writes": dev["write"]["iops"]["mean"] * n,
            "ios": dev["total"]["iops"]["mean"] * n, "rbytes": dev["read"]["bandwidth"]["mean"] * n,
            "wbytes": dev["write"]["bandwidth"]["mean"] * n, "samples": dev["samples"]}


@pytest.mark.parametrize("version,name", CASES, ids=[f"{v}/{n}" for v, n in CASES])
def test_layout_gives_the_totals_of_its_capture(iolab, version, name):
    how, family, tol = LAYOUTS[name]
    numbered = name in NUMBERED and tuple(map(int, version.split("."))) < (12, 6)
    device = "dev254-0" if numbered else "vda"
    got = _iolab_totals(iolab, S / version / name, device)
    if family == "sar":
        ios, rd, wr = _sadf_totals(S / version / "sadf-d.csv", "vda")
        assert got["samples"] == 9, how           # sadc 1 10: nine intervals
        assert got["ios"] == pytest.approx(ios, rel=tol), how
    else:
        reads, writes, rd, wr = _iostat_totals(S / version / "iostat-x-t.txt", "vda")
        assert got["samples"] == 9, how           # iostat 1 10, less the report since boot
        assert got["reads"] == pytest.approx(reads, rel=tol), how
        assert got["writes"] == pytest.approx(writes, rel=tol), how
    assert rd > 10e6 and wr > 10e6                # the fio run is in every capture
    assert got["rbytes"] == pytest.approx(rd, rel=tol), how
    assert got["wbytes"] == pytest.approx(wr, rel=tol), how


@pytest.mark.parametrize("version", ["12.6.1"])
def test_iostat_short_is_refused_with_the_reason(iolab, version):
    r = iolab("characterize", str(S / version / "iostat-x-t-s.txt"), "--no-store")
    assert r.code == 2
    assert "iostat-x-t-s.txt" in r.err and "iostat -s (short) adds reads and writes together" in r.err


def test_sar_12_6_device_name_last():
    # the layout the issue was filed on: sysstat 12.6's `sar -d -p` prints DEV last
    header = next(l for l in (S / "12.6.1" / "sar-d-p.txt").read_text().splitlines() if "tps" in l)
    assert re.search(r"%util DEV$", header)
