"""OCS (DAK-II): units with steps, action ratings, types and supply, and the schema's form
(attacking hexes, overrun, hedgehog, the defender's terrain and supply, the AR units). The
engine's procedure walks 9.2 (surprise, its shift die, the result roll, then each side's
option); this screen shows the units' markers and the OCS preview."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.desk.screens.combat import CombatScreen, FormReading, SaveState
from tui.desk.widgets.combat import Cycle, OddsPreview
from tui.desk.widgets.ocs import OcsOddsPreview, OcsUnitRow
from tui.engine import InputError, Unit
from tui.engine.preview import preview
from tui.engine.rulesets.ocs import supply as ocs_supply
from tui.engine.rulesets.ocs.rules import TERRAIN_IDS, result_words
from tui.engine.text import dice_brief

if TYPE_CHECKING:
    from tui.engine import Outcome

# Save marker kinds shown on a unit row, as the row shows them.
SHOWN_MARKERS = {"low": "Low", "exhausted": "Exhausted", "DG": "DG", "exploitation": "Exploit"}
HIGHEST = "(highest)"


class OcsScreen(CombatScreen):
    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("strength", "strength")

    def compose_unit_heading(self, side: str) -> ComposeResult:
        # Over the row's fields (label 3, strength 5, steps 4, AR 4, name): their
        # placeholders go once a value is typed.
        yield Static("   str  stp AR  name", classes="unit-heading")

    def make_preview(self) -> OddsPreview:
        return OcsOddsPreview(id="preview")

    def on_mount(self) -> None:
        # Held, not queried: the form is read on every keystroke.
        self.boxes = {
            side: self.query_one(f"#{side}s", Vertical) for side in ("attacker", "defender")
        }
        self.cycles = {c.id: c for c in self.query(Cycle).results(Cycle) if c.id}
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
        for marker in self.game.markers:
            shown = SHOWN_MARKERS.get(marker.kind)
            if shown and shown not in held.get(marker.target, []):
                held.setdefault(marker.target, []).append(shown)
        return held

    def read_units(self, side: str, problems: list[str]) -> tuple[Any, ...]:
        """The counters as the OCS unit kind reads them; each row shows the markers the save
        has on its unit, and an attacker draws on the internal stocks they say (Low, then
        Exhausted)."""
        units = super().read_units(side, problems)
        held = self.held_markers()
        for row in self.unit_rows(side):
            row.show_markers(held.get(row.unit_name, []))
        if side == "attacker":
            markers = [(marker.target, marker.kind) for marker in self.game.markers]
            units = ocs_supply.stocks_from_markers(units, markers)
        self.refresh_ar_choices(side, list(units))
        return units

    def refresh_ar_choices(self, side: str, units: list[Unit]) -> None:
        options = [(HIGHEST, "")] + [(u.name or "", u.name or "") for u in units]
        self.cycles[f"ar-{side}"].set_options(options)

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
                problems.append(err.message(self.field_label(err.field)))
        terrain = TERRAIN_IDS.get(combat.terrain or "open", "Open") if combat else "Open"
        odds = self.form_field("#preview")  # found once, not queried by type on every key
        assert isinstance(odds, OcsOddsPreview)
        odds.show_ocs(shown, extra, problems, terrain)

    def recorded(self, state: SaveState) -> None:
        super().recorded(state)
        # The markers just placed (Low, Exhausted, DG) show on the rows.
        self.reading = self.read_form()

    def result_effects(self, outcome: Outcome) -> str:
        """The result as carried out, without the rules' reminders (on ctrl+f and in the
        log), so the whole of it fits the box at 80x24; then the dice."""
        words = result_words(outcome.effects, outcome.odds_column, outcome.column, brief=True)
        return f"{words}\nDice: {dice_brief(outcome.dice)}"
