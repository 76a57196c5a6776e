"""The log review's headless half: what each entry shows (its table cells and its text in
full), the filters, the rows the review keeps, and the reading of a save into them.

The save is read entry by entry (`saves.read_entries`), so a long campaign's log is never
held whole: each entry is kept as its row (its cells, what the filters read, and where it
lies in the file) and read again in full when it is shown in full. The screen
(`tui.screens.review`) shows these rows.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import bisect
import shlex
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from tui import saves
from tui.commands import SHORT_NAMES
from tui.engine.tables import RULESET_IDS
from tui.text import (
    cell_text,
    dice_text,
    entry_text,
    marker_text,
    one_line,
    shown_lines,
    when_text,
)

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


RESULT_MIN = 12


_GAP = 1  # the space after each cell


_EDGE = 1 + 2  # the space before the first cell, and the scrollbar


_WIDE_NOTE = 140  # from this width the note column doubles


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
_NOTE_KEYS = ("seq", "who", "when", "text")


@dataclass
class Index:
    """What one entry's neighbours say of it: the notes on it and the entries amending it
    (their number, cell and explanation); `entry_of` reads an entry in full by its number."""

    notes_on: dict[int, list[Mapping[str, Any]]] = field(default_factory=dict)
    amended_by: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    entry_of: Callable[[int], Mapping[str, Any] | None] = _no_entry

    def add(self, entry: Mapping[str, Any]) -> None:
        if entry["kind"] == "note":
            # What a note shows of itself on the entry it annotates: not the whole entry.
            shown = {key: entry[key] for key in _NOTE_KEYS if key in entry}
            self.notes_on.setdefault(entry["annotates"], []).append(shown)
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
        "ruleset": SHORT_NAMES.get(ruleset, ruleset or what),
        "sides": f"{_number(attack)}:{_number(defence)}" if combat and attack is not None else "",
        "odds": one_line(entry.get("odds") or ""),
        "column": one_line(entry.get("column") or ""),
        "dice": _dice_short(entry.get("dice", [])),
        "result": result,
        "note": (f"({len(notes)}) " if len(notes) > 1 else "") + (notes[0] if notes else ""),
    }


def _search_text(entry: Mapping[str, Any], cells: Mapping[str, str], index: Index) -> str:
    """What the filter's words are looked for in: the cells, the entry in words (unless the
    result cell already says them: kept once, a long campaign keeps this for every entry)
    and the notes on it."""
    words = entry_text(entry)[1]
    said = [words] if words not in cells.get("result", "") else []
    return " ".join([*cells.values(), *said, *index.notes(entry)]).lower()


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


# --- the rows and the reading ----------------------------------------------------------------


@dataclass(slots=True)
class Row:
    """One entry as the review shows it: its cells (in CELL_KEYS order), what the filters
    read, and where it lies in the save to read it in full; or, without a place, the entry
    itself (read from the end of the file, appended since, or read by the whole-file
    reader). Made when asked for (`Loaded.rows`): the review keeps its rows in columns."""

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


_NO_PLACE = -1
# The rows whose cells are kept at once: a screenful or two, and some scrolling either way.
_CELLS_KEPT = 512


class Loaded:
    """A save read off the UI thread: what the review keeps of each entry, ready to show.

    Kept compact for a long campaign: per entry its number, turn, player, ruleset and place
    in the save in arrays, and the text the filters search; the cells of a row are made
    when it is shown (the entry read again from its place) and only the last few hundred
    kept. `rows` gives each entry as a `Row`."""

    def __init__(
        self,
        path: Path,
        game: saves.Game,
        index: Index | None = None,
        partial: bool = False,
    ) -> None:
        self.path = path
        # The header, the turn, the markers and the options; its `entries` stay empty.
        self.game = game
        self.index = index or Index()
        # Only the log's last entries (`read_tail`): the whole log is still being read.
        self.partial = partial
        self._seq = array("q")
        self._turn = array("q")
        self._who = array("l")  # into _names
        self._ruleset = array("l")  # into _names; -1: none
        self._offset = array("q")  # _NO_PLACE: the entry is in _kept
        self._size = array("q")
        self._search: list[str] = []
        self._names: list[Any] = []
        self._name_ids: dict[Any, int] = {}
        self._kept: dict[int, dict[str, Any]] = {}
        self._cells: OrderedDict[int, tuple[str, ...]] = OrderedDict()
        # Through a weak reference: a bound method here made every Loaded a cycle, its rows
        # kept after the review let it go until a full collection walked them all.
        loaded = weakref.ref(self)

        def entry_of(seq: int) -> dict[str, Any] | None:
            found = loaded()
            return None if found is None else found.entry_of(seq)

        self.index.entry_of = entry_of

    def __len__(self) -> int:
        return len(self._seq)

    @property
    def rows(self) -> _Rows:
        return _Rows(self)

    def _name_id(self, value: Any) -> int:
        if value is None:
            return -1
        try:
            found = self._name_ids.get(value)
        except TypeError:  # not a name at all (a hand edit): shown as text
            value = str(value)
            found = self._name_ids.get(value)
        if found is None:
            found = self._name_ids[value] = len(self._names)
            self._names.append(value)
        return found

    def add(self, entry: dict[str, Any], place: saves.Place | None = None) -> None:
        """The next entry's row (the entry itself kept when it has no place); an entry a
        note or card points at shows it in its own row too."""
        self.index.add(entry)
        position = len(self._seq)
        self._seq.append(entry["seq"])
        self._turn.append(entry["turn"])
        self._who.append(self._name_id(str(entry.get("who", ""))))
        self._ruleset.append(self._name_id(entry.get("ruleset")))
        self._offset.append(place.offset if place is not None else _NO_PLACE)
        self._size.append(place.size if place is not None else 0)
        if place is None:
            self._kept[position] = entry
        self._search.append(self._search_of(entry))
        pointed = entry.get("annotates") if entry["kind"] == "note" else entry.get("amends")
        at = self.position(pointed) if isinstance(pointed, int) else None
        if at is not None and at < position:
            self._search[at] = self._search_of(self.entry(at))
            self._cells.pop(at, None)

    def _search_of(self, entry: dict[str, Any]) -> str:
        return _search_text(entry, entry_cells(entry, self.index), self.index)

    def position(self, seq: int) -> int | None:
        """Where entry `seq` is among the rows (they are in the order of their numbers)."""
        at = bisect.bisect_left(self._seq, seq)
        return at if at < len(self._seq) and self._seq[at] == seq else None

    def seq(self, position: int) -> int:
        return self._seq[position]

    def turn(self, position: int) -> int:
        return self._turn[position]

    def who(self, position: int) -> str:
        return str(self._names[self._who[position]])

    def ruleset(self, position: int) -> str | None:
        found = self._ruleset[position]
        return None if found == -1 else self._names[found]

    def place(self, position: int) -> saves.Place | None:
        offset = self._offset[position]
        return None if offset == _NO_PLACE else saves.Place(offset, self._size[position])

    def entry(self, position: int) -> dict[str, Any]:
        """The entry of a row in full: kept, or read again from the save. SaveError
        (StaleOffset) when the file no longer holds it where it was read."""
        kept = self._kept.get(position)
        if kept is not None:
            return kept
        place = self.place(position)
        assert place is not None
        return saves.read_entry(self.path, place, self._seq[position])

    def entry_of(self, seq: int) -> dict[str, Any] | None:
        position = self.position(seq)
        return None if position is None else self.entry(position)

    def cells(self, position: int) -> tuple[str, ...]:
        """A row's cells (in CELL_KEYS order), made from its entry (read again from the
        save); a row whose entry is no longer where it was read says so in its result."""
        found = self._cells.get(position)
        if found is not None:
            self._cells.move_to_end(position)
            return found
        try:
            found = tuple(entry_cells(self.entry(position), self.index).values())
        except saves.SaveError:
            shown = {key: "" for key in CELL_KEYS}
            shown |= {"seq": str(self._seq[position]), "turn": str(self._turn[position])}
            shown["result"] = "(the save changed since it was read: read it again)"
            return tuple(shown.values())
        self._cells[position] = found
        if len(self._cells) > _CELLS_KEPT:
            self._cells.popitem(last=False)
        return found

    def search(self, position: int) -> str:
        return self._search[position]

    def matching(self, wanted: Filter) -> list[int]:
        """The positions of the rows `wanted` lets through, in order."""
        positions: Iterable[int] = range(len(self._seq))
        if wanted.turns is not None:
            low, high = wanted.turns
            turns = self._turn
            positions = [i for i in positions if low <= turns[i] <= high]
        if wanted.ruleset is not None:
            rulesets, names = self._ruleset, self._names
            positions = [
                i for i in positions if rulesets[i] != -1 and names[rulesets[i]] == wanted.ruleset
            ]
        if wanted.player is not None:
            whos, names = self._who, self._names
            positions = [i for i in positions if str(names[whos[i]]).lower() == wanted.player]
        if wanted.words:
            search, words = self._search, wanted.words
            positions = [i for i in positions if all(word in search[i] for word in words)]
        return list(positions)

    def row(self, position: int) -> Row:
        return Row(
            seq=self._seq[position],
            turn=self._turn[position],
            who=self.who(position),
            ruleset=self.ruleset(position),
            cells=self.cells(position),
            search=self._search[position],
            place=self.place(position),
            entry=self._kept.get(position),
        )


class _Rows(Sequence[Row]):
    """The rows of a `Loaded`, each made when asked for."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded

    def __len__(self) -> int:
        return len(self.loaded)

    @overload
    def __getitem__(self, position: int) -> Row: ...

    @overload
    def __getitem__(self, position: slice) -> list[Row]: ...

    def __getitem__(self, position: int | slice) -> Row | list[Row]:
        if isinstance(position, slice):
            return [self.loaded.row(i) for i in range(len(self))[position]]
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(position)
        return self.loaded.row(position)


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


def read_for_review(path: Path, chunk: int | None = None) -> Loaded:
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
