"""The one way the Pilot tests open the desk: `desk(...)` gives the running app at 80x24
on a fresh saves folder (optionally with a game of the given rulesets), settled."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from tui import saves
from tui.desk.app import CrtDeskApp
from tui.engine import registry

SIZE = (80, 24)

Desk = Callable[..., AbstractAsyncContextManager[tuple[CrtDeskApp, Pilot]]]


def make_app(
    folder: Path, seed: int = 7, rulesets: list[str] | None = None, title: str = "Test game"
) -> CrtDeskApp:
    """The desk on `folder`; with `rulesets`, opened on a new game of them."""
    folder.mkdir(exist_ok=True)
    if rulesets is None:
        return CrtDeskApp(saves_dir=folder, rng=random.Random(seed), player="tester")
    saves.new_game(folder / "game.toml", title, rulesets, {})
    return CrtDeskApp(
        saves_dir=folder, game_path=folder / "game.toml", rng=random.Random(seed), player="tester"
    )


@pytest.fixture(autouse=True, scope="session")
def _own_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The suite keeps parsed tables files in a folder of its own, not the player's cache
    (subprocesses inherit it)."""
    os.environ["CRTDESK_CACHE"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(autouse=True)
def _registry_as_it_was() -> Iterator[None]:
    """Each test starts with the rulesets the one before it started with: a chart a test
    read (or a ruleset it registered) is forgotten after it, as a new process would."""
    before = registry.rulesets()
    yield
    for ruleset in registry.rulesets():
        if ruleset not in before:
            registry.unregister(ruleset.id)
    for ruleset in before:
        if registry.known(ruleset.id) and registry.get(ruleset.id) is not ruleset:
            registry.register(ruleset)


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    """`async with desk(rulesets=[...], seed=7) as (app, pilot):` the running desk."""

    @asynccontextmanager
    async def opened(
        rulesets: list[str] | None = None, seed: int = 7, size: tuple[int, int] = SIZE
    ) -> AsyncIterator[tuple[CrtDeskApp, Pilot]]:
        app = make_app(tmp_path / "saves", seed, rulesets)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            yield app, pilot

    return opened


async def settle(pilot: Pilot) -> None:
    """Wait for every worker (rolls, saves) and the screen updates they post."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    # A result shown can bring a scrollbar in: let that layout settle too.
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def fresh_python(probe: str) -> Any:
    """What `probe`, run in a fresh interpreter, prints as JSON on its last line (for what
    a process imports or does from its start, which this one has already done)."""
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def screen_text(app: CrtDeskApp) -> str:
    """Every Static on the active screen, as the player reads it."""
    return "\n".join(str(s.content) for s in app.screen.query("Static").results(Static))


def notes(app: CrtDeskApp) -> list[str]:
    """The notifications shown, oldest first."""
    return [str(n.message) for n in app._notifications]


def crtdesk_cli(folder: Path, *argv: str, player: str = "alice") -> str:
    """`crtdesk ARGV --saves FOLDER` in a subprocess, as a player runs it at a shell: its
    output, once it exited 0 with no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv, "--saves", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CRTDESK_PLAYER": player, "COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout
