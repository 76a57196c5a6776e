"""Pair-o-Dice Big Boom: Allied bombers, German batteries or Allied ships against a target
hex. The form is the schema's (the bombers' range, the distance, the mission); which of it
a mission reads, and what it stands for, the engine says (tui.engine.rulesets.boom.rules). The
preview folds the whole chain (attrition, accuracy, direction, combat) as you type;
rolling runs it with every die shown, and its No-entry markers go on the target hex or on
the hex the astray units hit, named from it ("one hex NE of 0712")."""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Input, Static

from tui.desk.commands import FROGMAN_COMMANDS, Command
from tui.desk.screens.combat import CombatScreen, FormReading
from tui.desk.screens.pod import field, play_frogman
from tui.desk.widgets.combat import FixedInput, OddsPreview, bar
from tui.engine import CombatInput, InputError, Outcome, Unit
from tui.engine.cells import cell_text
from tui.engine.rulesets.boom.rules import (
    NO_AA,
    ChainPreview,
    chain_preview,
    interdiction_words,
    loss_words,
    most_attrition_losses,
    printed_results,
)
from tui.engine.rulesets.common import explain
from tui.engine.tables import Tables
from tui.engine.text import dice_brief


def _percent_row(chance: Fraction, label: str) -> str:
    value = float(chance)
    return f"{value * 100:5.1f}% {bar(value)} {label}"


def preview_text(
    chain: ChainPreview, combat: CombatInput, target: str, most_lost: int
) -> tuple[str, str]:
    """The preview of one mission: (the head, the chances)."""
    units = [unit.factor for unit in combat.attackers]
    head = [f"CAF {sum(units)} in {len(units)} unit{'s' if len(units) != 1 else ''}"]
    chances: list[str] = []
    if chain.aa_total is None or combat.aaf is None:
        head.append("No attrition (batteries and ships)")
    else:
        bonus = chain.aa_total - combat.aaf
        aa = f"AA {combat.aaf} + {bonus} far = {chain.aa_total}" if bonus else f"AA {combat.aaf}"
        head.append(f"{aa}: attrition column {chain.attrition_column}")
        lost = dict(chain.units_lost)
        chances.append("Bombers lost to attrition (1d6):")
        # Every count up to the chart's most, chance 0 included.
        for count in range(most_lost + 1):
            chances.append(_percent_row(lost.get(count, Fraction(0)), f"{count} lost"))
    where = target or "the target"
    chances.append(f"Whole mission, loss on {where}:")
    chances.extend(_percent_row(p, loss_words(v)) for v, p in chain.losses)
    chances.append(f"No-entry turns on {where}:")
    chances.extend(_percent_row(p, interdiction_words(v)) for v, p in chain.interdiction)
    return "\n".join(head), "\n".join(chances)


def most_preview_lines(tables: Tables) -> int:
    """The most lines `preview_text` shows for any mission: its head, every attrition count,
    and a line for each loss and each interdiction the CRT prints, and for no CAF on target
    (the preview holds them all, so typing never makes it grow)."""
    losses, turns = printed_results(tables)
    head, titles = 2, 3
    return head + titles + most_attrition_losses(tables) + 1 + len(losses) + len(turns) + 2


class BoomScreen(CombatScreen):
    """Big Boom: the mission's units, its AA and range (bombers), and the target hex."""

    MARKER_KEYS: ClassVar[str] = "^s next turn · ^z Frogman · ^\\ markers"
    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = CombatScreen.DESK_COMMANDS + FROGMAN_COMMANDS
    BINDINGS = [c.binding() for c in FROGMAN_COMMANDS]

    FACTOR_NAMES: ClassVar[tuple[str, str]] = ("CAF", "AA")
    SECTION_LABELS: ClassVar[tuple[str, str]] = (
        "Units, CAF each (^n add, ^o drop)",
        "AA units on the route (^g add)",
    )
    # The inputs the form hides, as the mission last left them unread.
    hidden: frozenset[str] = frozenset()

    @work(exclusive=True, group="markers")
    async def action_frogman(self) -> None:
        await play_frogman(self)

    @cached_property
    def most_lost(self) -> int:
        """The most bombers the attrition chart removes (read once: the preview shows every
        count up to it on every key)."""
        return most_attrition_losses(self.tables)

    def make_preview(self) -> OddsPreview:
        return OddsPreview(id="preview", reserve=most_preview_lines(self.tables))

    def compose_fields(self) -> ComposeResult:
        # Where the result's markers go: the desk's own, not an input of the combat.
        yield field("Target hex", FixedInput(placeholder="e.g. 0712", compact=True, id="target"))
        yield from super().compose_fields()

    @property
    def target(self) -> str:
        field = self.form_field("#target")  # found once: the preview asks on every key
        assert isinstance(field, Input)
        return field.value.strip()

    def show_unread(self, unread: frozenset[str]) -> None:
        """What a mission does not read is hidden: batteries and ships meet no AA, so their
        AA units, the bombers' range and the distance go."""
        if unread == self.hidden:
            return  # hidden or shown already (each change lays the form out)
        self.hidden = unread
        self.query_one("#defenders").display = "defenders" not in unread
        self.query(".section").last(Static).display = "defenders" not in unread
        for found in self.form_inputs:
            line = self.query_one(f"#{found.widget_id}").parent
            if isinstance(line, Widget):
                line.display = found.name not in unread

    async def action_add_defender(self) -> None:
        if "defenders" in self.unread:
            self.notify(NO_AA)
            return
        await super().action_add_defender()

    # ------------------------------------------------------------------ the form
    def logged_units(self, combat: CombatInput, side: str) -> tuple[Any, ...]:
        """The bombers' units, and the route's AA as one AA unit (the log keeps its sum)."""
        if side == "attacker":
            return combat.attackers
        return (Unit(combat.aaf),) if combat.aaf else ()

    @on(Input.Changed, "#target")
    def target_changed(self) -> None:
        self.watch_reading(self.reading)

    def watch_reading(self, reading: FormReading) -> None:
        problems = list(reading.problems)
        shown = self.form_field("#preview")  # found once, not queried by type on every key
        assert isinstance(shown, OddsPreview)
        combat = reading.combat
        if combat is not None:
            units = tuple(unit.factor for unit in combat.attackers)
            try:
                chain = chain_preview(units, combat.aaf, combat.long_range, self.tables)
            except InputError as err:
                problems.append(err.message(self.field_label(err.field)))
            else:
                shown.show_text(
                    *preview_text(chain, combat, self.target, self.most_lost),
                    problems,
                )
                return
        shown.show_text("Mission: waiting for a valid form", "", problems)

    def result_head(self, outcome: Outcome) -> str:
        """The roll on the CAF column and its cell, with the bombers attrition removed."""
        lost = outcome.effects.get("attacker", {}).get("bombers_removed") or 0
        bombers = f"{lost} bomber{'s' if lost != 1 else ''} lost"
        if outcome.roll:
            head = f"Roll {outcome.roll} on {outcome.column}: {cell_text(outcome.cell)}"
            return f"{head} · {bombers}" if lost else head
        return f"{bombers}: none bombed"

    def result_effects(self, outcome: Outcome) -> str:
        """The whole mission's result in brief, where the astray units struck (named from the
        target hex), then the dice. The accuracy roll and each step of the chain are on
        ctrl+f: with them the box outgrew the screen at 80x24."""
        lines = [explain(outcome.effects, brief=True)]
        astray = outcome.effects.get("astray")
        if astray:
            lines.append(
                f"Astray hex: one hex {astray['direction']} of {self.target or 'the target'}"
            )
        lines.append(f"Dice: {dice_brief(outcome.dice)}")
        return "\n".join(lines)

    def marker_targets(self) -> dict[str, Any]:
        return {"target": self.target} if self.target else {}

    def marker_hex(self) -> str:
        return self.target
