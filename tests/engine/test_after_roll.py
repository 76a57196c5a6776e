"""Which card a side may still play after the roll (RULINGS: the Joker in Super/Ultra,
Stanfill in Basic; no card in AD/AV; one card per side), played through the procedure as
the desk (F9) and the CLI (a card flag) both play it; and the Pair-o-Dice questions asked
away from the CRT: the Hero Site draw and Hero #15 Engineer/Frogman."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from msgspec.structs import replace

from tui.engine import CombatInput, InputError, Unit, resolve
from tui.engine.procedure import (
    CardPlayed,
    after_roll,
    after_roll_offers,
    answer_from,
    answered,
    as_rolled,
    card_played_after,
    desk_dice,
)
from tui.engine.questions import ChoiceQuestion, DiceQuestion, MarkerQuestion, Question
from tui.engine.rulesets.pod.rules import after_roll_card, frogman, hero_site
from tui.engine.tables import default_tables

TABLES = default_tables()


class Faces(random.Random):
    """An RNG whose dice show the faces given, in order."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def offer(combat: CombatInput, side: str) -> str | None:
    return after_roll_card(combat, resolve(combat), default_tables(), side)


def test_super_offers_the_joker_to_a_side_without_a_card() -> None:
    plain = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8)
    assert offer(plain, "attacker") == offer(plain, "defender") == "joker"
    aced = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8, attacker_card="ace")
    assert offer(aced, "attacker") is None and offer(aced, "defender") == "joker"


def test_basic_offers_stanfill_and_nothing_once_played() -> None:
    combat = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=2)
    assert offer(combat, "attacker") == "stanfill"
    played = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=2, defender_card="stanfill")
    assert offer(played, "attacker") is None and offer(played, "defender") is None


def test_nothing_after_an_automatic_result_or_a_joker() -> None:
    av = CombatInput("pod-ultra", (Unit(12),), (Unit(2),))
    assert offer(av, "attacker") is None
    joker = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8, defender_card="joker")
    assert offer(joker, "attacker") is None


# --- the card played through the procedure (tui.engine.procedure.after_roll) -----------------


def play(combat: CombatInput, outcome: Any, side: str | None) -> CardPlayed | None:
    """The card after the roll, the question answered with `side` (None: no card)."""
    asked: list[Question] = []

    def answer(question: Question) -> Any:
        asked.append(question)
        return side

    played = answered(after_roll(combat, outcome, TABLES), answer)
    [question] = asked
    assert isinstance(question, ChoiceQuestion) and question.field == "after_roll"
    return played


def test_the_procedure_asks_which_side_plays_the_card_after_the_roll() -> None:
    combat = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8)
    rolled = resolve(combat)
    steps = after_roll(combat, rolled, TABLES)
    question = next(steps)
    assert isinstance(question, ChoiceQuestion)
    assert question.prompt == "A card after the roll: which side plays it?"
    assert [(o.key, o.label, o.value) for o in question.options] == [
        ("a", "the attacker plays Joker", "attacker"),
        ("d", "the defender plays Joker", "defender"),
    ]
    # One side committed a card before the roll: only the other is asked.
    aced = replace(combat, attacker_card="ace")
    [only] = next(after_roll(aced, resolve(aced), TABLES)).options
    assert only.value == "defender"


def test_the_card_reads_the_same_desk_dice_again_and_keeps_them_the_desks() -> None:
    """A roll of the desk's dice: the card's combat holds no roll by hand (it was not one),
    and its dice are the roll's, as they came."""
    combat = CombatInput("pod-super", (Unit(6),), (Unit(2),))
    rolled = resolve(combat, rng=Faces(3, 5))
    played = play(combat, rolled, "defender")
    assert played is not None
    assert (played.side, played.card) == ("defender", "joker")
    assert played.combat == replace(combat, defender_card="joker")
    assert played.outcome.dice == rolled.dice and rolled.dice[0].source == "desk"
    assert played.outcome.cell == rolled.cell
    assert played.outcome.effects["attacker"] == rolled.effects["defender"]
    assert played.note(4) == "Joker played by the defender after the roll of entry 4"


def test_stanfill_after_a_basic_roll_cancels_it_and_no_card_is_no_change() -> None:
    combat = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=2)
    rolled = resolve(combat)
    played = play(combat, rolled, "attacker")
    assert played is not None and played.card == "stanfill"
    assert played.outcome.effects["cancelled"] is True
    assert played.outcome.dice == rolled.dice
    assert play(combat, rolled, None) is None


def test_no_card_after_an_automatic_result_or_a_card_already_played_is_refused() -> None:
    av = CombatInput("pod-super", (Unit(16),), (Unit(2),))
    with pytest.raises(InputError, match="none after this one"):
        next(after_roll(av, resolve(av), TABLES))
    joker = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8, attacker_card="joker")
    with pytest.raises(InputError):
        next(after_roll(joker, resolve(joker), TABLES))
    rivets = CombatInput("rivets", (Unit(7),), (Unit(4),), roll=3)
    assert after_roll_offers(rivets, resolve(rivets), TABLES) == {}


def test_an_answer_no_side_was_offered_is_refused() -> None:
    combat = CombatInput("pod-basic", (Unit(8),), (Unit(2),), roll=2)
    with pytest.raises(InputError, match="one of attacker, defender"):
        play(combat, resolve(combat), "umpire")


def test_a_card_flag_is_played_after_the_roll_it_allows() -> None:
    """The CLI's way (`card_played_after`): rolled without the card, then the card played
    after that roll; the result is the combat resolved with the card."""
    given = CombatInput("pod-super", (Unit(6),), (Unit(2),), roll=8, attacker_card="joker")
    (combat, rolled), played = card_played_after(given, TABLES, answer_from(given, None))
    assert combat == replace(given, attacker_card=None) and not rolled.effects.get("swapped")
    assert played is not None and played.combat == given
    assert played.outcome.to_dict() == resolve(given).to_dict()


def test_a_card_flag_no_roll_allows_is_read_with_the_combat_as_given() -> None:
    """At AV no card is played: the combat is resolved as given, and its note says so."""
    given = CombatInput("pod-super", (Unit(16),), (Unit(2),), attacker_card="joker")
    (combat, outcome), played = card_played_after(given, TABLES, answer_from(given, None))
    assert played is None and combat == given
    assert any("No card is played in an AV combat" in n for n in outcome.effects["notes"])


def test_as_rolled_takes_out_only_the_cards_played_after_the_roll() -> None:
    joker = CombatInput(
        "pod-super", (Unit(6),), (Unit(2),), attacker_card="ace", defender_card="joker"
    )
    assert as_rolled(joker, TABLES) == replace(joker, defender_card=None)
    # Stanfill is committed before the roll in Super, after it in Basic.
    super_stanfill = replace(joker, defender_card="stanfill")
    assert as_rolled(super_stanfill, TABLES) == super_stanfill
    basic = CombatInput("pod-basic", (Unit(8),), (Unit(2),), defender_card="stanfill")
    assert as_rolled(basic, TABLES) == replace(basic, defender_card=None)


# --- the Hero Site draw and Hero #15 Engineer/Frogman -----------------------------------------


def test_the_hero_site_draw_asks_who_won_and_rolls_only_for_the_attacker() -> None:
    steps = hero_site()
    question = next(steps)
    assert isinstance(question, ChoiceQuestion)
    assert [o.value for o in question.options] == ["no", "attacker", "defender"]
    assert answered(hero_site(), lambda q: "no") is None
    refused = answered(hero_site(), lambda q: "defender")
    assert refused is not None and refused.dice == () and "only an attacker" in str(refused.refused)
    die = steps.send("attacker")
    assert isinstance(die, DiceQuestion) and (die.count, die.sides) == (1, 6)
    rolled = desk_dice(die, Faces(4))
    try:
        steps.send(rolled)
    except StopIteration as done:
        draw = done.value
    assert draw.dice == (rolled,) and draw.refused is None
    assert draw.text.startswith("Hero Site won uncontested: the desk rolled 4.")
    assert rolled.to_dict() == {
        "purpose": "Hero Site card draw",
        "dice": "1d6",
        "values": [4],
        "total": 4,
        "source": "desk",
    }


def never(question: Question) -> Any:
    raise AssertionError(f"nothing to ask, and it asked {question}")


@dataclass(frozen=True)
class Marker:
    id: str
    kind: str


def test_the_frogman_asks_which_no_entry_hex_only_where_several_are_closed() -> None:
    card = TABLES.data["pod-boom"]["repair_card"]
    none = answered(frogman([Marker("1.1", "DG")], TABLES), never)
    assert none is not None and none.marker is None
    assert none.refused == f"No No-entry hex to repair: {card} needs one."
    one = answered(frogman([Marker("1.1", "DG"), Marker("2.1", "no-entry")], TABLES), never)
    assert one is not None and one.marker == Marker("2.1", "no-entry")
    assert one.note == f"{card} repairs the hex"
    closed = [Marker("2.1", "no-entry"), Marker("3.1", "no-entry")]
    steps = frogman(closed, TABLES)
    question = next(steps)
    assert isinstance(question, MarkerQuestion) and question.markers == tuple(closed)
    assert question.prompt == f"{card}: which No-entry hex?"
    picked = answered(frogman(closed, TABLES), lambda q: "3.1")
    assert picked is not None and picked.marker == closed[1]
    assert answered(frogman(closed, TABLES), lambda q: None) is None
    with pytest.raises(InputError, match="one of 2.1, 3.1"):
        answered(frogman(closed, TABLES), lambda q: "9.9")
