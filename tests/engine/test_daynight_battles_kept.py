"""Day/Night keeps the last combat's battles (each column's cells, chances, meanings and
effects) for a combat that differs from it only in its units' factors: what it gives must
be what enumerating every die afresh gives, and a combat that differs in anything else, or
gives an order for after the dice, is enumerated again."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from msgspec.structs import replace

from tests.engine.test_ocs_cells_kept import kept_sweep
from tui.engine import CombatInput, Unit
from tui.engine import preview as previews
from tui.engine.rulesets.daynight import rules
from tui.engine.rulesets.ocs import rules as ocs_rules
from tui.engine.tables import default_tables


def combats() -> list[CombatInput]:
    """Day/Night combats in the order a player might type them: factors typed a digit at a
    time (the column moving, then staying at the last), on each table, terrain, DRM and
    hold, units named, a column given, and the orders for after the dice."""
    found = []
    sides = (
        ((Unit(1),), (Unit(2),)),
        ((Unit(4, name="A1"), Unit(2, name="A2")), (Unit(3, name="D1"),)),
    )
    inputs: tuple[dict[str, Any], ...] = (
        {"time": "day", "terrain": "clear"},
        {"time": "night", "terrain": "clear", "drm": 2},
        {"time": "day", "terrain": "clear", "drm": -3, "hold": False},
        {"time": "night", "terrain": "clear", "drm": 1, "reserve": 4},
        {"time": "day", "terrain": "clear", "press_on": True},
        {"time": "day", "terrain": "clear", "attacker_retreats": True},
    )
    for (attackers, defenders), extra in itertools.product(sides, inputs):
        for factor in (1, 2, 3, 5, 8, 13, 130, 1):
            first = replace(attackers[0], factor=factor)
            found.append(CombatInput("daynight", (first, *attackers[1:]), defenders, **extra))
        found.append(CombatInput("daynight", attackers, defenders, column="3-1", **extra))
    return found


def test_battles_kept_from_a_combat_of_other_factors_are_the_ones_enumerated_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wanted, each_afresh, enumerated = kept_sweep(
        monkeypatch, rules, "enumerated_distribution", rules._LAST_BATTLES, combats()
    )
    assert sum(1 for found in wanted if found[0] != "refused") >= 40
    # Half the sweep's combats (those without a reserve or an order) differ from the one
    # before only in a factor; many of them were answered from its battles.
    assert each_afresh >= 40
    assert enumerated < each_afresh * 3 / 4, (enumerated, each_afresh)


def test_a_reserve_or_an_order_for_after_the_dice_is_always_enumerated() -> None:
    plain = CombatInput("daynight", (Unit(6),), (Unit(2),), time="day", terrain="clear")
    assert rules.distribution(plain, default_tables()) is not None
    for given in ({"reserve": 2}, {"press_on": True}, {"attacker_retreats": True}, {"roll": 3}):
        assert rules.distribution(replace(plain, **given), default_tables()) is None, given


def test_a_preview_on_kept_chances_is_the_one_worked_out_afresh() -> None:
    """Typed a digit at a time on Day/Night and OCS, each new combat's preview (its rows
    ranked and worded once for the chances kept) is the one worked out with nothing kept."""
    tables = default_tables()
    typed = [
        CombatInput("daynight", (Unit(factor),), (Unit(1),), time="day", terrain="clear")
        for factor in (1, 12, 123, 13, 134, 2, 3)
    ] + [CombatInput("ocs", (Unit(1),), (Unit(factor),)) for factor in (1, 12, 123, 13, 2, 3)]
    shown = [previews.work_out(combat, tables) for combat in typed]
    reused = sum(a.rows is b.rows for a, b in zip(shown, shown[1:], strict=False))
    assert reused >= 4, reused  # the rows of the same chances handed out again
    for combat, preview in zip(typed, shown, strict=True):
        rules._LAST_BATTLES.clear()
        ocs_rules._LAST_CELLS.clear()
        ocs_rules._LAST_OUTCOMES.clear()
        previews._LAST_ROWS.clear()
        assert previews.work_out(combat, tables) == preview, combat
