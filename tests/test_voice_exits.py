"""Exit codes and interrupts speak one voice: Ctrl-C 130, SIGTERM 143 (named), bad input 2."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import EXAMPLES, ROOT


def _wait_for_cpu(pid: int, seconds: float) -> None:
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.05)
    raise AssertionError("the simulation never started")


def _interrupted_simulation(signum: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    proc = subprocess.Popen([sys.executable, "-m", "iolab", "simulate", str(EXAMPLES / "oltp-ds13-p30.yaml"),
                             "--ios", "2000000000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_cpu(proc.pid, 1.5)  # start-up takes well under a second of CPU: the engine is running
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("signum, code, words", [(signal.SIGINT, 130, "interrupted (Ctrl-C)"),
                                                  (signal.SIGTERM, 143, "interrupted by SIGTERM")])
def test_an_interrupted_simulation_never_exits_0(signum, code, words):
    done = _interrupted_simulation(signum)
    assert done.returncode == code, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {words}"), done.stderr
    assert "Ctrl-C" not in lines[0] or signum == signal.SIGINT
    assert "partial" in done.stdout  # what was measured is shown, marked as such


def test_results_db_that_is_a_directory_is_bad_input(iolab, tmp_path):
    for command in ("results list", "results export --csv"):
        r = iolab(*command.split(), "--db", str(tmp_path))
        assert r.code == 2, r.err
        assert r.err.startswith(f"error: {tmp_path}: ") and "directory" in r.err
        assert r.err.count("\n") == 1 and "Traceback" not in r.err


def test_a_results_db_that_is_not_a_database_is_bad_input(iolab, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not sqlite " * 200)
    before = notes.read_bytes()
    r = iolab("results", "list", "--db", str(notes))
    assert r.code == 2 and r.err.startswith(f"error: {notes}: not an iolab results database")
    assert notes.read_bytes() == before  # left byte for byte


@pytest.mark.parametrize("host", ["[::1", "[::1]:http", "[::1]x"])
def test_a_malformed_client_is_bad_input(iolab, tmp_path, host):
    r = iolab("bench", "run", "--target", str(tmp_path), "--rw", "read", "--client", host)
    assert r.code == 2, r.err
    assert r.err.startswith("error: --client: ") and r.err.count("\n") == 1


def test_sigterm_during_any_command_is_reported_as_sigterm(iolab, monkeypatch):
    """A command that does not catch the interrupt itself still names the signal and exits 143."""
    import iolab.cli.predict as predict_cli

    def stopped(*a, **k):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)

    monkeypatch.setattr(predict_cli, "_print", stopped)
    before = signal.getsignal(signal.SIGTERM)
    r = iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"))
    assert r.code == 143
    assert r.err == "error: interrupted by SIGTERM\n"
    assert signal.getsignal(signal.SIGTERM) is before  # the process's own handler is back


def test_a_bench_stopped_by_sigterm_says_so_and_exits_143(iolab, monkeypatch, tmp_path):
    """The run is stored as interrupted and fio's files removed, as for Ctrl-C; the signal is named."""
    import iolab.cli.bench as cli_bench
    from iolab.bench.executor import FakeExecutor, FakeRun
    from iolab.bench.fakejson import FakeJob, fio_json
    from iolab.bench.store import ResultsStore
    from iolab.cli.interrupts import record_signal

    def terminated(argv):  # fio laid out nothing yet; SIGTERM arrives (the handler records it)
        record_signal(signal.SIGTERM)
        return FakeRun(interrupt=True, output=fio_json([FakeJob("bench", read_iops=5)]))

    monkeypatch.setattr(cli_bench, "make_executor", lambda: FakeExecutor(FakeRun(stdout="fio-3.33\n"), terminated))
    target = tmp_path / "t"
    target.mkdir()
    r = iolab("bench", "run", "--target", str(target), "--db", str(tmp_path / "r.db"))
    assert r.code == 143
    assert r.err.splitlines()[-1] == ("error: interrupted by SIGTERM: fio stopped, its files removed, "
                                      "the run stored as interrupted")
    assert os.listdir(target) == []
    assert ResultsStore(tmp_path / "r.db").load(1).status == "interrupted"


def test_a_multi_line_failure_is_still_one_error_line(iolab, monkeypatch):
    """fio's stderr (several lines) joins into the one `error:` line the format promises."""
    from iolab.errors import RunError
    import iolab.cli.predict as predict_cli

    def fail(*a, **k):
        raise RunError("fio failed (exit 1):\nfio: pid=1, err=22/file:engines/libaio.c\n\nfio: io_u error")

    monkeypatch.setattr(predict_cli, "_print", fail)
    r = iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"))
    assert r.code == 1
    assert r.err == ("error: fio failed (exit 1):; fio: pid=1, err=22/file:engines/libaio.c; fio: io_u error\n")
