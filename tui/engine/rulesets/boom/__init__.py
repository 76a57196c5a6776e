"""Pair-o-Dice Big Boom as a ruleset: bomber attrition, accuracy, direction and the CRT on
target, resolved as one chain (or one step of it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.engine.cells import plain
from tui.engine.errors import InputError
from tui.engine.kinds import AA_UNITS, CHOICE, WHOLE
from tui.engine.ruleset import Ruleset, relabelled
from tui.engine.rulesets.pod import MARKERS
from tui.engine.schema import Field, declared
from tui.engine.tables import Tables
from tui.engine.text import grid_json, grid_lines, legend_lines, printed

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution, Outcome


class BoomRuleset(Ruleset):
    rules = "tui.engine.rulesets.boom.rules"
    screen = "tui.desk.screens.boom:BoomScreen"
    cli_group = "Big Boom (pod-boom)"
    markers = MARKERS

    def check_inputs(self, combat: CombatInput) -> None:
        if combat.defenders:
            first = combat.defenders[0].factor
            raise InputError("defense", first, "nothing in pod-boom: the CAF picks the column")

    def distribution(
        self, combat: CombatInput, tables: Tables, first: Outcome | None = None
    ) -> Distribution | None:
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


# Who flies or fires at the target hex (which of them meet AA: rulesets.boom).
MISSIONS: tuple[tuple[str, str], ...] = (
    ("bombers", "Allied bombers"),
    ("batteries", "German batteries"),
    ("ships", "Allied ships"),
)

# Big Boom's desk form: how far the bombers fly, and the mission (the target hex, where its
# markers go, is the desk's own, as Day/Night's hexes are). No CombatInput field and no
# flag: the rules module's form rule turns them into the AA total and the long-range bonus.
DESK_FIELDS = (
    Field(
        "bomber_range",
        "Bomber range",
        "",
        WHOLE,
        "the bombers' range, in hexes",
        role="desk",
        desk_id="range",
        placeholder="hexes",
    ),
    Field(
        "distance",
        "From airbase",
        "",
        WHOLE,
        "the target's distance from the nearest Airbase England hex, in hexes",
        role="desk",
        placeholder="hexes",
    ),
    Field(
        "mission",
        "Mission",
        "",
        CHOICE,
        "who flies or fires at the target hex (only bombers meet AA on their route)",
        role="desk",
        choices=lambda ruleset, tables: MISSIONS,
        required=True,
        form_rule=True,
    ),
)

BOOM = BoomRuleset(
    id="pod-boom",
    short="Boom",
    fields=relabelled(
        declared(
            "attackers", "defenders", "roll", "step", "aaf", "caf", "long_range", "chain_rolls"
        ),
        attackers={"label": "Units", "help": "a bomber, battery or ship unit's CAF (repeat)"},
        defenders={"label": "AA units", "kind": AA_UNITS},
        roll={"label": "Roll", "help": "one step's die rolled by hand (with --step)"},
    )
    + DESK_FIELDS,
)
