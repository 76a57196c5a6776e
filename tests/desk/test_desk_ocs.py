"""Pilot tests at 80x24: the OCS screen with dice entered by hand (surprise 2d6, shift 1d6,
result 2d6 + DRM), the option choices, supply and internal stocks across two combats."""

from __future__ import annotations

import random

from msgspec.structs import replace
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Static

from tests.conftest import Desk, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.dialogs import ChoiceScreen, HandDiceScreen
from tui.desk.screens.ocs import OcsScreen
from tui.desk.widgets.combat import Cycle
from tui.desk.widgets.ocs import OcsUnitRow
from tui.engine import resolve

# 21 Pz (AR 4) and Ariete (AR 3) attack 2 NZ (AR 3, 1 RE): 10 vs 2 on Open is 5:1, DRM +1.
ATTACKERS = [("21 Pz", "6", "3", "4"), ("Ariete", "4", "2", "3")]
DEFENDERS = [("2 NZ", "2", "2", "3")]


def preview(screen: OcsScreen) -> str:
    return "\n".join(str(w.content) for w in screen.query("#preview").results(Static))


def result(screen: OcsScreen) -> str:
    return "\n".join(str(w.content) for w in screen.query("ResultPanel Static").results(Static))


def rows(screen: OcsScreen, side: str) -> list[OcsUnitRow]:
    return list(screen.query(f"#{side}s OcsUnitRow").results(OcsUnitRow))


async def fill(pilot: Pilot, screen: OcsScreen) -> None:
    """Two attackers and one defender, typed into the rows' fields."""
    await pilot.press("ctrl+n")
    await pilot.pause()
    for row, (name, strength, steps, ar) in zip(rows(screen, "attacker"), ATTACKERS, strict=True):
        for key, value in (("unit-name", name), ("factor", strength), ("steps", steps), ("ar", ar)):
            row.field(key).value = value
    (defender,) = rows(screen, "defender")
    name, strength, steps, ar = DEFENDERS[0]
    for key, value in (("unit-name", name), ("factor", strength), ("steps", steps), ("ar", ar)):
        defender.field(key).value = value
    defender.field("re").value = "1"
    await pilot.pause()


async def hand_dice(pilot: Pilot, *totals: str) -> None:
    """ctrl+t, then each total typed into its hand-dice dialog."""
    await pilot.press("ctrl+t")
    for total in totals:
        await pilot.pause()
        assert isinstance(pilot.app.screen, HandDiceScreen), pilot.app.screen
        await pilot.press(*total, "enter")
    await pilot.pause()


async def choose(pilot: Pilot, key: str, asked: str) -> None:
    assert isinstance(pilot.app.screen, ChoiceScreen)
    assert asked in pilot.app.screen.question
    await pilot.press(key)
    await pilot.pause()


def last_entry(app: CrtDeskApp) -> dict:
    assert app.game is not None
    return saves.load_game(app.game.path).entries[-1]


def markers(app: CrtDeskApp) -> list[tuple[str, str]]:
    assert app.game is not None
    return [(m.kind, m.target) for m in app.game.markers]


async def test_regular_attack_with_surprise_step_loss_and_exploitation(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        shown = preview(screen)
        assert "A 10 : D 2 = 5:1, Open column 5:1" in shown
        assert "DRM +1 · Supply A 5T, D 1T · allowed" in shown
        # 2d6 + 1 >= 10 for attacker surprise: 10/36; <= 5: 6/36.
        assert "Surprise A 28% · D 17% · none 56%" in shown
        assert "Exploit: e4 21 Pz; e3/e2 21 Pz, Ariete" in shown
        # Surprise 9 + 1 = 10: the attacker's; shift 1 to 7:1; 2d6 7 + 1 reads Ao1 e4 DL1o2.
        await hand_dice(pilot, "9", "1", "7")
        await choose(pilot, "0", "the attacker takes its option 1")
        await choose(pilot, "1", "the defender takes its option 2")
        await settle(pilot)
        entry = last_entry(app)
        assert (entry["column"], entry["cell"]) == ("7:1", "Ao1 e4 DL1o2")
        assert entry["effects"]["surprise"] == {"side": "attacker", "shift": 1}
        assert entry["effects"]["options"]["attacker"]["steps"] == 1
        assert entry["effects"]["supply"] == {"attacker": 5, "defender": 1}
        assert ("exploitation", "21 Pz") in markers(app)
        assert ("exploitation", "Ariete") not in markers(app)
        assert not any(t == saves.UNSPECIFIED_TARGET for _, t in markers(app))
        shown = result(screen)
        assert "Roll 8 on 7:1: Ao1 e4 DL1o2" in shown
        assert "Surprise to the attacker: 1 column its way, 5:1 to 7:1." in shown
        # In the box's fewer words (the log keeps "as 0 hexes retreated and 1 step lost").
        assert "Attacker takes option 1: 0 hexes back, 1 step lost" in shown
        assert "Options are taken attacker first" not in shown
        assert "Options are taken attacker first" in entry["explanation"]
        assert shown.count("option 1") == 1 and "in any mix" not in shown  # said once
        assert "Exploit" in str(
            rows(screen, "attacker")[0].query_one(".unit-markers", Static).content
        )


def least_added_to_next_column(screen: OcsScreen) -> tuple[int, str]:
    """Worked out here by resolving the form's combat with one more attacker (like its
    last) of 1, 2, ... factors until its column moves: the attack the next column needs."""
    combat = screen.reading.combat
    assert combat is not None
    now = resolve(combat, screen.tables, random.Random(0)).column
    for added in range(1, 200):
        unit = replace(combat.attackers[-1], factor=added)
        more = replace(combat, attackers=(*combat.attackers, unit))
        column = resolve(more, screen.tables, random.Random(0)).column
        if column != now:
            assert column is not None
            return added, column
    raise AssertionError(f"no column right of {now}")


async def test_the_preview_names_the_attack_the_next_column_needs(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        added, column = least_added_to_next_column(screen)
        # 10 : 2 is 5:1; the chart's next column is 7:1, 14 : 2.
        assert (added, column) == (4, "7:1")
        assert preview(screen).splitlines()[1] == "+4 attack factors to 7:1"
        # The defender's strength typed up to 3: 10 : 3 is 3:1; 12 : 3 is 4:1.
        strength = rows(screen, "defender")[0].field("factor")
        strength.focus()
        await pilot.press("end", "backspace", "3")
        await pilot.pause()
        shown = preview(screen).splitlines()
        assert shown[0] == "A 10 : D 3 = 3:1, Open column 3:1", shown
        added, column = least_added_to_next_column(screen)
        assert (added, column) == (2, "4:1")
        assert shown[1] == f"+{added} attack factors to {column}", shown
        # One factor short of it: one more factor reaches it, worded for one.
        attacker = rows(screen, "attacker")[0].field("factor")
        attacker.focus()
        await pilot.press("end", "backspace", "7")
        await pilot.pause()
        added, column = least_added_to_next_column(screen)
        assert (added, column) == (1, "4:1")
        assert preview(screen).splitlines()[1] == "+1 attack factor to 4:1"


async def test_an_overrun_uses_the_overrun_thresholds(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        screen.query_one("#overrun", Checkbox).value = True
        await pilot.pause()
        assert "Surprise A 42% · D 28%" in preview(screen)
        # 8 + 1 = 9 is surprise in an overrun (not in a regular attack); shift 2 to 9:1.
        await hand_dice(pilot, "8", "2", "4")
        while isinstance(app.screen, ChoiceScreen):
            await pilot.press("0")
            await pilot.pause()
        await settle(pilot)
        entry = last_entry(app)
        assert entry["inputs"]["overrun"] is True
        assert entry["effects"]["surprise"] == {"side": "attacker", "shift": 2}
        assert entry["column"] == "9:1"


async def test_attacker_retreat_voids_exploitation_and_the_defender_ignores(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        await hand_dice(pilot, "9", "1", "7")
        await choose(pilot, "1", "the attacker takes its option 1")
        await choose(pilot, "i", "may ignore its option 2")
        await settle(pilot)
        entry = last_entry(app)
        assert entry["inputs"]["attacker_option_retreat"] == 1
        assert entry["inputs"]["defender_ignores_options"] is True
        assert "retreat" in entry["effects"]["exploitation"]["void"]
        assert not any(kind == "exploitation" for kind, _ in markers(app))
        assert "No exploitation: the attacker took its option as a retreat." in result(screen)


async def test_an_attack_without_supply_is_refused(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        # The AR unit is the highest by default; the player may pick another.
        assert "DRM +1" in preview(screen)
        screen.query_one("#ar-attacker", Cycle).select("Ariete")
        await pilot.pause()
        assert "DRM +0" in preview(screen)
        rows(screen, "attacker")[1].query_one(".unit-supply", Cycle).select("none")
        await pilot.pause()
        assert "Not allowed: Ariete cannot attack: it has no combat supply" in preview(screen)
        assert "A 10 : D 2 = 5:1" in preview(screen)  # the odds still shown
        assert "· refused" in preview(screen)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert not isinstance(app.screen, HandDiceScreen)
        assert app.game is not None and saves.load_game(app.game.path).entries == []


async def test_internal_stocks_go_low_then_exhausted_across_two_combats(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        first = rows(screen, "attacker")[0]
        first.query_one(".unit-supply", Cycle).select("internal")
        await pilot.pause()
        assert "Stocks: 21 Pz → Low" in preview(screen)
        assert "Supply A 2T" in preview(screen)  # only Ariete pays from the map
        for _ in range(2):
            await hand_dice(pilot, "7", "2")  # no surprise; 2d6 2 + 1 at 5:1: AL1 Do1
            while isinstance(app.screen, ChoiceScreen):
                await pilot.press("0")
                await pilot.pause()
            await settle(pilot)
            if _ == 0:
                assert ("low", "21 Pz") in markers(app)
                assert "Low" in str(first.query_one(".unit-markers", Static).content)
                assert "Stocks: 21 Pz → Exhausted" in preview(screen)
        stocks = [m for m in markers(app) if m[0] in ("low", "exhausted")]
        assert stocks == [("exhausted", "21 Pz")]  # Exhausted replaces Low
        shown = str(first.query_one(".unit-markers", Static).content)
        assert "Exhausted" in shown and "Low" not in shown
        assert "Not allowed: 21 Pz cannot attack: it is Exhausted" in preview(screen)


async def test_desk_dice_are_kept_across_the_option_choices(desk: Desk) -> None:
    async with desk(rulesets=["ocs"], seed=7) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        await pilot.press("ctrl+r")
        await pilot.pause()
        asked = 0
        while isinstance(app.screen, ChoiceScreen):
            asked += 1
            await pilot.press("0")
            await pilot.pause()
        await settle(pilot)
        entry = last_entry(app)
        dice = entry["dice"]
        # One surprise 2d6, a shift 1d6 only with surprise, one result 2d6: each once.
        purposes = [d["purpose"] for d in dice]
        assert purposes[0] == "surprise" and purposes[-1] == "combat"
        assert len(purposes) == (3 if "surprise" in entry["effects"] else 2)
        assert all(d["source"] == "desk" for d in dice)
        # The same dice by hand read the same cell.
        rolls = {d["purpose"]: d["total"] for d in dice}
        again = resolve(
            replace(
                screen.last_combat,
                surprise_roll=rolls["surprise"],
                shift_roll=rolls.get("surprise shift"),
                roll=rolls["combat"],  # the dice as they lie: the DRM is added
            ),
            app.tables,
        )
        assert again.cell == entry["cell"]
        assert asked >= 1 and asked == sum(
            1 for side in entry["effects"].get("options", {}).values() if side.get("chosen")
        )


async def test_supply_is_chosen_in_the_words_of_the_docs_and_the_cli(desk: Desk) -> None:
    """`on-map`, `internal`, `none`, as `--attacker NAME:...:SUPPLY` and the docs say (the
    desk said "stocks" for internal): `i` picks it."""
    from tui.engine.rulesets.ocs.supply import SUPPLY_SOURCES

    async with desk(rulesets=["ocs"]) as (app, pilot):
        supply = rows(app.screen, "attacker")[0].query_one(".unit-supply", Cycle)
        supply.focus()
        await pilot.press("i")
        await pilot.pause()
        assert (supply.value, supply.label) == ("internal", "internal")
        assert [label for label, _ in supply.options] == list(SUPPLY_SOURCES)


async def test_what_cannot_be_read_is_named_and_marked_and_nothing_is_made_of_it(
    desk: Desk,
) -> None:
    """The rows and the fields are read by their kinds, as the CLI reads them: a strength
    or an RE that cannot be read is marked and named, and attacking from 0 hexes is named
    too (it was read as 1, silently); once put right the combat is read."""
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, OcsScreen)
        await fill(pilot, screen)
        attacker = rows(screen, "attacker")[0]
        (defender,) = rows(screen, "defender")
        attacker.field("factor").value = "x"
        defender.field("re").value = "-1"
        screen.query_one("#attack-hexes", Input).value = "0"
        await pilot.pause()
        shown = preview(screen)
        assert "21 Pz strength: 'x' is not a whole number >= 0" in shown
        assert "2 NZ RE: '-1' is not a number >= 0 (1, 0.5, 2)" in shown
        assert "Att. hexes: '0' is not a whole number >= 1" in shown
        assert screen.reading.combat is None
        assert attacker.field("factor").has_class("-invalid")
        assert defender.field("re").has_class("-invalid")
        assert not attacker.field("steps").has_class("-invalid")
        attacker.field("factor").value = "6"
        defender.field("re").value = "1"
        screen.query_one("#attack-hexes", Input).value = "2"
        await pilot.pause()
        combat = screen.reading.combat
        assert combat is not None and combat.attack_hexes == 2
        assert [u.factor for u in combat.attackers] == [6, 4]
        assert combat.defenders[0].re == 1.0
        assert not attacker.field("factor").has_class("-invalid")


def test_a_unit_row_added_can_be_read_before_it_is_composed():
    """^n adds a row; the screen being prepared then (the last combat's form restored)
    read its strength before the row was composed, and the desk stopped with an
    AttributeError (seen in the OCS snapshot, one run in three on a loaded machine)."""
    from tui.desk.widgets.ocs import OcsUnitRow

    for side in ("attacker", "defender"):
        row = OcsUnitRow(side, 3)
        assert row.factor_text == ""
        assert row.named and row.name_input.value == ""
        row.show_names(None)
        assert row.parts()["name"] is None


async def test_ocs_unit_rows_renumber_their_labels_when_one_is_removed(desk: Desk) -> None:
    """An OCS row shows its label ("A2") in a field of its own: dropping the first attacker
    makes the second A1, on the screen."""
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        await pilot.press("ctrl+n")  # two attackers
        await pilot.pause()
        rows = list(screen.query(OcsUnitRow).filter(".attacker").results(OcsUnitRow))
        assert [str(r.query_one(".unit-label", Static).content) for r in rows] == ["A1", "A2"]
        screen.set_focus(rows[0].factor_input)
        await pilot.press("ctrl+o")  # the first removed: the second is now A1
        await pilot.pause()
        rows = list(screen.query(OcsUnitRow).filter(".attacker").results(OcsUnitRow))
        assert [str(r.query_one(".unit-label", Static).content) for r in rows] == ["A1"]
