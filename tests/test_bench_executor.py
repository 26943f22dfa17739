"""The fio executor: argv without a shell, status lines as they come, Ctrl-C stops the group."""

from __future__ import annotations

import sys
import time

import pytest

from iolab.bench.executor import FakeExecutor, FakeRun, ProcessExecutor, _split_lines
from iolab.errors import RunError


def test_lines_split_on_carriage_return_and_newline():
    assert _split_lines("a\rb\n\nc\r\nd") == (["a", "b", "c"], "d")


def test_runs_argv_without_shell_and_streams_lines(tmp_path):
    weird = tmp_path / "a b;c$x & 'q'"
    weird.mkdir()
    code = "import os,sys; sys.stdout.write('one\\rtwo\\n' + os.getcwd()); sys.stderr.write('warn')"
    lines = []
    done = ProcessExecutor().run([sys.executable, "-c", code], lines.append, cwd=weird)
    assert done.returncode == 0 and not done.interrupted
    assert lines == ["one", "two", str(weird)]
    assert done.stderr == "warn"


def test_missing_program_is_a_run_error():
    with pytest.raises(RunError, match="not installed"):
        ProcessExecutor().run(["/nonexistent/fio-binary", "--version"])


def test_interrupt_stops_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "pids"
    # the child starts a grandchild, prints a line, and would run for a minute
    code = (
        "import subprocess, sys, time\n"
        "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(g.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )

    def on_line(line):
        if line == "started":
            raise KeyboardInterrupt

    t0 = time.monotonic()
    done = ProcessExecutor(grace=2).run([sys.executable, "-c", code], on_line)
    assert done.interrupted
    assert time.monotonic() - t0 < 10
    grandchild = int(pidfile.read_text())
    for _ in range(50):
        if not _alive(grandchild):
            break
        time.sleep(0.1)
    else:
        pytest.fail("the grandchild survived the interrupt")


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_program_past_its_time_limit_is_stopped():
    t0 = time.monotonic()
    done = ProcessExecutor(grace=2).run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    assert done.timed_out and not done.interrupted and time.monotonic() - t0 < 5


def test_fake_executor_plays_back_and_records(tmp_path):
    fake = FakeExecutor(FakeRun(lines=["x"], output="{}", files={"f": b"1"}))
    out = tmp_path / "o.json"
    seen = []
    done = fake.run(["fio", f"--output={out}"], seen.append, cwd=tmp_path)
    assert done.returncode == 0 and seen == ["x"] and out.read_text() == "{}"
    assert (tmp_path / "f").read_bytes() == b"1"
    assert fake.calls == [(["fio", f"--output={out}"], str(tmp_path))]
