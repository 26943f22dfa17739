"""Live progress: phases, remaining time, fio's IOPS and bandwidth, Little's-law latency."""

from __future__ import annotations

import io

from rich.console import Console

from iolab.bench.progress import LiveView, QuietView, clock_text


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def view():
    clock = Clock()
    console = Console(file=io.StringIO(), width=120, force_terminal=False)
    return LiveView(console, clock=clock), clock


def text(v):
    return v.run_line().plain


def test_phases_and_figures_from_fio_status_lines():
    v, clock = view()
    v._reset("bench", 12.0, 2.0, 8)  # what begin() sets, without starting the live display
    assert "start" in text(v) and "0:00 elapsed, 0:12 left" in text(v)
    v.line("Jobs: 1 (f=0)")
    assert "layout" in text(v)
    clock.now += 1
    v.line("Jobs: 1 (f=1)")
    assert "ramp" in text(v)
    clock.now += 1.5
    assert "ramp" in text(v)  # 1.5 s of IO, ramp is 2 s
    clock.now += 0.7
    v.line("Jobs: 1 (f=1): [r(1)][30.0%][r=39.1MiB/s][r=10.0k IOPS][eta 00m:07s]")
    line = text(v)
    assert " run " in line and "0:03 elapsed, 0:07 left" in line
    assert "10,000 IOPS" in line and "MB/s" in line
    assert "lat ≈ 800 us" in line  # 8 in flight / 10,000 IOPS
    v.line("fio: some warning")  # other text changes nothing
    assert text(v) == line


def test_sweep_line_counts_points_and_time_left():
    v, clock = view()
    v.sweep(4)
    v._reset("iodepth=1", 10.0, 0.0, 1)
    assert "sweep: 0/4 points done, about 0:40 left" in v.sweep_line().plain
    clock.now += 12
    v._done = 1
    assert "sweep: 1/4 points done, about 0:36 left" in v.sweep_line().plain
    single, _ = view()
    single.sweep(1)
    assert single.sweep_line() is None


def test_quiet_view_writes_only_the_final_line():
    lines = []
    q = QuietView(lines.append)
    assert q.live is False
    q.begin("x", duration=1, ramp=0, outstanding=1)
    q.line("Jobs: 1 (f=1): [r(1)][50.0%][r=1MiB/s][r=256 IOPS][eta 00m:01s]")
    q.end("run 1: ok")
    assert lines == ["run 1: ok"]


def test_clock_text():
    assert clock_text(5) == "0:05" and clock_text(3725) == "1:02:05" and clock_text(None) == "-:--"
