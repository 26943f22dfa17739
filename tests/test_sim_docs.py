"""The Python examples of docs/simulator.md run as shown (their asserts hold)."""

from __future__ import annotations

import re

from conftest import ROOT

PAGE = ROOT / "docs" / "simulator.md"


def test_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, str(PAGE), "exec"), {})
