"""The simulate job: a scenario source and the run's options in, a :class:`SimulateResult`
out, whose :meth:`~SimulateResult.to_json` is ``iolab simulate --json``'s document. A file
run in phases (fio's ``stonewall``/``wait_for``) is simulated phase by phase with the same
options, each phase read the same way (predict's utilization, bursts, warm-up, the
bottleneck), and totalled by how long each phase runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .source import Source, as_source, load_scenario_source, warnings_of

if TYPE_CHECKING:
    from ..network import Network
    from ..readout import BucketTurn, BurstUse, CreditPhase, WarmUp
    from ..scenario import Scenario
    from ..sim import Simulation
    from ..traps import Trap

__all__ = ["MAX_IOS", "MAX_REPLICATIONS", "MAX_SIM_SECONDS", "SimulateOptions", "SimulatedPhase", "SimulateResult",
           "simulate_file", "check_duration", "check_count"]

MAX_IOS = 10**12  # about four days of simulation at 3 million IOs a second
MAX_REPLICATIONS = 1000
#: the longest simulated time the engine runs (seconds, about 116 days), warm-up and measured each
MAX_SIM_SECONDS = 1e7


def check_duration(text: str | None, option: str, *, positive: bool = True) -> float | None:
    """A duration option (``30s``, ``45m``) in seconds, within what the engine runs; None
    when not given. SchemaError naming `option` otherwise."""
    from ..errors import SchemaError
    from ..units import parse_duration

    if text is None:
        return None
    try:
        value = parse_duration(text)
    except ValueError as e:
        raise SchemaError(getattr(e, "message", str(e)), field=option) from None
    if positive and value <= 0:
        raise SchemaError(f"must be longer than 0 s (got {text!r})", field=option)
    if value >= MAX_SIM_SECONDS:
        raise SchemaError(f"must be shorter than {MAX_SIM_SECONDS:,.0f} s (about 116 days of simulated time; "
                          f"got {text!r})", field=option)
    return value


def check_count(value: int | None, option: str, lowest: int, highest: int, words: str) -> None:
    """A whole-number option within bounds, refused in a person's words (no 19-digit limits)."""
    from ..errors import SchemaError

    if value is None:
        return
    if value < lowest:
        raise SchemaError(f"must be at least {lowest:,} (got {value:,})", field=option)
    if value > highest:
        got = f"{value:,}" if value < 10**15 else f"{value:.3g}"
        raise SchemaError(f"must be at most {highest:,}{' ' + words if words else ''} (got {got})", field=option)


@dataclass(frozen=True)
class SimulateOptions:
    """The run's options, as ``iolab simulate`` takes them: ``ios`` or ``duration`` (seconds)
    measured, ``ramp`` (seconds) discarded, ``seed``, ``replications``, ``interval``
    (seconds per series point); ``plot``: the file an interface draws into (named in the
    JSON); ``progress(fraction, ios)`` and ``cancel`` (a flag) for a long run."""

    catalog: tuple[Path, ...] = ()
    calibration: Path | None = None
    ios: int | None = None
    duration: float | None = None
    ramp: float | None = None
    seed: int = 1
    replications: int = 1
    interval: float | None = None
    plot: Path | None = None
    progress: Callable[[float, int], None] | None = field(default=None, compare=False)
    cancel: threading.Event | None = field(default=None, compare=False)


@dataclass(frozen=True)
class SimulatedPhase:
    """One phase simulated: its scenario and network, the simulation, each cap's utilization
    as predict defines it (``loads``), the caps that ran on burst credits, the host caches
    still warming, and how long the phase runs in the file (None: unknown)."""

    number: int
    scenario: Scenario
    network: Network
    sim: Simulation
    loads: dict[str, float]
    bursting: list[BurstUse]
    warming: list[WarmUp]
    duration: float | None
    turns: list[BucketTurn] = field(default_factory=list)

    @property
    def credit_phases(self) -> list[CreditPhase]:
        """The run split at the first bucket that emptied or filled (none when none did)."""
        from ..readout import credit_phases

        return credit_phases(self.sim, self.turns[0]) if self.turns else []

    @property
    def outstanding(self) -> int:
        return sum(j.population for j in self.network.jobs)

    def bottleneck(self) -> dict:
        from ..bottleneck import of_simulation

        return of_simulation(self.network, self.sim, self.loads).to_json()

    def to_json(self) -> dict:
        from .predict import ordered_jobs

        doc = self.sim.to_json()
        doc["jobs"] = ordered_jobs(doc["jobs"], [j.name for j in self.scenario.jobs])
        for res, row in zip(self.sim.resources, doc["resources"]):
            if res.slots is None:  # predict's utilization; the engine's share of time busy beside it
                row["busy"] = row["utilization"]
                row["utilization"] = self.loads.get(res.id, res.utilization)
        doc["bottleneck"] = self.bottleneck()
        doc["bursting"] = [u.to_json() for u in self.bursting]
        doc["bucket_turns"] = [t.to_json() for t in self.turns]
        doc["credit_phases"] = [c.to_json() for c in self.credit_phases]
        doc["warming"] = [{"resource": w.resource, "hit_ratio": w.measured, "warm_hit_ratio": w.warm}
                          for w in self.warming]
        doc["outstanding"] = self.outstanding
        return doc


@dataclass(frozen=True)
class SimulateResult:
    """A scenario simulated: its phases (one when no job waits for another) and the warnings
    about the input (including a run in which no IO completed)."""

    source: Source
    scenario: Scenario
    phases: list[SimulatedPhase]
    warnings: list[Trap]
    plot: Path | None = None

    @property
    def phased(self) -> bool:
        return len(self.phases) > 1

    @property
    def partial(self) -> bool:
        return any(p.sim.partial for p in self.phases)

    def to_json(self) -> dict:
        """``iolab simulate --json`` (docs/simulate.md)."""
        from ..phases import combine_docs

        docs = [p.to_json() for p in self.phases]
        doc = docs[0] if len(docs) == 1 else combine_docs(docs, [p.duration for p in self.phases])
        if self.plot is not None:
            doc["plot"] = str(self.plot)
        doc["warnings"] = [t.to_json() for t in self.warnings]
        return doc


def _from_jobs(s: Scenario, ios: int | None, duration: float | None, ramp: float | None
               ) -> tuple[float | None, float | None]:
    """(duration, ramp) of a simulation: the options given, else the jobs' own ``runtime`` (of
    ``time_based`` jobs, when ``ios`` is not given) and ``ramp_time``; a job's value past what
    the engine runs is refused naming the file and the job, with the option that overrides it."""
    from ..errors import SchemaError
    from ..units import format_duration

    def longest(attr: str, option: str, when: Any) -> float | None:
        found = [(getattr(j.fio, attr), j) for j in s.jobs if getattr(j.fio, attr) and when(j)]
        if not found:
            return None
        value, job = max(found, key=lambda f: f[0])
        if value >= MAX_SIM_SECONDS:
            raise SchemaError(f"{format_duration(value)} is longer than the {MAX_SIM_SECONDS:,.0f} s (about 116 days) "
                              f"a simulation runs; give {option}", file=s.file, field=f"{job.field}.{attr}")
        return value

    if ramp is None:
        ramp = longest("ramp_time", "--ramp", lambda j: True) or 0.0
    if ios is None and duration is None:
        duration = longest("runtime", "--duration or --ios", lambda j: j.fio.time_based)
    return duration, ramp


def simulate_file(source: Source | str | Path, options: SimulateOptions = SimulateOptions()) -> SimulateResult:
    """Simulate a scenario file (or text), every phase with the same options.

    Raises SchemaError (exit 2) for a bad file or option; a plot of a file run in phases is
    refused. When ``options.cancel`` is set the run stops early and the result is partial."""
    from ..compile import compile_scenario
    from ..errors import SchemaError
    from ..phases import duration as phase_duration, split
    from ..prediction import settle_mixes
    from ..readout import bucket_turns, bursts, cap_loads, warm_ups
    from ..sim import simulate
    from ..traps import Trap

    if options.ios is not None and options.duration is not None:
        raise SchemaError("give --ios or --duration, not both", field="--ios")
    check_count(options.ios, "--ios", 1, MAX_IOS, "(a trillion IOs: about four days of simulation)")
    check_count(options.replications, "--replications", 1, MAX_REPLICATIONS, "")
    check_count(options.seed, "--seed", 0, 2**64 - 1, "(a 64-bit number)")
    src = as_source(source)
    s = load_scenario_source(src, options.catalog, options.calibration)
    warnings = warnings_of(src, s)
    parts = split(s)
    if len(parts) > 1 and options.plot is not None:
        raise SchemaError(f"--plot takes jobs that run together; this file runs in {len(parts)} phases "
                          "(stonewall, wait_for)", field="--plot")
    phases = []
    for part in parts:
        ps = settle_mixes(part.scenario)
        network = compile_scenario(ps)
        dur, ramp = _from_jobs(ps, options.ios, options.duration, options.ramp)
        sim = simulate(network, ios=options.ios, duration=dur, ramp=ramp, seed=options.seed,
                       interval=options.interval, replications=options.replications, cancel=options.cancel,
                       progress=options.progress if len(parts) == 1 else None)
        loads = cap_loads(network, sim)
        runs = phase_duration(part, {j.name: j.bandwidth for j in sim.jobs if j.name})
        phases.append(SimulatedPhase(part.number, ps, network, sim, loads, bursts(network, sim, loads),
                                     warm_ups(network, sim), runs, bucket_turns(network, sim)))
        if sim.ios == 0:
            warnings.append(Trap("no IO completed in the measured time, so there is no latency to report "
                                 "(null in JSON, - in tables): give a longer --duration, or --ios", src.name,
                                 "--duration" if dur is not None else None))
        if options.cancel is not None and options.cancel.is_set():
            break
    return SimulateResult(src, s, phases, warnings, options.plot)
