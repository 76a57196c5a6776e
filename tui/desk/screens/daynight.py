"""Day/Night step-loss CRT: day or night, the defender's terrain row, strengths, the net
DRM and the step-loss-and-hold option. Rolling walks the battle: on ENG the desk asks for
an exploitation reserve and rolls again, on BTL it offers a voluntary step loss to roll
again; the whole battle is one log entry."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.widgets import Input

from tui.desk.screens.combat import CombatScreen
from tui.desk.screens.pod import field
from tui.desk.widgets.combat import FixedInput


class DayNightScreen(CombatScreen):
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("strength", "strength")

    def compose_fields(self) -> ComposeResult:
        yield from super().compose_fields()
        # Where the result's markers go: the desk's own, not an input of the combat.
        yield field(
            "Attackers at", FixedInput(placeholder="hex/units", compact=True, id="at-attacker")
        )
        yield field(
            "Defenders at", FixedInput(placeholder="hex/units", compact=True, id="at-defender")
        )

    def marker_targets(self) -> dict[str, Any]:
        targets = {
            side: self.query_one(f"#at-{side}", Input).value.strip()
            for side in ("attacker", "defender")
        }
        return {"targets": {side: where for side, where in targets.items() if where}}
