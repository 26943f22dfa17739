"""A self-contained HTML page: inline CSS, inline SVG figures, no script, nothing fetched.

A :class:`Page` holds sections; each section holds blocks (a paragraph, a definition
list, a table, a preformatted text, a figure). :meth:`Page.html` escapes every text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

__all__ = ["Page", "Section", "esc"]

CSS = """
:root { --ink: #1d2430; --muted: #5b6676; --line: #d9dee6; --accent: #1f5fa8; --bad: #b3261e; --good: #22703a; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); margin: 0 auto; max-width: 1060px; padding: 24px 28px 60px; background: #fff; }
header { border-bottom: 3px solid var(--accent); margin-bottom: 18px; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 20px; margin: 30px 0 8px; color: var(--accent); }
h3 { font-size: 16px; margin: 20px 0 6px; }
.meta, .note { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13.5px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: right; vertical-align: top; }
th { background: #f3f5f8; font-weight: 600; }
td.l, th.l { text-align: left; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 18px; margin: 8px 0 14px; font-size: 14px; }
dt { color: var(--muted); } dd { margin: 0; word-break: break-word; }
pre { background: #f6f8fa; border: 1px solid var(--line); padding: 10px; overflow-x: auto; font-size: 12.5px; }
figure { margin: 10px 0 18px; } figure svg { max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; }
.bad { color: var(--bad); font-weight: 600; } .good { color: var(--good); font-weight: 600; }
ul.reasons li { margin: 3px 0; }
footer { margin-top: 40px; border-top: 1px solid var(--line); padding-top: 8px; color: var(--muted); font-size: 12px; }
@media print { body { max-width: none; } h2 { break-after: avoid; } figure, table { break-inside: avoid; } }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


@dataclass
class Section:
    """One part of the report (a run, a sweep, a plan ...): a title and its blocks (HTML)."""

    title: str
    kind: str
    blocks: list[str] = field(default_factory=list)

    def heading(self, text: str) -> None:
        self.blocks.append(f"<h3>{esc(text)}</h3>")

    def para(self, text: str, cls: str = "") -> None:
        self.blocks.append(f"<p{f' class={chr(34)}{cls}{chr(34)}' if cls else ''}>{esc(text)}</p>")

    def facts(self, pairs: Sequence[tuple[str, object]]) -> None:
        """A definition list; pairs whose value is None or empty are left out."""
        rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in pairs if v not in (None, ""))
        if rows:
            self.blocks.append(f"<dl>{rows}</dl>")

    def table(self, head: Sequence[str], rows: Sequence[Sequence[object]], *, left: int = 1,
              classes: Sequence[Sequence[str]] | None = None) -> None:
        """A table; the first `left` columns align left; `classes` gives a CSS class per cell."""
        def cell(tag: str, i: int, value: object, cls: str = "") -> str:
            names = " ".join(c for c in ("l" if i < left else "", cls) if c)
            return f"<{tag}{f' class={chr(34)}{names}{chr(34)}' if names else ''}>{esc(value)}</{tag}>"

        th = "".join(cell("th", i, h) for i, h in enumerate(head))
        body = "".join("<tr>" + "".join(cell("td", i, v, classes[r][i] if classes else "")
                                        for i, v in enumerate(row)) + "</tr>" for r, row in enumerate(rows))
        self.blocks.append(f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>")

    def pre(self, text: str) -> None:
        self.blocks.append(f"<pre>{esc(text)}</pre>")

    def items(self, texts: Sequence[str], cls: str = "reasons") -> None:
        if texts:
            self.blocks.append(f"<ul class=\"{cls}\">" + "".join(f"<li>{esc(t)}</li>" for t in texts) + "</ul>")

    def figure(self, svg: str, caption: str) -> None:
        """An inline SVG (from :mod:`iolab.report.figures`) with its caption."""
        self.blocks.append(f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>")


@dataclass
class Page:
    title: str
    sections: list[Section] = field(default_factory=list)

    def html(self, version: str) -> str:
        now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        toc = "".join(f"<li>{esc(s.title)}</li>" for s in self.sections) if len(self.sections) > 1 else ""
        body = "".join(f"<section class=\"{esc(s.kind)}\"><h2>{esc(s.title)}</h2>{''.join(s.blocks)}</section>"
                       for s in self.sections)
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                "style-src 'unsafe-inline'; img-src data:\">"
                f"<title>{esc(self.title)}</title><style>{CSS}</style></head><body>"
                f"<header><h1>{esc(self.title)}</h1><p class=\"meta\">written by iolab {esc(version)} on {now}</p>"
                f"{f'<ol>{toc}</ol>' if toc else ''}</header>{body}"
                "<footer>iolab report: one self-contained file (inline styles and figures, no scripts, "
                "nothing loaded from the network).</footer></body></html>\n")
