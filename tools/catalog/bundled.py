"""Writing a generator's bundled files, or checking that they are what the sources give."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["write_or_check"]


def write_or_check(files: dict[Path, str], check: bool, rerun: str) -> int:
    """With `check`, exit code 1 (each stale file named on stderr, with `rerun`, the command
    that refreshes it) unless every file already holds its text, else 0; without, write
    every file (UTF-8) and say so."""
    if check:
        stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"{p}: differs from the sources; rerun {rerun}", file=sys.stderr)
        for p in files.keys() - set(stale):
            print(f"{p}: up to date")
        return 1 if stale else 0
    for p, text in files.items():
        p.write_bytes(text.encode("utf-8"))
        print(f"wrote {p}")
    return 0
