"""iolab report: every kind makes one self-contained HTML file with what was asked, the
environment, measured beside predicted with their ratio, the curves, and the plan's
reasons; nothing in it points at the network; an existing file is never overwritten
without --force."""

from __future__ import annotations

import html
import json
import re
import shutil
import socket
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parent.parent

SCENARIO = """version: 1
clients: {cpus: 2}
volumes:
  disk:
    device: {iops: 60000, read_latency: 120us, cpu_per_io: 20us}
jobs:
  - {name: randread, rw: randread, bs: 4k, iodepth: 1, ioengine: libaio, direct: 1, size: 64m}
"""

# What a page must never hold: a script, a stylesheet link, or anything fetched from elsewhere.
NETWORK = re.compile(r"""(?:\b(?:src|href|srcset|action|poster|data)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:)?//)"""
                     r"""|url\(\s*["']?\s*(?:[a-z][a-z0-9+.-]*:)?//|@import|<script|<link\b|<iframe|<object|<embed""",
                     re.I)


def _figures(iops: float, mean: float):
    from iolab.bench.record import Figures

    return Figures(iops, iops * 4096, {"mean": mean, "p50": mean * 0.8, "p90": mean * 1.5, "p99": mean * 3,
                                       "p99.9": mean * 6, "p99.99": mean * 9})


def make_store(tmp_path: Path) -> tuple[Path, Path, dict[str, int]]:
    """A results database with a single run, a two-host run (one host failed) and a sweep,
    each measured at 0.9 × the scenario's predicted IOPS."""
    from iolab.bench.compare import predicted
    from iolab.bench.jobs import override
    from iolab.bench.record import HostMeasure, JobMeasure, Measured, RunRecord
    from iolab.bench.store import ResultsStore
    from iolab.scenario import load_scenario

    scenario = tmp_path / "disk.yaml"
    scenario.write_text(SCENARIO)
    s = load_scenario(scenario)
    db = tmp_path / "runs.db"
    env = dict(started="2026-01-02T03:04:05+00:00", ended="2026-01-02T03:04:35+00:00", fio_version="fio-3.33",
               host="lab-host-7", kernel="6.1.0-lab", target="/mnt/data/iolab", fstype="xfs",
               mount_options="rw,noatime,attr2,inode64", scenario=str(scenario), fio_argv=("fio", "run.fio"))
    ids: dict[str, int] = {}

    def record(depth: int, **extra):
        doc = predicted(s, override([j.fio for j in s.jobs], {"iodepth": depth}))
        total = _figures(doc["iops"] * 0.9, doc["latency"]["mean"] / 0.9)
        return RunRecord(status="ok", jobfile=f"[randread]\nrw=randread\nbs=4k\niodepth={depth}\n",
                         measured=Measured(total), jobs=(JobMeasure("randread", Measured(total)),), predicted=doc,
                         **{**env, **extra})

    with ResultsStore(db) as store:
        ids["run"] = store.save(record(8))
        ok = Measured(_figures(20000, 0.0004))
        ids["hosts"] = store.save(record(8, hosts=(HostMeasure("client-a", "ok", ok),
                                                   HostMeasure("client-b", "failed", None, "connection refused"))))
        sweep = store.new_sweep({"iodepth": [1, 4, 16, 64]})
        runs = [store.save(record(d, params={"iodepth": d}, sweep_id=sweep)) for d in (1, 4, 16, 64)]
        store.set_knee(sweep, {"params": {"iodepth": 16}, "run_id": runs[2]})
        ids["sweep"] = sweep
    return db, scenario, ids


CASES = {
    "run": ("run", "{run}", ["Run 1: ok", "lab-host-7", "6.1.0-lab", "fio-3.33", "rw,noatime,attr2,inode64",
                             "measured / predicted", "0.90", "latency percentiles"]),
    "hosts": ("run", "{hosts}", ["Run 2 on 2 hosts", "client-a", "client-b", "failed", "connection refused",
                                 "IOPS per host"]),
    "sweep": ("sweep", "{sweep}", ["Sweep 1: iodepth = 1, 4, 16, 64", "iodepth=16 ◀ knee", "iodepth=64",
                                   "measured (circles) and predicted (squares)", "1 means the model was exact", "0.90"]),
    "predict": ("predict", "{scenario}", ["Prediction: disk.yaml", "What was asked", "cpu_per_io: 20us",
                                          "cores (2 vCPUs)", "Predicted figures", "predicted curve"]),
    "prediction-json": ("predict", "{prediction}", ["Prediction: prediction.json", "cores (2 vCPUs)",
                                                    "predicted curve"]),
    "plan": ("plan", str(ROOT / "examples" / "oltp-requirements.yaml"),
             ["Plan: oltp-requirements.yaml", "Candidates", "Why the others lost", "busy at 16,000 IOPS",
              "meets the requirements at the lowest cost"]),
    "calibration": ("calibration", "{calibration}", ["Calibration: calibration.yaml", "volumes.disk.device.read_latency",
                                                     "Held-out runs", "What it overrides", "+25.0 %"]),
    "characterize": ("characterize", str(DATA / "report" / "characterize.json"),
                     ["Characterization: characterize.json", "sdc read", "queue depth", "Requirements written",
                      "iolab plan takes this requirements file unedited"]),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, tuple[Path, list[str]]]:
    """Every report kind written to a file (once for the module), with texts its page must show."""
    import subprocess
    import sys

    from iolab import __version__
    from iolab.report import build, write_output

    tmp = tmp_path_factory.mktemp("reports")
    db, scenario, ids = make_store(tmp)
    prediction = tmp / "prediction.json"  # written by the command itself, as a user makes it
    made = subprocess.run([sys.executable, "-m", "iolab", "predict", str(scenario), "--json", "--sweep",
                           "iodepth=1,4,16"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    prediction.write_text(made.stdout)
    calibration = tmp / "calibration.yaml"  # as `iolab calibrate -o` writes it, errors chosen here
    calibration.write_text(yaml.safe_dump({"version": 1, "calibration": {
        "scenario": str(scenario), "database": str(db), "runs": [1, 2], "sweep": None,
        "fitted": [{"parameter": "volumes.disk.device.read_latency", "value": 0.00015, "shown": "150 us",
                    "start": 0.00012, "relative_error": 0.04, "identified": True}],
        "residuals": {"rms_log_before": 0.3, "rms_log_after": 0.05,
                      "before": [{"run_id": 1, "point": "run 1 (iodepth=1)", "iops": 0.25, "latency.mean": -0.2}],
                      "after": [{"run_id": 1, "point": "run 1 (iodepth=1)", "iops": 0.01, "latency.mean": -0.01}],
                      "held_out": [{"run_id": 2, "point": "run 2 (iodepth=8)", "iops": 0.03}]}},
        "volumes": {"disk": {"device": {"read_latency": 0.00015}}}}))
    fill = {**{k: str(v) for k, v in ids.items()}, "scenario": str(scenario), "prediction": str(prediction),
            "calibration": str(calibration)}
    out = {}
    for name, (kind, item, texts) in CASES.items():
        page = build(kind, [item.format(**fill)], db=db)
        path = tmp / f"{name}.html"
        write_output(path, page.html(__version__), force=False)
        out[name] = (path, texts)
    return out


def test_every_kind_is_one_self_contained_page(reports):
    for name, (path, texts) in reports.items():
        text = path.read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"), name
        shown = html.unescape(text)
        for expected in texts:
            assert expected in shown, (name, expected)
        assert not NETWORK.search(text), (name, NETWORK.search(text))
        assert "<style>" in text and "<svg" in text, name
        ids = re.findall(r'\bid="([^"]+)"', text)
        assert len(ids) == len(set(ids)), f"{name}: SVG ids repeat across figures"


def test_the_cli_writes_the_report(iolab, tmp_path):
    db, _, ids = make_store(tmp_path)
    out = tmp_path / "run.html"
    r = iolab(f"report run {ids['run']} -o {out} --db {db} --json")
    assert r.code == 0, r.err
    assert r.json() == {"output": str(out), "kind": "run", "title": "Run 1: ok", "sections": ["Run 1: ok"],
                        "bytes": len(out.read_bytes())}
    assert "lab-host-7" in out.read_text()


def test_the_network_pattern_catches_what_it_must():
    for bad in ('<img src="https://x.test/a.png">', "<a href='//cdn.test/x'>", "<div style=\"background:url(http://x)\">",
                "<script>1</script>", '<link rel="stylesheet" href="s.css">', "@import 'x.css';"):
        assert NETWORK.search(bad), bad
    assert not NETWORK.search('<use xlink:href="#m1"/><a href="#top">')


def test_an_existing_report_is_left_intact_without_force(iolab, tmp_path):
    out = tmp_path / "report.html"
    out.write_bytes(b"mine\n")
    r = iolab(f"report plan {ROOT / 'examples' / 'oltp-requirements.yaml'} -o {out}")
    assert r.code == 2
    assert r.err == f"error: --output: {out} exists; add --force to replace it\n"
    assert out.read_bytes() == b"mine\n"
    r = iolab(f"report plan {ROOT / 'examples' / 'oltp-requirements.yaml'} -o {out} --force")
    assert r.code == 0 and out.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("args, message", [
    ("nonsense 1", "error: KIND: unknown report kind 'nonsense'; one of: run, sweep, predict, plan, characterize, "
     "calibration"),
    ("calibration {other}", "error: {other}: expected a calibration file (iolab calibrate -o)"),
    ("run x", "error: ITEM: expected a run id (a whole number), got 'x'"),
    ("run 99", "error: ITEM: no run with id 99 in {db}"),
    ("sweep 42", "error: ITEM: no sweep with id 42 in {db}"),
    ("characterize {bad}", "error: {bad}: not JSON"),
    ("plan {missing}", "error: {missing}: file not found"),
])
def test_bad_input_is_one_line_and_exit_2(iolab, tmp_path, args, message):
    db, _, _ = make_store(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    fill = {"db": db, "bad": bad, "missing": tmp_path / "missing.yaml", "other": DATA / "report" / "characterize.json"}
    out = tmp_path / "r.html"
    stored = f" --db {db}" if args.split()[0] in ("run", "sweep") else ""  # --db reads runs only
    r = iolab(f"report {args.format(**fill)} -o {out}{stored}")
    assert r.code == 2, r.err
    assert r.err.startswith(message.format(**fill)) and r.err.count("\n") == 1, r.err
    assert not out.exists()


# -- in a real browser -----------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
#: hosts of the browser's own calls home (component updates, network time, accounts, safe
#: browsing) that no flag stops in headless mode; a request to any other host came from the page.
BROWSER_OWN = re.compile(r"(?:update|safebrowsing|optimizationguide-pa|content-autofill)\.googleapis\.com"
                         r"|(?:accounts|clients\d*|android\.clients)\.google\.com|(?:[\w-]+\.)*gvt1\.com")


def _host(request: str) -> str:
    """The host a proxy request line asks for: ``CONNECT h:443 ...`` or ``GET http://h/...``."""
    target = request.split(" ")[1] if " " in request else request
    return re.sub(r"^[a-z]+://", "", target).split("/")[0].split(":")[0]


QUIET = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
         "--disable-default-apps", "--disable-client-side-phishing-detection", "--disable-domain-reliability",
         "--no-pings", "--disable-breakpad", "--safebrowsing-disable-auto-update",
         "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate"]


class Proxy:
    """An HTTP proxy that serves nothing and records every request made through it."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def from_pages(self) -> list[str]:
        return [r for r in self.requests if not BROWSER_OWN.fullmatch(_host(r))]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    line = conn.recv(4096).decode("latin-1").split("\r\n", 1)[0]
                    if line:  # a socket opened ahead of use and closed unused asks for nothing
                        self.requests.append(line)
                    conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


def _render(page: Path, shot: Path, proxy: Proxy, profile: Path) -> str:
    """The DOM of `page` after headless Chromium loaded it, all its traffic sent to `proxy`,
    and a screenshot of it in `shot`."""
    argv = [CHROMIUM, "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run", *QUIET,
            f"--user-data-dir={profile}", f"--proxy-server=http://127.0.0.1:{proxy.port}",
            "--proxy-bypass-list=<-loopback>", "--window-size=1200,2400", f"--screenshot={shot}", "--dump-dom",
            page.as_uri()]
    argv.insert(1, "--no-sandbox")  # our own static page; as root or in a container the sandbox cannot start
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def chromium():
    if CHROMIUM is None:
        pytest.skip("chromium is not installed: install the distribution's package (sudo apt-get install chromium); "
                    "`make test` does when run as root")
    return CHROMIUM


#: where the screenshots are kept after the run (git-ignored): one PNG per report kind.
SHOTS = ROOT / "build" / "test-artifacts" / "report-screenshots"


def test_every_report_renders_in_chromium_and_loads_nothing(chromium, reports, tmp_path):
    from matplotlib.image import imread

    shots = SHOTS
    shots.mkdir(parents=True, exist_ok=True)
    proxy = Proxy()
    try:
        # The probe works: a bait page that fetches from the network, rendered beside the
        # reports, is seen by the proxy.
        bait = tmp_path / "bait.html"
        bait.write_text('<!DOCTYPE html><html><body><img src="http://iolab-probe.invalid/pixel.png"></body></html>')
        pages = {**{name: path for name, (path, _) in reports.items()}, "bait": bait}
        with ThreadPoolExecutor(max_workers=3) as pool:
            doms = dict(zip(pages, pool.map(
                lambda item: _render(item[1], (shots if item[0] != "bait" else tmp_path) / f"{item[0]}.png", proxy,
                                     tmp_path / f"profile-{item[0]}"), pages.items())))
        assert any("iolab-probe.invalid" in r for r in proxy.from_pages), proxy.requests
        assert [r for r in proxy.from_pages if "iolab-probe.invalid" not in r] == [], \
            "a report tried to load from the network"
        for name, (path, texts) in reports.items():
            dom = html.unescape(doms[name])
            for expected in texts:
                assert expected in dom, (name, expected)
            assert dom.count("<svg") == path.read_text().count("<svg") > 0, name
            assert "<script" not in dom
            pixels = imread(shots / f"{name}.png")
            assert pixels.shape[1] == 1200 and pixels.std() > 0.05, f"{name}: the screenshot is blank"
    finally:
        proxy.close()
    print(f"screenshots kept in {shots}")


def test_only_the_browsers_own_hosts_are_excused():
    assert _host("CONNECT update.googleapis.com:443 HTTP/1.1") == "update.googleapis.com"
    assert _host("GET http://clients2.google.com/time/1/current?x HTTP/1.1") == "clients2.google.com"
    for own in ("update.googleapis.com", "accounts.google.com", "clients2.google.com", "r3---sn-a.gvt1.com"):
        assert BROWSER_OWN.fullmatch(own), own
    for page in ("fonts.googleapis.com", "fonts.gstatic.com", "cdn.jsdelivr.net", "iolab-probe.invalid",
                 "www.google.com", "evil-update.googleapis.com.test"):
        assert not BROWSER_OWN.fullmatch(page), page


def test_a_two_axis_sweep_draws_one_curve_per_value_of_the_first(tmp_path):
    from iolab.bench.record import Measured, RunRecord
    from iolab.bench.store import ResultsStore
    from iolab.report import build

    db = tmp_path / "runs.db"
    with ResultsStore(db) as store:
        sweep = store.new_sweep({"bs": [4096, 65536], "iodepth": [1, 8]})
        for bs in (4096, 65536):
            for depth in (1, 8):
                store.save(RunRecord(status="ok", started="2026-01-01T00:00:00+00:00",
                                     ended="2026-01-01T00:00:05+00:00", jobfile="", sweep_id=sweep,
                                     params={"bs": bs, "iodepth": depth},
                                     measured=Measured(_figures(1000.0 * depth, 1e-3 * (1 + depth / 8)))))
    text = build("sweep", [str(sweep)], db=db).html("test")
    assert "Curve at bs=4k" in text and "Curve at bs=64k" in text
    assert text.count("<figure>") == 4  # per curve: latency vs IOPS and percentiles (no prediction, no ratios)
    assert "bs=64k, iodepth=8" in text
