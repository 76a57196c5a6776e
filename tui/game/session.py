"""The open game: one session per open save owns the game read from it, the watcher that
brings other players' entries, and the one way this desk appends to it.

The session's typed methods are the only way a screen changes a save: log a combat, play a
card after a roll, note an entry, log an event, start the next turn, place or lift a
marker, set an option, repair the file. Each runs in a thread worker, one at a time in the
order asked (`_SAVE_LOCK`); the entry written is then applied to the game on the UI thread,
or, when another writer's entries came in between, the game is read again in the worker
and taken whole. Screens never change the game and never call the store: they read
`session.game` and hear of changes by message (`GameChanged`, `GameRead`, `SaveRepaired`),
each posted to every screen on the stack; `done`, where given, hears how the one append it
was given to went (the screen that asked shows it: its result box, its notice).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec.structs import replace
from textual.app import App
from textual.message import Message

from tui import saves
from tui.game.live import SaveWatcher, last_seq
from tui.game.messages import GameChanged, GameRead, SaveRepaired

if TYPE_CHECKING:
    from tui.engine.dice import DiceRoll
    from tui.engine.model import CombatInput, Outcome
    from tui.engine.units import RecordField

# One save at a time from this desk, in the order they were asked for (a game being read
# holds it too: an append asked meanwhile is applied to the game read).
_SAVE_LOCK = threading.Lock()
# The longest a save waits for the frame it was asked to follow (seconds).
SAVE_WAITS_FOR_FRAME = 0.1

# What the session calls to write one entry: it is given a list for the store's notices and
# returns the entry written. Made by the session's own methods only.
_Write = Callable[[list[str]], dict[str, Any]]

# The entries an open game keeps in memory: the last ones (what the desk shows and
# announces); its turn, markers and options come from every entry as it is read.
KEPT_ENTRIES = 100
# Entries read between two pauses that let the UI thread take the interpreter, and the
# pause (seconds): long enough for the UI thread to take it and answer a key.
ENTRIES_BETWEEN_PAUSES = 50
PAUSE = 0.001


def unwritable(path: Path) -> str | None:
    """Why nothing can be appended to the save at `path` (a file that cannot be opened for
    appending, or no lock file and a folder it cannot be made in), or None when it can.
    The file is opened and closed, never written: its size and time stay as they were."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
    except OSError as err:
        return f"{path.name} cannot be written ({err.strerror}): nothing can be logged to it"
    lock = path.with_name(path.name + ".lock")
    if not lock.exists() and not os.access(path.parent, os.W_OK | os.X_OK):
        return f"{path.name} is in a read-only folder: nothing can be logged to it"
    return None


def read_game(path: Path, *, pauses: bool = True) -> saves.Game:
    """The save at `path` as the desk keeps it open: the game after its last entry and its
    last `KEPT_ENTRIES` entries. The state and each entry's place are kept beside the save
    (`saves.kept_places`, worked out once, checked against the save); the entries shown
    are read again from their places. Where they are not kept, the save is read entry by
    entry (never the whole file or every entry at once), the UI thread let in every few
    hundred entries (unless `pauses` is False: no UI is running yet). A save the store
    refuses raises its SaveError."""

    def pause(count: int) -> None:
        if count % ENTRIES_BETWEEN_PAUSES == 0:
            time.sleep(PAUSE)  # the UI thread takes the interpreter meanwhile

    def fold(records: saves.KeptRecords) -> deque[tuple[int, int, int]]:
        # Each entry's number and place (offset -1: none), the last KEPT_ENTRIES kept.
        places: deque[tuple[int, int, int]] = deque(maxlen=KEPT_ENTRIES)
        for count, (seq, *_, offset, size, _) in enumerate(records.rows(), start=1):
            places.append((seq, offset, size))
            if pauses:
                pause(count)
        return places

    # The read makes many objects and no cycles: a collection it set off would walk the
    # desk's objects with the interpreter held, the UI thread waiting.
    with saves.no_gc():
        places, game = saves.kept_places_fold(path, fold, progress=pause if pauses else None)
        try:
            if all(offset >= 0 for _, offset, _ in places):
                entries = [
                    saves.read_entry(path, saves.Place(offset, size), seq)
                    for seq, offset, size in places
                ]
                return replace(game, entries=entries)
        except saves.StaleOffset:
            pass  # written over since: read as it is now
        return _read_entries(path, pauses)


def _read_entries(path: Path, pauses: bool) -> saves.Game:
    """The save read entry by entry, only the last `KEPT_ENTRIES` kept."""
    stream = saves.read_entries(path)
    kept: deque[dict[str, Any]] = deque(maxlen=KEPT_ENTRIES)
    for count, read in enumerate(stream, start=1):
        kept.append(read.entry)
        if pauses and count % ENTRIES_BETWEEN_PAUSES == 0:
            time.sleep(PAUSE)
    assert stream.game is not None
    return replace(stream.game, entries=list(kept))


class SaveState(msgspec.Struct, frozen=True):
    """Where the last roll stands in the save file: saving, saved (its entry) or failed."""

    status: str  # "none", "saving", "saved" or "failed"
    entry: dict[str, Any] | None = None
    error: str | None = None


# Hears how one append went (on the UI thread).
Done = Callable[[SaveState], None]


def stand_in(summary: saves.GameSummary, options: dict[str, Any] | None = None) -> saves.Game:
    """The game as the saves list knows it (title, rulesets, turn), shown while the whole
    save is read: its markers, entries and options (`options`, where known) come with the
    read."""
    return saves.Game(
        path=summary.path,
        title=summary.title,
        rulesets=list(summary.rulesets),
        options=dict(saves.DEFAULT_OPTIONS) | (options or {}),
        created="",
        format=saves.FORMAT_VERSION,
        turn=summary.turn,
        entries=[],
        markers=[],
    )


class GameSession:
    """The save at `path` as this desk has it open. `game` is the game read (None for a
    save that is only appended to, such as a review's of a save not open); while the save
    is being read (`loaded` False) it is a stand-in made from the saves list."""

    def __init__(
        self,
        app: App[Any],
        path: Path,
        game: saves.Game | None = None,
        *,
        player: str | None = None,
        loaded: bool = True,
    ) -> None:
        self.app = app
        self.path = Path(path)
        self.game = game
        self.player = player
        self.loaded = loaded and game is not None
        self.watcher: SaveWatcher | None = None
        self.closed = False
        # When the last whole read began (time.perf_counter), None before any.
        self.read_started: float | None = None
        # Why the save cannot be appended to (found when it is read), None when it can.
        self.read_only: str | None = None

    # ------------------------------------------------------------------ reading
    def read(
        self,
        then: Callable[[GameSession], object] | None = None,
        failed: Callable[[str], None] | None = None,
    ) -> None:
        """Read the whole save in a worker; on the UI thread, take it (its warnings shown,
        the watcher started, `GameRead` told) and call `then(self)`, or `failed(text)`."""
        self.read_started = time.perf_counter()

        def job() -> None:
            with _SAVE_LOCK:
                try:
                    game = read_game(self.path)
                except saves.SaveError as err:
                    self._on_ui(self._unread, str(err), failed)
                    return
                # Handed over before the lock is let go: an append waiting for it finds
                # the game read.
                self._on_ui(self._read, game, then)

        self.app.run_worker(job, thread=True, group="game-read", exit_on_error=False)

    def _read(self, game: saves.Game, then: Callable[[GameSession], None] | None) -> None:
        if self.closed:
            return
        self.take_read(game)
        if then is not None:
            then(self)

    def _unread(self, text: str, failed: Callable[[str], None] | None) -> None:
        if self.closed:
            return
        self.close()
        self.app.notify(text, severity="error", markup=False, timeout=10)
        if failed is not None:
            failed(text)

    def take_read(self, game: saves.Game) -> None:
        """The whole save, read: it is the game from now on (UI thread), its last
        `KEPT_ENTRIES` entries kept."""
        del game.entries[:-KEPT_ENTRIES]
        self.game = game
        self.loaded = True
        self.read_only = unwritable(self.path)
        if self.read_only:
            self.app.notify(
                # The file's name starts it, as it is on disk (never capitalized).
                f"{self.read_only}; rolling is refused. Make the file writable and open it again.",
                title="Read-only save",
                severity="warning",
                markup=False,
                timeout=15,
            )
        for warning in game.warnings:
            # A torn last entry set aside (the bytes kept, and where), as the CLI says it.
            self.app.notify(warning, severity="warning", markup=False, timeout=15)
        self.watch()
        self._tell(lambda: GameRead(self.path))

    def adopt(self, game: saves.Game) -> None:
        """A game read whole by another reader (the log review reads a save that is not
        open here, entry by entry, for its rows): the session's game from now on, kept as
        `take_read` keeps it, so the review has no model of its own. Not watched, and
        nothing said: the save is only reviewed (UI thread)."""
        if self.closed:
            return
        del game.entries[:-KEPT_ENTRIES]
        self.game = game
        self.loaded = True

    # ------------------------------------------------------------------ appending
    def log_combat(
        self,
        combat: CombatInput,
        outcome: Outcome,
        *,
        note: str | None = None,
        target: str | None = None,
        targets: dict[str, str] | None = None,
        done: Done | None = None,
        after: threading.Event | None = None,
    ) -> None:
        """Log a combat rolled on this desk; the markers its result places go on `target`
        (or per side on `targets`)."""
        self._log(combat, outcome, None, note, target, targets, done, after)

    def play_card(
        self,
        combat: CombatInput,
        outcome: Outcome,
        *,
        amends: int,
        note: str | None = None,
        target: str | None = None,
        targets: dict[str, str] | None = None,
        done: Done | None = None,
        after: threading.Event | None = None,
    ) -> None:
        """Log a card played after the roll of entry `amends`: the combat read again with
        the card (`combat` and `outcome`, as the procedure gave them), amending it."""
        self._log(combat, outcome, amends, note, target, targets, done, after)

    def _log(
        self,
        combat: CombatInput,
        outcome: Outcome,
        amends: int | None,
        note: str | None,
        target: str | None,
        targets: dict[str, str] | None,
        done: Done | None,
        after: threading.Event | None,
    ) -> None:
        path, who = self.path, self.player
        fought = self.fought(combat)
        self._append(
            lambda notices: saves.append_combat(
                path,
                combat,
                outcome,
                note=note,
                target=target,
                targets=targets,
                who=who,
                amends=amends,
                units=fought,
                notices=notices,
            ),
            done,
            after,
        )

    def fought(self, combat: CombatInput) -> dict[str, list[str]] | None:
        """The game's units in play a combat's rows name, per side (what its result is
        applied to), or None: it names none of them, or names them so that the store would
        refuse the combat (the attackers of two sides, a unit on both): the roll is then
        logged all the same, and its losses are taken by hand (`crtdesk units FILE take`)."""
        if not self.loaded or self.game is None:
            return None
        units = self.game.units
        found = {
            side: [u.name for u in rows if u.name is not None and _in_play(units, u.name)]
            for side, rows in (("attacker", combat.attackers), ("defender", combat.defenders))
        }
        if not any(found.values()):
            return None
        try:
            saves.check_combat_units(self.game, found)
        except saves.SaveError:
            return None
        return found

    def note(
        self,
        seq: int,
        text: str,
        *,
        done: Done | None = None,
        after: threading.Event | None = None,
    ) -> None:
        """Note entry `seq` (a new entry naming it: the entry itself is never edited)."""
        path, who = self.path, self.player
        self._append(
            lambda notices: saves.append_note(path, seq, text, who=who, notices=notices),
            done,
            after,
        )

    def log_event(
        self,
        event: str,
        text: str,
        *,
        ruleset: str | None = None,
        dice: list[DiceRoll] | None = None,
        done: Done | None = None,
    ) -> None:
        """Log something done at the desk that is not a combat, with its dice (the die of a
        Hero Site draw)."""
        path, who = self.path, self.player
        rolls = list(dice or [])
        self._append(
            lambda notices: saves.append_event(
                path, event, text, ruleset=ruleset, dice=list(rolls), who=who, notices=notices
            ),
            done,
        )

    def take_losses(
        self, losses: list[dict[str, Any]], *, combat: int, done: Done | None = None
    ) -> None:
        """Log the losses a player chose for combat `combat`'s open loss."""
        path, who = self.path, self.player
        self._append(
            lambda notices: saves.take_losses(
                path, losses, combat=combat, who=who, notices=notices
            ),
            done,
        )

    def next_turn(self, *, done: Done | None = None) -> None:
        """Start the next turn: timed markers count down, those at 0 are lifted."""
        path, who = self.path, self.player
        self._append(lambda notices: saves.advance_turn(path, who=who, notices=notices), done)

    def place_marker(
        self,
        kind: str,
        target: str,
        side: str | None = None,
        turns: int | None = None,
        *,
        done: Done | None = None,
    ) -> None:
        """Place a marker by hand (`turns`: None until lifted)."""
        path, who = self.path, self.player
        self._append(
            lambda notices: saves.add_marker(
                path, kind, target, side, turns, who=who, notices=notices
            ),
            done,
        )

    def lift_marker(
        self, marker_id: str, *, note: str | None = None, done: Done | None = None
    ) -> None:
        """Lift a marker in play (`note` says why, e.g. a card repairing a No-entry hex)."""
        path, who = self.path, self.player
        self._append(
            lambda notices: saves.remove_marker(
                path, marker_id, note=note, who=who, notices=notices
            ),
            done,
        )

    def unit_fields(self) -> tuple[RecordField, ...]:
        """The per-unit fields the game's units hold (its ruleset's: a factor, steps, ...)."""
        assert self.game is not None
        return saves.unit_fields(self.game.rulesets)

    def add_unit(self, record: dict[str, Any], *, done: Done | None = None) -> None:
        """Add a unit to the game's order of battle (name, side, hex and its fields)."""
        path, who, given = self.path, self.player, dict(record)
        self._append(lambda notices: saves.add_unit(path, given, who=who, notices=notices), done)

    def edit_unit(self, name: str, changes: dict[str, Any], *, done: Done | None = None) -> None:
        """Change some of a unit's record (a later entry: the log keeps what it was)."""
        path, who, given = self.path, self.player, dict(changes)
        self._append(
            lambda notices: saves.edit_unit(path, name, given, who=who, notices=notices), done
        )

    def set_option(self, key: str, value: object, *, done: Done | None = None) -> None:
        """Set a per-game option (logged like every change); said when it is logged, unless
        `done` hears it."""
        path, who = self.path, self.player

        def said(state: SaveState) -> None:
            if state.status == "failed":
                self.app.notify(
                    f"Not saved: {state.error}", severity="error", markup=False, timeout=10
                )
            else:
                self.app.notify(f"Game option {key} set to {value} (logged).", markup=False)

        self._append(
            lambda notices: saves.set_option(path, key, value, who=who, notices=notices),
            done or said,
        )

    def repair(self, accept: tuple[str, ...] = ()) -> None:
        """Repair the save (`crtdesk repair`) off the UI thread, in turn with the appends;
        every screen hears how it went (`SaveRepaired`): a repair that would change the
        game more than `accept` says writes nothing and is `asked`. What else it did (a
        killed writer's temporary files removed) is shown as a warning."""
        path = self.path

        def job() -> None:
            notices: list[str] = []
            with _SAVE_LOCK:
                try:
                    done = saves.repair_save(path, accept=accept, notices=notices)
                except saves.SaveError as err:
                    said = str(err)
                    self._on_ui(self._tell, lambda: SaveRepaired(path, error=said))
                    return
                finally:
                    for notice in notices:
                        self._on_ui(
                            self.app.notify, notice, severity="warning", markup=False, timeout=15
                        )
            self._on_ui(self._tell, lambda: SaveRepaired(path, repaired=done))

        self.app.run_worker(job, thread=True, group="save", exit_on_error=False)

    def _append(
        self,
        write: _Write,
        done: Done | None = None,
        after: threading.Event | None = None,
    ) -> None:
        """Append to the save off the UI thread, then apply the entry to the game and tell
        the screens; `done(state)` hears how it went. `write` is given a list for the
        store's notices (a torn last entry cut off first): each is shown as a warning.
        With `after`, the write waits for it to be set (a frame drawn first, not sharing
        its time with the write), `SAVE_WAITS_FOR_FRAME` at most."""

        def finish(state: SaveState) -> None:
            if done is not None:
                done(state)
            elif state.status == "failed":
                self.app.notify(
                    f"Not saved: {state.error}", severity="error", markup=False, timeout=10
                )

        def job() -> None:
            notices: list[str] = []
            with _SAVE_LOCK:
                if after is not None:  # waited for in turn: saves keep the order asked
                    after.wait(SAVE_WAITS_FOR_FRAME)
                try:
                    entry = write(notices)
                except saves.SaveError as err:
                    self._on_ui(finish, SaveState("failed", error=str(err)))
                    return
                finally:
                    for notice in notices:
                        self._on_ui(
                            self.app.notify, notice, severity="warning", markup=False, timeout=15
                        )
                fresh = self._caught_up(entry)
            self._on_ui(self.applied, entry, fresh)
            self._on_ui(finish, SaveState("saved", entry=entry))

        self.app.run_worker(job, thread=True, group="save", exit_on_error=False)

    def _caught_up(self, entry: dict[str, Any]) -> saves.Game | None:
        """The game read again when another writer's entries came before `entry` (in the
        worker); None when applying the entry alone brings the game up to date, or the
        watcher has taken it already."""
        game = self.game
        if game is None or not self.loaded:
            return None
        if last_seq(game) >= entry["seq"] or self.follows(entry):
            return None
        try:
            return read_game(self.path)
        except saves.SaveError:
            return None  # the watcher reads it and says what is wrong

    def _apply(self, entry: dict[str, Any]) -> None:
        """Apply one entry to the game, keeping only its last `KEPT_ENTRIES` entries."""
        assert self.game is not None
        saves.apply_entry(self.game, entry)
        del self.game.entries[:-KEPT_ENTRIES]

    def follows(self, entry: dict[str, Any]) -> bool:
        """True when `entry` is the next one after the game's last entry: applying it alone
        brings the game up to date."""
        return self.game is not None and entry.get("seq") == last_seq(self.game) + 1

    def applied(self, entry: dict[str, Any], fresh: saves.Game | None = None) -> None:
        """An entry this desk appended (UI thread): apply it to the game, or take the game
        read again when other entries came in between; then tell the screens."""
        if self.closed or self.game is None or not self.loaded:
            return  # a save only appended to (the caller shows the entry)
        last = last_seq(self.game)
        if fresh is not None:
            if last_seq(fresh) >= last:  # else the watcher brought newer
                self.game = fresh
        elif self.follows(entry):
            self._apply(entry)
        new = [e for e in self.game.entries if e["seq"] > last]
        if new:  # else the watcher took the entry first, and told the screens then
            self._announce(new)

    # ------------------------------------------------------------------ live
    def watch(self) -> None:
        """Watch the save for entries other processes append, from where the game read
        ends."""
        if self.watcher is not None:
            self.watcher.stop()
        assert self.game is not None
        self.watcher = SaveWatcher(
            self.game,
            on_entries=lambda entries: self._on_ui(self.take_entries, entries),
            on_reload=lambda game: self._on_ui(self.take_game, game),
            on_error=lambda text: self._on_ui(self.watch_failed, text),
        )
        self.watcher.start()

    def take_entries(self, entries: list[dict[str, Any]]) -> None:
        """Entries read from the file (UI thread): apply those the game has not (this
        desk's own are applied when it appends them), then tell the screens."""
        if self.closed or self.game is None or not self.loaded:
            return
        last = last_seq(self.game)
        new = [entry for entry in entries if entry["seq"] > last]
        for entry in new:
            self._apply(entry)
        if new:
            self._announce(new)

    def take_game(self, fresh: saves.Game) -> None:
        """The file read whole again (it changed before where it was last read)."""
        if self.closed or self.game is None or not self.loaded:
            return
        last = last_seq(self.game)
        self.game = fresh
        self._announce([entry for entry in fresh.entries if entry["seq"] > last])

    def watch_failed(self, text: str) -> None:
        if not self.closed:
            self.app.notify(f"The save cannot be read: {text}", severity="error", markup=False)

    def close(self) -> None:
        """The save is no longer open here: the watcher stops, and news of it is dropped."""
        self.closed = True
        if self.watcher is not None:
            self.watcher.stop()

    # ------------------------------------------------------------------ telling
    def _announce(self, entries: list[dict[str, Any]]) -> None:
        self._tell(lambda: GameChanged(self.path, entries))

    def _tell(self, message: Callable[[], Message]) -> None:
        """Post a message (one made for each) to every screen on the stack and the app."""
        for screen in self.app.screen_stack:
            screen.post_message(message())
        self.app.post_message(message())

    def _on_ui(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Run `callback` on the UI thread (from a worker or the watcher's thread)."""
        try:
            self.app.call_from_thread(callback, *args, **kwargs)
        except RuntimeError:
            pass  # the desk is closing


def _in_play(units: dict[str, Any], name: str) -> bool:
    """Whether `name` is one of the game's units, not eliminated."""
    found = units.get(name)
    return found is not None and bool(found.alive)
