"""The fio program: is it there, is it new enough, and what its failures mean for the user.

Each message says what went wrong and what to do about it.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Sequence

from ..errors import RunError
from .executor import Executor

__all__ = ["MIN_VERSION", "fio_version", "diagnose"]

#: the oldest fio iolab runs: nanosecond latencies, json+ bins, lat_percentiles, $clientuid.
MIN_VERSION = (3, 0)


def fio_version(executor: Executor, fio: str = "fio") -> str:
    """Ask `fio` for its version (``fio-3.33``). Raises RunError when fio is missing, does
    not answer like fio, or is older than :data:`MIN_VERSION`."""
    try:
        done = executor.run([fio, "--version"])
    except RunError as e:
        raise RunError(f"{e}; install it (Debian/Ubuntu: sudo apt-get install fio; "
                       "Fedora: sudo dnf install fio) or name it with --fio PATH") from None
    text = (done.stdout or done.stderr).strip()
    m = re.search(r"fio-(\d+)\.(\d+)", text)
    if done.returncode != 0 or not m:
        raise RunError(f"{fio} --version answered {text[:80]!r}, not like fio: name fio with --fio PATH")
    if (int(m.group(1)), int(m.group(2))) < MIN_VERSION:
        raise RunError(f"{m.group(0)} is too old: iolab needs fio {MIN_VERSION[0]}.{MIN_VERSION[1]} or newer "
                       "(nanosecond latencies, json+ output); install a newer fio")
    return m.group(0)


def diagnose(stderr: str, *, job_errors: Sequence[tuple[str, int]] = (), fstype: str | None = None,
             direct: bool = False, returncode: int = 0, writes: bool = True) -> str:
    """Explain a failed fio run in one message with a suggested fix.

    `stderr` is fio's error text, `job_errors` the (job, errno) pairs its JSON reported,
    `fstype` the target's filesystem, `direct` whether O_DIRECT was asked for and `writes`
    whether any job writes (a refused open of a run that only reads is no write problem).
    """
    text = stderr.strip()
    codes = {code for _, code in job_errors}
    m = re.search(r"engine (\S+) not loadable", text)
    if m or "failed to load engine" in text:
        engine = m.group(1) if m else "the ioengine"
        return (f"ioengine {engine} is not available in this fio build or on this kernel: "
                "pick another with --ioengine (psync works everywhere; libaio or io_uring for queue depth)")
    einval = errno.EINVAL in codes or "Invalid argument" in text
    if direct and einval:
        if fstype == "tmpfs":
            return "tmpfs does not support O_DIRECT: use --no-direct or a disk-backed directory"
        where = f" ({fstype})" if fstype else ""
        return (f"the target's filesystem{where} refused O_DIRECT (EINVAL): use --no-direct, or a block "
                "size that is a multiple of the device's sector size")
    if errno.ENOSPC in codes or "No space left" in text:
        return "the target ran out of space: use a smaller --size"
    if errno.EACCES in codes or errno.EPERM in codes or "Permission denied" in text:
        if not writes:
            return "fio may not open the target to read it (permission denied): check its permissions"
        return "fio may not write to the target: check its permissions"
    if "connect" in text and ("refused" in text or "failed" in text):
        return f"cannot reach the fio server: {_last_lines(text)}"
    if job_errors:
        job, code = job_errors[0]
        return f"job {job!r} failed: {_strerror(code)} (errno {code})" + (f"; fio said: {_last_lines(text)}"
                                                                          if text else "")
    if returncode < 0:
        return f"fio was killed by signal {-returncode}" + (f": {_last_lines(text)}" if text else "")
    return f"fio failed (exit {returncode})" + (f": {_last_lines(text)}" if text else "")


def _last_lines(text: str, n: int = 3) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " / ".join(lines[-n:])


def _strerror(code: int) -> str:
    """The C library's text for an errno; fio's output can carry any number there."""
    try:
        return os.strerror(code)
    except (ValueError, OverflowError):
        return "unknown error"
