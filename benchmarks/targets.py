"""Printing a benchmark's figures against its targets (shared by the bench_* scripts)."""

from __future__ import annotations


def verdict(figures: dict[str, float], targets: dict[str, tuple[str, float]], width: int = 48) -> int:
    """Prints each figure, marking those with a target met or MISSED; 1 when any is missed."""
    missed = []
    for k, v in figures.items():
        rule = targets.get(k)
        ok = rule is None or (v >= rule[1] if rule[0] == ">=" else v < rule[1])
        mark = "" if rule is None else f"  target {rule[0]} {rule[1]:,.6g}: {'met' if ok else 'MISSED'}"
        print(f"{k:{width}s} {v:,.6g}{mark}")
        if not ok:
            missed.append(k)
    return 1 if missed else 0
