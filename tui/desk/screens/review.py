"""Log review: every entry of a game's log in one virtualised table, filters and a jump to a
turn, the highlighted entry in full (with the notes on it and the card played after it), a
key to annotate it, and the markers in play.

The save is read in a thread worker by `tui.reports.review_data` (rows, filters, what an entry
shows, the reading), so a long campaign shows the screen at once and its log is never held
whole. This module holds the widgets. A filter or a note rebuilds only the table's rows,
never the widgets.

The game shown (title, turn, markers) is the one its session holds: the open game's, or
for a save not open here the review's own session, given the game the whole read replayed.
The review keeps no game of its own; notes go through that session.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

from tui.desk.commands import REVIEW_COMMANDS, Command
from tui.desk.messages import LeaveFirstReview
from tui.desk.screens.base import DeskScreen
from tui.desk.widgets.log_table import LogTable, TableColumn
from tui.desk.widgets.title import TitleBar
from tui.engine.text import marker_text
from tui.game.messages import GameChanged, GameRead
from tui.game.model import SaveError
from tui.game.session import KEPT_ENTRIES, GameSession
from tui.reports.review_data import (
    CELL_KEYS,
    Filter,
    detail_text,
    parse_filter,
    shown_columns,
    with_token,
)
from tui.reports.review_rows import Loaded, Row, read_for_review, read_tail

if TYPE_CHECKING:
    from tui.game.model import Game
    from tui.game.session import SaveState

FILTER_HELP = "turn:3 (or 2-4)  ruleset:rivets  player:ann  any words"
_FILTER_DELAY = 0.2


class ReviewScreen(DeskScreen):
    """A game's whole log: filter it, jump to a turn, read an entry in full, annotate it."""

    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = REVIEW_COMMANDS
    BINDINGS = [c.binding() for c in REVIEW_COMMANDS]
    # Parsed when a review is first shown (a widget's own CSS), not at every start; a
    # CSS_PATH would not be read where the review is the desk's first screen.
    DEFAULT_CSS = """
    #review-bar {
        height: 1;
    }

    #review-filter {
        width: 1fr;
    }

    #review-status {
        width: auto;
        max-width: 50%;
        padding: 0 1;
    }

    #review-table {
        height: 1fr;
    }

    #review-detail-pane {
        height: 40%;
        border-top: solid $primary;
    }

    #review-detail {
        padding: 0 1;
    }

    #review-luck-pane, #review-losses-pane {
        display: none;
        height: 60%;
        border-top: solid $primary;
        padding: 0 1;
    }

    #review-markers {
        height: auto;
        max-height: 3;
        padding: 0 1;
    }
    """

    def __init__(self, path: Path) -> None:
        super().__init__(classes="review-screen")
        self.path = Path(path)
        self.loaded: Loaded | None = None
        self.filter = Filter()
        self.shown_rows: list[int] = []  # positions in the log of the rows shown
        self.layout_width = 0
        self._filter_timer: Timer | None = None
        # Entries appended while only the log's tail was read.
        self._pending: list[dict[str, Any]] = []
        # The session of a save not open here (made when first needed): the review's own.
        self._own_session: GameSession | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="review-body"):
            with Horizontal(id="review-bar"):
                yield Input(placeholder=FILTER_HELP, id="review-filter", compact=True)
                yield Static("Loading…", markup=False, id="review-status")
            yield LogTable(id="review-table")
            with VerticalScroll(id="review-detail-pane"):
                yield Static("", markup=False, id="review-detail")
            yield from self.compose_panels()
            yield Static("", markup=False, id="review-markers")
        yield Footer(compact=True)

    def compose_panels(self) -> ComposeResult:
        """Panels below the detail pane: luck against the odds (u shows it in the detail
        pane's place)."""
        with VerticalScroll(id="review-luck-pane"):
            yield Static("", markup=False, id="review-luck")
        with VerticalScroll(id="review-losses-pane"):
            yield Static("", markup=False, id="review-losses")

    @property
    def table(self) -> LogTable:
        return self.query_one("#review-table", LogTable)

    @property
    def session(self) -> GameSession:
        """The reviewed save's session: the open game's when it is this save, else the
        review's own (no watch; it holds the game the review's read replayed)."""
        found = self.desk.session_of(self.path)
        if found is not None:
            return found
        if self._own_session is None:
            self._own_session = GameSession(self.app, self.path, player=self.desk.player)
        return self._own_session

    def on_mount(self) -> None:
        self.title = f"Log: {self.path.stem}"
        self.sub_title = "reading…"
        self.table.focus()
        # Read in a worker from now: a long log's last entries come first (a small read),
        # and the whole log is read once they are drawn.
        self.load()

    @work(thread=True, exclusive=True, group="review-load", exit_on_error=False)
    def load(self) -> None:
        if self.loaded is None:
            # A long log: its last entries first, shown while the rest is read.
            tail = read_tail(self.path)
            if tail is not None:
                self.app.call_from_thread(self.show_loaded, tail, None)
                # The rest is read once the tail is drawn: the read holds the interpreter
                # much of the time, and would delay that frame.
                drawn = threading.Event()
                self.app.call_from_thread(self.call_after_refresh, drawn.set)
                drawn.wait(timeout=1.0)
        try:
            loaded, game = read_for_review(self.path, keep=KEPT_ENTRIES)
        except SaveError as err:
            self.app.call_from_thread(self.failed, str(err))
            return
        except Exception as err:  # a reader's own failure: said, never "reading…" for ever
            message = f"{self.path}: cannot be read: {type(err).__name__}: {err}"
            self.app.call_from_thread(self.failed, " ".join(message.split()))
            return
        self.app.call_from_thread(self.show_loaded, loaded, game)

    def failed(self, message: str) -> None:
        self.query_one("#review-status", Static).update("Not read")
        self.query_one("#review-detail", Static).update(message)

    def show_loaded(self, loaded: Loaded, game: Game | None) -> None:
        """The rows read (the log's tail first, or the whole log); `game`, the game a whole
        read replayed, is handed to the review's own session (the open game's session
        reads its game itself)."""
        keep = None
        before = self.loaded
        if before is not None and self.shown_rows:
            # Read again (the whole log after its tail, or a file changed under it): the
            # cursor stays on the entry it was on, unless it was on the last.
            if self.highlighted_position() != len(before.rows) - 1:
                keep = self.highlighted_seq()
        self.loaded = loaded
        session = self.session
        if game is not None and session is self._own_session:
            session.adopt(game)
        self.show_game()
        self.layout_width = 0
        self.rebuild(keep=keep)
        if not loaded.partial and self._pending:
            # Entries another player appended while the tail was shown.
            pending, self._pending = self._pending, []
            self.take_entries(pending)

    def on_resize(self, event: Resize) -> None:
        if self.loaded is not None and shown_columns(event.size.width) != shown_columns(
            self.layout_width
        ):
            self.rebuild(keep=self.highlighted_seq())

    # ------------------------------------------------------------------ rows
    def rebuild(self, keep: int | None) -> None:
        """Show the entries the filter lets through, the cursor on `keep` (an entry's
        number) when it is shown, else on the last row."""
        loaded = self.loaded
        if loaded is None:
            return
        self.layout_width = self.size.width or self.app.size.width
        columns = [TableColumn(k, label, w) for k, label, w in shown_columns(self.layout_width)]
        self.shown_rows = loaded.matching(self.filter)
        target = None
        if keep is not None:
            target = next((n for n, i in enumerate(self.shown_rows) if loaded.seq(i) == keep), None)
        keys = [CELL_KEYS.index(c.key) for c in columns]
        shown = self.shown_rows
        self.table.show_rows(
            columns, len(shown), lambda row: [loaded.cells(shown[row])[k] for k in keys], target
        )
        self._status()
        if not shown:
            self.query_one("#review-detail", Static).update(
                "No entry matches the filter." if len(loaded) else "The log is empty."
            )

    def _status(self) -> None:
        loaded = self.loaded
        total = len(loaded.rows) if loaded else 0
        shown = (
            f"{len(self.shown_rows)} of {total}" if len(self.shown_rows) != total else f"{total}"
        )
        if loaded is not None and loaded.partial:
            shown = f"the last {shown}"
        self.query_one("#review-status", Static).update(f"{shown} entries")

    def highlighted_position(self) -> int | None:
        row = self.table.cursor
        if 0 <= row < len(self.shown_rows):
            return self.shown_rows[row]
        return None

    def highlighted_seq(self) -> int | None:
        row = self._highlighted_row()
        return None if row is None else row.seq

    @on(LogTable.RowHighlighted, "#review-table")
    def row_highlighted(self, event: LogTable.RowHighlighted) -> None:
        self.show_detail(event.row)

    def show_detail(self, row: int) -> None:
        loaded = self.loaded
        if loaded is None or not 0 <= row < len(self.shown_rows):
            return
        try:
            text = detail_text(loaded.entry(self.shown_rows[row]), loaded.index)
        except SaveError as err:
            # The file is not as it was read (rewritten by hand, say): read it again.
            text = f"{err}; reading the log again…"
            self.load()
        self.query_one("#review-detail", Static).update(text)
        self.query_one("#review-detail-pane", VerticalScroll).scroll_home(animate=False)

    def show_game(self) -> None:
        """The game's title, turn and markers as its session holds them, over the rows."""
        loaded, session = self.loaded, self.session
        game = session.game if session.loaded else None
        title = session.game.title if session.game is not None else self.path.stem
        self.title = f"Log: {title}"
        if loaded is None:
            return
        count = len(loaded.rows)
        if loaded.partial:
            self.sub_title = f"the last {count} entries, reading the rest…"
        else:
            self.sub_title = f"Turn {game.turn} · {count} entries" if game else f"{count} entries"
        markers = self.query_one("#review-markers", Static)
        if loaded.partial or game is None:
            markers.update("Markers in play: reading…")
            return
        shown = [marker_text(m) for m in game.markers]
        markers.update("Markers in play: " + ("; ".join(shown) if shown else "none"))

    @on(GameRead)
    def game_read(self, message: GameRead) -> None:
        """The open game read whole (behind a `crtdesk review`): its turn and markers."""
        if Path(message.path) == self.path:
            self.show_game()

    # ------------------------------------------------------------------ filters
    @on(Input.Changed, "#review-filter")
    def filter_typed(self) -> None:
        # A long log is refiltered once typing pauses, not on every key.
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(_FILTER_DELAY, self.apply_filter)

    @on(Input.Submitted, "#review-filter")
    def filter_submitted(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self.apply_filter()
        self.table.focus()

    def apply_filter(self) -> None:
        field = self.query_one("#review-filter", Input)
        wanted, problem = parse_filter(field.value)
        field.set_class(problem is not None, "-invalid")
        if problem is not None:
            self.query_one("#review-status", Static).update(problem)
            return
        if wanted != self.filter:
            self.filter = wanted
            self.rebuild(keep=self.highlighted_seq())
        else:
            self._status()

    def set_filter_text(self, text: str) -> None:
        """Put `text` in the filter bar and apply it now."""
        self.query_one("#review-filter", Input).value = text
        self.filter_submitted()

    def _with_token(self, key: str, value: str) -> None:
        """Add (or replace) one `key:value` in the filter bar; the same again removes it."""
        field = self.query_one("#review-filter", Input)
        self.set_filter_text(with_token(field.value, key, value))

    def action_filter(self) -> None:
        # At once, not after the next message: keys typed right after "/" go to the bar.
        self.set_focus(self.query_one("#review-filter", Input))

    def action_this_turn(self) -> None:
        row = self._highlighted_row()
        if row is not None:
            self._with_token("turn", str(row.turn))

    def action_this_ruleset(self) -> None:
        row = self._highlighted_row()
        if row is None:
            return
        if not row.ruleset:
            self.notify("This entry has no ruleset to filter on.", markup=False)
            return
        self._with_token("ruleset", row.ruleset)

    def action_this_player(self) -> None:
        row = self._highlighted_row()
        if row is not None:
            self._with_token("player", row.who)

    def _highlighted_row(self) -> Row | None:
        position = self.highlighted_position()
        if position is None or self.loaded is None:
            return None
        return self.loaded.rows[position]

    @work(exclusive=True, group="review-jump")
    async def action_jump(self) -> None:
        # Imported when first shown or asked for: the review opens without it.
        from tui.desk.screens.dialogs import NumberScreen

        if not self.shown_rows:
            self.notify("No entries shown to jump among.", markup=False)
            return
        turn = await self.app.push_screen_wait(NumberScreen("Jump to turn:", "a turn number"))
        if turn is not None:
            self.jump_to_turn(turn)

    def jump_to_turn(self, turn: int) -> bool:
        """Move to the first shown entry of `turn`; say so when none is shown."""
        if self.loaded is None:
            return False
        loaded = self.loaded
        for row, position in enumerate(self.shown_rows):
            if loaded.turn(position) >= turn:
                if loaded.turn(position) != turn:
                    break
                self.table.move_cursor(row)
                return True
        shown = sorted({loaded.turn(p) for p in self.shown_rows})
        listed = f"turns {shown[0]}-{shown[-1]} are" if shown else "no entries are"
        self.notify(f"No entry of turn {turn} is shown ({listed}).", markup=False)
        return False

    # ------------------------------------------------------------------ notes
    @work(exclusive=True, group="review-note")
    async def action_note(self) -> None:
        row = self._highlighted_row()
        if row is None:
            self.notify("No entry to annotate.", markup=False)
            return
        # Imported when first shown or asked for: the review opens without it.
        from tui.desk.screens.dialogs import NoteScreen

        text = await self.app.push_screen_wait(NoteScreen(f"entry {row.seq}"))
        if text:
            self.append_note(row.seq, text)

    def append_note(self, seq: int, text: str) -> None:
        """Append the note through the save's session (a worker); the review (and the open
        game, when it is this save) then show it."""

        def done(state: SaveState) -> None:
            if state.entry is None:
                self.notify(f"Not saved: {state.error}", severity="error", markup=False, timeout=10)
            else:
                self.noted(state.entry)

        self.session.note(seq, text, done=done)

    def noted(self, entry: dict[str, Any]) -> None:
        """Show a note just appended: its row, and on the entry it annotates."""
        self.notify(f"Note logged as entry {entry['seq']}.", markup=False)
        self.take_entries([entry])

    @on(GameChanged)
    def game_changed(self, message: GameChanged) -> None:
        """Entries another player appended to this save: their rows come in as they are
        read (the cursor follows when it was on the last row)."""
        if Path(message.path) == self.path:
            self.take_entries(message.entries)

    def take_entries(self, new: list[dict[str, Any]]) -> None:
        """Entries appended after the ones shown: each gets its row, and an entry it
        annotates or amends shows it (the game's turn and markers are the session's, which
        applied them). A gap means others came in between: read again."""
        loaded = self.loaded
        if loaded is None:
            return
        if loaded.partial:
            self._pending.extend(new)  # taken once the whole log is read
            return
        rows = loaded.rows
        last = loaded.seq(-1) if len(loaded) else 0
        new = [entry for entry in new if entry["seq"] > last]
        if not new:
            return
        if new[0]["seq"] != last + 1:
            self.load()  # off this thread
            return
        was_last = self.shown_rows and self.highlighted_position() == len(rows) - 1
        keep = None if was_last else self.highlighted_seq()
        try:
            for entry in new:
                loaded.add(entry)  # kept whole: the few entries appended while it is shown
        except SaveError:
            self.load()  # the entry a note points at is not where it was read: read again
            return
        self.show_game()
        self.rebuild(keep=keep)

    # ------------------------------------------------------------------ luck and report
    def action_luck(self) -> None:
        """Show luck in the detail pane's place (worked out off this thread), or hide it."""
        pane = self.query_one("#review-luck-pane", VerticalScroll)
        showing = not pane.display
        pane.display = showing
        self.query_one("#review-losses-pane").display = False
        self.query_one("#review-detail-pane").display = not showing
        if showing:
            self.query_one("#review-luck", Static).update("Working out the luck…")
            self.work_out_luck()

    @work(thread=True, exclusive=True, group="review-luck", exit_on_error=False)
    def work_out_luck(self) -> None:
        # Imported when first shown or asked for: the review opens without it.
        from tui.reports.luck import luck_text
        from tui.reports.luck.reading import read_luck

        loaded = self.loaded
        if loaded is None or loaded.partial:
            text = "The log is not read yet."
        else:
            # Read from the file again, entry by entry: the review keeps only its rows.
            try:
                report, _ = read_luck(self.path, self.desk.tables)
                text = luck_text(report, max(40, self.size.width - 4))
            except SaveError as err:
                text = f"No luck figures: {err}"
        self.app.call_from_thread(self.query_one("#review-luck", Static).update, text)

    def action_losses(self) -> None:
        """Show each side's losses and what remains in the detail pane's place (read off
        this thread), or hide them."""
        pane = self.query_one("#review-losses-pane", VerticalScroll)
        showing = not pane.display
        pane.display = showing
        self.query_one("#review-luck-pane").display = False
        self.query_one("#review-detail-pane").display = not showing
        if showing:
            self.query_one("#review-losses", Static).update("Reading the losses…")
            self.work_out_losses()

    @work(thread=True, exclusive=True, group="review-losses", exit_on_error=False)
    def work_out_losses(self) -> None:
        # Imported when first shown or asked for: the review opens without it.
        from tui.reports.losses import read_losses
        from tui.reports.review_data import losses_review_text

        # Read from the file again, entry by entry (the units replayed as it goes): the
        # review keeps only its rows.
        try:
            losses, _ = read_losses(self.path)
            text = losses_review_text(losses)
        except SaveError as err:
            text = f"No losses shown: {err}"
        self.app.call_from_thread(self.query_one("#review-losses", Static).update, text)

    def action_report(self) -> None:
        self.notify("Writing the after-action report…", markup=False)
        self.write_report()

    @work(thread=True, exclusive=True, group="review-report", exit_on_error=False)
    def write_report(self) -> None:
        """The after-action report, as Markdown, in NAME-report.md beside the save."""
        # Imported when first shown or asked for: the review opens without it.
        from tui.reports.report import write_report

        try:
            target = write_report(self.path, self.desk.tables)
        except (SaveError, OSError) as err:
            message = f"No report written: {err}"
            self.app.call_from_thread(
                self.notify, message, severity="error", markup=False, timeout=10
            )
            return
        self.app.call_from_thread(
            self.notify, f"After-action report written to {target}", markup=False, timeout=10
        )

    # ------------------------------------------------------------------ the rest
    def action_toggle_markers(self) -> None:
        markers = self.query_one("#review-markers", Static)
        markers.display = not markers.display

    def action_back(self) -> None:
        """Esc in the filter bar goes back to the table; elsewhere it closes the review."""
        field = self.query_one("#review-filter", Input)
        if field.has_focus:
            self.table.focus()
        elif self.app.screen_stack[0] is self:  # the desk's first screen: nothing under it
            self.post_message(LeaveFirstReview())
        else:
            self.dismiss(None)

    def on_unmount(self) -> None:
        # The review's own session appends nothing more: news of it is dropped.
        if self._own_session is not None:
            self._own_session.close()
