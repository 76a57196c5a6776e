"""Day/Night: the step-loss-and-hold option reads D1/D2, and an attacker that takes an
A1/A1X/A2X as a retreat is disorganized (a marker)."""

from __future__ import annotations

import pytest

from tui.engine import CombatInput, InputError, Unit, resolve


def battle(row: int, **given: object) -> CombatInput:
    # 4 vs 1 by day in Clear is column 4-1; row 4 there reads D1, row 0 at 1-4 reads D1+.
    return CombatInput(
        "daynight",
        attackers=(Unit(4),),
        defenders=(Unit(1),),
        time="day",
        terrain="clear",
        roll=row,
        **given,  # type: ignore[arg-type]
    )


def test_d1_without_hold_is_a_retreat_and_with_hold_a_choice() -> None:
    without = resolve(battle(4, hold=False))
    assert without.cell == "D1"
    assert without.effects["defender"] == {"retreat": 1}
    assert "must retreat 1 hex" in without.explanation
    held = resolve(battle(4, hold=True))
    assert held.effects["defender"] == {"retreat_or_steps": 1}
    # Not said: the reading that names both.
    assert resolve(battle(4)).effects["defender"] == {"retreat_or_steps": 1}


@pytest.mark.parametrize(("attack", "defense", "row", "cell"), [(1, 4, 3, "A1"), (1, 4, 4, "A1X")])
def test_an_attacker_retreat_marks_it_disorganized(
    attack: int, defense: int, row: int, cell: str
) -> None:
    combat = CombatInput(
        "daynight",
        attackers=(Unit(attack),),
        defenders=(Unit(defense),),
        time="day",
        terrain="clear",
        roll=row,
        attacker_retreats=True,
    )
    outcome = resolve(combat)
    assert outcome.cell == cell
    assert {"kind": "disorganized", "side": "attacker"} in outcome.effects["markers"]


def test_an_attacker_retreat_on_a_defender_result_is_refused() -> None:
    with pytest.raises(InputError, match="only on A1, A1X, A2X"):
        resolve(battle(4, attacker_retreats=True))
