"""Day/Night battles with their re-rolls (RULINGS): ENG commits a reserve at new odds,
BTL presses on with a step loss at the same odds, a second ENG or BTL ends the battle,
and the whole battle is one outcome."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from msgspec.structs import asdict

from tui.engine import CombatInput, InputError, Unit, distribution, resolve
from tui.engine.tables import default_tables

# Clear, day: 2-1 is the fifth column; its rows 5 and 6 are ENG and BTL (seed 004).
# Dice entered by hand are the die as it lies (RULINGS, "Dice"): the desk adds the DRM.
BASE = CombatInput(
    "daynight", attackers=(Unit(4),), defenders=(Unit(2),), terrain="clear", time="day"
)


def day_clear(row: int, column: str) -> str:
    return default_tables().terrain_chart("daynight.day").cell(str(row), "Clear", column)


def test_the_rows_used_below_are_what_the_seed_prints() -> None:
    assert day_clear(5, "2-1") == "ENG" and day_clear(6, "2-1") == "BTL"
    assert day_clear(0, "4-1") == "D2X" and day_clear(7, "4-1") == "ENG"


def test_eng_without_a_reserve_rolls_again_at_the_same_odds() -> None:
    # RULINGS: ENG is always rolled again; with no reserve committed, at the same odds.
    combat = CombatInput(**{**asdict(BASE), "roll": 5, "rerolls": (3,)})
    outcome = resolve(combat)
    assert [step["cell"] for step in outcome.effects["battle"]] == ["ENG", day_clear(3, "2-1")]
    assert outcome.column == outcome.odds_column == "2-1" and outcome.attack_total == 4
    assert outcome.cell == "FF" and "reroll" not in outcome.effects
    assert {"kind": "engaged", "side": "both"} not in outcome.effects["markers"]


def test_eng_is_rolled_again_by_the_desk_when_no_row_is_given() -> None:
    combat = CombatInput(**{**asdict(BASE), "roll": 5})
    outcome = resolve(combat, rng=ScriptedDice((1,)))  # type: ignore[arg-type]
    assert [step["roll"] for step in outcome.effects["battle"]] == ["5", "1"]
    assert outcome.cell == day_clear(1, "2-1")
    assert [die.source for die in outcome.dice] == ["manual", "desk"]


def test_eng_with_a_reserve_rolls_again_at_the_new_odds() -> None:
    # DRM -1: 1d6 - 1 reaches rows 0..5; die 6 reads ENG (row 5), the re-roll's 1 row 0.
    combat = CombatInput(**{**asdict(BASE), "roll": 6, "reserve": 4, "rerolls": (1,), "drm": -1})
    outcome = resolve(combat)
    assert [step["roll"] for step in outcome.effects["battle"]] == ["5", "0"]
    assert [(die.total, die.modifier, die.row) for die in outcome.dice] == [
        (6, -1, "5"),
        (1, -1, "0"),
    ]
    # 4 + 4 = 8 vs 2 is 4-1; row 0 there is D2X.
    assert outcome.attack_total == 8 and outcome.column == "4-1" and outcome.cell == "D2X"
    assert outcome.odds_column == "2-1"
    assert [step["cell"] for step in outcome.effects["battle"]] == ["ENG", "D2X"]
    assert outcome.effects["defender"] == {"steps_lost": 1, "retreat_or_steps": 2}
    assert outcome.effects["markers"] == []  # not engaged at the end of the battle


def test_a_second_eng_ends_the_battle_with_eng() -> None:
    # DRM +1: 1d6 + 1 reaches rows 2..7; die 4 reads ENG (row 5), the re-roll's 6 row 7,
    # ENG again at 4-1.
    combat = CombatInput(**{**asdict(BASE), "roll": 4, "reserve": 4, "rerolls": (6,), "drm": 1})
    outcome = resolve(combat)
    assert [step["roll"] for step in outcome.effects["battle"]] == ["5", "7"]
    assert [step["cell"] for step in outcome.effects["battle"]] == ["ENG", "ENG"]
    assert outcome.cell == "ENG" and "reroll" not in outcome.effects
    assert any("second ENG" in line for line in outcome.trace)


def test_btl_pressed_on_costs_a_step_and_keeps_the_odds() -> None:
    combat = CombatInput(**{**asdict(BASE), "roll": 6, "press_on": True, "rerolls": (3,)})
    outcome = resolve(combat)
    assert outcome.column == "2-1" and outcome.cell == day_clear(3, "2-1") == "FF"
    # FF costs the attacker a step, and pressing on cost one more.
    assert outcome.effects["attacker"]["steps_lost"] == 2


def test_a_reroll_the_battle_never_made_is_refused() -> None:
    combat = CombatInput(**{**asdict(BASE), "roll": 3, "rerolls": (4,)})
    with pytest.raises(InputError) as caught:
        resolve(combat)
    assert caught.value.field == "rerolls" and "ended after 1 roll" in caught.value.allowed


def test_a_reserve_is_refused_with_a_column_given() -> None:
    combat = CombatInput("daynight", column="2-1", terrain="clear", reserve=2, roll=5)
    with pytest.raises(InputError):
        resolve(combat)


class ScriptedDice:
    """A stand-in RNG that returns the given faces in order."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        return self.faces.pop(0)


@pytest.mark.parametrize(
    ("reserve", "press_on", "drm"), [(4, True, 0), (None, True, 1), (2, False, -1)]
)
def test_battle_distribution_matches_every_way_the_dice_can_fall(reserve, press_on, drm) -> None:
    combat = CombatInput(**{**asdict(BASE), "reserve": reserve, "press_on": press_on, "drm": drm})
    counts: Counter[str] = Counter()
    # A battle rolls at most three times (ENG and BTL once each, then the roll that ends it).
    for faces in product(range(1, 7), repeat=3):
        counts[resolve(combat, rng=ScriptedDice(faces)).cell] += 1  # type: ignore[arg-type]
    expected = {cell: Fraction(n, 6**3) for cell, n in counts.items()}
    got = {cell: p for cell, p, _ in distribution(combat).outcomes}
    assert got == expected and sum(got.values()) == 1


@pytest.mark.parametrize(("rows", "read"), [((3,), "FF (row 3)"), ((5, 4), "ENG (row 5), D1+")])
def test_press_on_on_a_hand_rolled_battle_with_no_btl_is_refused(
    rows: tuple[int, ...], read: str
) -> None:
    # Every roll entered by hand: the player knows no BTL came up, so pressing on is a slip.
    combat = CombatInput(**{**asdict(BASE), "roll": rows[0], "rerolls": rows[1:], "press_on": True})
    with pytest.raises(InputError) as caught:
        resolve(combat)
    assert caught.value.field == "press_on"
    assert "only applies to BTL" in caught.value.allowed and read in caught.value.allowed
    with pytest.raises(InputError, match="only applies to BTL"):
        distribution(combat)


def test_press_on_with_the_desks_dice_is_a_standing_order() -> None:
    # The desk's dice: the player could not know, so a battle with no BTL leaves it unused.
    combat = CombatInput(**{**asdict(BASE), "press_on": True})
    outcome = resolve(combat, rng=ScriptedDice((3,)))  # type: ignore[arg-type]
    assert outcome.cell == day_clear(3, "2-1") == "FF"
    assert outcome.effects["attacker"]["steps_lost"] == 1  # no voluntary step loss
    assert "no BTL came up: not used" in outcome.trace[-1]
    # A hand roll that ENGs, re-rolled by the desk: not every roll was known either.
    mixed = CombatInput(**{**asdict(BASE), "roll": 5, "press_on": True})
    assert resolve(mixed, rng=ScriptedDice((3,))).cell == "FF"  # type: ignore[arg-type]
