"""Every file a command reads goes through the guarded reader: a device, a FIFO or a
directory is refused at once (exit 2, one line naming it), never read until memory runs out
or blocked on; binary content is named as such."""

from __future__ import annotations

import os
import time

import pytest


def _commands(path, out):
    return [
        ["characterize", path, "--no-store"],
        ["catalog", "import-prices", path],
        ["report", "characterize", path, "-o", out],
        ["report", "predict", path, "-o", out],
        ["report", "calibration", path, "-o", out],
    ]


@pytest.mark.parametrize("kind", ["device", "fifo", "directory", "binary"])
def test_no_reader_reads_what_is_not_a_text_file(iolab, tmp_path, kind):
    if kind == "device":
        path, words = "/dev/zero", "is a character device, not a regular file"
    elif kind == "fifo":
        path, words = str(tmp_path / "pipe"), "is a FIFO (named pipe), not a regular file"
        os.mkfifo(path)
    elif kind == "directory":
        path, words = str(tmp_path), "is a directory, not a file"
    else:
        path, words = str(tmp_path / "b.json"), "not a "  # not a text file, not a telemetry format
        (tmp_path / "b.json").write_bytes(b"\x00\xff\xfe" * 100)
    out = tmp_path / "r.html"
    for args in _commands(path, str(out)):
        start = time.monotonic()
        r = iolab(*args)
        assert time.monotonic() - start < 10, args
        assert r.code == 2, (args, r.err)
        assert r.err.startswith(f"error: {path}: ") and words in r.err and r.err.count("\n") == 1, (args, r.err)
        assert not out.exists()
