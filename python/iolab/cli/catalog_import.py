"""`iolab catalog import-prices`: saved Azure Retail Prices API pages -> a catalog file.

Imported when the command runs. The file holds only prices (``vms.ID.price_per_hour``,
``disks.ID.price_per_month``, ...) for ids the catalog already has, so that ``--catalog``
lays them over the bundled rows; a comment at its top says where they come from.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ..catalog import load_catalog
from ..catalog.retail import read_pages
from ..errors import InputError
from .common import err_console

_NAMES = {"vms": "VM", "disks": "disk", "provisioned": "provisioned-disk", "services": "service"}


def _render(data: dict[str, dict[str, dict[str, float]]], header: list[str]) -> str:
    lines = [f"# {h}" for h in header] + ["version: 1"]
    for section, rows in data.items():
        lines.append(f"{section}:")
        for ident, fields in rows.items():
            inner = ", ".join(f"{k}: {v!r}" for k, v in fields.items())
            lines.append(f"  {ident}: {{{inner}}}")
    return "\n".join(lines) + "\n"


def import_prices(files: list[Path], *, output: Path | None, force: bool, region: str | None,
                  catalog: list[Path]) -> dict[str, Any]:
    """Read the pages, write the catalog file (or print it), report on stderr; return the summary."""
    from ..outputs import check_output, write_output

    if output is not None:
        check_output(output, force=True)  # a directory, a missing parent
        if output.exists() and not force:
            raise InputError("exists; give --force to overwrite it", file=str(output))
    known = load_catalog(catalog)
    found = read_pages(files, region)
    skipped = Counter(found.skipped)
    data: dict[str, dict[str, dict[str, float]]] = {}
    for (section, ident, fld), (price, _) in sorted(found.prices.items()):
        if ident not in getattr(known, section):
            skipped[f"not in the catalog ({section})"] += 1
            continue
        data.setdefault(section, {}).setdefault(ident, {})[fld] = price
    dates = sorted({d[0][:10] for _, d in found.prices.values()})
    kept = {section: sum(len(fields) for fields in rows.values()) for section, rows in data.items()}
    header = [f"Prices imported by iolab catalog import-prices from {', '.join(str(f) for f in files)}",
              f"(pages saved from the Azure Retail Prices API): region {found.region or 'none'}, "
              f"currency {found.currency or 'none'}, effective {dates[0] if dates else '-'} to {dates[-1] if dates else '-'}.",
              "VM prices are Linux pay-as-you-go per hour; disks per month; provisioned disks per GiB, IOPS, MB/s a month;"
              " services per GiB a month (ANF Flexible also per MiB/s a month)."]
    text = _render(data, header)
    if output is None:
        sys.stdout.write(text)
    else:
        write_output(output, text, force=force)
    total = sum(kept.values())
    parts = ", ".join(f"{n} {_NAMES[s]}" for s, n in kept.items()) or "none"
    why = ", ".join(f"{n} {reason}" for reason, n in sorted(skipped.items(), key=lambda x: (-x[1], x[0])))
    err_console.print(f"{found.items} items read; kept {total} prices for {found.region or 'no region'} "
                      f"({parts}); skipped {sum(skipped.values())}" + (f": {why}" if why else ""),
                      highlight=False, soft_wrap=True)
    return {"output": str(output) if output else None, "region": found.region, "currency": found.currency,
            "items": found.items, "kept": kept, "skipped": dict(sorted(skipped.items()))}
