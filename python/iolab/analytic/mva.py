"""Mean value analysis on demand matrices: exact MVA for one chain (:func:`exact_mva`, with
the population at which it first reaches a throughput, :func:`exact_reach`) and
Schweitzer–Bard's approximation for several (:func:`schweitzer_mva`), both with the
residual-time correction of a cap's service variation and with load delays
(:mod:`.load_delays`).

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import math
from operator import mul

import numpy as np

from .load_delays import ChainLoads, Loads, load_time, loaded_delays, loaded_rate, rate_function

__all__ = ["exact_mva", "exact_reach", "schweitzer_mva", "SATURATED", "EXACT_STEPS", "ANDERSON_MEMORY"]


def exact_mva(D: np.ndarray, Z: float, N: float, phi: np.ndarray | None = None,
              load: Loads = (), cv2: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """Exact single-chain MVA. ``D``: demands (K,), ``Z``: delay, ``N``: population (a
    fractional population interpolates linearly between its neighbours). ``phi`` (K,): the
    share of each station's residence that adds to the cycle time (1 for stations visited in
    turn; 1/m for the m members of a fork, which run in parallel); queues are Little's law
    of the full residence. ``load``: delays whose mean follows a cap's utilization
    (:data:`~.load_delays.Loads`): at each population the throughput and the delays it causes agree
    (:func:`~.load_delays.loaded_rate`). ``cv2`` (K,): each station's squared coefficient of variation of
    service (1, exponential, when not given): an arriving IO waits for the one in service
    only its residual time, ``D (1 + cv²) / 2`` instead of ``D`` (Reiser's residual-time
    MVA: residence ``D (1 + Q − U (1 − cv²) / 2)``, exact for exponential stations, and for a
    throttle's even spacing, cv² = 0, close to what the simulator gives). Returns
    (throughput, mean queue length per station).

    Stations of equal demand have equal queues, so the recursion runs over the distinct
    demands with their multiplicities (in plain floats: a population of thousands takes
    about a millisecond)."""
    D = np.asarray(D, dtype=float)
    if N <= 0:
        return 0.0, np.zeros_like(D)
    d, w, ad, inverse = _groups(D, phi, cv2)
    X, q = 0.0, [0.0] * len(d)
    dmax = max(d, default=0.0)
    n_int = int(math.floor(N))
    steps = _climb(d, w, ad, Z, load)
    for n in range(1, n_int + 1):
        X, q = next(steps)
        if n < N and (X * dmax >= SATURATED or n >= EXACT_STEPS):
            X, q = _large_population(d, w, q, X, n, Z, N, load, ad)
            return X, np.asarray(q)[inverse].reshape(D.shape)
    frac = N - n_int
    if frac > 1e-12:
        X_next, q_next = next(steps)
        X, q = X + frac * (X_next - X), [a + frac * (b - a) for a, b in zip(q, q_next)]
    return X, np.asarray(q)[inverse].reshape(D.shape)


def exact_reach(D: np.ndarray, Z: float, target: float, most: float, phi: np.ndarray | None = None,
                load: Loads = (), cv2: np.ndarray | None = None) -> float | None:
    """The population at which :func:`exact_mva` first gives ``target``, from one climb of
    its recursion (the throughput at every population on the way; between two integers it
    interpolates as ``exact_mva`` does). None when the climb cannot tell: the target not
    reached by ``most``, by :data:`EXACT_STEPS` or before the busiest station saturates."""
    D = np.asarray(D, dtype=float)
    d, w, ad, _ = _groups(D, phi, cv2)
    dmax = max(d, default=0.0)
    X_prev = 0.0
    steps = _climb(d, w, ad, Z, load)
    for n in range(1, int(min(most, EXACT_STEPS)) + 1):
        X, _ = next(steps)
        if X >= target:
            return n - 1 + (target - X_prev) / (X - X_prev)
        if X * dmax >= SATURATED:
            return None
        X_prev = X
    return None


def _groups(D: np.ndarray, phi: np.ndarray | None, cv2: np.ndarray | None
            ) -> tuple[list[float], list[float], list[float], np.ndarray]:
    """Stations of equal demand, phi and cv² have equal queues: the distinct demands ``d``,
    their weights in the cycle ``w`` (count × phi), their residual-time corrections ``ad``
    (``D (1 − cv²) / 2``, times the utilization ``X D`` at each step) and each station's group."""
    ph = np.ones_like(D) if phi is None else np.asarray(phi, dtype=float)
    cv = np.ones_like(D) if cv2 is None else np.asarray(cv2, dtype=float)
    keys, inverse, counts = np.unique(np.stack([D, ph, cv], axis=-1).reshape(-1, 3), axis=0, return_inverse=True,
                                      return_counts=True)
    d = [float(v) for v in keys[:, 0]]
    w = [float(m) * float(f) for m, f in zip(counts, keys[:, 1])]
    ad = [float(v) * 0.5 * (1.0 - float(c)) for v, c in zip(keys[:, 0], keys[:, 2])]
    return d, w, ad, inverse.reshape(-1)


def _climb(d: list[float], w: list[float], ad: list[float], Z: float, load: Loads):
    """Exact MVA's recursion over the groups of :func:`_groups`: yields the throughput and
    the groups' queues at populations 1, 2, 3, … (in plain floats: a population of
    thousands takes about a millisecond)."""
    q = [0.0] * len(d)
    X = 0.0
    rate = rate_function(load)
    dmax = max(d, default=0.0)
    xmax = 1.0 / dmax if dmax > 0 else math.inf
    dw = [a * b for a, b in zip(d, w)]
    n = 0
    while True:
        n += 1
        # residence / demand at each group: 1 + Q − U (1 − cv²) / 2 (Q, U at population n − 1)
        a = [1.0 + qg - ag * X for qg, ag in zip(q, ad)]
        X = min(rate(n, Z + sum(map(mul, dw, a))), xmax)
        q = [X * dg * ag for dg, ag in zip(d, a)]
        yield X, q


#: Utilisation of the busiest station from which a larger population no longer changes
#: exact MVA's throughput (it rises towards ``1 / D_max`` and is within 1e-9 of it): from
#: there on, any population is solved in one step (:func:`_large_population`).
SATURATED = 1.0 - 1e-9
#: Populations exact MVA climbs one by one at most. A larger population whose busiest
#: station is not saturated by then (many stations of nearly the largest demand) is
#: finished by Schweitzer's approximation, whose error vanishes as the population grows
#: (within 0.1 % of exact MVA's throughput from here on).
EXACT_STEPS = 4096


def _large_population(d: list[float], w: list[float], q: list[float], X: float, n: int, Z: float,
                      N: float, load: Loads = (), ad: list[float] | None = None) -> tuple[float, list[float]]:
    """Exact MVA's answer at a large population ``N``, from its throughput ``X`` and queues
    ``q`` at population ``n`` < ``N``, in a time that does not grow with ``N``.

    Saturated (the busiest station at :data:`SATURATED` or more at ``n``): the throughput is
    the bound ``1 / D_max`` (exact MVA's rises towards it and is already within 1e-9);
    stations below the largest demand keep their queues (near their limits ``U / (1 − U)``)
    and the stations of the largest demand hold the rest of the population, so that
    ``N = X (Z + Σ residences)`` holds. Otherwise Schweitzer's fixed point at ``N`` (which
    is exact for stations of equal demand as ``N`` grows), started from ``q`` scaled to
    ``N`` and run for a bounded number of rounds.

    ``d``: the distinct demands, ``w``: their weights in the cycle (count × phi); ``load``
    as in :func:`exact_mva`; ``ad``: each demand's residual-time correction (``D (1 − cv²) /
    2``, none when not given)."""
    G = len(d)
    dmax = max(d, default=0.0)
    if dmax <= 0.0:  # nothing but the delay: X = N / Z
        return (N / Z if Z > 0 else math.inf), [0.0] * G
    if X * dmax >= SATURATED:
        r = [v / X for v in q]  # residences at population n (Little)
        X = 1.0 / dmax
        top = [g for g in range(G) if d[g] >= dmax * (1.0 - 1e-9)]
        rest = N / X - Z - load_time(X, load) - sum(w[g] * r[g] for g in range(G) if g not in top)
        share = sum(w[g] for g in top)
        out = list(q)
        for g in top:
            out[g] = X * max(rest, 0.0) / share if share > 0 else N / len(top)
        return X, out
    q = [v * N / n for v in q]
    ad = ad or [0.0] * G
    for _ in range(1000):
        r = [d[g] * (1.0 + (q[g] - ad[g] * X) * (N - 1.0) / N) for g in range(G)]
        X = min(loaded_rate(N, Z + sum(w[g] * r[g] for g in range(G)), load), 1.0 / dmax)
        new = [0.5 * q[g] + 0.5 * X * r[g] for g in range(G)]
        done = max(abs(a - b) for a, b in zip(new, q)) < 1e-12 * N
        q = new
        if done:
            break
    return X, q


def schweitzer_mva(D: np.ndarray, Z: np.ndarray, N: np.ndarray, *, phi: np.ndarray | None = None,
                   tol: float = 1e-10, max_iter: int = 20000,
                   load: ChainLoads | None = None,
                   cv2: np.ndarray | None = None, start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Schweitzer–Bard approximate MVA for several chains.

    ``D``: (J, K) demands, ``Z``: (J,) delays, ``N``: (J,) populations, ``phi`` (J, K) as in
    :func:`exact_mva`; ``load``: load delays as :func:`~.closed.chain_loads` gives them, in each round
    the delays that agree with the throughputs they cause (:func:`~.load_delays.loaded_delays`);
    ``cv2`` (K,): the stations' squared coefficients of variation of service, as in
    :func:`exact_mva` (the residual-time correction at the previous round's utilization);
    ``start`` (J, K): queues to start from (the solution at nearby populations, scaled to
    these; each chain's population spread evenly over its stations and the delay when not
    given). The rounds are combined by Anderson's acceleration (:func:`_accelerated`).
    Returns (throughput per chain (J,), queue lengths (J, K))."""
    ph = np.ones_like(D) if phi is None else phi
    J, K = D.shape
    active = N > 0
    # A chain sees the others' queues whole and its own less one IO of its own: total − Q/N.
    own = np.where(active, 1.0 / np.where(active, N, 1.0), 0.0)[:, None]
    phD = ph * D
    half = 0.5 * (1.0 - (np.ones(K) if cv2 is None else np.asarray(cv2, dtype=float)))
    hD = half[None, :] * D          # the residual-time correction per unit of throughput
    corrected = bool(hD.any())
    if start is None:
        Q = np.where(active[:, None], N[:, None] / max(K + 1, 1), 0.0) * np.ones((J, K))
    else:
        Q = np.where(active[:, None], start, 0.0)
    bound = tol * max(1.0, float(N.max(initial=1.0)))
    # The rounds' state, one vector: the queues, then the throughputs (the residual-time
    # correction and the load delays use the last round's) in busy fractions of each
    # chain's largest demand, so that both weigh alike in the acceleration.
    JK = J * K
    scale = D.max(axis=1, initial=0.0)
    scale = np.where(scale > 0, scale, 1.0)
    state = np.concatenate([Q.ravel(), np.zeros(J)])
    DA = np.empty((J, K))
    past: list = []   # the latest rounds, for Anderson's acceleration
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(max_iter):
            Q = state[:JK].reshape(J, K)
            X = state[JK:] / scale
            # What an arriving IO finds: the others' queues less the residual-time correction
            # of their IOs in service (a throttle's half a service), its own less one IO.
            Qc = Q - hD * X[:, None] if corrected else Q
            A1 = (1.0 + Qc.sum(axis=0)) - Qc * own
            cycle = Z + (phD * A1).sum(axis=1)
            if load is not None:
                cycle = cycle + loaded_delays(N, cycle, load, X @ load[2])
            X_new = np.divide(N, cycle, out=np.zeros(J), where=cycle > 0)   # idle chains: N = 0
            np.multiply(D, A1, out=DA)
            DA *= X_new[:, None]
            step = np.concatenate([DA.ravel(), X_new * scale])
            step -= state
            if float(np.abs(step).max()) < bound:
                Q, X = DA, X_new
                break
            if i > 200:
                state = state + 0.5 * step
                continue
            plain = state + step
            state = _accelerated(state, step, past)
            # The equations also hold at points no queue can reach (a negative queue): there
            # the plain round is taken instead, and the acceleration starts again.
            if state[:JK].min(initial=0.0) < 0.0:
                state = plain
                past.clear()
        else:
            Q, X = state[:JK].reshape(J, K), state[JK:] / scale
        if corrected:
            X, Q = _within_caps(X, Q, D, N)
    return X, Q


#: Rounds of Schweitzer–Bard's fixed point whose steps Anderson's acceleration combines.
ANDERSON_MEMORY = 4


def _accelerated(x: np.ndarray, step: np.ndarray, past: list) -> np.ndarray:
    """The next state of a fixed-point iteration from the current one ``x`` and the round's
    ``step`` (``F(x) − x``), by Anderson's acceleration: the combination of the latest rounds
    whose steps cancel best (least squares), which converges in a fraction of the plain
    iteration's rounds when its slowest modes shrink slowly or rotate. ``past`` keeps the
    latest round and the differences of the rounds before it, updated here."""
    if ANDERSON_MEMORY == 0:
        return x + step
    if past:
        last_x, last_step, diffs = past[-1]
        diffs = (diffs + [(x - last_x, step - last_step)])[-ANDERSON_MEMORY:]
    else:
        diffs = []
    past[:] = [(x, step, diffs)]
    if not diffs:
        return x + step
    dx = np.array([d[0] for d in diffs]).T
    dF = np.array([d[1] for d in diffs]).T
    # The least-squares weights from the normal equations (a few columns: cheaper than a
    # factorization), kept solvable by a ridge of 1e-12 of their scale.
    G = dF.T @ dF
    G.flat[::len(diffs) + 1] += 1e-12 * float(np.trace(G)) + 1e-300
    gamma = np.linalg.solve(G, dF.T @ step)
    return x + step - (dx + dF) @ gamma


def _within_caps(X: np.ndarray, Q: np.ndarray, D: np.ndarray, N: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The residual-time correction can lift a saturated cap a little past its rate (at most
    ``N / (N − 1/2)``): the chains through an overfull cap slow down together to its rate
    (the others keep theirs), and the IOs they no longer cycle wait in that cap's queue, so
    each chain's population holds."""
    XD = X @ D
    if XD.max(initial=0.0) <= 1.0 + 1e-12:
        return X, Q
    chain = np.arange(len(X))
    scale = np.where(D > 0, np.maximum(XD, 1.0)[None, :], 1.0)
    at = scale.argmax(axis=1)
    slow = scale[chain, at]
    Q = Q / slow[:, None]
    Q[chain, at] += N * (1.0 - 1.0 / slow)
    return X / slow, Q
