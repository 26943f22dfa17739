"""The simulator against queueing theory: M/M/1 and exact mean value analysis."""

from __future__ import annotations

import math

from iolab.network import Cap, Class, Delay, Job, Network, Resource, Visit
from iolab.sim import simulate


def within(got: float, want: float, tol: float) -> bool:
    return abs(got - want) <= tol * abs(want)


def test_open_exponential_station_matches_mm1():
    # Poisson arrivals at λ = 600/s into one exponential server at μ = 1000/s: the time in
    # system is exponential with rate μ − λ.
    lam, mu = 600.0, 1000.0
    net = Network(
        resources=(Resource("k", "server", "device", cap=Cap(ops_per_s=mu, service="exponential")),),
        classes=(Class("c", "src", "read", 1.0, 4096, (Visit("k", 4096),)),),
        jobs=(Job("src", "src", 0, 10**12, 1 << 30, rate=lam, arrival="poisson"),),
    )
    sim = simulate(net, ios=1_000_000, seed=11)
    assert within(sim.total.latency.mean, 1 / (mu - lam), 0.03)
    assert within(sim.total.latency.p99, math.log(100) / (mu - lam), 0.03)
    assert within(sim.total.iops, lam, 0.01)
    assert within(sim.resources[0].utilization, lam / mu, 0.01)
    # Waiting in queue (M/M/1): λ/(μ(μ−λ)) per IO.
    assert within(sim.resources[0].mean_wait, lam / (mu * (mu - lam)), 0.03)


def mva(demands: list[float], think: float, n: int) -> tuple[float, float]:
    """Exact MVA (Reiser and Lavenberg) for one class: throughput and response time."""
    queue = [0.0] * len(demands)
    x = r = 0.0
    for k in range(1, n + 1):
        residence = [d * (1 + q) for d, q in zip(demands, queue)]
        r = sum(residence)
        x = k / (r + think)
        queue = [x * ri for ri in residence]
    return x, r


def test_closed_product_form_network_matches_exact_mva():
    # Two exponential caps (2 ms and 1.25 ms) and an exponential delay of 3 ms, 10 IOs.
    net = Network(
        resources=(Resource("a", "a", "disk", cap=Cap(ops_per_s=500, service="exponential")),
                   Resource("b", "b", "vm", cap=Cap(ops_per_s=800, service="exponential")),
                   Resource("z", "z", "service", delay=Delay("exponential"))),
        classes=(Class("c", "j", "read", 1.0, 4096, (Visit("a", 4096), Visit("b", 4096), Visit("z", 4096, 0.003))),),
        jobs=(Job("j", "j", 0, 10, 1 << 30),),
    )
    sim = simulate(net, ios=300_000, seed=2)
    x, r = mva([0.002, 0.00125], 0.003, 10)
    assert within(sim.total.iops, x, 0.02)
    assert within(sim.total.latency.mean, r + 0.003, 0.02)
    by_id = {u.id: u for u in sim.resources}
    assert within(by_id["a"].utilization, x * 0.002, 0.02)
    assert within(by_id["b"].utilization, x * 0.00125, 0.02)
