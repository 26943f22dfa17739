"""The Python examples of docs/fio.md run and print what the page says (doctest)."""

from __future__ import annotations

import doctest

from conftest import ROOT


def test_fio_page_examples(monkeypatch):
    monkeypatch.chdir(ROOT)
    failures, tried = doctest.testfile(str(ROOT / "docs" / "fio.md"), module_relative=False,
                                       optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried >= 10
    assert failures == 0


def test_public_api():
    import iolab.fio as fio

    expected = {"FioJob", "parse_jobfile", "parse_cmdline", "render_jobfile", "parse_output", "FioResult",
                "FioTotal", "JobResult", "ClientResult", "DirectionResult", "LatencyStats", "parse_status",
                "StatusLine"}
    assert set(fio.__all__) == expected
    assert all(hasattr(fio, name) for name in expected)
