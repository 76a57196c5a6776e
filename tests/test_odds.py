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
def test_shifts_never_leave_the_table(width, data, shifts):
    columns = tuple(f"{n}-1" for n in range(1, width + 1))
    start = data.draw(st.integers(0, width - 1))
    index, done = apply_shifts(columns, start, [(f"shift {i}", s) for i, s in enumerate(shifts)])
    assert 0 <= index < width
    # One record per non-zero shift, each chained to the last and clamped at the edges.
    assert [s.asked for s in done] == [s for s in shifts if s]
    position = start
    for shift in done:
        assert shift.before == columns[position]
        target = position + shift.asked
        position = min(max(target, 0), width - 1)
        assert shift.after == columns[position]
        assert shift.stopped_at_edge == (target != position)
    assert index == position
