"""OCS: a defender that withholds combat supply defends at half strength (RULINGS), and
such a combat saves and reads back."""

from __future__ import annotations

from pathlib import Path

from tui import cli, saves
from tui.engine import CombatInput, Unit, resolve

COMBAT = dict(attackers=(Unit(5),), defenders=(Unit(3),), surprise_roll=7, roll=7)


def test_half_strength_defence_reads_the_exact_ratio() -> None:
    full = resolve(CombatInput("ocs", **COMBAT))
    half = resolve(CombatInput("ocs", defender_unsupplied=True, **COMBAT))
    # 5 vs 3 is 1:1 on Open; 5 vs 1.5 is 3.33, so 3:1 (never rounded in the attacker's favour).
    assert (full.odds, full.column, full.defense_total) == ("1:1", "1:1", 3)
    assert (half.odds, half.column, half.defense_total) == ("3:1", "3:1", 1.5)
    assert any("half strength" in line for line in half.trace)
    even = resolve(
        CombatInput("ocs", defender_unsupplied=True, **{**COMBAT, "defenders": (Unit(4),)})
    )
    assert even.defense_total == 2 and even.column == "2:1"


def test_half_strength_combat_round_trips_through_a_save(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "saves"
    argv = ["new", "g", "--title", "G", "--ruleset", "ocs", "--saves", str(folder), "--create"]
    assert cli.main(argv) == 0
    args = ["resolve", "ocs", "--attack", "5", "--defense", "3", "--defender-unsupplied"]
    args += ["--surprise-roll", "7", "--roll", "7", "--save", "g", "--saves", str(folder)]
    assert cli.main(args) == 0
    entry = saves.load_game(folder / "g.toml").entries[-1]
    assert entry["defense_total"] == 1.5 and entry["inputs"]["defender_unsupplied"] is True
    capsys.readouterr()
    assert cli.main(["log", "g", "--saves", str(folder)]) == 0
    assert "3:1" in capsys.readouterr().out


def test_unsupplied_is_refused_outside_ocs(capsys) -> None:
    code = cli.main(
        ["resolve", "rivets", "--attack", "3", "--defense", "1", "--defender-unsupplied"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("crtdesk: --defender-unsupplied")
