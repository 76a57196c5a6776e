"""Day/Night: the step-loss-and-hold option reads D1/D2, and an attacker that takes an
A1/A1X/A2X as a retreat is disorganized (a marker)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from tui.engine import CombatInput, InputError, Unit, distribution, resolve


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
    with pytest.raises(InputError, match="only on A1, A1X, A2X") as caught:
        resolve(battle(4, attacker_retreats=True))
    assert caught.value.field == "attacker_retreats" and "ended on D1 (row 4)" in str(caught.value)


class Faces:
    """A stand-in RNG showing the given faces in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        return self.faces.pop(0)


def test_an_attacker_retreat_with_the_desks_dice_is_a_standing_order() -> None:
    # The player could not know the result: a defender result leaves the order unused.
    combat = CombatInput(
        "daynight",
        attackers=(Unit(4),),
        defenders=(Unit(1),),
        time="day",
        terrain="clear",
        attacker_retreats=True,
    )
    outcome = resolve(combat, rng=Faces(4))  # type: ignore[arg-type]
    assert outcome.cell == "D1"
    assert outcome.effects["markers"] == []
    assert "the battle ended on D1: not used" in outcome.trace[-1]
    # Every way the dice fall is read, retreat order and all.
    result = distribution(replace(combat, attackers=(Unit(1),), defenders=(Unit(4),)))
    cells = {cell for cell, _, _ in result.outcomes}
    assert {"A1", "A1X", "BTL"} <= cells and sum(p for _, p, _ in result.outcomes) == 1
    a1 = result.details[[cell for cell, _, _ in result.outcomes].index("A1")]
    assert {"kind": "disorganized", "side": "attacker"} in a1["markers"]
    assert result.to_dict()["inputs"]["attacker_retreats"] is True
