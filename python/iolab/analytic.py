"""The analytic engine: mean value analysis of a compiled :class:`~iolab.network.Network`.

- **Closed** (``solve``): each fio job is a chain whose IOs pick their class by its
  probability (class switching within a chain), so a chain's demand at a resource is the
  probability-weighted mix of its classes'. One chain: exact MVA. Several chains (several
  jobs, several clients): Schweitzer–Bard approximate MVA.
- **Slot limits** cap the population that enters their segment; the rest waits at the
  client, so the latency the application sees is ``R = N / X`` over the whole population.
- **Open** (``solve_open`` and the vectorised ``open_model``): for a required rate,
  utilizations, the latency ``R = Z + Σ D × stretch(U)`` (each cap an M/G/1 station of its
  service's variation: a throttle's M/D/1 ``1 + U / (2 (1 − U))``) and the concurrency ``λ R``.
- **Bounds and knee**: ``X(N) ≤ min(N / (Z + ΣD), 1 / D_max)``; ``N* = (Z + ΣD) / D_max``.
- **Load delays** (a share's latency under load, :class:`~iolab.network.LoadLaw`): a delay
  whose mean follows the utilization of a cap. In the closed solution, at each population
  step, the throughput and the delay it causes agree (:func:`_loaded_rate`); the open one
  evaluates the law at the required load.

All times in seconds, rates in ops/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import mul

import numpy as np

from dataclasses import replace

from .network import Class, Flat, Fork, Hold, LoadLaw, Network, Step, Visit, flatten, walk

__all__ = [
    "Chains",
    "ResourceLoad",
    "SlotLoad",
    "ClassResult",
    "BurstResult",
    "LoadDelay",
    "Solution",
    "OpenSolution",
    "chains",
    "exact_mva",
    "schweitzer_mva",
    "solve",
    "solve_open",
    "open_model",
    "bounds",
    "Limits",
    "limits",
    "reach",
    "SATURATION",
    "SERVICE_CV2",
    "THROTTLE_CV2",
    "stretch",
    "residence",
]

#: Squared coefficient of variation of a cap's service time, by its ``service``: a throttle
#: spaces IOs evenly (deterministic, 0); ``exponential`` is kept for checks against theory.
SERVICE_CV2 = {"deterministic": 0.0, "exponential": 1.0}

#: A throttle's (every cap the compiler builds).
THROTTLE_CV2 = SERVICE_CV2["deterministic"]


def stretch(u, cv2=THROTTLE_CV2, turns=1):
    """Open model: how many times its demand an IO spends at a cap of utilization ``u``
    (M/G/1: ``1 + u (1 + cv²) / (2 (1 − u))``; exponential service, cv² = 1, gives M/M/1's
    ``1 / (1 − u)``; a throttle, cv² = 0, M/D/1's), inf at a full cap. A cap one of
    ``turns`` that take IOs in turn waits ``1 / turns`` of that (the group queues as one
    server ``turns`` times as fast: Seidmann's approximation). Scalars or arrays."""
    u = np.asarray(u, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(u < 1.0, 1.0 + u * (1.0 + cv2) / (2.0 * (1.0 - u)) / turns, np.inf)


def residence(d, u, cv2=THROTTLE_CV2, turns=1):
    """Open model: the time an IO of demand ``d`` spends at a cap of utilization ``u``,
    ``d × stretch(u)`` (see :func:`stretch`): 0 without demand, inf at a full cap."""
    d = np.asarray(d, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(d > 0, d * stretch(u, cv2, turns), 0.0)


#: A cap at or above this utilization counts as saturated (a fair line between busy and saturated).
SATURATION = 0.9


@dataclass(frozen=True)
class Chains:
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


#: Load delays of one chain: (passes per IO, law, the IO's demand at the law's cap). The
#: delay an IO spends is ``Σ passes × law.delay(X × demand)`` at the chain's throughput X.
Loads = tuple[tuple[float, LoadLaw, float], ...]


def _loads(ch: Chains, D: np.ndarray) -> tuple[np.ndarray, tuple[LoadLaw, ...], np.ndarray] | None:
    """The chains' load delays: passes (J, L), laws, and each chain's demand at each law's
    cap (J, L) from the demands ``D``; None without load delays."""
    if not ch.laws or ch.load is None:
        return None
    return ch.load, ch.laws, D[:, ch.law_caps()]


def _load_time(X: float, load: Loads) -> float:
    return sum(p * law.delay(X * c) for p, law, c in load)


def _loaded_rate(n: float, A: float, load: Loads) -> float:
    """The throughput ``X`` of ``n`` IOs in flight whose cycle is ``A`` seconds plus the
    load delays at ``X``: the root of ``F(X) = X (A + Σ p × delay(X c)) − n``. ``F`` grows
    with ``X``, so the root is unique; it lies between ``n / (A + the delays at full caps)``
    and ``n / A``. Laws of exponent 1 are linear between their breakpoints, where ``F`` is
    a quadratic solved exactly (:func:`_linear_rate`); others by Newton's method kept
    inside that bracket."""
    hi = n / A if A > 0 else math.inf
    if not load or not math.isfinite(hi) or _load_time(hi, load) <= 0.0:
        return hi
    if all(law.exponent == 1.0 for _, law, _ in load):
        return _linear_rate(n, A, load, hi)
    lo = n / (A + sum(p * law.scale for p, law, _ in load))
    x = hi
    for _ in range(60):
        f = x * (A + _load_time(x, load)) - n
        if abs(f) <= 1e-12 * n:
            break
        if f > 0:
            hi = x
        else:
            lo = x
        slope = A + _load_time(x, load) + x * sum(p * c * law.slope(x * c) for p, law, c in load)
        step = x - f / slope
        x = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo <= 1e-14 * hi:
            break
    return x


def _linear_rate(n: float, A: float, load: Loads, hi: float) -> float:
    """:func:`_loaded_rate` for laws of exponent 1: between breakpoints (where a law starts
    or reaches a full cap) the delays are ``a + b X``, so ``X (A + a + b X) = n``."""
    cuts = sorted({0.0, hi} | {x for _, law, c in load if c > 0
                               for x in (law.onset / c, 1.0 / c) if 0.0 < x < hi})
    for left, right in zip(cuts, cuts[1:]):
        mid = 0.5 * (left + right)
        a = b = 0.0
        for p, law, c in load:
            u = mid * c
            if u >= 1.0:
                a += p * law.scale
            elif u > law.onset:
                k = p * law.scale / (1.0 - law.onset)
                a -= k * law.onset
                b += k * c
        if right * (A + a + b * right) - n < 0.0:
            continue
        if b <= 0.0:
            return n / (A + a)
        return 2.0 * n / ((A + a) + math.sqrt((A + a) ** 2 + 4.0 * b * n))
    return hi


def _rate_function(load: Loads):
    """``(n, A) -> X`` as :func:`_loaded_rate` for ``load``, with the common case (no load
    delay, or one law of exponent 1: a share) in a few float operations."""
    if not load:
        return lambda n, A: n / A if A > 0 else math.inf
    if len(load) == 1 and load[0][1].exponent == 1.0 and load[0][2] > 0:
        p, law, c = load[0]
        s, o = p * law.scale, law.onset
        k = s / (1.0 - o)
        start, full = o / c, 1.0 / c   # throughputs where the delay starts and where it is full

        def one(n: float, A: float) -> float:
            if A <= 0:
                return math.inf
            X = n / A
            if X <= start:
                return X
            a = A - k * o
            X = 2.0 * n / (a + math.sqrt(a * a + 4.0 * k * c * n))
            return X if X <= full else n / (A + s)

        return one
    return lambda n, A: _loaded_rate(n, A, load)


def exact_mva(D: np.ndarray, Z: float, N: float, phi: np.ndarray | None = None,
              load: Loads = (), cv2: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """Exact single-chain MVA. ``D``: demands (K,), ``Z``: delay, ``N``: population (a
    fractional population interpolates linearly between its neighbours). ``phi`` (K,): the
    share of each station's residence that adds to the cycle time (1 for stations visited in
    turn; 1/m for the m members of a fork, which run in parallel); queues are Little's law
    of the full residence. ``load``: delays whose mean follows a cap's utilization
    (:data:`Loads`): at each population the throughput and the delays it causes agree
    (:func:`_loaded_rate`). ``cv2`` (K,): each station's squared coefficient of variation of
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
    rate = _rate_function(load)
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
        rest = N / X - Z - _load_time(X, load) - sum(w[g] * r[g] for g in range(G) if g not in top)
        share = sum(w[g] for g in top)
        out = list(q)
        for g in top:
            out[g] = X * max(rest, 0.0) / share if share > 0 else N / len(top)
        return X, out
    q = [v * N / n for v in q]
    ad = ad or [0.0] * G
    for _ in range(1000):
        r = [d[g] * (1.0 + (q[g] - ad[g] * X) * (N - 1.0) / N) for g in range(G)]
        X = min(_loaded_rate(N, Z + sum(w[g] * r[g] for g in range(G)), load), 1.0 / dmax)
        new = [0.5 * q[g] + 0.5 * X * r[g] for g in range(G)]
        done = max(abs(a - b) for a, b in zip(new, q)) < 1e-12 * N
        q = new
        if done:
            break
    return X, q


def schweitzer_mva(D: np.ndarray, Z: np.ndarray, N: np.ndarray, *, phi: np.ndarray | None = None,
                   tol: float = 1e-10, max_iter: int = 20000,
                   load: tuple[np.ndarray, tuple[LoadLaw, ...], np.ndarray] | None = None,
                   cv2: np.ndarray | None = None, start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Schweitzer–Bard approximate MVA for several chains.

    ``D``: (J, K) demands, ``Z``: (J,) delays, ``N``: (J,) populations, ``phi`` (J, K) as in
    :func:`exact_mva`; ``load``: load delays as :func:`_loads` gives them, in each round
    the delays that agree with the throughputs they cause (:func:`_loaded_delays`);
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
                cycle = cycle + _loaded_delays(N, cycle, load, X @ load[2])
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


def _loaded_delays(N: np.ndarray, A: np.ndarray, load: tuple[np.ndarray, tuple[LoadLaw, ...], np.ndarray],
                   near: np.ndarray) -> np.ndarray:
    """Each chain's load delays (J,) when its throughput is ``N / (A + delays)`` and every
    law's delay follows the utilization those throughputs cause (``load`` as
    :func:`_loads` gives it): the several-chain form of :func:`_loaded_rate`. A law's
    utilization ``u`` solves ``u = Σ c N / (A + p × delay(u))``, whose right side falls as
    ``u`` grows, so the root is unique (Newton's method kept inside a shrinking bracket);
    several laws are solved in turn until their delays settle. Evaluating the delays at the
    previous round's utilization instead swings between a light load and a heavy one where
    a law is steep. ``near`` (L,): utilizations to start each law's search from (the last
    round's)."""
    passes, laws, c = load
    L = len(laws)
    P, C, Ns, As = passes.tolist(), c.tolist(), N.tolist(), A.tolist()
    coupled = any(sum(1 for x in row if x) > 1 for row in P)   # a chain meets several laws
    delay = [0.0] * L
    for _ in range(50 if coupled else 1):
        moved = 0.0
        for l, law in enumerate(laws):
            terms = [(n * cj[l], a + sum(pm * dm for m, (pm, dm) in enumerate(zip(pj, delay)) if m != l), pj[l])
                     for n, a, pj, cj in zip(Ns, As, P, C) if n * cj[l] > 0]
            new = law.delay(_law_utilization(terms, law, float(near[l])))
            moved = max(moved, abs(new - delay[l]) / max(new, delay[l], 1e-300))
            delay[l] = new
        if moved <= 1e-12:
            break
    return np.array([sum(pm * dm for pm, dm in zip(pj, delay)) for pj in P])


def _law_utilization(terms: list[tuple[float, float, float]], law: LoadLaw, near: float = 1.0) -> float:
    """The root ``u`` of ``u = Σ w / (rest + p × delay(u))`` over the chains' ``terms`` (``w``:
    the chain's population times its demand at the law's cap; ``rest``: its cycle without
    this law's delay; ``p``: how often it meets the delay), searched from ``near`` (kept
    inside the bounds)."""
    if not terms:
        return 0.0
    hi = sum(wj / rj for wj, rj, _ in terms) if all(rj > 0 for _, rj, _ in terms) else math.inf  # no delay
    if hi <= law.onset:
        return hi
    lo = sum(wj / (rj + pj * law.scale) for wj, rj, pj in terms)        # the full delay: the least
    u = min(max(near, lo), hi, 1.0)
    for _ in range(100):
        d = law.delay(u)
        g, dg = u, 0.0
        for wj, rj, pj in terms:
            den = rj + pj * d
            g -= wj / den
            dg += wj * pj / (den * den)
        if abs(g) <= 1e-15 * max(u, 1e-300):
            return u
        if g > 0:
            hi = u
        else:
            lo = u
        if hi - lo <= 1e-13 * max(hi, 1e-300):
            return 0.5 * (lo + hi)
        step = u - g / (1.0 + law.slope(u) * dg)
        u = step if lo < step < hi else 0.5 * (lo + hi)
    return u


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


def _mva(D: np.ndarray, Z: np.ndarray, N: np.ndarray, phi: np.ndarray,
         load: tuple[np.ndarray, tuple[LoadLaw, ...], np.ndarray] | None = None,
         cv2: np.ndarray | None = None, start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Throughput per chain and, for several chains, the queues (a start for the next
    solve of nearby populations); one chain: exact MVA, and no queues returned."""
    if len(N) == 1:
        X, _ = exact_mva(D[0], float(Z[0]), float(N[0]), phi[0], _first_chain(load), cv2)
        return np.array([X]), None
    return schweitzer_mva(D, Z, N, phi=phi, load=load, cv2=cv2, start=start)


def _first_chain(load: tuple[np.ndarray, tuple[LoadLaw, ...], np.ndarray] | None) -> Loads:
    """The first chain's load delays (:data:`Loads`) from the chains' (:func:`_loads`)."""
    if load is None:
        return ()
    passes, laws, c = load
    return tuple((float(passes[0, l]), law, float(c[0, l])) for l, law in enumerate(laws))


@dataclass(frozen=True)
class ResourceLoad:
    """One resource's utilization (caps) or, for slot limits, the share of the population
    that wants in over its slots."""

    id: str
    label: str
    kind: str
    utilization: float


@dataclass(frozen=True)
class SlotLoad:
    id: str
    label: str
    kind: str
    slots: int
    wanted: float       # IOs that want to be inside (population × share)

    @property
    def saturated(self) -> bool:
        return self.wanted > self.slots + 1e-9


@dataclass(frozen=True)
class ClassResult:
    id: str
    job: str
    direction: str
    bytes: int
    iops: float
    latency: float      # mean seconds as the application sees it


@dataclass(frozen=True)
class BurstResult:
    """Figures while burst credits last, and how long a full bucket lasts at that load."""

    iops: float
    bandwidth: float
    latency: float
    duration: float | None      # seconds; None when credits never run out at this load
    resources: tuple[str, ...]  # labels of the caps that have burst credits
    #: labels of the caps that spend credits at this load: they run above their sustained
    #: rate, so without their burst they would be the limit (a cap with credits that stays
    #: within its sustained rate, behind another limit, is not in play).
    spending: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadDelay:
    """A share's load delay in the solution: the utilization ``u`` of its quota (cap
    ``id``) and the ``delay`` (seconds) each IO through it spends on top of the unloaded
    latency."""

    id: str
    label: str
    utilization: float
    delay: float


@dataclass(frozen=True)
class Solution:
    """The closed (fio-like) prediction of a network."""

    classes: tuple[ClassResult, ...]
    job_iops: dict[str, float]
    job_latency: dict[str, float]
    resources: tuple[ResourceLoad, ...]
    slots: tuple[SlotLoad, ...]
    bottleneck: ResourceLoad
    outstanding: float
    knee_outstanding: float
    burst: BurstResult | None
    load: tuple[LoadDelay, ...] = ()
    upper_iops: float = math.inf  # the most IOPS at any concurrency for this mix of chains (:func:`limits`)

    @property
    def iops(self) -> float:
        return sum(c.iops for c in self.classes)

    @property
    def bandwidth(self) -> float:
        return sum(c.iops * c.bytes for c in self.classes)

    @property
    def latency(self) -> float:
        x = self.iops
        return sum(c.iops * c.latency for c in self.classes) / x if x > 0 else math.inf


def _effective_population(ch: Chains, network: Network) -> np.ndarray:
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


def _in_turn(ch: Chains, D: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _solve_closed(ch: Chains, network: Network, D: np.ndarray, start: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Throughput per chain, utilization per cap, the think time per chain, and the queues
    of several chains' Schweitzer–Bard solution (None for one chain), from which a solve of
    nearby populations can ``start``.

    Background load (a host cache's lazy flush) inflates the demands it shares a cap with.
    A chain with a rate limit (fio's ``rate_iops``) waits between IOs: the think time ``T``
    is found so that the chain runs at its rate when the path allows more; the latency of
    its IOs is then ``N / X − T``. A chain with a thinktime waits at least that long (its
    ``think``), whatever its rate. Load delays follow their caps' utilization inside the
    MVA recursion (:func:`_loaded_rate`)."""
    N_eff = _effective_population(ch, network)
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
        D_q, Z_q = _in_turn(ch, D_eff, ch.delay + T + S)
        X, Q = _mva(D_q, Z_q, N_eff, ch.phi(), _loads(ch, D + ch.background), ch.variation(), Q)
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


def solve(network: Network, ch: Chains | None = None) -> Solution:
    """Predict a closed network: throughput, latency per class, utilizations, bottleneck,
    knee, the most IOPS at any concurrency, and the burst phase when any cap has burst
    credits. ``ch``: the network's chains, when the caller has them already."""
    ch = chains(network) if ch is None else ch
    X, U, T, _ = _solve_closed(ch, network, ch.demand)
    labels = {r.id: r for r in network.resources}
    resources = tuple(
        ResourceLoad(k, labels[k].label, labels[k].kind, float(U[i])) for i, k in enumerate(ch.caps)
    )
    slot_loads = tuple(
        SlotLoad(s.id, s.label, s.kind, s.slots, float(ch.population @ ch.slots[:, i]))
        for i, s in enumerate(network.slot_limits)
    )
    loads = _load_delays(network, ch, U)
    classes = _class_results(network, ch, X, T, ch.demand, {law: d.delay for law, d in zip(ch.laws, loads)})
    jidx = {j: i for i, j in enumerate(ch.jobs)}
    job_iops = {j: float(X[jidx[j]]) for j in ch.jobs}
    job_latency = {j: float(ch.population[jidx[j]] / X[jidx[j]] - T[jidx[j]]) if X[jidx[j]] > 0 else math.inf
                   for j in ch.jobs}
    bound = limits(network, ch, X)
    return Solution(
        classes=classes,
        job_iops=job_iops,
        job_latency=job_latency,
        resources=resources,
        slots=slot_loads,
        bottleneck=_bottleneck(resources, slot_loads),
        outstanding=float(ch.population.sum()),
        knee_outstanding=bound.knee,
        burst=_burst(network, ch),
        load=loads,
        upper_iops=bound.max_iops,
    )


def _load_delays(network: Network, ch: Chains, U: np.ndarray) -> tuple[LoadDelay, ...]:
    """Each load law's utilization and delay at the caps' utilizations ``U``."""
    out = []
    for law, k in zip(ch.laws, ch.law_caps()):
        u = min(float(U[k]), 1.0)
        out.append(LoadDelay(law.cap, network.resource(law.cap).label, u, law.delay(u)))
    return tuple(out)


def _class_results(network: Network, ch: Chains, X: np.ndarray, T: np.ndarray,
                   D: np.ndarray, delays: dict[LoadLaw, float] | None = None) -> tuple[ClassResult, ...]:
    """Per-class throughput (X_j × p_c) and latency: the residence times the chain's MVA
    gives (with ``delays``, each load law's delay), scaled so that the chain's mean equals
    N / X (the client-side wait for slots is shared by every class of the chain)."""
    delays = delays or {}
    jidx = {j: i for i, j in enumerate(ch.jobs)}
    kidx = {k: i for i, k in enumerate(ch.caps)}
    U = X @ D
    # Per-station inflation as an open approximation of the queue each class meets; then the
    # chain's own mean is matched exactly to Little's law.
    stretch = 1.0 / np.clip(1.0 - np.minimum(U, 0.999), 1e-3, None)
    raw: dict[str, float] = {}
    for c in network.classes:
        f = ch.flats[c.id]
        raw[c.id] = (f.delay + sum(n * delays.get(law, 0.0) for law, n in f.load.items())
                     + sum(d * stretch[kidx[k]] for k, d in f.response.items()))
    out = []
    for c in network.classes:
        j = jidx[c.job]
        x = float(X[j])
        mean_raw = sum(o.probability * raw[o.id] for o in network.classes if o.job == c.job)
        chain_r = float(ch.population[j] / x - T[j]) if x > 0 else math.inf
        lat = raw[c.id] * chain_r / mean_raw if mean_raw > 0 else chain_r
        out.append(ClassResult(c.id, c.job, c.direction, c.bytes, x * c.probability, lat))
    return tuple(out)


def _bottleneck(resources: tuple[ResourceLoad, ...], slots: tuple[SlotLoad, ...]) -> ResourceLoad:
    top = max(resources, key=lambda r: r.utilization, default=None)
    if top is not None and top.utilization >= SATURATION:
        return top
    saturated = [s for s in slots if s.saturated]
    if saturated:
        s = max(saturated, key=lambda s: s.wanted / s.slots)
        return ResourceLoad(s.id, s.label, s.kind, s.wanted / s.slots)
    return ResourceLoad("concurrency", "concurrency", "concurrency", top.utilization if top else 0.0)


@dataclass(frozen=True)
class Limits:
    """What the path allows at any concurrency, for a mix of chains.

    ``max_iops``: the least of the caps' bound ``1 / max_k Σ w_j D[j,k]`` (background load
    included), each slot limit's (its slots over the slot-seconds one IO of the mix holds it
    unloaded; where every chain goes through slot limits, the MVA throughput once every slot
    limit is full, which the population waiting at the client cannot raise) and each rate
    limit's (``rate_j / w_j``); ``limit`` names the binding one. ``unloaded``: the mix's
    unloaded response time ``Σ w_j (Z_j + Σ φ D)``; ``knee = unloaded × max_iops``."""

    max_iops: float
    unloaded: float
    knee: float
    limit: str


def _steps_time(steps: tuple[Step, ...], caps: dict) -> float:
    """Unloaded time of a sequence of steps: a fork's branches run in parallel, so it takes
    the mean time of one branch (members are alike)."""
    t = 0.0
    for st in steps:
        if isinstance(st, Visit):
            t += caps[st.resource].demand(st.bytes) if st.resource in caps else st.latency
        elif isinstance(st, Fork):
            t += sum(_steps_time(b, caps) for b in st.branches) / max(len(st.branches), 1)
        elif isinstance(st, Hold):
            t += _steps_time(st.steps, caps)
    return t


def slot_seconds(network: Network, ch: Chains) -> np.ndarray:
    """(J, S): slot-seconds one IO of chain j holds slot limit s when unloaded."""
    caps = {r.id: r.cap for r in network.resources if r.cap is not None}
    sidx = {s.id: i for i, s in enumerate(network.slot_limits)}
    jidx = {j: i for i, j in enumerate(ch.jobs)}
    out = np.zeros((len(ch.jobs), len(network.slot_limits)))
    for c in network.classes:
        for st, w, _ in walk(c.route):
            if isinstance(st, Hold):
                out[jidx[c.job], sidx[st.slot_limit]] += c.probability * w * _steps_time(st.steps, caps)
    return out


def limits(network: Network, ch: Chains, X: np.ndarray | None = None) -> Limits:
    """The most IOPS the path allows for the mix of chains that throughputs ``X`` (the
    prediction's; the populations' when None) describe, and the knee (see :class:`Limits`)."""
    if len(ch.jobs) == 0 or ch.population.sum() <= 0:
        return Limits(math.inf, 0.0, 0.0, "")
    if X is not None and float(np.sum(X)) > 0:
        w = np.asarray(X, dtype=float) / float(np.sum(X))
    else:
        w = ch.population / ch.population.sum()
    unloaded = float(w @ (ch.delay + (ch.phi() * ch.demand).sum(axis=1)))
    found: list[tuple[float, str]] = []
    per_io = w @ (ch.demand + ch.background)
    if per_io.size and per_io.max() > 0:
        k = int(np.argmax(per_io))
        found.append((1.0 / float(per_io[k]), ch.caps[k]))
    if network.slot_limits:
        held = w @ slot_seconds(network, ch)
        for i, sl in enumerate(network.slot_limits):
            if held[i] > 0:
                found.append((sl.slots / float(held[i]), sl.id))
        if bool((ch.slots.sum(axis=1) > 0).all()):
            wanted = ch.population @ ch.slots
            need = max((sl.slots / wanted[i] for i, sl in enumerate(network.slot_limits) if wanted[i] > 0),
                       default=1.0)
            full = replace(ch, population=ch.population * max(1.0, 2.0 * need))
            found.append((float(_solve_closed(full, network, full.demand)[0].sum()), "slots"))
    if ch.rate is not None:
        for j, r in enumerate(ch.rate):
            if math.isfinite(r) and w[j] > 0:
                found.append((float(r) / float(w[j]), ch.jobs[j]))
    if not found:
        return Limits(math.inf, unloaded, math.inf, "")
    best, name = min(found)
    return Limits(best, unloaded, unloaded * best, name)


def reach(network: Network, ch: Chains, target: float, *, most: float = 1e6) -> float | None:
    """The fewest IOs in flight (all chains' populations scaled together) at which the
    closed model gives ``target`` IOPS, to within 1 % or half an IO (the upper end of a
    bracket that narrow); None when no population up to ``most`` does.

    The search starts where Little's law allows it (no chain can beat its population over
    its unloaded latency), doubles until the target is reached, then closes the bracket by
    regula falsi (the Illinois variant). One chain with neither a rate limit nor a
    background load needs no search: one climb of exact MVA's recursion passes every
    population (:func:`exact_reach`)."""
    direct = _reach_one_chain(network, ch, target, most)
    if direct is not None:
        return direct
    last: list = []   # the latest solve's scale and queues: the next one starts from them

    def iops(f: float) -> float:
        scaled = replace(ch, population=ch.population * f)
        start = last[1] * (f / last[0]) if last and last[1] is not None else None
        X, _, _, Q = _solve_closed(scaled, network, scaled.demand, start)
        last[:] = [f, Q]
        return float(X.sum())

    total = float(ch.population.sum())
    if total <= 0:
        return None
    r0 = ch.delay + (ch.phi() * ch.demand).sum(axis=1)   # each chain's unloaded latency
    lo = 0.0
    if bool((r0[ch.population > 0] > 0).all()):
        lo = target / float(np.sum(ch.population[ch.population > 0] / r0[ch.population > 0]))
    x_lo = iops(lo) if lo > 0 else 0.0
    hi = max(2.0 * lo, 1.0 / total)
    x_hi = iops(hi)
    while x_hi < target:
        lo, x_lo, hi = hi, x_hi, hi * 2
        if hi * total > most:
            return None
        x_hi = iops(hi)

    def wide() -> bool:
        return (hi - lo) * total > max(0.5, 0.01 * hi * total)

    g_lo, g_hi, side = x_lo - target, x_hi - target, 0
    while wide():   # Illinois: regula falsi that halves the weight of an end kept twice
        w = hi - lo
        c = lo - g_lo * w / (g_hi - g_lo) if g_hi > g_lo else lo + w / 2
        c = min(max(c, lo + 0.02 * w), hi - 0.02 * w)
        g_c = iops(c) - target
        if g_c < 0:
            lo, g_lo = c, g_c
            g_hi = g_hi / 2 if side < 0 else g_hi
            side = -1
        else:
            hi, g_hi = c, g_c
            g_lo = g_lo / 2 if side > 0 else g_lo
            side = 1
    return hi * total


def _reach_one_chain(network: Network, ch: Chains, target: float, most: float) -> float | None:
    """:func:`reach` for one chain whose closed solution is one exact MVA (no rate limit,
    no background load: :func:`_solve_closed` in one round); None otherwise, or when the
    climb cannot tell. Slot limits hold the population at their slots, so the climb stops
    there."""
    if len(ch.population) != 1 or ch.population[0] <= 0 or ch.background.any():
        return None
    if ch.rate is not None and bool(np.isfinite(ch.rate).any()):
        return None
    held = float(_effective_population(replace(ch, population=np.array([most])), network)[0])
    D, Z = _in_turn(ch, ch.demand, ch.delay + ch.thinking())
    return exact_reach(D[0], float(Z[0]), target, held, ch.phi()[0], _first_chain(_loads(ch, ch.demand)),
                       ch.variation())


def _burst(network: Network, ch: Chains) -> BurstResult | None:
    bursting = [r for r in network.resources if r.cap is not None and r.cap.burst is not None]
    if not bursting:
        return None
    X, U, T, _ = _solve_closed(ch, network, ch.burst_demand)
    kidx = {k: i for i, k in enumerate(ch.caps)}
    N = ch.population
    iops = float(X.sum())
    bw = 0.0
    for c in network.classes:
        bw += float(X[ch.jobs.index(c.job)]) * c.probability * c.bytes
    lat = float((N.sum() - X @ T) / iops) if iops > 0 else math.inf
    duration: float | None = None
    spending = []
    for r in bursting:
        cap, b = r.cap, r.cap.burst
        assert cap is not None and b is not None
        ops_rate = bytes_rate = 0.0
        for c in network.classes:
            x = float(X[ch.jobs.index(c.job)]) * c.probability
            visits = _visits(c, r.id)
            for nbytes, w in visits:
                ops_rate += x * w * cap.ops(nbytes)
                bytes_rate += x * w * nbytes
        over = False
        for credit, rate, base in ((b.credit_ops, ops_rate, cap.ops_per_s),
                                   (b.credit_bytes, bytes_rate, cap.bytes_per_s)):
            if base and rate > base * (1 + 1e-9):
                over = True
                if credit:
                    t = credit * b.initial / (rate - base)
                    duration = t if duration is None else min(duration, t)
        if over:
            spending.append(r.label)
    del kidx, U
    return BurstResult(iops, bw, lat, duration, tuple(r.label for r in bursting), tuple(spending))


def _visits(cls: Class, rid: str) -> list[tuple[int, float]]:
    """(bytes, expected visits per IO) of ``cls`` at resource ``rid``."""
    return [(s.bytes, w) for s, w, _ in walk(cls.route) if isinstance(s, Visit) and s.resource == rid]


def bounds(ch: Chains, N: float) -> tuple[float, float]:
    """Asymptotic bounds on total throughput at population N for the chains' mix:
    ``(lower, upper)`` with upper = min(N / (Z + ΣD), 1 / D_max) and the pessimistic lower
    bound N / (Z + Δ + N ΣD), Δ the load delays at full caps; the sums count a fork's
    parallel members once (``phi``)."""
    w = ch.population / ch.population.sum()
    d = w @ ch.demand
    z = float(w @ ch.delay)
    most = float(w @ ch.load_delay(np.ones(len(ch.laws))))  # load delays at full caps
    total = float((w @ (ch.phi() * ch.demand)).sum())
    upper = min(N / (z + total), 1.0 / float(d.max())) if total > 0 else N / z
    lower = N / (z + most + N * total) if total > 0 else N / (z + most)
    return lower, upper


@dataclass(frozen=True)
class OpenSolution:
    """The open-model analysis at a required rate: feasible when every U ≤ 1."""

    rate: float
    utilization: dict[str, float]
    latency: float               # mean seconds (inf when infeasible)
    concurrency: float           # λ × R: IOs the application must keep in flight
    feasible: bool
    bottleneck: str              # resource id with the highest utilization
    jobs: dict[str, float] = field(default_factory=dict)  # mean seconds per job (inf when infeasible)


def open_model(D: np.ndarray, Z: np.ndarray, lam: np.ndarray, cv2: float = THROTTLE_CV2
               ) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised open analysis over many configurations.

    ``D``: (..., K) demand per IO at each cap, ``Z``: (...) delay per IO, ``lam``: (...)
    required rate; ``cv2``: the caps' squared coefficient of variation of service (a
    throttle's 0; 1 for M/M/1). Returns (U (..., K), R (...)) with R = Z + Σ D × stretch(U),
    inf where any U ≥ 1."""
    U = lam[..., None] * D
    return U, Z + residence(D, U, cv2).sum(axis=-1)


def solve_open(network: Network, rate: float, rates: dict[str, float] | None = None) -> OpenSolution:
    """Open analysis of a network at a total required ``rate`` (ops/s), split over its jobs
    in proportion to their populations, or at ``rates`` (ops/s per job name) when given."""
    ch = chains(network)
    if rates is not None:
        lam = np.array([rates[j] for j in ch.jobs], dtype=float)
        rate = float(lam.sum())
        share = lam / rate
    else:
        share = ch.population / ch.population.sum()
        lam = rate * share
    U = lam @ ch.demand + lam @ ch.background
    resid = residence(ch.phi() * ch.demand, U[None, :], ch.variation(), ch.turn_size())
    R_j = ch.delay + ch.load_delay(np.minimum(U[ch.law_caps()], 1.0)) + resid.sum(axis=1)
    R = float(share @ R_j)
    feasible = bool((U <= 1.0 + 1e-9).all())
    top = int(np.argmax(U)) if len(U) else 0
    return OpenSolution(
        rate=rate,
        utilization={k: float(U[i]) for i, k in enumerate(ch.caps)},
        latency=R if feasible else math.inf,
        concurrency=rate * R if feasible else math.inf,
        feasible=feasible,
        bottleneck=ch.caps[top] if len(ch.caps) else "",
        jobs={j: float(R_j[i]) if feasible else math.inf for i, j in enumerate(ch.jobs)},
    )
