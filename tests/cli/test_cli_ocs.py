"""`crtdesk resolve ocs` with per-unit inputs, the option choices and the supply paid."""

from __future__ import annotations

import json
from pathlib import Path

from tui import cli, saves

UNITS = ["--attacker", "21 Pz:6:3:4", "--attacker", "Ariete:4:2:3", "--defender", "2 NZ:2:2:1:3"]
# The dice as they lie: with the units' ARs 4 vs 3 the desk adds DRM +1, so 2d6 8 reads row 9.
DICE = ["--surprise-roll", "7", "--roll", "8"]


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_per_unit_resolve_prints_the_supply_and_executes_the_choices(capsys) -> None:
    code, out, _ = run(
        capsys,
        *["resolve", "ocs", *UNITS, *DICE, "--attacker-retreat", "0", "--defender-retreat", "2"],
    )
    assert code == 0
    assert "Result: Ao1 e4 DL1o2" in out
    assert "combat: 2d6 8 (by hand) +1 DRM: row 9" in out
    assert "Supply: attacker 5T, defender 1T" in out
    assert "marked for exploitation: 21 Pz" in out
    # Each option said once, as taken (it was also said as "2 hexes retreated or steps lost,
    # in any mix", the choice the side had).
    assert "Defender loses 1 step, takes option 2 as 2 hexes retreated and 0 steps lost" in out
    said = out.split("Trace:")[0]
    assert said.count("option 2") == 1 and "in any mix" not in said
    assert "Markers: exploitation on 21 Pz; DG on 2 NZ." in out
    code, out, _ = run(
        capsys, *["resolve", "ocs", *UNITS, *DICE, "--attacker-retreat", "1", "--json"]
    )
    data = json.loads(out)
    assert data["effects"]["supply"] == {"attacker": 5, "defender": 1}
    assert data["effects"]["exploitation"]["units"] == []
    assert data["inputs"]["attacker_option_retreat"] == 1
    assert data["inputs"]["attackers"][0] == {
        "factor": 6,
        "name": "21 Pz",
        "steps": 3,
        "ar": 4,
        "kind": "combat",
        "supply": "on-map",
    }


def test_plain_attack_totals_still_work(capsys) -> None:
    code, out, _ = run(capsys, "resolve", "ocs", "--attack", "5", "--defense", "3", *DICE)
    assert code == 0 and "Supply: attacker not known" in out and "defender 2T" in out


def test_an_attack_without_supply_is_refused_in_one_line(capsys) -> None:
    code, _, err = run(
        capsys, "resolve", "ocs", "--attacker", "Ariete:4:2:3:combat:none", "--defense", "2"
    )
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("crtdesk: Ariete supply: 'none'") and "cannot attack" in lines[0]


def test_bad_unit_specs_are_refused(capsys) -> None:
    for spec, word in (("X:4", "NAME:STRENGTH"), ("X:4:2:z", "X AR"), ("X:4:2:3:tank", "X type")):
        code, _, err = run(capsys, "resolve", "ocs", "--attacker", spec, "--defense", "2")
        assert code == 2 and word in err, err
    code, _, err = run(capsys, "resolve", "rivets", "--attacker", "X:4:2:3", "--defense", "2")
    assert code == 2 and "only ocs" in err


def test_internal_stocks_across_two_saved_combats(tmp_path: Path, capsys) -> None:
    folder = str(tmp_path)
    assert cli.main(["new", "g", "--title", "G", "--ruleset", "ocs", "--saves", folder]) == 0
    args = [
        "resolve",
        "ocs",
        "--attacker",
        "21 Pz:6:3:4:combat:internal",
        "--defender",
        "2 NZ:2:2:1:3",
    ]
    args += [*DICE, "--save", "g", "--saves", folder]
    assert cli.main(args) == 0
    assert cli.main(args) == 0
    game = saves.load_game(tmp_path / "g.toml")
    kinds = [(m.kind, m.target) for m in game.markers if m.kind in ("low", "exhausted")]
    assert kinds == [("exhausted", "21 Pz")]  # Exhausted replaces Low
    assert game.entries[-1]["effects"]["supply"] == {"attacker": 0, "defender": 1}
    capsys.readouterr()
    code, _, err = run(capsys, *args)
    assert code == 2 and "Exhausted" in err


def test_a_supply_phase_lifts_the_stocks_markers_and_the_unit_attacks_again(
    tmp_path: Path, capsys
) -> None:
    folder = str(tmp_path)
    assert cli.main(["new", "g", "--title", "G", "--ruleset", "ocs", "--saves", folder]) == 0
    args = ["resolve", "ocs", "--attacker", "21 Pz:6:3:4:combat:internal"]
    args += ["--defender", "2 NZ:2:2:1:3", *DICE, "--save", "g", "--saves", folder]
    assert cli.main(args) == 0 and cli.main(args) == 0
    for marker in saves.load_game(tmp_path / "g.toml").markers:
        if marker.kind in ("low", "exhausted"):
            assert cli.main(["marker", "g", "--saves", folder, "remove", marker.id]) == 0
    capsys.readouterr()
    assert cli.main(args) == 0  # stocks paid off: first use again, Low
    game = saves.load_game(tmp_path / "g.toml")
    assert [(m.kind, m.target) for m in game.markers if m.kind in ("low", "exhausted")] == [
        ("low", "21 Pz")
    ]


def test_a_retreat_beyond_the_option_names_its_flag(capsys) -> None:
    code, _, err = run(capsys, "resolve", "ocs", *UNITS, *DICE, "--attacker-retreat", "2")
    assert code == 2 and err.startswith("crtdesk: --attacker-retreat: 2 is not allowed")
    assert "0 to 1 hexes" in err
