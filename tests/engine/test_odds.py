"""Odds: rounding in the defender's favour, the column read, and column shifts."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.engine import CombatInput, Unit, default_tables, resolve
from tui.engine.odds import apply_shifts, column_for_ratio, label_ratio, odds_label, round_odds

# The seeds' and RULINGS' worked examples: (attack, defence, odds).
EXAMPLES = [(7, 4, "1-1"), (8, 4, "2-1"), (3, 7, "1-3"), (4, 8, "1-2")]


@pytest.mark.parametrize(("attack", "defense", "odds"), EXAMPLES)
def test_worked_examples(attack, defense, odds):
    assert odds_label(attack, defense) == odds


@pytest.mark.parametrize(("attack", "defense", "odds"), EXAMPLES)
@pytest.mark.parametrize("ruleset", ["pod-basic", "pod-super", "rivets"])
def test_worked_examples_through_the_resolvers(ruleset, attack, defense, odds):
    roll = 2 if ruleset == "pod-super" else 1
    outcome = resolve(
        CombatInput(ruleset, attackers=(Unit(attack),), defenders=(Unit(defense),), roll=roll)
    )
    assert outcome.odds == odds
    assert outcome.column == odds


@pytest.mark.parametrize(("attack", "defense", "odds"), EXAMPLES)
def test_worked_examples_on_ocs_and_daynight(attack, defense, odds):
    # Both print every integer step between 1:3 and 2:1 on these rows.
    ocs = resolve(
        CombatInput(
            "ocs",
            attackers=(Unit(attack),),
            defenders=(Unit(defense),),
            terrain="very-close",
            surprise_roll=7,
            roll=7,
        )
    )
    assert ocs.odds == odds.replace("-", ":")
    assert ocs.column == odds.replace("-", ":")
    daynight = resolve(
        CombatInput(
            "daynight",
            attackers=(Unit(attack),),
            defenders=(Unit(defense),),
            terrain="clear",
            roll=3,
        )
    )
    assert daynight.odds == odds
    assert daynight.column == odds


def test_label_ratio_reads_every_printed_form():
    assert label_ratio("3-1") == 3
    assert label_ratio("1:2") == Fraction(1, 2)
    assert label_ratio("10-1+") == 10
    assert label_ratio("52:1") == 52
    with pytest.raises(ValueError):
        label_ratio("AV")


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 500), st.integers(1, 500))
def test_rounding_never_favours_the_attacker(attack, defense):
    left, right = round_odds(attack, defense)
    assert 1 in (left, right)
    ratio = Fraction(left, right)
    assert ratio <= Fraction(attack, defense)
    # ...and is the best such odds: the next step up is above the exact ratio.
    better = Fraction(left + 1) if right == 1 else Fraction(1, right - 1)
    assert better > Fraction(attack, defense)


def all_columns() -> list[tuple[str, tuple[str, ...]]]:
    """Every odds column list the desk reads, named by chart and terrain row."""
    tables = default_tables()
    found = [
        (key, tables.chart(key).columns) for key in ("pod-basic.crt", "pod-super.crt", "rivets.crt")
    ]
    for key in ("ocs.crt", "daynight.day", "daynight.night"):
        for terrain, columns in tables.terrain_chart(key).columns_by_terrain.items():
            found.append((f"{key} {terrain}", columns))
    return found


COLUMNS = all_columns()


@pytest.mark.parametrize(("name", "columns"), COLUMNS, ids=[n for n, _ in COLUMNS])
@settings(max_examples=60, deadline=None)
@given(attack=st.integers(1, 400), defense=st.integers(1, 400))
def test_the_column_read_never_beats_the_exact_ratio(name, columns, attack, defense):
    index = column_for_ratio(columns, attack, defense)
    exact = Fraction(attack, defense)
    ratios = [label_ratio(label) for label in columns]
    assert ratios == sorted(ratios), name
    if exact < ratios[0]:
        assert index is None
        return
    assert index is not None
    assert ratios[index] <= exact
    # The rightmost such column: the next one is above the ratio.
    if index + 1 < len(columns):
        assert ratios[index + 1] > exact


@pytest.mark.parametrize(("name", "columns"), COLUMNS, ids=[n for n, _ in COLUMNS])
def test_whole_totals_read_the_column_the_exact_ratio_reads(name, columns):
    """Whole totals are read by multiplying out (no Fraction): the column is the one the
    exact ratio reads, on every column's own ratio and one either side of it."""
    ratios = [label_ratio(label) for label in columns]
    for defense in (1, 2, 3, 7, 12, 134, 999):
        near = {
            n * defense // d + k
            for n, d in ((r.numerator, r.denominator) for r in ratios)
            for k in (-1, 0, 1)
        }
        for attack in sorted(a for a in near | {1, 5, 40} if a > 0):
            exact = Fraction(attack, defense)
            wanted = max((i for i, r in enumerate(ratios) if r <= exact), default=None)
            assert column_for_ratio(columns, attack, defense) == wanted, (name, attack, defense)
            # Totals that are not plain ints are read as exact ratios, as before.
            assert column_for_ratio(columns, Fraction(attack), defense) == wanted


@pytest.mark.parametrize(("name", "columns"), COLUMNS, ids=[n for n, _ in COLUMNS])
@settings(max_examples=40, deadline=None)
@given(attack=st.integers(1, 300), more=st.integers(0, 300), defense=st.integers(1, 300))
def test_more_attack_never_moves_the_column_left(name, columns, attack, more, defense):
    def position(a: int) -> int:
        index = column_for_ratio(columns, a, defense)
        return -1 if index is None else index

    assert position(attack + more) >= position(attack)


@settings(max_examples=300, deadline=None)
@given(
    width=st.integers(1, 15),
    data=st.data(),
    shifts=st.lists(st.integers(-20, 20), max_size=6),
)
def test_shifts_are_netted_then_applied_once(width, data, shifts):
    # RULINGS: every shift of a combat is netted first, then applied once, stopping at the
    # table's first and last column.
    columns = tuple(f"{n}-1" for n in range(1, width + 1))
    start = data.draw(st.integers(0, width - 1))
    moved = apply_shifts(columns, start, [(f"shift {i}", s) for i, s in enumerate(shifts)])
    assert [s.asked for s in moved.shifts] == [s for s in shifts if s]
    target = start + sum(shifts)
    expected = min(max(target, 0), width - 1)
    assert 0 <= moved.index < width
    assert moved.index == expected and moved.after == columns[expected]
    assert moved.before == columns[start] and moved.net == sum(shifts)
    assert moved.stopped_at_edge == (target != expected)


def test_an_edge_does_not_eat_a_shift_that_the_other_side_takes_back():
    # Super/Ultra columns 1-4 ... 5-1. From 4-1, the attacker's Ace (+3) and the
    # defender's King (-2) net +1: 5-1. Applied one at a time, the Ace would stop at 5-1
    # and the King would then take it back to 3-1.
    columns = ("1-4", "1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1")
    moved = apply_shifts(columns, columns.index("4-1"), [("Ace (attacker)", 3), ("King", -2)])
    assert (moved.net, moved.after, moved.stopped_at_edge) == (1, "5-1", False)
    assert moved.describe() == [
        "Ace (attacker): 3 columns right",
        "King: 2 columns left",
        "Net 1 column right, 4-1 -> 5-1",
    ]
    # At the other edge: from 1-3, the defender's Ace (-3) and the attacker's Jack (+1)
    # net -2, which stops at 1-4.
    moved = apply_shifts(columns, columns.index("1-3"), [("Jack", 1), ("Ace", -3)])
    assert (moved.net, moved.after, moved.stopped_at_edge) == (-2, "1-4", True)
    assert moved.describe()[-1] == "Net 2 columns left, 1-3 -> 1-4 (stopped at the table's edge)"


def test_shifts_that_cancel_leave_the_column():
    columns = ("1-1", "2-1", "3-1")
    moved = apply_shifts(columns, 2, [("Buddy", 1), ("Medal", -1), ("Joker", 0)])
    assert moved.index == 2 and len(moved.shifts) == 2
    assert moved.describe()[-1] == "Net 0 columns: the shifts cancel, the column stays 3-1"


@pytest.mark.parametrize(
    ("attack", "defense", "cards", "column"),
    [
        (16, 4, {"attacker_card": "ace", "defender_card": "king"}, "5-1"),
        (4, 12, {"attacker_card": "jack", "defender_card": "ace"}, "1-4"),
        (16, 4, {"attacker_card": "ace", "buddy": "defender", "medal": "defender"}, "5-1"),
    ],
)
def test_pod_resolver_nets_the_shifts(attack, defense, cards, column):
    combat = CombatInput(
        "pod-super", attackers=(Unit(attack),), defenders=(Unit(defense),), roll=7, **cards
    )
    outcome = resolve(combat)
    assert outcome.column == column
    assert outcome.trace[-2].startswith("Shift: Net ")
    assert outcome.effects["shifts"][-1].startswith("Net ")
