"""OCS (DAK-II): units with steps, action ratings, types and supply; attacking hexes,
overrun, hedgehog, the defender's terrain and supply. Rolling walks 9.2 in order: the
surprise roll, its shift die, the result roll; then the attacker takes its option, then
the defender (who may ignore its options after an attacker retreat). The engine decides
every rule; this screen collects the form and the choices, and logs one entry."""

from __future__ import annotations

import random
from dataclasses import replace
from functools import cached_property
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Checkbox

from tui.engine import CombatInput, InputError, Outcome, Unit, resolve
from tui.engine.preview import preview
from tui.engine.rulesets import ocs_supply
from tui.engine.rulesets.ocs import (
    RESULT_DICE,
    SHIFT_DIE,
    SURPRISE_DICE,
    TERRAIN_IDS,
    hand_roll_range,
)
from tui.screens.combat import CombatScreen, FormReading, KeptDice, SaveState
from tui.screens.pod import field
from tui.widgets.combat import Cycle, FixedInput, OddsPreview
from tui.widgets.ocs import OcsOddsPreview, OcsUnitRow
from tui.widgets.ticks import Tick

# Save marker kinds shown on a unit row, as the row shows them.
SHOWN_MARKERS = {"low": "Low", "exhausted": "Exhausted", "DG": "DG", "exploitation": "Exploit"}
HIGHEST = "(highest)"


class OcsScreen(CombatScreen):
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("strength", "strength")
    FIELD_NAMES: ClassVar[dict[str, str]] = {
        **CombatScreen.FIELD_NAMES,
        "attack_hexes": "Att. hexes",
        "hedgehog": "Hedgehog",
        "attacker_ar_unit": "AR unit A",
        "defender_ar_unit": "AR unit D",
        "roll": "Result roll",
    }

    def compose_fields(self) -> ComposeResult:
        terrains = [(name, key) for key, name in TERRAIN_IDS.items()]
        yield field(
            "Att. hexes",
            FixedInput(placeholder="1", compact=True, id="attack-hexes", classes="small"),
            Tick("2 non-adj.", id="nonadjacent", compact=True),
        )
        yield Tick("Overrun (not a regular attack)", id="overrun", compact=True)
        yield field(
            "Hedgehog", FixedInput(placeholder="0", compact=True, id="hedgehog", classes="small")
        )
        yield field("Def. terrain", Cycle(terrains, id="terrain"))
        yield field(
            "Def. supply", Cycle([("paid", "paid"), ("withheld ½", "withheld")], id="def-supply")
        )
        yield field("AR unit A", Cycle([(HIGHEST, "")], id="ar-attacker"))
        yield field("AR unit D", Cycle([(HIGHEST, "")], id="ar-defender"))

    def make_unit_row(self, side: str, number: int) -> OcsUnitRow:
        return OcsUnitRow(side, number)

    def make_preview(self) -> OddsPreview:
        return OcsOddsPreview(id="preview")

    def on_mount(self) -> None:
        # Held, not queried: the form is read on every keystroke.
        self.boxes = {
            side: self.query_one(f"#{side}s", Vertical) for side in ("attacker", "defender")
        }
        self.cycles = {c.id: c for c in self.query(Cycle).results(Cycle) if c.id}
        self.checks = {c.id: c for c in self.query(Checkbox).results(Checkbox) if c.id}
        super().on_mount()

    def unit_rows(self, side: str) -> list[Any]:
        return [row for row in self.boxes[side].children if isinstance(row, OcsUnitRow)]

    @on(Cycle.Changed)
    def cycle_changed(self) -> None:
        self.form_changed()

    # ------------------------------------------------------------------ the form
    def held_markers(self) -> dict[str, list[str]]:
        """The markers the save has on each unit, by name."""
        held: dict[str, list[str]] = {}
        for marker in self.desk.game.markers:
            shown = SHOWN_MARKERS.get(marker.kind)
            if shown and shown not in held.get(marker.target, []):
                held.setdefault(marker.target, []).append(shown)
        return held

    def read_units(self, side: str, problems: list[str]) -> tuple[Any, ...]:
        held = self.held_markers()
        units: list[Unit] = []
        for row in self.unit_rows(side):
            assert isinstance(row, OcsUnitRow)
            name = row.unit_name
            markers = held.get(name, [])
            row.show_markers(markers)
            numbers: dict[str, int] = {}
            for key, empty in (("factor", None), ("steps", 1), ("ar", 0)):
                box = row.field(key)
                text = box.value.strip()
                ok = text.isdigit() and text.isascii()
                box.set_class(bool(text) and not ok, "-invalid")
                if ok:
                    numbers[key] = int(text)
                elif text or empty is None:
                    what = {"factor": "strength", "steps": "steps", "ar": "AR"}[key]
                    problems.append(
                        f"{name}: {what} {text!r} is not a whole number >= 0"
                        if text
                        else f"{name}: enter a strength"
                    )
                else:
                    numbers[key] = empty
            size: float | None = None
            if side == "defender":
                box = row.field("re")
                text = box.value.strip()
                try:
                    size = float(text) if text else None
                    ok = size is None or size >= 0
                except ValueError:
                    ok = False
                box.set_class(not ok, "-invalid")
                if not ok:
                    problems.append(f"{name}: RE {text!r} is not a number >= 0")
                    size = None
            if "factor" not in numbers:
                continue
            stocks = "exhausted" if "Exhausted" in markers else "low" if "Low" in markers else None
            units.append(
                Unit(
                    numbers["factor"],
                    name=name,
                    steps=numbers.get("steps", 1),
                    ar=numbers.get("ar", 0),
                    kind=row.choice("type"),
                    supply=row.choice("supply"),
                    re=size,
                    stocks=stocks if side == "attacker" else None,
                )
            )
        self.refresh_ar_choices(side, units)
        return tuple(units)

    def refresh_ar_choices(self, side: str, units: list[Unit]) -> None:
        options = [(HIGHEST, "")] + [(u.name or "", u.name or "") for u in units]
        self.cycles[f"ar-{side}"].set_options(options)

    def combat_fields(
        self, attackers: tuple[Any, ...], defenders: tuple[Any, ...], problems: list[str]
    ) -> dict[str, Any]:
        hexes = self.whole_number("#attack-hexes", problems, "Att. hexes") or 1
        return {
            "attackers": attackers,
            "defenders": defenders,
            "terrain": self.cycles["terrain"].value,
            "hedgehog": self.whole_number("#hedgehog", problems, "Hedgehog"),
            "overrun": self.checks["overrun"].value,
            "defender_unsupplied": self.cycles["def-supply"].value == "withheld",
            "attacker_ar_unit": self.cycles["ar-attacker"].value or None,
            "defender_ar_unit": self.cycles["ar-defender"].value or None,
            "attack_hexes": hexes,
            "nonadjacent_hexsides": self.checks["nonadjacent"].value,
        }

    @cached_property
    def exploit_levels(self) -> tuple[int, ...]:
        """The exploitation levels of the charts (read once: the preview asks on every key)."""
        return ocs_supply.exploit_levels(self.tables)

    def watch_reading(self, reading: FormReading) -> None:
        problems = list(reading.problems)
        shown = extra = None
        combat = reading.combat
        if combat is not None:
            try:
                extra = ocs_supply.preview_extra(combat, self.tables, self.exploit_levels)
                # A refused attack still shows its odds and chances, and why it is refused.
                shown = preview(ocs_supply.for_odds(combat), self.tables)
            except InputError as err:
                extra = None
                problems.append(err.message(self.FIELD_NAMES.get(err.field, err.field)))
        terrain = TERRAIN_IDS.get(combat.terrain or "open", "Open") if combat else "Open"
        self.query_one(OcsOddsPreview).show_ocs(shown, extra, problems, terrain)

    # ------------------------------------------------------------------ rolling (9.2)
    async def play(self, combat: CombatInput, by_hand: bool) -> tuple[CombatInput, Outcome] | None:
        """The surprise roll, its shift die, the result roll; then the attacker's option,
        then the defender's. The same dice are read again after each choice."""
        from tui.screens.dialogs import ChoiceScreen

        ocs_supply.check_units(combat)
        ocs_supply.require_supply(combat)
        kept: list[int] = []
        if by_hand:
            raw = await self.ask_hand_roll(hand_roll_range(SURPRISE_DICE), "the surprise roll")
            if raw is None:
                return None
            combat = replace(combat, surprise_roll=raw)
            if ocs_supply.surprise_side(combat, self.tables, raw) is not None:
                shift = await self.ask_hand_roll(
                    hand_roll_range(SHIFT_DIE), "the surprise shift die"
                )
                if shift is None:
                    return None
                combat = replace(combat, shift_roll=shift)
            drm = ocs_supply.result_drm(ocs_supply.with_unit_ars(combat))
            raw = await self.ask_hand_roll(
                hand_roll_range(RESULT_DICE), f"the result roll, DRM {drm:+d} added"
            )
            if raw is None:
                return None
            combat = replace(combat, roll=raw + drm)
        outcome = self.read(combat, by_hand, kept)
        options = outcome.effects.get("options", {})
        attacker = options.get("attacker")
        if attacker and not attacker["chosen"]:
            retreat = await self.ask_option("attacker", attacker, outcome)
            combat = replace(combat, attacker_option_retreat=retreat)
            outcome = self.read(combat, by_hand, kept)
            options = outcome.effects.get("options", {})
        defender = options.get("defender")
        if defender and not defender["chosen"]:
            if defender.get("may_ignore"):
                answer = await self.app.push_screen_wait(
                    ChoiceScreen(
                        f"The attacker {defender['because']}: the defender may ignore its option "
                        f"{defender['option']} (RULINGS), or take it.",
                        [("i", "ignore its options", "ignore"), ("t", "take them", "take")],
                    )
                )
                if answer == "ignore":
                    combat = replace(combat, defender_ignores_options=True)
            if not combat.defender_ignores_options:
                retreat = await self.ask_option("defender", defender, outcome)
                combat = replace(combat, defender_option_retreat=retreat)
            outcome = self.read(combat, by_hand, kept)
        return combat, outcome

    def read(self, combat: CombatInput, by_hand: bool, kept: list[int]) -> Outcome:
        """Resolve with the same dice on every read: rolled once by the desk, kept."""
        dice: random.Random = KeptDice(None if by_hand else self.desk.rng, kept)
        return resolve(combat, self.tables, dice)

    async def ask_option(self, side: str, option: dict[str, Any], outcome: Outcome) -> int:
        """How a side takes its option: the hexes retreated (the rest in steps lost)."""
        from tui.screens.dialogs import ChoiceScreen

        size = option["option"]
        choices = []
        for hexes in range(size + 1):
            steps = size - hexes
            words = []
            if steps:
                words.append(f"lose {steps} step{'s' if steps != 1 else ''}")
            if hexes:
                words.append(f"retreat {hexes} hex{'es' if hexes != 1 else ''}")
            if hexes >= ocs_supply.DG_RETREAT_HEXES:
                words.append("DG")
            if side == "attacker" and hexes:
                words.append("no exploitation")
            choices.append((str(hexes), ", ".join(words), str(hexes)))
        answer = await self.app.push_screen_wait(
            ChoiceScreen(
                f"Dice: {', '.join(f'{d.purpose} {d.dice} {d.total}' for d in outcome.dice)}\nRoll {outcome.roll} on {outcome.column}: "
                f"{outcome.cell}: the {side} takes its option {size}. How?",
                choices,
            )
        )
        return int(answer)

    def recorded(self, state: SaveState) -> None:
        super().recorded(state)
        # The markers just placed (Low, Exhausted, DG) show on the rows.
        self.reading = self.read_form()
