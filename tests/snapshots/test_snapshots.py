"""Snapshots of what a person sees at 80x24: the start screen and each Pair-o-Dice screen
mid-combat. Regenerate with `pytest --snapshot-update` and review the SVGs by eye."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.conftest import settle
from tui import saves
from tui.desk.app import CrtDeskApp

SIZE = (80, 24)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "saves"
    path.mkdir()
    return path


def test_start_screen(snap_compare, folder: Path) -> None:
    saves.new_game(folder / "kasserine.toml", "Kasserine Pass", ["ocs", "daynight"], {})
    saves.new_game(
        folder / "normandy.toml", "Normandy '44", ["pod-super", "pod-ultra", "pod-boom"], {}
    )
    app = CrtDeskApp(saves_dir=Path("saves"), rng=random.Random(1), player="tester")
    assert snap_compare(app, terminal_size=SIZE)


def _game(folder: Path, ruleset: str) -> CrtDeskApp:
    saves.new_game(folder / "game.toml", "Bastogne", ["pod-basic", "pod-super", "pod-ultra"], {})
    app = CrtDeskApp(
        saves_dir=Path("saves"),
        game_path=Path("saves/game.toml"),
        rng=random.Random(3),
        player="tester",
    )
    return app


async def steady(pilot: Pilot) -> None:
    """Settled, with the text cursor drawn whatever the blink's phase."""
    for field in pilot.app.screen.query(Input).results(Input):
        field.cursor_blink = False
    await settle(pilot)


def _typing(ruleset: str, attack: list[str], defense: str, roll: bool):
    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        app.show_ruleset(ruleset)
        await pilot.pause()
        screen = app.screen
        for _ in attack[1:]:
            await pilot.press("ctrl+n")
        await pilot.pause()
        rows = list(screen.query("#attackers .factor").results(Input))
        for field, value in zip(rows, attack, strict=True):
            field.value = value
        screen.query_one("#defenders .factor", Input).value = defense
        await pilot.pause()
        if roll:
            await pilot.press("ctrl+r")
        await steady(pilot)

    return run_before


@pytest.mark.parametrize(
    ("ruleset", "attack", "defense", "roll"),
    [
        ("pod-basic", ["5", "3"], "2", False),
        ("pod-super", ["7"], "2", False),
        ("pod-ultra", ["6"], "2", True),
    ],
)
def test_pod_screen(
    snap_compare, folder: Path, ruleset: str, attack: list[str], defense: str, roll: bool
) -> None:
    app = _game(folder, ruleset)
    assert snap_compare(app, terminal_size=SIZE, run_before=_typing(ruleset, attack, defense, roll))


def _new_screen_game(folder: Path, ruleset: str) -> CrtDeskApp:
    saves.new_game(folder / "game.toml", "Kursk", [ruleset], {})
    return CrtDeskApp(
        saves_dir=Path("saves"),
        game_path=Path("saves/game.toml"),
        rng=random.Random(3),
        player="tester",
    )


@pytest.mark.parametrize("ruleset", ["rivets", "daynight"])
def test_new_combat_screen(snap_compare, folder: Path, ruleset: str) -> None:
    async def run_before(pilot: Pilot) -> None:
        # Typed as soon as the app runs, before its first frame (the desk holds the keys).
        await pilot.press("1", "2", "tab", "3", "ctrl+r")
        await steady(pilot)

    app = _new_screen_game(folder, ruleset)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_ocs_screen(snap_compare, folder: Path) -> None:
    """Two attackers and one defender: the form and the preview's first results fit."""

    async def run_before(pilot: Pilot) -> None:
        from tui.desk.widgets.ocs import OcsUnitRow

        await pilot.press("ctrl+n")
        await pilot.pause()
        units = [("21 Pz", "6", "3", "4"), ("Ariete", "4", "2", "3"), ("2 NZ", "2", "2", "3")]
        rows = list(pilot.app.screen.query(OcsUnitRow).results(OcsUnitRow))
        for row, values in zip(rows, units, strict=True):
            for key, value in zip(("unit-name", "factor", "steps", "ar"), values, strict=True):
                row.field(key).value = value
        rows[-1].field("re").value = "1"
        await steady(pilot)

    app = _new_screen_game(folder, "ocs")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_boom_screen(snap_compare, folder: Path) -> None:
    """A bomber mission typed and rolled: the marker panel, the result with its astray
    hex, and the whole mission's chances below it."""

    async def run_before(pilot: Pilot) -> None:
        screen = pilot.app.screen
        await pilot.press("ctrl+n", "ctrl+n")
        await pilot.pause()
        for field, value in zip(
            screen.query("#attackers .factor").results(Input), "422", strict=True
        ):
            field.value = value
        screen.query_one("#defenders .factor", Input).value = "3"
        screen.query_one("#target", Input).value = "0712"
        screen.query_one("#range", Input).value = "8"
        screen.query_one("#distance", Input).value = "5"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await steady(pilot)

    app = _new_screen_game(folder, "pod-boom")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_review_screen(snap_compare, folder: Path, size: tuple[int, int]) -> None:
    from tests.review_save import campaign

    campaign(folder, 1000)

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        pilot.app.screen.set_filter_text("turn:1")
        pilot.app.screen.table.move_cursor(4)  # entry 5: a card was played after its roll
        await steady(pilot)

    app = CrtDeskApp(
        saves_dir=Path("saves"),
        game_path=Path("saves/campaign.toml"),
        rng=random.Random(3),
        player="tester",
        review=True,
    )
    assert snap_compare(app, terminal_size=size, run_before=run_before)


# Eight markers in play, of every game's kinds: each screen lists its own.
EIGHT_MARKERS = [
    ("no-entry", "0712", "both", 2),
    ("no-entry", "0911", "both", None),
    ("hero-site", "1204", "Allied", None),
    ("DG", "2 NZ", "defender", 1),
    ("exploitation", "21 Pz", "attacker", None),
    ("low", "Ariete", "attacker", None),
    ("engaged", "0711", "attacker", None),
    ("buddy-card", "#19 Margaret Stanfill", "Allied", None),
]
# Each ruleset's combat, as (attacker factors, defender factor, the form's other fields).
ROLLED = {
    "pod-basic": (["5"], "2", {}),
    "pod-super": (["5", "3"], "3", {}),
    "pod-ultra": (["6"], "2", {}),
    "pod-boom": (["4", "4", "2"], "1", {"#target": "0712", "#range": "8", "#distance": "5"}),
    "ocs": (["6", "4"], "2", {}),
    "rivets": (["7"], "4", {}),
    "daynight": (["8"], "3", {}),
}


def _marked_game(folder: Path) -> CrtDeskApp:
    path = folder / "game.toml"
    saves.new_game(path, "Eight markers", list(ROLLED), {})
    for kind, target, side, turns in EIGHT_MARKERS:
        saves.add_marker(path, kind, target, side=side, turns=turns)
    return CrtDeskApp(
        saves_dir=Path("saves"),
        game_path=Path("saves/game.toml"),
        rng=random.Random(3),
        player="tester",
    )


def _rolled(ruleset: str):
    async def run_before(pilot: Pilot) -> None:
        from tui.desk.screens.dialogs import ChoiceScreen

        app = pilot.app
        app.show_ruleset(ruleset)
        await pilot.pause()
        attack, defense, fields = ROLLED[ruleset]
        for _ in attack[1:]:
            await pilot.press("ctrl+n")
        await pilot.pause()
        screen = app.screen
        rows = list(screen.query("#attackers .factor").results(Input))
        for field, value in zip(rows, attack, strict=True):
            field.value = value
        screen.query_one("#defenders .factor", Input).value = defense
        for selector, value in fields.items():
            screen.query_one(selector, Input).value = value
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        while isinstance(app.screen, ChoiceScreen):  # OCS options: the first choice
            await pilot.press("enter")
            await pilot.pause()
        await steady(pilot)

    return run_before


@pytest.mark.parametrize("ruleset", list(ROLLED))
def test_after_a_roll_with_eight_markers(snap_compare, folder: Path, ruleset: str) -> None:
    """At 80x24 after a roll: the markers in a line or three, the result in a few rows and
    at least five of the chances under it, nothing scrolled."""
    app = _marked_game(folder)
    assert snap_compare(app, terminal_size=SIZE, run_before=_rolled(ruleset))


def test_a_combat_screen_at_120x40(snap_compare, folder: Path) -> None:
    app = _marked_game(folder)
    assert snap_compare(app, terminal_size=(120, 40), run_before=_rolled("pod-super"))


# Each dialog (and help) over the screen it is asked from, at 80x24: (ruleset, attack,
# defence, the keys that open it; "settle" waits for the roll's save).
DIALOGS = {
    "hand-dice": ("pod-super", "6", "2", ["ctrl+t"]),
    "next-turn": ("pod-super", "6", "2", ["ctrl+s"]),
    "after-roll": ("pod-super", "6", "2", ["ctrl+t", "8", "enter", "settle", "f9"]),
    "trace": ("pod-super", "6", "2", ["ctrl+t", "8", "enter", "settle", "ctrl+f"]),
    "note": ("pod-super", "6", "2", ["ctrl+t", "8", "enter", "settle", "f12"]),
    "marker-by-hand": ("rivets", "7", "4", ["ctrl+backslash"]),
    "place-marker": ("rivets", "7", "4", ["ctrl+backslash", "p"]),
    "frogman-pick": ("pod-super", "6", "2", ["ctrl+z"]),
    "eng-reserve": ("daynight", "8", "3", ["ctrl+t", "5", "enter"]),
    "help": ("ocs", "6", "2", ["f1"]),
}


@pytest.mark.parametrize("dialog", list(DIALOGS))
def test_dialog(snap_compare, folder: Path, dialog: str) -> None:
    """Each dialog says its keys in its last line; the screen under it stays as it was."""
    ruleset, attack, defense, keys = DIALOGS[dialog]

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        app.show_ruleset(ruleset)
        await pilot.pause()
        app.screen.query_one("#attackers .factor", Input).value = attack
        app.screen.query_one("#defenders .factor", Input).value = defense
        for key in keys:
            await (settle(pilot) if key == "settle" else pilot.press(key))
        # The dialog's worker waits for an answer: settled without waiting for workers.
        for field in app.screen.query(Input).results(Input):
            field.cursor_blink = False
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    app = _marked_game(folder)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_new_game_dialog(snap_compare, folder: Path) -> None:
    saves.new_game(folder / "kasserine.toml", "Kasserine Pass", ["ocs", "daynight"], {})

    async def run_before(pilot: Pilot) -> None:
        await pilot.press("n")
        await steady(pilot)

    app = CrtDeskApp(saves_dir=Path("saves"), rng=random.Random(1), player="tester")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# The units screen (ctrl+]) over the eight-markers game, its OCS units imported: three of
# them carry a marker, one lost a step; then the form that adds a unit, over it.
UNITS = [
    {"name": "21 Pz", "side": "Axis", "hex": "0712", "factor": 6, "steps": 3, "ar": 4},
    {"name": "Ariete", "side": "Axis", "hex": "0711", "factor": 4, "steps": 2, "ar": 3},
    {"name": "2 NZ", "side": "Allied", "hex": "0811", "factor": 2, "steps": 2, "ar": 3},
    {"name": "Kampfgruppe [DR]", "side": "Axis", "factor": 3, "steps": 1, "ar": 2},
]


@pytest.mark.parametrize("keys", [[], ["ctrl+n"]], ids=["list", "form"])
def test_units_screen(snap_compare, folder: Path, keys: list[str]) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("ctrl+right_square_bracket", *keys)
        for field in pilot.app.screen.query(Input).results(Input):
            field.cursor_blink = False
        await pilot.pause()

    app = _marked_game(folder)
    saves.import_units(folder / "game.toml", UNITS, source="oob.csv")
    saves.take_losses(folder / "game.toml", [{"unit": "2 NZ", "steps": 1}])
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
