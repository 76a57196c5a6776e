"""Pilot tests: the Pair-o-Dice screens at 80x24, driven by keys, through a full combat
each, with the saved entry checked in the save file."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from tests.conftest import Desk, notes, screen_text, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.dialogs import ChoiceScreen
from tui.desk.screens.pod import PodScreen
from tui.desk.widgets.combat import Cycle, OddsPreview, UnitRow
from tui.desk.widgets.keys import KeyBar
from tui.desk.widgets.result import ResultPanel


def text_of(screen: PodScreen, selector: str) -> str:
    return "\n".join(str(w.content) for w in screen.query(selector).results(Static))


def preview(screen: PodScreen) -> str:
    return text_of(screen, "OddsPreview")


def result(screen: PodScreen) -> str:
    return text_of(screen, "ResultPanel Static")


def units(screen: PodScreen, side: str) -> list[UnitRow]:
    return list(screen.query(f"#{side}s UnitRow").results(UnitRow))


def set_factors(screen: PodScreen, attack: str, defense: str) -> None:
    """Fill the first attacker's and defender's factor fields."""
    units(screen, "attacker")[0].query_one(".factor", Input).value = attack
    units(screen, "defender")[0].query_one(".factor", Input).value = defense


def last_entry(app: CrtDeskApp) -> dict:
    assert app.game is not None
    return saves.load_game(app.game.path).entries[-1]


async def test_first_run_opens_a_default_game_and_resolves_a_basic_combat(desk: Desk) -> None:
    async with desk() as (app, pilot):
        screen = app.screen
        assert isinstance(screen, PodScreen) and screen.ruleset == "pod-basic"
        assert app.game is not None and app.game.rulesets[0] == "pod-basic"
        assert "enter a CAF" in preview(screen)
        # The attacker's factor field has focus: type, tab to the defender, type.
        await pilot.press("8", "tab", "2")
        await pilot.pause()
        assert units(screen, "attacker")[0].factor_text == "8"
        assert units(screen, "defender")[0].factor_text == "2"
        shown = preview(screen)
        assert "odds 4-1" in shown and "Chances on 4-1 (1d6)" in shown
        await pilot.press("ctrl+r")
        await settle(pilot)
        panel = screen.query_one(ResultPanel)
        assert panel.display
        entry = last_entry(app)
        # The roll the seeded desk made is the row read: check it against the chart.
        roll = entry["roll"]
        printed = app.tables.chart("pod-basic.crt").cell(roll, "4-1")
        assert f"Roll {roll} on 4-1: {' / '.join(printed)}" in result(screen)
        assert entry["ruleset"] == "pod-basic" and entry["column"] == "4-1"
        assert entry["dice"][0]["source"] == "desk"


async def test_preview_follows_every_keystroke_and_marks_bad_input(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        attack = units(screen, "attacker")[0].query_one(".factor", Input)
        defend = units(screen, "defender")[0].query_one(".factor", Input)
        await pilot.press("7", "enter", "4")
        await pilot.pause()
        assert "odds 1-1" in preview(screen)  # 7 vs 4 is 1-1
        defend.value = "2"
        await pilot.pause()
        assert "odds 3-1" in preview(screen)
        attack.value = "x7"
        await pilot.pause()
        assert "'x7' is not a whole number >= 0" in preview(screen)
        assert attack.has_class("-invalid")
        assert "odds" not in preview(screen).split("\n")[0]
        # Rolling is refused while the form is invalid: nothing is logged.
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert saves.load_game(app.game.path).entries == []
        attack.value = "-3"
        await pilot.pause()
        assert "'-3' is not a whole number >= 0" in preview(screen)
        attack.value = ""
        await pilot.pause()
        assert "A1: enter a CAF" in preview(screen)


async def test_super_combat_with_terrain_and_hand_dice(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        await pilot.press("ctrl+n")  # a second attacker
        await pilot.pause()
        rows = units(screen, "attacker")
        assert len(rows) == 2
        rows[0].query_one(".factor", Input).value = "4"
        rows[1].query_one(".factor", Input).value = "3"
        rows[1].query_one(".terrain", Cycle).value = "town"
        units(screen, "defender")[0].query_one(".factor", Input).value = "2"
        await pilot.pause()
        # Terrain differs, so the town unit gets +1: 4 + 4 = 8 vs 2 is 4-1.
        assert "Attack 8 · Defence 2 · odds 4-1" in preview(screen)
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("1", "3", "enter")  # out of range: refused with a message
        await pilot.pause()
        assert "'13' is not allowed: enter 2 to 12" in screen_text(app)
        await pilot.press("backspace", "backspace", "8", "enter")
        await settle(pilot)
        entry = last_entry(app)
        assert entry["roll"] == "8" and entry["column"] == "4-1"
        assert entry["cell"] == {"attacker": ["1", "-"], "defender": ["1", "-1"]}
        assert entry["dice"][0]["source"] == "manual"
        assert "Roll 8 on 4-1: A 1 - / D 1 -1" in result(screen)


def shown_text(app: CrtDeskApp) -> str:
    """The screen as drawn (its screenshot's text, spaces as spaces)."""
    return app.export_screenshot().replace("&#160;", " ")


async def test_unit_rows_show_their_numbers_and_renumber_when_one_is_removed(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        await pilot.press("ctrl+n", "ctrl+n")  # three attackers
        await pilot.pause()
        rows = units(screen, "attacker")
        shown = shown_text(app)
        assert all(label in shown for label in ("A1", "A2", "A3", "D1"))
        # Each factor starts four cells in, beside its label.
        assert [row.factor_input.region.x - row.region.x for row in rows] == [4, 4, 4]
        screen.set_focus(rows[1].factor_input)
        await pilot.press("ctrl+o")  # the second attacker removed: the third is now A2
        await pilot.pause()
        assert [row.number for row in units(screen, "attacker")] == [1, 2]
        shown = shown_text(app)
        assert "A1" in shown and "A2" in shown and "A3" not in shown


async def test_automatic_defeat_and_victory_need_no_dice(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        attack = units(screen, "attacker")[0].query_one(".factor", Input)
        defend = units(screen, "defender")[0].query_one(".factor", Input)
        attack.value, defend.value = "1", "5"
        await pilot.pause()
        assert "odds AD" in preview(screen) and "Automatic Defeat" in preview(screen)
        await pilot.press("ctrl+r")
        await settle(pilot)
        entry = last_entry(app)
        assert entry["effects"]["result"] == "AD" and entry["dice"] == []
        attack.value, defend.value = "12", "2"
        screen.query_one("#attacker-card", Cycle).value = "ace"
        await pilot.pause()
        assert "odds AV" in preview(screen) and "Automatic Victory" in preview(screen)
        await pilot.press("ctrl+r")
        await settle(pilot)
        entry = last_entry(app)
        assert entry["effects"]["result"] == "AV"
        assert "No card is played in an AV combat" in entry["explanation"]


async def test_card_shift_clamped_at_the_edge_is_shown_and_logged(desk: Desk) -> None:
    async with desk(rulesets=["pod-ultra"]) as (app, pilot):
        screen = app.screen
        set_factors(screen, "8", "2")
        screen.query_one("#attacker-card", Cycle).value = "ace"
        await pilot.pause()
        shown = preview(screen)
        assert "Ace (attacker): 3 columns right, 4-1 -> 5-1 (stopped at the table's edge)" in shown
        assert "Column 5-1" in shown
        await pilot.press("ctrl+r")
        await settle(pilot)
        entry = last_entry(app)
        assert entry["column"] == "5-1"
        assert any("stopped at the table's edge" in line for line in entry["trace"])


async def test_joker_after_the_roll_swaps_the_lines(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        set_factors(screen, "6", "2")
        await pilot.press("ctrl+t")
        await pilot.press("8", "enter")
        await settle(pilot)
        assert "F9: play Joker" in result(screen)
        await pilot.press("f9")
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        entry = last_entry(app)
        # Roll 8 at 3-1 is attacker "- 2", defender "2 -3": swapped, the attacker now
        # loses 2 and retreats 3, while the cell stays as printed.
        assert entry["cell"] == {"attacker": ["-", "2"], "defender": ["2", "-3"]}
        assert entry["effects"]["swapped"] is True
        assert entry["effects"]["attacker"] == {"factors_lost": 2, "retreat": 3}
        assert "Joker" in (entry.get("note") or "")
        assert "swapped" in result(screen)
        # A second after-roll card is not offered, and F9 says so.
        assert screen.after_roll_offers() == {}
        await pilot.press("f9")
        await pilot.pause()
        assert isinstance(app.screen, type(screen))
        assert notes(app)[-1] == (
            "No card can be played after the roll of entry 1: "
            "a card was played after its roll already (entry 2)."
        )


def logged_elsewhere(app: CrtDeskApp, entry: dict) -> None:
    """An entry another player's desk logged, as this desk's watcher brings it in."""
    assert app.session is not None
    app.session.take_entries([entry])


async def test_the_defenders_desk_plays_the_joker_on_the_attackers_last_roll(
    desk: Desk,
) -> None:
    """RULINGS: the card is played on the game's last combat from either player's desk (F9
    here said "No roll yet" after the other player's roll)."""
    from tui.engine import CombatInput, Unit, resolve

    async with desk(rulesets=["pod-super"]) as (app, pilot):
        combat = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8)
        theirs = saves.append_combat(app.game.path, combat, resolve(combat), who="alice")
        logged_elsewhere(app, theirs)
        await pilot.press("f9")
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        entry = last_entry(app)
        assert (entry["amends"], entry["who"]) == (theirs["seq"], "tester")
        assert entry["dice"] == theirs["dice"] and entry["cell"] == theirs["cell"]
        assert entry["effects"]["attacker"] == theirs["effects"]["defender"]
        assert entry["note"] == "Joker played by the defender after the roll of entry 1"
        assert "swapped" in result(app.screen)


async def test_a_card_after_the_next_roll_or_the_turn_is_refused(desk: Desk) -> None:
    from tui.engine import CombatInput, Unit, resolve

    async with desk(rulesets=["pod-super", "pod-basic"]) as (app, pilot):
        set_factors(app.screen, "6", "2")
        await pilot.press("ctrl+t", "8", "enter")
        await settle(pilot)
        # The other player rolls the next combat, on another screen: entry 1 is closed.
        basic = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=2)
        logged_elsewhere(app, saves.append_combat(app.game.path, basic, resolve(basic)))
        await pilot.press("f9")
        await pilot.pause()
        assert notes(app)[-1] == (
            "The game's last combat (entry 2) is a Pair-o-Dice, Basic game combat: "
            "F9 on its screen plays a card after it."
        )
        # The turn ends: the last combat is closed to cards too.
        logged_elsewhere(app, saves.advance_turn(app.game.path))
        await pilot.press("f9")
        await pilot.pause()
        assert notes(app)[-1] == (
            "No card can be played after the roll of entry 2: turn 2 has begun since (entry 3)."
        )
        assert len(saves.load_game(app.game.path).entries) == 3


async def test_stanfill_after_the_roll_cancels_a_basic_result(desk: Desk) -> None:
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        screen = app.screen
        set_factors(screen, "8", "2")
        await pilot.press("ctrl+t", "2", "enter")
        await settle(pilot)
        assert "Roll 2 on 4-1: DL2 / DR1" in result(screen)
        await pilot.press("f9")
        await pilot.pause()
        await pilot.press("a")
        await settle(pilot)
        entry = last_entry(app)
        assert entry["effects"]["cancelled"] is True
        assert "cancels the result" in entry["explanation"]
        assert "Stanfill" in result(screen)


async def test_ruleset_keys_switch_screens_and_keep_the_form(desk: Desk) -> None:
    async with desk(rulesets=["pod-basic", "pod-super", "ocs"]) as (app, pilot):
        units(app.screen, "attacker")[0].query_one(".factor", Input).value = "5"
        await pilot.press("f3")
        await pilot.pause()
        assert app.screen.ruleset == "pod-super"
        await pilot.press("f4")
        await pilot.pause()
        assert app.screen.ruleset == "ocs"
        await pilot.press("f2")
        await pilot.pause()
        assert units(app.screen, "attacker")[0].factor_text == "5"
        await pilot.press("f1")
        await pilot.pause()
        assert "Rulings:" in screen_text(app)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "StartScreen"


@pytest.mark.parametrize("ruleset", ["pod-basic", "pod-super", "pod-ultra"])
async def test_obstacles_only_in_ultra_and_preview_panel_exists(desk: Desk, ruleset: str) -> None:
    async with desk(rulesets=[ruleset]) as (app, pilot):
        assert bool(app.screen.query("#obstacle")) == (ruleset == "pod-ultra")
        assert app.screen.query_one(OddsPreview)


async def test_ultra_obstacle_is_exempt_from_av_and_mines_cdf_is_a_game_option(
    desk: Desk,
) -> None:
    async with desk(rulesets=["pod-ultra"]) as (app, pilot):
        screen = app.screen
        units(screen, "attacker")[0].query_one(".factor", Input).value = "13"
        screen.query_one("#obstacle", Cycle).value = "mines"
        await pilot.pause()
        # Mines CDF 2: 13 vs 2 is 6-1, but obstacles are exempt from AV: read on 5-1.
        shown = preview(screen)
        assert "Attack 13 · Defence 2 · odds 6-1" in shown and "Column 5-1" in shown
        mines = screen.query_one("#mines-cdf", Cycle)
        mines.focus()
        await pilot.press("space", "space", "space")  # 2 -> 3 -> 2 -> 3, quickly
        await pilot.pause()
        assert mines.value == 3 and "Defence 3 · odds 4-1" in preview(screen)
        await pilot.press("ctrl+r")  # the option still being cycled is logged first
        await settle(pilot)
        game = saves.load_game(app.game.path)
        assert game.options["mines_cdf"] == 3
        assert [e["kind"] for e in game.entries] == ["option", "combat"]  # one option entry
        entry = last_entry(app)
        assert entry["column"] == "4-1" and entry["inputs"]["mines_cdf"] == 3


async def test_ultra_obstacle_disables_the_defender_rows_and_says_why(desk: Desk) -> None:
    async with desk(rulesets=["pod-ultra"]) as (app, pilot):
        screen = app.screen
        units(screen, "attacker")[0].query_one(".factor", Input).value = "9"
        defender = units(screen, "defender")[0]
        defender.query_one(".factor", Input).value = "3"
        screen.query_one("#obstacle", Cycle).value = "mines"
        await pilot.pause()
        assert defender.disabled
        shown = preview(screen)
        assert "Defence 2" in shown
        assert "The mines obstacle defends (CDF 2): a loss of 2+ clears it" in shown
        # A defender added while the obstacle stands is not read either.
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert all(row.disabled for row in units(screen, "defender"))
        units(screen, "defender")[1].query_one(".factor", Input).value = "1"
        screen.query_one("#obstacle", Cycle).value = ""
        await pilot.pause()
        assert not any(row.disabled for row in units(screen, "defender"))
        assert "obstacle" not in preview(screen) and "Defence 4" in preview(screen)


async def test_f9_with_nothing_to_play_says_so(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        await pilot.press("f9")
        await pilot.pause()
        assert notes(app) == ["No roll yet: F9 plays a card after a roll."]


async def test_hero_draw_asks_before_it_rolls(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        before = app.rng.getstate()
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and app.rng.getstate() == before
        assert saves.load_game(app.game.path).entries == []
        # The defender held the site: no draw (it was offered to either victor).
        await pilot.press("ctrl+y", "d")
        await settle(pilot)
        assert app.rng.getstate() == before and saves.load_game(app.game.path).entries == []
        assert notes(app)[-1].startswith("No draw: the defender held the site, and only an")
        await pilot.press("ctrl+y", "a")
        await settle(pilot)
        entries = saves.load_game(app.game.path).entries
        assert [e["kind"] for e in entries] == ["event"]
        assert entries[0]["text"].endswith("the attacker draws one.")


async def test_the_palette_switches_rulesets(desk: Desk) -> None:
    async with desk(rulesets=["pod-super", "rivets"]) as (app, pilot):
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Switch to Rivets (f3)" in commands
        assert not any(t.startswith("Switch to Super") for t in commands)
        commands["Switch to Rivets (f3)"].callback()
        await pilot.pause()
        assert app.screen.ruleset == "rivets"


async def test_the_footer_fits_80_columns_with_every_key_it_lists(desk: Desk) -> None:
    async with desk(rulesets=["pod-ultra"]) as (app, pilot):
        keys = app.screen.query_one(KeyBar).shown_keys()
        shown = {key.action for key in keys}
        assert {"roll", "hand_dice", "after_roll", "hero_draw", "trace"} <= shown
        assert max(key.right for key in keys) <= 80
        # The unit-row keys are named beside the headings instead.
        assert "^n add" in screen_text(app) and "^g add" in screen_text(app)


async def test_a_choice_steps_and_jumps_by_key_and_the_preview_follows(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        set_factors(screen, "6", "2")
        await pilot.pause()
        terrain = units(screen, "defender")[0].query_one(".terrain", Cycle)
        assert terrain.value == "clear"
        terrain.focus()
        await pilot.press("right")
        assert terrain.value == "medal"
        await pilot.press("left", "left")
        assert terrain.value == "bridge"
        # A letter: the next value whose name starts with it, round the end; letters
        # typed together spell a name, and one that spells none starts again.
        await pilot.press("t")
        assert terrain.value == "town"
        await pilot.press("r", "r")
        assert terrain.value == "river"
        await pilot.press("o", "a")
        assert terrain.value == "road"
        await pilot.press("space")
        assert terrain.value == "sea"
        await pilot.press("x")  # no value starts with it: nothing changes
        assert terrain.value == "sea"
        await pilot.press("t", "o", "w", "n")
        await pilot.pause()
        assert str(terrain.render()) == "town ▸"
        # Town adds 1 to the defender's 2: the preview follows at once.
        assert "Defence 3" in screen.query_one(OddsPreview).content
        await pilot.click(terrain)
        assert terrain.value == "beach"
        with pytest.raises(ValueError, match="'fort' is not one of 'beach'"):
            terrain.value = "fort"
        assert terrain.value == "beach"


async def test_a_roll_that_could_not_be_saved_offers_no_card_after_it(desk: Desk) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        set_factors(screen, "6", "2")
        app.game.path.unlink()  # the save went away under the desk
        await pilot.press("ctrl+t", "8", "enter")
        await settle(pilot)
        assert screen.save_state.status == "failed"
        panel = screen.query_one(ResultPanel)
        assert panel.has_class("-save-failed") and "Not saved" in result(screen)
        assert "F9" not in result(screen) and screen.after_roll_offers() == {}
        await pilot.press("f9")
        await pilot.pause()
        assert notes(app)[-1] == "The last roll was not saved: no card can be played after it."
        # The form changing marks the result stale.
        set_factors(screen, "7", "2")
        await pilot.pause()
        assert panel.has_class("-stale")


async def test_a_card_after_a_desk_roll_names_the_entry_it_amends_and_keeps_its_dice(
    desk: Desk,
) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        screen = app.screen
        set_factors(screen, "6", "2")
        await pilot.press("ctrl+r")
        await settle(pilot)
        # Another player logs a combat in between: "the entry before" is no longer ours.
        saves.append_event(app.game.path, "aside", "another player's entry", who="other")
        await pilot.press("f9")
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        rolled, aside, amended = saves.load_game(app.game.path).entries
        assert aside["who"] == "other"
        assert amended["amends"] == rolled["seq"] == 1
        assert amended["dice"] == rolled["dice"]
        assert {die["source"] for die in amended["dice"]} == {"desk"}
        assert "entry 1" in amended["note"]


async def test_a_form_with_several_problems_names_every_one(desk: Desk) -> None:
    """Two factors beyond the game's range and a morale that is no number: the preview
    shows a line for each, and ctrl+r's refusal names all three; nothing is logged."""
    from tests.desk.test_keystroke_layout import shown_rows

    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, PodScreen)
        await pilot.press(*"1000", "enter", *"2000")
        screen.query_one("#morale-attack", Input).focus()
        await pilot.press("x")
        await settle(pilot)
        said = [
            "Attackers: 1000 is not allowed; expected a whole number from 0 to 999 per unit",
            "Defenders: 2000 is not allowed; expected a whole number from 0 to 999 per unit",
            "Morale A: 'x' is not a whole number (+ or -)",
        ]
        odds = screen.query_one(OddsPreview)
        rows = shown_rows(odds)  # the pane is narrow: a line wraps at its spaces
        assert rows[0] == "Odds: waiting for a valid form"
        assert all(line in " ".join(rows[1:]) for line in said)
        await pilot.press("ctrl+r")
        await settle(pilot)
        refusal = notes(app)[-1]
        assert refusal.startswith("Fix the form first: ")
        assert all(line in refusal for line in said)
        assert saves.load_game(app.game.path).entries == []
        # The morale put right: the two factors are still named, each.
        await pilot.press("backspace")
        await settle(pilot)
        drawn = " ".join(shown_rows(odds)[1:])
        assert said[0] in drawn and said[1] in drawn and "Morale" not in drawn
        # Both factors put right: the odds are shown and the roll is made.
        units(screen, "attacker")[0].query_one(".factor", Input).value = "8"
        units(screen, "defender")[0].query_one(".factor", Input).value = "2"
        await settle(pilot)
        assert shown_rows(odds)[0] == "Attack 8 · Defence 2 · odds 4-1"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert len(saves.load_game(app.game.path).entries) == 1


async def test_a_game_opened_again_shows_its_last_roll_fresh_over_the_form_it_was_rolled_from(
    desk: Desk, tmp_path
) -> None:
    """The form is filled with the last combat and the box shows that combat's roll: the
    box is not "form changed since" (it was, on every open); a key then marks it stale, and
    a second roll makes it fresh again."""
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("8", "tab", "2", "ctrl+r")
        await settle(pilot)
        assert app.game is not None and len(app.game.entries) == 1
    again = CrtDeskApp(saves_dir=tmp_path / "saves", game_path=tmp_path / "saves" / "game.toml")
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await settle(pilot)
        screen = again.screen
        assert isinstance(screen, PodScreen)
        assert [row.factor_text for row in screen.unit_rows("attacker")] == ["8"]
        assert [row.factor_text for row in screen.unit_rows("defender")] == ["2"]
        panel = screen.query_one(ResultPanel)
        assert panel.display and "Roll" in screen_text(again)
        assert not panel.has_class("-stale")
        assert "form changed since" not in str(panel.border_title)
        await pilot.press("backspace", "3")  # the focused factor typed over
        await pilot.pause()
        assert panel.has_class("-stale") and "form changed since" in str(panel.border_title)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert not panel.has_class("-stale") and len(again.game.entries) == 2
