"""A game opened from the command line (`crtdesk open NAME`): the desk shows its combat
screen without building the start screen first, reads the save once, and Esc still
reaches the saves list. Keys typed while it starts reach the form."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.widgets import DataTable

from tests.conftest import make_app, notes, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.base import DeskScreen
from tui.desk.screens.pod import PodScreen
from tui.desk.screens.rivets import RivetsScreen
from tui.desk.screens.start import StartScreen


async def test_a_game_opened_directly_builds_no_start_screen_until_esc(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    app = make_app(folder, rulesets=["rivets"])
    saves.new_game(folder / "other.toml", "Other game", ["pod-basic"], {})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RivetsScreen)
        assert not any(isinstance(s, StartScreen) for s in app.screen_stack)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert app.screen.query_one(DataTable).row_count == 2
        # From the saves list, the game opens again, and Esc goes back to the list.
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RivetsScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        assert [type(s) for s in app.screen_stack][-1] is StartScreen


def test_a_screen_is_restyled_when_shown_again_not_when_first_shown() -> None:
    screen = DeskScreen()
    first, again = events.ScreenResume(), events.ScreenResume()
    assert screen.post_message(first) and screen.post_message(again)
    assert (first.refresh_styles, again.refresh_styles) == (False, True)


async def test_the_first_screen_is_styled_without_its_second_pass(tmp_path: Path) -> None:
    app = make_app(tmp_path / "saves", rulesets=["pod-basic", "rivets"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        # The desk's stylesheet and the widgets' own CSS reached every node as it was mounted.
        assert app.screen.query_one(".combat-form").outer_size.width == 37
        assert app.screen.query_one(".factor").outer_size.height == 1
        assert app.screen.focused is app.screen.query_one(".factor")
        # Shown again after another screen: styled again, as Textual does.
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, PodScreen)
        assert app.screen.query_one(".combat-form").outer_size.width == 37


async def test_a_game_already_read_is_not_read_again(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "game.toml"
    saves.new_game(path, "Read once", ["rivets"], {})
    game = saves.load_game(path)
    game.warnings.append("a warning the first read gave")
    app = CrtDeskApp(saves_dir=folder, game_path=path, game=game, player="tester")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RivetsScreen)
        assert app.game is game
        # Its warnings (a torn entry set aside when it was read) are shown all the same.
        assert "a warning the first read gave" in notes(app)


async def test_a_game_that_cannot_be_opened_leaves_the_saves_list(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "good.toml", "Good", ["rivets"], {})
    broken = folder / "broken.toml"
    broken.write_text("title = [unclosed\n")
    app = CrtDeskApp(saves_dir=folder, game_path=broken, player="tester")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert app.game is None
        assert any("broken.toml" in note for note in notes(app)), notes(app)


async def test_keys_typed_before_the_first_frame_reach_the_form(tmp_path: Path) -> None:
    app = make_app(tmp_path / "saves", rulesets=["pod-basic"])
    seen: dict[str, object] = {}

    async def type_at_once(pilot: Pilot) -> None:
        # Run as soon as the app starts (as a player typing right after the command): the
        # first frame is not drawn yet and no field has the focus.
        seen["held"] = app.screen.focused is None
        await pilot.press("1", "2", "tab", "3", "ctrl+r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PodScreen)
        seen["factors"] = [
            row.factor_text for side in ("attacker", "defender") for row in screen.unit_rows(side)
        ]
        seen["rolled"] = screen.last is not None
        app.exit()

    await app.run_async(headless=True, size=(80, 24), auto_pilot=type_at_once)
    assert seen == {"held": True, "factors": ["12", "3"], "rolled": True}
    assert saves.load_game(app.game.path).entries[-1]["inputs"]["attackers"][0]["factor"] == 12


async def test_keys_typed_later_are_not_held(tmp_path: Path) -> None:
    app = make_app(tmp_path / "saves", rulesets=["pod-basic"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.holding_keys
        await pilot.press("7")
        assert app.screen.focused is not None and app.screen.focused.value == "7"


async def test_a_game_opened_again_shows_its_last_combat_in_the_form_and_the_box(
    tmp_path: Path,
) -> None:
    """Esc to the saves list and Enter again: each screen's form is as its last combat left
    it (the inputs are in the log) and its box shows that combat (both were empty)."""
    from textual.widgets import Input

    from tui.desk.widgets.combat import Cycle
    from tui.desk.widgets.ocs import OcsUnitRow
    from tui.desk.widgets.result import ResultPanel

    folder = tmp_path / "saves"
    app = make_app(folder, rulesets=["pod-super", "ocs"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("6", "ctrl+n", "3", "enter", "2")
        await pilot.pause()
        terrain = screen.query("#attackers Cycle.terrain").last(Cycle)
        terrain.value = "town"
        await pilot.press("ctrl+t", "8", "enter")
        await settle(pilot)
        await pilot.press("f3")  # OCS: a named unit with steps and AR against a plain one
        await settle(pilot)
        ocs = app.screen
        attacker = ocs.query("#attackers OcsUnitRow").first(OcsUnitRow)
        for key, value in (("unit-name", "21 Pz"), ("factor", "9"), ("steps", "3"), ("ar", "4")):
            attacker.field(key).value = value
        ocs.query("#defenders OcsUnitRow").first(OcsUnitRow).field("factor").value = "2"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        while not isinstance(app.screen, type(ocs)):  # the options, as first offered
            await pilot.press("enter")
            await pilot.pause()
        await settle(pilot)
        logged = saves.load_game(folder / "game.toml").entries
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        await pilot.press("enter")
        await settle(pilot)
        again = app.screen
        assert again is not screen and again.ruleset == "pod-super"
        factors = [f.value for f in again.query("#attackers .factor").results(Input)]
        assert factors == ["6", "3"]
        assert again.query("#attackers Cycle.terrain").last(Cycle).value == "town"
        assert again.query_one("#defenders .factor", Input).value == "2"
        assert f"odds {logged[0]['odds']}" in str(again.query_one("#preview").content)
        box = again.query_one(ResultPanel)
        assert box.display and str(box.lines.content).startswith(
            f"Roll 8 on {logged[0]['column']}: "
        )
        await pilot.press("f3")
        await settle(pilot)
        row = app.screen.query("#attackers OcsUnitRow").first(OcsUnitRow)
        typed = {key: row.field(key).value for key in ("unit-name", "factor", "steps", "ar")}
        assert typed == {"unit-name": "21 Pz", "factor": "9", "steps": "3", "ar": "4"}
        assert f"Roll {logged[-1]['roll']} on" in str(
            app.screen.query_one(ResultPanel).lines.content
        )
