"""What the web game's server checks of every request before any route sees it (an ASGI middleware), and how the
server refuses a request (:class:`RequestError`, answered as JSON).

A page on another site must not drive the server (a cross-site form post), nor read its answers through a name
that resolves to 127.0.0.1 (DNS rebinding). So: the ``Host`` must be the bound address and port (or
``localhost:port`` on 127.0.0.1), else 403; an ``Origin``, when sent, must be the page's own, else 403; a POST must
be ``Content-Type: application/json`` (415) with a body of at most ``MAX_BODY`` bytes (413). A request that repeats
one of these headers (or ``Content-Length``) is refused (400): a proxy or a browser may pass on either value, so
judging the first would judge what the server may not act on. Refusals are JSON ``{"error": message}``, as the API's
other 4xx are.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY = 64 * 1024  # bytes of a request body; a new game or a move takes well under 1 KiB
CHECKED = ("host", "origin", "content-type", "content-length")  # the headers the guard judges: each once at most


class RequestError(Exception):
    """A request the API refuses: ``status`` (4xx) and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message

    def answer(self) -> JSONResponse:
        """The refusal as the API sends it: ``{"error": message}`` with the status."""
        return JSONResponse({"error": self.message}, status_code=self.status)


def own_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` headers of the server's own page: the bound address and port, and ``localhost`` on 127.0.0.1
    (without the port, too, on port 80)."""
    names = [host, "localhost"] if host == "127.0.0.1" else [host]
    return frozenset([f"{name}:{port}" for name in names] + (names if port == 80 else []))


class Guard:
    """The ASGI middleware that checks ``Host``, ``Origin``, ``Content-Type`` and the body's size."""

    def __init__(self, app: ASGIApp, host: str, port: int, max_body: int = MAX_BODY) -> None:
        self.app, self.hosts, self.max_body = app, own_hosts(host, port), max_body
        self.origins = frozenset(f"http://{name}" for name in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            self.check(scope["method"], Headers(scope=scope))
            if scope["method"] == "POST":
                receive = await self.read_body(receive)
        except RequestError as refused:
            await refused.answer()(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def check(self, method: str, headers: Headers) -> None:
        """A RequestError unless the headers are those of the server's own page (and of JSON, on a POST)."""
        for name in CHECKED:
            if len(headers.getlist(name)) > 1:
                raise RequestError(400, f"the request repeats its {name.title()} header; send it once")
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            raise RequestError(403, f"this server answers only to {' or '.join(sorted(self.hosts))}, not host {host!r}")
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            raise RequestError(403, "requests from other pages are refused; use the page this server serves")
        if method != "POST":
            return
        if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            raise RequestError(415, "the request body must be JSON, with Content-Type: application/json")

    async def read_body(self, receive: Receive) -> Receive:
        """Read the whole body (a RequestError past ``max_body`` bytes); a ``receive`` that gives it to the app."""
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the app see it
                return _replay([message], receive)
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_body:
                raise RequestError(413, f"the request body is over {self.max_body} bytes")
        return _replay([{"type": "http.request", "body": body, "more_body": False}], receive)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives ``messages`` first, then what ``receive`` gives."""

    async def replayed() -> Message:
        return messages.pop(0) if messages else await receive()

    return replayed
