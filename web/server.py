"""Running `yz serve`: uvicorn on a socket bound first, with deadlines uvicorn lacks.

uvicorn closes a keep-alive connection that stays idle between requests, but not one that
never finishes a request: a client sending a header line every few seconds, or nothing at all
after connecting, would hold its connection (and a file descriptor) forever. Here every
request must arrive whole (headers and body) within `request_deadline` seconds of its first
byte, or of the connection's opening; and at most `max_connections` are open at once (a new
one closes the oldest that is still waiting to send a request), so a flood of them can neither
exhaust the process's file descriptors nor lock other clients out.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Callable

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from yz.rules import InputError

from .settings import WebSettings

KEEP_ALIVE_SECONDS = 5  # idle time between two requests of one connection
BACKLOG = 128  # connections the kernel holds before they are accepted
# A request is whole when the client has nothing more to send in it.
_REQUEST_SENT = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)


class DeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request and a connection cap
    (see the module docstring)."""

    request_deadline = 10.0
    max_connections = 64

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._opened = self.loop.time()
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            # Make room by closing the oldest connection that is waiting for a request (one
            # still sending its headers, or idle between two), so a flood of slow connections
            # cannot lock others out; if every one is being answered, refuse this one.
            waiting = [c for c in self.connections if c is not self
                       and isinstance(c, DeadlineProtocol) and c._waiting_for_request()]
            oldest = min(waiting, key=lambda c: c._opened, default=self)
            oldest.transport.abort()
            # It leaves the count now, not when its close is processed a loop turn later:
            # the connections accepted in the meantime must not pick it again.
            self.connections.discard(oldest)
            if oldest is self:
                return
        self._arm()

    def _waiting_for_request(self) -> bool:
        answering = self.cycle is not None and not self.cycle.response_complete
        return not answering and self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state in _REQUEST_SENT:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_deadline, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state not in _REQUEST_SENT and not self.transport.is_closing():
            self.transport.abort()


def protocol_for(settings: WebSettings) -> type[DeadlineProtocol]:
    """The protocol class with this server's deadline and connection cap."""
    return type("ServeProtocol", (DeadlineProtocol,), {
        "request_deadline": settings.request_deadline,
        "max_connections": settings.max_connections})


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free one), or InputError saying why not."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise InputError(f"host: '{host}' is not an address of this machine ({exc}).",
                         param="host") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InputError(f"port: {port} on {host} is already in use (another yz serve, or "
                             "another program); give another port.", param="port") from None
        raise InputError(f"host: cannot listen on {host} port {port} ({exc.strerror or exc}).",
                         param="host") from None
    sock.setblocking(False)
    return sock


def make_server(settings: WebSettings, report=None):
    """The uvicorn server of the app, with this server's protocol and limits (`report`: what
    opening the settings' stores says)."""
    import uvicorn

    from .app import create_app

    app = create_app(settings) if report is None else create_app(settings, report)
    config = uvicorn.Config(app, http=protocol_for(settings), ws="none",
                            lifespan="on", log_level="warning", backlog=BACKLOG,
                            timeout_keep_alive=KEEP_ALIVE_SECONDS,
                            # Connections are capped by the protocol (which makes room);
                            # uvicorn's own cap, a plain-text 503, is never reached.
                            limit_concurrency=settings.max_connections + 1)
    return uvicorn.Server(config)


def serve(settings: WebSettings, sock: socket.socket,
          on_start: Callable[[str], None] | None = None, report=None) -> None:
    """Serve the app on a bound socket until interrupted."""
    server = make_server(settings, report)
    if on_start is not None:
        host, port = sock.getsockname()[:2]
        on_start(f"http://{f'[{host}]' if ':' in host else host}:{port}/")
    server.run(sockets=[sock])
