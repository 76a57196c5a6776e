"""Rivets: attack and defence strengths per unit, odds 1-5 to 6-1, an overrun at 6-1 or
better unless the defender is the enemy BCPC."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult

from tui.screens.combat import CombatScreen
from tui.widgets.ticks import Tick


class RivetsScreen(CombatScreen):
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("attack", "defence")
    FIELD_NAMES: ClassVar[dict[str, str]] = {**CombatScreen.FIELD_NAMES, "bcpc": "Enemy BCPC"}

    def compose_fields(self) -> ComposeResult:
        yield Tick("Enemy BCPC (never overrun)", id="bcpc", compact=True)

    def combat_fields(
        self, attackers: tuple[Any, ...], defenders: tuple[Any, ...], problems: list[str]
    ) -> dict[str, Any]:
        return {"attackers": attackers, "defenders": defenders, "bcpc": self.checked("#bcpc")}
