"""Multi-host runs through fio's client/server mode: the hosts, their check, the rules.

Each host runs ``fio --server`` (``iolab bench server --bind ADDR`` starts one); iolab
runs one ``fio --client=HOST,PORT`` per host side by side, so a host that fails or drops
mid-run loses only its own figures. fio's server has no authentication: iolab talks only
to the hosts named on its command line, and servers should listen on a private address.

Safety with remote hosts: iolab cannot inspect a remote target, so fio creates its files
by name (``iolab-<token>.<host>.<job>...``) in the target directory there and removes them
at the end (``unlink=1``); the same allow-list as a local run applies, and no job may name
its own ``filename=`` unless ``--destructive`` is given.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable, Sequence
import threading
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, RunError, SafetyError
from .write_policy import check_allowed, job_writes

__all__ = ["DEFAULT_PORT", "Host", "parse_host", "read_clients", "unique", "check_reachable",
           "check_remote_jobs", "check_bind", "server_argv"]

#: fio's default server port.
DEFAULT_PORT = 8765


@dataclass(frozen=True)
class Host:
    """A fio server: host name or IP address, and TCP port."""

    name: str
    port: int = DEFAULT_PORT

    @property
    def is_ipv6(self) -> bool:
        return ":" in self.name

    @property
    def label(self) -> str:
        """How the host is named in output: ``name``, ``name:port``, ``[v6]:port``."""
        if self.port == DEFAULT_PORT:
            return self.name
        return f"[{self.name}]:{self.port}" if self.is_ipv6 else f"{self.name}:{self.port}"

    def client_option(self) -> str:
        """fio's ``--client=`` argument for this host."""
        return f"--client={'ip6:' if self.is_ipv6 else ''}{self.name},{self.port}"


def _port(text: str, where: str, file: str | None) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise InputError(f"port {text!r} is not a TCP port (1..65535)", file=file, field=where)
    return int(text)


def parse_host(text: str, *, field: str = "--client", file: str | None = None) -> Host:
    """Read ``HOST``, ``HOST:PORT``, an IPv6 address, or ``[IPv6]:PORT``.

    Raises InputError naming `field` (and `file`) for an empty name or a bad port.
    """
    s = text.strip()
    if not s:
        raise InputError("expected HOST or HOST:PORT, got nothing", file=file, field=field)
    if s.startswith("["):
        if "]" not in s:
            raise InputError(f"expected [IPv6] or [IPv6]:PORT, got {s!r} (no closing ']')", file=file, field=field)
        addr, _, rest = s[1:].partition("]")
        port = _port(rest[1:], field, file) if rest.startswith(":") else DEFAULT_PORT
        if rest and not rest.startswith(":"):
            raise InputError(f"expected [IPv6]:PORT, got {s!r}", file=file, field=field)
        if ":" not in addr:  # brackets hold an IPv6 address alone
            raise InputError(f"expected [IPv6] or [IPv6]:PORT, got {s!r} (write HOST:PORT for a name or an IPv4 "
                             "address)", file=file, field=field)
        return Host(_named(addr, s, field, file), port)
    if s.count(":") == 1:
        name, _, port = s.partition(":")
        if not name:
            raise InputError(f"expected HOST:PORT, got {s!r}", file=file, field=field)
        return Host(_named(name, s, field, file), _port(port, field, file))
    if s.count(":") > 1:
        try:
            ipaddress.IPv6Address(s)
        except ValueError:
            raise InputError(f"{s!r} is neither HOST:PORT nor an IPv6 address (write [ADDR]:PORT)",
                             file=file, field=field) from None
    if any(c.isspace() for c in s):
        raise InputError(f"a host name has no spaces: {s!r}", file=file, field=field)
    return Host(_named(s, s, field, file))


#: a host name: dot-separated labels of letters, digits, '-' and '_', 1 to 63 characters each
_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")


def _named(name: str, given: str, field: str, file: str | None) -> str:
    """`name` when it is an IP address or a host name a resolver takes; InputError otherwise
    (``42`` or ``10.1`` are not addresses, however a C resolver would read them)."""
    try:
        ipaddress.ip_address(name)
        return name
    except ValueError:
        pass
    labels = name[:-1].split(".") if name.endswith(".") else name.split(".")
    if ":" in name or all(c.isdigit() or c == "." for c in name):
        what = "an IPv6 address" if ":" in name else "an IPv4 address (four numbers 0..255, as 10.0.0.5)"
    elif len(name) > 253 or not all(_LABEL.match(label) for label in labels):
        what = "a host name (letters, digits and '-', dot-separated labels of at most 63)"
    else:
        return name
    raise InputError(f"{name!r} is not {what}" + (f" in {given!r}" if given != name else ""), file=file, field=field)


def read_clients(text: str, *, file: str) -> list[Host]:
    """Hosts from a clients file's text: one per line; blank lines and ``#`` comments skipped."""
    hosts = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if line:
            hosts.append(parse_host(line, field=f"line {n}", file=file))
    if not hosts:
        raise InputError("no hosts in the file (one HOST[:PORT] per line)", file=file)
    return hosts


def unique(hosts: Iterable[Host]) -> list[Host]:
    """`hosts` in order, each once; InputError when one is named twice."""
    seen: list[Host] = []
    for h in hosts:
        if h in seen:
            raise InputError(f"host {h.label} is named twice", field="--client")
        seen.append(h)
    return seen


Connect = Callable[[tuple[str, int], float], Any]


def check_reachable(hosts: Sequence[Host], *, timeout: float = 2.0,
                    connect: Connect = socket.create_connection) -> None:
    """Open (and close) a TCP connection to every host at once, before the run starts.

    Raises RunError naming every host that does not answer within `timeout` seconds.
    """
    def attempt(i: int, host: Host) -> None:
        try:
            conn = connect((host.name, host.port), timeout)
        except OSError as e:
            answers[i] = f"{host.label}: {e.strerror or e}"
            return
        conn.close()

    answers: list[str | None] = [None] * len(hosts)
    threads = [threading.Thread(target=attempt, args=(i, h), daemon=True) for i, h in enumerate(hosts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failures = [a for a in answers if a]
    if failures:
        raise RunError("no fio server answers on " + "; ".join(failures)
                       + " (start one there with: iolab bench server --bind ADDR)")


def check_remote_jobs(jobs: Iterable[Any], *, destructive: bool) -> None:
    """The remote safety rules, unless `destructive`: the same allow-list of engines and
    options as a local run, and no ``filename=`` at all (iolab cannot see the remote path:
    a write could hit data, a read could extend a file). Raises SafetyError."""
    if destructive:
        return
    for job in jobs:
        check_allowed(job)
        if getattr(job, "filename", None):
            what = "writes to" if job_writes(job) else "names"
            raise SafetyError(
                f"job {job.name!r} {what} filename={job.filename} on remote hosts, which iolab cannot "
                "check: drop filename= (iolab names its own files in the target directory) "
                "or pass --destructive")


def check_bind(bind: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address `bind` names, when a fio server may listen on it: one private or loopback
    unicast address. InputError (``--bind``) for anything else — not an IP address, a
    wildcard (``0.0.0.0``, ``::``, and ``::ffff:0:0``, the IPv4 wildcard written as IPv6), a
    multicast or broadcast address, a reserved one, or a public one (fio's server has no
    authentication)."""
    try:
        addr = ipaddress.ip_address(bind)
    except ValueError:
        raise InputError(f"{bind!r} is not an IP address: bind the server to one address",
                         field="--bind") from None
    inner = addr
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        inner = addr.ipv4_mapped  # ::ffff:a.b.c.d is a.b.c.d
    why = None
    if inner.is_unspecified or (inner.version == 4 and int(inner) >> 24 == 0):
        why = "listens on every interface"
    elif inner.is_multicast:
        why = "is a multicast address"
    elif inner.version == 4 and inner == ipaddress.IPv4Address("255.255.255.255"):
        why = "is the broadcast address"
    elif inner.is_loopback:
        why = None
    elif inner.is_reserved:
        why = "is a reserved address"
    elif not inner.is_private:
        why = "is a public address"
    if why:
        raise InputError(f"{bind} {why}; fio's server has no authentication: bind it to one private "
                         "address (10.x, 172.16-31.x, 192.168.x, fc00::/7, loopback, link-local)",
                         field="--bind")
    return addr


def server_argv(fio: str, bind: str, port: int = DEFAULT_PORT) -> list[str]:
    """fio's command line for a server listening on `bind` (see :func:`check_bind`) and `port`.

    Raises InputError for an address :func:`check_bind` refuses or a port outside 1..65535.
    """
    addr = check_bind(bind)
    if not 0 < port < 65536:
        raise InputError(f"port {port} is not a TCP port (1..65535)", field="--port")
    kind = "ip6" if addr.version == 6 else "ip"
    return [fio, f"--server={kind}:{addr},{port}"]
