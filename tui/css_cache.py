"""Textual's stylesheet, with the rules it parsed kept for the next start.

Textual parses every piece of CSS the desk shows (its own defaults, the widgets', the
desk's app.tcss) again at each start: about 20 ms of a combat screen's first frame, as much
as everything else Textual does for it. `KeptStylesheet` keeps each piece's parsed rules in
the cache folder (`tui.kept`, beside the parsed tables), and reads them back when the same
text is parsed again with the same theme variables.

The kept file is named by the Python, this module and Textual's installed copy, and holds
each piece's CSS text, compared in full, so edited CSS is parsed afresh. A file that is
damaged, or not the player's own, is ignored and written over. It holds pickled Textual
objects, so it is read only from the player's own cache folder (mode 0700), never shared.
"""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from pathlib import Path
from typing import Any

import textual
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation

from tui.kept import cache_folder, read_own, write

# A piece of CSS as Textual's own parse cache names it.
SourceKey = tuple[str, CSSLocation, bool, int, str]


def kept_file() -> Path | None:
    """Where the parsed rules are kept: named by the Python, this module's code and the
    Textual installed (its package file's size and time: an upgrade writes it anew)."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        mine = zlib.crc32(Path(__file__).read_bytes())
        theirs = os.stat(textual.__file__)
    except OSError:
        return None
    textual_id = zlib.crc32(f"{theirs.st_size}:{theirs.st_mtime_ns}".encode())
    python = f"{sys.version_info[0]}{sys.version_info[1]}p{pickle.HIGHEST_PROTOCOL}"
    return folder / f"css-{mine:08x}-{textual_id:08x}-{python}.pickle"


class KeptStylesheet(Stylesheet):
    """A Stylesheet whose parsed pieces are read from, and kept to, `kept_file()`."""

    def __init__(self, *, variables: dict[str, str] | None = None, path: Path | None) -> None:
        super().__init__(variables=variables)
        self.kept_path = path
        # Each piece's rules, pickled; unpickled only when the piece is parsed.
        self._kept: dict[SourceKey, bytes] = {}
        self._kept_variables: dict[str, str] = dict(variables or {})
        # Pieces parsed in this run, pickled when they are kept.
        self._fresh: dict[SourceKey, list[RuleSet]] = {}
        self._unsaved = False
        self._read()

    def _read(self) -> None:
        path = self.kept_path
        data = None if path is None else read_own(path)  # not the player's own: never read
        if data is None:
            return
        try:
            variables, kept = pickle.loads(data)
        except Exception:  # damaged, or from another Textual: parsed afresh, written over
            self._unsaved = True
            return
        if variables == self._kept_variables and isinstance(kept, dict):
            self._kept = kept
        else:
            self._unsaved = True  # kept for another theme: this one's replaces it

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key: SourceKey = (css, read_from, is_default_rules, tie_breaker, scope)
        keeping = self.kept_path is not None and self._variables == self._kept_variables
        if keeping and key not in self._parse_cache and key in self._kept:
            try:
                rules = pickle.loads(self._kept[key])
            except Exception:
                del self._kept[key]
            else:
                self._parse_cache[key] = rules
                return rules
        rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        if keeping and key not in self._kept and not any(rule.errors for rule in rules):
            self._fresh[key] = rules
        return rules

    def keep(self) -> None:
        """Write the pieces parsed since the file was read; silently not, where it cannot
        be written."""
        path = self.kept_path
        if path is None or not (self._unsaved or self._fresh):
            return
        for key, rules in self._fresh.items():
            self._kept[key] = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
        self._fresh.clear()
        self._unsaved = False
        data: Any = (self._kept_variables, self._kept)
        write(path, pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL), "css-*.pickle")
