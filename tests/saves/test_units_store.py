"""A game's units in the store: added, imported (all or nothing), edited, removed, their
losses and corrections, replayed from the log and kept in the state beside the save."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.engine.text import entry_text
from tui.saves.state import state_line


@pytest.fixture
def camp(tmp_path: Path) -> Path:
    path = tmp_path / "camp.toml"
    saves.new_game(path, "Camp", ["ocs"], {})
    return path


def states(game: saves.Game) -> list[dict[str, object]]:
    return [unit.state() for unit in game.units.values()]


def test_units_replay_and_the_kept_state_agree(camp: Path) -> None:
    saves.import_units(
        camp,
        [
            {"name": "21 Pz", "side": "Axis", "factor": "6", "steps": "3", "ar": "4"},
            {"name": "7 Armd", "side": "Allied", "factor": 5, "steps": 2, "ar": 3, "hex": "0812"},
        ],
        source="oob.csv",
    )
    saves.take_losses(camp, [{"unit": "21 Pz", "steps": 2}])
    saves.take_losses(camp, [{"unit": "21 Pz", "steps": -1}], note="a correction")
    saves.edit_unit(camp, "7 Armd", {"hex": "0912"})
    saves.take_losses(camp, [{"unit": "7 Armd", "eliminated": True}])
    loaded = saves.load_game(camp)
    pz, armd = loaded.units["21 Pz"], loaded.units["7 Armd"]
    assert (pz.steps_left, pz.alive) == (2, True)  # 3 steps, 2 lost, 1 given back
    assert (armd.hex, armd.steps_left, armd.alive) == ("0912", 0, False)
    # The state kept beside the save (read without the log) is the replay's.
    kept = saves.game_state(camp)
    assert states(kept) == states(loaded)
    assert b'"units"' in state_line(loaded, len(loaded.entries))
    # The log says each in words.
    words = [entry_text(e)[1] for e in loaded.entries]
    assert words[1:3] == ["21 Pz loses 2 steps.", "21 Pz gets 1 step back. Note: a correction"]


def test_a_bad_row_imports_nothing_and_names_its_row_and_field(camp: Path) -> None:
    rows = [
        {"name": "21 Pz", "side": "Axis", "factor": 6, "steps": 3, "ar": 4},
        {"name": "90 Lt", "side": "Axis", "factor": 4, "steps": 0, "ar": 3},
    ]
    with pytest.raises(saves.SaveError) as err:
        saves.import_units(camp, rows, source="oob.toml", row="unit")
    assert str(err.value) == (
        "oob.toml: unit 2: steps: 0 is not allowed; expected a whole number from 1 to 99; "
        "nothing was imported"
    )
    with pytest.raises(saves.SaveError, match="unit 2: name: '21 Pz' is already a unit"):
        saves.import_units(camp, [rows[0], rows[0]], row="unit")
    assert saves.load_game(camp).entries == []


def test_a_hand_edited_unit_that_does_not_fit_is_refused_by_name(camp: Path) -> None:
    saves.add_unit(camp, {"name": "21 Pz", "side": "Axis", "factor": 6, "steps": 3, "ar": 4})
    text = camp.read_text(encoding="utf-8").replace('"factor" = 6', '"factor" = -6')
    camp.write_text(text, encoding="utf-8")
    with pytest.raises(saves.SaveError, match=r"unit\.factor"):
        saves.load_game(camp)


def test_units_cli_lists_imports_and_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "dn", "--title", "DN", "--ruleset", "daynight", "--saves", "."]) == 0
    (tmp_path / "oob.csv").write_text(
        "name,side,factor,steps,hex\n1/A,Blue,4,2,0101\n2/A,Blue,3,2,0102\nX,Red,5,3,\n"
    )
    assert main(["units", "dn", "--saves", ".", "import", "oob.csv"]) == 0
    assert main(["units", "dn", "--saves", ".", "take", "X", "--steps", "2"]) == 0
    capsys.readouterr()
    assert main(["units", "dn", "--saves", ".", "--side", "Red", "--json"]) == 0
    [red] = json.loads(capsys.readouterr().out)["units"]
    assert (red["name"], red["steps_left"], red["factor_left"]) == ("X", 1, 5)
    # A bad row: one line naming the file, its line and the field; nothing imported.
    (tmp_path / "bad.csv").write_text("name,side,factor,steps\nY,Red,big,1\n")
    assert main(["units", "dn", "--saves", ".", "import", "bad.csv"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "crtdesk: bad.csv: line 2: factor: 'big' is not allowed; expected a whole number "
        "from 0 to 999; nothing was imported\n"
    )
    assert main(["units", "dn", "--saves", "."]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Blue" and "X" in out and "Y" not in out


def test_a_large_order_of_battle_is_imported_whole_in_several_entries(camp: Path) -> None:
    """2,500 OCS units do not fit one entry (256 KiB at most): they go in several, every
    row checked before the first is written, so a bad last row imports nothing."""
    rows = [
        {
            "name": f"Unit {i:04d} Panzer-Grenadier",
            "side": ("Axis", "Allied")[i % 2],
            "hex": f"{i % 40:02d}{i % 30:02d}",
            "factor": 5,
            "steps": 3,
            "ar": 3,
        }
        for i in range(2500)
    ]
    with pytest.raises(saves.SaveError, match="row 2500: steps: 0 is not allowed"):
        saves.import_units(camp, [*rows[:-1], {**rows[-1], "steps": 0}])
    assert saves.load_game(camp).entries == []
    written = saves.import_units(camp, rows)
    assert len(written) > 1 and sum(len(e["units"]) for e in written) == 2500
    game = saves.load_game(camp)
    assert list(game.units) == [row["name"] for row in rows]
    assert states(saves.game_state(camp)) == states(game)


def test_the_desk_names_for_its_losses_only_units_the_store_takes(camp: Path) -> None:
    """A desk combat's rows may name an eliminated unit, or units of two sides on one side
    for a one-off: the roll is logged all the same, its losses applied only to what the
    store takes (a combat it would refuse after the roll names none)."""
    from tui.engine.model import CombatInput, Unit
    from tui.game.session import GameSession

    saves.import_units(
        camp,
        [
            {"name": "21 Pz", "side": "Axis", "factor": 6, "steps": 3, "ar": 4},
            {"name": "90 Lt", "side": "Axis", "factor": 4, "steps": 2, "ar": 3},
            {"name": "7 Armd", "side": "Allied", "factor": 5, "steps": 2, "ar": 3},
        ],
    )
    saves.take_losses(camp, [{"unit": "90 Lt", "eliminated": True}])
    session = GameSession(None, camp, saves.load_game(camp))  # type: ignore[arg-type]
    named = CombatInput(
        "ocs",
        attackers=(Unit(6, name="21 Pz"), Unit(4, name="90 Lt"), Unit(2, name="a one-off")),
        defenders=(Unit(5, name="7 Armd"),),
    )
    assert session.fought(named) == {"attacker": ["21 Pz"], "defender": ["7 Armd"]}
    mixed = CombatInput(
        "ocs", attackers=(Unit(6, name="21 Pz"), Unit(5, name="7 Armd")), defenders=(Unit(3),)
    )
    assert session.fought(mixed) is None
