"""Start ``iolab serve`` as a person does (its own process, a free port) and talk to it.

A server is started with ``--port 0`` and read for its first stdout line, ``iolab serve:
ADDRESS``, within a bounded time; :func:`stop` ends it by its own process id.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from conftest import ROOT

#: how long a server may take to say where it listens (a loaded 2-core machine is slow to import).
START_SECONDS = 60.0


@dataclass
class Served:
    process: subprocess.Popen
    line: str            # the first stdout line
    url: str             # the address it printed (with ?token=... when one is needed)
    seconds: float       # from the process's start to its first line

    @property
    def base(self) -> str:
        """The address without its query (no token)."""
        return self.url.split("?", 1)[0]

    @property
    def token(self) -> str | None:
        query = urllib.parse.urlparse(self.url).query
        return urllib.parse.parse_qs(query).get("token", [None])[0]

    @property
    def local(self) -> str:
        """The base address reached through 127.0.0.1 (for a server bound to every address)."""
        parts = urllib.parse.urlparse(self.base)
        return f"http://127.0.0.1:{parts.port}/"


def start(*args: str, env: dict[str, str] | None = None) -> Served:
    """``iolab serve --port 0 ARGS`` started in the repository's root."""
    argv = [sys.executable, "-m", "iolab", "serve", "--port", "0", *args]
    t0 = time.monotonic()
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(START_SECONDS)
    if not got or not got[0]:
        process.kill()
        _, err = process.communicate(timeout=10)
        raise AssertionError(f"iolab serve {' '.join(args)} said nothing on stdout within {START_SECONDS:.0f} s "
                             f"(exit {process.returncode}): {err}")
    line = got[0].rstrip("\n")
    assert line.startswith("iolab serve: http://"), line
    return Served(process, line, line.removeprefix("iolab serve: "), time.monotonic() - t0)


def stop(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.wait(10)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait(10)
    for stream in (served.process.stdout, served.process.stderr):
        if stream is not None:
            stream.close()


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str]  # names in lower case

    def json(self):
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def request(url: str, *, method: str = "GET", body: bytes | str | None = None,
            headers: dict[str, str] | None = None, timeout: float = 120.0) -> Answer:
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return Answer(r.status, r.read(), {k.lower(): v for k, v in r.headers.items()})
    except urllib.error.HTTPError as e:
        return Answer(e.code, e.read(), {k.lower(): v for k, v in e.headers.items()})


def endpoint(served: Served, path: str, **params: object) -> str:
    """`path` on the server (through 127.0.0.1) with query `params` (and the token when the
    server has one)."""
    query = {k: str(v) for k, v in params.items()}
    if served.token:
        query["token"] = served.token
    return served.local.rstrip("/") + path + ("?" + urllib.parse.urlencode(query) if query else "")
