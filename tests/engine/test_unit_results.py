"""What a result does to the game's units that fought: each ruleset's effects as obligations
(tui.engine.units.obligations), settled where the rules say which unit, left to the owner
otherwise, and the open losses answered (answer_open) as the log's loss entries do."""

from __future__ import annotations

from pathlib import Path

import pytest
from msgspec.structs import replace

from tui.engine import CombatInput, InputError, Unit, registry, resolve
from tui.engine.model import Outcome
from tui.engine.rulesets.charts.reading import load_chart
from tui.engine.units import (
    Obligation,
    UnitState,
    answer_open,
    apply_open,
    obligations,
    open_loss,
    settle,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def roster(**steps: int) -> dict[str, UnitState]:
    side = {"A": "Axis", "B": "Axis", "X": "Allied", "Y": "Allied"}
    return {n: UnitState(n, side[n], {"factor": 4, "steps": s}) for n, s in steps.items()}


def said(found: list[Obligation]) -> list[tuple[str, str, int]]:
    return [(o.side, o.what, o.amount) for o in found]


NAMES = {"attacker": ["A", "B"], "defender": ["X", "Y"]}


def daynight(cell: str, **more: object) -> Outcome:
    """A Day/Night combat's outcome on `cell` (its die searched on clear terrain by day; a
    battle that re-rolls rolls again on the desk's dice, so its outcome is kept)."""
    for attack in range(1, 13):
        for roll in range(1, 7):
            combat = CombatInput(
                "daynight", (Unit(attack),), (Unit(3),), roll=roll, terrain="clear", **more
            )
            try:
                outcome = resolve(combat)
                if outcome.cell == cell:
                    return outcome
            except InputError:  # an attacker retreat refused on another result
                continue
    raise AssertionError(f"no Day/Night roll gives {cell}")


@pytest.mark.parametrize(
    ("cell", "owed"),
    [
        # FF: the defender loses a step, then the attacker (seed 7.10.5).
        ("FF", [("attacker", "steps", 1), ("defender", "steps", 1)]),
        # D1+: as D1 (retreat 1 or a step, the defender's mix), and the attacker a step.
        ("D1+", [("attacker", "steps", 1), ("defender", "option", 1)]),
        # D2X: one mandatory defender step, then D2.
        ("D2X", [("defender", "steps", 1), ("defender", "option", 2)]),
        # A1: a step from one attacking unit, or all retreat: the attacker's choice.
        ("A1", [("attacker", "option", 1)]),
    ],
)
def test_daynight_results_give_the_seeds_losses(cell: str, owed: list) -> None:
    outcome = daynight(cell, hold=True)
    assert said(obligations(outcome.effects, NAMES)) == owed


def test_daynight_without_hold_a_d1_is_a_retreat_and_an_attacker_retreat_takes_no_step() -> None:
    outcome = daynight("D1+", hold=False)
    # No step-loss-and-hold hex: the defender retreats, loses no step.
    assert said(obligations(outcome.effects, NAMES)) == [("attacker", "steps", 1)]
    outcome = daynight("A1", attacker_retreats=True)
    found = obligations(outcome.effects, NAMES, retreated=("attacker",))
    assert found == []


def test_ocs_options_chosen_count_their_steps_and_unchosen_are_left_open() -> None:
    attackers = (Unit(6, name="A", steps=2, ar=3), Unit(6, name="B", steps=2, ar=3))
    defenders = (Unit(3, name="X", steps=2, ar=2), Unit(3, name="Y", steps=2, ar=2))
    base = CombatInput(
        "ocs", attackers, defenders, roll=3, surprise_roll=7, terrain="open"
    )  # AL1o1 Do1 at 2:1
    outcome = resolve(base)
    assert outcome.cell == "AL1o1 Do1"
    assert said(obligations(outcome.effects, NAMES)) == [
        ("attacker", "steps", 1),
        ("attacker", "option", 1),
        ("defender", "option", 1),
    ]
    chosen = CombatInput(
        "ocs",
        attackers,
        defenders,
        roll=3,
        surprise_roll=7,
        terrain="open",
        attacker_option_retreat=0,
        defender_option_retreat=1,
    )
    # The attacker takes its option as a step (2 steps in all); the defender retreats.
    assert said(obligations(resolve(chosen).effects, NAMES)) == [("attacker", "steps", 2)]


def test_ocs_an_attacker_its_steps_losses_destroy_is_eliminated() -> None:
    attackers = (Unit(6, name="A", steps=1, ar=3),)
    defenders = (Unit(3, name="X", steps=2, ar=2),)
    outcome = resolve(
        CombatInput("ocs", attackers, defenders, roll=3, surprise_roll=7, terrain="open")
    )
    found = obligations(outcome.effects, {"attacker": ["A"], "defender": ["X"]})
    assert said(found)[0] == ("attacker", "eliminated", 0)
    assert settle(found[0], roster(A=1, X=2)) == [{"unit": "A", "eliminated": True}]


def test_pair_o_dice_factors_and_a_players_chart_words() -> None:
    outcome = resolve(CombatInput("pod-basic", (Unit(6), Unit(4)), (Unit(5),), roll=1))
    assert said(obligations(outcome.effects, NAMES)) == [("defender", "factors", 2)]
    # A player's chart says its results in words only: nothing for the units' state.
    hill = registry.chart_ruleset(load_chart(DOCS / "hill-203.toml"))
    for roll in range(1, 7):
        outcome = resolve(CombatInput(hill.id, (Unit(4),), (Unit(4),), roll=roll))
        assert obligations(outcome.effects, NAMES) == []


def test_settle_leaves_the_owner_the_choice_and_checks_it() -> None:
    units = roster(A=2, B=3, X=1, Y=2)
    two = Obligation("attacker", "steps", 2, ("A", "B"))
    assert settle(two, units) is None  # two units could each take them
    assert settle(two, units, {"A": 1, "B": 1}) == [
        {"unit": "A", "steps": 1},
        {"unit": "B", "steps": 1},
    ]
    with pytest.raises(ValueError, match="3 steps chosen"):
        settle(two, units, {"B": 3})
    # A loss that takes all they have, and one unit alone: the rules choose.
    three = Obligation("defender", "steps", 3, ("X", "Y"))
    assert settle(three, units) == [
        {"unit": "X", "steps": 1, "eliminated": True},
        {"unit": "Y", "steps": 2, "eliminated": True},
    ]
    option = Obligation("defender", "option", 2, ("X", "Y"))
    assert settle(option, units) is None
    assert settle(option, units, {"Y": 0}) == [{"unit": "Y", "steps": 0}]
    with pytest.raises(ValueError, match="at most 2"):
        settle(option, units, {"X": 1, "Y": 2})


def test_open_losses_are_answered_in_parts_and_an_option_closes_on_its_take() -> None:
    units = roster(A=2, B=3, X=2, Y=2)
    still = [
        open_loss(Obligation("attacker", "steps", 1, ("A", "B"))),
        open_loss(Obligation("attacker", "option", 2, ("A", "B"))),
        open_loss(Obligation("defender", "steps", 2, ("X", "Y"))),
    ]
    # The attacker's mandatory step first, then its option (1 step, the rest retreated).
    left = answer_open(7, still, [{"unit": "A", "steps": 2}], units)
    assert [(o["side"], o["what"], o["amount"]) for o in left] == [("defender", "steps", 2)]
    left = answer_open(7, left, [{"unit": "X", "steps": 1}], units)
    assert left[0]["amount"] == 1
    with pytest.raises(ValueError, match="at most 1"):
        answer_open(7, left, [{"unit": "Y", "steps": 2}], units)
    with pytest.raises(ValueError, match="'A' has no open loss in combat 7"):
        answer_open(7, left, [{"unit": "A", "steps": 1}], units)
    with pytest.raises(ValueError, match="factors given"):
        answer_open(7, left, [{"unit": "Y", "factors": 1}], units)
    assert answer_open(7, left, [{"unit": "Y", "steps": 1}], units) == []
    with pytest.raises(ValueError, match="no open loss left"):
        answer_open(7, [], [{"unit": "Y", "steps": 1}], units)


def test_the_replay_keeps_what_is_open_until_answered_or_its_units_are_gone() -> None:
    units = roster(A=2, X=1, Y=1)
    kept: dict[int, list] = {}
    owed = [open_loss(Obligation("defender", "steps", 1, ("X", "Y")))]
    apply_open(kept, {"kind": "combat", "seq": 3, "open_losses": owed}, units)
    assert kept == {3: owed}
    # A correction elsewhere leaves it; the units all gone closes it.
    units["X"].eliminated = units["Y"].eliminated = True
    apply_open(
        kept, {"kind": "loss", "seq": 4, "losses": [{"unit": "X", "eliminated": True}]}, units
    )
    assert kept == {}


def test_every_ruleset_takes_a_named_unit_as_the_desk_names_them() -> None:
    """The desk's rows name the game's units on every ruleset, a player's chart included
    (its check refused a named unit: a chart game with units could not log a combat)."""
    hill = registry.chart_ruleset(load_chart(DOCS / "hill-203.toml"))
    for ruleset in ("pod-basic", "rivets", "daynight", hill.id):
        combat = CombatInput(ruleset, (Unit(6, name="21 Pz"),), (Unit(3, name="7 Armd"),))
        outcome = resolve(replace(combat, roll=3) if ruleset != "daynight" else combat)
        assert outcome.inputs["attackers"][0]["name"] == "21 Pz", ruleset
