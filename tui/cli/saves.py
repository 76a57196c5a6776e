"""Save-file commands for the CLI (new, log, turn, marker, option, note, repair) and
`resolve --save`; luck and report, which read a save, are in `tui.cli.reports`.

Every command names a save as the player typed it (`campaign` or `campaign.toml`), found in
the saves folder (`--saves DIR`, else $CRTDESK_SAVES, else saves/), or by a path to an
existing save file (`saves/campaign.toml`). A broken save is a SaveError: one line on stderr
and exit status 2, from tui.cli.main.

About 600 lines: each save command's handler and what it prints, together, the log's table
(`LogTable`) among them (their flags are declared in `tui.cli.commands`); the commands that
read a whole log for figures are in `tui.cli.reports`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from msgspec.structs import replace

from tui import __version__, saves
from tui.cli.folders import folder_given, kept_copies
from tui.cli.parsing import UsageError
from tui.cli.save_names import named_save as _path
from tui.cli.save_names import save_file
from tui.engine import registry
from tui.engine.errors import InputError
from tui.engine.ruleset import Ruleset
from tui.engine.rulesets.charts.ruleset import ChartRuleset
from tui.engine.tables import Tables
from tui.engine.text import (
    dice_text,
    entry_text,
    json_shown,
    marker_text,
    one_line,
    shown_lines,
    when_text,
)
from tui.engine.unit_text import losses_text, open_text
from tui.game.player import player_name
from tui.saves.charts import changed_chart

if TYPE_CHECKING:
    # The engine's model and OCS supply are imported by the commands that use them:
    # `crtdesk open` reads a save's path here and draws its first screen without them.
    from tui.engine.combat import CombatInput, Outcome
    from tui.reports.kept import Memo


def check_in_play(save: str, saves_dir: str | None, ruleset: Ruleset) -> None:
    """A combat saved to a game on a ruleset that is not built in (a player's chart): the
    game must have it in play, and resolves it on the copy it keeps (loading the save makes
    that copy the ruleset); a chart file changed since the game began is named on stderr."""
    if ruleset.id in registry.BUILT_IN_IDS:
        return
    game = saves.load_game(save_file(save, saves_dir))
    if ruleset.id not in game.rulesets:
        raise UsageError(
            f"resolve: {ruleset.id} is not in play in {game.path.name} "
            f"({', '.join(game.rulesets)}); start a game with it to log its combats"
        )
    kept = registry.get(ruleset.id)
    if isinstance(ruleset, ChartRuleset) and isinstance(kept, ChartRuleset):
        said = changed_chart(kept.chart, ruleset.chart)
        if said:
            print(one_line(f"crtdesk: {said}"), file=sys.stderr)


def combat_for_game(
    save: str, saves_dir: str | None, combat: CombatInput, tables: Tables
) -> CombatInput:
    """The combat as the saved game plays it (RULINGS): a pod-ultra combat against mines
    uses the game's mines CDF, and a --mines-cdf that disagrees with the game's is refused.
    Only such a combat reads the whole save (the game's options are the replay of its log).
    An OCS combat of named units reads their Low and Exhausted markers from the save."""
    if combat.ruleset == "ocs" and any(u.name for u in combat.attackers):
        # Imported for an OCS combat only: a save command starts without any ruleset's rules.
        from tui.engine.rulesets.ocs import supply as ocs_supply

        game = saves.read_game(_path(save, saves_dir))
        return replace(
            combat,
            attackers=ocs_supply.stocks_from_markers(
                combat.attackers, [(m.target, m.kind) for m in game.markers]
            ),
        )
    if combat.ruleset != "pod-ultra" or (combat.obstacle != "mines" and combat.mines_cdf is None):
        return combat
    path = _path(save, saves_dir)
    game = saves.read_game(path)
    value = game.options.get("mines_cdf", tables.data["pod-ultra"]["obstacles"]["mines"])
    if combat.mines_cdf is None:
        return replace(combat, mines_cdf=value)
    if combat.mines_cdf != value:
        raise InputError(
            "mines_cdf",
            combat.mines_cdf,
            f"{value}, the mines CDF of the game in {path.name}, or no --mines-cdf "
            f"(`crtdesk option {save} mines_cdf N` changes the game's, and logs it)",
        )
    return combat


def record_combat(
    save: str,
    saves_dir: str | None,
    combat: CombatInput,
    outcome: Outcome,
    *,
    target: str | None = None,
    note: str | None = None,
    amends: int | None = None,
    units: dict[str, list[str]] | None = None,
    takes: dict[str, dict[str, int]] | None = None,
) -> tuple[str, int]:
    """Append a resolved combat to a save (`amends`: the combat whose roll a card played
    after it reads again); the line to print, and the entry's number."""
    path = _path(save, saves_dir)
    with _notices() as notices:
        entry = saves.append_combat(
            path,
            combat,
            outcome,
            note,
            target=target,
            who=player_name(),
            amends=amends,
            units=units,
            takes=takes,
            notices=notices,
        )
    line = f"Saved as entry {entry['seq']} in {path}"
    placed = [marker_text(m) for m in entry.get("markers", [])]
    if placed:
        line += "; placed " + "; ".join(placed)
    if entry.get("losses"):
        line += f"\nLosses: {losses_text(entry['losses'])}"
    for owed in entry.get("open_losses", []):
        line += (
            f"\nOpen: {open_text(owed)}; `crtdesk units {one_line(save)} take UNIT --steps N "
            f"--combat {entry['seq']}`"
        )
    return line, entry["seq"]


# --- commands -------------------------------------------------------------------------------


@contextmanager
def _notices() -> Iterator[list[str]]:
    """A list for what a write did besides its entry (a torn last entry cut off and kept),
    said on stderr, one line each, once the write is done or refused."""
    notices: list[str] = []
    try:
        yield notices
    finally:
        for notice in notices:
            print(f"crtdesk: {notice}", file=sys.stderr)


def _warn(game: saves.Game | None) -> None:
    """What the read found and left out (a torn last entry), on stderr, one line each."""
    for warning in game.warnings if game is not None else ():
        print(f"crtdesk: {warning}", file=sys.stderr)


def _cmd_new(args: argparse.Namespace, tables: Tables) -> int:
    for ruleset in args.rulesets:
        if not registry.known(ruleset) and registry.chart_name(ruleset) is None:
            allowed = "one of " + ", ".join(registry.ids()) + registry.CHART_HINT
            raise InputError("rulesets", ruleset, allowed, choices=list(registry.ids()))
    charts = kept_copies(args.rulesets, args.games, args.saves)
    options = dict(_option_pair(text) for text in args.option)
    path = _path(args.file, args.saves, existing=False, make=args.create)
    with _notices() as notices:  # a killed `new`'s temporary files removed are said
        game = saves.new_game(
            path,
            args.title,
            args.rulesets,
            options,
            who=player_name(),
            charts=charts,
            notices=notices,
        )
    in_play = saves.options_in_play(game.options, game.rulesets)
    shown = "".join(f"; {k} {v}" for k, v in in_play.items())
    print(f"Started {one_line(game.title)!r} in {path} ({', '.join(game.rulesets)}{shown})")
    return 0


def _cmd_log(args: argparse.Namespace, tables: Tables) -> int:
    turn = _whole_number("turn", args.turn, 1)
    if args.ruleset is not None and not registry.known(args.ruleset):
        raise InputError(
            "ruleset_filter",
            args.ruleset,
            "one of " + ", ".join(registry.ids()),
            choices=list(registry.ids()),
        )
    path = _path(args.file, args.saves)
    if args.markers:
        # The game's state kept beside the save (checked against it), else worked out once.
        records, game = saves.kept_places(path)
        records.close()
        _warn(game)
        markers = [_marker_dict(m) for m in game.markers]
        if args.json:
            print(json_shown(markers))
        else:
            print(markers_text(game))
        return 0

    def wanted(entry: dict[str, Any]) -> bool:
        return (
            (turn is None or entry["turn"] == turn)
            and (args.ruleset is None or entry.get("ruleset") == args.ruleset)
            and (args.player is None or entry["who"] == args.player)
        )

    if args.json:
        _warn(_print_log_json(path, wanted))
        return 0

    # Each entry's row is derived once and kept beside the save (`saves.kept_records`),
    # checked against it; the rows are kept as short text here (their widths are known only
    # at the end), the entries never read whole: a long campaign's log is never held whole.
    everything = turn is None and args.ruleset is None and args.player is None

    def fold(records: saves.KeptRecords) -> LogTable:
        table = LogTable()
        for _, at_turn, who, ruleset, _, _, _, (row, widths) in records.rows():
            shown = everything or (
                (turn is None or at_turn == turn)
                and (args.ruleset is None or ruleset == args.ruleset)
                and (args.player is None or who == args.player)
            )
            table.add_kept(row, widths, shown=shown)
        return table

    table, game = saves.kept_fold(path, "log", LOG_ROWS, kept_row, LogRow, fold)
    _warn(game)
    lines: list[str] = []
    for line in table.lines(game):
        lines.append(line)
        if len(lines) == 1000:  # a write per thousand lines, not per line
            print("\n".join(lines))
            lines = []
    if lines:
        print("\n".join(lines))
    return 0


def _print_log_json(path: Path, wanted: Callable[[dict[str, Any]], bool]) -> saves.Game:
    """The log as JSON: the entries, then what their replay gives (the header's fields, the
    turn, the options). Written as it is read to a temporary file (a save refused half way
    prints nothing but its one line), then copied out. The game read."""

    def write() -> tuple[saves.Game, IO[str]]:
        out = tempfile.TemporaryFile("w+", encoding="utf-8")
        try:
            stream = saves.read_entries(path)
            started = False
            for entry, _ in stream:
                if wanted(entry):
                    out.write(",\n" if started else '{\n  "entries": [\n')
                    out.write(textwrap.indent(json_shown(entry), "    "))
                    started = True
            assert stream.game is not None
            out.write("\n  ],\n" if started else '{\n  "entries": [],\n')
            rest = json_shown(_game_dict(stream.game))
            out.write(rest[rest.index("\n") + 1 :] + "\n")
        except BaseException:
            out.close()
            raise
        return stream.game, out

    game, out = saves.read_again(write)
    with out:
        out.seek(0)
        shutil.copyfileobj(out, sys.stdout)
    return game


def _cmd_turn(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    found: list[saves.Marker] = []
    with _notices() as notices:
        entry = saves.advance_turn(path, who=player_name(), notices=notices, markers_before=found)
    before = {m.id: m for m in found}
    line = f"Turn {entry['turn']} begins (entry {entry['seq']} in {path})."
    counted = [_after_turn(i, before, expired=False) for i in entry.get("counted_down", [])]
    expired = [_after_turn(i, before, expired=True) for i in entry.get("expired", [])]
    if counted:
        line += " Counted down: " + "; ".join(counted) + "."
    if expired:
        line += " Expired and removed: " + "; ".join(expired) + "."
    print(line)
    return 0


def _after_turn(marker_id: str, before: dict[str, saves.Marker], *, expired: bool) -> str:
    """A marker as the new turn leaves it: one turn fewer left, or removed."""
    marker = before.get(marker_id)
    if marker is None:  # not among the markers the turn found (a save edited by hand)
        return marker_id
    left = marker.turns_left
    return marker_text(replace(marker, turns_left=None if expired or left is None else left - 1))


def _cmd_marker_add(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    turns = _whole_number("turns", args.turns, 1)
    with _notices() as notices:
        entry = saves.add_marker(
            path,
            args.kind,
            args.target,
            args.side,
            turns,
            args.note,
            who=player_name(),
            notices=notices,
        )
    print(f"Placed {marker_text(entry['marker'])} as entry {entry['seq']} in {path}")
    return 0


def _cmd_marker_remove(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    with _notices() as notices:
        entry = saves.remove_marker(path, args.marker_id, who=player_name(), notices=notices)
    what = f"{entry['marker_kind']} on {one_line(entry['target'])}"
    print(f"Removed marker {entry['marker_id']} ({what}) as entry {entry['seq']} in {path}")
    return 0


def _cmd_option(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    key, value = _option_pair(f"{args.key}={args.value}")
    with _notices() as notices:
        entry = saves.set_option(path, key, value, who=player_name(), notices=notices)
    print(f"Option {key} = {value!r} as entry {entry['seq']} in {path}")
    return 0


def _cmd_repair(args: argparse.Namespace, tables: Tables) -> int:
    path = _path(args.file, args.saves)
    if args.games is not None:
        folder_given(args.games, args.saves)  # a folder, or one line naming what was typed

    def restore(rulesets: list[str]) -> dict[str, str]:
        return kept_copies(rulesets, args.games, args.saves)

    with _notices() as notices:  # a killed `new`'s or `repair`'s temporary files removed
        done = saves.repair_save(
            path,
            accept=args.yes,
            notices=notices,
            restore_charts=restore if args.restore_charts else None,
        )
    kept = f"entries {done.first}-{done.last}" if done.entries > 1 else f"entry {done.first}"
    if not done.entries:
        kept = "the header alone"
    if done.asked:
        lines = ", ".join(str(line) for line, _ in done.set_aside)
        print(
            f"Repairing {done.path} would set aside {len(done.set_aside)} "
            f"(from lines {lines}) and change the game:"
        )
        for change in done.changes:
            print(f"  {one_line(change)}")
        print(
            f"Nothing written. `crtdesk repair {one_line(args.file)} --yes` repairs it so "
            "(the whole file as it is kept in a copy, the entries set aside in a side file)."
        )
        return 1
    if done.header is not None:
        print(f"In {done.path}: {done.header}; the whole file as it was is kept in {done.backup}")
    if done.side_file is not None:
        lines = ", ".join(str(line) for line, _ in done.set_aside) or "none"
        renumbered = f"; {done.renumbered} renumbered where numbers clashed" * bool(done.renumbered)
        print(
            f"Kept {kept} in {done.path}{renumbered}; set aside {len(done.set_aside)} "
            f"(from lines {lines}) in {done.side_file}; the whole file as it was is kept "
            f"in {done.backup}"
        )
        for line, reason in done.set_aside:
            print(f"  line {line}: {one_line(reason)}")
        for change in done.changes:
            print(f"  changed: {one_line(change)}")
    elif done.backup is None:
        print(f"{done.path} has no torn entry ({kept}, all whole); nothing to do")
    elif done.header is None or done.dropped:
        print(
            f"Kept {kept} ({done.kept} bytes) in {done.path}; the torn last entry "
            f"({done.dropped} bytes) is kept with the whole file as it was in {done.backup}"
        )
    return 0


def _cmd_note(args: argparse.Namespace, tables: Tables) -> int:
    text = args.seq.strip()
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise saves.SaveError(
            f"SEQ {one_line(args.seq)!r} is not an entry number; expected a whole number of "
            "1 or more (the # column of `crtdesk log`)"
        )
    seq = int(text)
    path = _path(args.file, args.saves)
    with _notices() as notices:  # a torn last entry cut off is said, as every writer says it
        entry = saves.append_note(path, seq, args.text, who=player_name(), notices=notices)
    print(f"Noted on entry {seq} as entry {entry['seq']} in {path}: {one_line(entry['text'])}")
    return 0


# --- parsing flags ------------------------------------------------------------------------


def _whole_number(field: str, text: str | None, low: int) -> int | None:
    if text is None:
        return None
    value = text.strip()
    if not value.isascii() or not value.isdigit() or int(value) < low:
        raise InputError(field, text, f"a whole number >= {low}")
    return int(value)


def _option_pair(text: str) -> tuple[str, object]:
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise InputError("option", text, "KEY=VALUE, e.g. mines_cdf=3")
    raw = raw.strip()
    value: object = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.lstrip("+-").isascii() and raw.lstrip("+-").isdigit():
        value = int(raw)
    return key, value


# --- showing ------------------------------------------------------------------------------


def _marker_dict(marker: saves.Marker) -> dict[str, Any]:
    return {
        "id": marker.id,
        "kind": marker.kind,
        "target": marker.target,
        "side": marker.side,
        "turns_left": marker.turns_left,
        "placed_by": marker.placed_by,
        "note": marker.note,
    }


def _game_dict(game: saves.Game) -> dict[str, Any]:
    return {
        "path": str(game.path),
        "title": game.title,
        "rulesets": game.rulesets,
        "created": game.created,
        "format": game.format,
        "turn": game.turn,
        "options": game.options,
    }


_LOG_HEADER = ("#", "turn", "when (UTC)", "who", "what", "odds", "column", "roll", "dice", "result")
_RIGHT = {0, 1}
_CELL_END = "\0"  # between a kept row's cells: never in a cell shown as text


# The log's rows as `row_cells` derives them: kept beside a save under this version, so a
# crtdesk that shows an entry otherwise derives them again (change it with `row_cells`).
LOG_ROWS = f"{__version__}/2"


# A row as kept: its cells joined (as `LogTable` keeps them) and the widths of all but the
# last (a kept row of any other shape is not used: built again).
LogRow = tuple[str, tuple[int, int, int, int, int, int, int, int, int]]


def kept_row(entry: dict[str, Any]) -> tuple[str, list[int]]:
    """An entry's row of the log as it is kept beside the save (`LogRow`): the cells
    `row_cells` gives, joined, and the widths of all but the last."""
    tail, widths = _TEXTS.tail(entry)
    seq, turn, who = str(entry["seq"]), str(entry["turn"]), entry["who"]
    when = when_text(entry["when"])
    if not (when.isascii() and when.isprintable()):
        when = one_line(when)
    if not (who.isascii() and who.isprintable()):
        who = one_line(who)
    row = f"{seq}{_CELL_END}{turn}{_CELL_END}{when}{_CELL_END}{who}{_CELL_END}{tail}"
    return row, [len(seq), len(turn), len(when), len(who), *widths]


def row_cells(entry: dict[str, Any]) -> list[str]:
    """An entry's row of the log: its cells shown as text, the result in words last."""
    row, _ = kept_row(entry)
    return row.split(_CELL_END)


def _shown(cell: str) -> str:
    """A cell as shown: printable ASCII as it is (`one_line` leaves it so), the rest looked
    at by `one_line`."""
    return cell if cell.isascii() and cell.isprintable() else one_line(cell)


# What a combat's cells after its player are made of (`entry_text`, its odds, column, roll
# and dice): its number, turn, time and player are not.
_COMBAT_TAIL: tuple[str, ...] = ("ruleset", "note", "markers", "target", "cell", "amends")
_COMBAT_TAIL += ("losses", "open_losses", "explanation", "odds", "column", "roll", "dice")


class _Texts:
    """A combat's cells after its player (its words, odds, column, roll and dice) made once
    per run for each distinct set of values they are made of (a long campaign repeats
    them), kept as the reports keep theirs (`Memo`: 1, 1.0 and True apart, a text apart
    from the date it spells); at most `MOST`."""

    MOST = 4096

    def __init__(self) -> None:
        self._memo: Memo | None = None

    def _kept(self) -> Memo:
        if self._memo is None:
            # Imported by the first row derived (a long log's first read), not at start.
            from tui.reports.kept import Memo

            self._memo = Memo(self.MOST)
        return self._memo

    def tail(self, entry: dict[str, Any]) -> tuple[str, tuple[int, ...]]:
        """The entry's cells after its player, joined, and the widths of all but the last."""
        if entry["kind"] != "combat":
            return _tail(entry)
        kept = self._kept()
        values = tuple(map(entry.get, _COMBAT_TAIL))
        key, found = kept.get(values)
        if found is None:
            found = _tail(entry)
            kept.put(key, values, found)
        tail: tuple[str, tuple[int, ...]] = found  # (no call to `cast` a row)
        return tail


def _tail(entry: dict[str, Any]) -> tuple[str, tuple[int, ...]]:
    what, result = entry_text(entry)
    cells = [
        what,
        entry.get("odds") or "",
        entry.get("column") or "",
        entry.get("roll") or "",
        dice_text(entry.get("dice", [])),
    ]
    cells = [_shown(cell) for cell in cells]
    return _CELL_END.join([*cells, _shown(result)]), tuple(len(cell) for cell in cells)


_TEXTS = _Texts()


# What a kept row may hold: printable ASCII, and the NULs between its cells.
_ROW_BYTES = bytes(range(0x20, 0x7F)) + _CELL_END.encode()


def _printable_row(row: str) -> bool:
    """Whether a kept row holds only printable ASCII between its cells' NULs (nothing left
    once those bytes are taken out)."""
    return row.isascii() and not row.encode().translate(None, _ROW_BYTES)


class LogTable:
    """The log as a table a person reads, one entry at a time (`add`): each row kept as one
    short string of cells shown as text, and each column's width; `lines` lays them out."""

    def __init__(self) -> None:
        self.rows: list[str] = []
        self.widths = [len(cell) for cell in _LOG_HEADER[:-1]]
        self.entries = 0
        # The rows' widths not yet taken into `widths`: each distinct set once (a long log's
        # rows share a few hundred), taken in by `_widen`.
        self._seen: set[tuple[int, ...]] = set()

    def add(self, entry: dict[str, Any], shown: bool = True) -> None:
        self.add_cells(row_cells(entry) if shown else [], shown)

    def add_cells(self, cells: Sequence[str], shown: bool = True) -> None:
        """One entry's row as `row_cells` gives it."""
        self.add_kept(_CELL_END.join(cells), tuple(len(cell) for cell in cells[:-1]), shown=shown)

    def add_kept(self, row: str, widths: Sequence[int], *, shown: bool = True) -> None:
        """One entry's row as kept beside the save (`kept_row`): its cells joined, and the
        widths of all but the last (`lines` takes none wider than the longest row)."""
        self.entries += 1
        if shown:
            seen = self._seen
            seen.add(tuple(widths))
            if len(seen) >= 1024:
                self._widen()
            self.rows.append(row)

    def _widen(self) -> None:
        """Each column as wide as the widest of the widths seen."""
        for widths in self._seen:
            self.widths = list(map(max, self.widths, widths))
        self._seen.clear()

    def lines(self, game: saves.Game) -> Iterator[str]:
        """The title, the game's line, then the header and a line per row kept."""
        in_play = saves.options_in_play(game.options, game.rulesets)
        options = ", ".join(f"{k} {v}" for k, v in in_play.items()) or "none"
        yield f"{one_line(game.title)} ({one_line(game.path)})"
        yield (
            f"Rulesets {one_line(', '.join(game.rulesets))}; turn {game.turn}; created "
            f"{one_line(when_text(game.created))} UTC; options: {one_line(options)}"
        )
        if not self.rows:
            yield "(no entries match)" if self.entries else "(the log is empty)"
            return
        # No column wider than the longest row (a kept row's widths are not trusted).
        self._widen()
        longest = max(map(len, self.rows))
        names = _LOG_HEADER[:-1]
        self.widths = [
            min(width, max(longest, len(name)))
            for width, name in zip(self.widths, names, strict=True)
        ]
        yield self._line(_LOG_HEADER)
        # One format for every row (each cell padded to its column's width), the result last.
        shape = "  ".join(
            f"{{:{'>' if i in _RIGHT else '<'}{width}}}" for i, width in enumerate(self.widths)
        )
        line = (shape + "  {}").format
        count = len(_LOG_HEADER)
        for row in self.rows:
            cells = row.split(_CELL_END)
            if len(cells) != count or not _printable_row(row):
                # Not as `row_cells` makes it (a kept file written by hand): shown as text.
                cells = [one_line(cell) for cell in (cells + [""] * count)[:count]]
            yield line(*cells).rstrip()

    def _line(self, row: Sequence[str]) -> str:
        cells = [
            cell.rjust(width) if i in _RIGHT else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, self.widths, strict=False))
        ]
        return "  ".join(cells + [row[-1]]).rstrip()


def log_text(game: saves.Game, entries: list[dict[str, Any]]) -> str:
    """The log as a table a person reads: one line per entry, the result in words last."""
    table = LogTable()
    for entry in entries:
        table.add(entry)
    table.entries = max(table.entries, len(game.entries))
    return "\n".join(table.lines(game))


def markers_text(game: saves.Game) -> str:
    """The current markers as a table."""
    title = f"Markers in {one_line(game.title)} ({game.path}), turn {game.turn}"
    if not game.markers:
        return title + "\n(no markers)"
    header = ("id", "kind", "target", "side", "turns left", "placed by", "note")
    rows = [
        (
            one_line(m.id),
            one_line(m.kind),
            one_line(m.target),
            one_line(m.side or ""),
            "-" if m.turns_left is None else str(m.turns_left),
            f"entry {m.placed_by}",
            one_line(m.note or ""),
        )
        for m in game.markers
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [title]
    for row in [header, *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return shown_lines(lines)
