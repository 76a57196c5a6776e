"""Rivets as a ruleset."""

from __future__ import annotations

from tui.engine.ruleset import Ruleset
from tui.engine.schema import declared

RIVETS = Ruleset(
    id="rivets",
    short="Rivets",
    fields=declared("attackers", "defenders", "column", "roll", "bcpc"),
    rules="tui.engine.rulesets.rivets.rules",
    screen="tui.desk.screens.rivets:RivetsScreen",
    cli_group="Rivets",
    markers=frozenset(),  # Rivets places none
)
