"""Regenerate the bundled VM catalog, ``python/iolab/catalog/data/vms.yaml``.

Run from the repository root::

    python -m tools.catalog.vms            # rewrite vms.yaml
    python -m tools.catalog.vms --check    # exit 1 if vms.yaml is not what the sources give
    python tools/catalog/vms.py            # the same, as a script

``--sources DIR``, ``--overrides FILE`` and ``--output FILE`` point it elsewhere (tests).
An input it cannot use prints ``error: FILE: ...`` and exits 2.

Inputs (nothing is fetched; no network):

- ``tools/catalog/sources/vms/*.md``: excerpts of Azure's public size pages, one file per
  page: a front matter naming the page (``repository``, ``path``, ``commit``, ``page_date``,
  ``read``, ``premium_storage`` as the page's feature list says it) and the page's tables
  (``## title`` then a Markdown table), copied as the page shows them.
- ``tools/catalog/vms_overrides.yaml``: what the pages do not say, kept by hand (rows no
  saved page covers, corrections of rows a page gets wrong, prices), each with its reason.

The tables' wording varies between pages; a column is recognised by what its header says
(``Uncached Premium SSD IOPS``, ``Uncached Disk Speed (MBps)``, ``Max uncached disk
throughput: IOPS/MBps``, ``Max NICs/ Expected network bandwidth (Mbps)``, ...). Numbers may
carry thousands separators, ``Up to``, footnote markers and ``K``/``M`` suffixes. A header
or cell the parser cannot place is an error naming the file, never a silent guess.

The output is deterministic: the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

if str(Path(__file__).resolve().parents[2]) not in sys.path:  # run as a script, not with -m
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.catalog.bundled import write_or_check  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "tools" / "catalog" / "sources" / "vms"
OVERRIDES = ROOT / "tools" / "catalog" / "vms_overrides.yaml"
OUTPUT = ROOT / "python" / "iolab" / "catalog" / "data" / "vms.yaml"

FIELDS = (
    "vcpus", "memory", "max_data_disks", "premium_storage",
    "uncached_iops", "uncached_bandwidth", "burst_iops", "burst_bandwidth", "burst_kind",
    "cached_iops", "cached_bandwidth", "cache_size", "temp_iops", "temp_bandwidth",
    "premium_v2_iops", "premium_v2_bandwidth", "ultra_iops", "ultra_bandwidth",
    "network_bandwidth", "receive_bandwidth", "price_per_hour", "price_per_month", "source", "assumptions", "notes",
)
"""Every field a row may have, in the order rows are written."""

BURST_KIND = "credit"
"""VM-level disk bursting uses only the credit-based model (see ``BURST_SOURCE``)."""


class SourceError(ValueError):
    """A saved source or the overrides file says something the generator cannot use."""


@dataclass(frozen=True)
class Table:
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Page:
    """One saved size page: where it comes from and its tables."""

    file: str
    meta: dict[str, str]
    tables: tuple[Table, ...]

    @property
    def citation(self) -> str:
        m = self.meta
        return f"{m['repository']} {m['path']} at {m['commit'][:12]} ({m['page_date']})"


@dataclass
class Row:
    """The figures one page gives for one size, with where each came from."""

    values: dict[str, Any] = field(default_factory=dict)

    def set(self, name: str, value: Any, where: str) -> None:
        old = self.values.get(name)
        if old is not None and old != value:
            raise SourceError(f"{where}: {name} given twice ({old} and {value})")
        self.values[name] = value


# --------------------------------------------------------------------------- reading


def clean(text: str) -> str:
    """A cell or header without footnote markers, HTML tags, emphasis and extra spaces."""
    text = re.sub(r"<sup>.*?</sup>", "", text, flags=re.I)
    text = re.sub(r"<[^>]+>", " ", text)
    text = text.replace("**", "").replace("\t", " ").replace("&nbsp;", " ")
    return re.sub(r"\s+", " ", text).strip()


def number(text: str, where: str) -> int | float:
    """``3,750`` -> 3750; ``Up to 12,500`` -> 12500; ``1.5M`` -> 1500000; ``3.5`` -> 3.5."""
    t = clean(text).lower().replace(",", "").replace("up to", "").replace("~", "").strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([km]?)", t)
    if not m:
        raise SourceError(f"{where}: not a number: {text.strip()!r}")
    value = float(m[1]) * {"": 1, "k": 1e3, "m": 1e6}[m[2]]
    return int(value) if value == int(value) else value


def parse_page(text: str, file: str) -> Page:
    """The front matter and the tables of one saved excerpt."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---" or "---" not in [s.strip() for s in lines[1:]]:
        raise SourceError(f"{file}: expected a front matter between '---' lines")
    end = [s.strip() for s in lines[1:]].index("---") + 1
    meta: dict[str, str] = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        if not sep:
            raise SourceError(f"{file}: front matter line {line!r} is not 'key: value'")
        meta[key.strip()] = value.strip()
    for key in ("repository", "path", "commit", "page_date", "read"):
        if not meta.get(key):
            raise SourceError(f"{file}: front matter lacks {key!r}")
    tables: list[Table] = []
    title = ""
    block: list[str] = []

    def flush() -> None:
        if not block:
            return
        cells = [[c for c in _split_row(line)] for line in block]
        body = [r for r in cells[1:] if not all(re.fullmatch(r":?-+:?", c.strip()) for c in r)]
        tables.append(Table(title, tuple(cells[0]), tuple(tuple(r) for r in body)))
        block.clear()

    for line in lines[end + 1:]:
        if line.lstrip().startswith("|"):
            block.append(line)
            continue
        flush()
        if line.startswith("#"):
            title = line.lstrip("#").strip()
    flush()
    if not tables:
        raise SourceError(f"{file}: no table")
    return Page(file, meta, tuple(tables))


def _split_row(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return line.split("|")


# --------------------------------------------------------------------------- columns


def fields_for(header: str) -> tuple[str, ...]:
    """The catalog fields one column (or one part of a combined column) gives.

    ``()`` for columns the catalog does not keep (NICs, temp disk size, random-write speed).
    """
    s = clean(header).lower()
    if re.match(r"size( name)?$", s):
        return ("name",)
    if "vcpu" in s:
        return ("vcpus",)
    if s.startswith("memory"):
        return ("memory",)
    if "nic" in s:
        return ()
    if "cache size" in s:
        return ("cache_size",)
    if "qty" in s or re.search(r"max data disk", s):
        return ("max_data_disks",) if ("remote" in s or "data disk" in s) else ()
    if ("bandwidth" in s or "network" in s) and "disk" not in s and "storage" not in s:
        return ("network_bandwidth",)
    if re.search(r"(?<!read)write", s):
        return ()  # random-write figures: the catalog keeps the read (or read-write) ones
    if "iops" in s:
        measure = "iops"
    elif re.search(r"mbps|mb/s|throughput|speed", s):
        measure = "bandwidth"
    else:
        return ()
    burst = "burst" in s
    if "uncached" not in s and re.search(r"cache|temp|nvme disk|local", s):
        if burst:
            return ()  # burst of the cache/temp disk: not modelled
        local = []
        if re.search(r"(?<!un)cached", s):
            local.append(f"cached_{measure}")
        if re.search(r"temp|nvme disk|local", s):
            local.append(f"temp_{measure}")
        return tuple(local)
    if "ultra" in s or "premium ssd v2" in s:
        return () if burst else (f"premium_v2_{measure}", f"ultra_{measure}")
    return (f"burst_{measure}",) if burst else (f"uncached_{measure}",)


def _parts(header: str, count: int, where: str) -> list[str]:
    """The headers of the ``count`` values a combined cell (``3200/48``) holds."""
    h = re.sub(r"\(cache size[^)]*\)", "", clean(header), flags=re.I)
    if count == 1:
        return [h]
    group = re.search(r"\(([^()]*/[^()]*)\)", h)
    if ":" in h:
        prefix, tail = h.split(":", 1)
        parts = [f"{prefix} {p}" for p in tail.split("/")]
    elif group:  # "Max temp storage throughput (IOPS/MBps)"
        prefix = (h[:group.start()] + h[group.end():]).strip()
        parts = [f"{prefix} {p}" for p in group[1].split("/")]
    else:
        parts = h.split("/")
    if len(parts) != count:
        raise SourceError(f"{where}: header {clean(header)!r} names {len(parts)} values, the cell has {count}")
    return parts


def _value(name: str, raw: int | float, header: str) -> Any:
    h = header.lower()
    if name in ("vcpus", "max_data_disks") or name.endswith("_iops"):
        return int(raw)
    if name in ("memory", "cache_size"):
        return f"{_num(raw)}{'TiB' if 'tib' in h or '(tb)' in h else 'GiB'}"
    if name == "network_bandwidth":
        return f"{_num(raw * 1000 if 'gbps' in h else raw)}Mbit/s"
    if name.endswith("_bandwidth"):
        return f"{_num(raw)}MB/s"
    raise SourceError(f"no unit for {name}")


def _num(x: int | float) -> str:
    return str(int(x)) if float(x) == int(x) else repr(float(x))


def _interface(title: str) -> str:
    t = title.lower()
    return "nvme" if "(nvme)" in t else "scsi" if "(scsi)" in t else ""


def page_rows(page: Page) -> dict[str, dict[str, Any]]:
    """The rows one page gives, by size name, each with its source and notes."""
    by_iface: dict[str, dict[str, Row]] = {}
    for table in page.tables:
        iface = _interface(table.title)
        rows = by_iface.setdefault(iface, {})
        for cells in table.rows:
            if len(cells) != len(table.header):
                raise SourceError(f"{page.file}: {table.title!r}: a row has {len(cells)} cells, the header "
                                  f"{len(table.header)}: {'|'.join(cells)}")
            name = clean(cells[0])
            if not re.fullmatch(r"Standard_\w+", name):
                raise SourceError(f"{page.file}: {table.title!r}: {cells[0].strip()!r} is not a size name")
            row = rows.setdefault(name, Row())
            where = f"{page.file}: {name}"
            for header, cell in zip(table.header[1:], cells[1:]):
                text = clean(cell)
                cache = re.search(r"\(([\d,.]+)\)", text)
                if cache and "cache size" in header.lower():
                    row.set("cache_size", _value("cache_size", number(cache[1], where), "GiB"), where)
                    text = text[:cache.start()].strip()
                values = [v for v in text.split("/")]
                for part, value in zip(_parts(header, len(values), where), values):
                    targets = fields_for(part)
                    if not targets:
                        continue
                    if value.strip() in ("", "-", "N/A", "n/a"):
                        continue
                    raw = number(value, f"{where}: {part.strip()!r}")
                    for target in targets:
                        row.set(target, _value(target, raw, part), where)
    plain = by_iface.get("", {})
    chosen = by_iface.get("scsi", {})
    nvme = by_iface.get("nvme", {})
    out: dict[str, dict[str, Any]] = {}
    for name in sorted({*plain, *chosen, *nvme}):
        values: dict[str, Any] = dict(plain.get(name, Row()).values)
        notes = []
        if name in chosen:
            values.update(chosen[name].values)
            if name in nvme:
                n = nvme[name].values
                notes.append("Remote-disk limits are the page's SCSI figures; with the NVMe interface the page gives "
                             + ", ".join(f"{k} {n[k]}" for k in ("uncached_iops", "uncached_bandwidth", "burst_iops",
                                                                    "burst_bandwidth", "premium_v2_iops",
                                                                    "premium_v2_bandwidth") if k in n) + ".")
        elif name in nvme:
            values.update(nvme[name].values)
            if chosen:
                notes.append("NVMe interface only: the page gives no SCSI figures for this size.")
        out[name] = _finish(values, page, notes)
    return out


def _finish(values: dict[str, Any], page: Page, notes: list[str]) -> dict[str, Any]:
    """Apply the rules that hold for every page (documented in docs/catalog.md)."""
    v = dict(values)
    assumptions: list[str] = []
    # A cache whose size is not published cannot be modelled: its limits are the temp disk's.
    if "cache_size" not in v:
        for name in ("cached_iops", "cached_bandwidth"):
            v.pop(name, None)
    # A local-storage table that gives a cache size gives the combined cache-and-temp limits.
    elif "cached_iops" not in v and "temp_iops" in v:
        v["cached_iops"], v["cached_bandwidth"] = v["temp_iops"], v["temp_bandwidth"]
    premium = page.meta.get("premium_storage", "").lower()
    if premium in ("supported", "not supported"):
        v["premium_storage"] = premium == "supported"
    else:
        v["premium_storage"] = True
        assumptions.append("premium_storage")
    if "burst_iops" in v or "burst_bandwidth" in v:
        v["burst_kind"] = BURST_KIND
    v["source"] = page.citation
    if assumptions:
        v["assumptions"] = assumptions
    if notes:
        v["notes"] = " ".join(notes)
    return v


# --------------------------------------------------------------------------- building


def load_pages(folder: Path = SOURCES) -> list[Page]:
    return [parse_page(p.read_text(encoding="utf-8"), p.name) for p in sorted(folder.glob("*.md"))]


def load_overrides(path: Path = OVERRIDES) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise SourceError(f"{path.name}: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("vms", {}), dict):
        raise SourceError(f"{path.name}: expected a mapping with 'vms' (id -> fields)")
    return data


def build(pages: list[Page], overrides: dict[str, Any], where: str = OVERRIDES.name) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Rows grouped by where they come from: each page's file name, then ``overrides``."""
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    seen: dict[str, str] = {}
    rows: dict[str, dict[str, Any]] = {}
    for page in pages:
        for name, row in page_rows(page).items():
            if name in seen:
                raise SourceError(f"{name} is on two pages: {seen[name]} and {page.file}")
            seen[name] = page.file
            rows[name] = row
    hand: list[str] = []
    for name, given in (overrides.get("vms") or {}).items():
        if not isinstance(given, dict):
            raise SourceError(f"{where}: vms.{name}: expected a mapping of fields")
        unknown = set(given) - set(FIELDS)
        if unknown:
            raise SourceError(f"{where}: vms.{name}: unknown fields {sorted(unknown)}")
        if name in rows:
            row = rows[name]
            for key, value in given.items():
                if key == "assumptions":
                    row["assumptions"] = sorted({*row.get("assumptions", []), *value})
                elif key == "notes" and row.get("notes"):
                    row["notes"] = f"{value} {row['notes']}"
                else:
                    row[key] = value
            for key in [k for k, v in given.items() if v is None]:
                row.pop(key, None)
        else:
            if "source" not in given:
                raise SourceError(f"{where}: vms.{name}: a row no page covers needs its source")
            rows[name] = dict(given)
            hand.append(name)
    for name in sorted(rows, key=natural):
        group = "overrides" if name in hand else seen[name]
        groups.setdefault(group, []).append((name, rows[name]))
    return dict(sorted(groups.items(), key=lambda kv: (kv[0] == "overrides", kv[0])))


def natural(name: str) -> list[Any]:
    """Sort key: ``Standard_D2s_v5`` before ``Standard_D16s_v5``."""
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", name)]


# --------------------------------------------------------------------------- writing


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _num(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    text = str(value)
    return text if re.fullmatch(r"[A-Za-z0-9_.]+(/[A-Za-z]+)?", text) else json.dumps(text, ensure_ascii=False)


def render(groups: dict[str, list[tuple[str, dict[str, Any]]]], pages: list[Page], overrides: dict[str, Any]) -> str:
    out = [
        "# Azure VM sizes and their storage limits.",
        "#",
        "# GENERATED by tools/catalog/vms.py (python -m tools.catalog.vms) from the size-page",
        "# excerpts saved in tools/catalog/sources/vms/ and the hand-kept",
        "# tools/catalog/vms_overrides.yaml. Edit those and rerun; do not edit this file.",
        "#",
        "# Units as the pages state them: IOPS; MB/s = 10^6 B/s; memory and cache in GiB (the",
        "# pages' \"GB\" columns are GiB); network in Mbit/s (egress, all NICs, not guaranteed).",
        "# uncached_*: \"Remote Storage\" limits (Premium SSD, host caching None);",
        "# burst_*: the uncached limits while the VM's burst credits last (30 minutes);",
        "# cached_*/cache_size: the host cache; temp_*: the local temp (or NVMe) disks;",
        "# premium_v2_*/ultra_*: the separate limits for Premium SSD v2 and Ultra Disk.",
        "#",
        "# Sources (repository, path, commit, page date; every page read 2026-11-24 unless noted):",
    ]
    for page in pages:
        m = page.meta
        read = "" if m["read"] == "2026-11-24" else f", read {m['read']}"
        out.append(f"#   {m['repository']} {m['path']} {m['commit']} ({m['page_date']}{read})")
    for extra in overrides.get("sources") or []:
        out.append(f"#   {extra}")
    out.append("vms:")
    for group, rows in groups.items():
        out.append(f"  # {'hand-kept rows (tools/catalog/vms_overrides.yaml)' if group == 'overrides' else group}")
        for name, row in rows:
            unknown = set(row) - set(FIELDS)
            if unknown:
                raise SourceError(f"{name}: unknown fields {sorted(unknown)}")
            body = ", ".join(f"{k}: {scalar(row[k])}" for k in FIELDS if row.get(k) is not None)
            out.append(f"  {name}: {{{body}}}")
    return "\n".join(out) + "\n"


def generate(sources: Path = SOURCES, overrides_file: Path = OVERRIDES) -> str:
    """The text of vms.yaml that the saved sources and the overrides give."""
    pages = load_pages(sources)
    overrides = load_overrides(overrides_file)
    return render(build(pages, overrides, overrides_file.name), pages, overrides)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.catalog.vms", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if vms.yaml differs from what the sources give")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write (default: the bundled vms.yaml)")
    parser.add_argument("--sources", type=Path, default=SOURCES, help="the folder of saved page excerpts")
    parser.add_argument("--overrides", type=Path, default=OVERRIDES, help="the hand-kept overrides file")
    args = parser.parse_args(argv)
    try:
        text = generate(args.sources, args.overrides)
    except SourceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return write_or_check({args.output: text}, args.check, "python -m tools.catalog.vms")


if __name__ == "__main__":
    sys.exit(main())
