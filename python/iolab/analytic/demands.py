"""A compiled :class:`~iolab.network.Network` reduced to matrices: each fio job a chain
whose IOs pick their class by its probability (class switching within a chain), so a
chain's demand at a cap is the probability-weighted mix of its classes' (:class:`Chains`).

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np

from ..network import Flat, Fork, Hold, LoadLaw, Network, Step, Visit, flatten

__all__ = ["Chains", "chains", "SERVICE_CV2", "THROTTLE_CV2"]

#: Squared coefficient of variation of a cap's service time, by its ``service``: a throttle
#: spaces IOs evenly (deterministic, 0); ``exponential`` is kept for checks against theory.
SERVICE_CV2 = {"deterministic": 0.0, "exponential": 1.0}

#: A throttle's (every cap the compiler builds).
THROTTLE_CV2 = SERVICE_CV2["deterministic"]

class Chains(msgspec.Struct, frozen=True):
    """A network reduced to matrices: chains (jobs) × cap resources."""

    jobs: tuple[str, ...]
    caps: tuple[str, ...]
    population: np.ndarray      # N[j]
    demand: np.ndarray          # D[j, k], seconds per IO of chain j at cap k (baseline)
    burst_demand: np.ndarray    # the same at burst caps
    background: np.ndarray      # Dbg[j, k], off the response path
    delay: np.ndarray           # Z[j]
    slots: np.ndarray           # S[j, s], share of chain j's IOs inside slot limit s
    flats: dict[str, Flat]      # per class
    rate: np.ndarray | None = None   # per chain: fio's rate limit (ops/s), nan where none
    overlap: np.ndarray | None = None  # phi[j, k]: share of the residence at k in the response
                                       # time (1, or 1/m for m fork members run in parallel)
    laws: tuple[LoadLaw, ...] = ()     # the load delays' laws
    load: np.ndarray | None = None     # L[j, l]: passes of chain j's IO through law l's delay
    think: np.ndarray | None = None    # per chain: seconds each slot waits between IOs (thinktime)
    cv2: np.ndarray | None = None      # per cap: squared coefficient of variation of its service
                                       # time (0: a throttle's even spacing; 1: exponential)
    turns: tuple[tuple[int, ...], ...] = ()  # caps taken in turn (round-robin connections), by group

    def thinking(self) -> np.ndarray:
        return self.think if self.think is not None else np.zeros(len(self.jobs))

    def phi(self) -> np.ndarray:
        return self.overlap if self.overlap is not None else np.ones_like(self.demand)

    def turn_size(self) -> np.ndarray:
        """(K,): how many caps share each cap's IOs in turn (1 for a cap on its own)."""
        m = np.ones(len(self.caps))
        for g in self.turns:
            m[list(g)] = len(g)
        return m

    def variation(self) -> np.ndarray:
        """(K,): each cap's squared coefficient of variation of service (1 when not given)."""
        return self.cv2 if self.cv2 is not None else np.ones(len(self.caps))

    def law_caps(self) -> list[int]:
        """The index (in ``caps``) of each law's cap."""
        return [self.caps.index(law.cap) for law in self.laws]

    def load_delay(self, u: np.ndarray) -> np.ndarray:
        """(J,): each chain's load delay per IO when law ``l``'s cap is at utilization ``u[l]``."""
        if not self.laws or self.load is None:
            return np.zeros(len(self.jobs))
        return self.load @ np.array([law.delay(float(x)) for law, x in zip(self.laws, u)])


def chains(network: Network) -> Chains:
    """Reduce the network to per-job (chain) demand matrices."""
    caps = tuple(r.id for r in network.resources if r.cap is not None)
    kidx = {k: i for i, k in enumerate(caps)}
    sidx = {s.id: i for i, s in enumerate(network.slot_limits)}
    jidx = {j.name: i for i, j in enumerate(network.jobs)}
    nj, nk, ns = len(network.jobs), len(caps), len(network.slot_limits)
    D, B, G, P = np.zeros((nj, nk)), np.zeros((nj, nk)), np.zeros((nj, nk)), np.zeros((nj, nk))
    Z, S = np.zeros(nj), np.zeros((nj, ns))
    flats: dict[str, Flat] = {}
    laws: dict[LoadLaw, int] = {}
    passes: dict[tuple[int, int], float] = {}
    for c in network.classes:
        f = flatten(network, c)
        flats[c.id] = f
        j, p = jidx[c.job], c.probability
        for law, n in f.load.items():
            key = (j, laws.setdefault(law, len(laws)))
            passes[key] = passes.get(key, 0.0) + p * n
        for rid, d in f.demand.items():
            D[j, kidx[rid]] += p * d
        for rid, d in f.response.items():
            P[j, kidx[rid]] += p * d
        for rid, d in f.burst_demand.items():
            B[j, kidx[rid]] += p * d
        for rid, d in f.background.items():
            G[j, kidx[rid]] += p * d
        for sid, share in f.slots.items():
            S[j, sidx[sid]] += p * share
        Z[j] += p * f.delay
    N = np.array([float(j.population) for j in network.jobs])
    rate = np.array([float(j.rate) if j.rate else math.nan for j in network.jobs])
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(D > 0, P / np.where(D > 0, D, 1.0), 1.0)
    L = np.zeros((nj, len(laws)))
    for (j, l), n in passes.items():
        L[j, l] = n
    think = np.array([float(j.think) for j in network.jobs])
    cv2 = np.array([SERVICE_CV2[r.cap.service] for r in network.resources if r.cap is not None])
    return Chains(tuple(jidx), caps, N, D, B, G, Z, S, flats, rate, phi, tuple(laws), L,
                  think if think.any() else None, cv2, _turns(network, kidx))


def _turns(network: Network, kidx: dict[str, int]) -> tuple[tuple[int, ...], ...]:
    """Groups of caps that take a route's IOs in turn: the caps each branch of a round-robin
    fork that picks one starts with (inside the branch's slot limit, if any), one cap of its
    own per branch (NFS connections, SMB channels)."""
    groups: dict[tuple[int, ...], None] = {}
    for c in network.classes:
        for st in _forks(c.route):
            if st.pick != "round-robin" or st.choose != 1 or len(st.branches) < 2:
                continue
            members = [v.resource for v in map(_first_visit, st.branches) if v is not None]
            if (len(members) == len(st.branches) and all(m in kidx for m in members)
                    and len(set(members)) == len(members)):
                groups.setdefault(tuple(sorted(kidx[m] for m in members)), None)
    return tuple(groups)


def _first_visit(steps: tuple[Step, ...]) -> Visit | None:
    """The visit a branch starts with, looking inside a leading slot limit."""
    while steps and isinstance(steps[0], Hold):
        steps = steps[0].steps
    return steps[0] if steps and isinstance(steps[0], Visit) else None


def _forks(steps: tuple[Step, ...]):
    """Every fork of a route, nested ones included."""
    for st in steps:
        if isinstance(st, Fork):
            yield st
            for b in st.branches:
                yield from _forks(b)
        elif isinstance(st, Hold):
            yield from _forks(st.steps)
