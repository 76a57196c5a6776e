"""Luck judges every combat the desk can log, and hand dice mean one thing: the commands a
player tried, with the figures expected of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.cli import main


@pytest.fixture(autouse=True)
def _in_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRTDESK_SAVES", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def luck(capsys: pytest.CaptureFixture[str], name: str) -> dict:
    return json.loads(run(capsys, "luck", name, "--json"))


def test_an_ocs_combat_is_judged_alike_logged_by_ratings_or_unit_by_unit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run(capsys, "new", "ar", "--title", "ar", "--ruleset", "ocs")
    by_ratings = ["--attack", "8", "--defense", "4", "--attacker-ar", "5", "--defender-ar", "1"]
    by_units = ["--attacker", "Pz:8:2:5", "--defender", "Inf:4:2:1:1"]
    for flags in (by_ratings, by_units):
        run(capsys, "resolve", "ocs", "--terrain", "open", *flags, "--seed", "1", "--save", "ar")
    [everyone] = [g for g in luck(capsys, "ar")["groups"] if g["player"] is None]
    first, second = everyone["seed_combats"]["percentiles"]  # seeded dice, counted apart
    assert first == second == pytest.approx(0.214, abs=0.001)


def test_an_option_retreat_of_two_is_judged(capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "new", "lucktest", "--title", "l", "--ruleset", "ocs")
    run(
        capsys,
        *("resolve", "ocs", "--attacker", "21 Pz:6:3:4", "--defender", "2 NZ:2:2:1:3"),
        *("--surprise-roll", "9", "--shift-roll", "2", "--roll", "9", "--defender-retreat", "2"),
        *("--save", "lucktest"),
    )
    report = luck(capsys, "lucktest")
    assert report["skipped"] == []
    [everyone] = [g for g in report["groups"] if g["player"] is None]
    assert everyone["manual_combats"]["combats"] == 1
    assert "Not judged" not in run(capsys, "luck", "lucktest")


def test_a_combat_stanfill_cancelled_is_not_judged(capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "new", "stan", "--title", "s", "--ruleset", "pod-basic")
    resolved = json.loads(
        run(
            capsys,
            *("resolve", "pod-basic", "--attack", "6", "--defense", "2"),
            *("--attacker-card", "stanfill", "--seed", "3", "--save", "stan", "--json"),
        )
    )
    assert resolved["effects"]["cancelled"] is True
    assert resolved["effects"]["attacker"] == resolved["effects"]["defender"] == {}
    [everyone] = [g for g in luck(capsys, "stan")["groups"] if g["player"] is None]
    assert everyone["desk_combats"]["combats"] == 0
    # Stanfill is played after the roll in Basic: the roll is logged, then the card
    # amending it (as F9 logs it); neither is judged.
    rolled, card = luck(capsys, "stan")["skipped"]
    assert rolled["seq"] == 1 and "cancelled" in rolled["why"]
    assert card["seq"] == 2 and card["why"] == "it amends entry 1, whose result it cancelled"


def test_hand_dice_are_the_dice_as_they_lie_on_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """21 Pz (AR 4) against 2 NZ (AR 3): DRM +1, so 2d6 9 by hand reads row 10, as the
    desk reads the same dice typed into its dialog."""
    resolved = json.loads(
        run(
            capsys,
            *("resolve", "ocs", "--attacker", "21 Pz:6:3:4", "--defender", "2 NZ:2:2:1:3"),
            *("--surprise-roll", "9", "--shift-roll", "2", "--roll", "9", "--json"),
        )
    )
    assert (resolved["roll"], resolved["cell"]) == ("10", "Ae4 DL1o2")
    result = resolved["dice"][-1]
    assert (result["total"], result["modifier"], result["row"]) == (9, 1, "10")
    assert "2d6 9 (by hand) +1 DRM: row 10" in run(
        capsys,
        *("resolve", "ocs", "--attacker", "21 Pz:6:3:4", "--defender", "2 NZ:2:2:1:3"),
        *("--surprise-roll", "9", "--shift-roll", "2", "--roll", "9"),
    )
