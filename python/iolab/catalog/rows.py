"""A catalog section whose rows are made when first looked up.

The bundled catalog holds well over a thousand rows, and a command reads a few dozen: the
rows of one cloud that a search's allow-lists name, priced in one region. A
:class:`LazyRows` keeps, for every id, the cloud its row belongs to (known without making
the row), and makes a row — unpickles it from the prebuilt copy, or prices it for a region
— the first time it is looked up. Narrowing to one cloud and pricing in a region therefore
cost nothing until a row is read, and each row is made once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["LazyRows", "clouds_of", "of_cloud"]


class LazyRows(Mapping):
    """Rows by id, each made by ``make(id)`` on its first lookup; ``clouds`` gives the id of
    every row (in the section's order) and the cloud it belongs to (None for the rows of
    every cloud: protocols). Read-only, like the catalog it belongs to."""

    __slots__ = ("_make", "clouds", "_made")

    def __init__(self, make: Callable[[str], Any], clouds: Mapping[str, str | None],
                 made: dict[str, Any] | None = None) -> None:
        self._make = make
        self.clouds = clouds
        self._made = {} if made is None else made

    def __getitem__(self, ident: str) -> Any:
        try:
            return self._made[ident]
        except KeyError:
            if ident not in self.clouds:
                raise KeyError(ident) from None
            row = self._made[ident] = self._make(ident)
            return row

    def __iter__(self) -> Iterator[str]:
        return iter(self.clouds)

    def __len__(self) -> int:
        return len(self.clouds)

    def __contains__(self, ident: object) -> bool:
        return ident in self.clouds

    def __repr__(self) -> str:
        return f"LazyRows({len(self.clouds)} rows, {len(self._made)} made)"

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (dict(self),)  # a copy (pickled, deep-copied) holds its rows made

    def of_cloud(self, cloud: str) -> "LazyRows":
        """The rows of ``cloud`` alone, made (once) by the same function as these."""
        return LazyRows(self._make, {k: c for k, c in self.clouds.items() if c == cloud}, self._made)


def clouds_of(rows: Mapping[str, Any]) -> Mapping[str, str | None]:
    """Each id of ``rows`` with the cloud of its row, making no row of a :class:`LazyRows`."""
    if isinstance(rows, LazyRows):
        return rows.clouds
    return {k: getattr(r, "cloud", None) for k, r in rows.items()}


def of_cloud(rows: Mapping[str, Any], cloud: str) -> LazyRows:
    """The rows of ``cloud`` among ``rows``."""
    lazy = rows if isinstance(rows, LazyRows) else LazyRows(rows.__getitem__, clouds_of(rows))
    return lazy.of_cloud(cloud)
