"""OCS (DAK-II) as a ruleset: its inputs and counters, its screen, its terrain-row chart, the
options it asks after the dice, and the chances luck can share between combats."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from tui.engine.ruleset import Asker, Ruleset
from tui.engine.schema import OCS_UNIT_SPECS, Field, declared
from tui.engine.tables import Tables
from tui.engine.text import grid_lines, legend_lines, printed, terrain_json

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution, Outcome

OCS_UNIT_KEYS = ("name", "steps", "ar", "kind", "supply", "re", "stocks")


class OcsRuleset(Ruleset):
    rules = "tui.engine.rulesets.ocs.rules"
    screen = "tui.desk.screens.ocs:OcsScreen"
    cli_group = "OCS"
    markers = frozenset({"low", "exhausted", "DG", "exploitation"})
    unit_keys = OCS_UNIT_KEYS
    roster = ("factor", "steps", "ar", "kind", "supply", "re")

    @property
    def flags(self) -> tuple[Field, ...]:
        """Its counters are typed whole on the command line too (--attacker, --defender)."""
        return (*self.fields, *OCS_UNIT_SPECS)

    @property
    def unit_fields(self) -> tuple[Field, Field]:
        """The desk's rows read whole counters, as --attacker and --defender do."""
        attackers, defenders = OCS_UNIT_SPECS
        return attackers, defenders

    def distribution(
        self, combat: CombatInput, tables: Tables, first: Outcome | None = None
    ) -> Distribution | None:
        if (combat.surprise_roll, combat.shift_roll, combat.roll) != (None, None, None):
            return None
        found: Distribution = self.rules_module().distribution(combat, tables, first)
        return found

    def asker(self) -> Asker | None:
        # Imported at the first question: the procedure's questions import the procedure.
        ask: Asker = import_module("tui.engine.rulesets.ocs.questions").ask
        return ask

    def chart_json(self, tables: Tables) -> dict[str, Any]:
        return terrain_json(tables.terrain_chart(f"{self.id}.crt"))

    def chart_text(self, tables: Tables) -> str:
        shape = self.chart_json(tables)
        title = self.title(tables)
        lines: list[str] = []
        for terrain_name, columns in shape["columns_by_terrain"].items():
            lines += grid_lines(f"{title}: {terrain_name}", columns, shape["rows"], "2d6+DRM")
            lines.append("")
        return printed(lines + legend_lines(tables.legends[self.id]))

    def same_chances(self, combat: CombatInput, entry: Mapping[str, Any]) -> CombatInput:
        """OCS's distribution (surprise, shift and result dice: up to 726 paths) costs the
        most, and it reads the units only for the odds column and the action ratings only
        as their difference: the combat read on its logged odds column, with no units and
        the smaller rating at 0, has the same chances and is shared by every combat like it.
        """
        column = entry.get("odds_column")
        if combat.column is not None or not isinstance(column, str):
            return combat
        supply = import_module("tui.engine.rulesets.ocs.supply")
        # The action ratings its units give, before the units are left out.
        rated: CombatInput = supply.with_unit_ars(combat)
        difference = rated.attacker_ar - rated.defender_ar
        shared: CombatInput = replace(
            rated,
            attackers=(),
            defenders=(),
            column=column,
            defender_unsupplied=False,
            attacker_ar_unit=None,
            defender_ar_unit=None,
            attacker_ar=max(difference, 0),
            defender_ar=max(-difference, 0),
        )
        return shared


OCS = OcsRuleset(
    id="ocs",
    short="OCS",
    fields=declared(
        "attackers",
        "defenders",
        "column",
        "roll",
        "attack_hexes",
        "nonadjacent_hexsides",
        "overrun",
        "hedgehog",
        "terrain",
        "defender_unsupplied",
        "attacker_ar_unit",
        "defender_ar_unit",
        "attacker_ar",
        "defender_ar",
        "surprise_roll",
        "shift_roll",
        "attacker_option_retreat",
        "defender_option_retreat",
        "defender_ignores_options",
    ),
)
