"""Report section for a calibration file (``iolab calibrate -o``): where it came from, the
fitted parameters, and each run's prediction error before and after."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import figures
from .page import Section

__all__ = ["calibration_section"]


def _pct(x: Any) -> str:
    return f"{x * 100:+.1f} %" if isinstance(x, (int, float)) else "–"


def _errors(sec: Section, title: str, before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> None:
    if not before:
        return
    sec.heading(title)
    keys = [k for k in ("iops", "latency.mean", "latency.p50", "latency.p99") if any(k in p for p in before)]
    by_run = {p.get("run_id"): p for p in after}
    sec.table(["run", *(f"{k} {w}" for k in keys for w in ("before", "after"))],
              [[p.get("point", p.get("run_id")), *(_pct(q.get(k)) for k in keys for q in (p, by_run.get(p.get("run_id"), {})))]
               for p in before])
    labels = [str(p.get("point", p.get("run_id"))).split(" (", 1)[-1].rstrip(")") for p in before]
    series: dict[str, list[float | None]] = {}
    for k in keys[:2]:
        for name, points in (("before", before), ("after", [by_run.get(p.get("run_id"), {}) for p in before])):
            series[f"{k} {name}"] = [1 + q[k] if isinstance(q.get(k), (int, float)) else None for q in points]
    sec.figure(figures.ratios(labels, series, title="predicted / measured, before and after the fit",
                              ylabel="predicted / measured"),
        "Predicted over measured at each run, before and after the fit; 1 means the model was exact.")


def calibration_section(doc: Mapping[str, Any], *, title: str) -> Section:
    sec = Section(title, "calibration")
    cal = doc.get("calibration") or {}
    sec.heading("What was fitted to what")
    runs = cal.get("runs") or []
    sec.facts([("scenario", cal.get("scenario")), ("results database", cal.get("database")),
               ("sweep", cal.get("sweep")), ("runs", ", ".join(map(str, runs)) if runs else None),
               ("written", cal.get("created"))])
    fitted = cal.get("fitted") or []
    if fitted:
        sec.heading("Parameters")
        body, classes = [], []
        for f in fitted:
            rel = f.get("relative_error")
            body.append([f.get("parameter"), f.get("start") if f.get("start") is not None else "unset",
                         f.get("shown", f.get("value")), f"±{rel * 100:.0f} %" if isinstance(rel, (int, float)) else "–",
                         "yes" if f.get("identified") else "no", f.get("warning", "")])
            classes.append(["", "", "", "", "good" if f.get("identified") else "bad", ""])
        sec.table(["parameter", "start (base units)", "fitted", "1 σ", "identified", "warning"], body, left=1,
                  classes=classes)
    res = cal.get("residuals") or {}
    if res.get("rms_log_before") is not None:
        sec.para(f"Root mean square of log(predicted / measured) over the fitted figures: "
                 f"{res['rms_log_before']:.3f} before, {res.get('rms_log_after') or 0:.3f} after.")
    _errors(sec, "Fitted runs: (predicted − measured) / measured", res.get("before") or [], res.get("after") or [])
    held = res.get("held_out") or []
    if held:
        sec.heading("Held-out runs (predicted with the fitted values, never fitted to)")
        keys = [k for k in ("iops", "latency.mean") if any(k in p for p in held)]
        sec.table(["run", *keys], [[p.get("point"), *(_pct(p.get(k)) for k in keys)] for p in held])
    sec.items([f"warning: {w}" for w in cal.get("warnings") or []])
    overrides = {k: v for k, v in doc.items() if k in ("volumes", "clients", "catalog")}
    if overrides:
        import yaml

        sec.heading("What it overrides")
        sec.pre(yaml.safe_dump(overrides, sort_keys=False))
    return sec
