"""Running fio: one method, ``Executor.run(argv, on_line, cwd=) -> Completed``.

:class:`ProcessExecutor` starts the real program without a shell, in its own session (so a
Ctrl-C stops fio's whole process group and nothing else), hands every status line to
`on_line` as it arrives (fio ends its status lines with ``\\r`` or ``\\n``) and collects
standard error. :class:`FakeExecutor` plays back scripted runs for tests.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..errors import RunError

__all__ = ["Completed", "Executor", "ProcessExecutor", "FakeRun", "FakeExecutor"]

OnLine = Callable[[str], None]


@dataclass(frozen=True)
class Completed:
    """How a program ended: exit status, its stdout and stderr text, whether it was interrupted.

    ``returncode`` is negative when a signal ended it (as :mod:`subprocess` reports);
    ``elapsed`` is the wall time in seconds; ``timed_out`` when it was stopped for running
    past its time limit.
    """

    returncode: int
    stdout: str
    stderr: str
    interrupted: bool = False
    elapsed: float = 0.0
    timed_out: bool = False


class Executor(Protocol):
    """Runs one program to completion (``interrupt`` stops those running, from another thread)."""

    def run(self, argv: Sequence[str], on_line: OnLine | None = None, *,
            cwd: str | os.PathLike[str] | None = None, timeout: float | None = None) -> Completed:
        """Run `argv` (no shell) in `cwd`, calling `on_line` for each stdout line.

        Raises RunError when the program cannot be started (missing, not executable). A
        KeyboardInterrupt while it runs stops it and returns ``interrupted=True``; a program
        still running after `timeout` seconds is stopped and returns ``timed_out=True``.
        """

    def interrupt(self) -> None:
        """Stop every program running now; their ``run`` calls return ``interrupted=True``."""


def _split_lines(buffer: str) -> tuple[list[str], str]:
    """Split on ``\\r`` and ``\\n``; returns complete lines and the unfinished rest."""
    lines: list[str] = []
    start = 0
    for i, ch in enumerate(buffer):
        if ch in "\r\n":
            if i > start:
                lines.append(buffer[start:i])
            start = i + 1
    return lines, buffer[start:]


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to send SIGTERM when iolab dies (even by SIGKILL),
    so fio stops and removes its files (``unlink=1``) instead of running on unattended."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ProcessExecutor:
    """The real thing: :class:`subprocess.Popen` with an argv list, in a new session.

    `grace` is how long (seconds) a stopped program may take to exit after SIGINT before
    its process group is killed.
    """

    def __init__(self, grace: float = 5.0):
        self.grace = grace
        self._lock = threading.Lock()
        self._running: dict[int, subprocess.Popen[bytes]] = {}
        self._stopped: set[int] = set()

    def interrupt(self) -> None:
        """Stop every program this executor runs now (from another thread); their ``run``
        calls return ``interrupted=True``."""
        with self._lock:
            procs = list(self._running.values())
            self._stopped.update(p.pid for p in procs)
        for proc in procs:
            self._stop(proc)

    def run(self, argv: Sequence[str], on_line: OnLine | None = None, *,
            cwd: str | os.PathLike[str] | None = None, timeout: float | None = None) -> Completed:
        argv = [os.fspath(a) for a in argv]
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        except FileNotFoundError as e:
            raise RunError(f"{argv[0]} is not installed (or not on PATH): {e.strerror}") from e
        except PermissionError as e:
            raise RunError(f"{argv[0]} cannot be run: {e.strerror}") from e
        with self._lock:
            self._running[proc.pid] = proc
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            self._stop(proc, signal.SIGTERM)

        timer = threading.Timer(timeout, expire) if timeout is not None else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        err_chunks: list[bytes] = []
        reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)
        reader.start()
        out_parts: list[str] = []
        interrupted = False
        try:
            rest = ""
            assert proc.stdout is not None
            fd = proc.stdout.fileno()
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                text = chunk.decode("utf-8", "replace")
                out_parts.append(text)
                lines, rest = _split_lines(rest + text)
                if on_line:
                    for line in lines:
                        on_line(line)
            if rest and on_line:
                on_line(rest)
            proc.wait()
        except KeyboardInterrupt:
            interrupted = True
            self._stop(proc)
        finally:
            if proc.poll() is None:  # an exception from on_line: do not leave fio running
                self._stop(proc)
        if timer is not None:
            timer.cancel()
        reader.join(timeout=self.grace)
        proc.stdout.close()
        if not reader.is_alive():  # else a forked worker still holds the pipe: the reader owns it
            proc.stderr.close()
        with self._lock:
            self._running.pop(proc.pid, None)
            interrupted = interrupted or proc.pid in self._stopped
            self._stopped.discard(proc.pid)
        return Completed(proc.returncode, "".join(out_parts), b"".join(err_chunks).decode("utf-8", "replace"),
                         interrupted, time.monotonic() - started, expired.is_set() and not interrupted)

    def _stop(self, proc: subprocess.Popen[bytes], first: int = signal.SIGINT) -> None:
        """`first` (SIGINT; SIGTERM at the time limit) to the whole process group (fio then
        stops its jobs cleanly), SIGKILL after `grace`."""
        for sig, wait in ((first, self.grace), (signal.SIGKILL, self.grace)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        # fio may have forked workers that outlive their parent for a moment
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@dataclass
class FakeRun:
    """One scripted run: status lines to emit, what to return, files to write.

    ``files`` maps a path (relative to the run's cwd, or absolute) to its content; it stands
    for the files fio lays out. ``output``, when set, is written to the path that
    ``--output=`` names in argv (fio's JSON). ``interrupt`` makes the run end as if Ctrl-C
    had been pressed after the lines; ``missing`` as if the program were not installed;
    ``timed_out`` as if it had been stopped at its time limit.
    """

    lines: Sequence[str] = ()
    output: str | None = None
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    files: dict[str, bytes] = field(default_factory=dict)
    interrupt: bool = False
    missing: bool = False
    timed_out: bool = False


class FakeExecutor:
    """Plays back :class:`FakeRun` s in order (the last one repeats); records every call.

    ``calls`` holds ``(argv, cwd)`` pairs, ``timeouts`` the time limits asked for;
    ``jobfiles`` the text of the job files named in argv at the time of the call (they are
    deleted after a run).
    """

    def __init__(self, *runs: FakeRun | Callable[[Sequence[str]], FakeRun]):
        self.runs = list(runs) or [FakeRun()]
        self.calls: list[tuple[list[str], str | None]] = []
        self.jobfiles: list[str] = []
        self.timeouts: list[float | None] = []
        self.interrupted = False

    def interrupt(self) -> None:
        self.interrupted = True

    def run(self, argv: Sequence[str], on_line: OnLine | None = None, *,
            cwd: str | os.PathLike[str] | None = None, timeout: float | None = None) -> Completed:
        argv = [os.fspath(a) for a in argv]
        self.timeouts.append(timeout)
        self.calls.append((argv, None if cwd is None else os.fspath(cwd)))
        for a in argv[1:]:
            if a.endswith(".fio") and os.path.exists(a):
                self.jobfiles.append(Path(a).read_text())
        entry = self.runs[min(len(self.calls) - 1, len(self.runs) - 1)]
        run = entry(argv) if callable(entry) else entry
        if run.missing:
            raise RunError(f"{argv[0]} is not installed (or not on PATH)")
        base = Path(cwd) if cwd is not None else Path.cwd()
        for name, content in run.files.items():
            (base / name).write_bytes(content)
        for line in run.lines:
            if on_line:
                on_line(line)
        if run.output is not None:
            for a in argv:
                if a.startswith("--output="):
                    Path(a.split("=", 1)[1]).write_text(run.output)
        return Completed(run.returncode, run.stdout or "\n".join(run.lines), run.stderr,
                         run.interrupt or self.interrupted, 0.0, run.timed_out)
