"""Markers by hand: pick one in play (to lift it, or for Hero #15 Engineer/Frogman), or
place one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tui.engine.text import marker_text
from tui.game.model import MARKER_KINDS, Marker, SaveError, canonical_kind


class MarkerPickScreen(ModalScreen[str | None]):
    """One marker in play, picked with the arrows and Enter: its id (None on Esc)."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, markers: Sequence[Marker]) -> None:
        super().__init__(classes="dialog-screen")
        self.question = question
        self.markers = list(markers)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, markup=False)
            yield OptionList(
                *[Option(marker_text(m).replace("[", "\\["), id=m.id) for m in self.markers],
                id="marker-pick",
                compact=True,
            )
            yield Label("Up/Down Enter picks; Esc cancels", classes="hint")

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class MarkerRequest:
    kind: str
    target: str
    side: str | None
    turns: int | None


class PlaceMarkerScreen(ModalScreen[MarkerRequest | None]):
    """A marker placed by hand: its kind, hex or unit, side and turns (empty: no end)."""

    CSS_PATH = "dialogs.tcss"  # read when first shown, not at the desk's start

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, target: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.target = target

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Place a marker by hand")
            for label, widget in (
                ("Kind", Input(placeholder="no-entry, DG, low ...", id="place-kind")),
                ("Hex/unit", Input(self.target, placeholder="0712", id="place-target")),
                ("Side", Input(placeholder="optional", id="place-side")),
                ("Turns", Input(placeholder="empty: until lifted", id="place-turns")),
            ):
                widget.compact = True
                yield Horizontal(Label(label, classes="field-label"), widget, classes="field")
            yield Static("", markup=False, classes="problems", id="place-problem")
            yield Label("Tab next field; Enter places it; Esc cancels", classes="hint")

    @on(Input.Submitted)
    def submitted(self) -> None:
        values = {
            name: self.query_one(f"#place-{name}", Input).value.strip()
            for name in ("kind", "target", "side", "turns")
        }
        problem = self.query_one("#place-problem", Static)
        try:
            kind = canonical_kind(values["kind"])
        except SaveError:
            problem.update(
                f"Kind {values['kind']!r} is not a marker: one of {', '.join(MARKER_KINDS)}"
            )
            return
        if not values["target"]:
            problem.update("Hex/unit: name the hex or unit the marker goes on")
            return
        turns = values["turns"]
        if turns and not (turns.isdigit() and turns.isascii() and 1 <= int(turns) <= 999):
            problem.update(f"Turns {turns!r} is not allowed: a whole number from 1, or empty")
            return
        self.dismiss(
            MarkerRequest(
                kind, values["target"], values["side"] or None, int(turns) if turns else None
            )
        )

    def action_cancel(self) -> None:
        self.dismiss(None)
