"""The served desk's guard: on every address, localhost included, neither the page nor a
desk without the token the server printed; a WebSocket from a page of another origin starts
no desk, a page of the address served does; no more desks run than `--max-desks`; bound to
every address, the address printed is one a browser opens."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests.desk.test_serve import free_port, wait_listening
from tui.cli import main
from tui.cli.serve import public_url
from tui.desk.served import allowed_origins, origin_of


def test_an_origin_is_read_as_a_browser_sends_it() -> None:
    assert origin_of("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert origin_of("HTTPS://Desk.Example.org:443/x") == "https://desk.example.org"
    assert origin_of("http://[::1]:8001") == "http://[::1]:8001"


def test_the_origins_allowed_are_the_address_served() -> None:
    local = allowed_origins("http://127.0.0.1:8000", "127.0.0.1", 8000)
    assert "http://localhost:8000" in local and "http://127.0.0.1:8000" in local
    assert "http://evil.example" not in local and "http://127.0.0.1:8001" not in local
    proxied = allowed_origins("https://desk.example.org", "127.0.0.1", 8000)
    assert "https://desk.example.org" in proxied
    public = allowed_origins("http://10.0.0.5:8000", "0.0.0.0", 8000)
    assert public == frozenset({"http://10.0.0.5:8000"})


@pytest.mark.parametrize("value", ["0", "101", "many", "-1"])
def test_a_bad_max_desks_is_one_line(capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert main(["serve", "--max-desks", value]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"crtdesk: --max-desks {value!r}: expected a whole number from 1 to")


async def _connect(session: aiohttp.ClientSession, port: int, origin: str, token: str = ""):
    """A WebSocket from a page of `origin`; with `token` in its query when given (else the
    session's cookie, or none, goes with it)."""
    query = f"&token={token}" if token else ""
    return await session.ws_connect(
        f"ws://127.0.0.1:{port}/ws?width=80&height=24{query}", headers={"Origin": origin}
    )


async def _refused(session: aiohttp.ClientSession, port: int, origin: str, token: str = "") -> int:
    with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
        await _connect(session, port, origin, token)
    return caught.value.status


async def test_a_foreign_origin_is_refused_and_the_desks_are_capped(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    port = free_port()
    server, first = await asyncio.to_thread(_start, folder, "--port", str(port), "--max-desks", "1")
    try:
        url, token = _printed_url(first)
        await asyncio.to_thread(wait_listening, port, server)
        # A page of another site holding the token (the browser would send the cookie).
        async with aiohttp.ClientSession() as session:
            assert await _refused(session, port, "http://evil.example", token) == 403
            assert await _refused(session, port, f"http://127.0.0.1:{port + 1}", token) == 403
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
            page = await session.get(f"{url}/?token={token}")  # the cookie kept
            assert page.status == 200 and f"ws://127.0.0.1:{port}/ws" in await page.text()
            desk = await _connect(session, port, f"http://localhost:{port}")
            message = await desk.receive(timeout=20)  # the desk's first bytes
            assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)
            # One desk runs: a second tab, from the right page, is told to wait.
            assert await _refused(session, port, f"http://127.0.0.1:{port}") == 503
            await desk.close()
            for _ in range(100):  # the desk stops, and its place is free again
                try:
                    again = await _connect(session, port, f"http://127.0.0.1:{port}")
                except aiohttp.WSServerHandshakeError:
                    await asyncio.sleep(0.1)
                    continue
                await again.close()
                break
            else:
                raise AssertionError("the closed desk's place was never freed")
    finally:
        _stop(server)


async def test_beyond_localhost_the_desk_needs_the_printed_token(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", "--host", "0.0.0.0", "--port", str(port)]
        + ["--public-url", url, "--saves", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        assert server.stdout is not None
        first = await asyncio.to_thread(server.stdout.readline)
        assert f"the desk on {url}/?token=" in first and "listening on 0.0.0.0" in first
        token = first.split("?token=")[1].split(",")[0]
        assert len(token) >= 24
        await asyncio.to_thread(wait_listening, port, server)
        async with aiohttp.ClientSession() as stranger:
            assert (await stranger.get(f"{url}/")).status == 403
            assert (await stranger.get(f"{url}/?token=guess")).status == 403
            assert await _refused(stranger, port, url) == 403
        # A browser keeps a cookie from an IP address; aiohttp only when told it may.
        jar = aiohttp.CookieJar(unsafe=True)
        async with aiohttp.ClientSession(cookie_jar=jar) as player:
            page = await player.get(f"{url}/?token={token}")
            assert page.status == 200 and str(page.url) == f"{url}/"  # the token left the URL
            desk = await _connect(player, port, url)  # the cookie goes with it
            await _desk_answers(desk)
    finally:
        _stop(server)


def _stop(server: subprocess.Popen[str]) -> None:
    """The server and its desks (its session) stopped."""
    os.killpg(server.pid, signal.SIGTERM)
    server.wait(timeout=20)


async def _desk_answers(desk: aiohttp.ClientWebSocketResponse) -> None:
    """A desk was started for the socket: its first bytes arrive; then it is let go."""
    message = await desk.receive(timeout=20)
    assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)
    await desk.close()


def _start(folder: Path, *argv: str) -> tuple[subprocess.Popen[str], str]:
    """`crtdesk serve ARGV` started, with the one line it printed first."""
    server = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", *argv, "--saves", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its desks are its children: stopped with it
    )
    assert server.stdout is not None
    return server, server.stdout.readline()


def _printed_url(line: str) -> tuple[str, str]:
    """The address a start line gives, and its token."""
    found = re.search(r"the desk on (\S+)/\?token=([A-Za-z0-9_-]+), ", line)
    assert found, f"no address with a token in {line!r}"
    return found[1], found[2]


async def test_on_localhost_every_websocket_needs_the_printed_token(tmp_path: Path) -> None:
    """Another account of the host reaches 127.0.0.1 too, with a client that sends no Origin
    (aiohttp sends none unless told): without the token it gets neither the page nor a desk."""
    folder = tmp_path / "saves"
    folder.mkdir()
    port = free_port()
    server, first = await asyncio.to_thread(_start, folder, "--port", str(port))
    try:
        await asyncio.to_thread(wait_listening, port, server)
        url = f"http://127.0.0.1:{port}"
        ws = f"ws://127.0.0.1:{port}/ws?width=80&height=24"
        async with aiohttp.ClientSession() as eve:
            # No token, and no Origin: no desk, and no page.
            with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
                await eve.ws_connect(ws)
            assert caught.value.status == 403
            assert (await eve.get(f"{url}/")).status == 403
            assert (await eve.get(f"{url}/download/x")).status == 403
            printed, token = _printed_url(first)
            assert printed == url and len(token) >= 24
            assert (await eve.get(f"{url}/?token={token[:-1]}")).status == 403
            for asked, headers in [
                (f"{ws}&token=", {}),
                (f"{ws}&token={token[:-1]}", {}),  # a wrong token
                (f"{ws}&token={token}", {"Origin": "http://evil.example"}),
                (f"{ws}&token={token}", {"Origin": f"http://127.0.0.1:{port + 1}"}),
            ]:
                with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
                    await eve.ws_connect(asked, headers=headers)
                assert caught.value.status == 403, (asked, headers)
            # With the token, and no Origin: the desk, its first bytes on the socket.
            desk = await eve.ws_connect(f"{ws}&token={token}")
            await _desk_answers(desk)
    finally:
        _stop(server)


def _an_address_of_this_host(host: str) -> bool:
    """True when this host can listen on `host`: it is one of its addresses."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.create_server((host.strip("[]"), 0), family=family):
            return True
    except OSError:
        return False


@pytest.mark.parametrize("everywhere", ["0.0.0.0", "::"])
def test_bound_to_every_address_the_url_names_this_host(everywhere: str) -> None:
    url = public_url(None, everywhere, 8000)
    host = urlsplit(url).hostname or ""
    assert url == f"http://{'[' + host + ']' if ':' in host else host}:8000"
    assert host not in ("0.0.0.0", "::", "")
    assert host == socket.gethostname() or _an_address_of_this_host(host), url
    assert public_url("https://desk.example.org", everywhere, 8000) == "https://desk.example.org"


async def test_bound_to_0_0_0_0_the_printed_url_opens_the_desk(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    port = free_port()
    server, first = await asyncio.to_thread(
        _start, folder, "--host", "0.0.0.0", "--port", str(port)
    )
    try:
        url, token = _printed_url(first)
        assert "0.0.0.0" not in url and url.endswith(f":{port}"), first
        assert "listening on 0.0.0.0 (every address of this host)" in first, first
        await asyncio.to_thread(wait_listening, port, server)
        # As a browser: the page by the printed address, then its WebSocket from that page.
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as player:
            page = await player.get(f"{url}/?token={token}")
            assert page.status == 200 and str(page.url) == f"{url}/"
            ws = url.replace("http://", "ws://", 1)
            assert f"{ws}/ws" in await page.text()  # the page's own WebSocket, not 0.0.0.0's
            desk = await player.ws_connect(f"{ws}/ws?width=80&height=24", headers={"Origin": url})
            await _desk_answers(desk)
    finally:
        _stop(server)
