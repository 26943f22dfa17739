"""Inputs a user may hand over by mistake, each refused with one line naming the file
(exit 2), never a traceback."""

from __future__ import annotations


def test_characterize_a_byte_order_mark_on_text_that_is_not_utf16(iolab, tmp_path):
    # a UTF-16 byte-order mark (\xff\xfe) followed by an odd number of bytes
    path = tmp_path / "latin.txt"
    path.write_bytes(b"\xff\xfe volumes: 1")
    r = iolab("characterize", str(path), "--no-store")
    assert r.code == 2, r.err
    assert r.err.startswith(f"error: {path}: ") and "not a text file iolab can read" in r.err
    assert "Traceback" not in r.err
