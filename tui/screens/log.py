"""Log review: every entry of a game's log, newest last, and the markers in force."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from tui import saves
from tui.messages import GameChanged
from tui.text import cell_text, dice_text, entry_text, marker_text, one_line, when_text


def entry_row(entry: dict[str, Any]) -> tuple[str, ...]:
    """One log entry as a table row: what a player scans for."""
    kind = str(entry.get("kind", ""))
    if kind == "combat":
        what = (
            f"{entry.get('odds') or '-'} {entry.get('column') or ''} "
            f"r{entry.get('roll') or '-'}: {cell_text(entry.get('cell'))}"
        )
        if entry.get("note"):
            what += " (note)"
        shown = str(entry.get("ruleset", ""))
    else:
        # Other entries say their kind once, and what they did.
        shown, what = entry_text(entry)
    return (
        str(entry.get("seq", "")),
        str(entry.get("turn", "")),
        when_text(str(entry.get("when", ""))),
        one_line(entry.get("who", "")),
        shown,
        one_line(what),
    )


class LogScreen(Screen[None]):
    BINDINGS = [Binding("escape,q", "close", "Back"), Binding("m", "toggle_markers", "Markers")]

    def __init__(self, path: Path) -> None:
        super().__init__(classes="log-screen")
        self.path = path

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield DataTable(id="log-table", cursor_type="row", zebra_stripes=True)
            yield Static("", markup=False, id="log-detail")
            yield Static("", markup=False, id="log-markers")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("#", "turn", "when (UTC)", "who", "ruleset", "result")
        try:
            game = saves.load_game(self.path)
        except saves.SaveError as err:
            self.query_one("#log-detail", Static).update(str(err))
            return
        self.title = f"Log: {game.title}"
        self.sub_title = f"Turn {game.turn} · {len(game.entries)} entries"
        self.entries = game.entries
        for entry in game.entries:
            table.add_row(*entry_row(entry))
        if game.entries:
            table.move_cursor(row=len(game.entries) - 1)
        markers = [marker_text(m) for m in game.markers]
        self.query_one("#log-markers", Static).update(
            "Markers: " + ("; ".join(markers) if markers else "none")
        )
        table.focus()

    @on(DataTable.RowHighlighted)
    def show_entry(self, event: DataTable.RowHighlighted) -> None:
        entries = getattr(self, "entries", [])
        if 0 <= event.cursor_row < len(entries):
            entry = entries[event.cursor_row]
            lines = [entry_text(entry)[1]]
            if entry.get("dice"):
                lines.append("Dice: " + dice_text(entry["dice"]))
            self.query_one("#log-detail", Static).update("\n".join(lines))

    @on(GameChanged)
    def add_entries(self, message: GameChanged) -> None:
        """Another player's entries: add their rows (the cursor follows from the last row)."""
        entries = getattr(self, "entries", None)
        shown = entries[-1]["seq"] if entries else 0
        new = [e for e in message.entries if e["seq"] > shown]
        if message.path != self.path or entries is None or not new:
            return
        table = self.query_one(DataTable)
        follow = table.cursor_row == len(entries) - 1
        entries.extend(new)
        table.add_rows(entry_row(entry) for entry in new)
        game = self.app.game  # type: ignore[attr-defined]
        self.sub_title = f"Turn {game.turn} · {len(entries)} entries"
        markers = [marker_text(m) for m in game.markers]
        self.query_one("#log-markers", Static).update(
            "Markers: " + ("; ".join(markers) if markers else "none")
        )
        if follow:
            table.move_cursor(row=len(entries) - 1)

    def action_toggle_markers(self) -> None:
        markers = self.query_one("#log-markers", Static)
        markers.display = not markers.display

    def action_close(self) -> None:
        self.dismiss(None)
