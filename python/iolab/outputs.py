"""Writing an output file the user named: never over an existing file unless forced, and
all at once (a temporary file renamed into place), so a reader never sees half a file."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import InputError, RunError

__all__ = ["check_place", "check_output", "write_output", "json_ready"]


def json_ready(value):
    """`value` with every non-finite float made None (JSON has no infinity): how every
    ``--json`` document and every web answer is written."""
    import math

    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


def check_place(path: Path, *, option: str = "--output") -> Path:
    """Refuse (InputError naming `option`, exit 2) a path that cannot name a new file: a blank
    name, a directory, a missing or non-directory parent, or one the system will not look up
    (a name too long); before any work is done."""
    if not path.name.strip():
        raise InputError(f"expected a file name, got {str(path)!r}", field=option)
    try:
        if path.is_dir():
            raise InputError(f"{path} is a directory; name a file", field=option)
        if not path.parent.exists():
            raise InputError(f"directory {str(path.parent)!r} does not exist", field=option)
        if not path.parent.is_dir():
            raise InputError(f"{str(path.parent)!r} is not a directory", field=option)
    except OSError as e:
        shown = str(path) if len(str(path)) <= 120 else str(path)[:100] + "..."
        raise InputError(f"cannot write {shown!r}: {e.strerror or e}", field=option) from None
    return path


def check_output(path: Path, *, force: bool, option: str = "--output") -> Path:
    """Refuse (InputError, exit 2) an existing file without `force`, and whatever
    :func:`check_place` refuses, before any work is done."""
    check_place(path, option=option)
    if path.exists() and not force:
        raise InputError(f"{path} exists; add --force to replace it", field=option)
    return path


def write_output(path: Path, text: str, *, force: bool, option: str = "--output") -> None:
    """Write `text` to `path` atomically (see :func:`check_output` for what is refused);
    RunError (exit 1) when the system refuses the write (no space, no permission)."""
    check_output(path, force=force, option=option)
    try:
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as e:
        raise RunError(f"cannot write {path}: {e.strerror or e}") from None
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if path.exists() and not force:  # appeared while we worked
            raise InputError(f"{path} exists; add --force to replace it", field=option)
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise RunError(f"cannot write {path}: {e.strerror or e}") from None
        raise
