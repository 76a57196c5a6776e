"""What every ruleset screen shares: the header with the turn, the ruleset strip, the keys
(each screen lists only its own), help and the log."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from tui.commands import RULESET_COMMANDS, Command
from tui.messages import GameChanged
from tui.text import entry_text, one_line

if TYPE_CHECKING:
    from tui.app import CrtDeskApp

RULESET_KEYS = ("f2", "f3", "f4", "f5", "f6", "f7", "f8")
SHORT_NAMES = {
    "pod-basic": "Basic",
    "pod-super": "Super",
    "pod-ultra": "Ultra",
    "pod-boom": "Boom",
    "ocs": "OCS",
    "rivets": "Rivets",
    "daynight": "Day/Night",
}


class RulesetScreen(Screen[None]):
    """The frame of a ruleset screen: header, ruleset strip, keys, help and log."""

    # Every command this screen has, in Footer order: its key, help line and palette entry.
    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = RULESET_COMMANDS

    BINDINGS = (
        [c.binding() for c in RULESET_COMMANDS]
        + [
            Binding(key, f"switch_ruleset({n})", f"Ruleset {n + 1}", show=False)
            for n, key in enumerate(RULESET_KEYS)
        ]
        # Focus moves are priority bindings: the app moves focus before it hands on the
        # next keystroke, so "8 Tab 2" typed fast puts the 2 in the next field.
        + [
            Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
            Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
        ]
    )

    def __init__(self, ruleset: str) -> None:
        super().__init__(name=ruleset, classes=f"ruleset-screen {ruleset}")
        self.ruleset = ruleset

    @property
    def desk(self) -> CrtDeskApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.strip_text(), markup=False, classes="ruleset-strip")
        yield from self.compose_body()
        yield Footer(compact=True, show_command_palette=False)

    def compose_body(self) -> ComposeResult:
        yield from ()

    def strip_text(self) -> str:
        parts = []
        for key, ruleset in zip(RULESET_KEYS, self.desk.game.rulesets, strict=False):
            name = SHORT_NAMES[ruleset]
            parts.append(f"[{name}]" if ruleset == self.ruleset else f"{key.upper()} {name}")
        return " ".join(parts)

    def on_mount(self) -> None:
        self.refresh_header()

    def on_screen_resume(self) -> None:
        self.refresh_header()

    @on(GameChanged)
    def game_changed(self, message: GameChanged) -> None:
        """Another player's entries: the header's turn, and a line for each (the last few)."""
        self.refresh_header()
        if self.is_current:
            for entry in message.entries[-3:]:
                what, text = entry_text(entry)
                who = one_line(entry["who"])
                self.notify(f"{who} logged entry {entry['seq']} ({what}): {text}", markup=False)

    def refresh_header(self) -> None:
        game = self.desk.game
        self.title = game.title
        self.sub_title = (
            f"Turn {game.turn} · {self.desk.player} · {self.desk.tables.title(self.ruleset)}"
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_ruleset":
            return parameters[0] < len(self.desk.game.rulesets)  # type: ignore[operator]
        return True

    def action_switch_ruleset(self, index: int) -> None:
        self.desk.show_ruleset(self.desk.game.rulesets[index])

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.ruleset, self.DESK_COMMANDS))

    def action_log(self) -> None:
        from tui.screens.log import LogScreen

        self.app.push_screen(LogScreen(self.desk.game.path))

    def action_back(self) -> None:
        self.desk.show_start()


class ChartScreen(RulesetScreen):
    """A ruleset whose combat form is still to come: its chart, and how to resolve it."""

    def compose_body(self) -> ComposeResult:
        from tui.text import table_text

        with VerticalScroll(classes="chart-body"):
            yield Static(
                f"The {self.desk.tables.title(self.ruleset)} form is not on the desk yet. "
                f"Resolve its combats with `crtdesk resolve {self.ruleset} ...` "
                f"(see `crtdesk resolve --help`). Its chart:",
                markup=False,
                classes="notice",
            )
            yield Static(table_text(self.ruleset, self.desk.tables), markup=False, classes="chart")
