"""A run id listed twice, or both fitted and held out, is refused (exit 2, the option named):
a run counted twice would weigh double in a fit, and a held-out run fitted to would check
the fit against itself."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES


@pytest.fixture
def db(iolab, tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    path = tmp_path / "r.db"
    r = iolab("bench", "run", str(EXAMPLES / "local-nvme.yaml"), "--target", str(target), "--numjobs", "1",
              "--size", "1m", "--runtime", "100ms", "--sweep", "iodepth=1,2", "--db", str(path))
    assert r.code == 0, r.err
    return path


@pytest.mark.parametrize("args, field, message", [
    ("calibrate {nvme} --runs 1,1", "--runs", "run 1 is given twice"),
    ("calibrate {nvme} --runs 1 --runs 1", "--runs", "run 1 is given twice"),
    ("calibrate {nvme} --runs 2 --validate 1,1", "--validate", "run 1 is given twice"),
    ("calibrate {nvme} --runs 1 --validate 1", "--validate", "run 1 is both fitted to (--runs) and held out"),
    ("calibrate {nvme} --sweep 1 --validate 2", "--validate", "run 2 is both fitted to (--sweep) and held out"),
    ("results export 1 1 --json", "ID", "run 1 is given twice"),
    ("report run 2 2 -o {out}", "ITEM", "run 2 is given twice"),
    ("report sweep 1 1 -o {out}", "ITEM", "sweep 1 is given twice"),
])
def test_a_repeated_or_overlapping_id_is_refused(iolab, tmp_path, db, args, field, message):
    out = tmp_path / "r.html"
    r = iolab(args.format(nvme=EXAMPLES / "local-nvme.yaml", out=out) + f" --db {db}")
    assert r.code == 2, r.err
    assert r.err.startswith(f"error: {field}: {message}") and r.err.count("\n") == 1, r.err
    assert r.out == "" and not out.exists()


def test_distinct_ids_are_taken(iolab, db):
    r = iolab(f"results export 1 2 --json --db {db}")
    assert r.code == 0, r.err
    assert [run["run_id"] for run in r.json()["runs"]] == [1, 2]
