"""Under ``PYTHONDEVMODE=1`` (or ``python -X dev``) no command prints Python's own noise: the
pipes of the programs iolab runs (fio, ``fio --version``) are closed, so no
``ResourceWarning: unclosed file`` reaches the user's terminal."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import warnings

from conftest import ROOT
from iolab.bench.executor import ProcessExecutor

CHILD = [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"]


def test_a_finished_program_leaves_no_pipe_open():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        done = ProcessExecutor().run(CHILD)
        del done
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_command_that_runs_a_program_is_quiet_in_dev_mode(tmp_path):
    # the client check runs `fio --version` first: a stand-in that answers and exits
    fio = tmp_path / "fio"
    fio.write_text(f"#!{sys.executable}\nprint('fio-3.33')\n")
    fio.chmod(0o755)
    env = dict(os.environ, PYTHONDEVMODE="1", PYTHONPATH=str(ROOT / "python"), XDG_DATA_HOME=str(tmp_path))
    r = subprocess.run([sys.executable, "-m", "iolab", "bench", "run", "--target", str(tmp_path), "--client",
                        "127.0.0.1:1", "--fio", str(fio), "--size", "1m", "--runtime", "1"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 1
    assert r.stderr.startswith("error: no fio server answers on 127.0.0.1:1") and r.stderr.count("\n") == 1, r.stderr
