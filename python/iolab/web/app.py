"""The web application: the pages and the JSON endpoints behind them (Starlette).

Every endpoint answers from :mod:`iolab.web.jobs`, which does each job as the command line
does it. Safe by default: the guard in front of every route refuses a request without the
access token when one is set (403), a request for another host than the one served on a
loopback address (a page elsewhere reaching 127.0.0.1 through a DNS name of its own), and a
POST sent by a page of another origin; bodies are bounded (:data:`MAX_BODY`, 413); every GET
only reads.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ..errors import InputError, IolabError, SafetyError
from . import jobs

__all__ = ["Settings", "make_app", "MAX_BODY", "TOKEN_HEADER"]

#: the largest request body taken (bytes): a scenario or requirements file is a few KiB.
MAX_BODY = 1024 * 1024
#: the header that carries the access token (or ``?token=`` in the address).
TOKEN_HEADER = "x-iolab-token"

ASSETS = Path(__file__).parent / "assets"


@dataclass(frozen=True)
class Settings:
    """What ``iolab serve`` was started with."""

    db: Path | None = None
    catalog: tuple[Path, ...] = ()
    token: str | None = None
    loopback: bool = True
    allow_bench: bool = False
    scenario: str | None = None          # the scenario the what-if page opens with (its text)
    scenario_name: str = "scenario.yaml"
    hosts: frozenset[str] = field(default_factory=frozenset)  # Host headers accepted on loopback


def _json(doc: Any, status: int = 200) -> Response:
    return Response(json.dumps(doc), status_code=status, media_type="application/json")


def error_response(e: BaseException) -> Response:
    """An error as the page shows it beside its field: ``{"error", "field", "file"}``; bad input
    400, a refusal for safety 403, anything else 500."""
    if isinstance(e, TooLarge):
        return _json({"error": e.message, "field": e.field}, 413)
    if isinstance(e, InputError):
        return _json({"error": e.message, "field": e.field, "file": e.file}, 400)
    if isinstance(e, SafetyError):
        return _json({"error": str(e), "field": getattr(e, "field", None)}, 403)
    if isinstance(e, IolabError):
        return _json({"error": str(e), "field": None}, 500)
    return _json({"error": f"internal error: {type(e).__name__}: {e}", "field": None}, 500)


class Guard:
    """ASGI middleware in front of every route: the token, the Host and Origin checks, the
    body's bound."""

    def __init__(self, app: Callable, settings: Settings):
        self.app = app
        self.settings = settings

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            if refusal[0] == 413 and int(headers["content-length"]) <= DRAINED:
                await _drain(receive)  # so that the client, still sending, reads the answer
            await _json({"error": refusal[1], "field": refusal[2]}, refusal[0])(scope, receive, send)
            return
        await self.app(scope, _bounded(receive), send)

    def _refusal(self, scope: dict, headers: dict[str, str]) -> tuple[int, str, str | None] | None:
        s = self.settings
        if s.token is not None:
            given = headers.get(TOKEN_HEADER) or parse_qs(scope.get("query_string", b"").decode("latin-1")).get(
                "token", [""])[0]
            if not hmac.compare_digest(given.encode(), s.token.encode()):
                return 403, "this server needs its access token (printed when iolab serve started): add ?token=...", \
                    "token"
        elif s.hosts and headers.get("host", "") not in s.hosts:
            return 403, f"served for {', '.join(sorted(s.hosts))} only, not for {headers.get('host', '')!r}", "host"
        origin = headers.get("origin")
        if scope["method"] != "GET" and origin is not None and origin != f"http://{headers.get('host', '')}":
            return 403, f"a request from another page ({origin}) is refused", "origin"
        length = headers.get("content-length")
        if length is not None and not length.isdigit():
            return 400, "the Content-Length is not a number", "body"
        if length is not None and int(length) > MAX_BODY:
            return 413, f"the body is larger than {MAX_BODY // 1024} KiB", "body"
        return None


#: a body refused for its size is still read (and dropped) up to this many bytes, so that the
#: client sees the 413 rather than a connection reset; past it the connection is closed.
DRAINED = 8 * MAX_BODY


async def _drain(receive: Callable) -> None:
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body"):
            return


class BodyTooLarge(Exception):
    """A body (of any transfer encoding) grew past :data:`MAX_BODY` as it was read."""


class TooLarge(InputError):
    """A body refused for its size: 413."""


def _bounded(receive: Callable) -> Callable:
    """`receive` that stops a body (of any transfer encoding) past :data:`MAX_BODY`."""
    seen = 0

    async def inner() -> dict:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise BodyTooLarge()
        return message

    return inner


async def _body(request: Request) -> str:
    try:
        data = await request.body()
    except BodyTooLarge:
        raise TooLarge(f"the body is larger than {MAX_BODY // 1024} KiB", field="body") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("the body is not UTF-8 text", field="body") from None


def _name(request: Request, default: str) -> str:
    name = request.query_params.get("name") or default
    if len(name) > 255 or "\x00" in name:
        raise InputError("expected a file name of at most 255 characters", field="name")
    return name


def _int(request: Request, key: str, default: int | None) -> int | None:
    text = request.query_params.get(key)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise InputError(f"expected a whole number, got {text!r}", field=f"--{key}") from None


def make_app(settings: Settings) -> Starlette:
    """The application for `settings`."""
    page = _page(settings)
    cat = settings.catalog

    def endpoint(work: Callable[[Request, str], Any], *, body: bool = True, html: bool = False) -> Callable:
        async def handle(request: Request) -> Response:
            try:
                text = await _body(request) if body else ""
                result = await run_in_threadpool(work, request, text)
            except Exception as e:  # every error becomes a JSON answer, never a traceback page
                return error_response(e)
            if html:
                return HTMLResponse(result, headers={"Content-Security-Policy": "default-src 'none'; "
                                                     "style-src 'unsafe-inline'; img-src data:"})
            if isinstance(result, Response):
                return result
            return _json(result)
        return handle

    def region(request: Request) -> str:
        return request.query_params.get("region") or "eastus"

    def predict(request: Request, text: str) -> Any:
        return jobs.predict_text(text, _name(request, "scenario.yaml"), cat)

    def whatif(request: Request, text: str) -> Any:
        return jobs.whatif_text(text, _name(request, "scenario.yaml"), cat, region(request))

    def curve(request: Request, text: str) -> Any:
        return jobs.curve_text(text, _name(request, "scenario.yaml"), cat)

    def percentiles(request: Request, text: str) -> Any:
        return jobs.percentiles_text(text, _name(request, "scenario.yaml"), cat)

    def cost(request: Request, text: str) -> Any:
        return jobs.cost_text(text, _name(request, "scenario.yaml"), cat, region(request))

    def plan(request: Request, text: str) -> Any:
        return jobs.plan_text(text, _name(request, "requirements.yaml"), cat, region=region(request),
                              top=_int(request, "top", None))

    def parse(request: Request, text: str) -> Any:
        return {"data": jobs.finite(jobs.parse_text(text, _name(request, "scenario.yaml")))}

    def save(request: Request, text: str) -> Any:
        name = Path(_name(request, "scenario.yaml")).name
        data = jobs.parse_text(text, name)
        return Response(jobs.scenario_yaml(data), media_type="application/yaml",
                        headers={"Content-Disposition": f'attachment; filename="{_safe(name)}"'})

    def runs(request: Request, text: str) -> Any:
        sweep = request.query_params.get("sweep")
        return jobs.runs(settings.db, None if sweep is None else _int(request, "sweep", None))

    def run(request: Request, text: str) -> Any:
        return jobs.run(settings.db, _path_int(request, "run_id"))

    def stored_report(request: Request, text: str) -> Any:
        kind = request.path_params["kind"]
        if kind not in ("run", "sweep"):
            raise InputError(f"unknown stored report kind {kind!r}; one of: run, sweep", field="KIND")
        return jobs.report_html(kind, request.path_params["ids"].split(","), db=settings.db)

    def report(request: Request, text: str) -> Any:
        kind = request.path_params["kind"]
        if kind not in ("predict", "plan"):
            raise InputError(f"unknown report kind {kind!r}; one of: predict, plan", field="KIND")
        name = _name(request, "scenario.yaml" if kind == "predict" else "requirements.yaml")
        return jobs.report_html(kind, (), catalog=cat, text=text, name=name, region=region(request),
                                top=_int(request, "top", None))

    def choices(request: Request, text: str) -> Any:
        return jobs.choices(cat, region(request))

    def bench(request: Request, text: str) -> Any:
        if not settings.allow_bench:
            raise SafetyError("benchmarks cannot be started from the page: start iolab serve with --allow-bench")
        return jobs.bench_text(text, _name(request, "scenario.yaml"), cat, settings.db,
                               target=request.query_params.get("target", ""),
                               runtime=request.query_params.get("runtime"))

    async def index(request: Request) -> Response:
        return HTMLResponse(page, headers={"Content-Security-Policy": "default-src 'self'; "
                                           "style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                                           "img-src data:; frame-src 'self'", "Cache-Control": "no-store"})

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/api/predict", endpoint(predict), methods=["POST"]),
        Route("/api/whatif", endpoint(whatif), methods=["POST"]),
        Route("/api/curve", endpoint(curve), methods=["POST"]),
        Route("/api/percentiles", endpoint(percentiles), methods=["POST"]),
        Route("/api/cost", endpoint(cost), methods=["POST"]),
        Route("/api/plan", endpoint(plan), methods=["POST"]),
        Route("/api/parse", endpoint(parse), methods=["POST"]),
        Route("/api/scenario.yaml", endpoint(save), methods=["POST"]),
        Route("/api/report/{kind}", endpoint(report, html=True), methods=["POST"]),
        Route("/api/bench", endpoint(bench), methods=["POST"]),
        Route("/api/runs", endpoint(runs, body=False), methods=["GET"]),
        Route("/api/runs/{run_id}", endpoint(run, body=False), methods=["GET"]),
        Route("/api/choices", endpoint(choices, body=False), methods=["GET"]),
        Route("/report/{kind}/{ids}", endpoint(stored_report, body=False, html=True), methods=["GET"]),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(Guard, settings=settings)
    return app


def _path_int(request: Request, key: str) -> int:
    text = request.path_params[key]
    if not text.isdigit():
        raise InputError(f"expected a run id (a whole number), got {text!r}", field="ID")
    return int(text)


def _safe(name: str) -> str:
    return "".join(c for c in name if c.isalnum() or c in "._-") or "scenario.yaml"


def _page(settings: Settings) -> str:
    """The single page (HTML, style and script inline: one request, nothing from the network),
    with what it starts from: the token, the scenario, whether benchmarks are allowed."""
    html = (ASSETS / "index.html").read_text(encoding="utf-8")
    start = {"token": settings.token, "scenario": settings.scenario, "name": settings.scenario_name,
             "allow_bench": settings.allow_bench}
    boot = json.dumps(start).replace("<", "\\u003c")
    return (html.replace("/*STYLE*/", (ASSETS / "style.css").read_text(encoding="utf-8"))
                .replace("/*SCRIPT*/", (ASSETS / "app.js").read_text(encoding="utf-8"))
                .replace("{/*BOOT*/}", boot))
