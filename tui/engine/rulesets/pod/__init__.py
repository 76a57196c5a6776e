"""Pair-o-Dice Basic, Super and Ultra as rulesets: their inputs, their screen, their chart."""

from __future__ import annotations

from typing import Any

from tui.engine.ruleset import Ruleset
from tui.engine.schema import declared
from tui.engine.tables import Tables
from tui.engine.text import grid_json

_UNITS_AND_ROLL = ("attackers", "defenders", "column", "roll")
_BASIC = (*_UNITS_AND_ROLL, "morale_attack", "morale_defense", "buddy")
_SUPER = (*_BASIC, "medal", "attacker_card", "defender_card")
# The markers a Pair-o-Dice game uses, Big Boom's No-entry hexes among them: what the
# screens of its rulesets list.
MARKERS = frozenset({"no-entry", "obstacle", "hero-site", "buddy-card"})


class PodRuleset(Ruleset):
    rules = "tui.engine.rulesets.pod.rules"
    screen = "tui.desk.screens.pod:PodScreen"
    cli_group = "Pair-o-Dice"
    markers = MARKERS
    family = "pod"
    unit_keys = ("terrain",)

    def chart_json(self, tables: Tables) -> dict[str, Any]:
        key = tables.data[self.id].get("same_chart_as", self.id)
        return grid_json(tables.chart(f"{key}.crt"))


BASIC = PodRuleset(
    id="pod-basic",
    short="Basic",
    fields=declared(*_BASIC, "attacker_card", "defender_card"),
)
SUPER = PodRuleset(id="pod-super", short="Super", fields=declared(*_SUPER))
ULTRA = PodRuleset(
    id="pod-ultra",
    short="Ultra",
    fields=declared(*_UNITS_AND_ROLL, "obstacle", "mines_cdf", *_SUPER[4:]),
)
