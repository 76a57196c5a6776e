"""Luck's order of results, at the ends of every column of every ruleset it judges: a result
that leaves the defender nothing and costs the attacker nothing ranks at the top, its mirror
at the bottom, and results that end the same rank alike (a side wiped out keeps nothing else
of its line: nothing is left to retreat or advance)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tui.engine import registry
from tui.engine.cells import plain
from tui.engine.combat import CombatInput, Unit, distribution
from tui.engine.rulesets.charts.reading import load_chart
from tui.engine.tables import default_tables
from tui.reports.luck import result_rank

HILL = Path(__file__).resolve().parents[2] / "docs" / "games" / "hill-203.toml"
_LOSSES = ("factors_lost", "steps_lost", "bombers_removed")


def _ends(side: Mapping[str, Any], whole: int | None) -> bool:
    """The side has nothing left after the result (its whole known, or its line says so)."""
    if side.get("eliminated") or side.get("factors_lost") in ("all", "All"):
        return True
    lost = sum(v for k in _LOSSES if isinstance(v := side.get(k), int))
    return whole is not None and lost >= whole


def _untouched(side: Mapping[str, Any]) -> bool:
    return not side.get("eliminated") and not any(side.get(k) for k in _LOSSES)


# Per ruleset: each column's combat (small sides, so a loss can wipe either out), and what
# each side has to lose (factors; OCS steps).
Columns = Callable[[], Iterator[tuple[str, CombatInput]]]


def _odds(ruleset: str, chart: str, **more: Any) -> Columns:
    def columns() -> Iterator[tuple[str, CombatInput]]:
        for column in default_tables().chart(chart).columns:
            yield column, CombatInput(ruleset, (Unit(2),), (Unit(2),), column=column, **more)

    return columns


def _ocs() -> Iterator[tuple[str, CombatInput]]:
    chart = default_tables().terrain_chart("ocs.crt")
    for terrain, columns in chart.columns_by_terrain.items():
        for column in columns:
            yield (
                f"{terrain} {column}",
                CombatInput(
                    "ocs",
                    (Unit(1, steps=1),),
                    (Unit(1, steps=1),),
                    terrain=terrain.lower(),
                    column=column,
                ),
            )


def _boom() -> Iterator[tuple[str, CombatInput]]:
    for column in default_tables().chart("pod-boom.crt").columns:
        yield column, CombatInput("pod-boom", step="crt", caf=int(column))


def _hill() -> Iterator[tuple[str, CombatInput]]:
    registry.chart_ruleset(load_chart(HILL))
    for attack in (1, 2, 4, 6, 8, 10):  # 1-2 to 5-1: every column
        yield f"{attack}-2", CombatInput("game:hill-203", (Unit(attack),), (Unit(2),))


def _chart_order() -> Callable[[Any], int]:
    order = list(load_chart(HILL).results)

    def place(code: Any) -> int:
        return order.index(code if code in order else re.sub(r"\d+", "#", str(code)))

    return place


RULESETS: dict[str, tuple[Columns, tuple[int | None, int | None]]] = {
    "pod-basic": (_odds("pod-basic", "pod-basic.crt"), (2, 2)),
    "pod-super": (_odds("pod-super", "pod-super.crt"), (2, 2)),
    "pod-ultra": (_odds("pod-ultra", "pod-super.crt"), (2, 2)),
    "rivets": (_odds("rivets", "rivets.crt"), (2, 2)),
    "ocs": (_ocs, (1, 1)),
    "pod-boom": (_boom, (None, None)),
    "game:hill-203": (_hill, (None, None)),
}


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_the_best_and_worst_results_of_every_column_rank_at_its_ends(ruleset: str) -> None:
    columns, (attack, defense) = RULESETS[ruleset]
    tops = bottoms = 0
    for column, combat in columns():
        found = distribution(combat)
        details = found.details or tuple({} for _ in found.outcomes)
        read = []
        for (cell, _, _), effects in zip(found.outcomes, details, strict=True):
            effects = plain(effects)
            rank = result_rank(ruleset, cell, effects, attack, defense)
            read.append(
                (rank, plain(cell), effects.get("attacker", {}), effects.get("defender", {}))
            )
        best = [r for r in read if _ends(r[3], defense) and _untouched(r[2])]
        worst = [r for r in read if _ends(r[2], attack) and _untouched(r[3])]
        if ruleset == "game:hill-203":  # a player's chart: the order of its [results]
            place = _chart_order()
            best = [r for r in read if place(r[1]) == max(place(x[1]) for x in read)]
            worst = [r for r in read if place(r[1]) == min(place(x[1]) for x in read)]
        for end, higher in ((best, True), (worst, False)):
            others = [r for r in read if r not in end]
            for rank, cell, *_ in end:
                for other, other_cell, *_ in others:
                    assert (rank > other) if higher else (rank < other), (
                        ruleset,
                        column,
                        cell,
                        other_cell,
                    )
            # Results that end the same rank alike: the side wiped out keeps nothing of its
            # line, so two such results with the same line for the other side tie.
            alike: dict[str, set[tuple[float, ...]]] = {}
            for rank, _, attacker, defender in end:
                kept = attacker if higher else defender
                alike.setdefault(json.dumps(kept, sort_keys=True), set()).add(rank)
            assert all(len(ranks) == 1 for ranks in alike.values()), (ruleset, column, alike)
        tops += bool(best)
        bottoms += bool(worst)
    assert tops  # some column can wipe out the defender
    if ruleset != "pod-boom":  # the bombing chart never costs the bombers
        assert bottoms


def test_the_day_night_chart_reads_its_first_row_best_and_its_last_worst() -> None:
    # Day/Night units carry no steps, so luck ranks its codes in the printed order: the top
    # row of each column (the lowest modified roll) is the attacker's best, the bottom its
    # worst.
    tables = default_tables()
    for time in ("day", "night"):
        chart = tables.terrain_chart(f"daynight.{time}")
        rows = sorted(chart.rows, key=int)
        for terrain, columns in chart.columns_by_terrain.items():
            for index, column in enumerate(columns):
                read = [chart.rows[row][index] for row in rows]
                ranks = [result_rank("daynight", cell, {}) for cell in read]
                assert ranks[0] == max(ranks) and ranks[-1] == min(ranks), (time, terrain, column)
