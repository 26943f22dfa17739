"""`iolab serve` in a real browser: the distribution's Chromium, headless, driven by Playwright.

A field changed on the What-if page updates the figures to what `iolab predict --json` says
for the same scenario; the Plan form's #1 is the CLI's #1; a stored run opens with its
figures and its report; off loopback the page is refused without the token. Each page's
screenshot is written to build/test-artifacts/serve-screenshots/ (and to the directory
IOLAB_SCREENSHOTS names, which is how docs/serve/ is made).
"""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

import pytest
import yaml

from conftest import EXAMPLES, ROOT
from serving import start, stop
from test_serve import stored_runs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = ROOT / "build" / "test-artifacts" / "serve-screenshots"
WAIT_MS = 30_000  # the longest wait for one answer (a plan on a loaded machine)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail("chromium is missing: make test installs it (sudo apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return stored_runs(tmp_path_factory.mktemp("browser") / "runs.db")


@pytest.fixture(scope="module")
def served(db):
    s = start("examples/oltp-ds13-p30.yaml", "--db", str(db))
    yield s
    stop(s)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1300, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(WAIT_MS)
    yield pg
    context.close()
    assert not errors, errors


def screenshot(pg, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    head = path.read_bytes()[:24]
    width, height = struct.unpack(">II", head[16:24])
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and width >= 1000 and height >= 600
    extra = os.environ.get("IOLAB_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)
    return path


def figures_are(pg, doc: dict) -> None:
    """Wait until the page shows `doc`'s IOPS (the exact figure, as data-value)."""
    pg.wait_for_function("want => document.getElementById('o-iops').dataset.value === String(want)", arg=doc["iops"])


def test_a_changed_field_shows_what_predict_json_says(served, page, iolab, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    page.goto(served.url)
    start_doc = iolab("predict", "examples/oltp-ds13-p30.yaml", "--json").json()
    figures_are(page, start_doc)
    assert not page.is_visible("#w-run")  # no benchmark from the page without --allow-bench
    printed = iolab("predict", "examples/oltp-ds13-p30.yaml").out
    for figure in ("#o-iops", "#o-bw", "#o-lat"):  # as the command prints them
        assert page.inner_text(figure) in printed
    # iodepth 32 -> 8 in the form: the figures move to the CLI's for that scenario
    page.fill("#w-iodepth", "8")
    data = yaml.safe_load((EXAMPLES / "oltp-ds13-p30.yaml").read_text())
    data["jobs"][0]["iodepth"] = 8
    changed = tmp_path / "oltp-depth8.yaml"
    changed.write_text(yaml.safe_dump(data))
    doc = iolab("predict", str(changed), "--json").json()
    assert doc["iops"] != start_doc["iops"]
    figures_are(page, doc)
    assert float(page.get_attribute("#o-lat", "data-value")) == doc["latency"]["mean"]
    assert float(page.get_attribute("#o-bw", "data-value")) == doc["bandwidth"]
    bars = page.locator("#o-bars .bar")
    assert bars.count() == len(doc["resources"])
    top = max(doc["resources"], key=lambda r: r["utilization"])
    assert bars.first.get_attribute("data-resource") == top["resource"]
    assert float(bars.first.get_attribute("data-utilization")) == top["utilization"]
    sentence = page.inner_text("#o-bottleneck")
    assert sentence in " ".join(iolab("predict", str(changed)).out.split())
    page.wait_for_selector("#o-curve #o-now")
    page.wait_for_function("() => document.getElementById('o-pct').textContent.includes('/')")
    assert page.inner_text("#o-cost").startswith("$")
    screenshot(page, "whatif")
    # Save scenario: the file downloaded is one `iolab predict` takes unchanged, with the same answer
    with page.expect_download() as got:
        page.click("#w-save")
    saved = tmp_path / "saved.yaml"
    got.value.save_as(str(saved))
    again = iolab("predict", str(saved), "--json")
    assert again.code == 0, again.err
    assert again.json()["iops"] == doc["iops"] and again.json()["bottleneck"] == doc["bottleneck"]
    # the same content as an `iolab report predict` file
    with page.expect_download() as rep:
        page.click("#w-report")
    html = Path(rep.value.path()).read_text()
    assert html.startswith("<!DOCTYPE html>") and "Predicted figures" in html and "<script" not in html


def test_a_wrong_value_is_shown_beside_its_field(served, page, iolab, tmp_path):
    page.goto(served.url)
    page.wait_for_function("() => document.getElementById('o-iops').dataset.value")
    page.fill("#w-vm", "Standard_DS99")
    beside = page.locator('#wf [data-err="clients.vm"]')
    beside.wait_for(state="visible")
    data = yaml.safe_load((EXAMPLES / "oltp-ds13-p30.yaml").read_text())
    data["clients"]["vm"] = "Standard_DS99"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    err = iolab("predict", str(bad)).err
    assert err.startswith(f"error: {bad}: clients.vm: ")
    assert beside.inner_text() == err.removeprefix(f"error: {bad}: clients.vm: ").strip()
    assert "bad" in (page.get_attribute("#w-vm", "class") or "")
    page.fill("#w-bs", "8q")
    page.locator('#wf [data-err="bs"]').wait_for(state="visible")


def test_the_plan_form_ranks_the_cli_first(served, page, iolab, tmp_path):
    page.goto(served.url + "#plan")
    page.fill("#p-iops", "12000")
    page.select_option("#p-kind", "disks")
    page.fill("#p-top", "3")
    text = page.input_value("#p-text")
    assert "iops: \"12000\"" in text or "iops: 12000" in text
    req = tmp_path / "requirements.yaml"
    req.write_text(text)
    cli = iolab("plan", str(req), "--json", "--top", "3")
    assert cli.code == 0, cli.err
    first = cli.json()["candidates"][0]
    page.click("#p-go")
    row = page.locator("#p-table tbody tr").first
    row.wait_for()
    assert float(row.get_attribute("data-cost")) == first["monthly_cost"]
    assert first["config"]["vm"] in row.inner_text()
    assert page.locator("#p-table tbody tr").count() == len(cli.json()["candidates"])
    assert f"{first['bill']['total']:,.2f}" in page.inner_text("#p-bill")
    # #1's notes (an Arm VM's, with the cheapest x86_64 answer) as the command gives them
    assert [n.inner_text() for n in page.locator(".p-note").all()] == [f"Note: {n}" for n in first.get("notes", [])]
    screenshot(page, "plan")
    # an uploaded file whose #1 is an Arm VM: the note, with the cheapest x86_64 answer, as the command's
    oltp = EXAMPLES / "oltp-requirements.yaml"
    arm = iolab("plan", str(oltp), "--json", "--top", "3").json()["candidates"][0]
    assert arm["config"]["arch"] == "arm64" and arm["notes"]
    page.set_input_files("#p-file", str(oltp))
    page.wait_for_function("document.getElementById('p-text').value.includes('An OLTP database')")
    page.click("#p-go")
    page.locator(".p-note").first.wait_for()
    assert [n.inner_text() for n in page.locator(".p-note").all()] == [f"Note: {n}" for n in arm["notes"]]
    page.fill("#p-iops", "many")
    page.click("#p-go")
    page.locator('#pf [data-err="require.iops"]').wait_for(state="visible")


def test_a_stored_run_opens_with_its_figures_and_report(served, page, db, iolab):
    runs = iolab("results", "list", "--db", str(db), "--json").json()["runs"]
    page.goto(served.url + "#results")
    rows = page.locator("#r-table tbody tr[data-run]")
    rows.first.wait_for()
    assert rows.count() == len(runs)
    page.fill("#r-filter", "iodepth=4")
    assert rows.count() == 1
    page.fill("#r-filter", "")
    shown = iolab("results", "show", "1", "--db", str(db), "--json").json()
    page.click('button[data-open="1"]')
    table = page.locator("#r-figures")
    table.wait_for()
    iops_row = table.locator("tbody tr").first.inner_text()
    assert f"{shown['iops']:,.0f} IOPS" in iops_row and f"{shown['predicted']['iops']:,.0f} IOPS" in iops_row
    assert "0.90" in iops_row
    frame = page.frame_locator("#r-detail iframe")
    frame.locator("text=lab-host-7").first.wait_for()
    page.check('input[data-pick="2"]')
    page.check('input[data-pick="4"]')
    page.click("#r-compare")
    compared = page.locator("#r-compare-table")
    compared.wait_for()
    assert "run 2" in compared.inner_text() and "run 4" in compared.inner_text()
    screenshot(page, "results")


def test_off_loopback_the_page_needs_its_token(browser):
    s = start("--host", "0.0.0.0")
    try:
        context = browser.new_context()
        pg = context.new_page()
        refused = pg.goto(s.local)
        assert refused.status == 403 and "token" in pg.content()
        allowed = pg.goto(s.local + "?token=" + s.token)
        assert allowed.status == 200
        pg.wait_for_function("() => document.getElementById('o-iops').dataset.value", timeout=WAIT_MS)
        context.close()
    finally:
        stop(s)


def test_a_share_built_in_the_form_predicts_as_the_cli(served, page, iolab, tmp_path):
    page.goto(served.url)
    page.wait_for_function("() => document.getElementById('o-iops').dataset.value")
    page.select_option("#w-kind", "share")
    page.select_option("#w-service", "anf")
    page.select_option("#w-level", "ultra")
    page.fill("#w-size", "8TiB")
    page.select_option("#w-protocol", "nfs4.1")
    page.fill("#w-nconnect", "4")
    data = yaml.safe_load((EXAMPLES / "oltp-ds13-p30.yaml").read_text())
    data["volumes"]["data"] = {"service": "anf", "level": "ultra", "size": "8TiB", "protocol": "nfs4.1", "nconnect": 4}
    path = tmp_path / "share.yaml"
    path.write_text(yaml.safe_dump(data))
    doc = iolab("predict", str(path), "--json").json()
    figures_are(page, doc)
    assert any(r["kind"] == "service" for r in doc["resources"])
    assert page.locator('#o-bars .bar[data-resource*="anf-ultra"]').count() >= 1


def test_a_pool_plan_shows_its_levels_and_what_prices_are_missing(served, page, iolab, monkeypatch):
    # a pool plan's candidates are levels whose config lists volumes: the page labels them as
    # the command does, and names the price the unpriced level lacks
    monkeypatch.chdir(ROOT)
    text = (EXAMPLES / "pool-requirements.yaml").read_text()
    cli = iolab("plan", "examples/pool-requirements.yaml", "--json")
    assert cli.code == 0, cli.err
    doc = cli.json()
    page.goto(served.url + "#plan")
    page.fill("#p-text", text)
    page.click("#p-go")
    page.locator("#p-table tbody tr").first.wait_for()
    rows = page.locator("#p-table tbody tr")
    assert rows.count() == len(doc["candidates"])
    assert "anf ultra 10 TiB pool (data 4 TiB, log 512 GiB, shared 1 TiB)" in rows.first.inner_text()
    (u,) = doc["unpriced"]
    out = page.inner_text("#p-out")
    assert "Feasible, but without a price" in out and u["supply"][0] in out
