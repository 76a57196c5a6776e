"""What every ruleset screen shares: the header with the turn, the ruleset strip, the keys
(each screen lists only its own), help and the log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec.structs import replace
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from tui.desk.commands import RULESET_COMMANDS, RULESET_KEYS, Command
from tui.desk.messages import ShowRuleset, ShowStart
from tui.desk.screens.base import DeskScreen
from tui.desk.widgets.keys import KeyBar
from tui.desk.widgets.markers import MarkerPanel
from tui.desk.widgets.title import TitleBar
from tui.engine import registry
from tui.engine.ruleset import FORM_SCREEN
from tui.engine.text import entry_text, marker_text, one_line
from tui.game.messages import GameChanged, GameRead
from tui.game.session import SAVE_WAITS_FOR_FRAME, GameSession, SaveState

if TYPE_CHECKING:
    from tui.desk.screens.markers import MarkerRequest
    from tui.game.model import Game, Marker

# Where the combat screens and the tests have long found them.
__all__ = ["SAVE_WAITS_FOR_FRAME", "RulesetScreen", "SaveState"]


class RulesetScreen(DeskScreen):
    """The frame of a ruleset screen: header, ruleset strip, keys, help and log."""

    # Every command this screen has, in Footer order: its key, help line and palette entry.
    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = RULESET_COMMANDS
    # The marker kinds this screen's game uses (None: every kind), and the marker keys.
    MARKER_KEYS: ClassVar[str] = "^s next turn · ^\\ markers"
    # The smallest terminal that shows the form, the last roll and the chances together:
    # below it, the screen says so in place of its body (the class "-too-small", app.tcss).
    LEAST_SIZE: ClassVar[tuple[int, int]] = (80, 24)

    BINDINGS: ClassVar[list[BindingType]] = [
        *(c.binding() for c in RULESET_COMMANDS),
        *(
            Binding(key, f"switch_ruleset({n})", f"Ruleset {n + 1}", show=False)
            for n, key in enumerate(RULESET_KEYS)
        ),
        # Focus moves are priority bindings: the app moves focus before it hands on the
        # next keystroke, so "8 Tab 2" typed fast puts the 2 in the next field.
        Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
    ]

    def __init__(self, ruleset: str) -> None:
        # A ruleset without a screen of its own (a player's chart) is styled as one class:
        # its id may hold what no class name may.
        style = ruleset if registry.get(ruleset).screen != FORM_SCREEN else "game-chart"
        super().__init__(name=ruleset, classes=f"ruleset-screen {style}")
        self.ruleset = ruleset
        # The turn and markers the marker panel shows (copies: the game's change in place).
        self._markers_shown: tuple[int, list[Any] | None] | None = None

    @property
    def session(self) -> GameSession:
        """The open game's session: the game this screen shows, and the way to append."""
        session = self.desk.session
        assert session is not None
        return session

    @property
    def game(self) -> Game:
        """The open game (while it is read from the saves list, what that knows of it)."""
        game = self.session.game
        assert game is not None
        return game

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(self.strip_text(), markup=False, classes="ruleset-strip")
        yield from self.compose_body()
        yield KeyBar()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_resize(self, event: events.Resize) -> None:
        """Below 80x24 the body would hide the chances: the screen says the size it needs.
        Its class changes only when the terminal is or was too small, so a screen started
        at 80x24 or more is not styled again for it."""
        width, height = event.size
        need_width, need_height = self.LEAST_SIZE
        too_small = width < need_width or height < need_height
        if too_small:
            text = (
                f"This desk needs a terminal of at least {need_width}x{need_height} to show "
                f"the form, the last roll and the chances together; this one is "
                f"{width}x{height}. Make the window larger (the game is as you left it)."
            )
            found = self.query("#size-needed")
            if found:
                found.first(Static).update(text)
            else:
                needed = Static(text, id="size-needed", markup=False)
                self.mount(needed, before=self.query_one(KeyBar))
        if too_small != self.has_class("-too-small"):
            self.set_class(too_small, "-too-small")
            if not too_small and self.focused is None:
                # The form was hidden, and its focus with it: keys go to its first field
                # again (they were dropped until Tab).
                self.call_after_refresh(self.focus_first_field)

    def focus_first_field(self) -> None:
        """Focus where the screen starts (its AUTO_FOCUS), when nothing has the focus."""
        if self.focused is None and self.AUTO_FOCUS:
            found = self.query(self.AUTO_FOCUS)
            for widget in found.results():
                if widget.focusable:
                    widget.focus()
                    return

    def strip_text(self) -> str:
        parts = []
        for key, ruleset in zip(RULESET_KEYS, self.game.rulesets, strict=False):
            name = registry.short_name(ruleset)
            parts.append(f"[{name}]" if ruleset == self.ruleset else f"{key.upper()} {name}")
        return " ".join(parts)

    def on_mount(self) -> None:
        self.refresh_header()

    def on_screen_resume(self) -> None:
        self.refresh_header()

    @on(GameRead)
    def game_read(self, message: GameRead) -> None:
        """The game read whole (it was opened from the saves list): its turn and markers."""
        self.game_was_read()

    def game_was_read(self) -> None:
        """What a screen shows of the game read whole (a ruleset's form adds its options)."""
        self.refresh_header()

    @on(GameChanged)
    def game_changed(self, message: GameChanged) -> None:
        """Entries appended: the header's turn, and a line for each other player's (the last
        few). This player's own entries are not announced: the file watcher may read one
        this desk has just written before the desk itself has taken it."""
        if message.path != self.session.path:
            return  # a review's note to another save
        self.refresh_header()
        self.entries_applied(message.entries)
        if self.is_current:
            others = [e for e in message.entries if e.get("who") != self.desk.player]
            for entry in others[-3:]:
                what, text = entry_text(entry)
                who = one_line(entry["who"])
                self.notify(f"{who} logged entry {entry['seq']} ({what}): {text}", markup=False)

    def entries_applied(self, entries: list[dict[str, Any]]) -> None:
        """What a screen shows of entries appended to its game, by any desk (a combat
        screen: the latest combat in its result box)."""

    def refresh_header(self) -> None:
        game = self.game
        self.title = game.title
        self.sub_title = (
            f"Turn {game.turn} · {self.desk.player} · "
            f"{registry.title_of(self.ruleset, self.desk.tables)}"
        ) + (" · READ-ONLY" if self.session.read_only else "")
        # Redrawn only when the turn or a marker changed: the panel's height follows its
        # lines, so a redraw lays the screen out (on every roll recorded, before).
        loaded = self.session.loaded
        shown = (game.turn, [replace(marker) for marker in game.markers] if loaded else None)
        if shown != self._markers_shown:
            self._markers_shown = shown
            for panel in self.query(MarkerPanel).results(MarkerPanel):
                if loaded:
                    panel.show(game.turn, self.shown_markers(game.markers), len(game.markers))
                else:
                    panel.show_reading(game.turn)

    def action_all_markers(self) -> None:
        """F10: every marker in play here, one a line, in place of the chances; again, the
        chances (a line of markers cut short showed no more than its first few)."""
        expanded = not self.has_class("-all-markers")
        self.set_class(expanded, "-all-markers")
        for panel in self.query(MarkerPanel).results(MarkerPanel):
            panel.show_all(expanded)

    def compose_markers(self) -> ComposeResult:
        """The marker panel: the turn and the markers in play that this screen's game uses."""
        yield MarkerPanel(self.MARKER_KEYS, classes="marker-panel")

    def shown_markers(self, markers: Sequence[Marker]) -> list[Marker]:
        """The markers this screen lists (every one where it names no kinds)."""
        kinds = registry.get(self.ruleset).markers
        return list(markers) if kinds is None else [m for m in markers if m.kind in kinds]

    # ------------------------------------------------------------------ saving
    def marker_change_said(
        self, said: str | Callable[[dict[str, Any]], str]
    ) -> Callable[[SaveState], None]:
        """What hears a turn or marker entry appended: the header and marker panel follow
        it, and the player is told `said` (or what it makes of the entry written)."""

        def done(state: SaveState) -> None:
            self.refresh_header()
            if state.status == "failed" or state.entry is None:
                self.notify(f"Not saved: {state.error}", severity="error", markup=False)
                return
            text = said if isinstance(said, str) else said(state.entry)
            self.notify(f"{text} (logged as entry {state.entry.get('seq')})", markup=False)

        return done

    # ------------------------------------------------------------------ turns and markers
    def action_next_turn(self) -> None:
        """Ask first: a new turn counts the markers down and closes the last combat to cards
        after its roll. The answer comes back to `start_next_turn` (no worker waits on the
        dialog)."""
        # Imported when first shown: a ruleset screen opens without it.
        from tui.desk.screens.dialogs import ChoiceScreen

        turn = self.game.turn
        question = (
            f"End turn {turn} and start turn {turn + 1}? Timed markers count down one, "
            "and those at 0 are lifted."
        )
        choices = [
            ("n", f"no, stay in turn {turn}", "no"),
            ("y", f"yes, start turn {turn + 1}", "yes"),
        ]
        self.app.push_screen(ChoiceScreen(question, choices), self.start_next_turn)

    def start_next_turn(self, answer: str | None = "yes") -> None:
        """Start the next turn (logged) when the player said yes."""
        if answer != "yes":
            return
        self.session.next_turn(
            done=self.marker_change_said(
                lambda entry: (
                    f"Turn {entry['turn']} begins"
                    + (f"; lifted {', '.join(entry['expired'])}" if entry.get("expired") else "")
                )
            )
        )

    @work(exclusive=True, group="markers")
    async def action_marker_by_hand(self) -> None:
        # The dialogs are imported when first asked for: the start of the desk pays nothing.
        from tui.desk.screens.dialogs import ChoiceScreen
        from tui.desk.screens.markers import MarkerPickScreen, PlaceMarkerScreen

        markers = self.game.markers
        choices = [("n", "nothing (or Esc)", ""), ("p", "place a marker", "place")]
        if markers:
            choices.append(("l", "lift a marker", "lift"))
        answer = await self.app.push_screen_wait(ChoiceScreen("A marker by hand:", choices))
        if answer == "lift":
            marker_id = await self.app.push_screen_wait(
                MarkerPickScreen("Lift which marker?", markers)
            )
            if marker_id is not None:
                marker = next(m for m in markers if m.id == marker_id)
                self.lift(marker_id, None, marker_text(marker))
        elif answer == "place":
            request = await self.app.push_screen_wait(PlaceMarkerScreen(self.marker_hex()))
            if request is not None:
                self.place(request)

    def marker_hex(self) -> str:
        """The hex a marker placed by hand is offered on (a screen's target field)."""
        return ""

    def lift(self, marker_id: str, note: str | None, shown: str) -> None:
        self.session.lift_marker(
            marker_id,
            note=note,
            done=self.marker_change_said(f"{note + ': ' if note else ''}lifted {shown}"),
        )

    def place(self, request: MarkerRequest) -> None:
        self.session.place_marker(
            request.kind,
            request.target,
            request.side,
            request.turns,
            done=self.marker_change_said(f"Placed {request.kind} on {request.target}"),
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_ruleset":
            index = parameters[0]
            return isinstance(index, int) and index < len(self.game.rulesets)
        return True

    def action_switch_ruleset(self, index: int) -> None:
        self.post_message(ShowRuleset(self.game.rulesets[index]))

    def action_help(self) -> None:
        # Imported when first shown: a ruleset screen opens without it.
        from tui.desk.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.ruleset, self.DESK_COMMANDS))

    def action_log(self) -> None:
        # Imported when first shown: a ruleset screen opens without it.
        from tui.desk.screens.review import ReviewScreen

        self.app.push_screen(ReviewScreen(self.session.path))

    def action_units(self) -> None:
        # Imported when first shown: a ruleset screen opens without it.
        from tui.desk.screens.units import UnitsScreen

        self.app.push_screen(UnitsScreen())

    def action_back(self) -> None:
        self.post_message(ShowStart())
