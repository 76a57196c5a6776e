"""The served desk's guard: textual-serve's Server, extended (not forked) so that only a
holder of the token it printed may drive a desk, only from a page of the address it serves,
and no more than a set number of desks run.

Every account of a host reaches its 127.0.0.1, with a client that sends any `Origin` it
likes or none: so on every address, loopback included, the server asks for a token, as
Jupyter does. The URL it prints carries it once; the page then keeps it in a cookie its
WebSocket sends (a client that is no browser may give it in the WebSocket's query instead).
A web page anywhere may open a WebSocket to 127.0.0.1 too, and the browser would send the
cookie with it: the browser names the page in `Origin`, so a desk is started only for the
origins the server is reached at. Imported only by `crtdesk serve`: aiohttp and
textual-serve load there alone.
"""

from __future__ import annotations

import hmac
import ipaddress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.server import Server

# The served page: textual-serve's, with the font it carries (no other host asked).
TEMPLATES = Path(__file__).with_name("served_page")

# The names a loopback address is reached by from this machine's browser.
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def token_cookie(port: int) -> str:
    """The cookie that keeps the token of the server on `port`: a browser sends a host's
    cookies to each of its ports, and two servers on one host keep one each."""
    return f"crtdesk_token_{port}"


_NO_TOKEN = "crtdesk serve: open the address with the token that the server printed\n"


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
    """textual-serve's Server with a token, an Origin check and a cap on the desks running."""

    def __init__(
        self,
        command: str,
        *,
        max_desks: int,
        origins: frozenset[str],
        token: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(command, **kwargs)
        if not token:
            raise ValueError("a served desk needs a token")
        self.max_desks = max_desks
        self.origins = origins
        self.token = token
        self.cookie = token_cookie(self.port)
        self.desks = 0

    async def on_startup(self, app: web.Application) -> None:
        """No banner of textual-serve's ("Serving ..."): `crtdesk serve` says where the
        desk is served once it knows it can listen."""

    def _has_token(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def _holds_token(self, request: web.Request) -> bool:
        """The request carries the token: the page's cookie, or in its query."""
        return self._has_token(request.cookies.get(self.cookie)) or self._has_token(
            request.query.get("token")
        )

    async def handle_index(self, request: web.Request) -> Any:
        """The page, for a browser holding the token (a cookie), or given it in the URL
        (kept in the cookie, then the page again without it in the address bar)."""
        if self._has_token(request.cookies.get(self.cookie)):
            return await super().handle_index(request)
        if self._has_token(request.query.get("token")):
            kept = {k: v for k, v in request.query.items() if k != "token"}
            page = web.HTTPFound(request.rel_url.with_query(kept))
            page.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
            raise page
        raise web.HTTPForbidden(text=_NO_TOKEN)

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """A file the desk hands its page, for a holder of the token only."""
        if not self._holds_token(request):
            raise web.HTTPForbidden(text=_NO_TOKEN)
        return await super().handle_download(request)

    def refusal(self, request: web.Request) -> web.Response | None:
        """Why this WebSocket gets no desk, as the response to send; None when it may."""
        if not self._holds_token(request):
            return web.Response(status=403, text=_NO_TOKEN)
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

    # textual-serve annotates its handler as returning a WebSocketResponse only; aiohttp takes
    # any response from a handler, and a refused socket gets a plain one.
    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        refused = self.refusal(request)
        if refused is not None:
            return refused
        self.desks += 1  # one event loop: counted and checked with no await between
        try:
            return await super().handle_websocket(request)
        finally:
            self.desks -= 1
