"""Pilot tests at 80x24: the units screen (ctrl+] or the palette on a ruleset screen) lists
the game's units by side then name with their hex, factor and steps left, and state; the
filter box narrows it; ctrl+n adds a unit and Enter edits the highlighted one, each a log
entry; a bad value is one line in the form naming it; Esc closes the form, then the
screen."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.conftest import make_app, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.widgets.log_table import LogTable

UNITS_KEY = "ctrl+right_square_bracket"

# A Day/Night order of battle (units hold a factor and steps): a name with brackets in it,
# which markup would eat, and units in two hexes.
OOB = [
    {"name": "Kampfgruppe [DR]", "side": "Axis", "hex": "0712", "factor": 6, "steps": 3},
    {"name": "21 Pz", "side": "Axis", "hex": "0811", "factor": 8, "steps": 4},
    {"name": "7 Armd", "side": "Allied", "hex": "0913", "factor": 5, "steps": 2},
    {"name": "2 NZ", "side": "Allied", "factor": 4, "steps": 2},
]


def campaign(folder: Path, rulesets: list[str]) -> CrtDeskApp:
    """The desk opened on a game whose units were imported, one of them hit twice, one
    eliminated, and one marked disorganized."""
    app = make_app(folder, rulesets=rulesets)
    path = folder / "game.toml"
    saves.import_units(path, OOB, source="oob.csv")
    saves.take_losses(path, [{"unit": "21 Pz", "steps": 1, "factors": 2}])
    saves.take_losses(path, [{"unit": "2 NZ", "eliminated": True}])
    saves.add_marker(path, "disorganized", "7 Armd", side="Allied")
    return app


def rows(app: CrtDeskApp) -> list[list[str]]:
    """The units table as the player reads it: each row's line, cut back into its cells
    at the columns' widths."""
    from tui.desk.screens.units import COLUMNS

    table = app.screen.query_one("#units-table", LogTable)
    found = []
    for n in range(table.row_count):
        line, cells = table.row_text(n), []
        for column in COLUMNS:
            cells.append(line[: column.width].rstrip())
            line = line[column.width + 1 :]
        found.append(cells)
    return found


def said(app: CrtDeskApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


def logged(app: CrtDeskApp) -> list[dict]:
    assert app.game is not None
    return saves.load_game(app.game.path).entries


async def type_in(pilot: Pilot, text: str) -> None:
    await pilot.press(*text)


async def test_list_filter_add_edit_and_back(tmp_path: Path) -> None:
    from tui.desk.screens.daynight import DayNightScreen
    from tui.desk.screens.units import UnitFormScreen, UnitsScreen

    app = campaign(tmp_path / "saves", ["daynight"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        combat = app.screen
        assert isinstance(combat, DayNightScreen)
        entries = len(logged(app))

        # Opened: every unit by side, then name; the factor and steps left of their full,
        # the eliminated unit and the marker said; the bracketed name shown as it is.
        await pilot.press(UNITS_KEY)
        await pilot.pause()
        assert isinstance(app.screen, UnitsScreen)
        assert rows(app) == [
            ["Allied", "2 NZ", "-", "0/4", "0/2", "eliminated"],
            ["Allied", "7 Armd", "0913", "5/5", "2/2", "Disorganized"],
            ["Axis", "21 Pz", "0811", "6/8", "3/4", ""],
            ["Axis", "Kampfgruppe [DR]", "0712", "6/6", "3/3", ""],
        ]
        assert app.screen.sub_title.startswith("4 units")
        assert isinstance(app.focused, Input)  # typing goes to the filter

        # Filtered by side, then by hex; the count of those shown follows.
        await type_in(pilot, "axis")
        await pilot.pause()
        assert [r[1] for r in rows(app)] == ["21 Pz", "Kampfgruppe [DR]"]
        assert "2 shown" in app.screen.sub_title
        app.screen.query_one("#units-filter", Input).value = ""
        await type_in(pilot, "0913")
        await pilot.pause()
        assert [r[1] for r in rows(app)] == ["7 Armd"]
        app.screen.query_one("#units-filter", Input).value = ""
        await pilot.pause()

        # Added: a bad factor is one line naming it, and nothing is logged; then fixed.
        await pilot.press("ctrl+n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, UnitFormScreen)
        assert [f.id for f in form.query(Input).results(Input)] == [
            "unit-name",
            "unit-side",
            "unit-hex",
            "unit-factor",
            "unit-steps",
        ]
        await type_in(pilot, "15 Pz")
        for text in ("Axis", "0610", "x9"):  # side, hex, factor
            await pilot.press("tab")
            await type_in(pilot, text)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is form
        assert said(app, "#unit-problem") == (
            "factor: 'x9' is not allowed; expected a whole number from 0 to 999"
        )
        assert len(logged(app)) == entries
        form.query_one("#unit-factor", Input).value = "7"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, UnitsScreen)
        entry = logged(app)[-1]
        assert (entry["kind"], entry["action"]) == ("unit", "add")
        assert entry["unit"] == {
            "name": "15 Pz",
            "side": "Axis",
            "hex": "0610",
            "factor": 7,
            "steps": 1,
        }
        assert ["Axis", "15 Pz", "0610", "7/7", "1/1", ""] in rows(app)
        assert app.screen.sub_title.startswith("5 units")
        assert said(app, "#units-said") == f"Added 15 Pz (logged as entry {entry['seq']})"
        # The new unit is highlighted: Enter edits it.
        table = app.screen.query_one("#units-table", LogTable)
        assert rows(app)[table.cursor][1] == "15 Pz"

        # Edited: the filter finds the unit, Enter opens its record, and only what changed
        # is logged (a later entry; the add stays as it was).
        await type_in(pilot, "kampf")
        await pilot.press("enter")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, UnitFormScreen)
        assert str(form.query_one(Static).content) == "Edit Kampfgruppe [DR]"
        assert form.query_one("#unit-factor", Input).value == "6"
        steps = form.query_one("#unit-steps", Input)
        steps.value = "0"  # below the least a unit may have
        await pilot.press("enter")
        await pilot.pause()
        assert said(app, "#unit-problem") == (
            "steps: '0' is not allowed; expected a whole number from 1 to 99"
        )
        steps.value = "4"
        form.query_one("#unit-hex", Input).value = "0713"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, UnitsScreen)
        entry = logged(app)[-1]
        assert (entry["action"], entry["unit"]) == (
            "edit",
            {"name": "Kampfgruppe [DR]", "hex": "0713", "steps": 4},
        )
        assert rows(app) == [["Axis", "Kampfgruppe [DR]", "0713", "6/6", "4/4", ""]]
        assert "Edited Kampfgruppe [DR]: hex, steps" in said(app, "#units-said")

        # Esc closes the form without a word logged, then the screen: back to the form.
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, UnitFormScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, UnitsScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is combat
        assert len(logged(app)) == entries + 2
        assert app.game is not None and app.game.units["Kampfgruppe [DR]"].hex == "0713"


async def test_the_palette_opens_it_and_a_refused_unit_is_said_in_the_form(
    tmp_path: Path,
) -> None:
    from tui.desk.screens.units import UnitFormScreen, UnitsScreen

    app = campaign(tmp_path / "saves", ["ocs"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        combat = app.screen
        await pilot.press("ctrl+p")
        await pilot.pause()
        await type_in(pilot, "units")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, UnitsScreen)
        entries = len(logged(app))

        # An OCS unit's form holds the ruleset's fields: strength, steps, AR, type ...
        await pilot.press("ctrl+n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, UnitFormScreen)
        assert [f.id for f in form.query(Input).results(Input)][3:] == [
            "unit-factor",
            "unit-steps",
            "unit-ar",
            "unit-kind",
            "unit-supply",
            "unit-re",
        ]
        # A name already in the game: the store refuses it, and the form says so.
        await type_in(pilot, "21 Pz")
        await pilot.press("tab", *"Axis", "tab", "tab", "5", "enter")
        await settle(pilot)
        assert app.screen is form
        assert said(app, "#unit-problem").startswith("Not saved: a unit '21 Pz' is already in")
        form.query_one("#unit-kind", Input).value = "tank"
        await pilot.press("enter")
        await pilot.pause()
        assert said(app, "#unit-problem") == (
            "kind: 'tank' is not allowed; expected one of combat, hq, dak-brigade"
        )
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, UnitsScreen)
        assert len(rows(app)) == 4 and len(logged(app)) == entries

        # No unit matches the filter: Enter says so in one line, and opens nothing.
        await type_in(pilot, "nobody")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, UnitsScreen) and rows(app) == []
        assert said(app, "#units-said").startswith("No unit to edit here")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is combat and len(logged(app)) == entries


async def test_the_list_follows_another_players_entries(tmp_path: Path) -> None:
    """A unit another desk adds, or a loss it logs, shows in the open list."""
    from tui.desk.screens.units import UnitsScreen

    app = campaign(tmp_path / "saves", ["daynight"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(UNITS_KEY)
        await pilot.pause()
        assert isinstance(app.screen, UnitsScreen)
        assert app.game is not None
        path = app.game.path
        saves.add_unit(path, {"name": "9 Aus", "side": "Allied", "factor": 5, "steps": 2})
        saves.take_losses(path, [{"unit": "7 Armd", "steps": 1}], who="bob")
        app.session.take_entries(saves.load_game(path).entries)
        await settle(pilot)
        assert ["Allied", "9 Aus", "-", "5/5", "2/2", ""] in rows(app)
        assert ["Allied", "7 Armd", "0913", "5/5", "1/2", "Disorganized"] in rows(app)


async def test_a_game_without_units_says_how_to_bring_them_in(tmp_path: Path) -> None:
    """A Pair-o-Dice game: no units yet, said; a unit there holds a factor alone."""
    from tui.desk.screens.units import UnitFormScreen, UnitsScreen

    app = make_app(tmp_path / "saves", rulesets=["pod-basic"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(UNITS_KEY)
        await pilot.pause()
        assert isinstance(app.screen, UnitsScreen) and rows(app) == []
        assert app.screen.sub_title.startswith("0 units")
        assert said(app, "#units-said").startswith("No units yet: ^n adds one")
        await pilot.press("ctrl+n")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, UnitFormScreen)
        assert [f.id for f in form.query(Input).results(Input)][3:] == ["unit-factor"]
        await pilot.press(*"Easy Co", "tab", *"US", "tab", "tab", "enter")
        await pilot.pause()
        assert said(app, "#unit-problem") == (
            "factor: missing; expected a whole number from 0 to 999"
        )
        await pilot.press(*"12", "enter")
        await settle(pilot)
        assert rows(app) == [["US", "Easy Co", "-", "12/12", "-", ""]]
        assert app.screen.sub_title.startswith("1 unit ")
        assert said(app, "#units-said").startswith("Added Easy Co")
        assert logged(app)[-1]["unit"] == {"name": "Easy Co", "side": "US", "factor": 12}
