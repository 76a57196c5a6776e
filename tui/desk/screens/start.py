"""The start screen: the saves folder, newest first."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Static

from tui.desk.commands import START_COMMANDS
from tui.desk.messages import CreateGame, OpenGame, RepairSave
from tui.desk.screens.base import DeskScreen
from tui.desk.widgets.title import TitleBar
from tui.engine import registry
from tui.engine.text import one_line, when_text
from tui.game.folder import GameSummary, list_games
from tui.game.messages import SaveRepaired
from tui.game.model import SaveError

if TYPE_CHECKING:
    from tui.desk.screens.dialogs import NewGameRequest

# (label, width): fits 80 columns with the table's cell padding and scrollbar. A long title
# or ruleset list is cut short, never a column.
COLUMNS = (("file", 13), ("title", 18), ("rulesets", 20), ("turn", 4), ("last (UTC)", 11))
# A save the list cannot read: Enter says why, r repairs it.
UNREADABLE = "unreadable: Enter"


def fit(text: str, width: int) -> str:
    """`text` on one line in `width` cells, cut with an ellipsis when longer."""
    text = one_line(text)
    return text if len(text) <= width else text[: width - 1] + "…"


class StartScreen(DeskScreen):
    BINDINGS = [c.binding() for c in START_COMMANDS]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical():
            yield Static("", markup=False, id="saves-folder")
            yield DataTable(id="saves-table", cursor_type="row", zebra_stripes=True)
            yield Static(
                "Enter opens · n new game · l log · F1 help · q quit", markup=False, classes="hint"
            )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.title = "crtdesk"
        self.sub_title = "saves"
        table = self.query_one(DataTable)
        for label, width in COLUMNS:
            table.add_column(label, width=width)

    def on_screen_resume(self) -> None:
        # Shown first, and each time the desk comes back to it: the folder read once each.
        self.reload()

    def reload(self) -> None:
        folder = self.desk.saves_dir
        try:
            self.games = list_games(folder)
            shown = f"Saves in {folder}/ ({len(self.games)})"
        except SaveError as err:  # the folder itself: said here, the desk stays open
            self.games = []
            shown = one_line(str(err))
            self.notify(shown, severity="error", markup=False, timeout=10)
        self.query_one("#saves-folder", Static).update(shown)
        table = self.query_one(DataTable)
        table.clear()
        for game in self.games:
            file = fit(game.path.stem, COLUMNS[0][1])
            if game.error:
                # Within the rulesets column at 80 columns ("unreadable (Enter: w" was cut).
                table.add_row(file, fit(game.title, COLUMNS[1][1]), UNREADABLE, "-", "-")
                continue
            rulesets = " ".join(registry.short_name(r) for r in game.rulesets)
            last = when_text(game.last_entry)[5:] if game.last_entry else "-"
            table.add_row(
                file,
                fit(game.title, COLUMNS[1][1]),
                fit(rulesets, COLUMNS[2][1]),
                str(game.turn),
                last,
            )
        table.focus()

    def _highlighted(self) -> GameSummary | None:
        table = self.query_one(DataTable)
        if not self.games or table.cursor_row < 0:
            return None
        return self.games[min(table.cursor_row, len(self.games) - 1)]

    @on(DataTable.RowSelected)
    def row_selected(self) -> None:
        self.action_open_game()

    def action_open_game(self) -> None:
        game = self._highlighted()
        if game is None:
            self.notify("No saves yet: press n for a new game.")
            return
        if game.error:
            message = f"{game.error} (r repairs it: a copy kept, nothing lost)"
            self.notify(message, severity="error", markup=False, timeout=10)
            return
        self.post_message(OpenGame(game))

    def action_repair(self) -> None:
        game = self._highlighted()
        if game is not None:
            # The list reads only a save's ends: one broken in the middle is refused on
            # opening, and repaired from here all the same (a sound one is left as it is).
            # `crtdesk repair`, off the UI thread: the desk hears how it went (`repaired`).
            self.post_message(RepairSave(game.path))

    @on(SaveRepaired)
    def repaired(self, message: SaveRepaired) -> None:
        """What the repair did said; the list read again when the file changed."""
        path, done = message.path, message.repaired
        if done is None:
            self.notify(
                f"Not repaired: {message.error}", severity="error", markup=False, timeout=10
            )
            return
        if done.asked:
            self._ask_to_repair(path, done.changes)
            return
        aside = f"; {len(done.set_aside)} set aside in {done.side_file}" if done.side_file else ""
        if done.backup is None:
            self.notify(f"{path.name} is sound: nothing to repair.", markup=False)
            return
        self.notify(
            f"Repaired {path.name}: {done.entries} entries kept{aside}; the file as it was "
            f"is in {done.backup}",
            markup=False,
            timeout=10,
        )
        self.reload()

    def _ask_to_repair(self, path: Path, changes: tuple[str, ...]) -> None:
        """A repair that would change the game (`crtdesk repair` without --yes): what
        changes said, and asked; Esc (or n) writes nothing."""
        # Imported when first shown: the start screen draws without it.
        from tui.desk.screens.dialogs import ChoiceScreen

        question = "\n".join(
            [f"Repairing {path.name} changes the game:"]
            + [f"- {one_line(change)}" for change in changes]
            + ["The whole file as it is is kept in a copy. Repair it so?"]
        )
        choices = [("y", "Yes, repair it", "yes"), ("n", "No, leave it as it is", "no")]

        def answered(answer: str | None) -> None:
            if answer == "yes":
                self.post_message(RepairSave(path, accept=changes))
            else:
                self.notify(f"{path.name} not repaired: nothing written.", markup=False)

        self.app.push_screen(ChoiceScreen(question, choices), answered)

    def action_new_game(self) -> None:
        # Imported when first shown: the start screen draws without it.
        from tui.desk.screens.dialogs import NewGameScreen

        dialog = NewGameScreen(self.desk.tables, games=self.desk.games_dir)
        self.app.push_screen(dialog, self._created)

    def _created(self, request: NewGameRequest | None) -> None:
        if request is not None:
            self.post_message(CreateGame(request))

    def action_review_log(self) -> None:
        # Imported when first shown: the start screen draws without it.
        from tui.desk.screens.review import ReviewScreen

        game = self._highlighted()
        if game is not None:
            self.app.push_screen(ReviewScreen(game.path))

    def action_help(self) -> None:
        # Imported when first shown: the start screen draws without it.
        from tui.desk.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(None, START_COMMANDS))

    def action_quit(self) -> None:
        self.app.exit()
