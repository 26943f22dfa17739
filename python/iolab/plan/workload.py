"""The workload to plan for: the jobs' IO streams and the load they must carry.

A requirements file gives the shape (fio jobs) and totals (``require.iops``,
``require.bandwidth``). The open-model analysis splits the total rate over the jobs in
proportion to their outstanding IOs (numjobs × iodepth, as :func:`iolab.analytic.solve_open`
does) and within a job by its read/write mix (:func:`iolab.compile.builder.directions`).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from msgspec.structs import replace
import numpy as np

from ..compile.builder import directions, working_set
from ..scenario import ScenarioJob
from ..units import format_size
from .requirements import Requirements

__all__ = ["Stream", "Workload"]


class Stream(msgspec.Struct, frozen=True):
    """One direction of one job: ``share`` of all IOs (job share × mix), ``bytes`` per IO."""

    job: int
    direction: str
    share: float
    bytes: int


class Workload(msgspec.Struct, frozen=True):
    """The jobs, their streams and the required total rate (ops/s across all clients).

    ``rate`` is the larger of ``require.iops`` and ``require.bandwidth`` over the mean IO
    size, so that both requirements hold at once.
    """

    jobs: tuple[ScenarioJob, ...]
    shares: tuple[float, ...]
    streams: tuple[Stream, ...]
    rate: float
    clients: int

    @classmethod
    def of(cls, req: Requirements) -> "Workload":
        """The workload of a requirements file with ``require`` (not a pool plan)."""
        assert req.require is not None
        pops = [float(j.fio.outstanding) for j in req.jobs]
        total = sum(pops)
        shares = tuple(p / total for p in pops)
        streams = tuple(Stream(i, d, shares[i] * mix, nbytes)
                        for i, j in enumerate(req.jobs) for d, mix, nbytes in directions(j.fio))
        mean = sum(s.share * s.bytes for s in streams)
        rate = max(req.require.iops or 0.0, (req.require.bandwidth or 0.0) / mean)
        return cls(req.jobs, shares, streams, rate, req.clients)

    @property
    def mean_bytes(self) -> float:
        """Mean bytes per IO over the mix."""
        return sum(s.share * s.bytes for s in self.streams)

    @property
    def bandwidth(self) -> float:
        """Bytes/s at the required rate."""
        return self.rate * self.mean_bytes

    def requests(self, request: Callable[[ScenarioJob], int | None]) -> "Workload":
        """The workload as the client's requests carry it, for the share search: a job whose
        reads `request(job)` says are served in requests of that many bytes (a buffered
        sequential reader over NFS, served by the client's read-ahead: see
        :func:`iolab.compile.shares.read_ahead_request`; None: the job's own IOs) has its
        streams replaced by one stream of such requests, ``mean bytes / request`` of them
        per application IO. ``rate`` still counts application IOs, so shares no longer add
        up to 1; bytes are unchanged. This is how the candidate's compiled network is
        loaded for the figures shown (:func:`iolab.plan.prediction.predict_at_load`)."""
        streams: list[Stream] = []
        for i, j in enumerate(self.jobs):
            own = [s for s in self.streams if s.job == i]
            size = request(j)
            if size is None:
                streams += own
                continue
            per_io = sum(s.share * s.bytes for s in own) / self.shares[i]  # mean bytes of the job's IOs
            streams.append(Stream(i, "read", self.shares[i] * per_io / size, size))
        return replace(self, streams=tuple(streams))

    def job_rates(self, clients: int) -> dict[str, float]:
        """Required ops/s of each job on one client, by job name."""
        return {j.name: self.rate * share / clients for j, share in zip(self.jobs, self.shares)}

    @property
    def per_client(self) -> float:
        """Required ops/s of one client."""
        return self.rate / self.clients

    def working_set(self, job: int, capacity: int) -> int:
        """Bytes job ``job`` touches on one client whose volume holds ``capacity`` bytes."""
        return working_set(self.jobs[job].fio, capacity)

    def working_sets(self, job: int, capacities: np.ndarray) -> np.ndarray:
        """:meth:`working_set` for each of ``capacities`` (whole bytes) at once: a job touches
        what its size says, or its volume's capacity once per clone (``numjobs``)."""
        fixed = self.working_set(job, 0)
        if fixed:
            return np.full(len(capacities), fixed, dtype=np.int64)
        return capacities * self.working_set(job, 1)

    def describe(self) -> str:
        """The shape in a few words: ``randrw 70/30 8 KiB``."""
        parts = []
        for j in self.jobs:
            f = j.fio
            mix = f" {f.rwmixread}/{100 - f.rwmixread}" if f.rw in ("rw", "randrw") else ""
            parts.append(f"{f.rw}{mix} {format_size(f.bs)}")
        return ", ".join(parts)
