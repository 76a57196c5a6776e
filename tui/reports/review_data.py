"""The log review's headless half, what each entry shows: its table cells, its text in
full, what the filters search, and the filters. The rows the review keeps and the reading
of a save into them are in `tui.reports.review_rows`; the screen (`tui.desk.screens.review`) shows them.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tui.engine import registry
from tui.engine.text import (
    cell_text,
    dice_text,
    entry_text,
    marker_text,
    one_line,
    shown_lines,
    when_text,
)
from tui.reports.losses import Losses, Lost, lost_text, remains_text

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


# By a die's source; any other (by hand: "manual", or none in an older save) is marked "h".
_SOURCE_MARKS: dict[str | None, str] = {"desk": "", "seed": "s"}


def _dice_short(dice: Iterable[Mapping[str, Any]]) -> str:
    """The totals rolled, an "h" after one entered by hand and an "s" after one the desk
    rolled from a player's seed: "7", "3h", "5s", "9,4"."""
    return ",".join(
        f"{d.get('total')}{_SOURCE_MARKS.get(d.get('source'), 'h')}" for d in dice or []
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
        self.add_shown(shown_elsewhere(entry))

    def add_shown(self, shown: Iterable[Shown]) -> None:
        """What an entry shows of itself on others (`shown_elsewhere`)."""
        for how, on, what in shown:
            kept = self.notes_on if how == "note" else self.amended_by
            kept.setdefault(on, []).append(what)

    def notes(self, entry: Mapping[str, Any]) -> list[str]:
        """Every note on an entry: the one kept with it, then those added after, in order."""
        found = [one_line(entry["note"])] if entry.get("note") and entry["kind"] != "note" else []
        return found + [one_line(n["text"]) for n in self.notes_on.get(entry["seq"], [])]


# What an entry shows of itself on another: ("note", the entry it annotates, what the note
# shows there) or ("card", the combat it amends, what the card shows there).
Shown = tuple[str, Any, dict[str, Any]]


def shown_elsewhere(entry: Mapping[str, Any]) -> tuple[Shown, ...]:
    """What an entry shows of itself on earlier ones (a note on the entry it annotates, a
    card on the combat it amends), none for most."""
    found: list[Shown] = []
    if entry["kind"] == "note":
        # What a note shows of itself on the entry it annotates: not the whole entry.
        shown = {key: entry[key] for key in _NOTE_KEYS if key in entry}
        found.append(("note", entry["annotates"], shown))
    amends = entry.get("amends")
    if isinstance(amends, int):
        found.append(("card", amends, {key: entry[key] for key in _AMENDING_KEYS if key in entry}))
    return tuple(found)


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
        "ruleset": one_line(registry.short_name(ruleset) if ruleset else what),
        "sides": f"{_number(attack)}:{_number(defence)}" if combat and attack is not None else "",
        "odds": one_line(entry.get("odds") or ""),
        "column": one_line(entry.get("column") or ""),
        "dice": _dice_short(entry.get("dice", [])),
        "result": result,
        "note": (f"({len(notes)}) " if len(notes) > 1 else "") + (notes[0] if notes else ""),
    }


def search_text(entry: Mapping[str, Any], cells: Mapping[str, str], index: Index) -> str:
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


class Filtered(Protocol):
    """What a filter reads of a row (`tui.reports.review_rows.Row`)."""

    @property
    def turn(self) -> int: ...
    @property
    def ruleset(self) -> str | None: ...
    @property
    def who(self) -> str: ...
    @property
    def search(self) -> str: ...


@dataclass(frozen=True)
class Filter:
    """What the filter bar asks for; every part given must match."""

    turns: tuple[int, int] | None = None
    ruleset: str | None = None
    player: str | None = None
    words: tuple[str, ...] = ()

    def matches(self, row: Filtered) -> bool:
        if self.turns is not None and not self.turns[0] <= row.turn <= self.turns[1]:
            return False
        if self.ruleset is not None and row.ruleset != self.ruleset:
            return False
        if self.player is not None and row.who.lower() != self.player:
            return False
        return all(word in row.search for word in self.words)


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
            ruleset = registry.by_name(value)
            if ruleset is None and registry.chart_name(value.lower()) is not None:
                ruleset = value.lower()  # a player's chart no longer read, by its id
            if ruleset is None:
                return Filter(), (
                    f"ruleset {value!r} is not one; expected one of {', '.join(registry.ids())}"
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


def with_token(text: str, key: str, value: str) -> str:
    """The filter `text` with one `key:value` added (or put in place of the key's); the same
    again removes it."""
    try:
        tokens = shlex.split(text)
    except ValueError:  # a lone quote: the words as typed
        tokens = text.split()
    kept = [t for t in tokens if _KEYS.get(t.partition(":")[0].lower()) != key]
    if f"{key}:{value}" not in tokens:
        kept.append(f"{key}:{value}")
    return " ".join(_quoted(t) for t in kept)


# --- losses and what remains ----------------------------------------------------------------


def losses_review_text(losses: Losses) -> str:
    """Each side's losses by unit (with what each has left) and by turn, and the losses
    still open, as the review's losses pane shows them (every line as text)."""
    if not losses.seen:
        return "No units in this game: import an order of battle with crtdesk units NAME import."
    lines: list[str] = []
    for side in losses.sides():
        units = [u for u in losses.units.values() if u.side == side]
        alive = sum(1 for u in units if u.alive)
        lines.append(
            f"{side}: lost {lost_text(losses.side_total(side))} · {alive} of {len(units)} "
            f"{'unit' if len(units) == 1 else 'units'} in play"
        )
        for unit in units:
            where = f" ({unit.hex})" if unit.hex else ""
            lost = Lost(unit.steps_lost, unit.factors_lost, int(unit.eliminated))
            lines.append(f"  {unit.name}{where}: lost {lost_text(lost)}; left {remains_text(unit)}")
        for name, found, lost in losses.removed:
            if found == side:
                lines.append(f"  {name}: lost {lost_text(lost)}; taken off the roster")
    lines.append("By turn:")
    turns = sorted(losses.by_turn.items())
    lines += [f"  turn {turn} · {side}: {lost_text(lost)}" for (turn, side), lost in turns]
    if not turns:
        lines.append("  no unit has lost anything yet")
    still = losses.open_losses()
    lines.append("Losses still open:" if still else "Losses still open: none")
    lines += [f"  {o.said()}" for o in still]
    return shown_lines(lines)
