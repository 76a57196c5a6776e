"""The Textual desk: the start screen, one combat screen per ruleset in play, help and
log review. Game rules stay in the engine; saving goes through tui.saves."""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

from tui import saves
from tui.commands import START_COMMANDS
from tui.engine import Tables, default_tables
from tui.engine.tables import RULESET_IDS
from tui.player import player_name
from tui.screens import screen_for
from tui.screens.ruleset import RULESET_KEYS, SHORT_NAMES, RulesetScreen
from tui.screens.start import StartScreen

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
        game: saves.Game | None = None,
    ) -> None:
        super().__init__()
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

    @property
    def tables(self) -> Tables:
        if self._tables is None:
            self._tables = default_tables()
        return self._tables

    @tables.setter
    def tables(self, tables: Tables) -> None:
        self._tables = tables

    def on_mount(self) -> None:
        if self.game_path is not None:
            # The start screen is built when it is asked for (Esc): a game opened from the
            # command line pays for its first form only.
            self.open_game(self.game_path, self._loaded)
            self._loaded = None
            if self.game is not None:
                return
        self.push_screen(StartScreen())
        if self.game_path is None and not saves.list_games(self.saves_dir):
            # A first-time user gets a ready game with every ruleset in play.
            self.create_game(DEFAULT_GAME_TITLE, list(RULESET_IDS), {})

    # ------------------------------------------------------------------ games
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
        if game is None:
            try:
                game = saves.load_game(path)
            except saves.SaveError as err:
                self.notify(str(err), severity="error", markup=False, timeout=10)
                return
        for warning in game.warnings:
            # A torn last entry set aside (the bytes kept, and where), as the CLI says it.
            self.notify(warning, severity="warning", markup=False, timeout=15)
        self._forget_screens()
        self.game = game
        for ruleset in game.rulesets:
            name = f"ruleset:{ruleset}"
            # Built (and its module imported) when first shown: a screen not shown costs
            # nothing at start.
            self.install_screen(partial(screen_for, ruleset), name=name)  # type: ignore[arg-type]
            self._screen_names.append(name)
        self.push_screen(self._screen_names[0])

    def _forget_screens(self) -> None:
        for name in self._screen_names:
            self.uninstall_screen(name)
        self._screen_names = []

    def show_ruleset(self, ruleset: str) -> None:
        name = f"ruleset:{ruleset}"
        if isinstance(self.screen, RulesetScreen):
            if self.screen.ruleset != ruleset:
                self.switch_screen(name)
        else:
            self.push_screen(name)

    def show_start(self) -> None:
        if isinstance(self.screen, RulesetScreen):
            if any(isinstance(screen, StartScreen) for screen in self.screen_stack):
                self.pop_screen()
            else:  # the game was opened from the command line: the start screen is new
                self.switch_screen(StartScreen())

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
            self.game = fresh
        elif self.follows(entry):
            saves.apply_entry(self.game, entry)

    def set_game_option(self, key: str, value: object) -> None:
        assert self.game is not None
        try:
            entry = saves.set_option(self.game.path, key, value, who=self.player)
        except saves.SaveError as err:
            self.notify(f"Not saved: {err}", severity="error", markup=False, timeout=10)
            return
        fresh = None if self.follows(entry) else saves.load_game(self.game.path)
        self.applied(entry, fresh)
        self.notify(f"Game option {key} set to {value} (logged).", markup=False)

    # ------------------------------------------------------------------ palette
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        commands = (
            screen.DESK_COMMANDS
            if isinstance(screen, RulesetScreen)
            else START_COMMANDS
            if isinstance(screen, StartScreen)
            else ()
        )
        for command in commands:
            yield SystemCommand(
                f"{command.label} ({command.key})",
                command.help,
                partial(screen.run_action, command.action),
            )
        if isinstance(screen, RulesetScreen) and self.game is not None:
            for key, ruleset in zip(RULESET_KEYS, self.game.rulesets, strict=False):
                if ruleset != screen.ruleset:
                    yield SystemCommand(
                        f"Switch to {SHORT_NAMES[ruleset]} ({key})",
                        f"The {self.tables.title(ruleset)} screen",
                        partial(self.show_ruleset, ruleset),
                    )


def run_desk(file: str | None, saves_dir: str | None) -> int:
    """Open the desk on the saves folder, or directly on one save file."""
    folder = saves.saves_folder(saves_dir)
    game_path = None
    if file:
        given = Path(file)
        game_path = given if given.exists() else saves.save_path(file, folder)
        if not game_path.exists():
            raise saves.SaveError(f"{file}: no such save file (looked in {folder}/)")
    # A broken file is reported here, in one line; the desk opens the game as read.
    game = saves.load_game(game_path) if game_path is not None else None
    CrtDeskApp(saves_dir=folder, game_path=game_path, game=game).run()
    return 0
