"""The calibration file: the fitted values as overrides in the scenario's own shape
(``volumes:``, ``clients:``), and a ``calibration:`` section recording where they came from
(scenario, results database, runs or sweep), every estimate and the residuals before and
after. ``predict`` and ``simulate`` take it with ``--calibration FILE``.

Fitted latencies of catalog rows (a disk SKU's, a service level's) are also written as a
``catalog:`` section in the shape of a catalog file, which ``plan --calibration FILE``
reads: the planner then uses the measured latency for that SKU or level.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace
import yaml

from ..errors import InputError, SchemaError, UnknownIdError
from ..scenario import Clients, DeviceVolume, DiskVolume, Scenario, ShareVolume, check_rules
from ..schema import load_yaml, name_text, top_level, validate
from .parameters import display, split_path

if TYPE_CHECKING:
    from .fit import Fit

__all__ = ["overrides", "catalog_overrides", "document", "render", "apply_calibration", "calibrated",
           "calibration_catalog", "TOP"]

TOP = ("version", "calibration", "clients", "volumes", "catalog")


def overrides(values: Mapping[str, float]) -> dict[str, Any]:
    """``{"volumes.d.device.read_latency": 1e-4}`` → ``{"volumes": {"d": {"device": {...}}}}``
    (a list index becomes a list whose untouched entries are empty mappings)."""
    root: dict[str, Any] = {}
    for path, value in sorted(values.items()):
        parts = split_path(path)
        node: Any = root
        for part, nxt in zip(parts, parts[1:]):
            if isinstance(part, int):
                while len(node) <= part:
                    node.append({})
                node = node[part]
            else:
                node = node.setdefault(part, [] if isinstance(nxt, int) else {})
        node[parts[-1]] = float(f"{value:.6g}")
    return root


def catalog_overrides(s: Scenario, values: Mapping[str, float]) -> dict[str, Any]:
    """Fitted latencies that belong to catalog rows, as a catalog file's sections: a disk
    group's ``latency`` → ``disks.SKU.read_latency``/``write_latency``; a share's
    ``latency`` → ``services.LEVEL_ID.latency``. Caps are what one buys: never carried."""
    out: dict[str, dict[str, Any]] = {}
    for path, value in sorted(values.items()):
        parts = split_path(path)
        if parts[0] != "volumes" or parts[-1] != "latency":
            continue
        vol = s.volumes[str(parts[1])]
        v = float(f"{value:.6g}")
        if isinstance(vol, DiskVolume) and len(parts) == 5:
            sku = s.catalog.disk(vol.disks[int(parts[3])].sku).id
            out.setdefault("disks", {})[sku] = {"read_latency": v, "write_latency": v}
        elif isinstance(vol, ShareVolume) and len(parts) == 3:
            level = s.catalog.service(vol.service, vol.level).id
            out.setdefault("services", {})[level] = {"latency": v}
    return out


def document(fit: Fit, *, scenario: str, database: str, runs: Sequence[int], sweep: int | None,
             validation: Sequence[Any] = (), catalog: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The calibration file's content (see the module docstring)."""
    def errors(points: Sequence[Any]) -> list[dict[str, Any]]:
        return [{"run_id": p.run_id, "point": p.label,
                 **{k: None if v is None else round(v, 4) for k, v in p.errors.items()}} for p in points]

    section: dict[str, Any] = {
        "scenario": scenario, "database": database, "runs": list(runs), "sweep": sweep,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "fitted": [{"parameter": e.parameter.path, "value": float(f"{e.value:.6g}"),
                    "shown": display(e.parameter.unit, e.value),
                    "start": float(f"{e.parameter.start:.6g}") if e.parameter.given else None,
                    "relative_error": None if e.relative_error is None else round(e.relative_error, 4),
                    "identified": e.identified, **({"warning": e.warning} if e.warning else {})}
                   for e in fit.estimates],
        "residuals": {"rms_log_before": round(fit.rms_before, 4), "rms_log_after": round(fit.rms_after, 4),
                      "before": errors(fit.before), "after": errors(fit.after)},
    }
    if validation:
        section["residuals"]["held_out"] = errors(validation)
    if fit.warnings:
        section["warnings"] = list(fit.warnings)
    doc = {"version": 1, "calibration": section, **overrides(fit.values)}
    if catalog:
        doc["catalog"] = {"version": 1, **catalog}
    return doc


def render(doc: Mapping[str, Any]) -> str:
    """The file's text: a comment line, then YAML (durations in seconds, rates in base units)."""
    cal = doc["calibration"]
    source = f"sweep {cal['sweep']}" if cal.get("sweep") is not None else \
        "runs " + ", ".join(str(r) for r in cal["runs"])
    head = (f"# iolab calibration of {cal['scenario']} from {source} in {cal['database']}.\n"
            "# Use it with: iolab predict SCENARIO --calibration THIS_FILE (or iolab simulate).\n"
            "# Values are in base units: seconds, ops/s, bytes/s.\n")
    return head + yaml.safe_dump(dict(doc), sort_keys=False, allow_unicode=True, width=100)


def _merge(old: Any, new: Any) -> Any:
    if isinstance(old, dict) and isinstance(new, dict):
        out = dict(old)
        for k, v in new.items():
            out[k] = _merge(old.get(k), v)
        return out
    if isinstance(old, list) and isinstance(new, list):
        return [_merge(old[i], new[i]) if i < len(new) else old[i] for i in range(len(old))] + \
            [copy.deepcopy(v) for v in new[len(old):]]
    return copy.deepcopy(new)


def apply_calibration(s: Scenario, path: str | Path) -> Scenario:
    """The scenario with a calibration file's overrides applied, validated again
    (:func:`calibrated` gives the same scenario from the fitted values themselves).

    Raises InputError naming the calibration file and the field for a volume the scenario
    does not have or a value the scenario's schema refuses.
    """
    from ..filekind import expect_data

    file = str(path)
    raw = load_yaml(path)
    expect_data(raw, file, "calibration", fits=TOP)  # a scenario or catalog file is named as such
    data = top_level(raw, file=file, allowed=TOP, what="calibration", expect="a calibration section and overrides")
    return _overridden(s, data, file)


def calibrated(s: Scenario, values: Mapping[str, float]) -> Scenario:
    """The scenario a calibration of `values` (parameter path → value, base units) gives:
    exactly what :func:`apply_calibration` makes of the file :func:`document` writes for
    them (the values as the file keeps them, validated again), so that the figures
    ``calibrate`` reports after its fit are those ``predict --calibration FILE`` gives."""
    return _overridden(s, overrides(values), s.file)


def _overridden(s: Scenario, data: Mapping[str, Any], file: str) -> Scenario:
    """The scenario with a calibration's overrides (``clients:``, ``volumes:`` in the
    scenario's own shape) merged in, validated again; errors name `file` and the field."""
    clients = s.clients
    if data.get("clients") is not None:
        if not isinstance(data["clients"], dict):
            raise SchemaError("expected a mapping of client fields", file=file, field="clients")
        clients = validate(Clients, _merge(s.clients.model_dump(exclude_none=True), data["clients"]),
                           file=file, root_field="clients")
    volumes = dict(s.volumes)
    given = data.get("volumes") or {}
    if not isinstance(given, dict):
        raise SchemaError("expected a mapping of volume name to overrides", file=file, field="volumes")
    for name, raw in given.items():
        name = name_text(name, file=file, field=f"volumes.{name}", what="volume name")
        if name not in volumes:
            raise UnknownIdError(f"volume of {s.file}", name, volumes, file=file, field=f"volumes.{name}")
        if not isinstance(raw, dict):
            raise SchemaError("expected a mapping of the volume's fields", file=file, field=f"volumes.{name}")
        vol = volumes[name]
        model = type(vol)
        assert model in (DeviceVolume, DiskVolume, ShareVolume)
        volumes[name] = validate(model, _merge(vol.model_dump(exclude_none=True), raw), file=file,
                                 root_field=f"volumes.{name}")
    if data.get("catalog") is not None and not isinstance(data["catalog"], dict):
        raise SchemaError("expected a catalog file's sections (disks, services, ...)", file=file, field="catalog")
    out = replace(s, clients=clients, volumes=volumes)
    try:
        check_rules(out)
    except InputError as e:
        raise e.located(file=file) from None
    return out


def calibration_catalog(path: str | Path, directory: str | Path) -> Path:
    """The calibration file's ``catalog:`` section written as a catalog file in `directory`
    (for ``plan``, which reads catalog files). Raises InputError when the file has none
    (it calibrates a generic device or the client, which plan does not choose)."""
    file = str(path)
    data = top_level(load_yaml(path), file=file, allowed=TOP, what="calibration",
                     expect="a calibration section and overrides")
    section = data.get("catalog")
    if not isinstance(section, dict) or not (section.keys() - {"version"}):
        raise SchemaError("has no catalog values for plan to use: it calibrates no disk SKU or service level "
                          "(a generic device or the client's caps apply to its own scenario only)",
                          file=file, field="catalog")
    out = Path(directory) / Path(file).name
    out.write_text(f"# the catalog section of {file}\n" + yaml.safe_dump(section, sort_keys=False))
    return out
