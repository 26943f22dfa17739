"""Facts about the machine a run happens on: host name, kernel, the target's filesystem."""

from __future__ import annotations

import os
import platform
import socket
from dataclasses import dataclass
from pathlib import Path

from .probe import Probe, SystemProbe, mount_of, parse_mounts

__all__ = ["Machine", "describe"]


@dataclass(frozen=True)
class Machine:
    """Where a run happens: host name, kernel release, and the target's filesystem
    type and mount options (None when the mount table does not say)."""

    host: str
    kernel: str
    fstype: str | None
    mount_options: str | None


def describe(target: Path, probe: Probe | None = None) -> Machine:
    """Describe this machine and the filesystem holding `target` (a resolved path)."""
    probe = probe or SystemProbe()
    mount = mount_of(Path(os.path.realpath(target)), parse_mounts(probe.mounts()))
    return Machine(socket.gethostname(), platform.release(),
                   mount.fstype if mount else None, mount.options if mount else None)
