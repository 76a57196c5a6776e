"""Every dialog of the desk lets go, at 80x24, as a player meets each one: Esc closes it and
logs nothing (the save's entries are the same before and after), Enter takes the
highlighted choice, Up/Down move the highlight where there are choices, and the dialog's
last line says so. The card played after a roll (F9) included: its dialog once took only
`a` or `d`, and Esc opened it again."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, SelectionList, Static

from tests.conftest import SIZE
from tui import saves
from tui.desk.app import CrtDeskApp
from tui.desk.screens.combat import CombatScreen
from tui.desk.screens.review import ReviewScreen
from tui.desk.screens.start import StartScreen


async def calm(pilot: Any) -> None:
    """Settled: every worker done (a roll, a save), or a dialog open (a roll's worker waits
    on it), and what they drew laid out."""
    app = pilot.app
    for _ in range(200):
        await pilot.pause(0.02)
        if isinstance(app.screen, ModalScreen) or all(w.is_finished for w in app.workers):
            break
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def entries(app: CrtDeskApp) -> list[dict[str, Any]]:
    assert app.game is not None
    return saves.load_game(app.game.path).entries


def last_line(screen: ModalScreen[Any]) -> str:
    """What a dialog's last line says: the hint under a small dialog, the keys the Footer
    shows under a full-screen one (each as the Footer draws it: key, then what it does)."""
    boxes = list(screen.query(".dialog").results(Vertical))
    if boxes:
        last = boxes[0].children[-1]
        assert isinstance(last, Static), f"{type(screen).__name__} ends with {last!r}"
        return str(last.content)
    assert isinstance(screen.children[-1], Footer), f"{type(screen).__name__} has no last line"
    # As the Footer shows them: each action once, with its first key.
    shown: dict[str, Any] = {}
    for _, binding, _, _ in screen.active_bindings.values():
        if binding.show:
            shown.setdefault(binding.action, binding)
    return " ".join(f"{screen.app.get_key_display(b)} {b.description}" for b in shown.values())


def check_last_line(screen: ModalScreen[Any]) -> None:
    """Esc and Enter are named, and Up/Down where the dialog has choices."""
    said = last_line(screen).lower()
    name = type(screen).__name__
    assert "esc" in said and "enter" in said, f"{name}: {said!r}"
    if screen.query(OptionList) or screen.query(SelectionList):
        assert "up/down" in said, f"{name}: {said!r}"


async def esc_lets_go(
    app: CrtDeskApp, pilot: Any, opening: Sequence[str], dialog: str, typed: Sequence[str] = ()
) -> None:
    """Open a dialog with `opening`, type `typed` into it, press Esc: it is closed, the
    screen under it is back, and nothing more is logged."""
    under = app.screen
    before = entries(app)
    await pilot.press(*opening)
    await calm(pilot)
    assert type(app.screen).__name__ == dialog, f"{opening} opened {app.screen!r}"
    check_last_line(app.screen)
    await pilot.press(*typed, "escape")
    await calm(pilot)
    assert app.screen is under, f"Esc left {app.screen!r} after {opening}"
    assert entries(app) == before, f"Esc on {dialog} ({opening}) logged something"


def game_with_markers(folder: Path, rulesets: list[str]) -> CrtDeskApp:
    folder.mkdir()
    path = folder / "game.toml"
    saves.new_game(path, "Dialogs", rulesets, {})
    saves.add_marker(path, "no-entry", "0712")
    saves.add_marker(path, "no-entry", "0813")
    return CrtDeskApp(saves_dir=folder, game_path=path, rng=random.Random(7), player="tester")


async def test_esc_closes_every_dialog_of_a_combat_screen_and_logs_nothing(
    tmp_path: Path,
) -> None:
    app = game_with_markers(tmp_path / "saves", ["pod-basic", "pod-boom", "ocs"])
    async with app.run_test(size=SIZE) as pilot:
        await calm(pilot)
        assert isinstance(app.screen, CombatScreen)
        await pilot.press("8", "enter", "2", "ctrl+r")
        await calm(pilot)
        assert len(entries(app)) == 3  # the two markers, the roll
        await esc_lets_go(app, pilot, ["f1"], "HelpScreen")
        await esc_lets_go(app, pilot, ["ctrl+f"], "TraceScreen")
        await esc_lets_go(app, pilot, ["f12"], "NoteScreen", typed=["x"])
        await esc_lets_go(app, pilot, ["ctrl+t"], "HandDiceScreen", typed=["5"])
        await esc_lets_go(app, pilot, ["f9"], "ChoiceScreen")  # the card after the roll
        await esc_lets_go(app, pilot, ["ctrl+s"], "ChoiceScreen")  # the next turn
        await esc_lets_go(app, pilot, ["ctrl+y"], "ChoiceScreen")  # the Hero Site draw
        await esc_lets_go(app, pilot, ["ctrl+backslash"], "ChoiceScreen")
        await esc_lets_go(app, pilot, ["ctrl+backslash", "p"], "PlaceMarkerScreen", ["D", "G"])
        await esc_lets_go(app, pilot, ["ctrl+backslash", "l"], "MarkerPickScreen")
        await esc_lets_go(app, pilot, ["ctrl+z"], "MarkerPickScreen")  # Frogman: 2 hexes
        # An OCS roll asks its options in dialogs: Esc on the first cancels the roll.
        await pilot.press("f4")
        await calm(pilot)
        ocs = app.screen
        assert isinstance(ocs, CombatScreen)
        ocs.unit_rows("attacker")[0].factor_input.value = "12"
        ocs.unit_rows("defender")[0].factor_input.value = "3"
        await calm(pilot)
        await esc_lets_go(app, pilot, ["ctrl+r"], "ChoiceScreen")
        # The log: a turn to jump to, a note.
        await pilot.press("ctrl+l")
        await calm(pilot)
        assert isinstance(app.screen, ReviewScreen)
        await esc_lets_go(app, pilot, ["g"], "NumberScreen", typed=["1"])
        await esc_lets_go(app, pilot, ["n"], "NoteScreen", typed=["x"])


async def test_esc_closes_the_start_screens_dialogs(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "other.toml", "Other", ["rivets"], {})
    app = CrtDeskApp(saves_dir=folder, rng=random.Random(1), player="tester")
    async with app.run_test(size=SIZE) as pilot:
        await calm(pilot)
        start = app.screen
        assert isinstance(start, StartScreen)
        for opening, typed in ((["f1"], []), (["n"], [*"Kursk", "tab", "down", "space"])):
            await pilot.press(*opening)
            await calm(pilot)
            assert isinstance(app.screen, ModalScreen)
            check_last_line(app.screen)
            await pilot.press(*typed, "escape")
            await calm(pilot)
            assert app.screen is start
        assert sorted(p.name for p in folder.glob("*.toml")) == ["other.toml"]


@pytest.mark.parametrize(("ruleset", "card"), [("pod-basic", "Stanfill"), ("pod-super", "Joker")])
async def test_the_card_dialog_answers_esc_enter_and_the_arrows(
    desk: Any, ruleset: str, card: str
) -> None:
    async with desk(rulesets=[ruleset]) as (app, pilot):
        combat = app.screen
        # 8 Enter 2 ctrl+r F9 Escape: the dialog goes, and no card is logged.
        await pilot.press("8", "enter", "2", "ctrl+r")
        await calm(pilot)
        await pilot.press("f9")
        await calm(pilot)
        dialog = app.screen
        assert isinstance(dialog, ModalScreen)
        said = last_line(dialog)
        assert said.startswith("Up/Down Enter") and "Esc cancels" in said, said
        await pilot.press("escape")
        await calm(pilot)
        assert app.screen is combat
        assert [e["kind"] for e in entries(app)] == ["combat"]
        # The other keys that once did nothing: n and q are no card either.
        await pilot.press("f9", "n", "q")
        await calm(pilot)
        assert isinstance(app.screen, type(dialog)) and len(entries(app)) == 1
        await pilot.press("escape")
        await calm(pilot)
        assert app.screen is combat and len(entries(app)) == 1
        # F9 Enter: the highlighted card, the attacker's (the first).
        await pilot.press("f9", "enter")
        await calm(pilot)
        assert app.screen is combat
        played = entries(app)[-1]
        assert played["amends"] == 1
        assert played["note"] == f"{card} played by the attacker after the roll of entry 1"
        # A new roll; F9 Down Enter: the second choice, the defender's card.
        await pilot.press("ctrl+r")
        await calm(pilot)
        await pilot.press("f9", "down", "enter")
        await calm(pilot)
        played = entries(app)[-1]
        assert played["note"] == f"{card} played by the defender after the roll of entry 3"
        assert len(entries(app)) == 4


async def test_down_and_enter_pick_the_second_choice_of_each_choice_dialog(
    tmp_path: Path,
) -> None:
    app = game_with_markers(tmp_path / "saves", ["pod-basic"])
    async with app.run_test(size=SIZE) as pilot:
        await calm(pilot)
        combat = app.screen
        # A marker by hand: n nothing, p place, l lift. Down Enter: place (its dialog).
        await pilot.press("ctrl+backslash", "down", "enter")
        await calm(pilot)
        assert type(app.screen).__name__ == "PlaceMarkerScreen"
        await pilot.press("escape")
        await calm(pilot)
        # Frogman: two No-entry hexes; Down Enter lifts the second.
        await pilot.press("ctrl+z", "down", "enter")
        await calm(pilot)
        assert app.screen is combat
        lifted = entries(app)[-1]
        assert (lifted["kind"], lifted["target"]) == ("remove-marker", "0813"), lifted
        # The Hero Site draw: n nobody, a attacker, d defender. Down Enter: the attacker.
        await pilot.press("ctrl+y", "down", "enter")
        await calm(pilot)
        assert entries(app)[-1]["kind"] == "event"
        # The next turn: n no, y yes. Down Enter: yes.
        await pilot.press("ctrl+s", "down", "enter")
        await calm(pilot)
        assert app.screen is combat
        assert saves.load_game(app.game.path).turn == 2
