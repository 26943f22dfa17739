"""fio runs that never end: a local run has a wall-clock limit; past it fio gets SIGTERM,
then SIGKILL, the run is stored as failed and its files are removed. Scratch directories
left by a killed iolab are removed at the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from iolab.bench.executor import ProcessExecutor
from iolab.bench.jobs import Settings
from iolab.bench.leftovers import SCRATCH_PREFIX, remove_scratch
from iolab.bench.runner import Bench, Request, host_timeout
from iolab.bench.store import ResultsStore
from iolab.fio import FioJob, parse_jobfile

# A "fio" that answers --version, lays out one file under the run's own name in its working
# directory (the target), then hangs and ignores SIGTERM and SIGINT: only SIGKILL stops it.
STUCK = r"""#!/bin/sh
if [ "$1" = "--version" ]; then echo fio-3.33; exit 0; fi
for last in "$@"; do :; done
prefix=$(sed -n 's/^filename_format=\(iolab-[0-9a-f-]*\.\).*/\1/p' "$last" | head -n 1)
echo layout > "${prefix}stuck.0.0"
echo "$$" > "$STUCK_PIDFILE"
trap '' TERM INT
sleep 600 &
wait
sleep 600
"""


def test_the_limit_is_runtime_ramp_delay_layout_and_margin():
    jobs = parse_jobfile("[a]\nruntime=10\nramp_time=2\nsize=20m\n[b]\nruntime=5\nstartdelay=3\nsize=20m\n"
                         "[c]\nstonewall\nruntime=7\nsize=20m\n")
    layout = 3 * 20 * 2**20 / 20e6
    assert host_timeout(jobs, margin=60) == pytest.approx(12 + 7 + 60 + layout)
    assert host_timeout(parse_jobfile("[a]\nsize=1m\n")) is None


def test_a_run_past_its_limit_is_killed_stored_as_failed_and_cleaned(tmp_path, monkeypatch):
    fake = tmp_path / "stuck-fio"
    fake.write_text(STUCK)
    fake.chmod(0o755)
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("STUCK_PIDFILE", str(pidfile))
    target = tmp_path / "target"
    target.mkdir()
    store = ResultsStore(tmp_path / "r.db")
    bench = Bench(store, executor=ProcessExecutor(grace=0.5), fio=str(fake), margin=0.5)
    request = Request((FioJob(name="bench", size=4096),), str(target), Settings(runtime=0.5, direct=False))
    start = time.monotonic()
    record = bench.run(request)
    took = time.monotonic() - start
    assert took < 20, took
    assert record.status == "failed"
    assert "time limit" in record.error and "SIGTERM, then SIGKILL" in record.error
    assert store.load(record.run_id).status == "failed"
    assert os.listdir(target) == []  # the laid-out file is gone
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_leftovers_of_a_killed_iolab_are_removed_at_the_next_start(tmp_path):
    # an iolab process that made its scratch directory, then died by SIGKILL
    code = ("import sys, time; sys.path.insert(0, sys.argv[1]);"
            "from iolab.bench.runner import scratch\n"
            "with scratch() as d:\n    print(d, flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code, os.path.join(os.path.dirname(__file__), "..", "python")],
                            stdout=subprocess.PIPE, text=True)
    left = proc.stdout.readline().strip()
    assert os.path.isdir(left) and os.path.basename(left).startswith(SCRATCH_PREFIX)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert os.path.isdir(left)
    mine = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")  # a live process's: kept
    try:
        removed = remove_scratch()
        assert left in [str(p) for p in removed]
        assert not os.path.exists(left) and os.path.isdir(mine)
    finally:
        os.rmdir(mine)
