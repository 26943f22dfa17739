"""Reading a scenario: the file or text in memory parsed, its volumes and jobs validated
(fio options, ``fio:`` command lines, ``fio_file:`` job files), its catalog files loaded,
then its rules checked (:mod:`.rules`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..catalog import load_catalog
from ..errors import InputError, SchemaError, UnknownIdError
from ..fio import FioJob, parse_cmdline, parse_jobfile
from ..fio.options import MODELLED_OPTIONS
from ..inputs import read_text
from ..schema import load_yaml, name_text, relative_files, top_level, validate
from .models import Clients, DeviceVolume, DiskVolume, Scenario, ScenarioJob, ShareVolume, Volume
from .rules import check_rules

__all__ = ["load_scenario", "read_scenario", "parse_scenario", "parse_jobs"]

_TOP = ("version", "clients", "volumes", "jobs", "catalog")


def load_scenario(path: str | Path, catalog_files: tuple[str | Path, ...] | list = ()) -> Scenario:
    """Read and validate a scenario file; ``catalog_files`` extend the bundled catalog."""
    from ..filekind import expect_data

    data = load_yaml(path)
    expect_data(data, str(path), "scenario", fits=_TOP)  # a requirements or calibration file is named as such
    return parse_scenario(data, file=str(path), base=Path(path).parent, catalog_files=catalog_files)


def read_scenario(text: str | bytes, *, file: str, base: Path | None = None,
                  catalog_files: tuple[str | Path, ...] | list = ()) -> Scenario:
    """:func:`load_scenario` for text already in memory (a request body), `file` its display
    name in messages and `base` the directory its relative paths start from."""
    from ..filekind import expect_data
    from ..schema import parse_yaml

    data = parse_yaml(text, file=file)
    expect_data(data, file, "scenario", fits=_TOP)
    return parse_scenario(data, file=file, base=base or Path("."), catalog_files=catalog_files)


def parse_scenario(data: Any, *, file: str = "scenario", base: Path | None = None,
                   catalog_files: tuple[str | Path, ...] | list = ()) -> Scenario:
    """Validate parsed YAML data as a scenario (see :func:`load_scenario`)."""
    base = base or Path(".")
    data = top_level(data, file=file, allowed=_TOP, what="scenario", expect="volumes and jobs")
    extra = list(catalog_files) + relative_files(data.get("catalog"), file=file, base=base)
    catalog = load_catalog(extra)
    clients = validate(Clients, data.get("clients") or {}, file=file, root_field="clients")
    raw_volumes = data.get("volumes")
    if not isinstance(raw_volumes, dict) or not raw_volumes:
        raise SchemaError("expected a mapping of named volumes (disks, a share or a device)", file=file,
                          field="volumes")
    volumes: dict[str, Volume] = {}
    for name, raw in raw_volumes.items():
        name = name_text(name, file=file, field=f"volumes.{name}", what="volume name")
        volumes[name] = _volume(raw, file, f"volumes.{name}")
    jobs, ignored = parse_jobs(data.get("jobs"), file=file, base=base, volumes=list(volumes))
    scenario = Scenario(file, clients, volumes, jobs, catalog, ignored)
    check_rules(scenario)
    return scenario


def _volume(raw: Any, file: str, field: str) -> Volume:
    if not isinstance(raw, dict):
        raise SchemaError("a volume is a mapping with one of: disks, service, device", file=file, field=field)
    if "disks" in raw:
        return validate(DiskVolume, raw, file=file, root_field=field)
    if "service" in raw:
        return validate(ShareVolume, raw, file=file, root_field=field)
    if "device" in raw:
        return validate(DeviceVolume, raw, file=file, root_field=field)
    raise SchemaError("a volume needs one of: disks (managed disks), service (a file share), device "
                      "(a generic device)", file=file, field=field)


def _fio_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError(value)


def parse_jobs(raw: Any, *, file: str, base: Path, volumes: list[str] | None,
               require_volume: bool = True) -> tuple[tuple[ScenarioJob, ...], tuple[str, ...]]:
    """Parse a ``jobs:`` list (fio options, ``fio:`` command lines, ``fio_file:`` paths)."""
    if not isinstance(raw, list) or not raw:
        raise SchemaError("expected a non-empty list of jobs", file=file, field="jobs")
    from ..fio.sizes import io_sizes

    jobs: list[ScenarioJob] = []
    ignored: list[str] = []
    for i, entry in enumerate(raw):
        field = f"jobs[{i}]"
        if not isinstance(entry, dict):
            raise SchemaError("a job is a mapping of fio options, or {fio: ...} or {fio_file: ...}",
                              file=file, field=field)
        entry = dict(entry)
        volume = entry.pop("volume", None)
        if volume is not None and not isinstance(volume, str):
            raise SchemaError("expected a volume name", file=file, field=f"{field}.volume")
        if volumes is not None:
            if volume is None:
                if len(volumes) != 1 and require_volume:
                    raise SchemaError(f"name the job's volume (one of: {', '.join(volumes)})", file=file,
                                      field=f"{field}.volume")
                volume = volumes[0] if volumes else ""
            elif volume not in volumes:
                raise UnknownIdError("volume", volume, volumes, file=file, field=f"{field}.volume")
        fio_jobs = _fio_jobs(entry, file, base, field, i)
        for fj in fio_jobs:
            try:
                io_sizes(fj)
            except InputError as e:
                raise e.located(file=file, field=field) from None
            ignored.extend(f"{fj.name}: {opt}" for opt in fj.ignored if opt not in MODELLED_OPTIONS)
            if fj.storage_io:  # a cpuio, net, null, exec ... job is listed as ignored, not modelled
                jobs.append(ScenarioJob(fj.name, volume or "", fj, field))
    if not jobs:
        raise SchemaError("no job does storage IO (their ioengines burn CPU, use the network or do "
                          "nothing): nothing to model", file=file, field="jobs")
    names = [j.name for j in jobs]
    for j in jobs:
        if names.count(j.name) > 1:
            raise SchemaError(f"two jobs are named {j.name!r}; give each job its own name", file=file,
                              field=f"{j.field}.name")
    return tuple(jobs), tuple(ignored)


def _fio_jobs(entry: dict, file: str, base: Path, field: str, index: int) -> list[FioJob]:
    if "fio" in entry or "fio_file" in entry:
        key = "fio" if "fio" in entry else "fio_file"
        others = [k for k in entry if k != key]
        if others:
            raise SchemaError(f"a job given by {key} takes only 'volume' beside it, not {others[0]!r}",
                              file=file, field=f"{field}.{others[0]}")
        value = entry[key]
        if not isinstance(value, str) or not value.strip():
            raise SchemaError(f"expected a {'fio command line' if key == 'fio' else 'path'} string", file=file,
                              field=f"{field}.{key}")
        try:
            if key == "fio":
                return parse_cmdline(value, source=f"{file}: {field}.fio")
            path = base / value
            try:
                text = read_text(path, what="fio job file")
            except InputError as e:
                raise SchemaError(f"cannot read fio job file {value!r}: {e.message}",
                                  file=file, field=f"{field}.fio_file") from None
            return parse_jobfile(text, source=str(path))
        except InputError as e:
            raise e if e.file else e.located(file=file, field=f"{field}.{key}") from None
    name = name_text(entry.pop("name"), file=file, field=f"{field}.name", what="job name") if "name" in entry \
        else f"job{index + 1}"
    argv = [f"--name={name}"]
    for key, value in entry.items():
        try:
            argv.append(f"--{key}={_fio_value(value)}")
        except TypeError:
            raise SchemaError(f"expected a fio option value (a number or a string), got {value!r}",
                              file=file, field=f"{field}.{key}") from None
    try:
        return parse_cmdline(argv, source=file)
    except InputError as e:
        option = (e.field or "").lstrip("-").split(".")[-1].lstrip("-")
        located = SchemaError(e.message, file=file, field=f"{field}.{option}" if option else field)
        raise located from None
