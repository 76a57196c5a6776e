"""`crtdesk serve`: the desk in a browser. The command line's checks, what each browser tab
runs, and the desk itself in Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Route, sync_playwright

import tui.cli.serve
import tui.desk.served
from tui import saves
from tui.cli import main
from tui.cli.serve import desk_command, is_local, public_url, start_line

CHROMIUM = "/usr/bin/chromium"

# xterm.js draws the terminal on a canvas: keep each Terminal the page makes (the first
# assignment of a `terminal` property), so the test can read the text on its screen.
CATCH_TERMINAL = """
(() => {
  window.__terminals = [];
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    get() { return undefined; },
    set(value) {
      Object.defineProperty(this, "terminal", {
        value, writable: true, configurable: true, enumerable: true,
      });
      if (value && value.buffer) window.__terminals.push(value);
    },
  });
  window.__screen = () => {
    const term = window.__terminals[0];
    if (!term) return "";
    const buffer = term.buffer.active;
    const lines = [];
    for (let y = 0; y < term.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      lines.push(line ? line.translateToString(true) : "");
    }
    return lines.join("\\n");
  };
})();
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, server: subprocess.Popen, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server stopped"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


def printed_token(line: str) -> str:
    """The token in the address a start line gives."""
    found = re.search(r"/\?token=([A-Za-z0-9_-]+), ", line)
    assert found, f"no token in {line!r}"
    return found[1]


def desks_on(folder: Path) -> list[int]:
    """The ids of the desk processes running on `folder` (a browser tab's each)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"tui.startup" in words and str(folder).encode() in words and b"serve" not in words:
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["--port", "0"], "--port '0': expected a whole number from 1 to 65535"),
        (["--port", "65536"], "--port '65536': expected a whole number from 1 to 65535"),
        (["--port", "eighty"], "--port 'eighty': expected a whole number from 1 to 65535"),
        (["--host", "my host"], "--host 'my host': expected an address such as 127.0.0.1"),
        (["--host", ""], "--host '': expected an address such as 127.0.0.1"),
        (["--public-url", "desk.org"], "--public-url 'desk.org': expected an address such as"),
        (["--saves=-x"], "--saves '-x': a folder name may not start with '-' (write ./-x)"),
    ],
)
def test_a_bad_serve_flag_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    assert main(["serve", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"crtdesk: {line}") and err.count("\n") == 1, err


def test_the_page_names_the_address_it_was_served_on() -> None:
    assert public_url(None, "127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert public_url(None, "::1", 8001) == "http://[::1]:8001"
    assert public_url("https://desk.example.org/", "127.0.0.1", 8000) == (
        "https://desk.example.org"
    )


def test_each_browser_tab_runs_the_desk_on_the_saves_folder_and_no_file(tmp_path: Path) -> None:
    words = shlex.split(desk_command(tmp_path / "my saves"))
    assert words == [sys.executable, "-m", "tui.startup", "--saves", str(tmp_path / "my saves")]


def test_the_start_line_says_who_can_reach_the_desk() -> None:
    assert is_local("127.0.0.1") and is_local("localhost") and is_local("::1")
    assert not is_local("0.0.0.0") and not is_local("192.168.1.5")
    assert "127.0.0.1 only (this machine; its other accounts need this address, its token)" in (
        start_line("127.0.0.1", 8000, "http://x")
    )
    assert "has this address (its token)" in start_line("0.0.0.0", 8000, "http://x")
    assert "on 0.0.0.0 (every address of this host)" in start_line("0.0.0.0", 8000, "http://x")


def test_a_port_already_taken_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", "serve", "--port", str(port)]
            + ["--saves", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 2
    assert done.stderr.startswith(f"crtdesk: cannot listen on 127.0.0.1 port {port}: ")
    assert done.stderr.count("\n") == 1, done.stderr
    # Nothing said the desk was served first (the start line and a "Serving ..." banner did).
    assert done.stdout == "", done.stdout


# What a page asks its browser to fetch: src= and href= attributes, CSS url() and @import.
_FETCHED = re.compile(
    r"""(?:src|href)\s*=\s*["']([^"']+)["']|url\(\s*["']?([^"')]+)|@import\s+["']([^"']+)"""
)
# An address written in the page that is a name, not a request (the logo's SVG namespace).
_NAMESPACES = ("http://www.w3.org/2000/svg",)


def test_the_served_page_asks_no_other_host_for_its_font(tmp_path: Path) -> None:
    """Offline, a page that asks a font host on the internet waits for it: the page, and
    every stylesheet it loads, fetch only from the desk's own address, and the font the
    terminal names is one the desk serves itself."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", "--port", str(port), "--saves", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    own = f"http://127.0.0.1:{port}/"
    try:
        assert server.stdout is not None
        token = printed_token(server.stdout.readline())
        wait_listening(port, server)
        # A browser: the page's cookie (the token) kept for the page again.
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())

        def fetch(url: str) -> tuple[int, bytes]:
            with browser.open(url, timeout=20) as answer:
                return answer.status, answer.read()

        status, body = fetch(f"{own}?token={token}")
        page = body.decode()
        assert status == 200 and "data-session-websocket-url" in page
        written = set(re.findall(r"https?://[^\s\"'<>)]+", page)) - set(_NAMESPACES)
        assert all(url.startswith(own) for url in written), written
        asked = [next(g for g in found if g) for found in _FETCHED.findall(page)]
        asked = [url for url in asked if url not in _NAMESPACES]
        assert any(url.endswith(".ttf") for url in asked), asked  # a font it carries
        for url in asked:
            full = url if url.startswith("http") else own + url.lstrip("/")
            assert full.startswith(own), url
            status, body = fetch(full)
            assert status == 200 and body, url
            if url.endswith(".css"):  # a stylesheet asks no other host either
                css = body.decode()
                assert not re.search(r"@import|url\(\s*[\"']?https?://", css), url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)


def test_the_served_page_is_textual_serves_with_the_font_it_carries() -> None:
    """The desk serves textual-serve's page with one change, its font: a newer
    textual-serve's page is brought in by hand, and this says when."""
    import textual_serve

    theirs = (Path(textual_serve.__file__).parent / "templates" / "app_index.html").read_text()
    ours = (Path(tui.desk.served.__file__).with_name("served_page") / "app_index.html").read_text()
    font_host = re.compile(
        r'    <link\n      rel="stylesheet"\n      href="https://fonts[^"]*"\n    />\n'
    )
    own_font = re.compile(r"    \{#.*?#\}\n    <style>\n      @font-face.*?</style>\n", re.S)
    assert len(font_host.findall(theirs)) == 1 and len(own_font.findall(ours)) == 1
    assert font_host.sub("", theirs) == own_font.sub("", ours)


def test_the_desk_in_a_browser(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "skirmish.toml", "Browser skirmish", ["pod-basic"], who="ann")
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", "--port", str(port), "--saves", str(folder)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "CRTDESK_PLAYER": "web"},
        start_new_session=True,  # its desks are its children: stopped with it below
    )
    shot = tmp_path / "desk.png"
    try:
        with sync_playwright() as playwright:
            # The browser starts while the server does.
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            wait_listening(port, server)
            first = (tmp_path / "server.log").read_text().splitlines()[0]
            token = printed_token(first)
            assert first.startswith(
                f"crtdesk serve: the desk on http://127.0.0.1:{port}/?token={token}, "
            )
            assert "listening on 127.0.0.1 only" in first
            page = browser.new_page(viewport={"width": 1000, "height": 640})
            page.add_init_script(CATCH_TERMINAL)
            # Only the server's own pages are fetched: the page asks no other host (its
            # font included), which is checked once the desk is shown.
            elsewhere: list[str] = []

            def own_only(route: Route) -> None:
                if route.request.url.startswith(f"http://127.0.0.1:{port}/"):
                    route.continue_()
                else:
                    elsewhere.append(route.request.url)
                    route.abort()

            page.route("**/*", own_only)
            page.goto(f"http://127.0.0.1:{port}/?token={token}")  # the address printed
            assert page.url == f"http://127.0.0.1:{port}/"  # the token kept, not shown

            def screen_shows(*texts: str) -> str:
                """The terminal's text, once it shows every one of `texts`."""
                wanted = " && ".join(f"text.includes({t!r})" for t in texts)
                page.wait_for_function(
                    f"() => {{ const text = window.__screen(); return {wanted}; }}"
                )
                return page.evaluate("window.__screen()")

            start = screen_shows("Saves in", "Browser skirmish")
            assert "skirmish" in start  # the file's name, beside its title
            page.locator(".textual-terminal").click()
            page.keyboard.press("Enter")  # opens the highlighted game
            before = screen_shows("Attackers")
            assert "4-1" not in before
            page.keyboard.type("12")
            page.keyboard.press("Tab")
            page.keyboard.type("3")
            after = screen_shows("4-1")
            assert after != before
            page.screenshot(path=shot)
            assert elsewhere == []
            assert len(desks_on(folder.resolve())) == 1  # this tab's desk
            browser.close()
        # Closing the tab ends its desk.
        deadline = time.monotonic() + 15
        while desks_on(folder.resolve()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert desks_on(folder.resolve()) == []
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        log.close()
    assert server.returncode is not None
    assert shot.stat().st_size > 10_000


async def test_a_game_named_in_the_browser_stays_in_the_saves_folder(desk, tmp_path: Path) -> None:
    """What a browser player types is a game's title; its file is made from it in the
    saves folder, whatever path it spells."""
    async with desk() as (app, pilot):
        app.show_start()  # new games are made from the start screen
        await pilot.pause()
        app.create_game("../../etc/passwd", ["pod-basic"], {})
        await pilot.pause()
        assert app.game is not None and app.game.title == "../../etc/passwd"
        assert app.game.path == app.saves_dir / "etc-passwd.toml"
    made = sorted(p.name for p in (tmp_path / "saves").glob("*.toml"))
    assert made == ["etc-passwd.toml", "first-game.toml"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saves"]
