"""Day/Night step-loss CRT: day or night, the defender's terrain row, strengths, the net
DRM and the step-loss-and-hold option. Rolling walks the battle: on ENG the desk asks for
an exploitation reserve and rolls again, on BTL it offers a voluntary step loss to roll
again; the whole battle is one log entry."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.widgets import Input

from tui.engine import CombatInput, Outcome, resolve
from tui.engine.rulesets.daynight import TERRAIN_IDS, TIMES
from tui.screens.combat import CombatScreen, KeptDice
from tui.screens.pod import choice, field
from tui.widgets.combat import FixedInput
from tui.widgets.ticks import Tick

# Results the attacker may take as a retreat (disorganized) instead of step losses.
ATTACKER_MAY_RETREAT = ("A1", "A1X", "A2X")


class DayNightScreen(CombatScreen):
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("strength", "strength")
    FIELD_NAMES: ClassVar[dict[str, str]] = {
        **CombatScreen.FIELD_NAMES,
        "time": "Day/Night",
        "terrain": "Terrain",
        "drm": "Net DRM",
        "roll": "Row",
        "reroll": "Re-roll row",
    }

    def compose_fields(self) -> ComposeResult:
        times = [(t.title(), t) for t in TIMES]
        terrains = [(name, key) for key, name in TERRAIN_IDS.items()]
        yield field("Turn", choice(times, TIMES[0], "time"))
        yield field("Def. terrain", choice(terrains, "clear", "terrain"))
        yield field("Net DRM", FixedInput(placeholder="0", compact=True, id="drm", classes="small"))
        yield Tick("Step-loss-and-hold hex (7.2)", id="hold", compact=True)
        yield field(
            "Attackers at", FixedInput(placeholder="hex/units", compact=True, id="at-attacker")
        )
        yield field(
            "Defenders at", FixedInput(placeholder="hex/units", compact=True, id="at-defender")
        )

    def combat_fields(
        self, attackers: tuple[Any, ...], defenders: tuple[Any, ...], problems: list[str]
    ) -> dict[str, Any]:
        return {
            "attackers": attackers,
            "defenders": defenders,
            "time": self.select_value("#time"),
            "terrain": self.select_value("#terrain"),
            "drm": self.whole_number("#drm", problems, "Net DRM", signed=True),
            "hold": self.checked("#hold"),
        }

    def marker_targets(self) -> dict[str, Any]:
        targets = {
            side: self.query_one(f"#at-{side}", Input).value.strip()
            for side in ("attacker", "defender")
        }
        return {"targets": {side: where for side, where in targets.items() if where}}

    def hand_dice_range(self, combat: CombatInput) -> tuple[str, int, int]:
        rules = self.rules
        sides, drm = rules["die_sides"], combat.drm
        low = min(max(1 + drm, rules["row_min"]), rules["row_max"])
        high = min(max(sides + drm, rules["row_min"]), rules["row_max"])
        return f"1d{sides}{drm:+d}", low, high

    # ------------------------------------------------------------------ the battle
    async def play(self, combat: CombatInput, by_hand: bool) -> tuple[CombatInput, Outcome] | None:
        """Walk the battle: roll, and at the first ENG or BTL ask the attacker's choice,
        then read the battle again with the same dice, until no choice is left."""
        from tui.screens.dialogs import ChoiceScreen, NumberScreen

        kept: list[int] = []
        rows: list[int] = []
        asked: set[str] = set()
        while True:
            given = replace(combat, roll=rows[0] if rows else None, rerolls=tuple(rows[1:]))
            dice = KeptDice(None if by_hand else self.desk.rng, kept)
            outcome = resolve(given, self.tables, dice)
            steps = outcome.effects.get("battle") or [{"cell": outcome.cell}]
            known = steps[: len(rows)] if by_hand else steps
            pending = next(
                (
                    s["cell"]
                    for s in known
                    if s["cell"] in ("ENG", "BTL") and s["cell"] not in asked
                ),
                None,
            )
            if pending == "ENG":
                asked.add(pending)
                reserve = await self.app.push_screen_wait(
                    NumberScreen(
                        "ENG: engaged. The attacker may commit one exploitation reserve "
                        "(new odds) before the battle is rolled again. Its strength:",
                        "none",
                    )
                )
                combat = replace(combat, reserve=reserve)
                continue
            if pending == "BTL":
                asked.add(pending)
                answer = await self.app.push_screen_wait(
                    ChoiceScreen(
                        "BTL: unresolved battle. An attacker with superior morale may take "
                        "one step loss and roll again at the same odds.",
                        [("n", "the battle ends on BTL", "stop"), ("y", "press on", "press")],
                    )
                )
                combat = replace(combat, press_on=answer == "press")
                continue
            if dice.wanted:
                name, low, high = self.hand_dice_range(combat)
                what = "the row read" if not rows else f"the row of re-roll {len(rows)}"
                row = await self.ask_hand_roll((name, low, high), what)
                if row is None:
                    return None
                rows.append(row)
                continue
            break
        if outcome.cell in ATTACKER_MAY_RETREAT:
            answer = await self.app.push_screen_wait(
                ChoiceScreen(
                    f"{outcome.cell}: does the attacker retreat (its units disorganized) or "
                    "take its losses in steps?",
                    [("s", "step losses", "steps"), ("r", "retreat, disorganized", "retreat")],
                )
            )
            if answer == "retreat":
                combat = replace(combat, attacker_retreats=True)
                outcome = resolve(
                    replace(given, attacker_retreats=True),
                    self.tables,
                    KeptDice(None if by_hand else self.desk.rng, kept),
                )
        final = replace(
            combat,
            roll=rows[0] if rows else None,
            rerolls=tuple(rows[1:]),
        )
        return final, outcome
