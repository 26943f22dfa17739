"""The price table's rows are split into cells only when looked up; they must be exactly what
the csv module reads, for the bundled table and for a table with quoted cells."""

from __future__ import annotations

import csv
import io
from importlib import resources

from iolab.catalog.prices import price_table, read_rows


def _by_csv(text: str):
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    return header, {(r[0], r[1], r[2]): tuple(r) for r in reader}


def test_bundled_table_reads_as_the_csv_module_reads_it():
    text = resources.files("iolab.catalog").joinpath("data", "prices", "prices.csv").read_text(encoding="utf-8")
    header, rows = read_rows(text)
    want_header, want = _by_csv(text)
    assert header == want_header and list(rows) == list(want) and len(rows) == len(want) > 1000
    assert {k: rows[k] for k in rows} == want
    table = price_table()
    assert table.regions == tuple(want_header[7:]) and table.rows.get(("vms", "no such size", "x")) is None


def test_quoted_cells_and_empty_ones_read_as_the_csv_module_reads_them():
    text = ('section,id,field,unit,currency,date,source,eastus,westus\r\n'
            'vms,Standard_X,price_per_hour,USD/hour,USD,2026-01-01,"a, b",0.5,\r\n'
            'disks,P30,price_per_month,USD/month,USD,2026-01-01,s,,135.17\r\n')
    header, rows = read_rows(text)
    assert (header, dict(rows)) == _by_csv(text)
    plain = text.replace('"a, b"', "ab").replace("\r\n", "\n")
    header, rows = read_rows(plain)
    assert (header, {k: rows[k] for k in rows}) == _by_csv(plain)
    assert rows[("disks", "P30", "price_per_month")][7:] == ("", "135.17")
