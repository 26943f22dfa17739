"""A cap is a throttle (even spacing), not an exponential server: predict's MVA counts the
residual time of the IO in service as half a service (Reiser's correction, ``D (1 + Q − U/2)``),
so below and around the knee it agrees with the simulator, whose caps are throttles too.
Exponential caps keep exact MVA."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import EXAMPLES


def _depth(tmp_path, depth: int):
    path = tmp_path / f"qd{depth}.yaml"
    path.write_text((EXAMPLES / "oltp-ds13-p30.yaml").read_text().replace("iodepth: 32", f"iodepth: {depth}"))
    assert f"iodepth: {depth}" in path.read_text()
    return path


@pytest.mark.parametrize("depth", [4, 12, 16])
def test_predict_and_simulate_agree_around_the_knee(iolab, tmp_path, depth):
    """The worked example (knee 40 in flight) at 16, 48 and 64 in flight: within 2.5 % of
    the simulator (exponential servers were 4–5 % low at 48 and 64)."""
    path = _depth(tmp_path, depth)
    pred = iolab("predict", str(path), "--json").json()
    sim = iolab("simulate", str(path), "--ios", "300000", "--json").json()
    assert pred["outstanding"] == 4 * depth
    assert pred["iops"] == pytest.approx(sim["iops"], rel=0.025)
    assert pred["latency"]["mean"] == pytest.approx(sim["latency"]["mean"], rel=0.025)


def test_ninety_percent_of_the_bound_takes_what_the_simulator_needs(iolab, tmp_path):
    doc = iolab("predict", str(EXAMPLES / "oltp-ds13-p30.yaml"), "--json").json()
    assert doc["outstanding_at_90"] == pytest.approx(47, abs=1)
    sim = iolab("simulate", str(_depth(tmp_path, 12)), "--ios", "300000", "--json").json()
    assert sim["iops"] == pytest.approx(18_000, rel=0.02)  # 48 in flight: 90 % of 20,000


def test_one_deterministic_station_below_saturation():
    """One throttle of 1 ms and a 1 ms delay, two IOs: the second waits half a service on
    average at the first visit's utilization, so the cycle is 2 ms + 1 ms × (1 + Q − U/2)."""
    from iolab.analytic import exact_mva

    D, Z = np.array([0.001]), 0.001
    x1 = 1 / (Z + 0.001)
    q1, u1 = x1 * 0.001, x1 * 0.001
    want = 2 / (Z + 0.001 * (1 + q1 - u1 / 2))
    got, _ = exact_mva(D, Z, 2, cv2=np.array([0.0]))
    assert got == pytest.approx(want, rel=1e-12)
    expo, _ = exact_mva(D, Z, 2)  # exponential: the textbook recursion
    assert expo == pytest.approx(2 / (Z + 0.001 * (1 + q1)), rel=1e-12)
    assert got > expo


def test_several_jobs_never_exceed_a_cap():
    """Schweitzer's approximation with the correction: chains through a full cap slow down
    together, a chain that does not pass it keeps its rate."""
    from iolab.analytic import schweitzer_mva

    D = np.array([[0.0001, 0.0], [0.0001, 0.0], [0.0, 0.0004]])
    X, _ = schweitzer_mva(D, np.array([0.0005, 0.0005, 0.001]), np.array([64.0, 64.0, 1.0]),
                          cv2=np.zeros(2))
    U = X @ D
    assert U[0] <= 1 + 1e-9 and U[0] == pytest.approx(1.0, abs=1e-3)
    assert X[2] == pytest.approx(1 / (0.001 + 0.0004), rel=1e-6)
    assert all(math.isfinite(x) for x in X)


def test_a_share_with_unspent_credits_shows_its_burst_line(iolab, tmp_path):
    """Azure Files premium bursts while it has credits, and below its sustained rate it never
    spends them: the burst figures differ (its queue and load delay are shorter) though no
    cap runs above its sustained rate, so predict prints them, and simulate (which starts
    with full credits) lands near them."""
    path = tmp_path / "af.yaml"
    # 16 files (64 in flight still): the example's four files' limit (4 x 8,000 IOPS) would be
    # about 91 % busy on burst, where predict runs about 3 % below the simulator
    path.write_text((EXAMPLES / "azure-files-nfs-nconnect4.yaml").read_text()
                    .replace("--rw=read --bs=1024k", "--rw=randread --bs=4k").replace("--nrfiles=4", "--nrfiles=16"))
    doc = iolab("predict", str(path), "--json").json()
    assert doc["burst"]["spending"] == [] and doc["burst"]["duration"] is None
    assert doc["burst"]["iops"] > 1.1 * doc["iops"]
    out = " ".join(iolab("predict", str(path)).out.split())
    assert ("Burst: while share: azure-files-premium 30 TiB has burst credits it serves at its burst rate "
            "(shorter queues and load delay):") in out
    assert "so a full bucket is not drawn down" in out
    sim = iolab("simulate", str(path), "--ios", "200000", "--json").json()
    assert sim["iops"] == pytest.approx(doc["burst"]["iops"], rel=0.03)


def test_connections_taken_in_turn_queue_as_one_faster_server(tmp_path):
    """nconnect 4: the four connections (each IO to the next) are one group; MVA queues them
    as one server four times as fast plus a delay of three quarters of a request's time
    (Seidmann), and the open model's wait at one of them is a quarter of a lone throttle's.
    Against the simulator (no burst credits, 4 KiB reads, 64 in flight): within 3 %, where a
    random pick (each connection queueing alone) is 4 % low."""
    from msgspec.structs import replace

    from iolab.analytic import chains, solve, stretch
    from iolab.compile import compile_scenario
    from iolab.scenario import load_scenario
    from iolab.sim import simulate

    path = tmp_path / "af.yaml"
    # 16 files (64 in flight still): the example's four files' limit (4 x 8,000 IOPS) would be
    # about 91 % busy on burst, where predict runs about 3 % below the simulator
    path.write_text((EXAMPLES / "azure-files-nfs-nconnect4.yaml").read_text()
                    .replace("--rw=read --bs=1024k", "--rw=randread --bs=4k").replace("--nrfiles=4", "--nrfiles=16"))
    net = compile_scenario(load_scenario(path))
    net = replace(net, resources=tuple(
        replace(r, cap=replace(r.cap, burst=None)) if r.cap is not None else r
        for r in net.resources))
    ch = chains(net)
    (group,) = ch.turns
    assert sorted(ch.caps[k] for k in group) == sorted(r.id for r in net.resources if r.kind == "connection"
                                                       and "#" in r.label)
    assert list(ch.turn_size()).count(4.0) == 4
    predicted = sum(solve(net).job_iops.values())
    measured = simulate(net, ios=200_000, seed=1).total.iops
    assert predicted == pytest.approx(measured, rel=0.03)
    assert float(stretch(0.75, 0.0, 4)) == pytest.approx(1 + 0.75 / (2 * 0.25) / 4)
