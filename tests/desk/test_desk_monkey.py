"""A monkey at the keyboard: random keys on a game with the three Pair-o-Dice screens
never crash the desk, and everything it logged reads back as the chart prints it."""

from __future__ import annotations

import random
from pathlib import Path

from textual.widgets import Input

from tests.conftest import settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.pod import PodScreen
from tui.desk.screens.start import StartScreen
from tui.engine.combat import plain

KEYS = list("0123456789-x@ ") + [
    *("tab", "shift+tab", "enter", "escape", "backspace", "down", "up", "a", "d"),
    *("ctrl+r", "ctrl+t", "ctrl+n", "ctrl+g", "ctrl+o", "f9", "ctrl+y", "ctrl+l", "f1"),
    *("f2", "f3", "f4"),
    *("ctrl+r", "ctrl+r", "ctrl+r"),  # rolls more often
]


async def test_random_keys_never_crash_and_every_logged_cell_is_on_the_chart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "Monkey", ["pod-basic", "pod-super", "pod-ultra"], {})
    app = CrtDeskApp(saves_dir=tmp_path, game_path=path, rng=random.Random(11), player="monkey")
    keys = random.Random(2026)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        # Start with a valid combat so the monkey's rolls have something to log.
        screen = app.screen
        assert isinstance(screen, PodScreen)
        await pilot.press("8", "tab", "2")
        for _ in range(90):
            await pilot.press(keys.choice(KEYS))
        await pilot.pause()
        assert app.is_running
        # After all that, the desk still resolves a combat typed into a clean form.
        for _ in range(10):
            if isinstance(app.screen, PodScreen):
                break
            # Esc closes a dialog or the review; Enter on the start screen opens the game.
            await pilot.press("enter" if isinstance(app.screen, StartScreen) else "escape")
            await pilot.pause()
        screen = app.screen
        for field in screen.query(".factor").results(Input):
            field.value = "3"
        for field in screen.query("#morale-attack, #morale-defense").results(Input):
            field.value = ""
        await pilot.pause()
        await settle(pilot)
        before = len(saves.load_game(path).entries)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert len(saves.load_game(path).entries) == before + 1
    game = saves.load_game(path)
    tables = app.tables
    rolled = [e for e in game.entries if e["kind"] == "combat" and e.get("roll") is not None]
    for entry in rolled:
        chart = tables.chart(
            "pod-basic.crt" if entry["ruleset"] == "pod-basic" else "pod-super.crt"
        )
        assert entry["cell"] == plain(chart.cell(entry["roll"], entry["column"]))
