"""Rivets: the enemy BCPC cannot be overrun, so 6-1 or better against it is rolled."""

from __future__ import annotations

import pytest

from tui.engine import CombatInput, InputError, Unit, distribution, resolve


def test_bcpc_at_six_to_one_is_rolled_not_overrun() -> None:
    combat = CombatInput("rivets", attackers=(Unit(12),), defenders=(Unit(2),), roll=4, bcpc=True)
    outcome = resolve(combat)
    assert "result" not in outcome.effects
    assert outcome.roll == "4" and outcome.column == "6-1"
    assert [d.source for d in outcome.dice] == ["manual"]
    assert any("BCPC cannot be overrun" in step for step in outcome.trace)
    # Without the flag the same odds are an overrun with no die.
    plain = resolve(CombatInput("rivets", attackers=(Unit(12),), defenders=(Unit(2),)))
    assert plain.effects["result"] == "overrun" and plain.dice == []


def test_bcpc_distribution_rolls_the_six_to_one_column() -> None:
    combat = CombatInput("rivets", attackers=(Unit(12),), defenders=(Unit(2),), bcpc=True)
    dist = distribution(combat)
    assert dist.column == "6-1"
    assert sum(p for _, p, _ in dist.outcomes) == 1


def test_bcpc_is_a_rivets_input_only() -> None:
    with pytest.raises(InputError, match="only rivets"):
        resolve(CombatInput("pod-basic", attackers=(Unit(8),), defenders=(Unit(2),), bcpc=True))
