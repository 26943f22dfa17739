"""Speed of ``iolab serve``: the server time of a what-if update for every example scenario,
and how soon the page is usable after ``iolab serve`` starts.

1. **What-if update** (in-process, no network, no subprocess): the web application is called
   as uvicorn calls it (ASGI) with ``POST /api/whatif`` — the prediction, the bottleneck
   sentence and the bill — for every scenario in ``examples/``; also the curve and the
   percentiles, which the page asks for after the figures. Each figure is the least of
   ``--runs`` runs after one warm-up, as CPU time of this process (the machine is often shared
   and busy: wall time then measures the neighbours) and, beside it, the median wall time.
   Target: every example's update ≤ 50 ms of CPU time.
2. **Start-up**: ``iolab serve examples/oltp-ds13-p30.yaml --port 0`` as a person runs it;
   the wall time to its first line, to the page answered, and to the first update answered
   (the page usable: it shows figures), and the server's CPU time up to that answer (from
   ``/proc/PID/stat``, before the server is stopped; where there is no /proc, to its exit).
   Least of ``--starts`` starts. Target: usable within 1 s — of wall time, as a person
   waits, the least of the starts (neighbours on a shared machine only lengthen a start),
   and of CPU time.

Run: ``python benchmarks/bench_serve.py [--runs N] [--starts N]`` (or ``python -m benchmarks
serve``); exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

UPDATE_TARGET = 0.050
USABLE_TARGET = 1.0
HOST = "127.0.0.1:8765"


def scenarios() -> list[Path]:
    out = []
    for p in sorted((ROOT / "examples").glob("*.yaml")):
        text = p.read_text()
        if "volumes:" in text and "jobs:" in text and "require" not in text:
            out.append(p)
    return out


async def _call(app, path: str, body: bytes, query: str = "") -> tuple[int, bytes]:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": [(b"host", HOST.encode()), (b"content-length", str(len(body)).encode())],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8765)}
    given = False
    out: dict = {"body": b""}

    async def receive() -> dict:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    await app(scope, receive, send)
    return out["status"], out["body"]


def updates(runs: int) -> bool:
    from iolab.web.app import Settings, make_app

    app = make_app(Settings(hosts=frozenset({HOST})))
    loop = asyncio.new_event_loop()
    print(f"{'scenario':40s} {'update cpu':>11s} {'wall':>7s} {'curve cpu':>10s} {'percentiles cpu':>16s}")
    worst = 0.0
    for path in scenarios():
        body = path.read_bytes()
        query = f"name=examples/{path.name}"
        figures = {}
        for endpoint in ("/api/whatif", "/api/curve", "/api/percentiles"):
            status, answer = loop.run_until_complete(_call(app, endpoint, body, query))  # warm-up
            assert status == 200, (path, endpoint, answer[:300])
            cpu, wall = [], []
            for _ in range(runs if endpoint == "/api/whatif" else max(1, runs // 3)):
                c0, w0 = time.process_time(), time.perf_counter()
                loop.run_until_complete(_call(app, endpoint, body, query))
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            figures[endpoint] = (min(cpu), statistics.median(wall))
        update = figures["/api/whatif"]
        worst = max(worst, update[0])
        print(f"{path.name:40s} {1e3 * update[0]:8.1f} ms {1e3 * update[1]:4.0f} ms "
              f"{1e3 * figures['/api/curve'][0]:7.1f} ms {1e3 * figures['/api/percentiles'][0]:13.1f} ms")
    print(f"slowest update: {1e3 * worst:.1f} ms of CPU time (target ≤ {1e3 * UPDATE_TARGET:.0f} ms)")
    return worst <= UPDATE_TARGET


def start_once() -> tuple[float, float, float, float]:
    """(first line, page answered, first update answered) in wall seconds, and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "iolab", "serve", "examples/oltp-ds13-p30.yaml", "--port", "0"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
    try:
        line = p.stdout.readline()
        t_line = time.perf_counter() - t0
        url = line.strip().removeprefix("iolab serve: ")
        with urllib.request.urlopen(url, timeout=60) as r:
            r.read()
        t_page = time.perf_counter() - t0
        body = (ROOT / "examples" / "oltp-ds13-p30.yaml").read_bytes()
        req = urllib.request.Request(url + "api/whatif?name=examples/oltp-ds13-p30.yaml", data=body, method="POST")
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
        t_update = time.perf_counter() - t0
        cpu = _cpu_of(p.pid)  # up to the first update answered, before the server is stopped
    finally:
        p.terminate()
        p.wait(30)
        p.stdout.close()
    if cpu is None:  # no /proc: the CPU time to its exit, stopping included
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return t_line, t_page, t_update, cpu


def _cpu_of(pid: int) -> float | None:
    """The CPU seconds (user + system) process `pid` has used so far, from /proc (None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def startup(starts: int) -> bool:
    results = [start_once() for _ in range(starts)]
    best = min(results, key=lambda r: r[3])
    quickest = min(r[2] for r in results)
    print(f"start-up (least CPU of {starts}): first line {best[0]:.2f} s, page {best[1]:.2f} s, first update "
          f"{best[2]:.2f} s wall; {best[3]:.2f} s of CPU from start to the first update answered "
          f"(target ≤ {USABLE_TARGET:.0f} s)")
    print(f"  wall to the first update, every start: {', '.join(f'{r[2]:.2f}' for r in results)} s; "
          f"least {quickest:.2f} s, median {statistics.median(r[2] for r in results):.2f} s "
          f"(target ≤ {USABLE_TARGET:.0f} s)")
    return best[3] <= USABLE_TARGET and quickest <= USABLE_TARGET


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    ok = updates(args.runs)
    ok = startup(args.starts) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
