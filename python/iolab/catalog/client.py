"""The client's half of a file-share path as one service answers it: what one connection (an
NFS TCP connection, an SMB channel) and all of one client's connections to a share carry, and
on how many cores the protocol stack runs. The protocol's row gives the client's own figures;
a service level may state its own for a protocol (``clients`` in ``services.yaml``), fitted to
that service's published nconnect or multichannel results."""

from __future__ import annotations

import msgspec
from pydantic import Field, PositiveInt

from ..schema import PositiveOps, PositiveRate
from .protocol import Protocol
from .row import Sourced

__all__ = ["ClientFigures", "ClientPath", "client_path", "rss_queues_used"]


class ClientFigures(Sourced):
    """What a service does to one client's connections over one protocol (each field optional;
    an absent one leaves the protocol's figure or no limit).

    - ``connection_iops`` (ops/s), ``connection_bandwidth`` (bytes/s): the most one connection
      to this service carries. They cap the connection only: the client's cores still spend
      the protocol's ``1 / connection_iops`` per IO and ``1 / connection_bandwidth`` per byte,
      since the client's stack is the same whatever the server.
    - ``connection_write_iops`` (ops/s): the most write requests one connection to this service
      carries, where writes cost it more than reads (a second cap that only writes visit; the
      connection's own cap still bounds reads and writes together).
    - ``client_iops`` (ops/s), ``client_bandwidth`` (bytes/s): the most all of one client's
      connections to one share carry together, however many it opens.
    - ``rss_cores``: the cores the protocol stack may use on this service's clients, in place
      of the protocol's.
    """

    source: str = Field("a catalog file", min_length=1)
    connection_iops: PositiveOps | None = None
    connection_bandwidth: PositiveRate | None = None
    connection_write_iops: PositiveOps | None = None
    client_iops: PositiveOps | None = None
    client_bandwidth: PositiveRate | None = None
    rss_cores: PositiveInt | None = None


class ClientPath(msgspec.Struct, frozen=True):
    """One client's figures for one share: each connection's cap (``connection_ops`` requests/s,
    ``connection_bytes`` bytes/s, 0 for none), all its connections' cap together (``client_ops``,
    ``client_bytes``, None for none), the cores the stack may use (``rss_cores``, None for all)
    and, where the protocol spreads each connection's bytes over the NIC's receive queues, how
    many queues there are (``rss_queues``); the write requests one connection carries where
    writes cost it more (``connection_write_ops``, None for no such cap)."""

    connection_ops: float
    connection_bytes: float
    client_ops: float | None
    client_bytes: float | None
    rss_cores: int | None
    rss_queues: int | None
    connection_write_ops: float | None = None


def client_path(proto: Protocol, figures: ClientFigures | None, connection_bytes: float) -> ClientPath:
    """The client's figures for a share: the protocol's, each capped by the service's where it
    states one (``connection_bytes``: the protocol's per-connection bytes, already lowered by
    SMB signing, encryption or NFS over TLS where they are on)."""
    ops = proto.connection_iops or 0.0
    f = figures or ClientFigures(source="the protocol's figures")
    if f.connection_iops:
        ops = min(ops, f.connection_iops) if ops else f.connection_iops
    nbytes = min(connection_bytes, f.connection_bandwidth) if f.connection_bandwidth else connection_bytes
    return ClientPath(ops, nbytes, f.client_iops, f.client_bandwidth, f.rss_cores or proto.rss_cores,
                      proto.rss_queues, f.connection_write_iops)


def rss_queues_used(queues: int, connections: int) -> float:
    """The receive queues (cores) that ``connections`` TCP connections keep busy on average when
    receive-side scaling hashes each onto one of ``queues`` at random: ``Q (1 − (1 − 1/Q)^N)``
    (1 for one connection, approaching ``Q`` as connections grow, never above either)."""
    q, n = float(queues), max(1, connections)
    return q * (1.0 - (1.0 - 1.0 / q) ** n)
