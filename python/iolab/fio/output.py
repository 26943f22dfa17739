"""fio's ``json`` and ``json+`` output into :class:`~iolab.fio.results.FioResult`, in base units.

What differs between fio versions, and how it is read:

- fio 3.x reports latencies in nanoseconds (``clat_ns``, ``lat_ns``, ``slat_ns``); fio 2.x
  in microseconds (``clat``, ``lat``, ``slat``). Both become seconds.
- ``bw`` is KiB/s in every version; ``bw_bytes`` (B/s) is used when present.
- fio 2.x wrote ``io_bytes`` in KiB (it had no ``io_kbytes``); fio 3.x writes bytes.
- Percentile keys ``"0.00"`` are fio's unused slots and are dropped.
- ``json+`` adds ``bins`` (latency in ns → IO count) to ``clat_ns`` (and ``lat_ns``/``slat_ns``
  when their percentiles are on); fio 2.x's index-keyed bins are not read.
- Client/server output has ``client_stats`` (each with ``hostname`` and ``port``) and fio's
  ``All clients`` aggregate; ``unified_rw_reporting`` adds a ``mixed`` direction.

Text around the JSON (warnings, ``<host>`` lines of a client run, status lines) is skipped;
when ``--status-interval`` printed several documents, the last one is the run's result.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from ..errors import SchemaError
from .results import ClientResult, DirectionResult, FioResult, JobResult, LatencyStats

__all__ = ["parse_output"]

_START = re.compile(r"^\{", re.M)
_MAX_COUNT = 2**63 - 1  # fio's counters are 64-bit
#: More than any run reports: one machine's fio issues tens of millions of IOs a second at
#: most (ioengine=null, every core), and moves at most that many of its largest blocks.
_MAX_IOPS = 1e11
_MAX_BANDWIDTH = 1e21  # bytes/s
_BUCKETS = {"latency_ns": 1e9, "latency_us": 1e6, "latency_ms": 1e3}  # units per second


class _Doc:
    """Typed access to the decoded JSON, raising SchemaError with the field's path."""

    def __init__(self, source: str, major: int):
        self.source = source
        self.major = major

    def fail(self, path: str, message: str) -> SchemaError:
        return SchemaError(message, file=self.source, field=path.lstrip("."))

    def num(self, obj: Mapping[str, Any], key: str, path: str, default: float | None = 0.0,
            most: float | None = None, what: str = "") -> float:
        value = obj.get(key, default)
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            if value is None and default is None:
                raise self.fail(f"{path}.{key}", "missing number")
            raise self.fail(f"{path}.{key}", f"expected a number, got {value!r}")
        if not math.isfinite(value):
            raise self.fail(f"{path}.{key}", f"expected a finite number, got {value!r}")
        if value < 0:  # fio reports no negative figure: counts, rates, times, percentages
            raise self.fail(f"{path}.{key}", f"expected a number of at least 0, got {value!r}")
        if most is not None and value > most:
            raise self.fail(f"{path}.{key}", f"{value:g} {what} is more than any fio run reports (at most {most:g}): "
                                             "not the output of a real run")
        return float(value)

    def whole(self, obj: Mapping[str, Any], key: str, path: str) -> int:
        """A count (IOs, bytes, an errno, a time stamp): a whole number from 0 to 2**63 - 1."""
        value = self.num(obj, key, path)
        if value != int(value) or value > _MAX_COUNT:
            raise self.fail(f"{path}.{key}", f"expected a whole number from 0 to {_MAX_COUNT}, got {obj[key]!r}")
        return int(value)

    def obj(self, parent: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any] | None:
        value = parent.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise self.fail(f"{path}.{key}", f"expected an object, got {type(value).__name__}")
        return value

    def latency(self, block: Mapping[str, Any], path: str, name: str) -> LatencyStats | None:
        stats, scale = self.obj(block, f"{name}_ns", path), 1e9
        key = f"{name}_ns"
        if stats is None:
            stats, scale, key = self.obj(block, name, path), 1e6, name  # fio 2.x: microseconds
        if stats is None:
            return None
        where = f"{path}.{key}"
        samples = self.whole(stats, "N", where) if stats.get("N") is not None else None
        values = {k: self.num(stats, k, where) for k in ("mean", "stddev", "min", "max")}
        if samples == 0 or (samples is None and not any(values.values())):
            return None
        if values["max"] > 0 and not values["min"] * (1 - 1e-9) <= values["mean"] <= values["max"] * (1 + 1e-9):
            raise self.fail(f"{where}.mean", f"the mean ({values['mean']:g}) is outside min ({values['min']:g}) "
                                             f"and max ({values['max']:g}): not the output of a real run")
        percentiles: dict[float, float] = {}
        raw = self.obj(stats, "percentile", where) or {}
        for pct_text, value in raw.items():
            try:
                pct = float(pct_text)
            except ValueError:
                raise self.fail(f"{where}.percentile", f"percentile key {pct_text!r} is not a number") from None
            if pct > 0:
                percentiles[pct] = self.num(raw, pct_text, f"{where}.percentile") / scale
        ordered = sorted(percentiles.items())
        for (p1, v1), (p2, v2) in zip(ordered, ordered[1:]):
            if v2 < v1:
                raise self.fail(f"{where}.percentile", f"the {p2:g}th percentile ({v2 * scale:g}) is below the "
                                                       f"{p1:g}th ({v1 * scale:g}): not the output of a real run")
        bins = None
        raw_bins = self.obj(stats, "bins", where)
        if raw_bins and self.major >= 3:
            try:
                bins = {int(k): int(v) for k, v in raw_bins.items()}
            except (TypeError, ValueError, OverflowError):
                raise self.fail(f"{where}.bins", "bins must map a latency in ns to a count") from None
        return LatencyStats(
            mean=values["mean"] / scale, stddev=values["stddev"] / scale,
            min=values["min"] / scale, max=values["max"] / scale, percentiles=percentiles,
            bins=bins, samples=samples,
        )

    def direction(self, job: Mapping[str, Any], name: str, path: str) -> DirectionResult | None:
        block = self.obj(job, name, path)
        if block is None:
            return None
        where = f"{path}.{name}"
        io_bytes = self.whole(block, "io_bytes", where)
        if "io_kbytes" not in block and self.major < 3:
            io_bytes *= 1024  # fio 2.x reported io_bytes in KiB
        iops = self.num(block, "iops", where, most=_MAX_IOPS, what="IOPS")
        runtime = self.num(block, "runtime", where) / 1000.0
        clat, lat = self.latency(block, where, "clat"), self.latency(block, where, "lat")
        if "total_ios" in block:
            total_ios = self.whole(block, "total_ios", where)
        else:
            # fio 2.x has no total_ios: the latency samples count the IOs, else IOPS × runtime,
            # so that merged latencies are weighted by IOs all the same
            samples = next((s.samples for s in (clat, lat) if s is not None and s.samples), None)
            total_ios = int(samples) if samples else int(round(iops * runtime))
        if total_ios == 0 and io_bytes == 0:
            return None
        bandwidth = (self.num(block, "bw_bytes", where, most=_MAX_BANDWIDTH, what="bytes/s") if "bw_bytes" in block
                     else self.num(block, "bw", where, most=_MAX_BANDWIDTH / 1024, what="KiB/s") * 1024.0)
        return DirectionResult(
            iops=iops, bandwidth=bandwidth, io_bytes=int(io_bytes), total_ios=total_ios, runtime=runtime,
            clat=clat, lat=lat, slat=self.latency(block, where, "slat"),
        )

    def job(self, raw: Any, path: str) -> JobResult:
        if not isinstance(raw, Mapping):
            raise self.fail(path, f"expected a job object, got {type(raw).__name__}")
        name = raw.get("jobname")
        if not isinstance(name, str):
            raise self.fail(f"{path}.jobname", "missing job name")
        options = self.obj(raw, "job options", path) or {}
        buckets: dict[float, float] = {}
        for key, scale in _BUCKETS.items():
            for bound, share in (self.obj(raw, key, path) or {}).items():
                number = bound[2:] if bound.startswith(">=") else bound
                if not number.replace(".", "", 1).isdigit():
                    raise self.fail(f"{path}.{key}", f"expected latency bounds ('250', '>=2000'), got {bound!r}")
                upper = math.inf if bound.startswith(">=") else float(bound) / scale
                buckets[upper] = buckets.get(upper, 0.0) + self.num({"v": share}, "v", f"{path}.{key}")
        elapsed = (self.num(raw, "elapsed", path) if "elapsed" in raw
                   else self.num(raw, "job_runtime", path) / 1000.0)
        port = raw.get("port")
        return JobResult(
            name=name, hostname=raw.get("hostname") if isinstance(raw.get("hostname"), str) else None,
            read=self.direction(raw, "read", path), write=self.direction(raw, "write", path),
            trim=self.direction(raw, "trim", path), mixed=self.direction(raw, "mixed", path),
            usr_cpu=self.num(raw, "usr_cpu", path), sys_cpu=self.num(raw, "sys_cpu", path),
            ctx=self.whole(raw, "ctx", path), error=self.whole(raw, "error", path),
            elapsed=elapsed, job_options={str(k): str(v) for k, v in options.items()},
            groupid=self.whole(raw, "groupid", path), port=port if isinstance(port, int) else None,
            latency_buckets=dict(sorted(buckets.items())),
        )

    def disk(self, raw: Any, path: str) -> dict[str, object]:
        if not isinstance(raw, Mapping):
            raise self.fail(path, "expected a disk object")
        row: dict[str, object] = {"name": str(raw.get("name", ""))}
        for key in ("read_ios", "write_ios", "read_merges", "write_merges"):
            row[key] = self.whole(raw, key, path)
        for key, out in (("read_ticks", "read_time"), ("write_ticks", "write_time"), ("in_queue", "in_queue_time")):
            row[out] = self.num(raw, key, path) / 1000.0  # fio reports milliseconds
        row["util"] = self.num(raw, "util", path)
        if "aggr_util" in raw:
            row["aggregate_util"] = self.num(raw, "aggr_util", path)
        return row


def _documents(text: str, source: str) -> list[dict[str, Any]]:
    """Every top-level fio JSON document in `text` (a ``{`` at the start of a line)."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    error: json.JSONDecodeError | None = None
    starts = [m.start() for m in _START.finditer(text)]
    stripped = len(text) - len(text.lstrip())
    if text.lstrip().startswith("{") and stripped not in starts:
        starts.insert(0, stripped)
    end = 0
    for start in starts:
        if start < end:
            continue
        try:
            doc, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as e:
            error = error or e
            continue
        if isinstance(doc, dict) and "fio version" in doc:
            found.append(doc)
    if not found:
        if error is not None:
            raise SchemaError(f"malformed fio JSON: {error.msg} at line {error.lineno} column {error.colno}",
                              file=source)
        raise SchemaError("no fio JSON document found (run fio with --output-format=json or json+)",
                          file=source)
    return found


def _major(version: str) -> int:
    m = re.search(r"(\d+)\.", version)
    return int(m.group(1)) if m else 3


def _global_options(raw: Any, reader: "_Doc") -> dict[str, str]:
    """fio's ``global options``: an object, or (some fio versions, client/server output) a
    list of objects, each ``{"name": ..., "value": ...}`` or ``{option: value}``."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return {str(k): str(v) for k, v in raw.items()}
    if not isinstance(raw, list):
        raise reader.fail("global options", f"expected an object or a list, got {type(raw).__name__}")
    out: dict[str, str] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise reader.fail(f"global options[{i}]", f"expected an object, got {type(item).__name__}")
        if "name" in item and set(item) <= {"name", "value"}:
            out[str(item["name"])] = "" if item.get("value") is None else str(item["value"])
        else:
            out.update({str(k): str(v) for k, v in item.items()})
    return out


def parse_output(text: str, *, source: str = "fio output") -> FioResult:
    """Read fio's ``json`` or ``json+`` output (text around it is skipped) into a FioResult.

    Raises SchemaError naming `source` when there is no fio JSON document, when it is
    malformed or cut short, or when a field has the wrong type (the field path is named,
    e.g. ``jobs[0].read.iops``).
    """
    doc = _documents(text, source)[-1]
    version = str(doc.get("fio version", ""))
    reader = _Doc(source, _major(version))
    timestamp = reader.whole(doc, "timestamp", "") if isinstance(doc.get("timestamp"), (int, float)) else None
    disks = doc.get("disk_util") or []
    if not isinstance(disks, list):
        raise reader.fail("disk_util", "expected a list")
    disk_util = tuple(reader.disk(d, f"disk_util[{i}]") for i, d in enumerate(disks))
    global_options = _global_options(doc.get("global options"), reader)

    if "client_stats" in doc:
        raw_jobs, key = doc["client_stats"], "client_stats"
    elif "jobs" in doc:
        raw_jobs, key = doc["jobs"], "jobs"
    else:
        raise reader.fail("jobs", "the fio JSON document has neither 'jobs' nor 'client_stats'")
    if not isinstance(raw_jobs, list):
        raise reader.fail(key, f"expected a list, got {type(raw_jobs).__name__}")
    jobs = [reader.job(j, f"{key}[{i}]") for i, j in enumerate(raw_jobs)]

    all_clients = None
    clients: tuple[ClientResult, ...] = ()
    if key == "client_stats":
        all_clients = next((j for j in jobs if j.name == "All clients"), None)
        jobs = [j for j in jobs if j.name != "All clients"]
        hosts: dict[tuple[str, int | None], list[JobResult]] = {}
        for j in jobs:
            hosts.setdefault((j.hostname or "", j.port), []).append(j)
        clients = tuple(ClientResult(h, p, tuple(js)) for (h, p), js in hosts.items())
    return FioResult(
        fio_version=version, timestamp=timestamp,
        jobs=tuple(jobs), disk_util=disk_util, clients=clients, all_clients=all_clients,
        global_options=global_options,
    )
