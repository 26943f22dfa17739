"""``iolab doctor``: read a Linux client's storage settings (from / or a saved copy of its
/proc and /sys files), check them against the services' published guidance, and say what
each fix is predicted to gain.

:mod:`.probe` reads the files into a :class:`~.probe.System`; :mod:`.rules` turns it into
findings; :mod:`.predicted` runs the model before and after a change.
"""

from .probe import Device, Mount, System, read_system
from .rules import Finding, diagnose

__all__ = ["Device", "Mount", "System", "read_system", "Finding", "diagnose"]
