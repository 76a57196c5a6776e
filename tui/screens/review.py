"""Log review: every entry of a game's log in one virtualised table, filters and a jump to a
turn, the highlighted entry in full (with the notes on it and the card played after it), a
key to annotate it, and the markers in play.

The save is read in a thread worker, entry by entry (`saves.read_entries`), so a long
campaign shows the screen at once and its log is never held whole: each entry is kept as
its row (its cells, what the filters read, and where it lies in the file) and read again in
full when it is shown in full. A filter or a note rebuilds only the table's rows, never the
widgets.
"""

from __future__ import annotations

import bisect
import shlex
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

from tui import saves
from tui.commands import REVIEW_COMMANDS, SHORT_NAMES, Command, short_name
from tui.engine.tables import RULESET_IDS
from tui.messages import GameChanged
from tui.screens.base import DeskScreen
from tui.text import (
    cell_text,
    dice_text,
    entry_text,
    marker_text,
    one_line,
    shown_lines,
    when_text,
)
from tui.widgets.log_table import LogTable, TableColumn
from tui.widgets.title import TitleBar

if TYPE_CHECKING:
    from tui.app import CrtDeskApp
    from tui.session import SaveState

# (key, label, width, shown from this terminal width). The result takes what is left, so the
# table fits 80 columns with its cell padding and scrollbar; wider terminals show more.
COLUMNS: tuple[tuple[str, str, int, int], ...] = (
    ("seq", "#", 5, 0),
    ("turn", "turn", 4, 0),
    ("when", "when (UTC)", 11, 110),
    ("who", "player", 8, 0),
    ("ruleset", "rules", 6, 0),
    ("sides", "att:def", 9, 100),
    ("odds", "odds", 5, 0),
    ("column", "column", 6, 120),
    ("dice", "dice", 7, 0),
    ("result", "result", 0, 0),
    ("note", "note", 10, 0),
)
CELL_KEYS = tuple(key for key, *_ in COLUMNS)
# Cells whose text repeats from row to row: the review keeps one copy of each text.
_SHARED_CELLS = frozenset(("turn", "when", "who", "ruleset", "sides", "odds", "column", "dice"))
RESULT_MIN = 12
_GAP = 1  # the space after each cell
_EDGE = 1 + 2  # the space before the first cell, and the scrollbar
_WIDE_NOTE = 140  # from this width the note column doubles
FILTER_HELP = "turn:3 (or 2-4)  ruleset:rivets  player:ann  any words"
_FILTER_DELAY = 0.2


def shown_columns(width: int) -> list[tuple[str, str, int]]:
    """The columns that fit a terminal `width` wide, with their widths (the result last
    to be sized: all that the others leave)."""
    chosen = [(key, label, size) for key, label, size, least in COLUMNS if width >= least]
    if width >= _WIDE_NOTE:
        chosen = [(k, lbl, s * 2 if k == "note" else s) for k, lbl, s in chosen]
    used = sum(size + _GAP for _, _, size in chosen) + _EDGE
    rest = max(RESULT_MIN, width - used)
    return [(k, lbl, rest if k == "result" else s) for k, lbl, s in chosen]


# --- what each entry shows ------------------------------------------------------------------


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def _dice_short(dice: Iterable[Mapping[str, Any]]) -> str:
    """The totals rolled, an "h" after one entered by hand: "7", "3h", "9,4"."""
    return ",".join(
        f"{d.get('total')}{'' if d.get('source') == 'desk' else 'h'}" for d in dice or []
    )


def _no_entry(seq: int) -> Mapping[str, Any] | None:
    return None


# What the review keeps of an entry amending an earlier one: what the earlier one shows of it.
_AMENDING_KEYS = ("seq", "cell", "explanation")


@dataclass
class Index:
    """What one entry's neighbours say of it: the notes on it and the entries amending it
    (their number, cell and explanation); `entry_of` reads an entry in full by its number."""

    notes_on: dict[int, list[Mapping[str, Any]]] = field(default_factory=dict)
    amended_by: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    entry_of: Callable[[int], Mapping[str, Any] | None] = _no_entry

    def add(self, entry: Mapping[str, Any]) -> None:
        if entry["kind"] == "note":
            self.notes_on.setdefault(entry["annotates"], []).append(entry)
        amends = entry.get("amends")
        if isinstance(amends, int):
            shown = {key: entry[key] for key in _AMENDING_KEYS if key in entry}
            self.amended_by.setdefault(amends, []).append(shown)

    def notes(self, entry: Mapping[str, Any]) -> list[str]:
        """Every note on an entry: the one kept with it, then those added after, in order."""
        found = [one_line(entry["note"])] if entry.get("note") and entry["kind"] != "note" else []
        return found + [one_line(n["text"]) for n in self.notes_on.get(entry["seq"], [])]


def entry_cells(entry: Mapping[str, Any], index: Index) -> dict[str, str]:
    """One entry's table cells, every column (the screen shows those that fit)."""
    what, words = entry_text(entry)
    combat = entry["kind"] == "combat"
    ruleset = str(entry.get("ruleset") or "")
    if combat:
        shown = entry
        result = cell_text(entry.get("cell"))
        amended = index.amended_by.get(entry["seq"])
        if amended:
            # A card played after this roll: the outcome after the card, then the roll's own.
            shown = amended[-1]
            result = (
                f"{cell_text(shown.get('cell'))} after the card (entry {shown['seq']}); "
                f"rolled {result}"
            )
        explanation = one_line(shown.get("explanation", ""))
        if explanation:
            result += f": {explanation}"
    else:
        result = words
    notes = index.notes(entry)
    attack, defence = entry.get("attack_total"), entry.get("defense_total")
    return {
        "seq": str(entry["seq"]),
        "turn": str(entry["turn"]),
        "when": when_text(str(entry.get("when", "")))[5:],
        "who": one_line(entry.get("who", "")),
        "ruleset": one_line(short_name(ruleset) if ruleset else what),
        "sides": f"{_number(attack)}:{_number(defence)}" if combat and attack is not None else "",
        "odds": one_line(entry.get("odds") or ""),
        "column": one_line(entry.get("column") or ""),
        "dice": _dice_short(entry.get("dice", [])),
        "result": result,
        "note": (f"({len(notes)}) " if len(notes) > 1 else "") + (notes[0] if notes else ""),
    }


def _search_text(entry: Mapping[str, Any], cells: Mapping[str, str], index: Index) -> str:
    return " ".join([*cells.values(), entry_text(entry)[1], *index.notes(entry)]).lower()


def _units(units: Iterable[Mapping[str, Any]]) -> str:
    shown = []
    for unit in units:
        extra = ", ".join(f"{k} {one_line(v)}" for k, v in unit.items() if k != "factor")
        shown.append(f"{_number(unit.get('factor'))}" + (f" ({extra})" if extra else ""))
    return " + ".join(shown) or "none"


# Inputs that are dice, not modifiers: the Dice line says them.
DICE_INPUTS = frozenset({"roll", "surprise_roll", "shift_roll", "rerolls"})


def modifier_words(inputs: Mapping[str, Any]) -> list[str]:
    """A combat's modifiers as the review words them: a tick on is its name, a tick off or
    an empty input is left out ("hold", never "hold False"), and the dice are not among them."""
    words = []
    for key, value in inputs.items():
        if key in DICE_INPUTS or value is None or value is False or value in ("", [], {}):
            continue
        name = key.replace("_", " ")
        words.append(name if value is True else f"{name} {one_line(value)}")
    return words


def detail_text(entry: Mapping[str, Any], index: Index) -> str:
    """An entry in full: inputs, modifiers, dice, trace, effects, the markers it placed,
    the notes on it and, when a card was played after its roll, the outcome after it."""
    what, words = entry_text(entry)
    lines = [
        f"Entry {entry['seq']} · turn {entry['turn']} · {when_text(str(entry.get('when', '')))} "
        f"UTC · {one_line(entry.get('who', ''))} · {what}",
        words,
    ]
    if entry["kind"] == "combat":
        inputs = dict(entry.get("inputs") or {})
        lines.append(
            f"Attack {_number(entry.get('attack_total'))} ({_units(inputs.pop('attackers', []))})"
            f" vs defence {_number(entry.get('defense_total'))} "
            f"({_units(inputs.pop('defenders', []))})"
        )
        lines.append(
            f"Odds {entry.get('odds') or '-'} · odds column {entry.get('odds_column') or '-'}"
            f" · column read {entry.get('column') or '-'} · row {entry.get('roll') or '-'}"
        )
        inputs.pop("ruleset", None)
        modifiers = modifier_words(inputs)
        lines.append("Modifiers: " + ("; ".join(modifiers) if modifiers else "none"))
    if entry.get("dice"):
        lines.append("Dice: " + dice_text(entry["dice"]))
    effects = entry.get("effects") or {}
    if effects.get("summary"):
        lines.append("Effects: " + one_line(effects["summary"]))
    for said in effects.get("notes") or []:
        lines.append("  " + one_line(said))
    if entry.get("trace"):
        lines.append("Trace:")
        lines += [f"  {i}. {one_line(step)}" for i, step in enumerate(entry["trace"], 1)]
    placed = list(entry.get("markers") or [])
    if entry["kind"] == "place-marker":
        placed.append(entry["marker"])
    if placed:
        lines.append("Markers placed: " + "; ".join(marker_text(m) for m in placed))
    if entry.get("note") and entry["kind"] != "note":
        lines.append("Note kept with it: " + one_line(entry["note"]))
    for note in index.notes_on.get(entry["seq"], []):
        lines.append(
            f"Note (entry {note['seq']}, {one_line(note.get('who', ''))}, "
            f"{when_text(str(note.get('when', '')))}): {one_line(note['text'])}"
        )
    for later in index.amended_by.get(entry["seq"], []):
        lines.append(
            f"After the card (entry {later['seq']}): {cell_text(later.get('cell'))} "
            f"{one_line(later.get('explanation', ''))}"
        )
    for name, target in (("Annotates", entry.get("annotates")), ("Amends", entry.get("amends"))):
        earlier = index.entry_of(target) if isinstance(target, int) else None
        if earlier is not None:
            lines.append(f"{name} entry {target}: {entry_text(earlier)[1]}")
    # Every line shown as text, whatever field of a hand-edited save it came from.
    return shown_lines(lines)


# --- filters --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """What the filter bar asks for; every part given must match."""

    turns: tuple[int, int] | None = None
    ruleset: str | None = None
    player: str | None = None
    words: tuple[str, ...] = ()

    def matches(self, row: Row) -> bool:
        if self.turns is not None and not self.turns[0] <= row.turn <= self.turns[1]:
            return False
        if self.ruleset is not None and row.ruleset != self.ruleset:
            return False
        if self.player is not None and row.who.lower() != self.player:
            return False
        return all(word in row.search for word in self.words)


_RULESET_NAMES = {r: r for r in RULESET_IDS} | {
    name.lower(): ruleset for ruleset, name in SHORT_NAMES.items()
}
_KEYS = {"turn": "turn", "t": "turn", "ruleset": "ruleset", "r": "ruleset"}
_KEYS |= {"player": "player", "p": "player", "who": "player"}


def parse_filter(text: str) -> tuple[Filter, str | None]:
    """The filter typed, and the first problem in it (one line), if any."""
    try:
        tokens = shlex.split(text)
    except ValueError:  # a lone quote, as in "defender's": the words as typed
        tokens = text.split()
    turns, ruleset, player, words = None, None, None, []
    for token in tokens:
        key, sep, value = token.partition(":")
        name = _KEYS.get(key.lower()) if sep else None
        if name is None:
            words.append(token.lower())
        elif name == "turn":
            low, dash, high = value.partition("-")
            if not all(p.isascii() and p.isdigit() for p in (low, high if dash else low)):
                return Filter(), f"turn {value!r} is not a turn; expected e.g. turn:3 or turn:2-4"
            turns = (int(low), int(high) if dash else int(low))
        elif name == "ruleset":
            ruleset = _RULESET_NAMES.get(value.lower())
            if value.lower().startswith("game:"):  # a player's chart, by its id
                ruleset = value.lower()
            if ruleset is None:
                return Filter(), (
                    f"ruleset {value!r} is not one; expected one of {', '.join(RULESET_IDS)}"
                )
        else:
            if not value:
                return Filter(), "player: needs a name, e.g. player:ann"
            player = value.lower()
    return Filter(turns, ruleset, player, tuple(words)), None


def _quoted(token: str) -> str:
    """A filter token as typed again: `player:'ann b'` for a value with a space."""
    key, sep, value = token.partition(":")
    if sep and key.lower() in _KEYS:
        return f"{key}:{shlex.quote(value)}"
    return shlex.quote(token)


# --- the screen -----------------------------------------------------------------------------


@dataclass(slots=True)
class Row:
    """What the review keeps of one entry: its cells (in CELL_KEYS order), what the
    filters read, and where it lies in the save to read it in full; or, without a place,
    the entry itself (read from the end of the file, appended since, or read by the
    whole-file reader)."""

    seq: int
    turn: int
    who: str
    ruleset: str | None
    cells: tuple[str, ...]
    search: str
    place: saves.Place | None
    entry: dict[str, Any] | None = None

    def cells_by_key(self) -> dict[str, str]:
        return dict(zip(CELL_KEYS, self.cells, strict=True))


def _unread_game(path: Path) -> saves.Game:
    """A stand-in for the game while its header and replay are not read yet."""
    return saves.Game(
        path=path,
        title=path.stem,
        rulesets=[],
        options={},
        created="",
        format=0,
        turn=0,  # not known until the whole log is replayed
        entries=[],
        markers=[],
    )


@dataclass
class Loaded:
    """A save read off the UI thread: one row per entry, ready to show."""

    path: Path
    # The header, the turn, the markers and the options; its `entries` stay empty.
    game: saves.Game
    rows: list[Row] = field(default_factory=list)
    index: Index = field(default_factory=Index)
    # Only the log's last entries (`read_tail`): the whole log is still being read.
    partial: bool = False
    # One copy of each short cell text many rows show (a turn, a player, the odds).
    _shared: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        # Through a weak reference: a bound method here made every Loaded a cycle, its rows
        # kept after the review let it go until a full collection walked them all.
        loaded = weakref.ref(self)

        def entry_of(seq: int) -> dict[str, Any] | None:
            found = loaded()
            return None if found is None else found.entry_of(seq)

        self.index.entry_of = entry_of

    def add(self, entry: dict[str, Any], place: saves.Place | None = None) -> None:
        """The next entry's row (the entry itself kept when it has no place); an entry a
        note or card points at shows it in its own row too."""
        self.index.add(entry)
        self.rows.append(self._row(entry, place))
        pointed = entry.get("annotates") if entry["kind"] == "note" else entry.get("amends")
        position = self.position(pointed) if isinstance(pointed, int) else None
        if position is not None and position < len(self.rows) - 1:
            before = self.rows[position]
            self.rows[position] = self._row(self.entry(position), before.place)

    def _row(self, entry: dict[str, Any], place: saves.Place | None) -> Row:
        cells = entry_cells(entry, self.index)
        search = _search_text(entry, cells, self.index)
        shared = self._shared
        texts = tuple(
            shared.setdefault(text, text) if key in _SHARED_CELLS else text
            for key, text in cells.items()
        )
        who = str(entry.get("who", ""))
        return Row(
            seq=entry["seq"],
            turn=entry["turn"],
            who=shared.setdefault(who, who),
            ruleset=entry.get("ruleset"),
            cells=texts,
            search=search,
            place=place,
            entry=entry if place is None else None,
        )

    def position(self, seq: int) -> int | None:
        """Where entry `seq` is among the rows (they are in the order of their numbers)."""
        at = bisect.bisect_left(self.rows, seq, key=lambda row: row.seq)
        return at if at < len(self.rows) and self.rows[at].seq == seq else None

    def entry(self, position: int) -> dict[str, Any]:
        """The entry of a row in full: kept, or read again from the save. SaveError
        (StaleOffset) when the file no longer holds it where it was read."""
        row = self.rows[position]
        if row.entry is not None:
            return row.entry
        assert row.place is not None
        return saves.read_entry(self.path, row.place, row.seq)

    def entry_of(self, seq: int) -> dict[str, Any] | None:
        position = self.position(seq)
        return None if position is None else self.entry(position)


# The entries a long log shows first, read from the file's end, and the bytes read for them.
TAIL_ENTRIES = 100
_TAIL_BYTES = 192 * 1024


def read_tail(path: Path, count: int = TAIL_ENTRIES) -> Loaded | None:
    """The log's last `count` entries (at most), read from the end of the file with the
    store's reader of appended entries, ready to show while the whole log is read; None
    when the file is small enough to read whole at once, or its end cannot be read so
    (the whole-file reader then says why). A note or card points only at entries before
    it, so these entries' cells are the ones the whole log gives them."""
    try:
        size = path.stat().st_size
        if size <= _TAIL_BYTES:
            return None
        with path.open("rb") as file:
            file.seek(size - _TAIL_BYTES)
            data = file.read(_TAIL_BYTES)
        at = data.find(b"\n[[log]]\n")
        if at == -1:
            return None
        # Just past the end line of the entry before the first whole one read.
        entries, _ = saves.read_new_entries(path, size - _TAIL_BYTES + at)
    except (OSError, saves.SaveError, saves.StaleOffset):
        return None
    entries = entries[-count:]
    if not entries:
        return None
    loaded = Loaded(path, _unread_game(path), partial=True)
    for entry in entries:
        loaded.add(entry)
    return loaded


def read_for_review(path: Path, chunk: int = saves.streaming.CHUNK) -> Loaded:
    """The whole log, read entry by entry: a row for each, the game (header, turn,
    markers) from its replay, read again if it was written over meanwhile. SaveError as
    `saves.load_game` raises it."""

    def read() -> Loaded:
        stream = saves.read_entries(path, chunk)
        loaded = Loaded(path, _unread_game(path))
        # Millions of small objects and no cycles: a collection on the way would walk them
        # all, holding the desk (it answered keys 100 ms late now and then).
        with saves.no_gc():
            for entry, place in stream:
                loaded.add(entry, place)
        assert stream.game is not None
        loaded.game = stream.game
        return loaded

    return saves.read_again(read)


class ReviewScreen(DeskScreen):
    """A game's whole log: filter it, jump to a turn, read an entry in full, annotate it."""

    DESK_COMMANDS: ClassVar[tuple[Command, ...]] = REVIEW_COMMANDS
    BINDINGS = [c.binding() for c in REVIEW_COMMANDS]

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

    @property
    def table(self) -> LogTable:
        return self.query_one("#review-table", LogTable)

    @property
    def desk(self) -> CrtDeskApp:
        return self.app  # type: ignore[return-value]

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
                self.app.call_from_thread(self.show_loaded, tail)
                # The rest is read once the tail is drawn: the read holds the interpreter
                # much of the time, and would delay that frame.
                drawn = threading.Event()
                self.app.call_from_thread(self.call_after_refresh, drawn.set)
                drawn.wait(timeout=1.0)
        try:
            loaded = read_for_review(self.path)
        except saves.SaveError as err:
            self.app.call_from_thread(self.failed, str(err))
            return
        except Exception as err:  # a reader's own failure: said, never "reading…" for ever
            message = f"{self.path}: cannot be read: {type(err).__name__}: {err}"
            self.app.call_from_thread(self.failed, " ".join(message.split()))
            return
        self.app.call_from_thread(self.show_loaded, loaded)

    def failed(self, message: str) -> None:
        self.query_one("#review-status", Static).update("Not read")
        self.query_one("#review-detail", Static).update(message)

    def show_loaded(self, loaded: Loaded) -> None:
        keep = None
        before = self.loaded
        if before is not None and self.shown_rows:
            # Read again (the whole log after its tail, or a file changed under it): the
            # cursor stays on the entry it was on, unless it was on the last.
            if self.highlighted_position() != len(before.rows) - 1:
                keep = self.highlighted_seq()
        self.loaded = loaded
        game = loaded.game
        self.title = f"Log: {game.title}"
        self.sub_title = (
            f"the last {len(loaded.rows)} entries, reading the rest…"
            if loaded.partial
            else f"Turn {game.turn} · {len(loaded.rows)} entries"
        )
        self.show_markers()
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
        rows, matches = loaded.rows, self.filter.matches
        self.shown_rows = [i for i, row in enumerate(rows) if matches(row)]
        target = None
        if keep is not None:
            target = next((n for n, i in enumerate(self.shown_rows) if rows[i].seq == keep), None)
        keys = [CELL_KEYS.index(c.key) for c in columns]
        shown = self.shown_rows
        self.table.show_rows(
            columns, len(shown), lambda row: [rows[shown[row]].cells[k] for k in keys], target
        )
        self._status()
        if not shown:
            self.query_one("#review-detail", Static).update(
                "No entry matches the filter." if rows else "The log is empty."
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
        except saves.SaveError as err:
            # The file is not as it was read (rewritten by hand, say): read it again.
            text = f"{err}; reading the log again…"
            self.load()
        self.query_one("#review-detail", Static).update(text)
        self.query_one("#review-detail-pane", VerticalScroll).scroll_home(animate=False)

    def show_markers(self) -> None:
        game = self.loaded.game if self.loaded else None
        if self.loaded is not None and self.loaded.partial:
            self.query_one("#review-markers", Static).update("Markers in play: reading…")
            return
        markers = [marker_text(m) for m in game.markers] if game else []
        self.query_one("#review-markers", Static).update(
            "Markers in play: " + ("; ".join(markers) if markers else "none")
        )

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
        try:
            tokens = shlex.split(field.value)
        except ValueError:
            tokens = field.value.split()
        kept = [t for t in tokens if _KEYS.get(t.partition(":")[0].lower()) != key]
        if f"{key}:{value}" not in tokens:
            kept.append(f"{key}:{value}")
        self.set_filter_text(" ".join(_quoted(t) for t in kept))

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
        from tui.screens.dialogs import NumberScreen

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
        rows = self.loaded.rows
        for row, position in enumerate(self.shown_rows):
            if rows[position].turn >= turn:
                if rows[position].turn != turn:
                    break
                self.table.move_cursor(row)
                return True
        shown = sorted({rows[p].turn for p in self.shown_rows})
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
        from tui.screens.dialogs import NoteScreen

        text = await self.app.push_screen_wait(NoteScreen(f"entry {row.seq}"))
        if text:
            self.append_note(row.seq, text)

    def append_note(self, seq: int, text: str) -> None:
        """Append the note through the save's session (a worker); the review (and the open
        game, when it is this save) then show it."""
        path, player = self.path, self.desk.player

        def done(state: SaveState) -> None:
            if state.entry is None:
                self.notify(f"Not saved: {state.error}", severity="error", markup=False, timeout=10)
            else:
                self.noted(state.entry)

        self.desk.session_for(path).append(
            lambda notices: saves.append_note(path, seq, text, who=player, notices=notices), done
        )

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
        annotates or amends shows it. A gap means others came in between: read again."""
        loaded = self.loaded
        if loaded is None:
            return
        if loaded.partial:
            self._pending.extend(new)  # taken once the whole log is read
            return
        rows = loaded.rows
        last = rows[-1].seq if rows else 0
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
                saves.apply_entry(loaded.game, entry, keep=False)
                loaded.add(entry)  # kept whole: the few entries appended while it is shown
        except saves.SaveError:
            self.load()  # the entry a note points at is not where it was read: read again
            return
        self.sub_title = f"Turn {loaded.game.turn} · {len(rows)} entries"
        self.show_markers()
        self.rebuild(keep=keep)

    # ------------------------------------------------------------------ luck and report
    def action_luck(self) -> None:
        """Show luck in the detail pane's place (worked out off this thread), or hide it."""
        pane = self.query_one("#review-luck-pane", VerticalScroll)
        showing = not pane.display
        pane.display = showing
        self.query_one("#review-detail-pane").display = not showing
        if showing:
            self.query_one("#review-luck", Static).update("Working out the luck…")
            self.work_out_luck()

    @work(thread=True, exclusive=True, group="review-luck", exit_on_error=False)
    def work_out_luck(self) -> None:
        from tui.luck import luck_report, luck_text

        loaded = self.loaded
        if loaded is None or loaded.partial:
            text = "The log is not read yet."
        else:
            # Read from the file again, entry by entry: the review keeps only its rows.
            try:
                tables = self.desk.tables
                report = saves.read_again(
                    lambda: luck_report((r.entry for r in saves.read_entries(self.path)), tables)
                )
                text = luck_text(report, max(40, self.size.width - 4))
            except saves.SaveError as err:
                text = f"No luck figures: {err}"
        self.app.call_from_thread(self.query_one("#review-luck", Static).update, text)

    def action_report(self) -> None:
        self.notify("Writing the after-action report…", markup=False)
        self.write_report()

    @work(thread=True, exclusive=True, group="review-report", exit_on_error=False)
    def write_report(self) -> None:
        """The after-action report, as Markdown, in NAME-report.md beside the save."""
        from tui.report import save_report_markdown

        try:
            text = save_report_markdown(self.path, self.desk.tables)
            # Beside the save with its mode, replacing the name: never through a link.
            target = saves.write_beside(self.path, f"{self.path.stem}-report.md", text)
        except (saves.SaveError, OSError) as err:
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
            self.app.leave_first_review()  # type: ignore[attr-defined]
        else:
            self.dismiss(None)
