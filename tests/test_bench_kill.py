"""A kill at any moment leaves nothing that blocks or litters.

`iolab bench run` (with the real fio) is killed with SIGKILL — which no program can catch —
before it starts, while fio lays out its file, while fio runs, while a new results database
is being created, while a run is being stored into an existing one, and in the middle of a
sweep. After each kill the next run on the same target and database must succeed, the
database must pass SQLite's integrity check and hold no partial run, and once that next run
ends no iolab file may be left in the target or in the temporary directory.

The moments inside the store are reached exactly: the killed process runs iolab with the
store's step paused there (it writes a marker file and sleeps), and is killed at the pause.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not os.path.exists("/usr/bin/fio") and not any(
    os.access(os.path.join(d, "fio"), os.X_OK) for d in os.environ.get("PATH", "").split(os.pathsep)),
    reason="fio is not installed (make test installs it)")

# iolab's console script, with one step of the results store paused when PAUSE_AT names it.
PAUSED = r"""
import os, sys, time
from iolab.bench import store

def pause():
    open(os.environ["PAUSE_MARK"], "w").close()
    time.sleep(120)

moment = os.environ.get("PAUSE_AT")
if moment == "create":          # the new database's schema is built, not yet in place
    built = store._build
    def _build(db):
        built(db)
        pause()
    store._build = _build
elif moment == "save":          # inside the run's transaction, its rows written, not committed
    rows = store._rows
    def _rows(*args):
        yield from rows(*args)
        pause()
    store._rows = _rows
from iolab.cli import main
sys.argv = ["iolab", *sys.argv[1:]]
main()
"""

RUN = ["bench", "run", "--rw", "randread", "--bs", "4k", "--ioengine", "psync"]


class Lab:
    """A target directory, a database path and a private temporary directory."""

    def __init__(self, root: Path):
        self.target = root / "target"
        self.target.mkdir()
        self.db = root / "db" / "results.db"
        self.tmp = root / "tmp"
        self.tmp.mkdir()
        self.mark = root / "paused"
        self.env = {**os.environ, "TMPDIR": str(self.tmp), "XDG_DATA_HOME": str(root / "xdg")}

    def start(self, *extra: str, pause: str | None = None) -> subprocess.Popen:
        env = dict(self.env)
        if pause:
            env.update(PAUSE_AT=pause, PAUSE_MARK=str(self.mark))
        argv = [sys.executable, "-c", PAUSED, *RUN, "--target", str(self.target), "--db", str(self.db), *extra]
        return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def next_run(self) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-m", "iolab", *RUN, "--target", str(self.target), "--db", str(self.db),
                "--size", "4m", "--runtime", "200ms"]
        return subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=60)

    def iolab_files(self) -> list[str]:
        return sorted(p.name for p in self.target.iterdir() if p.name.startswith("iolab-"))

    def leftovers_in_tmp(self) -> list[str]:
        return sorted(p.name for p in self.tmp.iterdir() if p.name.startswith("iolab-run-"))


def _wait(condition, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the moment to kill at never came")
        time.sleep(0.005)


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL


def _runs(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return c.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


def _check_after(lab: Lab, killed: int = 0) -> None:
    """The next run succeeds; the database is sound with no partial run; nothing is left."""
    done = lab.next_run()
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(lab.db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        runs = c.execute("SELECT id, status FROM runs").fetchall()
        assert runs and all(status == "ok" for _, status in runs)
        for run_id, _ in runs:  # every stored run is whole: its totals are there
            totals = c.execute("SELECT COUNT(*) FROM measurements WHERE run_id = ? AND job_id IS NULL AND "
                               "direction = 'total' AND metric = 'iops'", (run_id,)).fetchone()[0]
            assert totals == 1, f"run {run_id} is partial"
    assert [p.name for p in lab.db.parent.iterdir() if p.name != "results.db"] == []  # no draft, no journal
    assert lab.iolab_files() == []
    assert lab.leftovers_in_tmp() == []


def test_killed_before_it_starts(tmp_path):
    lab = Lab(tmp_path)
    proc = lab.start("--size", "4m", "--runtime", "2")
    time.sleep(0.05)
    _kill(proc)
    _check_after(lab)


@pytest.mark.parametrize("moment", ["layout", "run"])
def test_killed_while_fio_works_leaves_its_file_for_the_next_run_to_remove(tmp_path, moment):
    lab = Lab(tmp_path)
    proc = lab.start("--size", "64m", "--runtime", "3")
    _wait(lambda: lab.iolab_files())
    if moment == "run":
        time.sleep(1.0)
    _kill(proc)
    time.sleep(0.2)  # fio has had SIGTERM from the kernel: it stops, but its file stays
    left = lab.iolab_files()
    done = lab.next_run()
    assert done.returncode == 0, done.stderr
    for name in left:   # the next run said what it removed
        if not (lab.target / name).exists() and name.endswith(".0.0"):
            assert f"removed {lab.target / name}" in done.stderr
    _check_after(lab)


def test_killed_while_creating_the_database_leaves_no_file_at_its_path(tmp_path):
    lab = Lab(tmp_path)
    proc = lab.start("--size", "4m", "--runtime", "200ms", pause="create")
    _wait(lab.mark.exists)
    assert not lab.db.exists()       # the path holds nothing until the database is whole
    _kill(proc)
    assert not lab.db.exists()
    _check_after(lab)


def test_killed_while_storing_into_a_database_stores_nothing_of_that_run(tmp_path):
    lab = Lab(tmp_path)
    assert lab.next_run().returncode == 0   # the database exists, with one run
    proc = lab.start("--size", "4m", "--runtime", "200ms", pause="save")
    _wait(lab.mark.exists)
    _kill(proc)
    assert _runs(lab.db) == 1               # the killed run's transaction is not there
    _check_after(lab)
    assert _runs(lab.db) == 2


def test_killed_in_the_middle_of_a_sweep(tmp_path):
    lab = Lab(tmp_path)
    proc = lab.start("--size", "16m", "--runtime", "300ms", "--sweep", "iodepth=1,2,4")
    _wait(lambda: lab.db.exists() and _runs(lab.db) >= 1)
    _kill(proc)
    _check_after(lab)


def test_files_of_a_running_run_or_of_another_machine_are_not_touched(tmp_path):
    from iolab.bench.leftovers import host_mark, remove_target_files

    lab = Lab(tmp_path)
    mine_alive = lab.target / f"iolab-{os.getpid()}-{host_mark()}-0123abcd.job.0.0"
    elsewhere = lab.target / f"iolab-999999-{host_mark('another-host')}-0123abcd.job.0.0"
    users = lab.target / "iolab-notes.txt"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    killed = lab.target / f"iolab-{dead}-{host_mark()}-0123abcd.job.0.0"
    for path in (mine_alive, elsewhere, users, killed):
        path.write_bytes(b"x" * 100)
    removed = remove_target_files(lab.target)
    assert [(r.path, r.size) for r in removed] == [(killed, 100)]
    assert sorted(p.name for p in lab.target.iterdir()) == sorted(p.name for p in (mine_alive, elsewhere, users))
