"""The served desk's guard: textual-serve's Server, extended (not forked) so that only pages
of the address it serves may drive a desk, and no more than a set number of desks run.

A web page anywhere may open a WebSocket to 127.0.0.1: the browser sends the page's
`Origin` with it, so a desk is started only for the origins the server is reached at. A
client that is no browser sends none; it could send any it liked, so refusing it would
protect nothing (a token in the URL would: see docs/sharing.md for serving beyond
localhost). Imported only by `crtdesk serve`: aiohttp and textual-serve load there alone.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.server import Server

# The names a loopback address is reached by from this machine's browser.
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def origin_of(url: str) -> str:
    """A URL's origin as a browser sends it: scheme://host[:port], the default port left off."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is None or (scheme, port) in (("http", 80), ("https", 443)):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def allowed_origins(public_url: str, host: str, port: int) -> frozenset[str]:
    """The page origins that may start a desk: the public URL's, and when it is served on a
    loopback address, each name this machine's browser may reach it by."""
    allowed = {origin_of(public_url)}
    if _loopback(host):
        allowed |= {origin_of(f"http://{name}:{port}") for name in _LOOPBACK_NAMES}
    return frozenset(allowed)


def _loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class DeskServer(Server):
    """textual-serve's Server with an Origin check and a cap on the desks running."""

    def __init__(self, command: str, *, max_desks: int, origins: frozenset[str], **kwargs) -> None:
        super().__init__(command, **kwargs)
        self.max_desks = max_desks
        self.origins = origins
        self.desks = 0

    def refusal(self, request: web.Request) -> web.Response | None:
        """Why this WebSocket gets no desk, as the response to send; None when it may."""
        origin = request.headers.get("Origin")
        if origin is not None and origin_of(origin) not in self.origins:
            return web.Response(
                status=403,
                text=f"crtdesk serve: a page of {origin} may not open a desk here; "
                f"open {self.public_url} instead\n",
            )
        if self.desks >= self.max_desks:
            return web.Response(
                status=503,
                text=f"crtdesk serve: {self.desks} desks are open, the most this server "
                f"runs (--max-desks {self.max_desks}); close a tab and reload\n",
            )
        return None

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        refused = self.refusal(request)
        if refused is not None:
            return refused
        self.desks += 1  # one event loop: counted and checked with no await between
        try:
            return await super().handle_websocket(request)
        finally:
            self.desks -= 1
