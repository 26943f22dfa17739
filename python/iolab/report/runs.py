"""Report sections for stored bench runs: one run (here or on several hosts) and a sweep."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..bench.compare import rows
from ..bench.record import LATENCY_KEYS, RunRecord
from . import figures
from .formats import latency, ratio, value
from .page import Section

__all__ = ["run_section", "sweep_section", "param"]


def param(name: str, value: Any) -> str:
    """A sweep parameter as fio writes it: ``bs=4k`` (sizes in fio's binary units), ``iodepth=8``."""
    if name in ("bs", "size") and isinstance(value, int) and value > 0:
        for unit, scale in (("m", 1 << 20), ("k", 1 << 10)):
            if value % scale == 0:
                return f"{name}={value // scale}{unit}"
    return f"{name}={value}"


def _params(params: Mapping[str, Any]) -> str:
    return ", ".join(param(k, v) for k, v in params.items())


def _environment(sec: Section, r: RunRecord) -> None:
    sec.heading("Environment")
    sec.facts([("host", r.host), ("kernel", r.kernel), ("fio", r.fio_version), ("target", r.target),
               ("file system", r.fstype), ("mount options", r.mount_options),
               ("hosts", ", ".join(h.host for h in r.hosts) if r.hosts else None),
               ("started", r.started), ("ended", r.ended)])


def _asked(sec: Section, r: RunRecord, *, sweep: bool = False) -> None:
    sec.heading("What was asked" + (" (the job file of the first point)" if sweep else ""))
    sec.facts([("scenario", r.scenario), ("point", None if sweep else _params(r.params)),
               ("fio command", " ".join(r.fio_argv))])
    if r.jobfile:
        sec.pre(r.jobfile)


def _figures_table(sec: Section, doc: Mapping[str, Any], predicted: Mapping[str, Any] | None) -> None:
    if predicted:
        table = rows(doc, predicted)
        shown = [x for x in table if x.measured is not None]
        sec.table(["where", "figure", "measured", "predicted", "measured / predicted"],
                  [[x.scope, x.figure, value(x.figure, x.measured), value(x.figure, x.predicted),
                    ratio(x.measured, x.predicted)] for x in shown], left=2)
        return
    parts = [("total", doc)] + [(d, doc[d]) for d in ("read", "write") if d in doc and "read" in doc and "write" in doc]
    parts += [(f"job {j['name']}", j) for j in doc.get("jobs", []) if len(doc.get("jobs", [])) > 1]
    sec.table(["where", "IOPS", "bandwidth", *LATENCY_KEYS],
              [[name, value("iops", p.get("iops")), value("bandwidth", p.get("bandwidth")),
                *(latency(p.get("latency", {}).get(k)) for k in LATENCY_KEYS)] for name, p in parts])


def run_section(r: RunRecord) -> Section:
    """A run: what was asked, where, the figures beside the prediction, percentiles, hosts."""
    many = f" on {len(r.hosts)} hosts" if r.hosts else ""
    sec = Section(f"Run {r.run_id}{many}: {r.status}", "run")
    if r.error:
        sec.para(f"error: {r.error}", "bad")
    _asked(sec, r)
    _environment(sec, r)
    doc = r.to_json()
    if r.measured is None:
        sec.para("No figures were measured.", "bad")
        return sec
    sec.heading("Measured" + (" beside predicted" if r.predicted else ""))
    _figures_table(sec, doc, r.predicted)
    if not r.predicted:
        sec.para("No scenario described the target, so there is no prediction to compare with.", "note")
    series = {"total": dict(r.measured.total.latency)}
    for d in ("read", "write"):
        part = getattr(r.measured, d)
        if part is not None and r.measured.read is not None and r.measured.write is not None:
            series[d] = dict(part.latency)
    for h in r.hosts:
        if h.measured is not None:
            series[f"host {h.host}"] = dict(h.measured.total.latency)
    if any(len(v) > 1 for v in series.values()):
        sec.figure(figures.percentiles(series, title=f"run {r.run_id}: latency percentiles"),
                   "Measured latency at each percentile (log scale); dotted lines are the means.")
    if r.hosts:
        _hosts(sec, r)
    return sec


def _hosts(sec: Section, r: RunRecord) -> None:
    sec.heading("Hosts")
    body, classes = [], []
    for h in r.hosts:
        m = h.measured.total if h.measured is not None else None
        body.append([h.host, h.status, value("iops", m.iops if m else None), value("bandwidth", m.bandwidth if m else None),
                     latency(m.latency.get("mean") if m else None), latency(m.latency.get("p99") if m else None),
                     h.error or ""])
        classes.append(["", "" if h.status == "ok" else "bad", "", "", "", "", ""])
    sec.table(["host", "status", "IOPS", "bandwidth", "mean", "p99", "error"], body, left=2, classes=classes)
    ok = [h for h in r.hosts if h.measured is not None]
    if ok:
        fair = sum(h.measured.total.iops for h in ok) / len(ok)  # type: ignore[union-attr]
        sec.figure(figures.bars([h.host for h in ok], [h.measured.total.iops for h in ok],  # type: ignore[union-attr]
                                title="IOPS per host", xlabel="IOPS", limit=fair),
                   "Each host's IOPS; the dashed line is the hosts' average.")


def _pred(r: RunRecord, path: Sequence[str]) -> float | None:
    node: Any = r.predicted
    for k in path:
        node = node.get(k) if isinstance(node, Mapping) else None
    return float(node) if isinstance(node, (int, float)) else None


def sweep_section(info: Mapping[str, Any], records: Sequence[RunRecord]) -> Section:
    """A sweep: its axes and points, measured beside predicted, the curves and knees."""
    axes = info.get("axes", {})
    sec = Section(f"Sweep {info['sweep_id']}: " + ", ".join(f"{k} = {', '.join(map(str, v))}" for k, v in axes.items()),
                  "sweep")
    if not records:
        sec.para("The sweep has no stored runs.", "bad")
        return sec
    first = records[0]
    _asked(sec, first, sweep=True)
    _environment(sec, first)
    knee = info.get("knee") or {}
    sec.heading("Points")
    body, classes = [], []
    for r in records:
        m = r.measured.total if r.measured is not None else None
        label = _params(r.params)
        is_knee = knee.get("run_id") == r.run_id
        body.append([label + (" ◀ knee" if is_knee else ""), r.run_id, r.status,
                     value("iops", m.iops if m else None), value("iops", _pred(r, ("iops",))),
                     ratio(m.iops if m else None, _pred(r, ("iops",))),
                     latency(m.latency.get("mean") if m else None), latency(_pred(r, ("latency", "mean"))),
                     ratio(m.latency.get("mean") if m else None, _pred(r, ("latency", "mean"))),
                     latency(m.latency.get("p99") if m else None)])
        classes.append(["good" if is_knee else "", "", "" if r.status == "ok" else "bad"] + [""] * 7)
    sec.table(["point", "run", "status", "IOPS", "predicted", "ratio", "mean latency", "predicted", "ratio", "p99"],
              body, left=1, classes=classes)
    if knee:
        sec.para("Knee: " + _params(knee.get("params", {}))
                 + " — the point past which IOPS grew less than 10 % while latency grew (or, with a latency "
                   "target, the highest IOPS meeting it).")
    for group, members in _groups(records, list(axes)).items():
        ok = [r for r in members if r.status == "ok" and r.measured is not None]
        if not ok:
            continue
        if group:
            sec.heading(f"Curve at {group}")
        vary = list(axes)[-1] if axes else ""
        measured = [figures.Point(r.measured.total.iops, r.measured.total.latency.get("mean", 0.0),  # type: ignore[union-attr]
                                  param(vary, r.params.get(vary)) if vary else "") for r in ok]
        predicted = [figures.Point(p_i, p_l, param(vary, r.params.get(vary))) for r in ok
                     if (p_i := _pred(r, ("iops",))) and (p_l := _pred(r, ("latency", "mean")))]
        knee_pt = next((m for m, r in zip(measured, ok) if r.run_id == knee.get("run_id")), None)
        bound = max((_pred(r, ("max_iops",)) or 0.0) for r in ok)
        p_knee = next((p for p in predicted if bound and p.iops >= 0.95 * bound), None)
        title = f"sweep {info['sweep_id']}" + (f" ({group})" if group else "") + ": latency vs IOPS"
        sec.figure(figures.latency_curve(measured, predicted, title=title, knee=knee_pt, predicted_knee=p_knee),
                   "Mean latency against IOPS, measured (circles) and predicted (squares); the measured knee is "
                   "starred, the predicted knee (95 % of the model's IOPS bound) marked with a diamond.")
        if predicted:
            labels = [m.label for m in measured]
            sec.figure(figures.ratios(labels, {
                "IOPS": [(r.measured.total.iops / p) if (p := _pred(r, ("iops",))) else None for r in ok],  # type: ignore[union-attr]
                "mean latency": [(r.measured.total.latency.get("mean", 0.0) / p)  # type: ignore[union-attr]
                                 if (p := _pred(r, ("latency", "mean"))) else None for r in ok]},
                title=title.replace("latency vs IOPS", "measured / predicted")),
                "The ratio of measured to predicted at each point; 1 means the model was exact.")
        sec.figure(figures.percentiles({m.label or str(r.run_id): dict(r.measured.total.latency)  # type: ignore[union-attr]
                                        for m, r in zip(measured, ok)}, title=title.replace("latency vs IOPS",
                                                                                            "latency percentiles")),
                   "Measured latency percentiles at each point (log scale).")
    return sec


def _groups(records: Sequence[RunRecord], axes: list[str]) -> dict[str, list[RunRecord]]:
    """Curves: the runs grouped by every axis but the last (which varies along a curve)."""
    out: dict[str, list[RunRecord]] = {}
    for r in records:
        key = ", ".join(param(a, r.params.get(a)) for a in axes[:-1])
        out.setdefault(key, []).append(r)
    return out
