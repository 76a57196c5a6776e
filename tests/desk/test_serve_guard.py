"""The served desk's guard: a WebSocket from a page of another origin starts no desk, a page
of the address served does, and no more desks run than `--max-desks`."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from tests.desk.test_serve import free_port, wait_listening
from tui.cli import main
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


async def _connect(session: aiohttp.ClientSession, port: int, origin: str):
    return await session.ws_connect(
        f"ws://127.0.0.1:{port}/ws?width=80&height=24", headers={"Origin": origin}
    )


async def _refused(session: aiohttp.ClientSession, port: int, origin: str) -> int:
    with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
        await _connect(session, port, origin)
    return caught.value.status


async def test_a_foreign_origin_is_refused_and_the_desks_are_capped(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", "--port", str(port), "--saves", str(folder)]
        + ["--max-desks", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its desks are its children: stopped with it below
    )
    try:
        await asyncio.to_thread(wait_listening, port, server)
        async with aiohttp.ClientSession() as session:
            assert await _refused(session, port, "http://evil.example") == 403
            assert await _refused(session, port, f"http://127.0.0.1:{port + 1}") == 403
            page = await session.get(f"http://127.0.0.1:{port}/")
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
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)


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
            message = await desk.receive(timeout=20)
            assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)
            await desk.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
