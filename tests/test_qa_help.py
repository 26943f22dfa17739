"""Every command's --help exits 0, reads as a person writes it (no Python type names such as
``<list[Path]>``), and every option it lists is documented in README.md or docs/."""

from __future__ import annotations

import re

from conftest import ROOT

COMMANDS = [["check"], ["predict"], ["simulate"], ["plan"], ["characterize"], ["doctor"], ["calibrate"], ["report"],
            ["catalog", "list"], ["catalog", "show"], ["catalog", "import-prices"], ["bench", "run"],
            ["bench", "server"], ["results", "list"], ["results", "show"], ["results", "export"],
            ["results", "delete"]]


def test_every_help_is_plain_and_documented(iolab):
    docs = (ROOT / "README.md").read_text() + "".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))
    undocumented = []
    for words in COMMANDS:
        r = iolab(*words, "--help")
        assert r.code == 0 and r.err == "", (words, r.err)
        assert r.out.startswith(f"Usage: iolab {' '.join(words)} "), r.out[:80]
        assert not re.search(r"<list\[|\bPosixPath\b|typing\.|NoneType", r.out), (words, r.out)
        for option in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", r.out)) - {"--help"}):
            forms = {option, option.replace("--no-", "--"), "--no-" + option[2:]}  # --store / --no-store
            if not any(f"`{f}" in docs or re.search(rf"iolab {' '.join(words)}[^\n`]*{re.escape(f)}\b", docs)
                       or re.search(rf"\[{re.escape(f)}[\]/ ]", docs) for f in forms):
                undocumented.append(f"{' '.join(words)} {option}")
    assert undocumented == []
