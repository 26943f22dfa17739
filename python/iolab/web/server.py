"""Start the web application on uvicorn and say where once it listens."""

from __future__ import annotations

import ipaddress
import secrets
import sys
from collections.abc import Callable
from typing import Any

from .app import Settings, make_app

__all__ = ["is_loopback", "serve", "address"]


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


def serve(settings: Settings, host: str, port: int, *, announce: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted. On a non-loopback `host` a fresh access token is required of
    every request; once the socket listens, ``iolab serve: ADDRESS`` is the first line on
    stdout (or goes to `announce`)."""
    import uvicorn

    loopback = is_loopback(host)
    token = None if loopback else secrets.token_urlsafe(24)

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.should_exit:
                return
            bound = self.servers[0].sockets[0].getsockname()[1] if self.servers else port
            line = f"iolab serve: {address(host, bound, token)}"
            if announce is not None:
                announce(line)
            else:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()

    def hosts_for(bound: int) -> frozenset[str]:
        names = {host, "localhost", "127.0.0.1", "[::1]"} if loopback else set()
        return frozenset(f"{n}:{bound}" for n in names)

    class App:
        """The application, made once the port is known (port 0 picks a free one), so that
        the Host check on loopback names the real port."""

        def __init__(self) -> None:
            self.app: Any = None

        async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
            if self.app is None:
                bound = scope["server"][1] if scope.get("server") else port
                hosts = hosts_for(bound) if loopback else frozenset()
                from dataclasses import replace

                self.app = make_app(replace(settings, token=token, loopback=loopback, hosts=hosts))
            await self.app(scope, receive, send)

    config = uvicorn.Config(App(), host=host, port=port, log_level="warning", access_log=False, lifespan="off",
                            server_header=False, timeout_graceful_shutdown=2)
    Server(config).run()
