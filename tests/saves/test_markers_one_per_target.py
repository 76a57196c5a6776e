"""RULINGS, "Markers": one No-entry marker per hex (a new strike keeps the longer duration,
no end outlasting any number; the Frogman opens the hex), one marker of a kind per unit
(the later entry its source), Exhausted replacing Low. The replay decides it, so a save
loaded, a game read entry by entry and a game appended to all agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Desk, settle
from tests.desk.test_desk_boom import fill, hand_dice
from tests.desk.test_desk_boom import markers as boom_markers
from tests.saves.test_saves import boom
from tui import saves
from tui.desk.widgets.markers import MarkerPanel


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.toml"
    saves.new_game(path, "Test game", ["pod-boom", "ocs", "daynight"])
    return path


def in_play(path: Path) -> list[tuple[str, str, int | None, int]]:
    loaded = saves.load_game(path)
    return [(m.kind, m.target, m.turns_left, m.placed_by) for m in loaded.markers]


def test_two_strikes_on_one_hex_leave_one_marker_with_the_longer_duration(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2), target="0712")  # interdiction 2
    saves.add_marker(game, "no-entry", "0712", side="both", turns=1)
    assert in_play(game) == [("no-entry", "0712", 2, 1)]  # the longer one stays
    saves.add_marker(game, "no-entry", "0712", side="both", turns=4)
    assert in_play(game) == [("no-entry", "0712", 4, 3)]
    saves.add_marker(game, "no-entry", "0712", side="both")  # "All": no end
    saves.add_marker(game, "no-entry", "0712", side="both", turns=9)
    assert in_play(game) == [("no-entry", "0712", None, 4)]
    saves.add_marker(game, "no-entry", "0713", side="both", turns=1)  # another hex: its own
    assert [m[1] for m in in_play(game)] == ["0712", "0713"]


def test_the_frogman_opens_the_hex_whatever_strikes_closed_it(game: Path) -> None:
    saves.add_marker(game, "no-entry", "0712", side="both", turns=2)
    saves.add_marker(game, "no-entry", "0712", side="both", turns=3)
    [marker] = saves.load_game(game).markers
    saves.remove_marker(game, marker.id, note="Hero #15 Engineer/Frogman repairs the hex")
    assert in_play(game) == []


def test_a_lift_of_a_marker_merged_away_opens_the_hex(game: Path) -> None:
    """A save logged when a hex could hold two markers, and the Frogman lifted the first."""
    saves.add_marker(game, "no-entry", "0712", side="both", turns=1)
    saves.add_marker(game, "no-entry", "0712", side="both", turns=3)
    lift = {"kind": "remove-marker", "seq": 3, "marker_id": "1.1"}
    loaded = saves.load_game(game)
    saves.apply_entry(loaded, lift | {"marker_kind": "no-entry", "target": "0712"})
    assert loaded.markers == []


def test_one_marker_of_a_kind_per_unit_the_later_its_source(game: Path) -> None:
    saves.add_marker(game, "DG", "21 Pz", side="attacker", turns=1)
    saves.add_marker(game, "DG", "21 Pz", side="attacker")
    saves.add_marker(game, "exploitation", "21 Pz", side="attacker")
    saves.add_marker(game, "exploitation", "21 Pz", side="attacker")
    saves.add_marker(game, "DG", "Ariete", side="attacker")
    assert in_play(game) == [
        ("DG", "21 Pz", None, 2),
        ("exploitation", "21 Pz", None, 4),
        ("DG", "Ariete", None, 5),
    ]


def test_exhausted_replaces_low(game: Path) -> None:
    saves.add_marker(game, "low", "21 Pz")
    saves.add_marker(game, "low", "Ariete")
    saves.add_marker(game, "exhausted", "21 Pz")
    assert in_play(game) == [("low", "Ariete", None, 2), ("exhausted", "21 Pz", None, 3)]


def test_a_game_appended_to_agrees_with_the_save_loaded(game: Path) -> None:
    loaded = saves.load_game(game)
    for entry in (
        saves.add_marker(game, "no-entry", "0712", side="both", turns=1),
        saves.add_marker(game, "no-entry", "0712", side="both", turns=3),
        saves.add_marker(game, "low", "21 Pz"),
        saves.add_marker(game, "exhausted", "21 Pz"),
    ):
        saves.apply_entry(loaded, entry)
    assert loaded.markers == saves.load_game(game).markers


async def test_two_shots_on_a_hex_leave_one_marker_and_the_frogman_opens_it(desk: Desk) -> None:
    async with desk(rulesets=["pod-boom"]) as (app, pilot):
        await fill(pilot, ["9"], mission="batteries")
        await hand_dice(pilot, "1", "2")  # all on target; CAF 9 roll 2: interdiction 2
        await pilot.press("ctrl+s", "y")
        await settle(pilot)
        assert boom_markers(app) == [("0712", 1)]
        await hand_dice(pilot, "1", "2")  # struck again while closed: 2 turns from now
        assert boom_markers(app) == [("0712", 2)]
        assert "1 marker in play" in str(app.screen.query_one(MarkerPanel).content)
        await pilot.press("ctrl+z")  # one closed hex: lifted at once, no question
        await settle(pilot)
        assert boom_markers(app) == [] and saves.load_game(app.game.path).markers == []
