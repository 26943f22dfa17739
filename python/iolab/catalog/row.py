"""What every catalog row has: where its figures come from, and which of them are assumed."""


from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import Field, field_validator, model_validator

from ..schema import FrozenModel
from .cloud import DEFAULT_CLOUD, CloudName

__all__ = ["Sourced", "Row", "CloudRow", "HOURS_PER_MONTH", "PRICE_FIELDS"]

HOURS_PER_MONTH = 730.0
"""Hours in a billing month: an hourly price times this is the monthly price."""

PRICE_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "vms": ("price_per_month",),
    "disks": ("price_per_month",),
    "provisioned": ("price_per_gib_month", "price_per_iops_month", "price_per_mbps_month"),
    "services": ("price_per_gib_month", "price_per_mibps_month", "price_per_iops_month"),
    "scaled": ("price_per_gib_month",),
})
"""The price fields of each catalog section (a VM's ``price_per_month`` may be given as
``price_per_hour``)."""


class Sourced(FrozenModel):
    """Figures with provenance.

    ``source`` names the document the figures come from and its date. ``assumptions``
    lists the fields whose values are *not* published (defaults, inferences, unverified
    prices); calibration or a user's catalog file should replace them. ``notes`` says
    anything else a reader needs (contradicting pages, older values).
    """

    source: str = Field(min_length=1)
    assumptions: tuple[str, ...] = ()
    notes: str = ""

    #: Groups of fields that state the same thing in different ways: a user's file that
    #: gives one of them replaces the others (``price_per_hour`` vs ``price_per_month``).
    alternatives: ClassVar[tuple[frozenset[str], ...]] = ()

    @field_validator("assumptions", mode="before")
    @classmethod
    def _one_name(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _known_assumptions(self) -> "Sourced":
        fields = type(self).model_fields
        for name in self.assumptions:
            if name not in fields:
                raise ValueError(f"assumptions names {name!r}, which is not a field of this entry")
        return self

    def is_assumed(self, field: str) -> bool:
        """True when ``field``'s value is an assumption rather than a published figure."""
        return field in self.assumptions


class Row(Sourced):
    """A catalog entry with an ``id`` (its key in the catalog file)."""

    id: str = Field(min_length=1)


class CloudRow(Row):
    """A row that belongs to one cloud (VM sizes, disks, service levels): ``cloud`` is
    ``azure`` (the default), ``gcp`` or ``aws`` (:mod:`iolab.catalog.cloud`)."""

    cloud: CloudName = DEFAULT_CLOUD
