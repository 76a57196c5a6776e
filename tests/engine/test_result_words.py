"""The result in fewer words for the box at 80x24: the same effects, without the rules'
reminders (kept in the log's explanation and the trace), and the dice said briefly."""

from __future__ import annotations

from tui.engine import CombatInput, Unit, resolve
from tui.engine.rulesets.common import explain
from tui.engine.rulesets.ocs.rules import result_words
from tui.engine.text import dice_brief, dice_text

OPTIONS_RULE = "Options are taken attacker first"
REPAIR = "Hero #15 Engineer/Frogman repairs a No-entry hex at once."


def _ocs_with_options() -> tuple[CombatInput, object]:
    # Roll 7 at 5:1, no surprise: "Ao1 DL1o1", the options taken as steps.
    combat = CombatInput(
        "ocs",
        (Unit(10, steps=3),),
        (Unit(2, steps=2),),
        surprise_roll=7,
        roll=7,
        attacker_option_retreat=0,
        defender_option_retreat=0,
    )
    return combat, resolve(combat)


def test_the_box_leaves_out_the_options_rule_the_log_keeps() -> None:
    _, outcome = _ocs_with_options()
    assert outcome.cell == "Ao1 DL1o1"
    assert OPTIONS_RULE in outcome.explanation
    brief = result_words(outcome.effects, outcome.odds_column, outcome.column, brief=True)
    assert OPTIONS_RULE not in brief
    # Both sides and every option as taken are still said.
    assert "Attacker takes option 1: 0 hexes back, 1 step lost." in brief
    assert "Defender loses 1 step" in brief
    assert "Supply paid: attacker 3T, defender 2T." in brief
    assert len(brief) < len(outcome.explanation)


def test_a_mission_that_closes_two_hexes_says_the_repair_once() -> None:
    # 24 CAF, all on target, roll 1 on column 24: every unit lost and the hex closed.
    combat = CombatInput("pod-boom", (Unit(8), Unit(8), Unit(8)), (), chain_rolls=(6, 1))
    outcome = resolve(combat)
    assert outcome.explanation.count("repairs") == 1
    assert outcome.explanation.endswith(REPAIR)
    assert "repairs" not in explain(outcome.effects, brief=True)
    assert "No-entry marker on the hex" in explain(outcome.effects, brief=True)


def test_dice_rolled_alike_are_said_once() -> None:
    desk = [
        {"dice": "1d6", "values": [2], "total": 2, "source": "desk"},
        {"dice": "1d6", "values": [5], "total": 5, "source": "desk"},
        {"dice": "2d6", "values": [3, 4], "total": 7, "source": "desk"},
    ]
    assert dice_brief(desk) == "1d6 2, 5, 2d6 3+4=7 (desk)"
    # Rolled by different hands: each roll says who rolled it.
    mixed = [desk[0], {**desk[1], "source": "hand"}]
    assert dice_brief(mixed) == dice_text(mixed) == "1d6 2 (desk), 1d6 5 (by hand)"
    # The row a modifier read is kept.
    modified = [
        {"dice": "2d6", "values": [4, 5], "total": 9, "source": "hand", "modifier": 1, "row": "10"}
    ]
    assert dice_brief(modified) == "2d6 4+5=9 +1 DRM: row 10 (by hand)"
    assert dice_brief([]) == ""
