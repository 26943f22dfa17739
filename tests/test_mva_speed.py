"""The analytic engine's shortcuts give the answers of the long way round: Schweitzer–Bard
accelerated (Anderson) against its plain fixed-point rounds, the 90 % reach of one chain
read off one climb of exact MVA against the bracketing search, and a solve started from a
nearby solution against one started cold."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from iolab.analytic import capacity, chains, limits, mva, reach
from iolab.analytic.closed import solve_closed
from iolab.analytic.mva import exact_mva, exact_reach, schweitzer_mva
from iolab.compile import compile_scenario
from iolab.filekind import kind_of_data
from iolab.network import LoadLaw
from iolab.prediction import predict, settle_mixes
from iolab.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _plain(monkeypatch, fn, *args, **kwargs):
    """``fn`` with Anderson's acceleration off (a memory of 0 rounds: every round plain)."""
    with monkeypatch.context() as m:
        m.setattr(mva, "ANDERSON_MEMORY", 0)
        return fn(*args, **kwargs)


@st.composite
def networks(draw):
    J = draw(st.integers(2, 4))
    K = draw(st.integers(1, 8))
    demand = st.one_of(st.just(0.0), st.floats(1e-6, 2e-3))
    D = np.array([[draw(demand) for _ in range(K)] for _ in range(J)])
    for j in range(J):          # every chain visits at least one station
        if not D[j].any():
            D[j, draw(st.integers(0, K - 1))] = draw(st.floats(1e-6, 2e-3))
    Z = np.array([draw(st.floats(0.0, 5e-3)) for _ in range(J)])
    N = np.array([float(draw(st.integers(0, 300))) for _ in range(J)])
    cv2 = np.array([draw(st.sampled_from([0.0, 1.0])) for _ in range(K)])
    return D, Z, N, cv2


@settings(max_examples=300, deadline=None)
@given(networks())
def test_accelerated_schweitzer_finds_the_plain_fixed_point(net):
    D, Z, N, cv2 = net
    X_fast, Q_fast = schweitzer_mva(D, Z, N, cv2=cv2)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(mva, "ANDERSON_MEMORY", 0)
        X_plain, Q_plain = schweitzer_mva(D, Z, N, cv2=cv2)
    assert np.allclose(X_fast, X_plain, rtol=1e-6, atol=1e-9)
    assert np.allclose(Q_fast, Q_plain, rtol=1e-5, atol=1e-6 * max(1.0, N.max()))
    assert Q_fast.min() >= 0.0


@st.composite
def loaded_networks(draw):
    """Networks whose chains also meet load delays: a delay that grows with a cap's
    utilization (a share's latency under load), at the previous round's utilization."""
    D, Z, N, cv2 = draw(networks())
    J, K = D.shape
    laws, columns = [], []
    for _ in range(draw(st.integers(1, 2))):
        k = draw(st.integers(0, K - 1))
        laws.append(LoadLaw(f"r{k}", draw(st.floats(1e-4, 5e-3)), draw(st.floats(0.0, 0.9)),
                            draw(st.sampled_from([1.0, 2.0, 3.0]))))
        columns.append(k)
    passes = np.array([[float(D[j, k] > 0) for k in columns] for j in range(J)])
    return D, Z, N, cv2, (passes, tuple(laws), D[:, columns])


@settings(max_examples=200, deadline=None)
@given(loaded_networks())
def test_accelerated_schweitzer_with_load_delays_solves_its_equations(net):
    """With load delays the plain rounds can swing between a light load and a heavy one
    without settling; the accelerated answer solves Schweitzer–Bard's equations: each
    chain's throughput is its population over its cycle (the queues it finds, the delays at
    the utilizations it causes) and each queue is Little's law of its residence."""
    D, Z, N, _, load = net
    exponential = np.ones(D.shape[1])    # no residual-time correction: the plain equations
    X, Q = schweitzer_mva(D, Z, N, cv2=exponential, load=load)
    passes, laws, c = load
    own = np.where(N > 0, 1.0 / np.where(N > 0, N, 1.0), 0.0)[:, None]
    A1 = 1.0 + Q.sum(axis=0) - Q * own
    cycle = Z + (D * A1).sum(axis=1) + passes @ np.array([law.delay(float(u)) for law, u in zip(laws, X @ c)])
    expected = np.divide(N, cycle, out=np.zeros_like(N), where=cycle > 0)
    assert np.allclose(X, expected, rtol=1e-6, atol=1e-9)
    assert np.allclose(Q, X[:, None] * D * A1, rtol=1e-6, atol=1e-6 * max(1.0, N.max()))
    assert Q.min() >= 0.0


def test_acceleration_takes_fewer_rounds_on_the_examples(monkeypatch):
    """Several-job examples: the accelerated solve's rounds, counted by the rounds a plain
    solve needs to land on the same queues, are at most half of the plain solve's."""
    rounds = {"fast": 0, "plain": 0}
    original = mva._accelerated

    def counted(x, step, past):
        rounds[mode] += 1
        return original(x, step, past)

    monkeypatch.setattr(mva, "_accelerated", counted)
    for name in ("gcnv-extreme-qos.yaml", "sql-data-and-log.yaml", "phases-fill-then-read.yaml"):
        s = load_scenario(EXAMPLES / name)
        mode = "fast"
        fast = predict(s)
        mode = "plain"
        plain = _plain(monkeypatch, predict, s)
        assert fast.iops == pytest.approx(plain.iops, rel=1e-7)
        assert fast.latency == pytest.approx(plain.latency, rel=1e-7)
        assert fast.reach_90 == pytest.approx(plain.reach_90, rel=0.01, abs=0.5)
    assert rounds["fast"] <= 0.5 * rounds["plain"]


def _one_chain_examples():
    for path in sorted(EXAMPLES.glob("*.yaml")):
        if kind_of_data(yaml.safe_load(path.read_text())) == "scenario":
            s = settle_mixes(load_scenario(path))
            network = compile_scenario(s)
            ch = chains(network)
            if len(ch.jobs) == 1 and math.isfinite(limits(network, ch).max_iops):
                yield path.name, network, ch   # a path without caps has nothing to reach


@pytest.mark.parametrize("name,network,ch", list(_one_chain_examples()), ids=lambda v: v if isinstance(v, str) else "")
def test_one_chain_reach_is_the_searched_one(monkeypatch, name, network, ch):
    """One chain's 90 % reach from one climb of exact MVA: the bracketing search's answer
    (the upper end of a bracket within 1 % or half an IO) or a little below it, and exact
    MVA at that population gives the target."""
    target = 0.9 * limits(network, ch).max_iops
    direct = reach(network, ch, target)
    monkeypatch.setattr(capacity, "_reach_one_chain", lambda *a: None)
    searched = reach(network, ch, target)
    assert (direct is None) == (searched is None)
    if direct is None:
        return
    assert searched - max(0.5, 0.01 * searched) - 1e-9 <= direct <= searched + 1e-9
    scaled = replace(ch, population=ch.population * direct / ch.population.sum())
    X = solve_closed(scaled, network, scaled.demand)[0].sum()
    assert X == pytest.approx(target, rel=1e-9)


def test_most_examples_have_one_chain_to_reach():
    assert len(list(_one_chain_examples())) >= 12


def test_exact_reach_interpolates_as_exact_mva_does():
    """A machine-repairman station: the population exact_reach gives reaches the target in
    exact_mva, fractional populations included; a target past the bound is not reached."""
    D, Z = np.array([0.001]), 0.004
    for target in (150.0, 400.0, 700.0, 990.0):
        n = exact_reach(D, Z, target, 1e6)
        assert exact_mva(D, Z, n)[0] == pytest.approx(target, rel=1e-12)
        assert exact_mva(D, Z, n - 0.05)[0] < target
    assert exact_reach(D, Z, 1000.5, 1e6) is None
    assert exact_reach(D, Z, 700.0, 2.0) is None   # not by the most allowed
