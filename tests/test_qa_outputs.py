"""Every command that writes a file a user names (-o/--output) refuses an existing one
without --force, exit 2, and leaves it byte for byte as it was; with --force it replaces it."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

MINE = b"# my own file \xe2\x80\x94 keep it\n\x00\xff"


def _commands(out):
    return {
        "characterize": ["characterize", str(DATA / "telemetry" / "iostat-12.5.txt"), "-o", str(out), "--no-store"],
        "report": ["report", "predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "-o", str(out)],
        "import-prices": ["catalog", "import-prices", str(DATA / "catalog" / "retail" / "westeurope-1.json"),
                          "-o", str(out)],
    }


@pytest.mark.parametrize("command", ["characterize", "report", "import-prices"])
def test_an_existing_output_is_left_intact_without_force(iolab, tmp_path, command):
    out = tmp_path / "mine.yaml"
    out.write_bytes(MINE)
    args = _commands(out)[command]
    r = iolab(*args)
    assert r.code == 2, r.err
    assert r.err.count("\n") == 1 and str(out) in r.err and "--force" in r.err, r.err
    assert out.read_bytes() == MINE
    r = iolab(*args, "--force")
    assert r.code == 0, r.err
    assert out.read_bytes() != MINE and out.stat().st_size > 100


def test_characterize_cannot_overwrite_its_own_input(iolab, tmp_path):
    telemetry = tmp_path / "iostat.txt"
    telemetry.write_bytes((DATA / "telemetry" / "iostat-12.5.txt").read_bytes())
    before = telemetry.read_bytes()
    r = iolab("characterize", str(telemetry), "-o", str(telemetry), "--no-store")
    assert r.code == 2 and "exists" in r.err
    assert telemetry.read_bytes() == before
