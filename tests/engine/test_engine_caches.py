"""What the preview's engine work keeps or skips gives exactly what working it all out
again gives: the column lookups answered once per chart and totals, and a combat's inputs
for the log read field by field."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from msgspec.structs import asdict

import tui.engine.odds as odds
import tui.engine.preview as preview_module
import tui.engine.registry as registry
import tui.engine.rulesets.common as common
import tui.engine.schema as schema
from tui.engine import CombatInput, InputError, Unit, default_tables, distribution
from tui.engine.combat import check_inputs


def odds_columns(node: Any) -> Iterator[tuple[str, ...]]:
    """Every tuple of odds labels ("1-2", "3:1", "10-1+") anywhere in the charts."""
    if isinstance(node, tuple) and node and all(isinstance(x, str) for x in node):
        if all(odds._LABEL.match(x.strip()) for x in node):
            yield node
        return
    children = node.values() if hasattr(node, "values") else node
    if isinstance(children, str) or not hasattr(children, "__iter__"):
        return
    for child in children:
        yield from odds_columns(child)


COLUMNS = sorted(set(odds_columns(default_tables().data)))


def brute_force_column(columns: tuple[str, ...], attack: int, defense: int) -> int | None:
    found = None
    for index, label in enumerate(columns):
        left, right = label.strip().rstrip("+").replace(":", "-").split("-")
        if Fraction(int(left), int(right)) <= Fraction(attack, defense):
            found = index
    return found


def test_every_chart_has_odds_columns_to_check():
    assert len(COLUMNS) >= 4
    assert any(":" in label for columns in COLUMNS for label in columns)


@pytest.mark.parametrize("columns", COLUMNS)
def test_the_kept_column_lookup_equals_working_it_out(columns: tuple[str, ...]) -> None:
    for attack in range(1, 61):
        for defense in range(1, 16):
            # Asked twice: the second answer is the kept one.
            for _ in range(2):
                assert odds.column_for_ratio(columns, attack, defense) == brute_force_column(
                    columns, attack, defense
                ), (columns, attack, defense)


def reference_to_dict(combat: CombatInput) -> dict[str, Any]:
    """The log's inputs as msgspec's `asdict` gives them: every field that differs from a blank one."""
    blank = CombatInput(combat.ruleset)
    out = {
        key: value
        for key, value in asdict(combat).items()
        if value != getattr(blank, key) or key == "ruleset"
    }
    for side in ("attackers", "defenders"):
        if side in out:
            out[side] = [
                {"factor": u.factor, **({"terrain": u.terrain} if u.terrain else {})}
                for u in getattr(combat, side)
            ]
    return out


COMBATS = [
    CombatInput("pod-basic", (Unit(8),), (Unit(2),), buddy="attacker"),
    CombatInput("pod-super", (Unit(4, "town"), Unit(3)), (Unit(2),), attacker_card="jack"),
    CombatInput("pod-ultra", (Unit(9),), obstacle="mines", mines_cdf=3, morale_attack=-1),
    CombatInput("pod-boom", (Unit(6), Unit(4)), aaf=3, long_range=True),
    CombatInput("pod-boom", step="crt", caf=9, roll=4),
    CombatInput(
        "ocs", (Unit(7),), (Unit(2),), terrain="close", attacker_ar=3, defender_ar=2, hedgehog=1
    ),
    CombatInput("rivets", (Unit(5),), (Unit(2),), bcpc=True),
    CombatInput(
        "daynight",
        (Unit(4),),
        (Unit(2),),
        terrain="clear",
        reserve=4,
        press_on=True,
        rerolls=(3, 5),
        hold=False,
        attacker_retreats=True,
    ),
    CombatInput("daynight", (Unit(4),), (Unit(0),), terrain="woods", time="night", drm=-2),
]


@pytest.mark.parametrize("combat", COMBATS, ids=lambda c: c.ruleset)
def test_the_inputs_for_the_log_are_those_asdict_gives(combat: CombatInput) -> None:
    assert combat.to_dict() == reference_to_dict(combat)


# Combats the engine can take a distribution of (a battle's re-rolls by hand are not).
DISTRIBUTED = [c for c in COMBATS if not c.rerolls] + [
    CombatInput("daynight", (Unit(4),), (Unit(2),), terrain="clear", reserve=4, press_on=True)
]


@pytest.mark.parametrize("combat", DISTRIBUTED, ids=lambda c: c.ruleset)
def test_a_distribution_is_the_same_without_the_kept_lookups(
    combat: CombatInput, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = distribution(combat)
    monkeypatch.setattr(common, "column_for_ratio", brute_force_column)
    monkeypatch.setattr(odds, "label_ratio", odds.label_ratio.__wrapped__)
    assert distribution(combat) == kept


@pytest.mark.parametrize("combat", DISTRIBUTED, ids=lambda c: c.ruleset)
def test_a_kept_preview_is_the_one_working_it_out_gives(combat: CombatInput) -> None:
    tables = default_tables()
    preview_module._KEPT.clear()
    first = preview_module.preview(combat, tables)
    again = preview_module.preview(combat, tables)
    assert again is first  # the second answer is the kept one
    assert again == preview_module.work_out(combat, tables)


def test_a_kept_preview_does_not_answer_for_an_equal_but_refused_combat() -> None:
    # 5.0 == 5, but the engine refuses a factor that is not a whole number: the kept
    # preview of 5 must not answer for it, and a refused combat is not kept.
    tables = default_tables()
    preview_module.preview(CombatInput("rivets", (Unit(5),), (Unit(2),)), tables)
    for _ in range(2):
        with pytest.raises(InputError, match="5.0"):
            preview_module.preview(CombatInput("rivets", (Unit(5.0),), (Unit(2),)), tables)


def test_the_kept_previews_are_bounded() -> None:
    tables = default_tables()
    preview_module._KEPT.clear()
    for attack in range(1, preview_module.KEPT_PREVIEWS + 40):
        preview_module.preview(CombatInput("rivets", (Unit(attack),), (Unit(2),)), tables)
    assert len(preview_module._KEPT) == preview_module.KEPT_PREVIEWS


def test_a_kept_preview_is_found_only_for_a_combat_of_the_same_types_all_through() -> None:
    # Kept by equality, which takes 5.0 for 5 (in a unit) and True for 1: `same` tells them
    # apart as the combat's repr did.
    combat = CombatInput("pod-basic", (Unit(5),), (Unit(2),))
    assert preview_module.same(combat, CombatInput("pod-basic", (Unit(5),), (Unit(2),)))
    as_float = CombatInput("pod-basic", (Unit(5.0),), (Unit(2),))
    assert as_float == combat and not preview_module.same(as_float, combat)
    as_bool = CombatInput("pod-basic", (Unit(5),), (Unit(2),), drm=True)
    as_int = CombatInput("pod-basic", (Unit(5),), (Unit(2),), drm=1)
    assert as_bool == as_int and not preview_module.same(as_bool, as_int)


def test_the_fields_a_ruleset_does_not_read_are_kept_as_a_blank_combat_gives_them() -> None:
    """The engine's front door keeps, by ruleset, the fields it does not read with a blank
    combat's values: what it keeps is what a blank combat gives, and a combat setting one
    of them is refused with the same words, kept or worked out afresh."""
    schema._UNREAD.clear()
    for combat in COMBATS:
        fields = registry.get(combat.ruleset).logged_fields()
        check_inputs(combat)  # read: nothing refused, the ruleset's unread fields kept
        names = {f.name for f in fields}
        blank = CombatInput(combat.ruleset)
        assert schema._UNREAD[combat.ruleset, tuple(f.name for f in fields)] == tuple(
            (name, getattr(blank, name)) for name in schema.FIELDS if name not in names
        )
    odd = CombatInput("pod-basic", (Unit(8),), (Unit(2),), hedgehog=1)
    said = []
    for _ in range(2):  # kept from the sweep above, then kept from the first refusal
        with pytest.raises(InputError) as kept:
            check_inputs(odd)
        said.append(str(kept.value))
    schema._UNREAD.clear()
    with pytest.raises(InputError) as afresh:
        check_inputs(odd)
    assert said == [str(afresh.value)] * 2 and "hedgehog" in said[0]
