"""Typing order on every ruleset screen at 80x24: focus starts in the first field of the
first attacker; Tab goes across a unit's row, then the next row, then the other side, then
the rest of the form (shift+Tab back the same way); Enter in a row goes down to the next
unit's factor, so "12 Enter 3 ctrl+r" logs a combat."""

from __future__ import annotations

import pytest

from tests.conftest import Desk, settle
from tui import saves
from tui.desk.widgets.combat import UnitRow

RULESETS = ["pod-basic", "pod-super", "pod-ultra", "pod-boom", "ocs", "rivets", "daynight"]


def row_fields(row: UnitRow) -> list:
    return [w for w in row.query("*") if w.focusable]


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_tab_goes_across_each_row_then_down_then_to_the_form(
    desk: Desk, ruleset: str
) -> None:
    async with desk(rulesets=[ruleset]) as (app, pilot):
        screen = app.screen
        await pilot.press("ctrl+n")  # a second attacker
        await pilot.pause()
        attackers, defenders = screen.unit_rows("attacker"), screen.unit_rows("defender")
        rows = [*attackers, *defenders]
        expected = [field for row in rows for field in row_fields(row)]
        # Tab and shift+Tab walk the screen's focus chain: the rows' fields in one run,
        # across each row, then down, then the form's own fields.
        chain = screen.focus_chain
        start = chain.index(expected[0])
        assert chain[start : start + len(expected)] == expected
        after = chain[start + len(expected) : start + len(expected) + 1]
        assert after and after[0] not in expected and not isinstance(after[0], UnitRow)
        # The keys themselves, at each boundary: the end of a row to the next row, the
        # last attacker to the first defender, the last defender to the form, and back.
        for last, first in (
            (row_fields(attackers[0])[-1], row_fields(attackers[1])[0]),
            (row_fields(attackers[-1])[-1], row_fields(defenders[0])[0]),
            (expected[-1], after[0]),
        ):
            last.focus()
            await pilot.press("tab")
            assert screen.focused is first
            await pilot.press("shift+tab")
            assert screen.focused is last


async def test_ocs_rows_typed_with_tab_only_land_in_their_fields(desk: Desk) -> None:
    async with desk(rulesets=["ocs"]) as (app, pilot):
        screen = app.screen
        await pilot.press("ctrl+n")
        await pilot.pause()
        screen.unit_rows("attacker")[0].factor_input.focus()
        # Strength, steps, AR, name; an attacker's type and supply (two Tabs past them).
        keys = ["6", "tab", "3", "tab", "4", "tab", *"21 Pz", "tab", "tab", "tab"]
        keys += ["4", "tab", "2", "tab", "3", "tab", *"Ariete", "tab", "tab", "tab"]
        keys += ["2", "tab", "2", "tab", "3", "tab", *"2 NZ", "tab", "1"]
        await pilot.press(*keys)
        await settle(pilot)
        typed = [
            tuple(row.field(k).value for k in ("unit-name", "factor", "steps", "ar"))
            for side in ("attacker", "defender")
            for row in screen.unit_rows(side)
        ]
        assert typed == [
            ("21 Pz", "6", "3", "4"),
            ("Ariete", "4", "2", "3"),
            ("2 NZ", "2", "2", "3"),
        ]
        assert screen.unit_rows("defender")[0].field("re").value == "1"
        assert "A 10 : D 2 = 5:1" in str(screen.query_one("#preview").content)


async def test_f1_names_tab_and_enter(desk: Desk) -> None:
    from textual.widgets import Static

    async with desk(rulesets=["pod-super"]) as (app, pilot):
        await pilot.press("f1")
        await pilot.pause()
        shown = "\n".join(str(s.content) for s in app.screen.query(Static).results(Static))
        assert "Enter    in a unit's row: down to the next unit's factor" in shown
        assert "Tab      next field: across a unit's row" in shown


async def test_the_quick_entry_logs_one_combat_of_12_against_3(desk: Desk) -> None:
    """The README's first combat, typed as printed on every screen: `12 Enter 3 ctrl+r`
    (on OCS the 12 once went into the unit's name, and the roll was refused). One game
    with every ruleset in play: each screen opens with the focus in its first field (the
    factor; on OCS the strength, the optional name comes after it in the row), and in turn
    logs exactly one combat more, the 12 and the 3 in the fields Enter took them to."""
    async with desk(rulesets=list(RULESETS)) as (app, pilot):
        assert app.game is not None
        for count, ruleset in enumerate(RULESETS, start=1):
            app.show_ruleset(ruleset)
            await settle(pilot)
            screen = app.screen
            (attacker,) = screen.unit_rows("attacker")
            (defender,) = screen.unit_rows("defender")
            assert screen.focused is row_fields(attacker)[0] is attacker.factor_input, ruleset
            await pilot.press("1", "2", "enter", "3", "ctrl+r")
            await pilot.pause()
            while app.screen is not screen:  # OCS options: the first choice each time
                await pilot.press("enter")
                await pilot.pause()
            await settle(pilot)
            assert (attacker.factor_input.value, defender.factor_input.value) == ("12", "3")
            logged = saves.load_game(app.game.path).entries
            assert [e["kind"] for e in logged] == ["combat"] * count, (ruleset, logged)
            combat = logged[-1]
            assert combat["ruleset"] == ruleset
            # Big Boom's second list is the AA units on the bombers' route: 12 CAF against
            # AA 3.
            defence = combat["inputs"]["aaf"] if ruleset == "pod-boom" else combat["defense_total"]
            assert (combat["attack_total"], defence) == (12, 3), combat
