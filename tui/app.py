"""The Textual desk: the start screen, one combat screen per ruleset in play, help and
log review. Game rules stay in the engine; saving goes through tui.saves."""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, SystemCommand
from textual.screen import Screen

from tui import saves
from tui.commands import RULESET_KEYS, SHORT_NAMES, START_COMMANDS
from tui.css_cache import KeptStylesheet, kept_file
from tui.engine.tables import RULESET_IDS, Tables, default_tables
from tui.live import SaveWatcher, last_seq
from tui.messages import GameChanged
from tui.player import player_name
from tui.screens import screen_for
from tui.startup import keep_code, resume_collector

if TYPE_CHECKING:
    from tui.screens.start import StartScreen

# Seconds at most that keys typed while the desk starts are held for its first screen.
KEYS_HELD_AT_MOST = 2.0

# Each screen's module is imported when the screen is first built: the start screen is drawn
# without the ruleset screens and the engine they call, and a game opened from the command
# line without the start screen.


def _start_screen() -> StartScreen:
    from tui.screens.start import StartScreen

    return StartScreen()


def _is_a(screen: object, module: str, name: str) -> bool:
    """Whether `screen` is a `module.name` (none is, before the module is imported)."""
    home = sys.modules.get(module)
    return home is not None and isinstance(screen, getattr(home, name))


def _ruleset_screen(screen: object) -> bool:
    return _is_a(screen, "tui.screens.ruleset", "RulesetScreen")


def _start(screen: object) -> bool:
    return _is_a(screen, "tui.screens.start", "StartScreen")


DEFAULT_GAME_TITLE = "First game"


class CrtDeskApp(App[None]):
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
        game: saves.Game | None = None,
    ) -> None:
        super().__init__()
        # Textual's stylesheet, its parsed CSS kept for the next start (tui.css_cache).
        self.kept_css = KeptStylesheet(variables=self.get_css_variables(), path=kept_file())
        self.stylesheet = self.kept_css
        self.review_on_open = review  # `crtdesk review`: the game's log review first
        # `game_path` already read (by `crtdesk open`): not read a second time.
        self._loaded = game
        self.saves_dir = saves_dir or saves.saves_folder()
        self.game_path = game_path
        self.rng = rng or random.Random()
        self.player = player or player_name()
        # Read when first needed (a combat screen, the new-game dialog): the start screen
        # needs no chart.
        self._tables = tables
        self.game: saves.Game | None = None  # type: ignore[assignment]
        self._screen_names: list[str] = []
        # Entries other processes append to the open game come in through the watcher;
        # `live_applied` is set each time some are applied (what a test awaits).
        self._watcher: SaveWatcher | None = None
        self._watched = 0  # which open game the watcher's news is for
        self.live_applied = asyncio.Event()
        # Keys typed before the first frame (a player who types the factors as soon as the
        # command is entered): held, then given to the first screen once it is drawn. A
        # screen still composing has no field focused, and Textual dropped them.
        self._held_keys: list[events.Key] | None = []
        # `crtdesk review NAME` read its game behind the review, and could not.
        self._game_failed = False

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
            # (its ruleset screens, the markers, the live watch) is read behind it.
            from tui.screens.review import ReviewScreen

            return _switchable(ReviewScreen(self.game_path))
        if self.game_path is not None:
            first = self._take_game(self.game_path, self._loaded)
            self._loaded = None
            if first is not None:
                return _switchable(self.get_screen(first))
        return _start_screen()

    async def on_event(self, event: events.Event) -> None:
        if self._held_keys is not None and isinstance(event, events.Key):
            if not event.is_forwarded:
                # Typed before the first screen's fields were there to take it.
                self._held_keys.append(events.Key(event.key, event.character))
                return
        await super().on_event(event)

    async def on_ready(self) -> None:
        """The first frame is drawn, with the first screen's fields mounted and focused:
        the keys typed while the desk was starting reach them now, in order, ahead of any
        typed later."""
        resume_collector()
        await self._release_keys()
        self.kept_css.keep()
        keep_code()

    async def _release_keys(self) -> None:
        held, self._held_keys = self._held_keys, None
        for key in held or ():
            await self.on_event(key)

    def on_mount(self) -> None:
        # Textual reports the first frame (`on_ready`); should it never, the keys held
        # are given to whatever has the focus after this long rather than kept.
        self.set_timer(KEYS_HELD_AT_MOST, self._release_keys)
        if self.game_path is not None and self.review_on_open:
            self.run_worker(self._read_game_behind, thread=True, exit_on_error=False)
        elif self.game_path is None and not saves.has_games(self.saves_dir):
            # A first-time user gets a ready game with every ruleset in play.
            self.create_game(DEFAULT_GAME_TITLE, list(RULESET_IDS), {})

    # ------------------------------------------------------------------ games
    def _read_game_behind(self) -> None:
        """The game a review opened from the command line is of, read off the UI thread
        (a long campaign takes about a second)."""
        assert self.game_path is not None
        try:
            game = saves.load_game(self.game_path)
        except saves.SaveError as err:
            self.call_from_thread(self._game_unread, str(err))
            return
        self.call_from_thread(self._game_read, game)

    def _game_read(self, game: saves.Game) -> None:
        if self.game is None and self.game_path is not None:
            self._take_game(self.game_path, game)

    def _game_unread(self, message: str) -> None:
        self._game_failed = True
        self.notify(message, severity="error", markup=False, timeout=10)

    def leave_first_review(self) -> None:
        """Esc on a review that is the desk's first screen (`crtdesk review NAME`): the
        game's first ruleset screen once it is read, the saves list if it cannot be."""
        if self.game is not None:
            self.switch_screen(f"ruleset:{self.game.rulesets[0]}")
        elif self._game_failed:
            self.switch_screen(_start_screen())
        else:
            self.notify("Still reading the game; a moment.", markup=False)

    def create_game(self, title: str, rulesets: list[str], options: dict[str, Any]) -> None:
        base = "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-") or "game"
        name, n = base, 1
        while (self.saves_dir / f"{name}.toml").exists():
            n += 1
            name = f"{base}-{n}"
        try:
            path = saves.save_path(name, self.saves_dir)
            saves.new_game(path, title, rulesets, options)
        except saves.SaveError as err:
            self.notify(str(err), severity="error", markup=False)
            return
        self.notify(f"New game {title!r} saved as {path.name}.", markup=False)
        self.open_game(path)

    def open_game(self, path: Path, game: saves.Game | None = None) -> None:
        """Open the save at `path` on its first ruleset's screen (`game`: already read)."""
        first = self._take_game(path, game)
        if first is not None:
            self.push_screen(first)

    def _take_game(self, path: Path, game: saves.Game | None = None) -> str | None:
        """Make the save at `path` the open game (read unless `game` is given): watch it and
        install its ruleset screens. The name of its first screen, or None when it cannot be
        read (the desk says why)."""
        if game is None:
            try:
                game = saves.load_game(path)
            except saves.SaveError as err:
                self.notify(str(err), severity="error", markup=False, timeout=10)
                return None
        for warning in game.warnings:
            # A torn last entry set aside (the bytes kept, and where), as the CLI says it.
            self.notify(warning, severity="warning", markup=False, timeout=15)
        self._forget_screens()
        self.game = game
        self._watch(game)
        for ruleset in game.rulesets:
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

    # ------------------------------------------------------------------ saving
    def follows(self, entry: dict[str, Any]) -> bool:
        """True when `entry` is the next one after the open game's last entry: applying it
        alone brings the game up to date."""
        game = self.game
        last = game.entries[-1]["seq"] if game is not None and game.entries else 0
        return entry.get("seq") == last + 1

    def applied(self, entry: dict[str, Any], fresh: saves.Game | None = None) -> None:
        """An entry this desk appended: apply it to the open game (or take the game
        re-read off the UI thread when other entries came in between)."""
        if self.game is None:
            return
        if fresh is not None:
            if last_seq(fresh) >= last_seq(self.game):  # else the watcher brought newer
                self.game = fresh
        elif self.follows(entry):
            saves.apply_entry(self.game, entry)

    def set_game_option(self, key: str, value: object) -> None:
        assert self.game is not None
        try:
            notices: list[str] = []
            entry = saves.set_option(self.game.path, key, value, who=self.player, notices=notices)
        except saves.SaveError as err:
            self.notify(f"Not saved: {err}", severity="error", markup=False, timeout=10)
            return
        for notice in notices:
            self.notify(notice, severity="warning", markup=False, timeout=15)
        fresh = None if self.follows(entry) else saves.load_game(self.game.path)
        self.applied(entry, fresh)
        self.notify(f"Game option {key} set to {value} (logged).", markup=False)

    # ------------------------------------------------------------------ live
    def _watch(self, game: saves.Game) -> None:
        """Watch the open game's file for entries other processes append."""
        if self._watcher is not None:
            self._watcher.stop()
        self._watched += 1
        watched = self._watched
        self._watcher = SaveWatcher(
            game,
            on_entries=partial(self._from_watcher, watched, self.took_entries),
            on_reload=partial(self._from_watcher, watched, self.took_game),
            on_error=partial(self._from_watcher, watched, self.watch_failed),
        )
        self._watcher.start()

    def _from_watcher(self, watched: int, handle: Callable[[Any], None], value: Any) -> None:
        """Run `handle(value)` on the UI thread, unless another game was opened since."""

        def run() -> None:
            if watched == self._watched:
                handle(value)

        try:
            self.call_from_thread(run)
        except RuntimeError:
            pass  # the desk is closing

    def took_entries(self, entries: list[dict[str, Any]]) -> None:
        """Entries read from the file: apply those this desk has not (its own are applied
        when it appends them), then tell the screens."""
        if self.game is None:
            return
        last = last_seq(self.game)
        new = [entry for entry in entries if entry["seq"] > last]
        for entry in new:
            saves.apply_entry(self.game, entry)
        if new:
            self._announce(new)

    def took_game(self, fresh: saves.Game) -> None:
        """The file was read whole again (it changed before where it was last read)."""
        if self.game is None:
            return
        last = last_seq(self.game)
        self.game = fresh
        self._announce([entry for entry in fresh.entries if entry["seq"] > last])

    def watch_failed(self, text: str) -> None:
        self.notify(f"The save cannot be read: {text}", severity="error", markup=False)

    def _announce(self, entries: list[dict[str, Any]]) -> None:
        assert self.game is not None
        for screen in self.screen_stack:
            screen.post_message(GameChanged(self.game.path, entries))
        self.live_applied.set()

    def on_unmount(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()

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
                        f"Switch to {SHORT_NAMES[ruleset]} ({key})",
                        f"The {self.tables.title(ruleset)} screen",
                        partial(self.show_ruleset, ruleset),
                    )


def _switchable(screen: Screen[Any]) -> Screen[Any]:
    """A first screen the desk can switch away from: a switch drops the current screen's
    result callback, and Textual gives one to every screen it switches to, but not to the
    first screen."""
    screen._push_result_callback(screen, None)
    return screen


def run_desk(file: str | None, saves_dir: str | None, review: bool = False) -> int:
    """Open the desk on the saves folder, or directly on one save file (on its log review
    with `review`)."""
    folder = saves.saves_folder(saves_dir)
    game_path = None
    if file:
        # The save commands' own check: a path that is not a crtdesk save is refused in one
        # line before any lock file is made beside it.
        from tui.cli_saves import save_file

        game_path = save_file(file, saves_dir)
    # A broken file is reported here, in one line; the desk opens the game as read. A review
    # reads the log itself and shows it at once: the game is read behind it.
    game = None
    if game_path is not None:
        if review:
            saves.require_save(game_path)
        else:
            game = saves.load_game(game_path)
    app = CrtDeskApp(saves_dir=folder, game_path=game_path, review=review, game=game)
    app.run()
    # What was first parsed or compiled since the first frame (dialogs, other screens).
    app.kept_css.keep()
    keep_code()
    return 0
