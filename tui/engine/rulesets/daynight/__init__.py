"""The Day/Night step-loss CRT as a ruleset: two terrain-row charts (day and night), the
choices after the dice, and its results in the charts' own order for luck."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tui.engine.ruleset import Ruleset, relabelled
from tui.engine.schema import declared
from tui.engine.tables import Tables
from tui.engine.text import grid_lines, legend_lines, printed, terrain_json

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution, Outcome

# Best for the attacker first: how luck ranks a Day/Night result.
ORDER = ("D2X", "D2", "D1", "FF", "D1+", "ENG", "BTL", "A1", "A1X", "A2X")


class DayNightRuleset(Ruleset):
    rules = "tui.engine.rulesets.daynight.rules"
    screen = "tui.desk.screens.daynight:DayNightScreen"
    cli_group = "Day/Night"
    markers = frozenset({"engaged", "disorganized"})
    # Its results are step losses (the seed's D1, A1X ...): each unit's factor and steps.
    roster = ("factor", "steps")

    def distribution(
        self, combat: CombatInput, tables: Tables, first: Outcome | None = None
    ) -> Distribution | None:
        found: Distribution | None = self.rules_module().distribution(combat, tables)
        return found

    def chart_json(self, tables: Tables) -> dict[str, Any]:
        return {
            time: terrain_json(tables.terrain_chart(f"{self.id}.{time}"))
            for time in ("day", "night")
        }

    def chart_text(self, tables: Tables) -> str:
        shape = self.chart_json(tables)
        title = self.title(tables)
        lines: list[str] = []
        for time in ("day", "night"):
            part = shape[time]
            for terrain_name, columns in part["columns_by_terrain"].items():
                lines += grid_lines(
                    f"{title}: {time}, {terrain_name}", columns, part["rows"], "1d6+DRM"
                )
                lines.append("")
        return printed(lines + legend_lines(tables.legends[self.id]))

    def rank(self, cell: Any, effects: Mapping[str, Any]) -> tuple[float, ...] | None:
        if isinstance(cell, str) and cell in ORDER:
            return (float(len(ORDER) - ORDER.index(cell)),)
        return None


DAYNIGHT = DayNightRuleset(
    id="daynight",
    short="Day/Night",
    fields=relabelled(
        declared(
            "attackers",
            "defenders",
            "column",
            "roll",
            "time",
            "terrain",
            "drm",
            "hold",
            "reserve",
            "press_on",
            "rerolls",
            "attacker_retreats",
        ),
        roll={"label": "Result die"},
        terrain={"desk_default": "clear"},
    ),
)
