"""What a job reads: a file on disk, or text already in memory with a name to show (a web
page's request body), so that every interface hands the service the same thing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..scenario import Scenario

__all__ = ["Source", "as_source", "load_scenario_source", "warnings_of"]


@dataclass(frozen=True)
class Source:
    """A file (``path``) or in-memory ``text`` shown in messages as ``name``; relative paths
    inside it (``fio_file``, ``catalog``) start from ``base``."""

    name: str
    path: Path | None = None
    text: str | None = None
    base: Path | None = None

    @classmethod
    def file(cls, path: str | Path) -> Source:
        p = Path(path)
        return cls(str(p), path=p, base=p.parent)

    @classmethod
    def memory(cls, text: str, name: str, base: str | Path | None = None) -> Source:
        return cls(name, text=text, base=Path(base) if base is not None else Path("."))

    @property
    def display(self) -> str:
        """The name a person reads (the file's name without its directories)."""
        return self.path.name if self.path is not None else self.name


def as_source(item: Source | str | Path) -> Source:
    """A :class:`Source` from a path, or the source itself."""
    return item if isinstance(item, Source) else Source.file(item)


def load_scenario_source(source: Source | str | Path, catalog: Sequence[str | Path] = (),
                         calibration: str | Path | None = None) -> Scenario:
    """The scenario a source holds, validated (errors name the source and the field), with a
    calibration file applied when one is given."""
    from ..scenario import load_scenario, read_scenario

    src = as_source(source)
    if src.path is not None:
        from ..filekind import expect

        expect(src.path, "scenario")
        s = load_scenario(src.path, tuple(catalog))
    else:
        s = read_scenario(src.text or "", file=src.name, base=src.base, catalog_files=tuple(catalog))
    if calibration is not None:
        from ..calibrate import apply_calibration

        s = apply_calibration(s, calibration)
    return s


def warnings_of(source: Source, loaded: object) -> list:
    """The warnings about a loaded file (:func:`iolab.traps.traps_of`), read from the
    source's own text when it is held in memory."""
    from ..traps import traps_of

    if source.path is not None:
        return traps_of(loaded)
    from ..schema import parse_yaml

    return traps_of(loaded, parse_yaml(source.text or "", file=source.name), source.base)
