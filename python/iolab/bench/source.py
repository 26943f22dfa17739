"""Where a bench run's jobs and hosts come from: a scenario, a fio job file or fio-style
flags; ``--client`` hosts and a clients file. Errors name the file and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError
from ..fio import FioJob, parse_jobfile
from ..inputs import read_text
from ..units import format_duration, parse_duration
from .hosts import Host, parse_host, read_clients, unique

__all__ = ["load_jobs", "load_hosts", "duration_option"]


def scenario_jobs(path: Path, catalog: list[Path], volume: str | None) -> tuple[tuple[FioJob, ...], Any]:
    """A scenario's jobs on one volume, and the scenario restricted to them."""
    from ..scenario import load_scenario

    scenario = load_scenario(path, catalog)
    volumes = sorted({j.volume for j in scenario.jobs})
    if volume is None and len(volumes) > 1:
        raise InputError(f"the jobs use volumes {', '.join(volumes)}: pick the one --target stands for "
                         "with --volume NAME", file=str(path), field="jobs")
    if volume is not None and volume not in volumes:
        raise InputError(f"no job uses volume {volume!r} (jobs use: {', '.join(volumes)})", field="--volume")
    chosen = tuple(j for j in scenario.jobs if volume is None or j.volume == volume)
    scenario = scenario.replace_jobs(chosen)
    return tuple(j.fio for j in chosen), scenario


def load_jobs(source: Path | None, catalog: list[Path], volume: str | None) -> tuple[tuple[FioJob, ...], Any]:
    """The jobs to run and the scenario describing the target (None for a job file or flags).

    `source` is a scenario (``.yaml``/``.yml``), a fio job file, or None (one job with fio's
    defaults, for fio-style flags); `volume` picks the scenario volume the target stands for.
    """
    if source is None:
        return (FioJob(name="bench"),), None
    if source.suffix.lower() in (".yaml", ".yml"):
        return scenario_jobs(source, catalog, volume)
    text = read_text(source, what="job file")
    return tuple(parse_jobfile(text, source=str(source))), None


def load_hosts(clients: list[str], clients_file: Path | None) -> tuple[Host, ...]:
    """The ``--client`` hosts then the clients file's, each once."""
    hosts = [parse_host(c) for c in clients]
    if clients_file is not None:
        text = read_text(clients_file, what="clients file")
        hosts += read_clients(text, file=str(clients_file))
    return tuple(unique(hosts))


def duration_option(text: str | None, option: str, *, positive: bool, most: float | None = None) -> float | None:
    """A duration option in seconds (None when not given), at most `most` seconds when
    given; InputError naming `option`."""
    if text is None:
        return None
    try:
        value = parse_duration(text)
    except InputError as e:
        raise InputError(e.message, field=option) from None
    if positive and value <= 0:
        raise InputError(f"must be more than 0 s, got {text!r}", field=option)
    if most is not None and value > most:
        raise InputError(f"must be at most {format_duration(most)}, got {text!r}", field=option)
    return value
