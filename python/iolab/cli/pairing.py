"""Options that only mean something beside another: given alone they would be ignored
silently, so they are refused (exit 2) with the option they need named."""

from __future__ import annotations

from ..errors import InputError

__all__ = ["refuse_alone"]


def refuse_alone(option: str, given: object, applies: str) -> None:
    """InputError naming `option` when it was `given` (anything but None, False or empty)
    where it has no effect; `applies` says when it has one (``"with --live"``)."""
    if given is None or given is False or given == [] or given == ():
        return
    raise InputError(f"has no effect here: it applies {applies}", field=option)
