"""The Big Boom screen at 80x24: a bomber mission with attrition and a half-astray result,
a battery shot whose No-entry marker is counted down turn by turn until it is lifted,
Engineer/Frogman lifting a marker, and an "All" interdiction that never expires."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.conftest import Desk, screen_text, settle
from tui import saves
from tui.desk.screens.boom import BoomScreen
from tui.desk.screens.dialogs import HandDiceScreen
from tui.desk.widgets.combat import Cycle, FieldLine, OddsPreview
from tui.desk.widgets.markers import MarkerPanel
from tui.desk.widgets.result import ResultPanel


def text_of(widget) -> str:
    # The preview is one Static; the result panel holds several.
    shown = [widget] if isinstance(widget, Static) else widget.query(Static).results(Static)
    return "\n".join(str(s.content) for s in shown)


async def fill(
    pilot: Pilot,
    units: list[str],
    aa: list[str] = (),
    mission: str = "bombers",
    target: str = "0712",
    bomber_range: str = "8",
    distance: str = "2",
) -> BoomScreen:
    screen = pilot.app.screen
    assert isinstance(screen, BoomScreen)
    for _ in units[1:]:
        await pilot.press("ctrl+n")
    for _ in aa[1:]:
        await pilot.press("ctrl+g")
    await pilot.pause()
    screen.query_one("#mission", Cycle).value = mission
    for field, value in zip(screen.query("#attackers .factor").results(Input), units, strict=True):
        field.value = value
    for field, value in zip(screen.query("#defenders .factor").results(Input), aa, strict=False):
        field.value = value
    screen.query_one("#target", Input).value = target
    screen.query_one("#range", Input).value = bomber_range
    screen.query_one("#distance", Input).value = distance
    await pilot.pause()
    return screen


async def hand_dice(pilot: Pilot, *faces: str) -> list[str]:
    """ctrl+t, then each die as the desk asks for it; the purposes it asked for."""
    asked = []
    await pilot.press("ctrl+t")
    for face in faces:
        await pilot.pause()
        assert isinstance(pilot.app.screen, HandDiceScreen)
        asked.append(pilot.app.screen.what)
        await pilot.press(face, "enter")
    await settle(pilot)
    assert not isinstance(pilot.app.screen, HandDiceScreen)
    return asked


def markers(app) -> list[tuple[str, int | None]]:
    return [(m.target, m.turns_left) for m in app.game.markers]


async def test_bomber_mission_with_attrition_and_a_half_astray_result(desk: Desk) -> None:
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        # Five bombers, AA 3 + 1 on the route, 5 hexes out of a range of 8 (over half: +2).
        screen = await fill(pilot, ["4", "4", "2", "2", "2"], ["3", "1"], distance="5")
        shown = text_of(screen.query_one(OddsPreview))
        assert "CAF 14 in 5 units" in shown
        assert "AA 4 + 2 far = 6: attrition column 6" in shown
        # Column 6 removes 1, 2 or 3 bombers, a third each.
        lost = {
            line.split()[-2]: line.split()[0]
            for line in shown.splitlines()
            if line.endswith(" lost")
        }
        assert lost == {"0": "0.0%", "1": "33.3%", "2": "33.3%", "3": "33.3%"}
        assert "Whole mission, loss on 0712:" in shown
        # Attrition 6 at column 6 removes 1 (the last listed): 4 4 2 2 fly on. Accuracy 6:
        # half astray (2 2), Direction 3 South-East. 8 CAF on target: roll 4, "8 1".
        # The 4 astray CAF hit one hex SE: roll 1 at column 4, "- 1".
        asked = await hand_dice(pilot, "6", "6", "3", "4", "1")
        assert asked == [
            "bomber mission attrition (1d6)",
            "Boom Accuracy (1d6)",
            "Direction (1d6)",
            "boom combat resolution (1d6)",
            "boom combat resolution (one hex SE) (1d6)",
        ]
        # The dice by hand are kept in the combat's inputs, in the order the chain read them.
        [logged] = saves.load_game(app.game.path).entries
        assert logged["inputs"]["chain_rolls"] == [6, 6, 3, 4, 1]
        result = text_of(screen.query_one(ResultPanel))
        # The headline names the bomber lost (it said "Attacker: no effect" beside it).
        assert "Roll 4 on 8: 8 / 1 · 1 bomber lost" in result
        assert "Astray hex: one hex SE of 0712" in result
        assert "Dice: 1d6 6, 6, 3, 4, 1 (by hand)" in result
        [entry] = saves.load_game(app.game.path).entries
        assert entry["effects"]["attacker"] == {"bombers_removed": 1}
        assert entry["effects"]["defender"] == {"factors_lost": 8}
        assert [(m["target"], m["turns"]) for m in entry["markers"]] == [
            ("0712", 1),
            ("one hex SE of 0712", 1),
        ]
        assert markers(app) == [("0712", 1), ("one hex SE of 0712", 1)]
        assert "no-entry 1.2 on one hex SE of 0712" in str(screen.query_one(MarkerPanel).content)


async def test_battery_shot_marker_counts_down_until_the_turn_the_ruling_names(
    desk: Desk,
) -> None:
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        screen = await fill(pilot, ["9"], mission="batteries")
        shown = text_of(screen.query_one(OddsPreview))
        assert "No attrition (batteries and ships)" in shown
        assert not screen.query_one("#defenders").display
        await pilot.press("ctrl+g")  # no AA row for a battery
        await pilot.pause()
        assert len(screen.unit_rows("defender")) == 1
        # Batteries skip attrition: accuracy 1, all on target; CAF 9 roll 2 at 8: "4 2".
        asked = await hand_dice(pilot, "1", "2")
        assert asked == ["Boom Accuracy (1d6)", "boom combat resolution (1d6)"]
        assert markers(app) == [("0712", 2)]
        # Placed in turn 1 for 2 turns: closed through turn 3, lifted when turn 4 begins.
        for turn, left in ((2, [("0712", 1)]), (3, [("0712", 0)]), (4, [])):
            await pilot.press("ctrl+s", "y")
            await settle(pilot)
            assert (app.game.turn, markers(app)) == (turn, left)
            assert screen.sub_title.startswith(f"Turn {turn} ")
        assert app.game == saves.load_game(app.game.path)


async def test_engineer_frogman_lifts_the_marker_at_once(desk: Desk) -> None:
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        screen = await fill(pilot, ["9"], mission="ships")
        await hand_dice(pilot, "1", "2")
        assert markers(app) == [("0712", 2)]
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert markers(app) == []
        assert "no markers in play" in str(screen.query_one(MarkerPanel).content)
        entry = saves.load_game(app.game.path).entries[-1]
        assert entry["kind"] == "remove-marker"
        assert entry["note"] == "Hero #15 Engineer/Frogman repairs the hex"


async def test_an_all_interdiction_never_expires(desk: Desk) -> None:
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        await fill(pilot, ["16"], mission="ships", target="0911")
        # Accuracy 1; CAF 16 roll 1: "All All".
        await hand_dice(pilot, "1", "1")
        assert markers(app) == [("0911", None)]
        for _ in range(4):
            await pilot.press("ctrl+s", "y")
            await settle(pilot)
        assert app.game.turn == 5
        assert markers(app) == [("0911", None)]


async def test_typing_a_mission_fills_the_fields_in_order_and_the_preview_follows(
    desk: Desk,
) -> None:
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        screen = app.screen
        await pilot.press("4", "tab", "3", "tab", *"0712", "tab", "8", "tab", "5")
        await pilot.pause()
        assert screen.target == "0712"
        assert screen.query_one("#range", Input).value == "8"
        assert screen.query_one("#distance", Input).value == "5"
        shown = text_of(screen.query_one(OddsPreview))
        assert "AA 3 + 2 far = 5: attrition column 4" in shown
        # The target typed is named in the preview's words as it is typed (its Changed
        # message stops at the field: the screen is told by the key).
        assert "Whole mission, loss on 0712:" in shown
        assert "No-entry turns on 0712:" in shown
        await pilot.press("shift+tab", "shift+tab", *"0911")  # the hex typed over
        await pilot.pause()
        assert screen.target == "0911"
        assert "No-entry turns on 0911:" in text_of(screen.query_one(OddsPreview))
        await pilot.press("tab", "tab")
        await pilot.pause()
        await pilot.press("backspace", "4")  # 4 of 8 is not over half the range
        await pilot.pause()
        assert "AA 3: attrition column 2" in text_of(screen.query_one(OddsPreview))


async def test_a_quick_mission_needs_only_its_units(desk: Desk) -> None:
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        screen = app.screen
        await pilot.press("4", "tab", "3", "ctrl+r")
        await settle(pilot)
        assert screen.save_state.status == "saved"
        entry = screen.save_state.entry
        # No range given: no long-range AA bonus; the AA total is the row's 3.
        assert entry["inputs"].get("long_range") in (None, False)
        assert entry["inputs"]["aaf"] == 3
        screen.query_one("#distance", Input).value = "5"
        await pilot.pause()
        assert "Bomber range: enter the bombers' range to judge the distance" in screen_text(app)


async def test_the_form_is_the_schemas_and_a_mission_hides_what_it_does_not_read(
    desk: Desk,
) -> None:
    """The Big Boom form is made from its fields as every ruleset's is; ships hide their AA
    and range (the engine says they do not read them), bombers show them again, and an AA
    row left empty is no AA unit (the route's AA is 0, not a factor missing)."""
    from tui.engine import registry
    from tui.engine.schema import form

    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, BoomScreen)
        # Each line of the form draws its label left of its field (FieldLine).
        labels = [line.render().plain for line in screen.query(".field").results(FieldLine)]
        fields = form("pod-boom", registry.get("pod-boom").fields, app.tables)
        assert labels == ["Target hex", *(found.form_label for found in fields)]
        lines = {found.name: screen.query_one(f"#{found.widget_id}").parent for found in fields}
        await fill(pilot, ["6"], mission="ships", bomber_range="8", distance="2")
        assert not lines["bomber_range"].display and not lines["distance"].display
        assert lines["mission"].display and not screen.query_one("#defenders").display
        assert screen.reading.combat is not None and screen.reading.combat.aaf is None
        screen.query_one("#mission", Cycle).value = "bombers"
        await pilot.pause()
        assert lines["bomber_range"].display and screen.query_one("#defenders").display
        combat = screen.reading.combat
        assert combat is not None and (combat.aaf, combat.long_range) == (0, False)
        screen.query_one("#range", Input).value = "x"
        await pilot.pause()
        assert "Bomber range: 'x' is not a whole number >= 0" in screen_text(app)
        assert screen.query_one("#range", Input).has_class("-invalid")


def test_the_preview_holds_every_line_a_mission_can_show() -> None:
    """The Big Boom preview reserves `most_preview_lines`: no mission's preview is taller,
    so typing one never makes the preview grow (and lay the screen out again)."""
    from itertools import product

    from tui.desk.screens.boom import most_preview_lines, preview_text
    from tui.engine import CombatInput, Unit
    from tui.engine.rulesets.boom.rules import chain_preview, most_attrition_losses
    from tui.engine.tables import load_tables

    tables = load_tables()
    most = most_preview_lines(tables)
    tallest = 0
    for units in [*product(range(1, 17), repeat=2), (2, 8, 6), (1, 3, 5, 16)]:
        for aaf in (None, 0, 3, 8):
            combat = CombatInput("pod-boom", tuple(Unit(f) for f in units), aaf=aaf)
            chain = chain_preview(units, aaf, False, tables)
            head, chances = preview_text(chain, combat, "", most_attrition_losses(tables))
            tallest = max(tallest, len(f"{head}\n{chances}".split("\n")))
    assert tallest <= most
    assert most - tallest <= 2  # a close bound: the preview's blank tail stays short
