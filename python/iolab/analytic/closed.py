"""The closed model's solver: each chain's throughput and each cap's utilization at the
chains' populations, with what bends them — slot limits that hold the population at the
client, caps taken in turn, a host cache's background flush, fio's rate limits and
thinktimes, and load delays that follow their caps' utilization inside the MVA recursion.
One chain: exact MVA; several: Schweitzer–Bard (:mod:`.mva`).

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import numpy as np

from ..network import Network
from .demands import Chains
from .load_delays import ChainLoads, Loads
from .mva import exact_mva, schweitzer_mva

__all__ = ["solve_closed", "effective_population", "in_turn", "chain_loads", "first_chain"]


def chain_loads(ch: Chains, D: np.ndarray) -> ChainLoads | None:
    """The chains' load delays: passes (J, L), laws, and each chain's demand at each law's
    cap (J, L) from the demands ``D``; None without load delays."""
    if not ch.laws or ch.load is None:
        return None
    return ch.load, ch.laws, D[:, ch.law_caps()]

def _mva(D: np.ndarray, Z: np.ndarray, N: np.ndarray, phi: np.ndarray,
         load: ChainLoads | None = None,
         cv2: np.ndarray | None = None, start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Throughput per chain and, for several chains, the queues (a start for the next
    solve of nearby populations); one chain: exact MVA, and no queues returned."""
    if len(N) == 1:
        X, _ = exact_mva(D[0], float(Z[0]), float(N[0]), phi[0], first_chain(load), cv2)
        return np.array([X]), None
    return schweitzer_mva(D, Z, N, phi=phi, load=load, cv2=cv2, start=start)


def first_chain(load: ChainLoads | None) -> Loads:
    """The first chain's load delays (:data:`~.load_delays.Loads`) from the chains' (:func:`chain_loads`)."""
    if load is None:
        return ()
    passes, laws, c = load
    return tuple((float(passes[0, l]), law, float(c[0, l])) for l, law in enumerate(laws))

def effective_population(ch: Chains, network: Network) -> np.ndarray:
    """Scale each chain's population so that no slot limit holds more IOs than its slots."""
    N = ch.population.copy()
    if not network.slot_limits:
        return N
    slots = np.array([float(s.slots) for s in network.slot_limits])
    scale = np.ones(len(N))
    for _ in range(4):  # a few rounds settle chains that share slot limits
        wanted = (N * scale) @ ch.slots
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(wanted > slots, slots / np.where(wanted > 0, wanted, 1.0), 1.0)
        for j in range(len(N)):
            touched = ch.slots[j] > 0
            if touched.any():
                scale[j] *= float(ratio[touched].min())
    return N * scale


def in_turn(ch: Chains, D: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Caps that take IOs in turn (``m`` connections, each IO to the next) queue as one
    server ``m`` times as fast, the rest of each IO's time at its connection a delay
    (Seidmann's approximation of a multi-server station): a group's demand ``s`` per IO
    becomes a queue of ``s / m`` (on its first member) and a delay of ``s (m − 1) / m``.
    Taking IOs in turn spaces them evenly at each connection, where a random pick would
    let them bunch up and queue. Utilizations are still each member's own."""
    if not ch.turns:
        return D, Z
    pool, rest = _pooling(ch.turns, len(ch.caps))
    return D @ pool, Z + (ch.phi() * D) @ rest


def _pooling(turns: tuple[tuple[int, ...], ...], K: int) -> tuple[np.ndarray, np.ndarray]:
    """(K, K) matrix moving each group's demand, divided by its size, onto its first member,
    and (K,) each cap's share of its demand that becomes a delay ((m − 1) / m in a group)."""
    pool, rest = np.eye(K), np.zeros(K)
    for g in turns:
        idx = list(g)
        m = len(idx)
        pool[idx, :] = 0.0
        pool[idx, idx[0]] = 1.0 / m
        rest[idx] = (m - 1) / m
    return pool, rest


def solve_closed(ch: Chains, network: Network, D: np.ndarray, start: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Throughput per chain, utilization per cap, the think time per chain, and the queues
    of several chains' Schweitzer–Bard solution (None for one chain), from which a solve of
    nearby populations can ``start``.

    Background load (a host cache's lazy flush) inflates the demands it shares a cap with.
    A chain with a rate limit (fio's ``rate_iops``) waits between IOs: the think time ``T``
    is found so that the chain runs at its rate when the path allows more; the latency of
    its IOs is then ``N / X − T``. A chain with a thinktime waits at least that long (its
    ``think``), whatever its rate. Load delays follow their caps' utilization inside the
    MVA recursion (:func:`~.load_delays.loaded_rate`)."""
    N_eff = effective_population(ch, network)
    U_bg = np.zeros(D.shape[1])
    X = np.zeros(D.shape[0])
    think = ch.thinking()
    T = think.copy()
    S = np.zeros(D.shape[0])  # wait for the flush when it cannot keep up (part of the latency)
    flushes = ch.background > 0
    limited = ch.rate is not None and bool(np.isfinite(ch.rate).any())
    rounds = 60 if (ch.background.any() or limited) else 1
    Q = start
    for _ in range(rounds):
        D_eff = D / np.clip(1.0 - U_bg, 1e-6, None)[None, :]
        D_q, Z_q = in_turn(ch, D_eff, ch.delay + T + S)
        X, Q = _mva(D_q, Z_q, N_eff, ch.phi(), chain_loads(ch, D + ch.background), ch.variation(), Q)
        settled = True
        if flushes.any():
            # Steady writes cannot outrun their flush: a chain whose flush loads a cap past
            # 1 waits (the host cache full) until the cap carries exactly what it flushes.
            busy = X @ (D + ch.background)
            over = np.where(flushes, busy[None, :], 0.0).max(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                cycle = np.where(X > 0, N_eff / X, 0.0)
            new_S = np.where(flushes.any(axis=1), np.maximum(0.0, S + cycle * (over - 1.0)), 0.0)
            settled = bool(np.allclose(new_S, S, rtol=1e-7, atol=1e-12))
            S = new_S
        if limited:
            assert ch.rate is not None
            with np.errstate(divide="ignore", invalid="ignore"):
                target = np.where(np.isfinite(ch.rate), N_eff / ch.rate, 0.0)
                cycle = np.where(X > 0, N_eff / X, 0.0)
            new_T = np.where(np.isfinite(ch.rate), np.maximum(think, T + target - cycle), think)
            settled = settled and bool(np.allclose(new_T, T, rtol=1e-7, atol=1e-12))
            T = new_T
        new_bg = X @ ch.background
        if settled and np.allclose(new_bg, U_bg, atol=1e-9):
            break
        U_bg = np.minimum(new_bg, 0.999)
    U = X @ D + X @ ch.background
    return X, U, T * (ch.population / np.where(N_eff > 0, N_eff, 1.0)), Q
