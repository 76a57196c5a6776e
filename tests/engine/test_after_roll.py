"""Which card a side may still play after the roll (RULINGS: the Joker in Super/Ultra,
Stanfill in Basic; no card in AD/AV; one card per side)."""

from __future__ import annotations

from tui.engine import CombatInput, Unit, resolve
from tui.engine.rulesets.pod import after_roll_card
from tui.engine.tables import default_tables


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
