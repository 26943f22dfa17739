"""Start the web application on uvicorn and say where once it listens."""

from __future__ import annotations

import ipaddress
import secrets
import socket
import sys
from dataclasses import replace
from collections.abc import Callable
from typing import Any

from .app import Settings, make_app

__all__ = ["is_loopback", "serve", "address", "listen"]


def is_loopback(host: str) -> bool:
    """Whether `host` is a loopback address (127.0.0.0/8, ::1) or ``localhost``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def address(host: str, port: int, token: str | None) -> str:
    """The address to open: ``http://HOST:PORT/`` (with ``?token=...`` when one is needed)."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host`:`port` (0: a free port); RunError (exit 1) naming the
    address when it cannot be had (in use, not this machine's)."""
    from ..errors import RunError

    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    try:
        return socket.create_server((host.strip("[]"), port), family=family, backlog=128)
    except OSError as e:
        raise RunError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


def serve(settings: Settings, host: str, port: int, *, announce: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted. On a non-loopback `host` a fresh access token is required of
    every request (on loopback, requests must name this address as their Host); once the
    socket listens, ``iolab serve: ADDRESS`` is the first line on stdout (or goes to
    `announce`)."""
    import uvicorn

    loopback = is_loopback(host)
    token = None if loopback else secrets.token_urlsafe(24)
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    names = {host, "localhost", "127.0.0.1", "[::1]"} if loopback else set()
    app = make_app(replace(settings, token=token, loopback=loopback,
                           hosts=frozenset(f"{n}:{bound}" for n in names)))
    line = f"iolab serve: {address(host, bound, token)}"

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.should_exit:
                return
            if announce is not None:
                announce(line)
            else:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False,
                            timeout_graceful_shutdown=2)
    Server(config).run(sockets=[sock])
