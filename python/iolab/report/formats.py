"""Figures in a person's units for the report's tables."""

from __future__ import annotations

from ..units import format_duration, format_ops, format_rate

__all__ = ["value", "ratio", "latency"]


def value(figure: str, x: float | None) -> str:
    """``iops`` → ops/s, ``bandwidth`` → rate, anything with ``latency`` → duration."""
    if x is None:
        return "–"
    if "latency" in figure:
        return format_duration(x)
    if "bandwidth" in figure:
        return format_rate(x)
    return format_ops(x).removesuffix(" IOPS")


def latency(x: float | None) -> str:
    return "–" if x is None else format_duration(x)


def ratio(measured: float | None, predicted: float | None) -> str:
    return "–" if not measured or not predicted else f"{measured / predicted:.2f}"
