"""The game session: the one owner of the open game. It appends in a worker and applies
the entry (or reads the game again when another writer's entries came in between), a game
option goes through it, and a save opened from the saves list shows its screen at once,
filled in once the session has read it off the UI thread."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from tests.conftest import Desk, notes, settle
from tests.review_save import campaign
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.rivets import RivetsScreen
from tui.desk.screens.start import StartScreen
from tui.desk.widgets.markers import MarkerPanel
from tui.game import session as session_module
from tui.game.session import SaveState


def counted_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of the open save from now on, by the thread that made it."""
    threads: list[str] = []
    real = session_module.read_game

    def load(path: Path) -> saves.Game:
        threads.append(threading.current_thread().name)
        return real(path)

    monkeypatch.setattr(session_module, "read_game", load)
    return threads


def kept(game: saves.Game) -> saves.Game:
    """A game as the desk keeps it open: its last entries only."""
    return replace(game, entries=game.entries[-session_module.KEPT_ENTRIES :])


async def test_an_append_is_applied_to_the_game_and_told_to_the_screens(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["rivets"]) as (app, pilot):
        session, screen = app.session, app.screen
        assert session is not None and isinstance(screen, RivetsScreen)
        loads = counted_loads(monkeypatch)
        app.live_applied.clear()
        states: list[SaveState] = []
        path = session.path
        session.next_turn(done=states.append)
        await settle(pilot)
        assert [state.status for state in states] == ["saved"]
        assert app.game is not None and app.game.turn == 2
        assert [entry["seq"] for entry in app.game.entries] == [1]
        assert loads == []  # applied, not read again
        assert app.game == saves.load_game(path)
        # Told by message: the app, and the screen (its header; `done` redrew nothing).
        assert app.live_applied.is_set()
        assert screen.sub_title.startswith("Turn 2 ")


async def test_another_writers_entry_in_between_makes_the_session_read_again(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["rivets"]) as (app, pilot):
        session = app.session
        assert session is not None and session.watcher is not None
        session.watcher.stop()  # the other writer's entry is not seen before the append
        session.watcher.join(timeout=2)
        path = session.path
        saves.add_marker(path, "DG", "hex 0707", who="bob")
        loads = counted_loads(monkeypatch)
        states: list[SaveState] = []
        session.next_turn(done=states.append)
        await settle(pilot)
        assert states[0].entry is not None and states[0].entry["seq"] == 2
        assert len(loads) == 1 and loads[0] != threading.main_thread().name
        assert [e["who"] for e in app.game.entries] == ["bob", "tester"]
        assert app.game == saves.load_game(path)


async def test_a_game_option_is_set_through_the_session_off_the_ui_thread(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["pod-ultra"]) as (app, pilot):
        writers: list[str] = []
        real = saves.set_option

        def set_option(*args: object, **kwargs: object) -> dict:
            writers.append(threading.current_thread().name)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(saves, "set_option", set_option)
        assert app.session is not None
        app.session.set_option("mines_cdf", 3)
        assert app.game is not None and app.game.options["mines_cdf"] == 2  # not yet
        await settle(pilot)
        assert writers and writers[0] != threading.main_thread().name
        assert app.game.options["mines_cdf"] == 3
        assert app.game == saves.load_game(app.game.path)
        assert "Game option mines_cdf set to 3 (logged)." in notes(app)


async def test_a_long_save_opened_from_the_list_shows_at_once_and_fills_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    path, _ = campaign(folder, 1000)
    on_file = saves.load_game(path)
    assert on_file.markers and on_file.turn > 1
    # The read waits until the screen has been checked: shown, and not yet read.
    checked = threading.Event()
    readers: list[str] = []
    real = session_module.read_game

    def held_load(read: Path) -> saves.Game:
        readers.append(threading.current_thread().name)
        checked.wait(timeout=30)
        return real(read)

    app = CrtDeskApp(saves_dir=folder, player="tester")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        monkeypatch.setattr(session_module, "read_game", held_load)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RivetsScreen)
        assert app.session is not None and not app.session.loaded
        # What the saves list knew: the title, the rulesets and the turn.
        assert screen.title == on_file.title
        assert screen.sub_title.startswith(f"Turn {on_file.turn} ")
        panel = screen.query_one(MarkerPanel)
        assert "reading the markers" in str(panel.content)
        # A turn asked for while the save is read waits for the read, then follows it.
        await pilot.press("ctrl+s", "y")
        await pilot.pause()
        assert app.game is not None and app.game.entries == []
        checked.set()
        await settle(pilot)
        assert readers and readers[0] != threading.main_thread().name
        assert app.session.loaded
        # The desk keeps the last entries; the turn and markers come from every entry.
        assert app.game is not None and len(app.game.entries) == session_module.KEPT_ENTRIES
        assert app.game.entries[-1]["seq"] == on_file.entries[-1]["seq"] + 1
        assert app.game.turn == on_file.turn + 1
        assert app.game == kept(saves.load_game(path))
        assert screen.sub_title.startswith(f"Turn {on_file.turn + 1} ")
        assert "reading" not in str(panel.content) and "marker" in str(panel.content)


async def test_a_save_that_cannot_be_read_when_opened_goes_back_to_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "game.toml", "Gone bad", ["rivets"], {})
    app = CrtDeskApp(saves_dir=folder, player="tester")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        (folder / "game.toml").write_text("title = [unclosed\n")  # broken after it was listed
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert app.session is not None and app.session.closed and not app.session.loaded
        assert any("game.toml" in note for note in notes(app)), notes(app)


async def test_a_game_option_read_after_the_screen_is_shown_reaches_its_form(
    tmp_path: Path,
) -> None:
    """The saves list does not know a game's options: the form shows the default mines CDF
    until the save is read, then the game's own (and logs nothing for it)."""
    from tui.desk.screens.pod import PodScreen
    from tui.desk.widgets.combat import Cycle

    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "ultra.toml"
    saves.new_game(path, "Ultra", ["pod-ultra"], {})
    saves.set_option(path, "mines_cdf", 3, who="bob")
    app = CrtDeskApp(saves_dir=folder, player="tester")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PodScreen) and app.session is not None and app.session.loaded
        assert screen.query_one("#mines-cdf", Cycle).value == 3
        assert [entry["kind"] for entry in saves.load_game(path).entries] == ["option"]


async def test_a_repair_runs_off_the_ui_thread_and_every_screen_hears_how_it_went(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.game.messages import SaveRepaired

    async with desk(rulesets=["rivets"]) as (app, pilot):
        session, screen = app.session, app.screen
        assert session is not None
        threads: list[str] = []
        real = saves.repair_save

        def repair_save(path: Path, **how: Any) -> saves.Repaired:
            threads.append(threading.current_thread().name)
            return real(path, **how)

        monkeypatch.setattr(saves, "repair_save", repair_save)
        heard: list[SaveRepaired] = []
        post = screen.post_message

        def posted(message: object) -> bool:
            if isinstance(message, SaveRepaired):
                heard.append(message)
            return post(message)  # type: ignore[arg-type]

        monkeypatch.setattr(screen, "post_message", posted)
        with session.path.open("ab") as file:
            file.write(b"\n[[log]]\nseq = 1\n")  # a write cut short
        session.repair()
        await settle(pilot)
        assert threads and threads[0] != threading.main_thread().name
        assert len(heard) == 1 and heard[0].path == session.path and heard[0].error is None
        repaired = heard[0].repaired
        assert repaired is not None and repaired.backup is not None and repaired.dropped > 0
        # A save that cannot be repaired: said, by the same message.
        session.path.unlink()
        session.repair()
        await settle(pilot)
        assert len(heard) == 2 and heard[1].repaired is None
        assert heard[1].error is not None and "no save file" in heard[1].error
