"""Resolving a combat as a conversation (tui.engine.procedure): the dice and the choices
each ruleset asks for, in the order the rules read them. OCS asks surprise, its shift only
when someone gains surprise, the result 2d6 with the DRM as its modifier, then the options;
Day/Night asks the reserve on ENG and pressing on on BTL before the next die, and the
attacker's retreat on A1/A1X/A2X; Big Boom asks each die of the chain in turn. Dice rolled
by hand (as they lie, RULINGS "Dice") end up in the combat's inputs, the desk's dice in the
outcome's dice only; a hand die no die could show is refused."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from msgspec.structs import asdict, replace

from tui.engine import CombatInput, InputError, Outcome, Unit, resolve
from tui.engine.dice import DiceRoll
from tui.engine.procedure import (
    ChoiceQuestion,
    DiceQuestion,
    NumberQuestion,
    Question,
    answer_from,
    check_answer,
    desk_dice,
    hand_dice,
    procedure,
    run,
)
from tui.engine.tables import default_tables

TABLES = default_tables()

# 10 vs 2 on Open is 5:1; the units' ARs 4 vs 3 give DRM +1. The 2d6 8 reads row 9 there,
# "Ao1 e4 DL1o2": the attacker has option 1, the defender option 2.
OCS = CombatInput(
    "ocs",
    attackers=(
        Unit(6, name="21 Pz", steps=3, ar=4),
        Unit(4, name="Ariete", steps=2, ar=3),
    ),
    defenders=(Unit(2, name="2 NZ", steps=2, re=1.0, ar=3),),
)
# Clear, day, 4 vs 2 is 2-1: rows 5 and 6 are ENG and BTL, row 3 FF; at 4-1 row 1 is D2X.
DAYNIGHT = CombatInput(
    "daynight", attackers=(Unit(4),), defenders=(Unit(2),), terrain="clear", time="day"
)


class Faces(random.Random):
    """An RNG whose dice show the faces given, in order."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


def hand(total: int) -> tuple[str, int]:
    return ("hand", total)


def desk(*faces: int) -> tuple[str, tuple[int, ...]]:
    return ("desk", faces)


def drive(
    combat: CombatInput,
    dice: Sequence[tuple[str, Any]] = (),
    choices: Mapping[str, Any] | None = None,
) -> tuple[list[Question], CombatInput, Outcome]:
    """Run the procedure: each die from `dice` in turn (by hand, or the desk's faces), each
    choice or number from `choices` by its field (None, left open, where not given). Every
    die given must be asked for."""
    asked: list[Question] = []
    left = list(dice)
    answers = dict(choices or {})

    def answer(question: Question) -> Any:
        asked.append(question)
        if isinstance(question, DiceQuestion):
            assert left, f"a die asked for and none given: {question}"
            how, value = left.pop(0)
            if how == "hand":
                return hand_dice(question, value)
            return desk_dice(question, Faces(*value))
        return answers.get(question.field)

    answered, outcome = run(combat, TABLES, answer)
    assert left == [], f"dice given and never asked for: {left}"
    return asked, answered, outcome


def fields(asked: list[Question]) -> list[str]:
    return [q.field for q in asked]


# ---------------------------------------------------------------------- OCS
def test_ocs_asks_surprise_then_the_result_with_the_drm_then_the_options() -> None:
    asked, combat, outcome = drive(
        OCS,
        [hand(7), hand(8)],
        {"attacker_option_retreat": 0, "defender_option_retreat": 2},
    )
    # Surprise 7 + 1 = 8: nobody gains surprise, so no shift die is asked for.
    assert fields(asked) == [
        "surprise_roll",
        "roll",
        "attacker_option_retreat",
        "defender_option_retreat",
    ]
    surprise, result, attacker, defender = asked
    assert isinstance(surprise, DiceQuestion) and isinstance(result, DiceQuestion)
    assert (surprise.dice, surprise.low, surprise.high) == ("2d6", 2, 12)
    assert surprise.prompt == "surprise (2d6)"
    assert (result.dice, result.modifier) == ("2d6", 1)
    assert result.prompt == "combat (2d6), DRM +1 added"
    assert isinstance(attacker, ChoiceQuestion) and isinstance(defender, ChoiceQuestion)
    assert [o.value for o in attacker.options] == [0, 1]
    assert [o.value for o in defender.options] == [0, 1, 2]
    assert "Ao1 e4 DL1o2" in attacker.prompt
    # The dice by hand and the answers are the combat's inputs; the row read is 8 + 1.
    assert (combat.surprise_roll, combat.shift_roll, combat.roll) == (7, None, 8)
    assert (combat.attacker_option_retreat, combat.defender_option_retreat) == (0, 2)
    assert (outcome.roll, outcome.cell) == ("9", "Ao1 e4 DL1o2")
    assert outcome.inputs == combat.to_dict()
    die = outcome.dice[-1]
    assert (die.purpose, die.total, die.source, die.modifier, die.row) == (
        "combat",
        8,
        "manual",
        1,
        "9",
    )
    options = outcome.effects["options"]
    assert options["attacker"]["chosen"] and options["defender"]["retreat"] == 2
    # The same combat resolved at once reads the same: the procedure adds nothing else.
    assert resolve(combat, TABLES).to_dict() == outcome.to_dict()


@pytest.mark.parametrize(("surprise", "side"), [(9, "attacker"), (4, "defender"), (8, None)])
def test_ocs_asks_the_shift_only_when_someone_gains_surprise(surprise: int, side) -> None:
    # The AR difference +1 is added: 10 or more is the attacker's, 5 or less the defender's.
    dice = [hand(surprise), desk(2), desk(3, 5)] if side else [hand(surprise), desk(3, 5)]
    asked, combat, outcome = drive(OCS, dice)
    rolled = [q for q in asked if isinstance(q, DiceQuestion)]
    if side:
        assert fields(rolled) == ["surprise_roll", "shift_roll", "roll"]
        shift = rolled[1]
        assert (shift.dice, shift.low, shift.high, shift.purpose) == (
            "1d6",
            1,
            6,
            "surprise shift",
        )
    else:
        assert fields(rolled) == ["surprise_roll", "roll"]
    assert outcome.effects.get("surprise", {}).get("side") == side
    assert combat.surprise_roll == surprise and combat.shift_roll is None and combat.roll is None


def test_ocs_the_defender_is_asked_to_ignore_its_options_after_an_attacker_retreat() -> None:
    asked, combat, outcome = drive(
        OCS, [hand(7), hand(8)], {"attacker_option_retreat": 1, "defender_ignores_options": True}
    )
    assert fields(asked)[2:] == ["attacker_option_retreat", "defender_ignores_options"]
    question = asked[-1]
    assert isinstance(question, ChoiceQuestion)
    assert {o.value for o in question.options} == {True, False}
    assert combat.defender_ignores_options is True and combat.defender_option_retreat is None
    assert outcome.effects["options"]["defender"]["ignored"] is True
    # Taking them instead asks how.
    asked, combat, _ = drive(
        OCS,
        [hand(7), hand(8)],
        {
            "attacker_option_retreat": 1,
            "defender_ignores_options": False,
            "defender_option_retreat": 1,
        },
    )
    assert fields(asked)[-1] == "defender_option_retreat"
    assert combat.defender_option_retreat == 1


def test_ocs_asks_no_option_of_a_defender_its_losses_wiped_out() -> None:
    """Row 9 at 7:1 is "Ao1 e4 DL1o2": a 1-step defender is gone with its L1, so only the
    attacker is asked (the desk offered the dead defender "how? 0/1/2")."""
    one_step = replace(OCS, defenders=(replace(OCS.defenders[0], steps=1),))
    asked, combat, outcome = drive(one_step, [hand(7), hand(8)], {"attacker_option_retreat": 0})
    assert fields(asked) == ["surprise_roll", "roll", "attacker_option_retreat"]
    assert outcome.effects["defender"] == {"steps_lost": 1, "eliminated": True}
    assert "defender" not in outcome.effects["options"]
    assert "Defender loses 1 step, is eliminated." in outcome.explanation
    assert "still chooses" not in outcome.explanation


def test_ocs_choices_left_open_stay_open() -> None:
    asked, combat, outcome = drive(OCS, [hand(7), hand(8)])
    assert fields(asked)[2:] == ["attacker_option_retreat", "defender_option_retreat"]
    assert combat.attacker_option_retreat is None and combat.defender_option_retreat is None
    options = outcome.effects["options"]
    assert options["attacker"]["chosen"] is False and options["defender"]["chosen"] is False


def test_ocs_desk_dice_are_in_the_outcome_not_the_inputs() -> None:
    # Surprise 3 + 4 = 7 (+1: nobody); result 5 + 3 = 8, read on row 9.
    asked, combat, outcome = drive(OCS, [desk(3, 4), desk(5, 3)])
    assert fields(asked)[:2] == ["surprise_roll", "roll"]
    assert combat.surprise_roll is None and combat.roll is None
    assert "roll" not in outcome.inputs and "surprise_roll" not in outcome.inputs
    assert [(d.values, d.total, d.source) for d in outcome.dice] == [
        ((3, 4), 7, "desk"),
        ((5, 3), 8, "desk"),
    ]
    assert (outcome.dice[1].modifier, outcome.dice[1].row) == (1, "9")
    assert outcome.cell == "Ao1 e4 DL1o2"


def test_ocs_dice_by_hand_and_by_the_desk_each_go_their_own_way() -> None:
    # Surprise 9 + 1 = 10: the attacker's; its shift rolled by the desk; the result by hand.
    _, combat, outcome = drive(OCS, [hand(9), desk(3), hand(8)])
    assert (combat.surprise_roll, combat.shift_roll, combat.roll) == (9, None, 8)
    assert [(d.purpose, d.total, d.source) for d in outcome.dice] == [
        ("surprise", 9, "manual"),
        ("surprise shift", 3, "desk"),
        ("combat", 8, "manual"),
    ]


def test_ocs_dice_given_up_front_are_not_asked_for() -> None:
    given = CombatInput(**{**asdict(OCS), "surprise_roll": 7, "roll": 8})
    asked, combat, outcome = drive(given)
    assert not any(isinstance(q, DiceQuestion) for q in asked)
    assert (combat.roll, outcome.roll) == (8, "9")


# ---------------------------------------------------------------------- Day/Night
def test_daynight_asks_the_reserve_on_eng_before_the_next_die() -> None:
    asked, combat, outcome = drive(DAYNIGHT, [hand(5), hand(1)], {"reserve": 4})
    assert fields(asked) == ["roll", "reserve", "rerolls"]
    reserve = asked[1]
    assert isinstance(reserve, NumberQuestion) and "ENG" in reserve.prompt
    assert (combat.roll, combat.rerolls, combat.reserve) == (5, (1,), 4)
    # 4 + 4 = 8 vs 2: the re-roll is read at 4-1, where row 1 is D2X.
    assert [s["column"] for s in outcome.effects["battle"]] == ["2-1", "4-1"]
    assert outcome.cell == "D2X"


def test_daynight_no_reserve_rolls_again_at_the_same_odds() -> None:
    asked, combat, outcome = drive(DAYNIGHT, [hand(5), desk(3)])
    assert fields(asked) == ["roll", "reserve", "rerolls"]
    assert combat.reserve is None and combat.rerolls == ()
    assert [s["column"] for s in outcome.effects["battle"]] == ["2-1", "2-1"]
    assert [(d.total, d.source) for d in outcome.dice] == [(5, "manual"), (3, "desk")]


@pytest.mark.parametrize("press_on", [True, False])
def test_daynight_asks_to_press_on_on_btl_before_the_next_die(press_on: bool) -> None:
    dice = [hand(6), hand(3)] if press_on else [hand(6)]
    asked, combat, outcome = drive(DAYNIGHT, dice, {"press_on": press_on})
    question = asked[1]
    assert isinstance(question, ChoiceQuestion) and question.field == "press_on"
    assert {o.value for o in question.options} == {True, False}
    if press_on:
        assert fields(asked) == ["roll", "press_on", "rerolls"]
        assert combat.rerolls == (3,) and outcome.cell == "FF"
        assert outcome.effects["attacker"]["steps_lost"] == 2  # FF, and the step pressing on
    else:
        assert fields(asked) == ["roll", "press_on"]
        assert combat.rerolls == () and outcome.cell == "BTL"


@pytest.mark.parametrize(("face", "cell"), [(4, "A1"), (5, "A1X"), (6, "A2X")])
def test_daynight_asks_whether_the_attacker_retreats_on_a1_a1x_a2x(face: int, cell: str) -> None:
    # Clear, day, 1-2: rows 5, 6 and 7 are A1, A1X and A2X; the die + DRM 1 reads them.
    combat = CombatInput("daynight", column="1-2", terrain="clear", drm=1)
    asked, answered, outcome = drive(combat, [hand(face)], {"attacker_retreats": True})
    assert fields(asked) == ["roll", "attacker_retreats"]
    die = asked[0]
    assert isinstance(die, DiceQuestion) and die.modifier == 1
    assert outcome.cell == cell and answered.attacker_retreats is True
    assert {"kind": "disorganized", "side": "attacker"} in outcome.effects["markers"]
    # Any other result does not ask: 1 + 1 reads row 2, D1+.
    asked, answered, outcome = drive(combat, [hand(1)], {"attacker_retreats": True})
    assert fields(asked) == ["roll"] and outcome.cell == "D1+"
    assert answered.attacker_retreats is False


def test_daynight_hand_dice_are_the_die_the_drm_added() -> None:
    combat = CombatInput(**{**asdict(DAYNIGHT), "drm": -1})
    # Die 6 - 1 reads row 5 (ENG); the re-roll's 1 - 1 reads row 0.
    asked, answered, outcome = drive(combat, [hand(6), hand(1)])
    assert [q.modifier for q in asked if isinstance(q, DiceQuestion)] == [-1, -1]
    assert (answered.roll, answered.rerolls) == (6, (1,))
    assert [(d.total, d.modifier, d.row) for d in outcome.dice] == [(6, -1, "5"), (1, -1, "0")]


# ---------------------------------------------------------------------- Big Boom
def test_boom_asks_each_die_of_the_chain_in_order() -> None:
    # Attrition 2 (none lost), accuracy 3 (half the units astray), direction 2 (East), the
    # CRT on target (CAF 6) and one hex East (CAF 4).
    combat = CombatInput("pod-boom", attackers=(Unit(6), Unit(4)), aaf=3)
    asked, answered, outcome = drive(combat, [hand(2), hand(3), hand(2), hand(4), hand(5)])
    assert fields(asked) == ["chain_rolls"] * 5
    assert [q.purpose for q in asked] == [
        "bomber mission attrition",
        "Boom Accuracy",
        "Direction",
        "boom combat resolution",
        "boom combat resolution (one hex E)",
    ]
    assert all(isinstance(q, DiceQuestion) and q.dice == "1d6" for q in asked)
    assert answered.chain_rolls == (2, 3, 2, 4, 5)
    assert outcome.inputs["chain_rolls"] == (2, 3, 2, 4, 5)
    assert resolve(answered, TABLES).to_dict() == outcome.to_dict()


def test_boom_a_full_miss_asks_no_die_for_the_target() -> None:
    # Accuracy 2: every unit one hex away; direction 1 (North-East); the CRT there.
    combat = CombatInput("pod-boom", attackers=(Unit(8),))
    asked, answered, outcome = drive(combat, [hand(2), hand(1), desk(3)])
    assert [q.purpose for q in asked] == [
        "Boom Accuracy",
        "Direction",
        "boom combat resolution (one hex NE)",
    ]
    assert answered.chain_rolls == (2, 1)  # the desk's die is not an input
    assert [d.source for d in outcome.dice] == ["manual", "manual", "desk"]
    assert outcome.effects["astray"]["cell"] == ["6", "4"]


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("combat", "before", "field", "face", "allowed"),
    [
        (OCS, [hand(7)], "roll", 13, "a 2d6 roll from 2 to 12"),
        (OCS, [hand(7)], "roll", 1, "a 2d6 roll from 2 to 12"),
        (OCS, [], "surprise_roll", 1, "a 2d6 roll from 2 to 12"),
        (OCS, [hand(9)], "shift_roll", 7, "a 1d6 roll from 1 to 6"),
        (DAYNIGHT, [], "roll", 7, "a 1d6 roll from 1 to 6"),
        (DAYNIGHT, [hand(5)], "rerolls", 0, "a 1d6 roll from 1 to 6"),
        (CombatInput("pod-boom", attackers=(Unit(8),)), [], "chain_rolls", 7, "1 to 6"),
    ],
)
def test_a_hand_die_no_die_could_show_is_refused(combat, before, field, face, allowed) -> None:
    steps = procedure(combat, TABLES)
    question = next(steps)
    for how, value in before:
        assert how == "hand"
        question = steps.send(hand_dice(question, value))
        while not isinstance(question, DiceQuestion):
            question = steps.send(None)
    assert question.field == field
    with pytest.raises(InputError) as caught:
        hand_dice(question, face)
    assert caught.value.field == field and allowed in caught.value.allowed
    # Sent anyway, the engine refuses it too.
    with pytest.raises(InputError) as caught:
        steps.send(DiceRoll(question.purpose, question.dice, (), face, "manual"))
    assert caught.value.field == field


def test_a_die_is_answered_with_dice() -> None:
    steps = procedure(OCS, TABLES)
    next(steps)
    with pytest.raises(TypeError):
        steps.send(7)


# ---------------------------------------------------------------------- the CLI's answers
def test_the_cli_answers_the_choices_its_flags_set_and_leaves_the_rest_open() -> None:
    given = CombatInput(**{**asdict(OCS), "surprise_roll": 7, "attacker_option_retreat": 0})
    combat, outcome = run(given, TABLES, answer_from(given, Faces(5, 3)))
    assert combat.roll is None  # the desk rolled it
    assert [(d.total, d.source) for d in outcome.dice] == [(7, "manual"), (8, "desk")]
    options = outcome.effects["options"]
    assert options["attacker"] == {"option": 1, "chosen": True, "retreat": 0, "steps": 1}
    assert options["defender"]["chosen"] is False  # no --defender-retreat: left open


def test_an_answer_not_offered_is_refused() -> None:
    asked, _, _ = drive(OCS, [hand(7), hand(8)])
    attacker = asked[2]
    assert isinstance(attacker, ChoiceQuestion)
    check_answer(attacker, 1)
    with pytest.raises(InputError) as caught:
        check_answer(attacker, 2)
    assert caught.value.field == "attacker_option_retreat"
    reserve = NumberQuestion("reserve", "", 0, None, "none")
    check_answer(reserve, None)
    check_answer(reserve, 4)
    for bad in (-1, True, "4"):
        with pytest.raises(InputError):
            check_answer(reserve, bad)


def test_a_die_by_hand_after_the_desks_in_one_list_is_refused() -> None:
    """Big Boom reads its chain's dice by hand before any the desk rolls: a die by hand
    after a desk die would be read in its place, so it is refused."""
    combat = CombatInput("pod-boom", attackers=(Unit(4), Unit(4)))
    steps = procedure(combat, TABLES)
    first = next(steps)
    assert isinstance(first, DiceQuestion) and first.field == "chain_rolls"
    second = steps.send(DiceRoll(first.purpose, first.dice, (2,), 2, "desk"))
    assert isinstance(second, DiceQuestion) and second.field == "chain_rolls"
    with pytest.raises(InputError) as caught:
        steps.send(hand_dice(second, 1))
    assert caught.value.field == "chain_rolls"
