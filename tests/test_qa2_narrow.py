"""`iolab catalog list` folds a cell that does not fit onto more lines instead of cutting it
to an ellipsis ("…"): at 120 columns the VM table cut its own header ("uncach…"), and at
COLUMNS=40 every figure of the disk table read "…"."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.parametrize("section", ["vms", "disks", "services", "protocols"])
def test_nothing_is_cut_at_120_columns(iolab, section):
    r = iolab("catalog", "list", section)
    assert r.code == 0 and "…" not in r.out, r.out[:400]


def test_every_digit_stays_on_a_40_column_terminal(tmp_path):
    def run(columns: str) -> str:
        env = dict(os.environ, COLUMNS=columns, PYTHONPATH=str(ROOT / "python"), XDG_CACHE_HOME=str(tmp_path))
        r = subprocess.run([sys.executable, "-m", "iolab", "catalog", "list", "disks"], capture_output=True,
                           text=True, env=env, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout

    wide, narrow = run("400"), run("40")
    assert "…" not in narrow
    digits = sorted(re.sub(r"\D", "", wide))
    assert digits and sorted(re.sub(r"\D", "", narrow)) == digits
