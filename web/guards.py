"""What every request to `yz serve` passes through first (plain ASGI, so cheap and early).

- The Host header must name this server (a loopback name or the host it was started with): a
  web page elsewhere whose name was made to resolve to 127.0.0.1 (DNS rebinding) sends its
  own name and is refused. A request from a page of another origin (another scheme, name or
  port: a page another program serves on this machine is another origin) is refused too.
- A request body must say its length, and be small.
- Every response carries a Content-Security-Policy that allows scripts and styles from this
  server's files only (no inline script, no other host), and headers that keep it from being
  framed or sniffed.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from yz.solver.budget import MAX_MOVES

from .settings import MAX_BODY, MAX_YAML_CHARS, WebSettings

PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'self'; "
               "frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    # (not no-referrer: under it a browser sends `Origin: null` with the page's own POSTs,
    # which a sandboxed page of anyone's sends too; same-origin keeps the real origin, which
    # the origin check needs, and tells no other site anything)
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


async def send_error(send, status: int, message: str) -> None:
    """A JSON error answer, straight from the ASGI layer."""
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"content-security-policy", PAGE_POLICY.encode()),
                            *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


DEFAULT_PORTS = {"http": 80, "https": 443}


def host_name(value: str) -> str:
    """The name in a Host header or an origin's authority: 'localhost:8765' -> 'localhost',
    '[::1]:8765' -> '::1'."""
    try:
        return (urlsplit(f"//{value}").hostname or "") if value else ""
    except ValueError:  # e.g. an unclosed '[' of an IPv6 address
        return ""


def port_of(authority: str, scheme: str) -> int | None:
    """The port of a Host header or an origin's authority, the scheme's own when none is
    written ('localhost:8765' -> 8765, 'localhost' -> 80 for http); None when unreadable."""
    try:
        port = urlsplit(f"//{authority}").port
    except ValueError:  # not a number, or out of range
        return None
    return port if port is not None else DEFAULT_PORTS.get(scheme)


def same_origin(origin: str, scheme: str, host: str, settings: WebSettings) -> bool:
    """Whether a request's Origin is a page of this server: the request's own scheme, one of
    the server's names (so a page opened as localhost may call 127.0.0.1), and the port the
    request came to (the Host header's, as the browser wrote it)."""
    origin_scheme, _, authority = origin.partition("://")
    origin_scheme = origin_scheme.lower()
    if origin_scheme != scheme or not settings.allows_host(host_name(authority)):
        return False
    port = port_of(authority, origin_scheme)
    return port is not None and port == port_of(host, scheme)


class TrustedHosts:
    """Refuse a request whose Host is not this server's name (421), or that comes from a
    page of another origin (403)."""

    def __init__(self, app, settings: WebSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        if not self.settings.allows_host(host_name(host)):
            shown = host[:100] or "(none)"
            return await send_error(send, 421, f"Host: {shown!r} is not a name of this server; "
                                    f"open it as http://127.0.0.1 or http://localhost (or the "
                                    "host it was started with).")
        origin = headers.get(b"origin", b"").decode("latin-1")
        if origin and not same_origin(origin, scope.get("scheme", "http"),
                                                            host, self.settings):
            return await send_error(send, 403, f"Origin: requests from {origin[:100]!r} are "
                                    "not accepted; use the page this server serves.")
        return await self.app(scope, receive, send)


class BodyLimit:
    """Refuse a body without a length (411) or larger than MAX_BODY (413) before reading it."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH"):
            length = dict(scope["headers"]).get(b"content-length")
            if length is None:
                return await send_error(send, 411, "body: send a Content-Length (chunked "
                                        "bodies are not accepted).")
            if not length.isdigit() or int(length) > MAX_BODY:
                return await send_error(send, 413, f"body: larger than {MAX_BODY:,} bytes; a "
                                        f"rule set is at most {MAX_YAML_CHARS:,} characters "
                                        f"and a game {MAX_MOVES} moves.")
        return await self.app(scope, receive, send)


class SecurityHeaders:
    """Add the Content-Security-Policy (unless the route set its own) and the headers that
    keep the page from being framed or sniffed."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(k.lower() == b"content-security-policy" for k, _ in headers):
                    headers.append((b"content-security-policy", PAGE_POLICY.encode()))
                headers.extend(SECURITY_HEADERS)
                message = {**message, "headers": headers}
            await send(message)

        return await self.app(scope, receive, with_headers)
