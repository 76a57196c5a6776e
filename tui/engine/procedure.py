"""Resolving a combat as a conversation: one headless procedure for every ruleset.

`procedure(combat, tables)` is a generator. It yields typed questions and ends (its
StopIteration value) in the combat as answered and its Outcome:

- DiceQuestion: which dice, for what, the faces allowed and the modifier the desk adds.
  Answer a DiceRoll: `desk_dice` (the desk rolls them) or `hand_dice` (as they lie).
- ChoiceQuestion: named options (OCS options, the Day/Night attacker retreat, BTL press-on).
- NumberQuestion: a number where one is needed (the Day/Night ENG reserve; None for none).

A choice or number answered None is left as the combat has it (the CLI leaves a choice no
flag made open, and the result says who still chooses). The desk answers with dialogs or
its dice, the CLI from its flags, tests and luck from a log entry; each gets the same log.
The dice of one combat are read again, unchanged, after every answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from typing import Any

from tui.engine.dice import DESK, SEED, DiceRoll, Roller, check_roll
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Outcome
from tui.engine.tables import Tables


@dataclass(frozen=True)
class DiceQuestion:
    field: str  # the input dice rolled by hand are kept in (roll, surprise_roll, rerolls, ...)
    purpose: str
    count: int
    sides: int
    modifier: int = 0  # what the desk adds to the dice before it reads a row

    @property
    def dice(self) -> str:
        return f"{self.count}d{self.sides}"

    @property
    def low(self) -> int:
        return self.count

    @property
    def high(self) -> int:
        return self.count * self.sides

    @property
    def prompt(self) -> str:
        """ "surprise (2d6)", "combat (2d6), DRM +1 added": what the dice are for."""
        text = f"{self.purpose} ({self.dice})"
        if self.modifier:
            text += f", DRM {self.modifier:+d} added"
        return text


@dataclass(frozen=True)
class Option:
    key: str  # the key that picks it in a dialog
    label: str
    value: Any


@dataclass(frozen=True)
class ChoiceQuestion:
    field: str
    prompt: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class NumberQuestion:
    field: str
    prompt: str
    low: int
    high: int | None
    empty: str  # what no number means ("none")


Question = DiceQuestion | ChoiceQuestion | NumberQuestion
Procedure = Generator[Question, Any, tuple[CombatInput, Outcome]]


def desk_dice(question: DiceQuestion, rng: random.Random, seed: int | None = None) -> DiceRoll:
    """The desk rolls the dice a question asks for; from `rng` seeded with `seed` (the
    player's), they are logged as seeded, with it."""
    values = tuple(rng.randint(1, question.sides) for _ in range(question.count))
    if seed is not None:
        return DiceRoll(question.purpose, question.dice, values, sum(values), SEED, seed=seed)
    return DiceRoll(question.purpose, question.dice, values, sum(values), DESK)


def hand_dice(question: DiceQuestion, total: int) -> DiceRoll:
    """Dice rolled by hand, as they lie: refused with the range allowed when no die could
    show them."""
    check_roll(question.field, total, question.low, question.high, question.dice)
    return DiceRoll(question.purpose, question.dice, (), total, "manual")


class _AnsweringRoller(Roller):
    """Reads the dice answered so far: those rolled by hand are in the combat's inputs,
    those the desk rolled are `kept` and read in turn. At the first die not yet answered it
    notes the question and reads the lowest face, so the rest can be read for what is known."""

    def __init__(self, kept: list[DiceRoll]) -> None:
        super().__init__(random.Random(0))
        self.kept = kept
        self.used = 0
        self.known = 0  # dice read for real, before the first one wanted
        self.wanted: DiceQuestion | None = None

    def roll(
        self,
        purpose: str,
        count: int,
        sides: int,
        manual: int | None = None,
        field: str = "roll",
        modifier: int = 0,
    ) -> int:
        if self.wanted is None and manual is not None:
            self.known += 1
            return super().roll(purpose, count, sides, manual, field, modifier)
        if self.wanted is None and self.used < len(self.kept):
            die = self.kept[self.used]
            self.used += 1
            self.known += 1
            self.rolls.append(replace(die, purpose=purpose, modifier=modifier))
            return die.total
        if self.wanted is None:
            self.wanted = DiceQuestion(field, purpose, count, sides, modifier)
        self.rolls.append(DiceRoll(purpose, f"{count}d{sides}", (), count, "desk", modifier))
        return count


Asker = Callable[[CombatInput, Outcome, _AnsweringRoller, set[str]], "Question | None"]


def procedure(combat: CombatInput, tables: Tables) -> Procedure:
    """Resolve `combat`, asking for each die not given and each choice the result leaves."""
    from tui.engine.combat import resolve_with

    ask = _CHOICES.get(combat.ruleset)
    kept: list[DiceRoll] = []
    rolled_for: set[str] = set()  # the inputs the desk has rolled dice for
    asked: set[str] = set()
    while True:
        roller = _AnsweringRoller(kept)
        outcome = resolve_with(combat, tables, roller)
        question = ask(combat, outcome, roller, asked) if ask else None
        if question is None:
            question = roller.wanted
        if question is None:
            return combat, outcome
        answer = yield question
        if isinstance(question, DiceQuestion):
            if not isinstance(answer, DiceRoll):
                raise TypeError(f"a DiceRoll answers {question}, not {answer!r}")
            if answer.rolled:
                kept.append(answer)
                rolled_for.add(question.field)
            elif question.field in rolled_for:
                # A list of dice by hand is read before any the desk rolls: a die by hand
                # after the desk's would be read in its place.
                raise InputError(
                    question.field,
                    answer.total,
                    "the desk's dice from here on: the dice before it were the desk's",
                )
            else:
                combat = with_hand_die(combat, question.field, answer.total)
            continue
        asked.add(question.field)
        if answer is not None:
            combat = replace(combat, **{question.field: answer})


def with_hand_die(combat: CombatInput, field: str, total: int) -> CombatInput:
    """The combat with one more die rolled by hand, kept in its field."""
    current = getattr(combat, field)
    if isinstance(current, tuple):
        return replace(combat, **{field: (*current, total)})
    return replace(combat, **{field: total})


def run(
    combat: CombatInput, tables: Tables, answer: Callable[[Question], Any]
) -> tuple[CombatInput, Outcome]:
    """Drive the procedure to its end, each question answered by `answer`."""
    steps = procedure(combat, tables)
    try:
        question = next(steps)
        while True:
            question = steps.send(answer(question))
    except StopIteration as done:
        return done.value


def rolled_by(rng: random.Random | None, seed: int | None = None) -> Callable[[Question], Any]:
    """Answers every die with the desk's dice and leaves every choice as the combat has it.
    With a `seed` the dice are rolled from it (and logged as seeded)."""
    dice = rng if rng is not None else random.Random(seed) if seed is not None else random.Random()

    def answer(question: Question) -> Any:
        return desk_dice(question, dice, seed) if isinstance(question, DiceQuestion) else None

    return answer


# --- the choices each ruleset asks once the dice are read --------------------------------------


def _ocs(
    combat: CombatInput, outcome: Outcome, roller: _AnsweringRoller, asked: set[str]
) -> Question | None:
    """The attacker's option, then the defender's (who may ignore it after an attacker
    retreat), once every die is read."""
    if roller.wanted is not None:
        return None
    options = outcome.effects.get("options") or {}
    read = f"Roll {outcome.roll} on {outcome.column}: {outcome.cell}"
    attacker = options.get("attacker")
    if attacker and not attacker["chosen"] and "attacker_option_retreat" not in asked:
        return _option_question("attacker", attacker["option"], read)
    defender = options.get("defender")
    if not defender or defender["chosen"]:
        return None
    if defender.get("may_ignore") and "defender_ignores_options" not in asked:
        return ChoiceQuestion(
            "defender_ignores_options",
            f"{read}. The attacker {defender['because']}: the defender may ignore its option "
            f"{defender['option']} (RULINGS), or take it.",
            (Option("i", "ignore its options", True), Option("t", "take them", False)),
        )
    if "defender_option_retreat" not in asked:
        return _option_question("defender", defender["option"], read)
    return None


def _option_question(side: str, size: int, read: str) -> ChoiceQuestion:
    """How a side takes its option: the hexes retreated, the rest in steps lost."""
    from tui.engine.rulesets.ocs.supply import DG_RETREAT_HEXES

    options = []
    for hexes in range(size + 1):
        steps = size - hexes
        words = []
        if steps:
            words.append(f"lose {steps} step{'s' if steps != 1 else ''}")
        if hexes:
            words.append(f"retreat {hexes} hex{'es' if hexes != 1 else ''}")
        if hexes >= DG_RETREAT_HEXES:
            words.append("DG")
        if side == "attacker" and hexes:
            words.append("no exploitation")
        options.append(Option(str(hexes), ", ".join(words), hexes))
    return ChoiceQuestion(
        f"{side}_option_retreat",
        f"{read}: the {side} takes its option {size}. How?",
        tuple(options),
    )


def _daynight(
    combat: CombatInput, outcome: Outcome, roller: _AnsweringRoller, asked: set[str]
) -> Question | None:
    """On the first ENG the reserve, on the first BTL pressing on: asked before the battle
    is rolled again. At the end, on A1/A1X/A2X, whether the attacker retreats."""
    from tui.engine.rulesets.daynight import ATTACKER_MAY_RETREAT

    battle = outcome.effects.get("battle") or [{"cell": outcome.cell, "roll": outcome.roll}]
    for step in battle[: roller.known]:
        cell = step["cell"]
        if cell == "ENG" and "reserve" not in asked:
            return NumberQuestion(
                "reserve",
                f"ENG on row {step['roll']}: engaged. The attacker may commit one exploitation "
                "reserve (new odds) before the battle is rolled again. Its strength:",
                0,
                None,
                "none",
            )
        if cell == "BTL" and "press_on" not in asked:
            return ChoiceQuestion(
                "press_on",
                f"BTL on row {step['roll']}: unresolved battle. An attacker with superior "
                "morale may take one step loss and roll again at the same odds.",
                (Option("n", "the battle ends on BTL", False), Option("y", "press on", True)),
            )
    if roller.wanted is None and outcome.cell in ATTACKER_MAY_RETREAT:
        if "attacker_retreats" not in asked:
            return ChoiceQuestion(
                "attacker_retreats",
                f"{outcome.cell}: does the attacker retreat (its units disorganized) or take "
                "its losses in steps?",
                (Option("s", "step losses", False), Option("r", "retreat, disorganized", True)),
            )
    return None


_CHOICES: dict[str, Asker] = {"ocs": _ocs, "daynight": _daynight}


def answer_from(
    combat: CombatInput, rng: random.Random | None, seed: int | None = None
) -> Callable[[Question], Any]:
    """The CLI's answers: the desk's dice for every die no flag gave (from `seed`, where the
    player gave one: logged as seeded), and each choice as its flag set it (left open where
    none did)."""
    roll = rolled_by(rng, seed)

    def answer(question: Question) -> Any:
        if isinstance(question, DiceQuestion):
            return roll(question)
        value = getattr(combat, question.field)
        if value == getattr(CombatInput(combat.ruleset), question.field):
            return None
        return value

    return answer


def check_answer(question: ChoiceQuestion | NumberQuestion, value: Any) -> None:
    """Refuse an answer the question does not offer."""
    if isinstance(question, ChoiceQuestion):
        allowed = [o.value for o in question.options]
        if value not in allowed:
            raise InputError(
                question.field, value, "one of " + ", ".join(map(str, allowed)), choices=allowed
            )
    elif value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or value < question.low
    ):
        raise InputError(question.field, value, f"a whole number >= {question.low}, or none")
