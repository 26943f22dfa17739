"""Loading the catalog: the bundled data files, then the user's files over them.

A catalog file is a YAML mapping of sections (``vms``, ``disks``, ``provisioned``,
``services``, ``protocols``: each a mapping of id to fields; ``defaults``: one mapping;
``version``: 1 if given). Files are merged in order: a new id adds a row; an existing
id's given fields replace the old ones (mappings such as ``burst`` merge key by key,
``null`` clears a field), and then the merged row is validated. A user's override also
updates the row's provenance: ``source`` gains "FIELDS from FILE" and the overridden
fields leave ``assumptions`` (unless the file sets these itself). Rows under ``disks``
with tier ``premium-v2`` or ``ultra`` belong to ``provisioned``.

Rows that leave out a latency take it from ``defaults.latency`` and list it among their
assumptions; this happens after all files are merged, so a user's file that changes a
default latency changes every row that relies on it.

Every error is a :class:`~iolab.errors.InputError` naming the file (as the user gave it;
bundled files as ``iolab/catalog/data/NAME.yaml``) and the field path
(``vms.Standard_DS13.uncached_iops``); a field's error blames the file that set it last.
"""

from __future__ import annotations

import copy
import pickle
import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec
import pydantic

from ..errors import InputError, SchemaError, nearest
from ..schema import load_yaml, name_text, parse_yaml, validate
from .catalog import SECTIONS, Catalog
from .defaults import Defaults
from .row import PRICE_FIELDS, Row, Sourced
from .rows import LazyRows, clouds_of

__all__ = ["load_catalog", "bundled_catalog", "TOP_LEVEL"]

TOP_LEVEL = ("version", *SECTIONS, "defaults")
"""The keys a catalog file may have at its top level."""
_PROVISIONED_TIERS = ("premium-v2", "ultra", "pd-standard", "pd-balanced", "pd-ssd", "pd-extreme",
                      "hyperdisk-balanced", "hyperdisk-extreme", "hyperdisk-throughput")
_META = ("source", "assumptions", "notes")


class _Draft(msgspec.Struct):
    """Raw rows as merged so far, and which file set each field of each row.

    ``origin[(section, id)]`` maps a field name to the file that set it last; key ``""``
    is the file that added the row and ``"*"`` the last file that touched it.
    """

    rows: dict[str, dict[str, dict[str, Any]]] = msgspec.field(default_factory=lambda: {s: {} for s in SECTIONS})
    defaults: dict[str, Any] = msgspec.field(default_factory=dict)
    origin: dict[tuple[str, str], dict[str, str]] = msgspec.field(default_factory=dict)
    written_as: dict[tuple[str, str], str] = msgspec.field(default_factory=dict)  # "disks" for provisioned rows given there


def load_catalog(files: Sequence[str | Path] = ()) -> Catalog:
    """The bundled catalog extended and overridden by ``files``, in order.

    Raises :class:`~iolab.errors.SchemaError` (or another :class:`~iolab.errors.InputError`)
    naming the file and the field for anything wrong in a file.
    """
    if isinstance(files, (str, Path)):
        files = [files]
    if not files:
        return bundled_catalog()
    draft = pickle.loads(_bundled_state()[0])  # a fresh copy of the merged bundled rows
    from ..filekind import expect_data

    for path in files:
        name = str(path)
        data = load_yaml(path)
        expect_data(data, name, "catalog", fits=TOP_LEVEL)  # a scenario or requirements file is named as such
        _merge_file(draft, data, name)
    return _build(draft)


def bundled_catalog() -> Catalog:
    """The catalog shipped inside the package (built once, then cached)."""
    return _bundled_catalog()


@lru_cache(maxsize=1)
def _bundled_catalog() -> Catalog:
    return _bundled_state()[1]


def _bundled_state() -> tuple[bytes, Catalog]:
    """The merged bundled rows (pickled: only a catalog extended by files unpickles them)
    and the catalog built from them.

    Both come from the prebuilt copy in the user's cache directory when it matches the
    data files and this code (see :mod:`iolab.catalog.cache`); otherwise they are built
    from the YAML files and the copy is written.
    """
    from . import cache

    data_dir = resources.files("iolab.catalog").joinpath("data")
    files = [(f"iolab/catalog/data/{item.name}", item.read_bytes())
             for item in sorted(data_dir.iterdir(), key=lambda r: r.name) if item.name.endswith(".yaml")]
    code_dir = resources.files("iolab.catalog")
    code = [(item.name, item.read_bytes()) for item in sorted(code_dir.iterdir(), key=lambda r: r.name)
            if item.name.endswith(".py")]
    code += [(name, resources.files("iolab").joinpath(name).read_bytes()) for name in ("schema.py", "units.py")]
    key = cache.key_of([*files, *code, ("pydantic", pydantic.VERSION.encode())])
    state = cache.load("catalog", key)
    if _valid_state(state):
        draft, sections, defaults, own = state
        return draft, Catalog(**{s: _unpickled(rows, clouds) for s, (rows, clouds) in sections.items()},
                              defaults=defaults, own_prices=own)
    draft = _Draft()
    for name, data in files:
        _merge_file(draft, parse_yaml(data, file=name), name)
    rows = pickle.dumps(draft, protocol=pickle.HIGHEST_PROTOCOL)
    catalog = _build(draft)
    sections = {s: ({ident: pickle.dumps(row, protocol=pickle.HIGHEST_PROTOCOL)
                     for ident, row in getattr(catalog, s).items()}, dict(clouds_of(getattr(catalog, s))))
                for s in SECTIONS}
    cache.store("catalog", key, (rows, sections, catalog.defaults, catalog.own_prices))
    return rows, catalog


def _unpickled(pickled: dict[str, bytes], clouds: dict[str, str | None]) -> LazyRows:
    """A section's rows kept pickled until one is looked up, so that a command pays for the
    rows it reads, not for the size of the catalog."""
    return LazyRows(lambda ident: pickle.loads(pickled[ident]), clouds)


def _valid_state(state: object) -> bool:
    return (isinstance(state, tuple) and len(state) == 4 and isinstance(state[0], bytes)
            and isinstance(state[1], dict) and set(state[1]) == set(SECTIONS) and isinstance(state[2], Defaults)
            and all(isinstance(rows, tuple) and len(rows) == 2 and isinstance(rows[0], dict)
                    and all(isinstance(v, bytes) for v in rows[0].values()) and rows[0].keys() == rows[1].keys()
                    for rows in state[1].values()))


# --------------------------------------------------------------------------- merging


def _kind(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _merge_file(draft: _Draft, data: Any, file: str) -> None:
    if not isinstance(data, dict):
        raise SchemaError(f"expected a mapping of sections ({', '.join(TOP_LEVEL)}), got {_kind(data)}", file=file)
    for key, value in data.items():
        section = str(key)
        if section == "version":
            if value != 1 or isinstance(value, bool):
                raise SchemaError(f"unsupported catalog version {value!r} (expected 1)", file=file, field="version")
        elif section == "defaults":
            if not isinstance(value, dict):
                raise SchemaError(f"expected a mapping of fields, got {_kind(value)}", file=file, field="defaults")
            origin = draft.origin.setdefault(("defaults", ""), {})
            draft.defaults = _merge_row(draft.defaults or None, value, Defaults, file, origin)
        elif section in SECTIONS:
            if value is None:
                continue
            if not isinstance(value, dict):
                raise SchemaError(f"expected a mapping of id to fields, got {_kind(value)}", file=file, field=section)
            for ident, row in value.items():
                _merge_entry(draft, section, name_text(ident, file=file, field=f"{section}.{ident}", what="catalog id"),
                             row, file)
        else:
            hint = nearest(section, TOP_LEVEL, n=1)
            text = f"; did you mean {hint[0]!r}?" if hint else f" (sections: {', '.join(TOP_LEVEL)})"
            raise SchemaError(f"unknown section {section!r}{text}", file=file, field=section)


def _merge_entry(draft: _Draft, section: str, ident: str, row: Any, file: str) -> None:
    where = f"{section}.{ident}"
    if not isinstance(row, dict):
        raise SchemaError(f"expected a mapping of fields, got {_kind(row)}", file=file, field=where)
    if section == "disks" and (ident in draft.rows["provisioned"] or row.get("tier") in _PROVISIONED_TIERS):
        section = "provisioned"
        draft.written_as[(section, ident)] = "disks"
    else:
        draft.written_as.pop((section, ident), None)
    if "id" in row:
        if str(row["id"]) != ident:
            raise SchemaError(f"id {row['id']!r} differs from its key {ident!r}", file=file, field=f"{where}.id")
        row = {k: v for k, v in row.items() if k != "id"}
    base = draft.rows[section].get(ident)
    if base is None:
        for other, rows in draft.rows.items():
            if ident in rows:
                raise SchemaError(f"id {ident!r} is already used in section {other!r}", file=file, field=where)
    origin = draft.origin.setdefault((section, ident), {})
    draft.rows[section][ident] = _merge_row(base, row, SECTIONS[section], file, origin)


def _names(value: Any) -> list[Any] | Any:
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, (list, tuple)) else value


def _merge_row(base: dict[str, Any] | None, override: dict[str, Any], model: type[Sourced],
               file: str, origin: dict[str, str]) -> dict[str, Any]:
    """Merge one file's fields of a row over what earlier files said (see the module docstring)."""
    given = {str(k): v for k, v in override.items()}
    if base is None:
        row = copy.deepcopy(given)
        row.setdefault("source", f"catalog file {file}")
        origin.update({k: file for k in row})
        origin[""] = origin["*"] = file
        return row
    row = copy.deepcopy(base)
    changed = {k for k in given if k not in _META}
    for group in model.alternatives:
        if group & given.keys():
            changed |= group
            for k in group - given.keys():
                row.pop(k, None)
    if changed and "assumptions" not in given and isinstance(_names(row.get("assumptions", [])), list):
        row["assumptions"] = [a for a in _names(row.get("assumptions", [])) if a not in changed]
    if changed and "source" not in given:
        row["source"] = f"{row.get('source', '')}; {', '.join(sorted(k for k in given if k not in _META))} from {file}"
    for k, v in given.items():
        row[k] = _deep_merge(row.get(k), v)
        origin[k] = file
    origin["*"] = file
    return row


def _deep_merge(old: Any, new: Any) -> Any:
    if isinstance(old, dict) and isinstance(new, dict):
        merged = dict(old)
        for k, v in new.items():
            merged[k] = _deep_merge(old.get(k), v)
        assumed = _names(old.get("assumptions", []))
        if isinstance(assumed, list) and assumed and "assumptions" not in new:
            # a nested entry (a level's load_latency, its clients' figures): what the file gives is no
            # longer assumed
            merged["assumptions"] = [a for a in assumed if a not in new]
        return merged
    return copy.deepcopy(new)


# --------------------------------------------------------------------------- building


def _build(draft: _Draft) -> Catalog:
    defaults = _validate(Defaults, draft.defaults, "defaults", draft.origin.get(("defaults", ""), {}))
    built: dict[str, Any] = {}
    _inherit(draft)
    for section, model in SECTIONS.items():
        built[section] = MappingProxyType({
            ident: _validate(model, _complete(section, raw, ident, defaults),
                             f"{draft.written_as.get((section, ident), section)}.{ident}", draft.origin[(section, ident)])
            for ident, raw in draft.rows[section].items()
        })
    return Catalog(**built, defaults=defaults, own_prices=_own_prices(draft))


_OWN = ("source", "assumptions", "notes", "vcpus", "parent", "price_per_month", "price_per_hour")


def _inherit(draft: _Draft) -> None:
    """Give each VM row that names a ``parent`` (a constrained-core size) the parent's fields
    it does not state itself: the limits, memory and disks of the size it is cut from."""
    rows = draft.rows["vms"]
    for ident, raw in list(rows.items()):
        parent = raw.get("parent")
        if parent is None:
            continue
        base = rows.get(parent) if isinstance(parent, str) else None
        if base is None or base.get("parent"):
            file = draft.origin.get(("vms", ident), {}).get("parent") or draft.origin.get(("vms", ident), {}).get("")
            raise SchemaError(f"parent {parent!r} is no VM size of the catalog (or is itself a constrained size)",
                              file=file, field=f"vms.{ident}.parent")
        rows[ident] = {**{k: v for k, v in base.items() if k not in _OWN}, **raw}
        origin = draft.origin[("vms", ident)]
        for key in base:
            if key not in _OWN and key not in raw:
                origin.setdefault(key, draft.origin.get(("vms", parent), {}).get(key, ""))


_BUNDLED = "iolab/catalog/data/"
_GIVEN_AS = {("vms", "price_per_month"): ("price_per_month", "price_per_hour")}
_PRICE_FIELDS = {section: {f: _GIVEN_AS.get((section, f), (f,)) for f in fields}
                 for section, fields in PRICE_FIELDS.items()}


def _own_prices(draft: _Draft) -> frozenset[tuple[str, str, str]]:
    """(section, id, field) of the prices a user's file set (kept by ``Catalog.in_region``)."""
    own = set()
    for section, fields in _PRICE_FIELDS.items():
        for ident in draft.rows[section]:
            origin = draft.origin.get((section, ident), {})
            for name, given_as in fields.items():
                files = [origin[k] for k in given_as if k in origin]
                if files and not all(f.startswith(_BUNDLED) for f in files):
                    own.add((section, ident, name))
    return frozenset(own)


def _complete(section: str, raw: dict[str, Any], ident: str, defaults: Defaults) -> dict[str, Any]:
    """The row with its id and with the default latencies it leaves out (marked assumptions)."""
    row = dict(raw, id=ident)
    if section in ("disks", "provisioned"):
        wanted = [("read_latency", row.get("tier"), "read"), ("write_latency", row.get("tier"), "write")]
    elif section == "services":
        wanted = [("latency", row.get("service"), None)]
    else:
        return row
    assumed = _names(row.get("assumptions", []))
    for name, key, direction in wanted:
        if name in row or not isinstance(key, str):
            continue
        try:
            row[name] = defaults.latency_for(key, direction)  # type: ignore[arg-type]
        except SchemaError:
            continue  # the row's tier/service is wrong or has no default: validation says so
        if isinstance(assumed, list) and name not in assumed:
            assumed.append(name)
    if isinstance(assumed, list):
        row["assumptions"] = assumed
    return row


def _validate(model: type[Row] | type[Defaults], data: dict[str, Any], root: str, origin: dict[str, str]) -> Any:
    try:
        return validate(model, data, root_field=root)
    except InputError as e:
        rest = (e.field or "")[len(root):].lstrip(".")
        name = re.split(r"[.\[]", rest, maxsplit=1)[0]
        file = origin.get(name) if name else origin.get("*")
        raise e.located(file=file or origin.get("")) from None
