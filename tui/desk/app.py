"""The Textual desk: the start screen, one combat screen per ruleset in play, help and
log review. Game rules stay in the engine; the open save is the game session's
(tui.game.session), and the saves folder the game layer's (tui.game.folder): the desk never
touches the store. Screens ask the app for what it does by message (tui.desk.messages)."""

from __future__ import annotations

import asyncio
import os
import random
import sys
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from textual import on
from textual.app import SystemCommand
from textual.screen import Screen
from textual.widget import AwaitMount

from tui.desk.commands import RULESET_KEYS, START_COMMANDS
from tui.desk.compat import KeyHoldingApp, switchable
from tui.desk.launch import resume_collector
from tui.desk.messages import (
    CreateGame,
    LeaveFirstReview,
    OpenGame,
    RepairSave,
    ScreenDrawn,
    ShowRuleset,
    ShowStart,
)
from tui.desk.screens import screen_for
from tui.engine import registry
from tui.engine.tables import Tables, default_tables
from tui.game import folder
from tui.game.folder import GameSummary
from tui.game.messages import GameChanged
from tui.game.model import SaveError
from tui.game.player import player_name
from tui.game.session import GameSession, read_game, stand_in

if TYPE_CHECKING:
    from tui.desk.screens.ruleset import RulesetScreen
    from tui.desk.screens.start import StartScreen
    from tui.game.model import Game

# Seconds at most that keys typed while the desk starts are held for its first screen.
KEYS_HELD_AT_MOST = 2.0
# Set (to anything but empty), the desk ends itself the moment it is ready (`desk_ready`),
# as the bench counts its start: nothing runs differently before that moment.
EXIT_AT_READY = "CRTDESK_EXIT_AT_READY"

# Each screen's module is imported when the screen is first built: the start screen is drawn
# without the ruleset screens and the engine they call, and a game opened from the command
# line without the start screen.


def _start_screen() -> StartScreen:
    # Imported when first needed: the desk's start is budgeted (docs/performance.md).
    from tui.desk.screens.start import StartScreen

    return StartScreen()


def _is_a(screen: object, module: str, name: str) -> bool:
    """Whether `screen` is a `module.name` (none is, before the module is imported)."""
    home = sys.modules.get(module)
    return home is not None and isinstance(screen, getattr(home, name))


def _ruleset_screen(screen: object) -> TypeGuard[RulesetScreen]:
    return _is_a(screen, "tui.desk.screens.ruleset", "RulesetScreen")


def _start(screen: object) -> TypeGuard[StartScreen]:
    return _is_a(screen, "tui.desk.screens.start", "StartScreen")


DEFAULT_GAME_TITLE = "First game"


class CrtDeskApp(KeyHoldingApp[None]):
    CSS_PATH = "app.tcss"
    TITLE = "crtdesk"

    def __init__(
        self,
        saves_dir: Path | None = None,
        game_path: Path | None = None,
        rng: random.Random | None = None,
        player: str | None = None,
        tables: Tables | None = None,
        review: bool = False,
        game: Game | None = None,
        games_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.review_on_open = review  # `crtdesk review`: the game's log review first
        # What the player is told as the desk opens (a saves folder made, and where).
        self.told: list[str] = []
        # `game_path` already read (by `crtdesk open`): not read a second time.
        self._loaded = game
        self.saves_dir = saves_dir or folder.saves_folder()
        # A player's own charts: `games` beside the saves folder, or $CRTDESK_GAMES (worked
        # out when first asked for: `games_dir`).
        self._games_dir = games_dir
        self.game_path = game_path
        self.rng = rng or random.Random()
        self.player = player or player_name()
        # Read when first needed (a combat screen, the new-game dialog): the start screen
        # needs no chart.
        self._tables = tables
        # The open save: its game, its watcher and the one way to append to it.
        self.session: GameSession | None = None
        self._opening: AwaitMount | None = None  # the screen of a save being read
        self._screen_names: list[str] = []
        # Set each time entries are applied to the open game (what a test awaits).
        self.live_applied = asyncio.Event()
        # Keys typed before the first frame are held (KeyHoldingApp), then given to the
        # first screen once it is drawn (`on_ready`).
        # The save opened from the saves list, read once its screen is drawn.
        self._unread: GameSession | None = None
        # `crtdesk review NAME` read its game behind the review, and could not.
        self._game_failed = False
        # Whether the first screen is ready (`desk_ready`).
        self.ready = False

    @property
    def game(self) -> Game | None:
        """The open game (while it is read from the saves list, what that knows of it)."""
        return self.session.game if self.session is not None else None

    @property
    def games_dir(self) -> Path:
        """The folder of the player's own charts: the one given, else `games` beside the
        saves folder, or $CRTDESK_GAMES (worked out once, when first asked for: a combat
        screen opens without the charts' folder module)."""
        if self._games_dir is None:
            self._games_dir = _games_beside(self.saves_dir)
        return self._games_dir

    @property
    def tables(self) -> Tables:
        if self._tables is None:
            self._tables = default_tables()
        return self._tables

    @tables.setter
    def tables(self, tables: Tables) -> None:
        self._tables = tables

    def get_default_screen(self) -> Screen[Any]:
        """The first screen, at the bottom of the stack: a game opened from the command line
        on its first ruleset's screen, else the start screen. Either is drawn once, not over
        a blank screen and then again (that doubles the work of the first frame). The start
        screen of an opened game is built when asked for (Esc)."""
        if self.game_path is not None and self.review_on_open:
            # `crtdesk review NAME`: the review at once, reading the log itself; the game
            # (its ruleset screens, the markers, the live watch) is read behind it, by the
            # session the review shows it from (read once the desk is mounted).
            from tui.desk.screens.review import ReviewScreen

            self._open_session(GameSession(self, self.game_path, player=self.player))
            return switchable(ReviewScreen(self.game_path))
        if self.game_path is not None:
            first = self._take_game(self.game_path, self._loaded)
            self._loaded = None
            if first is not None:
                return switchable(self.get_screen(first))
        return _start_screen()

    async def on_ready(self) -> None:
        """The first frame is drawn, with the first screen's fields mounted and focused:
        the keys typed while the desk was starting reach them now, in order, ahead of any
        typed later."""
        resume_collector()
        await self.release_keys()
        if not _ruleset_screen(self.screen):
            # The start screen, the review: ready at their first frame. A ruleset screen is
            # ready once what follows its first frame is drawn too (`screen_drawn`).
            self.desk_ready()

    def desk_ready(self) -> None:
        """The desk's first screen is ready to use: drawn, and a ruleset screen's form with
        the engine its first combat reads imported and, where the game has a last roll
        there, its panel mounted and drawn (`CombatScreen.prepare`). Once; with
        $CRTDESK_EXIT_AT_READY set, the desk ends here (how the bench counts a start to
        ready)."""
        if self.ready:
            return
        self.ready = True
        if os.environ.get(EXIT_AT_READY):
            os._exit(0)

    def on_mount(self) -> None:
        # Textual reports the first frame (`on_ready`); should it never, the keys held
        # are given to whatever has the focus after this long rather than kept.
        self.set_timer(KEYS_HELD_AT_MOST, self.release_keys)
        for text in self.told:  # a saves folder made for this desk, and where
            self.notify(text, title="Saves folder", markup=False, timeout=15)
        if self.game_path is not None and self.review_on_open and self.session is not None:
            # `crtdesk review NAME`: the game (its ruleset screens, the markers, the live
            # watch) is read behind the review, off the UI thread.
            self.session.read(self._install_screens, self._game_unread)
        elif self.game_path is None and not folder.has_games(self.saves_dir):
            # A first-time user gets a ready game with every ruleset in play.
            self.create_game(DEFAULT_GAME_TITLE, list(registry.BUILT_IN_IDS), {})

    # ------------------------------------------------------------------ asked by screens
    @on(OpenGame)
    def _open_asked(self, message: OpenGame) -> None:
        self.open_game(message.summary)

    @on(CreateGame)
    def _create_asked(self, message: CreateGame) -> None:
        asked = message.request
        self.create_game(asked.title, asked.rulesets, asked.options, asked.charts)

    @on(RepairSave)
    def _repair_asked(self, message: RepairSave) -> None:
        # Through the open game's session when it is that save: in turn with its appends.
        session = self.session_of(message.path)
        if session is None:
            session = GameSession(self, message.path, player=self.player)
        session.repair(accept=message.accept)

    @on(ShowRuleset)
    def _ruleset_asked(self, message: ShowRuleset) -> None:
        self.show_ruleset(message.ruleset)

    @on(ShowStart)
    def _start_asked(self) -> None:
        self.show_start()

    @on(LeaveFirstReview)
    def _leave_review_asked(self) -> None:
        self.leave_first_review()

    @on(ScreenDrawn)
    def _screen_drawn(self) -> None:
        self.screen_drawn()

    # ------------------------------------------------------------------ games
    def _game_unread(self, message: str) -> None:
        """The game behind a first review cannot be read (the session said why)."""
        self._game_failed = True
        self._close_session()

    def leave_first_review(self) -> None:
        """Esc on a review that is the desk's first screen (`crtdesk review NAME`): the
        game's first ruleset screen once it is read, the saves list if it cannot be."""
        if self.game is not None and self._screen_names:
            self.switch_screen(self._screen_names[0])
        elif self._game_failed:
            self.switch_screen(_start_screen())
        else:
            self.notify("Still reading the game; a moment.", markup=False)

    def create_game(
        self,
        title: str,
        rulesets: list[str],
        options: dict[str, Any],
        charts: dict[str, str] | None = None,
    ) -> None:
        """Start a save of these rulesets (`charts`: a copy of each player's chart in play)
        and open it."""
        try:
            summary = folder.new_game(self.saves_dir, title, rulesets, options, charts)
        except SaveError as err:
            self.notify(str(err), severity="error", markup=False)
            return
        self.notify(f"New game {title!r} saved as {summary.path.name}.", markup=False)
        self.open_game(summary, options)

    def open_game(self, summary: GameSummary, options: dict[str, Any] | None = None) -> None:
        """Open the save the saves list shows as `summary` on its first ruleset's screen, at
        once: the screen shows what the list knows (title, rulesets, turn) while the save is
        read in a worker, and the rest (markers, entries, options) once it is read."""
        shown = stand_in(summary, options)
        session = GameSession(self, summary.path, shown, player=self.player, loaded=False)
        self._open_session(session)
        # Kept until the read ends: a save that cannot be read goes back to the list once
        # its screen is mounted.
        self._opening = self.push_screen(self._install_screens(session))
        # Read once the screen has drawn its first frame (`screen_drawn`): the reading
        # worker would share the interpreter with the screen's first build and hold it back.
        self._unread = session

    def screen_drawn(self) -> None:
        """A screen drew its first frame: the save opened from the list is read now."""
        if _ruleset_screen(self.screen):
            self.desk_ready()
        session, self._unread = self._unread, None
        if session is not None and not session.closed:
            session.read(lambda _: self._opened(), self._open_failed)

    def _opened(self) -> None:
        self._opening = None

    def _open_failed(self, message: str) -> None:
        """The save opened from the saves list cannot be read (the session said why, and
        is closed): back to the list, once the screen shown for it is mounted and has drawn
        its first frame. The closed session stays until another save is opened: a screen
        let go still reads the game it was shown as."""
        shown = self.screen

        def back() -> None:
            while len(self.screen_stack) > 1 and not _start(self.screen):
                self.pop_screen()
            self._forget_screens()

        if self._opening is not None:
            opening, self._opening = self._opening, None

            async def when_mounted() -> None:
                await opening
                shown.call_after_refresh(back)

            self.run_worker(when_mounted(), group="game-read", exit_on_error=False)
        else:
            back()

    def _take_game(self, path: Path, game: Game | None = None) -> str | None:
        """Make the save at `path`, opened from the command line, the open game (read
        here, before the first frame, unless `game` is given): watch it and install its
        ruleset screens. The name of its first screen, or None when it cannot be read (the
        desk says why)."""
        if game is None:
            try:
                game = read_game(path, pauses=False)
            except SaveError as err:
                self.notify(str(err), severity="error", markup=False, timeout=10)
                return None
        session = GameSession(self, path, player=self.player, loaded=False)
        self._open_session(session)
        session.take_read(game)
        return self._install_screens(session)

    def _open_session(self, session: GameSession) -> None:
        self._close_session()
        self.session = session

    def _close_session(self) -> None:
        if self.session is not None:
            self.session.close()
        self.session = None

    def session_of(self, path: Path) -> GameSession | None:
        """The open game's session when it is the save at `path` (None for another save,
        or none open)."""
        if self.session is not None and not self.session.closed and self.session.path == Path(path):
            return self.session
        return None

    def _install_screens(self, session: GameSession) -> str:
        """Install the ruleset screens of the session's game; the name of the first."""
        assert session.game is not None
        self._forget_screens()
        for ruleset in session.game.rulesets:
            name = f"ruleset:{ruleset}"
            # Built (and its module imported) when first shown: a screen not shown costs
            # nothing at start.
            self.install_screen(partial(screen_for, ruleset), name=name)  # type: ignore[arg-type]
            self._screen_names.append(name)
        return self._screen_names[0]

    def _forget_screens(self) -> None:
        for name in self._screen_names:
            self.uninstall_screen(name)
        self._screen_names = []

    def show_ruleset(self, ruleset: str) -> None:
        name = f"ruleset:{ruleset}"
        if _ruleset_screen(self.screen):
            if self.screen.ruleset != ruleset:
                self.switch_screen(name)
        else:
            self.push_screen(name)

    def show_start(self) -> None:
        if _ruleset_screen(self.screen):
            if any(_start(screen) for screen in self.screen_stack):
                self.pop_screen()
            else:  # the game was opened from the command line: the start screen is new
                self.switch_screen(_start_screen())

    # ------------------------------------------------------------------ the game
    @on(GameChanged)
    def game_changed(self) -> None:
        self.live_applied.set()

    def on_unmount(self) -> None:
        # Closed, not dropped: what the desk had open is still there to read after it ends.
        if self.session is not None:
            self.session.close()

    # ------------------------------------------------------------------ palette
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        commands = (
            screen.DESK_COMMANDS
            if _ruleset_screen(screen)
            else START_COMMANDS
            if _start(screen)
            else getattr(screen, "DESK_COMMANDS", ())
        )
        for command in commands:
            yield SystemCommand(
                f"{command.label} ({command.key})",
                command.help,
                partial(screen.run_action, command.action),
            )
        if _ruleset_screen(screen) and self.game is not None:
            for key, ruleset in zip(RULESET_KEYS, self.game.rulesets, strict=False):
                if ruleset != screen.ruleset:
                    yield SystemCommand(
                        f"Switch to {registry.short_name(ruleset)} ({key})",
                        f"The {registry.title_of(ruleset, self.tables)} screen",
                        partial(self.show_ruleset, ruleset),
                    )


def _games_beside(saves_dir: Path) -> Path:
    # Imported when first needed: the desk's start is budgeted (docs/performance.md).
    from tui.engine.rulesets.charts.folder import games_folder

    return games_folder(None, str(saves_dir))


def run_desk(
    file: str | None,
    saves_dir: str | None,
    review: bool = False,
    games_dir: str | None = None,
    create: bool = False,
) -> int:
    """Open the desk on the saves folder, or directly on one save file (on its log review
    with `review`). A folder named by --saves or $CRTDESK_SAVES must exist unless `create`;
    a folder made is said in the desk, with where."""
    told: list[str] = []
    saves_at = folder.saves_folder(saves_dir, make=create, said=told.append)
    game_path = None
    if file:
        # The save commands' own check: a path that is not a crtdesk save is refused in one
        # line before any lock file is made beside it.
        from tui.cli.save_names import save_file

        game_path = save_file(file, saves_dir)
    # A broken file is reported here, in one line; the desk opens the game as read. A review
    # reads the log itself and shows it at once: the game is read behind it.
    game = None
    if game_path is not None:
        folder.require_save(game_path)
        if not review:
            # Entry by entry, only the last entries kept: a long campaign is never held whole.
            game = read_game(game_path, pauses=False)
    games = Path(games_dir).expanduser() if games_dir else None
    app = CrtDeskApp(
        saves_dir=saves_at, game_path=game_path, review=review, game=game, games_dir=games
    )
    app.told = [text[:1].upper() + text[1:] + "." for text in told]
    app.run()
    return 0
