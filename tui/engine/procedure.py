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
from dataclasses import replace
from typing import Any

import tui.engine.registry as registry
from tui.engine.dice import DESK, SEED, DiceRoll, check_roll
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Outcome
from tui.engine.questions import (
    AnsweringRoller,
    ChoiceQuestion,
    DiceQuestion,
    NumberQuestion,
    Question,
)
from tui.engine.tables import Tables

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


Asker = Callable[[CombatInput, Outcome, AnsweringRoller, set[str]], "Question | None"]


def procedure(combat: CombatInput, tables: Tables) -> Procedure:
    """Resolve `combat`, asking for each die not given and each choice the result leaves."""
    from tui.engine.combat import resolve_with

    ask = registry.get(combat.ruleset).asker()
    kept: list[DiceRoll] = []
    rolled_for: set[str] = set()  # the inputs the desk has rolled dice for
    asked: set[str] = set()
    while True:
        roller = AnsweringRoller(kept)
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
