"""A game's units in combats through the CLI: imported, named with --attacker-unit and
--defender-unit, the losses the rules give applied at once, the owner's choices taken by
--attacker-takes/--defender-takes or left open for `units take --combat N`, and a
correction; `units FILE` (and --json) after each step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def ok(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    return out


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "") and len(err.splitlines()) == 1, err
    return err


def state(capsys: pytest.CaptureFixture[str], game: str) -> tuple[dict, list]:
    data = json.loads(ok(capsys, "units", game, "--json"))
    return {u["name"]: u for u in data["units"]}, data["open_losses"]


def test_daynight_campaign_losses_applied_chosen_taken_and_corrected(folder, capsys) -> None:
    ok(capsys, "new", "dn", "--title", "DN", "--ruleset", "daynight")
    (folder / "oob.csv").write_text(
        "name,side,factor,steps\n7 Armd,Allied,6,3\n9 Inf,Allied,4,2\n21 Pz,Axis,8,4\n"
    )
    ok(capsys, "units", "dn", "import", "oob.csv")
    fight = ["resolve", "daynight", "--terrain", "clear", "--save", "dn"]
    both = ["--attacker-unit", "21 Pz", "--defender-unit", "7 Armd", "--defender-unit", "9 Inf"]
    # Entry 2: 8 against 10 (1-2) by day, die 1: FF. The attacker's one unit loses its
    # step at once; the defender's step is its owner's to choose: left open.
    out = ok(capsys, *fight, *both, "--roll", "1")
    assert "Result: FF" in out and "Losses: 21 Pz loses 1 step" in out
    assert "Open: the defender takes 1 step from any of 7 Armd, 9 Inf" in out
    units, still = state(capsys, "dn")
    assert units["21 Pz"]["steps_left"] == 3 and units["7 Armd"]["steps_left"] == 3
    assert [(o["combat"], o["side"], o["what"], o["amount"]) for o in still] == [
        (2, "defender", "steps", 1)
    ]
    assert "combat 2: the defender takes 1 step" in ok(capsys, "units", "dn")
    # A take that does not match: the attacker's unit, too many, factors, another combat.
    assert "'21 Pz' has no open loss in combat 2" in refused(
        capsys, "units", "dn", "take", "21 Pz", "--steps", "1", "--combat", "2"
    )
    assert "at most 1" in refused(
        capsys, "units", "dn", "take", "9 Inf", "--steps", "2", "--combat", "2"
    )
    assert "factors given" in refused(
        capsys, "units", "dn", "take", "9 Inf", "--factors", "1", "--combat", "2"
    )
    assert "combat 5 has no open loss" in refused(
        capsys, "units", "dn", "take", "9 Inf", "--steps", "1", "--combat", "5"
    )
    # Entry 3: the defender's owner chooses 9 Inf.
    ok(capsys, "units", "dn", "take", "9 Inf", "--steps", "1", "--combat", "2")
    units, still = state(capsys, "dn")
    assert units["9 Inf"]["steps_left"] == 1 and still == []
    # Entry 4: the same die with the choice given: 7 Armd takes the defender's step.
    out = ok(capsys, *fight, *both, "--roll", "1", "--defender-takes", "7 Armd=1")
    assert "Losses: 21 Pz loses 1 step; 7 Armd loses 1 step" in out and "Open" not in out
    units, still = state(capsys, "dn")
    assert (units["21 Pz"]["steps_left"], units["7 Armd"]["steps_left"]) == (2, 2)
    # A choice the result does not fit is said, and the loss left open (the roll kept).
    status, out, err = run(capsys, *fight, *both, "--roll", "1", "--defender-takes", "9 Inf=2")
    assert status == 0 and "--defender-takes not used" in err
    units, still = state(capsys, "dn")
    assert [(o["combat"], o["amount"]) for o in still] == [(5, 1)]
    assert units["21 Pz"]["steps_left"] == 1
    # Entry 6: the last attacking step goes: 21 Pz is eliminated, and fights no more.
    ok(capsys, "units", "dn", "take", "9 Inf", "--steps", "1", "--combat", "5")
    units, still = state(capsys, "dn")
    assert units["9 Inf"]["steps_left"] == 0 and still == []  # its last step: out
    # Beside a one-off defender typed as today (--defense 4): 8 against 10 again, FF.
    alone = ["--attacker-unit", "21 Pz", "--defender-unit", "7 Armd", "--defense", "4"]
    out = ok(capsys, *fight, *alone, "--roll", "1")
    units, _ = state(capsys, "dn")
    assert units["21 Pz"]["eliminated"] and units["7 Armd"]["steps_left"] == 1, (out, units)
    assert "'21 Pz': eliminated" in refused(
        capsys, *fight, "--attacker-unit", "21 Pz", "--defender-unit", "7 Armd", "--roll", "1"
    )
    # A correction (no --combat): 21 Pz was not eliminated after all.
    ok(capsys, "units", "dn", "take", "21 Pz", "--steps", "-1", "--back")
    units, _ = state(capsys, "dn")
    assert units["21 Pz"]["steps_left"] == 1 and not units["21 Pz"]["eliminated"]


def test_bad_unit_names_are_one_line(folder, capsys) -> None:
    ok(capsys, "new", "g", "--title", "G", "--ruleset", "pod-basic")
    ok(capsys, "units", "g", "add", "A", "--side", "red", "--factor", "6")
    ok(capsys, "units", "g", "add", "B", "--side", "blue", "--factor", "3")
    fight = ["resolve", "pod-basic", "--roll", "3", "--save", "g"]
    assert "'Nope': no such unit" in refused(
        capsys, *fight, "--attacker-unit", "Nope", "--defender-unit", "B"
    )
    assert "'A': named twice" in refused(
        capsys, *fight, "--attacker-unit", "A", "--defender-unit", "A"
    )
    ok(capsys, "units", "g", "add", "C", "--side", "red", "--factor", "2")
    assert "a unit of red, the attacker's side" in refused(
        capsys, *fight, "--attacker-unit", "A", "--defender-unit", "C"
    )
    assert "give --save FILE" in refused(
        capsys, "resolve", "pod-basic", "--roll", "1", "--attacker-unit", "A"
    )
    assert "expected NAME=N" in refused(
        capsys, *fight, "--attacker-unit", "A", "--defender-unit", "B", "--attacker-takes", "A"
    )
    assert "not one of the defender's units" in refused(
        capsys, *fight, "--attacker-unit", "A", "--defender-unit", "B", "--defender-takes", "A=1"
    )
    # Nothing was logged by the refusals (3 units added); the odds read them from the save.
    assert [e["kind"] for e in saves.load_game(folder / "saves" / "g.toml").entries] == ["unit"] * 3
    out = ok(
        capsys, "odds", "pod-basic", "--save", "g", "--attacker-unit", "A", "--defender-unit", "B"
    )
    assert out.startswith("pod-basic  odds 2-1")


def test_pair_o_dice_factors_lost_and_a_side_eliminated(folder, capsys) -> None:
    ok(capsys, "new", "p", "--title", "P", "--ruleset", "pod-basic")
    for name, side, factor in (("A", "red", "6"), ("B", "red", "4"), ("X", "blue", "5")):
        ok(capsys, "units", "p", "add", name, "--side", side, "--factor", factor)
    # 10 against 5, 2-1, roll 1 (seed 001): DL2 DR1: the defender's one unit loses 2.
    out = ok(
        capsys,
        *("resolve", "pod-basic", "--save", "p", "--roll", "1"),
        *("--attacker-unit", "A", "--attacker-unit", "B", "--defender-unit", "X"),
    )
    assert "Losses: X loses 2 factors" in out
    units, still = state(capsys, "p")
    assert units["X"]["factor_left"] == 3 and still == []
    # The entry keeps the names (Pair-o-Dice's units hold only a factor).
    entry = saves.load_game(folder / "saves" / "p.toml").entries[-1]
    assert entry["units"] == {"attacker": ["A", "B"], "defender": ["X"]}
    assert [u["factor"] for u in entry["inputs"]["attackers"]] == [6, 4]
    # Now X fights with 3: the odds read its factor left.
    out = ok(
        capsys, "odds", "pod-basic", "--save", "p", "--attacker-unit", "A", "--defender-unit", "X"
    )
    assert out.startswith("pod-basic  odds 2-1")


def test_ocs_options_markers_and_stocks_name_the_units(folder, capsys) -> None:
    ok(capsys, "new", "o", "--title", "O", "--ruleset", "ocs")
    (folder / "oob.toml").write_text(
        "\n".join(
            f'[[unit]]\nname = "{n}"\nside = "{s}"\nfactor = {f}\nsteps = {st}\nar = {ar}\n'
            f'supply = "{sup}"\n'
            for n, s, f, st, ar, sup in (
                ("21 Pz", "Axis", 12, 3, 4, "internal"),
                ("15 Pz", "Axis", 8, 2, 3, "on-map"),
                ("7 Armd", "Allied", 4, 2, 2, "on-map"),
                ("9 Inf", "Allied", 3, 2, 1, "on-map"),
            )
        )
    )
    ok(capsys, "units", "o", "import", "oob.toml")
    fight = ["resolve", "ocs", "--terrain", "open", "--surprise-roll", "7", "--save", "o"]
    four = ["--attacker-unit", "21 Pz", "--attacker-unit", "15 Pz"]
    four += ["--defender-unit", "7 Armd", "--defender-unit", "9 Inf"]
    # 20 against 7, 2:1, 2d6 3 +1 DRM (AR 4 - 3): row 4, AL1o1 Do1. Both options unchosen:
    # open; the attacker's step open (two units); 21 Pz draws on its stocks: Low on it.
    out = ok(capsys, *fight, *four, "--roll", "3")
    assert "Result: AL1o1 Do1" in out and "placed low 2.1 on 21 Pz" in out
    _, still = state(capsys, "o")
    assert [(o["side"], o["what"], o["amount"]) for o in still] == [
        ("attacker", "steps", 1),
        ("attacker", "option", 1),
        ("defender", "option", 1),
    ]
    # The attacker: its step and its option as a step, from 15 Pz (2 steps: eliminated);
    # the defender retreats (0 steps: the option closed).
    ok(capsys, "units", "o", "take", "15 Pz", "--steps", "2", "--combat", "2")
    ok(capsys, "units", "o", "take", "7 Armd", "--steps", "0", "--combat", "2")
    units, still = state(capsys, "o")
    assert units["15 Pz"]["steps_left"] == 0 and units["7 Armd"]["steps_left"] == 2
    assert still == []
    # The next attack reads 21 Pz Low from the save: it goes Exhausted. Options chosen on
    # the command line: the attacker's as a step, the defender's as a 1-hex retreat;
    # the attacker's 2 steps are its one unit's: at once.
    out = ok(
        capsys,
        *fight,
        *("--attacker-unit", "21 Pz", "--defender-unit", "7 Armd", "--defender-unit", "9 Inf"),
        *("--roll", "2", "--attacker-retreat", "0", "--defender-retreat", "1"),
    )
    assert "placed exhausted 5.1 on 21 Pz" in out
    units, still = state(capsys, "o")
    assert "exhausted" in units["21 Pz"]["markers"]
    entry = saves.load_game(folder / "saves" / "o.toml").entries[-1]
    assert entry["losses"] == [{"unit": "21 Pz", "steps": 2}]
    assert units["21 Pz"]["steps_left"] == 1 and still == []
    # An Exhausted unit on internal stocks cannot attack: one line, nothing logged.
    err = refused(
        capsys, *fight, "--attacker-unit", "21 Pz", "--defender-unit", "9 Inf", "--roll", "7"
    )
    assert "Exhausted" in err


def test_ocs_exploitation_and_dg_go_on_the_named_units(folder, capsys) -> None:
    ok(capsys, "new", "o", "--title", "O", "--ruleset", "ocs")
    ok(capsys, "units", "o", "add", "15 Pz", "--side", "Axis", "--factor", "8", "--steps", "2")
    ok(capsys, "units", "o", "edit", "15 Pz", "--ar", "3")
    ok(capsys, "units", "o", "add", "9 Inf", "--side", "Allied", "--factor", "3", "--steps", "2")
    # 28 (15 Pz and a one-off 20) against 3, 2d6 12 +3 DRM: Ae2 DL2o3DG; the defender's
    # option taken as steps, its 2 steps lost take all 9 Inf has: eliminated at once.
    out = ok(
        capsys,
        *("resolve", "ocs", "--terrain", "open", "--surprise-roll", "7", "--save", "o"),
        *("--attacker-unit", "15 Pz", "--defender-unit", "9 Inf", "--attack", "20"),
        *("--roll", "12", "--defender-retreat", "0"),
    )
    assert "Result: Ae2 DL2o3DG" in out
    assert "exploitation 4.1 on 15 Pz" in out and "DG 4.2 on 9 Inf" in out
    assert "Losses: 9 Inf eliminated" in out
    units, still = state(capsys, "o")
    assert units["15 Pz"]["markers"] == ["exploitation"] and units["9 Inf"]["eliminated"]
    assert still == []
