"""Live progress while fio runs: one line for the current run, one for a sweep as a whole.

The current run's line shows its phase (``start``, ``layout`` while fio writes its files,
``ramp`` during ``--ramp``, then ``run``), elapsed and remaining time, and fio's current IOPS and
bandwidth (from its status line, :func:`iolab.fio.parse_status`). fio's status line has
no latency, so the latency shown is Little's law's estimate, IOs in flight / IOPS, marked
``≈``. A sweep adds a line with the points done and the time left.

:class:`LiveView` draws on a Rich console (stderr); :class:`QuietView` draws nothing and
prints one final line per run, for ``--json`` and for a stderr that is not a terminal.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Protocol

from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from ..fio import StatusLine, parse_status
from ..units import format_duration, format_ops, format_rate

__all__ = ["View", "QuietView", "LiveView", "clock_text"]

#: fio's bare status while it opens files: "Jobs: 1 (f=0)" (f = files open).
_FILES = re.compile(r"Jobs:\s*\d+\s*\(f=(\d+)\)")


def clock_text(seconds: float | None) -> str:
    """``m:ss`` (or ``h:mm:ss``) for a duration in seconds; ``-:--`` when unknown."""
    if seconds is None or seconds != seconds or seconds < 0:
        return "-:--"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class View(Protocol):
    """What the bench runner tells whoever watches."""

    #: True when the view wants fio's status lines (fio is asked for them only then).
    live: bool

    def sweep(self, points: int) -> None:
        """A sweep of `points` runs begins."""

    def begin(self, label: str, *, duration: float | None, ramp: float, outstanding: int) -> None:
        """A run begins; `duration` (s, ramp included) when known, IOs in flight at full load."""

    def line(self, text: str) -> None:
        """A line fio printed while running."""

    def end(self, summary: str) -> None:
        """The run ended; `summary` is its one-line result."""

    def note(self, text: str) -> None:
        """Something the user should know that is not fio's (a leftover removed, ...)."""

    def close(self) -> None:
        """Nothing more will come."""


class QuietView:
    """No live output; each run's summary line goes to `write` (default: nowhere)."""

    live = False

    def __init__(self, write: Callable[[str], None] | None = None):
        self._write = write

    def sweep(self, points: int) -> None:
        pass

    def begin(self, label: str, *, duration: float | None, ramp: float, outstanding: int) -> None:
        pass

    def line(self, text: str) -> None:
        pass

    def end(self, summary: str) -> None:
        if self._write:
            self._write(summary)

    def note(self, text: str) -> None:
        if self._write:
            self._write(text)

    def close(self) -> None:
        pass


class LiveView:
    """Rich live lines on `console`, redrawn a few times a second; `clock` gives seconds."""

    live = True

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic):
        self.console = console
        self.clock = clock
        self._lock = threading.Lock()
        self._live: Live | None = None
        self._points = 0
        self._done = 0
        self._sweep_start = 0.0
        self._reset("", None, 0.0, 0)

    def _reset(self, label: str, duration: float | None, ramp: float, outstanding: int) -> None:
        self.label = label
        self.duration = duration
        self.ramp = ramp
        self.outstanding = outstanding
        self.start = self.clock()
        self.io_start: float | None = None
        self.laying_out = False
        self.status: StatusLine | None = None

    def sweep(self, points: int) -> None:
        self._points, self._done, self._sweep_start = points, 0, self.clock()

    def begin(self, label: str, *, duration: float | None, ramp: float, outstanding: int) -> None:
        with self._lock:
            self._reset(label, duration, ramp, outstanding)
        if self._live is None:
            self._live = Live(console=self.console, get_renderable=self.render, refresh_per_second=4,
                              transient=True, redirect_stdout=False, redirect_stderr=False)
            self._live.start()

    def line(self, text: str) -> None:
        status = parse_status(text)
        with self._lock:
            if status is not None:
                self.status = status
                if self.io_start is None:
                    self.io_start = self.clock()
                return
            m = _FILES.search(text)
            if m is None:
                return
            if int(m.group(1)) == 0:
                self.laying_out = True
            elif self.io_start is None:  # files open: IO (and the ramp) begins
                self.io_start = self.clock()

    def end(self, summary: str) -> None:
        self._done += 1
        if self._live is not None:
            self._live.console.print(summary)

    def note(self, text: str) -> None:
        (self._live.console if self._live is not None else self.console).print(text, markup=False, highlight=False)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    # -- drawing ----------------------------------------------------------------------------

    def phase(self) -> str:
        """``start``, ``layout`` while fio writes its files, ``ramp`` during the ramp time,
        then ``run``."""
        if self.io_start is None:
            return "layout" if self.laying_out else "start"
        return "ramp" if self.clock() - self.io_start < self.ramp else "run"

    def run_line(self) -> Text:
        with self._lock:
            now = self.clock()
            elapsed = now - self.start
            status = self.status
            left = status.eta_seconds if status and status.eta_seconds is not None else (
                None if self.duration is None else max(0.0, self.duration - (now - (self.io_start or now))))
            phase = self.phase()
        parts = [f"{self.label}  ", (f"{phase:<6}", "bold yellow" if phase != "run" else "bold green"),
                 f"  {clock_text(elapsed)} elapsed, {clock_text(left)} left"]
        if status is not None:
            iops = (status.read_iops or 0.0) + (status.write_iops or 0.0) + (status.trim_iops or 0.0)
            bw = (status.read_bw or 0.0) + (status.write_bw or 0.0) + (status.trim_bw or 0.0)
            parts.append(f"  {format_ops(iops)}  {format_rate(bw)}")
            if iops > 0 and self.outstanding:
                parts.append(f"  lat ≈ {format_duration(self.outstanding / iops)}")
        return Text.assemble(*parts)

    def sweep_line(self) -> Text | None:
        if self._points <= 1:
            return None
        done = self._done
        per_point = (self.clock() - self._sweep_start) / done if done else self.duration
        left = None if per_point is None else per_point * (self._points - done)
        return Text(f"sweep: {done}/{self._points} points done, about {clock_text(left)} left", style="cyan")

    def render(self) -> Group:
        lines = [line for line in (self.sweep_line(), self.run_line()) if line is not None]
        return Group(*lines)
