"""Resolving a combat as a conversation: one headless procedure for every ruleset.

`procedure(combat, tables)` is a generator. It yields typed questions and ends (its
StopIteration value) in the combat as answered and its Outcome:

- DiceQuestion: which dice, for what, the faces allowed and the modifier the desk adds.
  Answer a DiceRoll: `desk_dice` (the desk rolls them) or `hand_dice` (as they lie).
- ChoiceQuestion: named options (OCS options, the Day/Night attacker retreat, BTL press-on).
- NumberQuestion: a number where one is needed (the Day/Night ENG reserve; None for none).
- MarkerQuestion: one marker in play, of those offered (the hex Hero #15 Engineer/Frogman
  repairs).

A choice or number answered None is left as the combat has it (the CLI leaves a choice no
flag made open, and the result says who still chooses). The desk answers with dialogs or
its dice, the CLI from its flags, tests and luck from a log entry; each gets the same log.
The dice of one combat are read again, unchanged, after every answer.

After the roll, `after_roll(combat, outcome, tables)` asks which side plays the card the
ruleset allows then (the Joker, Stanfill) and ends in the same dice read again with it:
the desk (F9, on the game's last combat) and the CLI (a card flag) both play it so, and
log the roll and then the card amending it. `as_rolled` is the combat as its dice were
rolled, without such a card: what luck judges (RULINGS "Luck and after-roll cards").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from msgspec.structs import replace

import tui.engine.registry as registry
from tui.engine.combat import resolve_with
from tui.engine.dice import DESK, SEED, DiceRoll, check_roll
from tui.engine.errors import InputError
from tui.engine.model import CombatInput, Outcome
from tui.engine.questions import (
    AnsweringRoller,
    ChoiceQuestion,
    DiceQuestion,
    NumberQuestion,
    Option,
    Question,
)
from tui.engine.tables import Tables

Procedure = Generator[Question, Any, tuple[CombatInput, Outcome]]
T = TypeVar("T")


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


def procedure(combat: CombatInput, tables: Tables, rolled: Iterable[DiceRoll] = ()) -> Procedure:
    """Resolve `combat`, asking for each die not given and each choice the result leaves.
    `rolled`: dice a roll of it logged (an outcome's dice), read again as they came: those
    the desk rolled are read in turn, those rolled by hand are in the combat's inputs."""
    ask = registry.get(combat.ruleset).asker()
    kept: list[DiceRoll] = [die for die in rolled if die.rolled]
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
            combat = with_value(combat, question.field, answer)


def with_value(combat: CombatInput, field: str, value: Any) -> CombatInput:
    """The combat with one field (named at run time) set to `value`."""
    changes: dict[str, Any] = {field: value}
    return replace(combat, **changes)


def with_hand_die(combat: CombatInput, field: str, total: int) -> CombatInput:
    """The combat with one more die rolled by hand, kept in its field."""
    current = getattr(combat, field)
    if isinstance(current, tuple):
        return with_value(combat, field, (*current, total))
    return with_value(combat, field, total)


def run(
    combat: CombatInput, tables: Tables, answer: Callable[[Question], Any]
) -> tuple[CombatInput, Outcome]:
    """Drive the procedure to its end, each question answered by `answer`."""
    return answered(procedure(combat, tables), answer)


def answered(steps: Generator[Question, Any, T], answer: Callable[[Question], Any]) -> T:
    """Drive any of the procedures here (a combat, a card after its roll, a Hero Site draw,
    a repair) to its end, each question answered by `answer`."""
    try:
        question = next(steps)
        while True:
            question = steps.send(answer(question))
    except StopIteration as done:
        result: T = done.value
        return result


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


# --- after the roll: a card played on a roll already read ------------------------------------

AFTER_ROLL_PROMPT = "A card after the roll: which side plays it?"


@dataclass(frozen=True, eq=False)
class CardPlayed:
    """A card played after a roll: which side played which card, and the roll read again
    with it (the same dice, as they came). Read field by field, never compared: no
    generated __eq__ or __hash__ (eq=False), made at every `crtdesk resolve` for nothing."""

    side: str
    card: str
    combat: CombatInput
    outcome: Outcome

    def note(self, seq: int) -> str:
        """The amending entry's note: the card, the side that played it, the roll amended."""
        return f"{self.card.title()} played by the {self.side} after the roll of entry {seq}"


AfterRoll = Generator[Question, Any, CardPlayed | None]


def after_roll_offers(combat: CombatInput, outcome: Outcome, tables: Tables) -> dict[str, str]:
    """Side -> the card it may still play after this roll, for each side that may play one
    (none in a ruleset without cards after the roll): the ruleset says."""
    return registry.get(combat.ruleset).after_roll_offers(combat, outcome, tables)


def after_roll(combat: CombatInput, outcome: Outcome, tables: Tables) -> AfterRoll:
    """A card played after the roll of `combat` (its `outcome`, the dice as they came):
    which side plays the card the ruleset allows, then the same dice read again with it.
    Ends in the card played, or None when the question is answered None (no card). Refused
    (InputError) when no card may be played after this roll."""
    offers = after_roll_offers(combat, outcome, tables)
    if not offers:
        raise InputError(
            "after_roll", None, "a roll a card may still be played after (none after this one)"
        )
    question = ChoiceQuestion(
        "after_roll",
        AFTER_ROLL_PROMPT,
        tuple(
            Option(side[0], f"the {side} plays {card.title()}", side)
            for side, card in offers.items()
        ),
    )
    side = yield question
    if side is None:
        return None
    check_answer(question, side)
    card = offers[side]
    amended = _with_card(combat, side, card)
    final, again = yield from procedure(amended, tables, outcome.dice)
    return CardPlayed(side, card, final, again)


def as_rolled(combat: CombatInput, tables: Tables) -> CombatInput:
    """The combat as its dice were rolled: without any card played after the roll (RULINGS
    "Luck and after-roll cards": luck judges the dice as they fell)."""
    return registry.get(combat.ruleset).as_rolled(combat, tables)


def card_played_after(
    combat: CombatInput, tables: Tables, answer: Callable[[Question], Any]
) -> tuple[tuple[CombatInput, Outcome], CardPlayed | None]:
    """A combat whose inputs hold a card played after the roll (a CLI flag) played as the
    desk plays it: rolled without the card (each question answered by `answer`), then the
    card played after that roll (`after_roll`); the roll and the card are logged apart, as
    F9 logs them. A card this roll allows none of (AD, AV, a result cancelled before it) is
    left in the combat, read with the same dice: the ruleset notes it unplayed, or refuses
    it, as it does any card given so."""
    side = registry.get(combat.ruleset).card_given_after_roll(combat, tables)
    if side is None:
        return run(combat, tables, answer), None
    card = getattr(combat, f"{side}_card")
    rolled = run(_with_card(combat, side, None), tables, answer)
    if after_roll_offers(*rolled, tables).get(side) != card:
        return answered(procedure(combat, tables, rolled[1].dice), answer), None

    def playing(question: Question) -> Any:
        return side if question.field == "after_roll" else answer(question)

    return rolled, answered(after_roll(*rolled, tables), playing)


def _with_card(combat: CombatInput, side: str, card: str | None) -> CombatInput:
    if side == "attacker":
        return replace(combat, attacker_card=card)
    return replace(combat, defender_card=card)
