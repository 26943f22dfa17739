"""File protocols: NFSv3, NFSv4.1, SMB 3 and what limits one client's concurrency and throughput."""


from pydantic import Field, PositiveInt, model_validator

from ..schema import Fraction, PositiveOps, PositiveRate, PositiveSize
from .row import Row

__all__ = ["Protocol"]


class Protocol(Row):
    """A file protocol as a client uses it (``nfs3``, ``nfs4.1``, ``dnfs``, ``smb3``).

    - ``slots_per_connection``: outstanding requests the server takes per TCP connection
      (NFSv3: 128); they grow with nconnect.
    - ``session_slots``: the client's default session slots (NFSv4.1: 64), one session
      per client whatever nconnect is; ``session_slots_max``: the server's maximum (180).
    - ``max_nconnect``: the most connections (NFS) or channels (SMB) one mount may use.
    - ``channels_per_nic``: SMB multichannel connections per RSS NIC by default (4).
    - ``connection_bandwidth`` (bytes/s): one TCP connection's throughput, held by one
      client CPU; ``signing_bandwidth``: the same with SMB signing on.
    - ``encryption_loss``: the share of the service's throughput that SMB encryption
      costs on read/write work (``encryption_metadata_loss`` on metadata-heavy work).
    - ``connection_iops`` (ops/s): the requests one connection carries, held by the one
      client core that serves it. The client's cores spend ``1 / connection_iops`` per IO
      and ``1 / connection_bandwidth`` per byte on the protocol stack.
    - ``signing_bandwidth`` / ``encryption_bandwidth`` / ``tls_bandwidth``: one
      connection's throughput with SMB signing, SMB encryption or NFS over TLS; each adds
      ``1 / that − 1 / connection_bandwidth`` core seconds per byte.
    - ``rss_cores``: how many cores one RSS NIC's traffic of this protocol's usual client
      can use (receive-side scaling); the protocol stack runs on at most that many.
    - ``rss_queues``: where set, each connection's bytes are handled on the core of the
      receive queue RSS hashes it to, one of ``rss_queues``: the per-byte work runs on the
      queues the connections occupy (``Q (1 − (1 − 1/Q)^N)`` on average for ``N``
      connections), the per-IO work on the ``rss_cores``. Unset: both on the ``rss_cores``.
    - ``endpoint_slots``: outstanding requests one storage endpoint takes from all its
      clients together.
    - ``read_ahead`` (bytes) and ``rsize`` (bytes): the client's default read-ahead window
      and largest read request; buffered sequential reads keep ``read_ahead / rsize``
      requests of ``min(rsize, read_ahead)`` in flight per stream.
    - ``connection_per_process``: each process of the application opens its own
      connection (Oracle Direct NFS), so a client has as many connections as processes.
    """

    slots_per_connection: PositiveInt | None = None
    session_slots: PositiveInt | None = None
    session_slots_max: PositiveInt | None = None
    max_nconnect: PositiveInt = Field(16, le=64)
    channels_per_nic: PositiveInt | None = None
    connection_bandwidth: PositiveRate
    signing_bandwidth: PositiveRate | None = None
    encryption_loss: Fraction | None = None
    encryption_metadata_loss: Fraction | None = None
    connection_iops: PositiveOps | None = None
    encryption_bandwidth: PositiveRate | None = None
    tls_bandwidth: PositiveRate | None = None
    rss_cores: PositiveInt | None = None
    rss_queues: PositiveInt | None = None
    endpoint_slots: PositiveInt | None = None
    connection_per_process: bool = False
    read_ahead: PositiveSize | None = None
    rsize: PositiveSize | None = None

    @model_validator(mode="after")
    def _slots(self) -> "Protocol":
        if self.session_slots and self.session_slots_max and self.session_slots > self.session_slots_max:
            raise ValueError("session_slots must not be above session_slots_max")
        for name in ("signing_bandwidth", "encryption_bandwidth", "tls_bandwidth"):
            value = getattr(self, name)
            if value and value > self.connection_bandwidth:
                raise ValueError(f"{name} must not be above connection_bandwidth")
        return self
