"""Interrupts: Ctrl-C and SIGTERM stop a command after its clean-up, and the command exits
128 + the signal's number (130, 143) with the signal named on stderr."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import IolabError

__all__ = ["Interrupted", "received_signal", "record_signal", "interrupt_text", "interrupts_raise",
           "interrupts_set", "reset"]

_received: list[int] = []  # the signal that interrupted the current command, if any


class Interrupted(IolabError):
    """A command stopped by Ctrl-C or SIGTERM after cleaning up; exits 128 + the signal."""

    def __init__(self, detail: str = "", signum: int | None = None):
        self.signum = signum if signum is not None else received_signal()
        self.exit_code = 128 + self.signum
        super().__init__(interrupt_text(self.signum) + (f": {detail}" if detail else ""))


def received_signal() -> int:
    """The signal that interrupted the command (SIGINT when none was recorded)."""
    return _received[-1] if _received else int(signal.SIGINT)


def record_signal(signum: int) -> None:
    """Remember which signal interrupted the command (a handler calls this)."""
    _received.append(int(signum))


def interrupt_text(signum: int) -> str:
    return "interrupted (Ctrl-C)" if signum == signal.SIGINT else f"interrupted by {signal.Signals(signum).name}"


def _raise_interrupt(signum: int, frame: Any) -> None:
    record_signal(signum)
    raise KeyboardInterrupt


@contextmanager
def _handling(handler: Any) -> Iterator[None]:
    """SIGINT and SIGTERM go to `handler` while the block runs (main thread only: signals
    reach no other), then the previous handlers come back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def interrupts_raise() -> Any:
    """While the block runs, SIGINT and SIGTERM both raise KeyboardInterrupt (so that every
    clean-up path runs) and the signal is remembered for the exit code."""
    return _handling(_raise_interrupt)


def interrupts_set(flag: threading.Event) -> Any:
    """While the block runs, SIGINT and SIGTERM set `flag` (the work stops at its next poll)
    instead of raising; the signal is remembered for the exit code."""

    def handler(signum: int, frame: Any) -> None:
        record_signal(signum)
        flag.set()

    return _handling(handler)


def reset() -> None:
    """Forget the signals of an earlier command (each command starts clean)."""
    _received.clear()
