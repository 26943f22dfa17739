"""``predict``: compile a scenario, solve it by mean value analysis, and explain the answer.

The JSON shape is ``iolab predict --json``'s (docs/predict.md); every figure is in base units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from msgspec.structs import replace

from .analytic import Solution, chains, reach, solve
from .bottleneck import Bottleneck, of_prediction
from .compile import compile_scenario
from .network import Network
from .phases import combine_docs, duration, split
from .scenario import Scenario

__all__ = ["Prediction", "predict", "predict_phases", "file_json", "predict_json"]


@dataclass(frozen=True)
class Prediction:
    """A scenario's prediction: the network, its MVA solution and the headline figures."""

    scenario: Scenario
    network: Network
    solution: Solution
    upper_iops: float          # what every cap, slot limit and rate allows at any concurrency
    reach_90: float | None = None  # IOs in flight at which the prediction reaches 90 % of it

    @property
    def iops(self) -> float:
        return self.solution.iops

    @property
    def bottleneck(self) -> Bottleneck:
        """What limits it (:mod:`iolab.bottleneck`)."""
        return of_prediction(self)

    @property
    def bandwidth(self) -> float:
        return self.solution.bandwidth

    @property
    def latency(self) -> float:
        return self.solution.latency

    def direction(self, which: str) -> dict | None:
        cs = [c for c in self.solution.classes if c.direction == which]
        x = sum(c.iops for c in cs)
        if not cs or x <= 0:
            return None
        return _figures(x, sum(c.iops * c.bytes for c in cs), sum(c.iops * c.latency for c in cs) / x)

    def jobs(self) -> list[dict]:
        """Per scenario job, summed over identical clients."""
        groups: dict[str, list] = {}
        for j in self.network.jobs:
            groups.setdefault(j.group, []).append(j.name)
        out = []
        for group, names in groups.items():
            cs = [c for c in self.solution.classes if c.job in names]
            x = sum(c.iops for c in cs)
            lat = sum(c.iops * c.latency for c in cs) / x if x > 0 else math.inf
            out.append({"name": group, **_figures(x, sum(c.iops * c.bytes for c in cs), lat)})
        return out

    def to_json(self) -> dict:
        sol = self.solution
        doc: dict = _figures(self.iops, self.bandwidth, self.latency)
        for d in ("read", "write"):
            fig = self.direction(d)
            if fig:
                doc[d] = fig
        doc["jobs"] = self.jobs()
        doc["bottleneck"] = self.bottleneck.to_json()
        doc["resources"] = [{"resource": r.label, "kind": r.kind, "utilization": round(r.utilization, 4)}
                            for r in sol.resources]
        if sol.load:
            doc["load_delay"] = [{"resource": d.label, "utilization": round(d.utilization, 4),
                                  "delay": round(d.delay, 9)} for d in sol.load]
        if sol.slots:
            doc["slots"] = [{"resource": s.label, "kind": s.kind, "slots": s.slots,
                             "wanted": round(s.wanted, 3)} for s in sol.slots]
        doc["outstanding"] = int(sol.outstanding) if float(sol.outstanding).is_integer() else sol.outstanding
        doc["knee_outstanding"] = round(sol.knee_outstanding, 3)
        doc["max_iops"] = round(self.upper_iops, 1)
        doc["outstanding_at_90"] = None if self.reach_90 is None else round(self.reach_90, 1)
        if sol.burst is not None:
            doc["burst"] = {**_figures(sol.burst.iops, sol.burst.bandwidth, sol.burst.latency),
                            "duration": None if sol.burst.duration is None else round(sol.burst.duration, 3),
                            "resources": list(sol.burst.resources), "spending": list(sol.burst.spending)}
        if self.network.notes:
            doc["notes"] = list(self.network.notes)
        if self.scenario.ignored:
            doc["ignored"] = list(self.scenario.ignored)
        return doc


def _figures(iops: float, bandwidth: float, latency: float) -> dict:
    return {"iops": round(iops, 1), "bandwidth": float(round(bandwidth)),
            "latency": {"mean": round(latency, 9) if math.isfinite(latency) else None}}


def settle_mixes(scenario: Scenario) -> Scenario:
    """The scenario with the mix of each mixed job whose reads (or writes) alone are capped
    (fio's ``rate_iops=500,`` on a randrw job) settled as fio settles it: fio issues the capped
    direction at its cap whenever the path would give it more, and the other direction flat
    out; a share ``rwmixread`` does not reach is kept. The read share ``f`` of such a job is
    the root of ``f X(f) = cap`` (reads capped) or ``(1 − f) X(f) = cap`` (writes), ``X`` the
    job's IOPS at that share, found by bisection; several such jobs are settled in turn
    until none moves.

    A mixed job capped in both directions runs at its caps' mix while the path allows the
    caps' sum; when it allows less, both directions fall behind their pace and fio picks
    them by ``rwmixread`` again, a direction that reaches its cap leaving the rest to the
    other: reads ``min(cap_r, max(p X, X − cap_w))`` of the ``X`` the path gives, settled by
    fixed point. Other scenarios are returned as they are."""
    capped = [i for i, j in enumerate(scenario.jobs) if j.fio.capped_reads or j.fio.capped_writes]
    both = [i for i, j in enumerate(scenario.jobs) if j.fio.rate_iops and j.fio.rate_read_share is not None
            and j.fio.rw in ("rw", "randrw") and 0 < j.fio.rwmixread < 100]
    if not capped and not both:
        return scenario
    clones = scenario.clients.count
    jobs = list(scenario.jobs)

    def at(i: int, share: float) -> float:
        """Job i's IOPS (all clients) with read share `share`, the other jobs as they stand."""
        trial = list(jobs)
        trial[i] = replace(jobs[i], fio=jobs[i].fio.replace(rate_read_share=share))
        network = compile_scenario(scenario.replace_jobs(tuple(trial)))
        solution = solve(network)
        name = jobs[i].fio.name  # every client's copy of the job carries its name as its group
        return sum(solution.job_iops.get(j.name, 0.0) for j in network.jobs if j.group == name)

    for _ in range(4):
        moved = False
        for i in capped:
            fio = jobs[i].fio
            mix = fio.rwmixread / 100.0
            reads = fio.capped_reads is not None
            cap = (fio.capped_reads if reads else fio.capped_writes) * fio.numjobs * clones  # type: ignore[operator]

            def over(share: float) -> float:  # the capped direction's IOPS above its cap
                return (share if reads else 1.0 - share) * at(i, share) - cap

            lo, hi = (0.0, mix) if reads else (mix, 1.0)
            if over(mix) <= 0:
                share = mix   # the cap is not reached at rwmixread: fio keeps its mix
            else:
                for _step in range(60):
                    mid = 0.5 * (lo + hi)
                    if (over(mid) > 0) == reads:
                        hi = mid
                    else:
                        lo = mid
                    if hi - lo <= 1e-5 * (hi if reads else 1.0 - lo):  # the capped share to 0.001 %
                        break
                share = 0.5 * (lo + hi)
            old = fio.rate_read_share
            moved = moved or old is None or abs(old - share) > 1e-4
            jobs[i] = replace(jobs[i], fio=fio.replace(rate_read_share=share))
        if not moved or len(capped) == 1:
            break
    for i in both:
        fio = scenario.jobs[i].fio
        total = fio.rate_iops * fio.numjobs * clones  # type: ignore[operator]
        cap_r, share = total * fio.rate_read_share, fio.rate_read_share  # type: ignore[operator]
        cap_w, mix = total - cap_r, fio.rwmixread / 100.0
        x = at(i, share)
        if x >= (1 - 1e-3) * total:
            continue  # the caps hold: each direction at its own
        for _step in range(20):
            new = min(cap_r, max(mix * x, x - cap_w)) / x if x > 0 else mix
            if abs(new - share) <= 1e-6:
                break
            share = new
            x = at(i, share)
        jobs[i] = replace(jobs[i], fio=fio.replace(rate_read_share=share))
    return scenario.replace_jobs(tuple(jobs))


def predict(scenario: Scenario) -> Prediction:
    """Compile and solve a scenario (pure and deterministic)."""
    scenario = settle_mixes(scenario)
    network = compile_scenario(scenario)
    ch = chains(network)
    solution = solve(network, ch)
    upper = solution.upper_iops
    at_90 = reach(network, ch, 0.9 * upper) if math.isfinite(upper) else None
    return Prediction(scenario, network, solution, upper, at_90)


def predict_phases(scenario: Scenario) -> tuple[list[Prediction], list[float | None]]:
    """Each phase of the scenario predicted on its own (fio's ``stonewall``/``wait_for``; one
    phase when no job waits), with how long each runs (:func:`iolab.phases.duration`)."""
    parts = split(scenario)
    preds = [predict(p.scenario) for p in parts]
    durations = [duration(p, {j["name"]: j["bandwidth"] for j in pr.jobs()}) for p, pr in zip(parts, preds)]
    return preds, durations


def file_json(preds: list[Prediction], durations: list[float | None]) -> dict:
    """The JSON of :func:`predict_phases`: one prediction's when there is one phase, else the
    file's total with ``phases`` (:func:`iolab.phases.combine_docs`)."""
    if len(preds) == 1:
        return preds[0].to_json()
    return combine_docs([p.to_json() for p in preds], durations)


def predict_json(scenario: Scenario) -> dict:
    """``iolab predict --json``'s figures for a scenario, every phase counted
    (:func:`predict_phases`, :func:`file_json`): what a comparison with a measurement uses."""
    return file_json(*predict_phases(scenario))
