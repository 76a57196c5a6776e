"""What OCS asks once the dice are read: how each side takes its option (RULINGS)."""

from __future__ import annotations

from tui.engine.model import CombatInput, Outcome
from tui.engine.questions import AnsweringRoller, ChoiceQuestion, Option, Question
from tui.engine.rulesets.ocs.supply import DG_RETREAT_HEXES


def ask(
    combat: CombatInput, outcome: Outcome, roller: AnsweringRoller, asked: set[str]
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
