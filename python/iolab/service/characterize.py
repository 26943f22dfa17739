"""The characterize job: telemetry files (or a trace sampled live) in, a
:class:`CharacterizeResult` out, whose :meth:`~CharacterizeResult.to_json` is ``iolab
characterize --json``'s document: percentiles per device and combined, busy windows, and a
requirements file that ``iolab plan`` reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .source import Source, as_source

if TYPE_CHECKING:
    from ..telemetry import Trace
    from ..telemetry.profile import Profile

__all__ = ["CharacterizeOptions", "CharacterizeResult", "characterize_files"]


@dataclass(frozen=True)
class CharacterizeOptions:
    """``percentile`` and ``comfort`` size the requirements; ``devices`` picks the devices
    combined; ``interval`` (seconds) is the time between reports of files without times;
    ``output`` receives the requirements file, ``plot`` the time series (drawn here);
    ``store`` saves the characterization in the results database ``db``."""

    percentile: float = 95.0
    comfort: float = 1.3
    devices: tuple[str, ...] = ()
    interval: float | None = None
    output: Path | None = None
    force: bool = False
    plot: Path | None = None
    store: bool = True
    db: Path | None = None


@dataclass(frozen=True)
class CharacterizeResult:
    """The profile, the requirements text, and where it went (file, plot, stored run id)."""

    profile: Profile
    requirements: str
    run_id: int | None = None
    output: Path | None = None
    plot: Path | None = None

    def to_json(self) -> dict:
        """``iolab characterize --json`` (docs/characterize.md)."""
        doc = self.profile.to_json()
        doc["run_id"] = self.run_id
        if self.output is not None:
            doc["output"] = str(self.output)
        if self.plot is not None:
            doc["plot"] = str(self.plot)
        return doc


def characterize_files(files: Sequence[Source | str | Path], options: CharacterizeOptions = CharacterizeOptions(),
                       *, trace: Trace | None = None) -> CharacterizeResult:
    """Characterize telemetry files (each a path; text in memory is written to a private
    temporary directory under its display name, since readers tell devices apart by file
    name), or a `trace` already sampled (``--live``). InputError naming the file and line
    for what cannot be read; SchemaError when no sample was taken."""
    import tempfile

    from ..errors import SchemaError
    from ..telemetry import read_files
    from ..telemetry.output import store_profile, timeseries_plot, write_text
    from ..telemetry.profile import profile, requirements_yaml

    if options.output is not None:
        from ..outputs import check_output

        check_output(options.output, force=options.force)
    if trace is None:
        if not files:
            raise SchemaError("give one or more telemetry files (or --live DEVICE|MOUNT)", field="FILE")
        sources = [as_source(f) for f in files]
        with tempfile.TemporaryDirectory(prefix="iolab-telemetry-") as tmp:
            paths: list[str | Path] = []
            for i, src in enumerate(sources):
                if src.path is not None:
                    paths.append(src.path)
                    continue
                folder = Path(tmp) / str(i)
                folder.mkdir()
                path = folder / Path(src.name).name
                path.write_text(src.text or "", encoding="utf-8")
                paths.append(path)
            trace = read_files(paths, interval=options.interval)
        if options.interval is not None and not trace.interval_used:
            from ..errors import InputError

            raise InputError("has no effect here: it applies with --live, or to files without times of their own "
                             "(these files carry theirs)", field="--interval")
    if not trace.samples:
        raise SchemaError("no samples were taken (the duration is shorter than one interval?)", field="--live")
    p = profile(trace, percentile=options.percentile, comfort=options.comfort, devices=list(options.devices) or None)
    text = requirements_yaml(p, f"iolab characterize --percentile {options.percentile:g} "
                                f"--comfort {options.comfort:g}")
    if options.plot is not None:
        timeseries_plot(options.plot, p, f"combined load ({', '.join(p.devices)})")
    if options.output is not None:
        write_text(options.output, text)
    run_id = store_profile(p, text, options.db) if options.store else None
    return CharacterizeResult(p, text, run_id, options.output, options.plot)
