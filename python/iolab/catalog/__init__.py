"""The catalog: VM sizes, disk SKUs, file-share service levels and protocols, as typed data.

The figures live in YAML files inside the package (``catalog/data``), each row with its
``source`` (document and date) and the list of its fields that are ``assumptions``.
:func:`load_catalog` reads them, then the user's own catalog files over them;
:func:`bundled_catalog` is the bundled data alone. All values are in base units:
bytes, seconds, bytes/s, ops/s.

    >>> from iolab.catalog import bundled_catalog
    >>> cat = bundled_catalog()
    >>> cat.vm("Standard_DS13").uncached_iops
    25600.0
    >>> cat.disk("premium-v2").caps(8 * 2**30, iops=4000)
    (4000.0, 125000000.0)
"""

from .catalog import SECTIONS, Catalog, Entry
from .defaults import Defaults
from .disk import IO_UNIT, DiskBurst, DiskSku, PerformancePlus, ProvisionedDisk
from .loader import TOP_LEVEL, bundled_catalog, load_catalog
from .protocol import Protocol
from .row import HOURS_PER_MONTH, Row, Sourced
from .scaled import ScaledDisk
from .service import ServiceLevel
from .vm import Vm

__all__ = [
    "Catalog",
    "Vm",
    "DiskSku",
    "DiskBurst",
    "PerformancePlus",
    "ProvisionedDisk",
    "ScaledDisk",
    "ServiceLevel",
    "Protocol",
    "Defaults",
    "Row",
    "Sourced",
    "Entry",
    "SECTIONS",
    "TOP_LEVEL",
    "IO_UNIT",
    "HOURS_PER_MONTH",
    "load_catalog",
    "bundled_catalog",
]
