"""Pair-o-Dice Big Boom as a ruleset: bomber attrition, accuracy, direction and the CRT on
target, resolved as one chain (or one step of it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.engine.cells import plain
from tui.engine.errors import InputError
from tui.engine.ruleset import Ruleset, relabelled
from tui.engine.schema import declared
from tui.engine.tables import Tables
from tui.engine.text import grid_json, grid_lines, legend_lines, printed

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution


class BoomRuleset(Ruleset):
    rules = "tui.engine.rulesets.boom"
    screen = "tui.desk.screens.boom:BoomScreen"
    cli_group = "Big Boom (pod-boom)"
    markers = frozenset({"no-entry", "obstacle", "hero-site", "buddy-card"})

    def check_inputs(self, combat: CombatInput) -> None:
        if combat.defenders:
            first = combat.defenders[0].factor
            raise InputError("defense", first, "nothing in pod-boom: the CAF picks the column")

    def distribution(self, combat: CombatInput, tables: Tables) -> Distribution | None:
        if combat.step is not None:
            return None
        found: Distribution = self.rules_module().whole_chain(combat, tables)
        return found

    def chart_json(self, tables: Tables) -> dict[str, Any]:
        data = tables.data[self.id]
        return {
            "accuracy": plain(data["accuracy"]),
            "attrition": grid_json(tables.chart(f"{self.id}.attrition")),
            "direction": plain(data["direction"]),
            "crt": grid_json(tables.chart(f"{self.id}.crt")),
        }

    def chart_text(self, tables: Tables) -> str:
        shape = self.chart_json(tables)
        title = self.title(tables)
        lines = [f"{title}: Boom Accuracy (1d6)"]
        lines += [f"  {k}  {v}" for k, v in shape["accuracy"].items()]
        attrition = shape["attrition"]
        lines += grid_lines(
            "\nBomber Mission Attrition (1d6 by AA factors)",
            attrition["columns"],
            attrition["rows"],
            "1d6",
        )
        lines += ["\nDirection (1d6)"] + [f"  {k}  {v}" for k, v in shape["direction"].items()]
        crt = shape["crt"]
        lines += grid_lines(
            "\nBatteries, Bombers and Ship Guns (loss interdiction, by CAF)",
            crt["columns"],
            crt["rows"],
            "1d6",
        )
        return printed(lines + legend_lines(tables.legends[self.id]))


BOOM = BoomRuleset(
    id="pod-boom",
    short="Boom",
    fields=relabelled(
        declared(
            "attackers", "defenders", "roll", "step", "aaf", "caf", "long_range", "chain_rolls"
        ),
        attackers={"label": "Units", "help": "a bomber, battery or ship unit's CAF (repeat)"},
        defenders={"label": "AA units"},
        roll={"label": "Roll", "help": "one step's die rolled by hand (with --step)"},
    ),
)
