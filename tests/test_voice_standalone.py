"""The project stands alone: no tracked file cites design notes that are not in it, and the
docs hold what users need — the model (docs/model.md) and every figure's source
(docs/sources.md)."""

from __future__ import annotations

import re
import subprocess

from conftest import ROOT

# spelled in parts so that this file does not cite them either
OUTSIDE = [name + ".md" for name in ("MODEL", "CONTRACT", "FACTS", "DESIGN", "VALIDATION")]


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [p for p in out.splitlines() if (ROOT / p).is_file()]


def test_no_tracked_file_cites_outside_design_notes():
    hits = []
    for path in _tracked():
        try:
            text = (ROOT / path).read_text()
        except UnicodeDecodeError:
            continue
        hits += [f"{path}: {name}" for name in OUTSIDE if name in text]
    assert hits == []


def _catalog_documents() -> set[str]:
    """The documents (``…series.md``, ``understanding-billing.md``, ...) catalog rows cite."""
    docs = set()
    for data in (ROOT / "python" / "iolab" / "catalog" / "data").glob("*.yaml"):
        for line in data.read_text().splitlines():
            if "source" in line:
                docs.update(re.findall(r"[\w.-]+\.md\b", line))
    return docs - {p.name for p in (ROOT / "docs").glob("*.md")}  # the project's own pages


def test_sources_page_names_every_document_the_catalog_cites():
    page = (ROOT / "docs" / "sources.md").read_text()
    docs = _catalog_documents()
    assert len(docs) >= 10  # the catalog does cite its sources
    missing = sorted(d for d in docs if d not in page)
    assert missing == [], f"docs/sources.md does not name {missing}"


def test_model_page_holds_the_worked_example_the_prediction_reproduces(iolab):
    page = (ROOT / "docs" / "model.md").read_text()
    assert "U = Σ X × D" in page and "N* = (Z + ΣD) / D_max" in page
    doc = iolab("predict", str(ROOT / "examples" / "oltp-ds13-p30.yaml"), "--json").json()
    assert "19,777" in page and round(doc["iops"]) == 19777
    assert "6.47 ms" in page and abs(doc["latency"]["mean"] - 0.00647) < 0.00001
