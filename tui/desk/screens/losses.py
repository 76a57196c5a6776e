"""The owner's choice of which units take a loss the rules leave open ("step losses are
removed from any of the defending units", "N factors eliminated"): a number for each unit,
checked by the engine's `settle`; Enter logs it, Esc leaves the loss open (`crtdesk units
FILE take` settles it later)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from tui.engine.text import entry_text
from tui.engine.units import Obligation, UnitState, settle


def open_obligation(said: Mapping[str, Any]) -> Obligation | None:
    """An open loss as a combat entry keeps it ({side, what, amount, units}), or None when
    it is not one (a hand-edited entry: the log shows it as it is)."""
    try:
        return Obligation(
            str(said["side"]),
            str(said["what"]),
            int(said.get("amount", 0)),
            tuple(str(name) for name in said["units"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def left_of(unit: UnitState, what: str) -> int:
    """What a unit has left of what the loss takes (steps, else factors)."""
    if what == "steps":
        return unit.steps_left if unit.steps_left is not None else 1
    return unit.factor_left


class LossScreen(ModalScreen[list[dict[str, Any]] | None]):
    """Which of a side's units take an open loss: each unit's row says what it has left and
    takes a number; Enter checks the numbers (the whole loss, no unit past what it has) and
    answers the losses, Esc answers None (the loss stays open)."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Leave open")]
    DEFAULT_CSS = """
    LossScreen .loss-row { height: 1; }
    LossScreen .loss-name { width: 24; }
    LossScreen .loss-left { width: 14; }
    LossScreen .loss-amount { width: 6; }
    """

    def __init__(self, obligation: Obligation, units: Mapping[str, UnitState], seq: int) -> None:
        super().__init__(classes="dialog-screen")
        self.obligation = obligation
        self.units = dict(units)
        self.seq = seq
        self.alive = [
            units[name] for name in obligation.units if name in units and units[name].alive
        ]
        self.amounts: dict[str, Input] = {}

    def compose(self) -> ComposeResult:
        what = self.obligation.what
        with Vertical(classes="dialog"):
            yield Label(
                f"Combat {self.seq}: {self.obligation.said()}. Which units take them?",
                markup=False,
            )
            for unit in self.alive:
                box = Input(placeholder="0", compact=True, classes="loss-amount")
                self.amounts[unit.name] = box
                yield Horizontal(
                    Label(unit.name, markup=False, classes="loss-name"),
                    Label(f"{left_of(unit, what)} {what} left", classes="loss-left"),
                    box,
                    classes="loss-row",
                )
            yield Static("", markup=False, classes="problems", id="loss-problem")
            yield Label("Enter to log, Esc to leave it open", classes="hint")

    def chosen(self) -> dict[str, int]:
        """The numbers typed, by unit (an empty box: none); ValueError names a box that
        is not a whole number."""
        out: dict[str, int] = {}
        for name, box in self.amounts.items():
            text = box.value.strip()
            if not text or text == "0":
                continue
            try:
                out[name] = int(text)
            except ValueError:
                raise ValueError(f"{name}: {text!r} is not a whole number") from None
        return out

    @on(Input.Submitted)
    def submitted(self) -> None:
        try:
            losses = settle(self.obligation, self.units, self.chosen())
        except ValueError as err:
            self.query_one("#loss-problem", Static).update(str(err))
            return
        if not losses and self.obligation.what == "option" and self.alive:
            # No step chosen: the option all retreated, logged as 0 steps (as `units take
            # --steps 0` logs it), which closes it.
            losses = [{"unit": self.alive[0].name, "steps": 0}]
        self.dismiss(losses)

    def action_cancel(self) -> None:
        self.dismiss(None)


async def ask_for_losses(screen: Any, entry: dict[str, Any]) -> None:
    """The losses combat `entry` left to their owner, asked on `screen` (a combat screen):
    a dialog for each, which logs the units chosen; Esc leaves it open, said so."""
    seq = int(entry["seq"])
    session = screen.session

    def logged(state: Any) -> None:
        if state.status == "failed":
            screen.notify(f"Not saved: {state.error}", severity="error", markup=False, timeout=10)
        elif state.entry is not None:
            what, text = entry_text(state.entry)
            screen.notify(f"Entry {state.entry.get('seq')} ({what}): {text}", markup=False)

    for said in entry.get("open_losses") or ():
        obligation = open_obligation(said)
        game = session.game
        if obligation is None or game is None:
            continue
        losses = await screen.app.push_screen_wait(LossScreen(obligation, game.units, seq))
        if losses is None:
            screen.notify(
                f"Left open: {obligation.said()} (combat {seq}); "
                f"crtdesk units {session.path.stem} take settles it.",
                markup=False,
            )
            continue
        if losses:
            session.take_losses(losses, combat=seq, done=logged)
