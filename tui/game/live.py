"""Live two-player desks: watch an open save for entries another process appends.

A thread polls the file's size, mtime and inode (a `stat`, never a read) a few times a
second; when they change it reads only the bytes after the last entry it has seen
(`saves.read_new_entries`) and hands the new entries on. When the file shrank or changed
before that point it loads the whole file once and hands on the game instead.

Not a Textual worker on purpose: it runs for as long as the game is open, and waiting for
"every worker" (as a test does after a roll) must not wait for it.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui import saves

# Seconds between two looks at the file: an entry shows within a second with room to spare.
POLL_SECONDS = 0.25


# The entries a reload keeps (as many as the desk's session keeps).
KEPT_ON_RELOAD = 100


def last_seq(game: saves.Game) -> int:
    """The number of the game's last entry (0 before the first)."""
    return game.entries[-1]["seq"] if game.entries else 0


class SaveWatcher:
    """Watch `game`'s file from where its load ended. `on_entries(entries)` gets each batch
    of appended entries, `on_reload(game)` a whole reload, `on_error(text)` a file that
    cannot be read; all are called on the watcher's thread."""

    def __init__(
        self,
        game: saves.Game,
        on_entries: Callable[[list[dict[str, Any]]], None],
        on_reload: Callable[[saves.Game], None],
        on_error: Callable[[str], None],
        interval: float = POLL_SECONDS,
    ) -> None:
        self.path: Path = game.path
        # Each look stats the file by its name as a str: a Path is converted by a Python
        # call (`__fspath__`) on every look, four times a second.
        self._name = os.fspath(game.path)
        self.offset = game.end
        self.seq = last_seq(game)
        self.on_entries = on_entries
        self.on_reload = on_reload
        self.on_error = on_error
        self.interval = interval
        self._seen = self._signature()
        self._stop = threading.Event()
        # Held until `stop`: each look waits on it (one call, where the event's wait is a
        # condition's dozen lines of Python, four times a second for as long as the game is
        # open), and `stop` releasing it ends the wait at once.
        self._running = threading.Lock()
        self._running.acquire()
        self._stopping = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"watch {self.path.name}")
        self._thread.daemon = True  # never keeps a closing desk alive

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop looking (at once; the thread ends within one interval)."""
        with self._stopping:  # two stops at once release the held lock once
            if not self._stop.is_set():
                self._stop.set()
                self._running.release()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            status = os.stat(self._name)
        except OSError:
            return None
        return status.st_size, status.st_mtime_ns, status.st_ino

    def _run(self) -> None:
        # The timeout given by place, not by name: a keyword is parsed on every look.
        while not self._running.acquire(True, self.interval):
            seen = self._signature()
            if seen is not None and seen != self._seen:
                self._seen = seen
                self.catch_up()

    def catch_up(self) -> None:
        """Read what was appended since the last look, and hand it on."""
        try:
            entries, offset = saves.read_new_entries(self.path, self.offset, after_seq=self.seq)
        except saves.SaveError:
            self._reload()
            return
        if entries and not self._stop.is_set():
            self.offset, self.seq = offset, entries[-1]["seq"]
            self.on_entries(entries)

    def _reload(self) -> None:
        try:
            # Entry by entry, the last entries kept: a long campaign is never held whole.
            game = saves.read_game(self.path, keep=KEPT_ON_RELOAD)
        except saves.SaveError as err:
            if not self._stop.is_set():
                self.on_error(str(err))
            return
        self.offset, self.seq = game.end, last_seq(game)
        if not self._stop.is_set():
            self.on_reload(game)
