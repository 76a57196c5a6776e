"""Pilot tests at 80x24: the Rivets and Day/Night screens, with dice entered by hand (so
every roll is fixed), the fast-entry keys on each, and a roll on a long campaign."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Static

from tests.conftest import Desk, make_app, screen_text, settle
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.combat import CombatScreen
from tui.desk.screens.daynight import DayNightScreen
from tui.desk.screens.dialogs import ChoiceScreen, HandDiceScreen, NumberScreen
from tui.desk.screens.rivets import RivetsScreen
from tui.desk.widgets.combat import Cycle
from tui.desk.widgets.result import ResultPanel
from tui.engine import CombatInput, Unit, resolve
from tui.game.session import KEPT_ENTRIES
from tui.saves import encoding


def preview(screen: CombatScreen) -> str:
    return "\n".join(str(w.content) for w in screen.query("OddsPreview").results(Static))


def result(screen: CombatScreen) -> str:
    return "\n".join(str(w.content) for w in screen.query("ResultPanel Static").results(Static))


def entries(app: CrtDeskApp) -> list[dict]:
    assert app.game is not None
    return saves.load_game(app.game.path).entries


async def type_factors(pilot: Pilot, attack: str, defense: str) -> None:
    """Type into the first attack factor (focused on opening), Tab, the first defence."""
    await pilot.press(*attack, "tab", *defense)
    await pilot.pause()


async def hand_roll(pilot: Pilot, *rows: str) -> None:
    """ctrl+t, then each row typed into the hand-dice dialog."""
    await pilot.press("ctrl+t")
    for row in rows:
        await pilot.pause()
        assert isinstance(pilot.app.screen, HandDiceScreen)
        await pilot.press(*row, "enter")
    await settle(pilot)


# ---------------------------------------------------------------- Rivets


async def test_rivets_combat_overrun_and_ax(desk: Desk) -> None:
    async with desk(rulesets=["rivets"]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, RivetsScreen)
        assert "A1: enter an attack" in preview(screen) and "D1: enter a defence" in preview(screen)
        await type_factors(pilot, "8", "4")
        shown = preview(screen)
        assert "Attack 8 · Defence 4 · odds 2-1" in shown and "Chances on 2-1 (1d6)" in shown
        # Roll 2 on 2-1 is NE; every result's chance is shown in words.
        assert "D: ret 1" in shown and "no effect" in shown
        await hand_roll(pilot, "2")
        entry = entries(app)[-1]
        assert (entry["column"], entry["roll"], entry["cell"]) == ("2-1", "2", "NE")
        assert "Roll 2 on 2-1: NE" in result(screen)
        # An AX: 1 against 5 reads 1-5; roll 3 there destroys the attackers.
        screen.query(".factor").first(Input).value = "1"
        screen.query(".factor").last(Input).value = "5"
        await pilot.pause()
        assert screen.query_one(ResultPanel).has_class("-stale")
        await hand_roll(pilot, "3")
        entry = entries(app)[-1]
        assert (entry["column"], entry["cell"]) == ("1-5", "AX")
        assert "Attacker is eliminated" in result(screen)
        # An overrun at 6-1: no die, the defenders eliminated during movement.
        screen.query(".factor").first(Input).value = "18"
        screen.query(".factor").last(Input).value = "3"
        await pilot.pause()
        assert "Overrun" in preview(screen) and "Chances on" not in preview(screen)
        await pilot.press("ctrl+r")
        await settle(pilot)
        entry = entries(app)[-1]
        assert entry["effects"]["result"] == "overrun" and entry["dice"] == []
        # The enemy BCPC cannot be overrun: the same odds are rolled.
        screen.query_one("#bcpc", Checkbox).value = True
        await pilot.pause()
        assert "Overrun" not in preview(screen) and "Chances on 6-1" in preview(screen)
        await hand_roll(pilot, "1")
        entry = entries(app)[-1]
        assert entry["inputs"]["bcpc"] is True and entry["cell"] == "DX" and entry["roll"] == "1"
        assert len(entries(app)) == 4


# ---------------------------------------------------------------- Day/Night


async def open_daynight(pilot: Pilot, attack: str, defense: str) -> DayNightScreen:
    screen = pilot.app.screen
    assert isinstance(screen, DayNightScreen)
    await type_factors(pilot, attack, defense)
    screen.query_one("#at-attacker", Input).value = "0711"
    screen.query_one("#at-defender", Input).value = "0712"
    await pilot.pause()
    return screen


async def test_daynight_eng_reroll_with_a_reserve(desk: Desk) -> None:
    async with desk(rulesets=["daynight"]) as (app, pilot):
        screen = await open_daynight(pilot, "4", "4")
        assert "odds 1-1" in preview(screen) and "Column 1-1" in preview(screen)
        # Row 4 at 1-1 by day is ENG: the desk asks for a reserve, then the re-roll.
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("4", "enter")
        await pilot.pause()
        assert isinstance(app.screen, NumberScreen)
        await pilot.press("4", "enter")  # a reserve of 4: 8 vs 4 is 2-1
        await pilot.pause()
        assert isinstance(app.screen, HandDiceScreen)
        await pilot.press("1", "enter")  # row 1 at 2-1 is D1
        await settle(pilot)
        entry = entries(app)[-1]
        assert entry["cell"] == "D1" and entry["column"] == "2-1"
        assert entry["inputs"]["reserve"] == 4 and entry["inputs"]["rerolls"] == [1]
        assert [step["cell"] for step in entry["effects"]["battle"]] == ["ENG", "D1"]
        assert len(entries(app)) == 1  # the whole battle is one entry


async def test_daynight_btl_reroll_with_a_step_loss(desk: Desk) -> None:
    async with desk(rulesets=["daynight"]) as (app, pilot):
        await open_daynight(pilot, "4", "4")
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("5", "enter")  # row 5 at 1-1 is BTL
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("y")  # press on with a voluntary step loss
        await pilot.pause()
        await pilot.press("1", "enter")  # row 1 at 1-1 is D1
        await settle(pilot)
        entry = entries(app)[-1]
        assert entry["cell"] == "D1" and entry["inputs"]["press_on"] is True
        assert entry["effects"]["attacker"]["steps_lost"] == 1
        assert [step["cell"] for step in entry["effects"]["battle"]] == ["BTL", "D1"]


async def test_daynight_second_eng_ends_the_battle_with_markers(desk: Desk) -> None:
    async with desk(rulesets=["daynight"]) as (app, pilot):
        await open_daynight(pilot, "4", "4")
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("4", "enter")  # ENG
        await pilot.pause()
        await pilot.press("enter")  # no reserve: rolled again at the same odds
        await pilot.pause()
        await pilot.press("4", "enter")  # ENG again: the battle ends engaged
        await settle(pilot)
        entry = entries(app)[-1]
        assert entry["cell"] == "ENG"
        assert [step["cell"] for step in entry["effects"]["battle"]] == ["ENG", "ENG"]
        placed = {(m["kind"], m["side"], m["target"]) for m in entry["markers"]}
        assert placed == {("engaged", "attacker", "0711"), ("engaged", "defender", "0712")}
        kinds = {(m.kind, m.target) for m in app.game.markers}
        assert kinds == {("engaged", "0711"), ("engaged", "0712")}


async def test_daynight_attacker_retreat_is_disorganized(desk: Desk) -> None:
    async with desk(rulesets=["daynight"]) as (app, pilot):
        await open_daynight(pilot, "4", "4")
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("6", "enter")  # row 6 at 1-1 is A1
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("r")
        await settle(pilot)
        entry = entries(app)[-1]
        assert entry["cell"] == "A1" and entry["inputs"]["attacker_retreats"] is True
        assert [(m["kind"], m["target"]) for m in entry["markers"]] == [("disorganized", "0711")]


async def test_daynight_preview_folds_the_battle_and_reads_the_form(desk: Desk) -> None:
    async with desk(rulesets=["daynight"]) as (app, pilot):
        screen = await open_daynight(pilot, "9", "3")
        screen.query_one("#time", Cycle).value = "night"
        screen.query_one("#terrain", Cycle).value = "woods"
        screen.query_one("#drm", Input).value = "x"
        await pilot.pause()
        assert "Net DRM: 'x' is not a whole number (+ or -)" in preview(screen)
        screen.query_one("#drm", Input).value = "-1"
        await pilot.pause()
        shown = preview(screen)
        expected = resolve(
            CombatInput(
                "daynight",
                attackers=(Unit(9),),
                defenders=(Unit(3),),
                time="night",
                terrain="woods",
                drm=-1,
                roll=1,
                hold=False,
            )
        )
        assert f"odds {expected.odds}" in shown and f"Column {expected.column}" in shown


# ---------------------------------------------------------------- on every new screen


@pytest.mark.parametrize("ruleset", ["rivets", "daynight"])
async def test_fast_entry_writes_one_combat(desk: Desk, ruleset: str) -> None:
    async with desk(rulesets=[ruleset]) as (app, pilot):
        await pilot.press("1", "2", "tab", "3", "ctrl+r")
        await settle(pilot)
        log = entries(app)
        assert [e["kind"] for e in log] == ["combat"]
        assert [u["factor"] for u in log[0]["inputs"]["attackers"]] == [12]
        assert [u["factor"] for u in log[0]["inputs"]["defenders"]] == [3]
        assert log[0]["dice"][0]["source"] == "desk"
        assert "Logged as entry 1" in result(app.screen)
        assert "Turn 1" in app.screen.sub_title


async def test_help_and_footer_list_only_this_screens_keys(desk: Desk) -> None:
    async with desk(rulesets=["rivets", "pod-basic"]) as (app, pilot):
        keys = set(app.screen._bindings.key_to_bindings)
        assert "ctrl+r" in keys and "f9" not in keys and "ctrl+y" not in keys
        # Hero #15 Engineer/Frogman is a Pair-o-Dice card: not a key on Rivets.
        assert "ctrl+z" not in keys
        await pilot.press("f1")
        await pilot.pause()
        text = screen_text(app)
        assert "ctrl+r" in text and "f9" not in text and "ctrl+y" not in text
        assert "ctrl+z" not in text and "Frogman" not in text


def big_save(folder: Path, count: int) -> Path:
    """A Rivets save of `count` combats, written as the store writes them."""
    path = folder / "long.toml"
    saves.new_game(path, "Long campaign", ["rivets"], {})
    combat = CombatInput("rivets", attackers=(Unit(8),), defenders=(Unit(4),), roll=3)
    record = resolve(combat).to_dict()
    record.pop("ruleset")
    first = saves.append_combat(path, combat, resolve(combat), who="bench")
    blocks = [
        encoding._block(first | record | {"seq": seq, "ruleset": "rivets"})
        for seq in range(2, count + 1)
    ]
    with path.open("ab") as handle:
        handle.write(b"".join(blocks))
    return path


async def test_a_roll_on_a_long_campaign_is_recorded_in_a_worker(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    path = big_save(folder, 10_000)
    app = make_app(folder)
    app.game_path = path
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        # The desk keeps the campaign's last entries; its turn and markers come from all.
        assert isinstance(screen, RivetsScreen) and app.game.entries[-1]["seq"] == 10_000
        assert len(app.game.entries) == KEPT_ENTRIES
        loads: list[Path] = []
        real_load = saves.load_game
        saves.load_game = lambda p: loads.append(p) or real_load(p)  # type: ignore[assignment]
        try:
            await type_factors(pilot, "8", "4")
            await pilot.press("ctrl+r")
            await pilot.pause()
            # The screen answers while the worker records.
            await pilot.press("backspace", "6")
            await settle(pilot)
        finally:
            saves.load_game = real_load  # type: ignore[assignment]
        assert screen.save_state.status == "saved"
        assert screen.save_state.entry["seq"] == 10_001
        assert app.game.entries[-1]["seq"] == 10_001 and loads == []
        assert len(app.game.entries) == KEPT_ENTRIES
        assert "Defence 6" in preview(screen)


async def test_an_entry_the_watcher_took_first_reads_nothing_again(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file watcher may read this desk's roll before the recording worker hands it
    over: the game is then up to date, and the save is not read whole again."""
    async with desk(rulesets=["rivets"]) as (app, pilot):
        loads: list[Path] = []
        real_load, real_append = saves.load_game, saves.append_combat

        def append_seen_first(*args: object, **kwargs: object) -> dict:
            entry = real_append(*args, **kwargs)  # type: ignore[arg-type]
            app.call_from_thread(app.session.take_entries, [entry])  # the watcher, first
            return entry

        monkeypatch.setattr(saves, "append_combat", append_seen_first)
        monkeypatch.setattr(saves, "load_game", lambda p: loads.append(p) or real_load(p))
        await type_factors(pilot, "8", "4")
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen = app.screen
        assert screen.save_state.status == "saved" and screen.save_state.entry["seq"] == 1
        assert [entry["seq"] for entry in app.game.entries] == [1]
        assert loads == []


async def test_the_trace_is_one_key_away_and_full_width(desk: Desk) -> None:
    from tui.desk.screens.dialogs import TraceScreen

    async with desk(rulesets=["rivets"]) as (app, pilot):
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert not isinstance(app.screen, TraceScreen)
        assert "No roll yet" in str(list(app._notifications)[-1].message)
        await type_factors(pilot, "8", "4")
        await hand_roll(pilot, "2")
        await pilot.press("ctrl+f")
        await pilot.pause()
        trace = app.screen
        assert isinstance(trace, TraceScreen)
        body = trace.query_one(".trace-body")
        assert body.region.width >= 78  # the terminal's width, not a 37-column box
        shown = screen_text(app)
        entry = entries(app)[-1]
        assert all(step in shown for step in entry["trace"])
        assert f"Logged as entry {entry['seq']}" in shown
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert isinstance(app.screen, RivetsScreen)


async def test_a_tick_box_differs_in_shape_not_only_colour(desk: Desk) -> None:
    async with desk(rulesets=["rivets"]) as (app, pilot):
        box = app.screen.query_one("#bcpc", Checkbox)
        assert box.render().plain.startswith("▐ ▌")
        box.value = True
        await pilot.pause()
        assert box.render().plain.startswith("▐X▌")
