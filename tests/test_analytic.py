"""The analytic engine against closed-form queueing results."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab.analytic import Chains, bounds, exact_mva, open_model, schweitzer_mva, solve, solve_open
from iolab.network import Cap, Class, Delay, Fork, Hold, Job, Network, Resource, SlotLimit, Visit


def machine_repairman(D: float, Z: float, N: int) -> float:
    """Closed M/M/1//N with think time Z: X = (1 − p0) / D, p0 from the Erlang-like sum."""
    r = Z / D
    terms = [math.factorial(N) / math.factorial(N - n) / r**n for n in range(N + 1)]
    p0 = 1.0 / sum(terms)
    return (1.0 - p0) / D


@pytest.mark.parametrize("N", [1, 2, 5, 20, 60])
def test_single_station_matches_machine_repairman(N):
    D, Z = 0.002, 0.010
    X, _ = exact_mva(np.array([D]), Z, N)
    assert X == pytest.approx(machine_repairman(D, Z, N), rel=1e-9)


@pytest.mark.parametrize("K,N", [(2, 1), (3, 7), (5, 40)])
def test_balanced_network(K, N):
    """K stations of equal demand D, no delay: X(N) = N / ((N + K − 1) D)."""
    D = 0.001
    X, Q = exact_mva(np.full(K, D), 0.0, N)
    assert X == pytest.approx(N / ((N + K - 1) * D), rel=1e-9)
    assert Q.sum() == pytest.approx(N, rel=1e-9)


@settings(max_examples=150, deadline=None)
@given(
    demands=st.lists(st.floats(1e-6, 1e-2), min_size=1, max_size=6),
    Z=st.floats(0.0, 0.05),
    N=st.integers(1, 300),
)
def test_asymptotic_bounds_hold(demands, Z, N):
    D = np.array(demands)
    X, _ = exact_mva(D, Z, N)
    upper = min(N / (Z + D.sum()), 1.0 / D.max())
    lower = N / (Z + N * D.sum())
    assert lower * (1 - 1e-9) <= X <= upper * (1 + 1e-9)
    ch = Chains(("j",), tuple(f"k{i}" for i in range(len(D))), np.array([float(N)]), D[None, :], D[None, :],
                np.zeros((1, len(D))), np.array([Z]), np.zeros((1, 0)), {})
    lo, hi = bounds(ch, N)
    assert lo == pytest.approx(lower) and hi == pytest.approx(upper)


@pytest.mark.parametrize("N", [4, 16, 64, 256])
def test_schweitzer_close_to_exact(N):
    """Two identical chains sharing the network vs one chain with their total population."""
    D = np.array([40e-6, 50e-6, 50e-6, 20e-6])
    Z = 0.0015
    exact, _ = exact_mva(D, Z, N)
    approx, _ = schweitzer_mva(np.vstack([D, D]), np.array([Z, Z]), np.array([N / 2, N / 2]))
    assert approx.sum() == pytest.approx(exact, rel=0.05)


def _disk_network(population: int, latency: float = 1e-3, iops: float = 5000.0, slots: int | None = None,
                  bandwidth: float | None = 200e6) -> Network:
    res = (Resource("cap", "disk cap", "disk", cap=Cap(iops, bandwidth, 262144)),
           Resource("lat", "disk latency", "disk", delay=Delay()))
    d = 1 / iops
    route = (Visit("cap", 8192), Visit("lat", 8192, latency - d))
    slot_limits = ()
    if slots:
        route = (Hold("s", route),)
        slot_limits = (SlotLimit("s", "session slots", "session", slots),)
    return Network(res, (Class("c", "j", "read", 1.0, 8192, route),),
                   (Job("j", "j", 0, population, 1 << 30),), slot_limits)


def test_knee_and_bottleneck_of_a_disk():
    """docs/model.md: a disk of 1 ms and 5,000 IOPS does 1,000 IOPS at QD 1 and bends at QD 5."""
    one = solve(_disk_network(1))
    assert one.iops == pytest.approx(1000.0)
    assert one.knee_outstanding == pytest.approx(5.0)
    assert one.bottleneck.kind == "concurrency"
    deep = solve(_disk_network(64))
    assert deep.iops == pytest.approx(5000.0, rel=0.01)
    assert deep.latency == pytest.approx(64 / 5000.0, rel=0.01)
    assert deep.bottleneck.kind == "disk"


def test_slot_limit_caps_the_population():
    """64 session slots in front of a 1 ms path: about 64,000 IOPS whatever the population."""
    net = _disk_network(512, iops=1e7, slots=64, bandwidth=None)
    sol = solve(net)
    assert sol.iops == pytest.approx(64 / 1e-3, rel=0.01)
    assert sol.bottleneck.kind == "session"
    assert sol.latency == pytest.approx(512 / sol.iops)


def test_fork_weights_members():
    """A stripe of four members with choose 1 gives each a quarter of the IOs."""
    res = tuple(Resource(f"d{i}", f"disk {i}", "disk", cap=Cap(5000.0, None)) for i in range(4)) + (
        Resource("lat", "lat", "disk", delay=Delay()),)
    route = (Fork(tuple(((Visit(f"d{i}", 8192),)) for i in range(4)), 1), Visit("lat", 8192, 0.001))
    net = Network(res, (Class("c", "j", "read", 1.0, 8192, route),), (Job("j", "j", 0, 1000, 1 << 30),))
    sol = solve(net)
    assert sol.iops == pytest.approx(20000, rel=0.02)
    assert all(r.utilization == pytest.approx(sol.iops / 20000, rel=1e-6) for r in sol.resources)


def test_open_model_md1():
    """Open analysis: one cap, a throttle, as M/D/1: R = D (1 + U / (2 (1 − U))) with U = λD
    (exponential service, M/M/1: D / (1 − U)); infeasible past saturation."""
    net = _disk_network(1, latency=0.0002, iops=5000.0)
    sol = solve_open(net, 2500.0)
    assert sol.feasible and sol.utilization["cap"] == pytest.approx(0.5)
    assert sol.latency == pytest.approx(0.0002 * 1.5, rel=1e-9)
    assert sol.concurrency == pytest.approx(2500 * sol.latency)
    assert not solve_open(net, 6000.0).feasible
    U, R = open_model(np.array([[0.0002], [0.0002]]), np.array([0.0, 0.001]), np.array([2500.0, 6000.0]))
    assert R[0] == pytest.approx(0.0003) and math.isinf(R[1])
    _, R = open_model(np.array([[0.0002]]), np.array([0.0]), np.array([2500.0]), cv2=1.0)
    assert R[0] == pytest.approx(0.0004)


def test_parallel_members_count_once_in_the_cycle():
    """Two fork members of demand d run in parallel: one IO alone cycles in d (phi = 1/2), and
    at high population the throughput still meets the bound 1/d."""
    D = np.array([0.002, 0.002])
    X1, _ = exact_mva(D, 0.0, 1, phi=np.array([0.5, 0.5]))
    assert X1 == pytest.approx(1 / 0.002)
    Xn, _ = exact_mva(D, 0.0, 400, phi=np.array([0.5, 0.5]))
    assert Xn == pytest.approx(1 / 0.002, rel=0.01)
    Xs, _ = schweitzer_mva(D[None, :], np.array([0.0]), np.array([1.0]), phi=np.array([[0.5, 0.5]]))
    assert Xs[0] == pytest.approx(1 / 0.002, rel=1e-6)
