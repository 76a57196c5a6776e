"""Live two-player desks: entries another process appends to the open save show on the
desk (the log's rows, its markers, the header's turn), read from where the last one
ended, and the desk's own entries are never applied twice."""

from __future__ import annotations

import asyncio
import os
import random
import sys
import threading
import time
from pathlib import Path

from textual.widgets import Static

from tests.conftest import Desk, notes, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.review import ReviewScreen
from tui.desk.screens.ruleset import RulesetScreen
from tui.engine.combat import CombatInput, resolve
from tui.engine.text import entry_text
from tui.game.live import SaveWatcher
from tui.game.session import GameSession

COMBAT = CombatInput("pod-boom", step="crt", caf=9)


async def crtdesk(folder: Path, player: str, *args: str) -> str:
    """Run the CLI in a separate process, as the other player at another shell does."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tui.cli",
        *args,
        "--saves",
        str(folder),
        env={**os.environ, "CRTDESK_PLAYER": player},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()


def rows(screen: ReviewScreen) -> list[dict[str, str]]:
    """The review's rows shown, each as its cells by column."""
    assert screen.loaded is not None
    return [screen.loaded.rows[i].cells_by_key() for i in screen.shown_rows]


async def shown(app, seq: int, started: float) -> float:
    """Wait (on the desk's event, not a timer) until the desk applied entry `seq` read
    from the file; the seconds from `started`."""
    while app.game.entries[-1:] == [] or app.game.entries[-1]["seq"] < seq:
        await asyncio.wait_for(app.live_applied.wait(), timeout=10)
        app.live_applied.clear()
    return time.monotonic() - started


async def test_another_players_combat_marker_and_turn_show_on_the_open_desk(
    desk: Desk, tmp_path: Path
) -> None:
    folder = tmp_path / "saves"
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        combat_screen = app.screen
        assert isinstance(combat_screen, RulesetScreen)
        assert combat_screen.sub_title.startswith("Turn 1 ")
        await pilot.press("ctrl+l")
        await pilot.pause()
        await settle(pilot)
        log = app.screen
        assert isinstance(log, ReviewScreen) and rows(log) == []

        said = await crtdesk(
            folder,
            "bob",
            "resolve",
            "pod-boom",
            "--step",
            "crt",
            "--caf",
            "9",
            "--seed",
            "3",
            "--save",
            "game",
            "--note",
            "from the other shell",
        )
        await shown(app, 1, time.monotonic())
        await pilot.pause()
        assert "Saved as entry 1" in said
        [row] = rows(log)
        assert (row["seq"], row["who"], row["ruleset"]) == ("1", "bob", "Boom")
        assert app.game.entries[-1]["note"] == "from the other shell"

        await crtdesk(folder, "bob", "marker", "game", "add", "DG", "hex 0707", "--turns", "1")
        await shown(app, 2, time.monotonic())
        await pilot.pause()
        assert "hex 0707" in str(log.query_one("#review-markers", Static).content)

        await crtdesk(folder, "cy", "turn", "game")
        await shown(app, 3, time.monotonic())
        await pilot.pause()
        assert [r["who"] for r in rows(log)] == ["bob", "bob", "cy"]
        assert log.sub_title == "Turn 2 · 3 entries"
        # The DG placed for one turn in turn 1 holds through turn 2 (the count-down ruling).
        markers = str(log.query_one("#review-markers", Static).content)
        assert "DG 2.1 on hex 0707 (through this turn)" in markers
        assert log.table.cursor == 2  # the cursor follows the new rows
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is combat_screen and combat_screen.sub_title.startswith("Turn 2 ")
        assert app.game == saves.load_game(folder / "game.toml")
    watcher = app.session.watcher if app.session else None
    assert watcher is not None
    watcher.join(timeout=2)
    assert not watcher.running  # the watcher ends with the desk


async def test_the_desks_own_roll_is_applied_once_among_another_players(
    desk: Desk, tmp_path: Path
) -> None:
    folder = tmp_path / "saves"
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("1", "2", "tab", "3", "ctrl+r")  # the desk rolls 12 v 3, and logs it
        await settle(pilot)
        assert [(e["seq"], e["who"]) for e in app.game.entries] == [(1, "tester")]
        await crtdesk(
            folder,
            "bob",
            "resolve",
            "pod-basic",
            "--attack",
            "4",
            "--defense",
            "2",
            "--save",
            "game",
        )
        await shown(app, 2, time.monotonic())
        # The watcher read the desk's own entry too: it is in the game once.
        assert [e["seq"] for e in app.game.entries] == [1, 2]
        assert app.game == saves.load_game(folder / "game.toml")
        assert app.game.entries[-1]["who"] == "bob"
        await pilot.pause()
        assert [n for n in notes(app) if "bob" in n] == [
            "bob logged entry 2 (pod-basic): " + entry_text(app.game.entries[-1])[1]
        ]


def test_the_watcher_hands_on_appended_entries_and_a_whole_reload_when_rewritten(
    tmp_path: Path,
) -> None:
    path = tmp_path / "game.toml"
    saves.new_game(path, "Watched", ["pod-boom"], who="ann")
    got: list[object] = []
    news = threading.Event()

    def take(value: object) -> None:
        got.append(value)
        news.set()

    watcher = SaveWatcher(saves.load_game(path), take, take, take, interval=0.02)
    watcher.start()
    try:
        saves.append_combat(path, COMBAT, resolve(COMBAT, rng=random.Random(1)), who="bob")
        assert news.wait(5)
        [entries] = got
        assert [(e["seq"], e["who"]) for e in entries] == [(1, "bob")]
        got.clear()
        news.clear()
        # Cut back to the header: the watcher reads the whole file again.
        data = path.read_bytes()
        path.write_bytes(data[: data.index(b"\n[[log]]\n")])
        assert news.wait(5)
        [game] = got
        assert isinstance(game, saves.Game) and game.entries == []
        assert (watcher.offset, watcher.seq) == (path.stat().st_size, 0)
    finally:
        watcher.stop()
        watcher.join(timeout=2)
    assert not watcher.running


def test_a_reload_older_than_what_the_watcher_brought_is_not_taken(tmp_path: Path) -> None:
    """The desk's save job re-read the file (another player's entry came in between), but
    the watcher has since applied a newer entry still: the older reading is dropped."""
    path = tmp_path / "game.toml"
    saves.new_game(path, "Race", ["pod-boom"], who="ann")
    app = CrtDeskApp(saves_dir=tmp_path, player="ann")
    for n in range(2):
        saves.append_combat(path, COMBAT, resolve(COMBAT, rng=random.Random(n)), who="bob")
    older = saves.load_game(path)
    own = older.entries[-1]
    saves.advance_turn(path, who="bob")
    session = GameSession(app, path, saves.load_game(path), player="ann")
    session.applied(own, older)
    assert [e["seq"] for e in session.game.entries] == [1, 2, 3] and session.game.turn == 2
    session.applied(own, saves.load_game(path))  # as new as the game: taken
    assert session.game == saves.load_game(path)


async def test_only_other_players_entries_are_announced(desk: Desk) -> None:
    from tui.game.messages import GameChanged

    async with desk(rulesets=["rivets"]) as (app, pilot):
        screen = app.screen
        mine = {"seq": 1, "kind": "turn", "turn": 2, "who": app.player}
        theirs = {"seq": 2, "kind": "turn", "turn": 3, "who": "bob"}
        screen.post_message(GameChanged(app.game.path, [mine, theirs]))
        await pilot.pause()
        said = [n for n in notes(app) if "logged entry" in n]
        assert said == ["bob logged entry 2 (turn): Turn 3 begins."]
