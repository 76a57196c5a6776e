"""Turns and markers on any ruleset screen: the marker panel, the turn key, Hero #15
Engineer/Frogman and markers placed or lifted by hand, each logged in the save."""

from __future__ import annotations

from tests.conftest import Desk, settle
from tui import saves
from tui.desk.widgets.markers import MarkerPanel


def panel_text(app) -> str:
    return str(app.screen.query_one(MarkerPanel).content)


async def test_turn_key_counts_markers_down_and_the_header_shows_the_turn(desk: Desk) -> None:
    async with desk(rulesets=["ocs", "rivets"]) as (app, pilot):
        saves.add_marker(app.game.path, "DG", "21st Panzer", side="Axis", turns=1)
        app.session.take_game(saves.load_game(app.game.path))
        app.screen.refresh_header()
        assert "DG 1.1 on 21st Panzer (Axis, 1 turn left)" in panel_text(app)
        await pilot.press("ctrl+s", "y")
        await settle(pilot)
        assert app.screen.sub_title.startswith("Turn 2 ")
        assert "Turn 2 · 1 marker in play" in panel_text(app)
        assert "(Axis, through this turn)" in panel_text(app)
        await pilot.press("ctrl+s", "y")
        await settle(pilot)
        assert app.screen.sub_title.startswith("Turn 3 ")
        assert "no markers in play" in panel_text(app)
        assert app.game == saves.load_game(app.game.path)
        assert [e["kind"] for e in app.game.entries] == ["place-marker", "turn", "turn"]


async def test_the_turn_key_asks_before_the_next_turn(desk: Desk) -> None:
    from tui.desk.screens.dialogs import ChoiceScreen

    async with desk(rulesets=["rivets"]) as (app, pilot):
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        assert app.screen.question.startswith("End turn 1 and start turn 2?")
        # No, Esc, and Enter on the first choice ("no") each leave the turn as it was.
        await pilot.press("n", "ctrl+s", "escape", "ctrl+s", "enter")
        await settle(pilot)
        assert app.game.turn == 1 and saves.load_game(app.game.path).entries == []
        assert not isinstance(app.screen, ChoiceScreen)
        await pilot.press("ctrl+s", "down", "enter")
        await settle(pilot)
        assert app.game.turn == 2 and app.screen.sub_title.startswith("Turn 2 ")


async def test_place_and_lift_a_marker_by_hand(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        await pilot.press("ctrl+backslash", "p")
        await pilot.pause()
        for text in ("low", "tab", "15th Panzer", "tab", "Axis", "tab", "2", "enter"):
            await (pilot.press(text) if text in ("tab", "enter") else pilot.press(*text))
        await settle(pilot)
        [marker] = app.game.markers
        assert (marker.kind, marker.target, marker.side, marker.turns_left) == (
            "low",
            "15th Panzer",
            "Axis",
            2,
        )
        assert "low 1.1 on 15th Panzer (Axis, 2 turns left)" in panel_text(app)
        await pilot.press("ctrl+backslash", "l")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert app.game.markers == [] and "no markers in play" in panel_text(app)
        assert saves.load_game(app.game.path).entries[-1]["kind"] == "remove-marker"


async def test_a_marker_of_no_known_kind_is_refused_in_the_dialog(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        await pilot.press("ctrl+backslash", "p", *"smoke", "tab", *"0712", "enter")
        await pilot.pause()
        problem = str(app.screen.query_one("#place-problem").content)
        assert "'smoke' is not a marker" in problem
        await pilot.press("escape")
        await settle(pilot)
        assert app.game.entries == []


async def test_engineer_frogman_lifts_the_no_entry_marker_it_is_played_on(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        path = app.game.path
        saves.add_marker(path, "no-entry", "0712", side="both", turns=2)
        saves.add_marker(path, "no-entry", "0911", side="both")
        saves.add_marker(path, "DG", "21st Panzer")
        app.session.take_game(saves.load_game(path))
        await pilot.press("ctrl+z")
        await pilot.pause()
        # Two No-entry hexes: pick the second (0911, closed for the rest of the game).
        await pilot.press("down", "enter")
        await settle(pilot)
        assert [m.target for m in app.game.markers] == ["0712", "21st Panzer"]
        entry = saves.load_game(path).entries[-1]
        assert (entry["kind"], entry["marker_id"], entry["note"]) == (
            "remove-marker",
            "2.1",
            "Hero #15 Engineer/Frogman repairs the hex",
        )


async def test_f10_lists_every_marker_in_place_of_the_chances(tmp_path, monkeypatch) -> None:
    """At 80x24 more markers than fit a line were cut short, with no way to read the rest
    on the combat screen: F10 lists each one on its own line, in place of the chances."""
    from tests.snapshots.test_snapshots import _marked_game
    from tui.desk.widgets.combat import OddsPreview
    from tui.desk.widgets.markers import MarkerPanel

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "saves"
    folder.mkdir()
    app = _marked_game(folder)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        panel = screen.query_one(MarkerPanel)
        shown = screen.shown_markers(app.game.markers)
        assert len(shown) == 4
        lines = str(panel.content).split("\n")
        assert len(lines) == 3 and "F10 all" in lines[0]
        await pilot.press("f10")
        await pilot.pause()
        lines = str(panel.content).split("\n")
        assert len(lines) == 2 + len(shown)
        for marker, line in zip(shown, lines[1:-1], strict=True):
            assert marker.target in line and marker.kind in line
        side = screen.query_one(".combat-side")
        assert panel.region.bottom <= side.region.bottom
        assert not screen.query_one(OddsPreview).display
        await pilot.press("f10")
        await pilot.pause()
        assert len(str(panel.content).split("\n")) == 3
        assert screen.query_one(OddsPreview).display
