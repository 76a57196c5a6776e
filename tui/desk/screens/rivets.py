"""Rivets: attack and defence strengths per unit, odds 1-5 to 6-1, an overrun at 6-1 or
better unless the defender is the enemy BCPC (its form is the schema's)."""

from __future__ import annotations

from typing import ClassVar

from tui.desk.screens.combat import CombatScreen


class RivetsScreen(CombatScreen):
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("attack", "defence")
