"""OCS keeps the last combat's cells as carried out (their effects and meaning) for a
combat that differs from it only in its units' factors: what it gives must be what working
them out afresh gives, and a combat that differs in anything else is worked out again."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from msgspec.structs import replace

from tui.engine import CombatInput, Unit
from tui.engine.combat import distribution
from tui.engine.errors import InputError
from tui.engine.rulesets.ocs import rules
from tui.engine.tables import default_tables


def combats() -> list[CombatInput]:
    """OCS combats in the order a player might type them: each a factor apart from the one
    before, then units of other steps, supply, stocks and kinds, options chosen by hand."""
    found = []
    counters = (
        ((Unit(3),), (Unit(2),)),
        (
            (Unit(4, name="A1", steps=2, ar=3, kind="combat"),),
            (Unit(2, name="D1", steps=1, ar=2, re=1),),
        ),
        (
            (Unit(5, name="A1", steps=1, ar=4, supply="internal", stocks="low"),),
            (Unit(3, name="D1", steps=3, ar=1, re=2),),
        ),
        (
            (Unit(6, name="Brig", steps=2, ar=3, kind="dak-brigade"), Unit(2, name="A2", steps=1)),
            (Unit(1, name="D1", steps=1, ar=0, re=1), Unit(1, name="D2", steps=1, ar=0)),
        ),
    )
    for (attackers, defenders), extra, factor in itertools.product(
        counters,
        ({}, {"defender_unsupplied": True}, {"defender_ignores_options": True, "hedgehog": 1}),
        (1, 7, 30),
    ):
        first = replace(attackers[0], factor=factor)
        found.append(
            CombatInput("ocs", (first, *attackers[1:]), defenders, terrain="close", **extra)
        )
    return found


def worked(combat: CombatInput) -> object:
    """A combat's distribution as its ruleset gives it (all of it, and each outcome's
    effects), or the reason it was refused: what kept data must not change."""
    try:
        found = distribution(combat, default_tables())
    except InputError as refused:
        return ("refused", str(refused))
    return repr(found), repr(found.details)


def kept_sweep(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, kept: Any, cases: list[CombatInput]
) -> tuple[list[object], int, int]:
    """Each combat of `cases` worked out afresh (`kept`, what a ruleset keeps of the last
    combat, emptied before each), then the sweep again in turn, with what is kept: each must
    give the same. What was worked out, and how many calls of `module.name` (the work kept
    data saves) each way made."""
    calls = 0
    real = getattr(module, name)

    def counted(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(*args)

    monkeypatch.setattr(module, name, counted)
    wanted = []
    for combat in cases:
        kept.clear()
        wanted.append(worked(combat))
    each_afresh, calls = calls, 0
    kept.clear()
    for combat, expected in zip(cases, wanted, strict=True):
        assert worked(combat) == expected, combat
    return wanted, each_afresh, calls


def test_cells_kept_from_a_combat_of_other_factors_are_the_ones_worked_out_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wanted, each_afresh, carried = kept_sweep(
        monkeypatch, rules, "cell_effects", rules._LAST_CELLS, combats()
    )
    assert sum(1 for found in wanted if found[0] != "refused") >= 20
    # Most of the sweep was answered from the last combat's cells.
    assert carried < each_afresh / 2, (carried, each_afresh)


def test_only_the_factors_may_differ() -> None:
    a = CombatInput("ocs", (Unit(3, name="A1", steps=2, ar=3),), (Unit(2, steps=1),))
    assert rules.same_but_factors(a, replace(a, attackers=(Unit(9, name="A1", steps=2, ar=3),)))
    assert rules.same_but_factors(a, replace(a, defenders=(Unit(40, steps=1),)))
    # A step more, another name, a rating given as True for 1, another input: not the same.
    assert not rules.same_but_factors(a, replace(a, defenders=(Unit(2, steps=2),)))
    assert not rules.same_but_factors(a, replace(a, attackers=(Unit(3, name="A2", steps=2, ar=3),)))
    assert not rules.same_but_factors(a, replace(a, defenders=(Unit(2, steps=True),)))
    assert not rules.same_but_factors(a, replace(a, hedgehog=1))
    assert not rules.same_but_factors(a, replace(a, defenders=(Unit(2, steps=1), Unit(1))))
    empty = CombatInput("ocs", (), (), column="1:1")
    assert rules.same_but_factors(empty, replace(empty))
    assert not rules.same_but_factors(empty, a)


def test_a_column_met_again_after_another_brings_the_rows_kept_for_it() -> None:
    """A digit typed and taken back (1, 12, 123, back to 1, then 13, 134) reads one column,
    another, then the first again: its rows are the ones kept from the first time (a few
    are kept, not only the last), and each preview is the one worked out with nothing kept."""
    import tui.engine.preview as previews

    tables = default_tables()
    typed = [CombatInput("ocs", (Unit(1),), (Unit(factor),)) for factor in (1, 12, 123, 1, 13, 134)]
    shown = [previews.work_out(combat, tables) for combat in typed]
    assert shown[0].column != shown[1].column  # another column, then the first again
    assert shown[3].rows is shown[0].rows
    assert shown[4].column == shown[1].column and shown[4].rows is shown[1].rows
    for combat, preview in zip(typed, shown, strict=True):
        rules._LAST_CELLS.clear()
        rules._LAST_OUTCOMES.clear()
        previews._LAST_ROWS.clear()
        assert previews.work_out(combat, tables) == preview, combat
