"""Large populations: exact MVA hands over to a one-step solution past the knee, and any
population answers at once, within a stated tolerance of exact MVA run all the way."""

from __future__ import annotations

import json

import numpy as np
import pytest

from iolab.analytic import mva
from iolab.analytic.mva import exact_mva

# (demands, delay, phi): the worked example (a VM cap, four striped disks as parallel fork
# members, the disks' latency as a delay), sixteen equal connections, two caps of nearly the
# same demand, and a latency-dominated path.
NETWORKS = {
    "worked example": ([1 / 25_600, 2e-4, 2e-4, 2e-4, 2e-4], 0.0016, [1, 0.25, 0.25, 0.25, 0.25]),
    "sixteen equal": ([0.001] * 16, 0.0, None),
    "two nearly equal": ([0.001, 0.000995], 0.002, None),
    "latency-bound": ([1e-4, 5e-5], 0.05, None),
}


def reference(d: list[float], Z: float, phi: list[float] | None, N: int) -> list[tuple[float, float]]:
    """Textbook exact MVA, one population at a time: (throughput, total queue) for 1..N."""
    D = np.array(d)
    w = np.ones_like(D) if phi is None else np.array(phi, dtype=float)
    q = np.zeros_like(D)
    out = []
    for n in range(1, N + 1):
        r = D * (1 + q)
        X = n / (Z + (w * r).sum())
        q = X * r
        out.append((X, float(q.sum())))
    return out


@pytest.mark.parametrize("name", list(NETWORKS))
def test_large_populations_match_exact_mva(name):
    """Populations from just past the switch to 3× the exact steps: throughput, response time
    and queued IOs within 0.1 % of exact MVA climbed one population at a time."""
    d, Z, phi = NETWORKS[name]
    top = 3 * mva.EXACT_STEPS
    ref = reference(d, Z, phi, top)
    dmax = max(d)
    # The switch: the first population whose busiest station reaches SATURATED.
    switch = next((n for n, (X, _) in enumerate(ref, 1) if X * dmax >= mva.SATURATED), None)
    checks = {mva.EXACT_STEPS + 1, 2 * mva.EXACT_STEPS, top}
    if switch is not None:
        checks |= {switch + 1, switch + 7, 2 * switch}
    for N in sorted(n for n in checks if n <= top):
        X_ref, queued_ref = ref[N - 1]
        X, Q = exact_mva(np.array(d), Z, N, None if phi is None else np.array(phi, dtype=float))
        assert X == pytest.approx(X_ref, rel=1e-3), (N, X, X_ref)
        assert N / X - Z == pytest.approx(N / X_ref - Z, rel=1e-3), N
        assert Q.sum() == pytest.approx(queued_ref, rel=1e-3), N
        assert X <= 1 / dmax * (1 + 1e-12)


def test_saturated_networks_switch_without_losing_digits():
    """A single bottleneck saturates quickly: from there on the answer is exact MVA's to
    1e-9, and the switch comes long before the step budget."""
    d, Z, phi = NETWORKS["worked example"]
    ref = reference(d, Z, phi, 2000)
    switch = next(n for n, (X, _) in enumerate(ref, 1) if X * max(d) >= mva.SATURATED)
    assert switch < 200
    for N in (switch + 1, 500, 2000):
        X, _ = exact_mva(np.array(d), Z, N, np.array(phi, dtype=float))
        assert X == pytest.approx(ref[N - 1][0], rel=1e-9)


def _counting_steps(monkeypatch) -> list[int]:
    """Count the populations exact MVA's recursion climbs (its steps: the work grows with
    them), across every call, by wrapping the recursion."""
    steps = [0]
    climb = mva._climb

    def counted(*args, **kwargs):
        for out in climb(*args, **kwargs):
            steps[0] += 1
            yield out

    monkeypatch.setattr(mva, "_climb", counted)
    return steps


@pytest.mark.parametrize("name", list(NETWORKS))
def test_any_population_answers_at_once(name, monkeypatch):
    """10^8 and 10^12 IOs in flight: the throughput bound, and Little's law over the cycle
    (a fork member's queue counts with its share of the cycle), after the same bounded climb
    for both populations (at most the step budget: the work does not grow with N)."""
    d, Z, phi = NETWORKS[name]
    w = np.ones(len(d)) if phi is None else np.array(phi, dtype=float)
    steps = _counting_steps(monkeypatch)
    climbed = []
    for N in (1e8, 1e12):
        steps[0] = 0
        X, Q = exact_mva(np.array(d), Z, N, None if phi is None else w)
        climbed.append(steps[0])
        assert X == pytest.approx(1 / max(d), rel=1e-3)
        assert (w * Q).sum() == pytest.approx(N - X * Z, rel=1e-6)
    assert 0 < climbed[0] == climbed[1] <= mva.EXACT_STEPS


def test_predict_with_the_most_in_flight_a_scenario_takes(iolab, tmp_path, monkeypatch):
    """The worked example at iodepth 20,000 (4 jobs: 80,000 in flight, under the 100,000 a
    scenario may hold; exact MVA would climb 80,000 populations): the disks' 20,000 IOPS,
    latency N / X = 4 s, with exact MVA's recursion stopping at the disks' saturation: every
    solve the prediction makes (the point, the curve, the reach, the burst) climbs fewer
    populations in all than a tenth of one climb to 80,000."""
    text = open("examples/oltp-ds13-p30.yaml").read().replace("iodepth: 32", "iodepth: 20000")
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    steps = _counting_steps(monkeypatch)
    r = iolab(f"predict {path} --json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["iops"] == pytest.approx(4 * 5_000, rel=1e-4)
    assert doc["latency"]["mean"] == pytest.approx(80_000 / 20_000, rel=1e-3)
    assert 0 < steps[0] < 80_000 / 10


def test_a_path_of_delays_only_scales_with_the_population():
    """No cap at all (or caps of zero demand): every IO only waits its latency, X = N / Z."""
    for D in (np.array([]), np.array([0.0, 0.0])):
        X, Q = exact_mva(D, 0.002, 1e8)
        assert X == pytest.approx(1e8 / 0.002, rel=1e-12)
        assert not Q.any()
