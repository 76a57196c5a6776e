"""The Big Boom chain: each step with a fixed die, the whole mission with fixed dice, the
astray hex, and the mission's folded chances against every way the dice can fall."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui import saves
from tui.engine import CombatInput, InputError, resolve
from tui.engine.combat import distribution
from tui.engine.dice import enumerate_dice
from tui.engine.model import Unit
from tui.engine.rulesets.boom import rules as boom
from tui.engine.tables import default_tables

TABLES = default_tables()


class ScriptedDice:
    """An RNG whose dice show the faces given, in order; every face must be read."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        assert (low, high) == (1, 6)
        return self.faces.pop(0)


def mission(*factors: int, aaf: int | None = None, long_range: bool = False) -> CombatInput:
    units = tuple(Unit(f) for f in factors)
    return CombatInput("pod-boom", attackers=units, aaf=aaf, long_range=long_range)


# --- each step ---------------------------------------------------------------------------


def test_attrition_step_reads_the_column_of_the_aa_total_with_the_long_range_bonus() -> None:
    # AA 3 + 2 (over half the range) = 5: column 4; roll 3 there removes 3 bombers.
    outcome = resolve(CombatInput("pod-boom", step="attrition", aaf=3, long_range=True, roll=3))
    assert (outcome.column, outcome.cell) == ("4", "3")
    assert outcome.effects["attacker"] == {"bombers_removed": 3}


@pytest.mark.parametrize(("roll", "effect"), [(1, "all"), (2, "miss"), (3, "half"), (6, "half")])
def test_accuracy_step(roll: int, effect: str) -> None:
    outcome = resolve(CombatInput("pod-boom", step="accuracy", roll=roll))
    assert outcome.effects["accuracy"] == effect


@pytest.mark.parametrize(("roll", "point"), [(1, "NE"), (2, "E"), (3, "SE"), (4, "SW"), (5, "W")])
def test_direction_step_and_its_compass_point(roll: int, point: str) -> None:
    outcome = resolve(CombatInput("pod-boom", step="direction", roll=roll))
    assert boom.direction_short(str(outcome.cell)) == point


def test_crt_step_places_a_no_entry_marker_for_its_turns() -> None:
    # CAF 9 reads column 8; roll 2: loss 4, interdiction 2.
    outcome = resolve(CombatInput("pod-boom", step="crt", caf=9, roll=2))
    assert outcome.column == "8"
    assert outcome.effects["defender"] == {"factors_lost": 4}
    assert outcome.effects["markers"] == [{"kind": "no-entry", "side": "both", "turns": 2}]


# --- the whole mission with fixed dice ------------------------------------------------------


def test_bomber_mission_with_attrition_and_a_half_astray_result() -> None:
    # Units 4, 4, 2, 2 with AA 2: column 2, attrition roll 2 reads "-": none removed.
    # Accuracy 6: half (2 units, the last listed) astray; Direction 3: South-East.
    # 8 CAF on target: column 8, roll 4 "8 1". Astray 4 CAF: column 4, roll 1 "- 1".
    outcome = resolve(mission(4, 4, 2, 2, aaf=2), rng=ScriptedDice(2, 6, 3, 4, 1))
    assert [d.purpose for d in outcome.dice] == [
        "bomber mission attrition",
        "Boom Accuracy",
        "Direction",
        "boom combat resolution",
        "boom combat resolution (one hex SE)",
    ]
    assert (outcome.column, list(outcome.cell)) == ("8", ["8", "1"])
    assert outcome.effects["defender"] == {"factors_lost": 8}
    assert outcome.effects["astray"] == {
        "direction": "SE",
        "caf": 4,
        "column": "4",
        "cell": ["-", "1"],
    }
    assert [m["turns"] for m in outcome.effects["markers"]] == [1, 1]


def test_attrition_removes_the_units_listed_last_before_accuracy() -> None:
    # AA 6: column 6, roll 1 removes 2 of 4, 2, 2: 4 flies on; accuracy 1 all on target:
    # CAF 4, roll 3 "2 2".
    outcome = resolve(mission(4, 2, 2, aaf=6), rng=ScriptedDice(1, 1, 3))
    assert outcome.effects["attacker"] == {"bombers_removed": 2}
    assert (outcome.attack_total, outcome.column, list(outcome.cell)) == (8, "4", ["2", "2"])
    assert "astray" not in outcome.effects


def test_an_astray_marker_lands_on_the_hex_named_from_the_target(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-boom"])
    combat = mission(4, 4, 2, 2, aaf=2)
    outcome = resolve(combat, rng=ScriptedDice(2, 6, 3, 4, 1))
    entry = saves.append_combat(path, combat, outcome, target="0712")
    assert [m["target"] for m in entry["markers"]] == ["0712", "one hex SE of 0712"]


# --- the folded chances ----------------------------------------------------------------------


def brute_force(combat: CombatInput) -> tuple[Counter[Any], Counter[Any], Counter[Any]]:
    """Every way the chain's dice can fall, resolved: bombers lost, loss and interdiction
    on the target hex (None when no CAF reached it)."""
    lost: Counter[Any] = Counter()
    losses: Counter[Any] = Counter()
    turns: Counter[Any] = Counter()
    for outcome, chance in enumerate_dice(lambda r: boom.resolve(combat, TABLES, r)):
        lost[outcome.effects["attacker"].get("bombers_removed", 0)] += chance
        cell = outcome.cell
        losses[None if cell is None else cell[0]] += chance
        turns[None if cell is None else cell[1]] += chance
    return lost, losses, turns


@settings(max_examples=12, deadline=None)
@given(
    factors=st.lists(st.integers(0, 9), min_size=1, max_size=4).filter(lambda f: sum(f) > 0),
    aaf=st.one_of(st.none(), st.integers(0, 7)),
    long_range=st.booleans(),
)
def test_chain_preview_equals_brute_force_enumeration(
    factors: list[int], aaf: int | None, long_range: bool
) -> None:
    long_range = long_range and aaf is not None
    found = boom.chain_preview(tuple(factors), aaf, long_range, TABLES)
    lost, losses, turns = brute_force(mission(*factors, aaf=aaf, long_range=long_range))
    assert dict(found.units_lost) == dict(lost)
    assert dict(found.losses) == dict(losses)
    assert dict(found.interdiction) == dict(turns)
    assert sum(p for _, p in found.losses) == 1


def test_chain_preview_attrition_column_and_chances_of_losing_units() -> None:
    # AA 4 + 2: column 6 reads 2, 3, 1, 3, 2, 1 bombers: each of 1, 2, 3 with 1/3; with two
    # units a 3 removes both.
    found = boom.chain_preview((4, 2), 4, True, TABLES)
    assert (found.aa_total, found.attrition_column) == (6, "6")
    assert dict(found.units_lost) == {1: Fraction(1, 3), 2: Fraction(2, 3)}


def test_chain_preview_is_cached_on_its_inputs() -> None:
    first = boom.chain_preview((5, 3), 2, False, TABLES)
    assert boom.chain_preview((5, 3), 2, False, TABLES) is first
    assert boom.chain_preview((5, 3), 2, True, TABLES) is not first


@pytest.mark.parametrize(
    ("units", "aaf", "field"), [((), None, "attack"), ((0, 0), None, "attack"), ((3,), -1, "aaf")]
)
def test_chain_preview_refuses_what_the_chain_refuses(
    units: tuple[int, ...], aaf: int | None, field: str
) -> None:
    with pytest.raises(InputError) as caught:
        boom.chain_preview(units, aaf, False, TABLES)
    assert caught.value.field == field


def every_die_enumerated(combat: CombatInput) -> dict[str, list[Any]]:
    """Each cell (by repr) with its chance and summary, from resolving every way all five
    dice can fall."""
    enumerated: dict[str, list[Any]] = {}
    for outcome, chance in enumerate_dice(lambda r: boom.resolve(combat, TABLES, r)):
        key = repr(outcome.cell)
        found = enumerated.setdefault(key, [Fraction(0), outcome.effects["cell_summary"]])
        found[0] += chance
    return enumerated


@settings(max_examples=8, deadline=None)
@given(
    factors=st.lists(st.integers(1, 9), min_size=1, max_size=4),
    aaf=st.one_of(st.none(), st.integers(0, 7)),
)
def test_the_chain_distribution_folded_equals_every_die_enumerated(
    factors: list[int], aaf: int | None
) -> None:
    """`distribution` folds the chain: the same cells, chances and meanings as resolving
    every way all five dice can fall."""
    combat = mission(*factors, aaf=aaf)
    folded = distribution(combat, TABLES)
    assert {repr(c): [p, m] for c, p, m in folded.outcomes} == every_die_enumerated(combat)


@pytest.mark.parametrize(
    ("factors", "aaf", "long_range"),
    [((6, 4, 2), 3, True), ((9, 9, 9, 9), 7, True), ((12,), None, False), ((1, 1), 0, False)],
)
def test_the_chain_counted_in_whole_216ths_equals_every_die_enumerated(
    factors: tuple[int, ...], aaf: int | None, long_range: bool
) -> None:
    """The chain's chances are counted as whole 216ths of the three dice that decide the
    target hex: the same cells, chances and meanings as enumerating
    every die with exact fractions."""
    combat = mission(*factors, aaf=aaf, long_range=long_range)
    folded = distribution(combat, TABLES)
    assert {repr(c): [p, m] for c, p, m in folded.outcomes} == every_die_enumerated(combat)
    assert all(isinstance(p, Fraction) for _, p, _ in folded.outcomes)
    assert sum(p for _, p, _ in folded.outcomes) == 1
    lost, losses, turns = brute_force(combat)
    found_chain = boom.chain_preview(factors, aaf, long_range, TABLES)
    assert dict(found_chain.units_lost) == dict(lost)
    assert dict(found_chain.losses) == dict(losses)
    assert dict(found_chain.interdiction) == dict(turns)


def test_the_most_bombers_one_attrition_roll_removes_is_read_from_the_chart() -> None:
    from tui.engine.rulesets.boom.rules import most_attrition_losses
    from tui.engine.tables import default_tables

    tables = default_tables()
    rows = tables.data["pod-boom"]["attrition"]["rows"]
    cells = [int(c) for row in rows.values() for c in row if c != "-"]
    assert most_attrition_losses(tables) == max(cells) == 3


def chain_die_by_die(
    units: tuple[int, ...], aaf: int | None, long_range: bool
) -> boom.ChainPreview:
    """The chain counted face by face of each of its three dice (attrition, accuracy, CRT),
    each face on its own: the reference `chain_preview`, which counts the faces that lead
    to the same next step together, is held to (its values and their order)."""
    rules = TABLES.data["pod-boom"]
    faces = [str(face) for face in range(1, 7)]
    crt = TABLES.chart("pod-boom.crt")
    aa_total = column = None
    branches = [0] * 6
    if aaf is not None:
        aa_total = aaf + (rules["long_range_aa_bonus"] if long_range else 0)
        chart = TABLES.chart("pod-boom.attrition")
        index = boom.largest_column(chart, aa_total)
        assert index is not None
        column = chart.columns[index]
        branches = [
            0 if cell == "-" else min(int(cell), len(units))
            for cell in (chart.cell(face, column) for face in faces)
        ]
    lost: Counter[int] = Counter()
    losses: Counter[Any] = Counter()
    turns: Counter[Any] = Counter()
    cells: dict[str, list[Any]] = {}
    columns: set[str | None] = set()
    for removed in branches:
        lost[removed] += 36
        flying = units[: len(units) - removed]
        for face in faces if flying else ():
            misses = {"all": 0, "miss": len(flying), "half": len(flying) // 2}[
                rules["accuracy_effect"][face]
            ]
            caf = sum(flying[: len(flying) - misses])
            index = boom.largest_column(crt, caf) if caf > 0 else None
            columns.add(None if index is None else crt.columns[index])
            read = (
                [(None, 6)]
                if index is None
                else [(crt.cell(side, crt.columns[index]), 1) for side in faces]
            )
            for cell, weight in read:
                losses[None if cell is None else cell[0]] += weight
                turns[None if cell is None else cell[1]] += weight
                cells.setdefault(repr(cell), [cell, 0])[1] += weight
        if not flying:
            columns.add(None)
            losses[None] += 36
            turns[None] += 36
            cells.setdefault(repr(None), [None, 0])[1] += 36

    def ranked(counts: Counter[Any]) -> tuple[tuple[Any, Fraction], ...]:
        pairs = [(value, Fraction(count, 216)) for value, count in counts.items()]
        return tuple(sorted(pairs, key=lambda pair: boom._cell_order(pair[0])))

    return boom.ChainPreview(
        aa_total=aa_total,
        attrition_column=column,
        units_lost=tuple(sorted((n, Fraction(c, 216)) for n, c in lost.items())),
        losses=ranked(losses),
        interdiction=ranked(turns),
        cells=tuple((cell, Fraction(count, 216)) for cell, count in cells.values()),
        columns=frozenset(columns),
    )


@pytest.mark.parametrize("aaf", [None, 0, 1, 3, 5, 9])
def test_chain_preview_counted_by_next_step_equals_counting_every_face(aaf: int | None) -> None:
    """The faces that lead to the same next step, counted together, give the same preview
    as counting each face on its own, down to the order of its cells (the order the chain
    distribution's outcomes follow), over missions of one to four units as typed."""
    missions = [(f,) for f in range(1, 40)] + [(f, 1) for f in range(0, 30, 3)]
    missions += [(6, 4, 2), (9, 9, 9, 9), (1, 1), (0, 5), (15, 0, 3), (2, 2, 2, 1)]
    for units in missions:
        for long_range in (False, True) if aaf is not None else (False,):
            boom._CHAIN_CACHE.clear()  # worked out now, not found from another test
            found = boom.chain_preview(units, aaf, long_range, TABLES)
            # Equal tuples: the same values in the same order.
            assert found == chain_die_by_die(units, aaf, long_range), (units, aaf, long_range)
