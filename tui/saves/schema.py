"""The shape of every log entry, declared once: each kind's fields and every field a reader
of a save touches (the log, luck, the report, the review, the replay), with their types,
ranges and nesting. A load checks each entry against it (`schema_problem`), so what loads
never crashes a command or a screen: an entry that does not fit is refused by name, as any
bad entry is.

Fields a reader takes from any entry whatever its kind (a note's `dice`, a marker's
`markers`) are on `_Entry`, the base of every kind. Fields no reader touches are let
through as they are (a newer crtdesk may write them).

Headless: never imports textual or rich.
"""

from __future__ import annotations

import re
import threading
from typing import Annotated, Any

import msgspec

# Every Struct here is made only to check an entry and let go at once: none is tracked by
# the cyclic collector (`gc=False`; none can be in a cycle: each holds only values read
# from a save). By callgrind, about 2 M fewer instructions on 2,000 entries read.
_Positive = Annotated[int, msgspec.Meta(ge=1)]
_Scalar = str | int | float | bool
# A die's row read: the printed row's name, or its number.
_Row = str | int


class _Die(msgspec.Struct, gc=False):
    """A die as `DiceRoll.to_dict` writes it."""

    dice: str
    total: int
    source: str
    values: list[int] = []
    modifier: int | None = None
    row: _Row | None = None
    purpose: str | None = None
    seed: int | None = None


class _Marker(msgspec.Struct, gc=False):
    id: Annotated[str, msgspec.Meta(min_length=1)]
    kind: Annotated[str, msgspec.Meta(min_length=1)]
    target: Annotated[str, msgspec.Meta(min_length=1)]
    side: str | None = None
    note: str | None = None
    turns: _Positive | None = None


class _Sides(msgspec.Struct, gc=False):
    """A printed cell that gives each side its own line."""

    attacker: list[_Scalar]
    defender: list[_Scalar]


_Cell = _Scalar | list[_Scalar] | _Sides


class _Effects(msgspec.Struct, gc=False):
    attacker: dict[str, Any] = {}
    defender: dict[str, Any] = {}
    summary: str = ""
    notes: list[str] = []
    reminders: list[str] = []
    markers: list[dict[str, Any]] = []


class _Inputs(msgspec.Struct, gc=False):
    """A combat's inputs (`CombatInput.to_dict`): the units are tables (a factor and what
    else the ruleset keeps); every other input is read by the ruleset's schema, which
    refuses what it cannot take."""

    attackers: list[dict[str, Any]] = []
    defenders: list[dict[str, Any]] = []


class _Entry(msgspec.Struct, tag_field="kind", gc=False):
    seq: _Positive
    turn: _Positive
    when: str
    who: str
    note: str | None = None
    target: str | None = None
    dice: list[_Die] = []
    markers: list[_Marker] = []
    cell: _Cell | None = None
    explanation: str = ""
    amends: _Positive | None = None


class _Combat(_Entry, tag="combat"):
    ruleset: str = ""
    inputs: _Inputs = msgspec.field(default_factory=_Inputs)
    effects: _Effects = msgspec.field(default_factory=_Effects)
    trace: list[str] = []
    attack_total: int | float | None = None
    defense_total: int | float | None = None
    odds: str | None = None
    column: str | None = None
    odds_column: str | None = None
    roll: str | None = None
    # What the result did to the units that fought (named units only), and the losses it
    # left for their owner to choose the units of.
    losses: list[_Loss] = []
    open_losses: list[_Open] = []
    # The game's units that fought, by side (by name: a player's chart's units hold none).
    units: _Fought | None = None


class _Event(_Entry, tag="event"):
    event: str = ""
    text: str = ""
    ruleset: str | None = None


class _PlaceMarker(_Entry, tag="place-marker"):
    marker: _Marker | None = None


class _RemoveMarker(_Entry, tag="remove-marker"):
    marker_id: str = ""
    marker_kind: str | None = None


class _Turn(_Entry, tag="turn"):
    expired: list[str] = []
    counted_down: list[str] = []


class _Option(_Entry, tag="option"):
    key: str = ""
    value: _Scalar = ""


class _Note(_Entry, tag="note"):
    annotates: _Positive = 1
    text: str = ""


_Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40)]


_Count = Annotated[int, msgspec.Meta(ge=0, le=999)]


class _Record(msgspec.Struct, gc=False):
    """A unit's record: its name, side, hex and per-unit fields (tui.engine.units)."""

    name: _Name
    side: _Name | None = None  # an edit names only what changes
    hex: _Name | None = None
    factor: _Count | None = None
    steps: Annotated[int, msgspec.Meta(ge=1, le=99)] | None = None
    ar: Annotated[int, msgspec.Meta(ge=0, le=9)] | None = None
    kind: str | None = None
    supply: str | None = None
    re: Annotated[float, msgspec.Meta(ge=0, le=99)] | None = None


class _Loss(msgspec.Struct, gc=False):
    """What one unit lost: steps or factors (a correction gives some back: below 0), or
    whether it is eliminated."""

    unit: _Name
    steps: int = 0
    factors: int = 0
    eliminated: bool | None = None


class _Fought(msgspec.Struct, gc=False):
    """The game's units a combat's sides fought with, by name."""

    attacker: list[_Name] = []
    defender: list[_Name] = []


class _Open(msgspec.Struct, gc=False):
    """A loss a combat left for its owner to choose the units of."""

    side: str
    what: str
    amount: int
    units: list[_Name]


class _UnitEntry(_Entry, tag="unit"):
    action: str = ""
    unit: _Record | None = None


class _Units(_Entry, tag="units"):
    units: list[_Record] = []
    source: str | None = None


class _LossEntry(_Entry, tag="loss"):
    losses: list[_Loss] = []
    combat: _Positive | None = None


_ENTRY = (
    _Combat
    | _Event
    | _PlaceMarker
    | _RemoveMarker
    | _Turn
    | _Option
    | _Note
    | _UnitEntry
    | _Units
    | _LossEntry
)


class _One(msgspec.Struct, gc=False):
    """An entry, held: msgspec keeps what it works out about a Struct's fields, so converting
    to this costs a quarter of converting to the bare union (worked out again each call)."""

    entry: _ENTRY


class _Many(msgspec.Struct, gc=False):
    """Entries read together, held as `_One` holds one: one conversion checks them all."""

    entries: list[_ENTRY]


_MISSING = re.compile(r"Object missing required field `([^`]*)`")
_TYPE_WORDS = {
    "`int`": "a whole number",
    "`str`": "text",
    "`float`": "a number",
    "`bool`": "true/false",
    "`array`": "an array",
    "`object`": "a table",
    "`int | float`": "a number",
    "`int | null`": "a whole number",
    "`str | null`": "text",
    "`int | float | null`": "a number",
    "`object | null`": "a table",
}


def _words(message: str) -> tuple[str, bool]:
    """msgspec's "Expected `int`, got `str`" in the store's words; and whether the value
    is worth naming after it."""
    if message.startswith("Expected "):
        wanted, _, got = message[len("Expected ") :].partition(", got ")
        if " of length >= " in wanted:
            return "may not be empty", False
        if " >= " in wanted:
            kind, _, least = wanted.partition(" >= ")
            return f"must be {_TYPE_WORDS.get(kind, kind)} of {least} or more", True
        return "must be " + _TYPE_WORDS.get(wanted, wanted.replace("`", "")), True
    missing = _MISSING.match(message)
    if missing:
        return f"needs '{missing[1]}'", False
    if message.startswith("Invalid value"):
        return "is not an entry kind this crtdesk knows", True
    return message[:1].lower() + message[1:], True


def _at(entry: Any, path: str) -> tuple[str, Any, bool]:
    """The path msgspec names (`$.dice[0].total`) as a key ("dice[0].total"), the value
    there, and whether there is one."""
    key = path.removeprefix("$").removeprefix(".")
    value: Any = entry
    for part in path.removeprefix("$").replace("[", ".[").split("."):
        if not part:
            continue
        try:
            value = value[int(part[1:-1])] if part.startswith("[") else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return key, None, False
    return key, value, True


# msgspec works out what it needs of the schema's types on their first use; two threads
# doing that at once (the desk reads a save in one worker while another reads the review's
# tail) crashed the process with a segmentation fault in about a third of runs. The first
# conversion is made by one thread at a time; after it, conversions run freely.
_FIRST_USE = threading.Lock()
_ready = False


def _convert(entry: dict[str, Any]) -> None:
    if not _ready:
        _first_use()
    msgspec.convert({"entry": entry}, _One)


def _first_use() -> None:
    """msgspec's first use of the schema's types, by one thread at a time."""
    global _ready
    with _FIRST_USE:
        if not _ready:
            for value, kind in (({"entry": {}}, _One), ({"entries": [{}]}, _Many)):
                try:
                    msgspec.convert(value, kind)
                except msgspec.ValidationError:
                    pass  # {} is no entry: the types are worked out all the same
            _ready = True


def prepare() -> None:
    """Make msgspec's first use of the schema's types now (working them out takes tens of
    milliseconds): a writer does it before it takes a save's lock."""
    if not _ready:
        _first_use()


def fits(entry: dict[str, Any]) -> bool:
    """Whether an entry fits the schema (what `schema_problem` finds nothing in), without
    working out what is wrong: the common case, when a save is read, costs one conversion."""
    try:
        _convert(entry)
    except msgspec.ValidationError:
        return False
    return True


def all_fit(entries: list[dict[str, Any]]) -> bool:
    """Whether every one of some entries fits the schema: one conversion for them all (a
    save's entries read together), where `fits` makes one for each."""
    if not _ready:
        _first_use()
    try:
        msgspec.convert({"entries": entries}, _Many)
    except msgspec.ValidationError:
        return False
    return True


def schema_problem(entry: dict[str, Any]) -> tuple[str, str] | None:
    """What in an entry does not fit the schema, as (message, top-level key), or None."""
    try:
        _convert(entry)
    except msgspec.ValidationError as err:
        message, _, path = str(err).rpartition(" - at `$.entry")
        if not path:
            return str(err), "kind"
        key, value, found = _at(entry, "$" + path.rstrip("`"))
        top = key.partition(".")[0].partition("[")[0]
        words, named = _words(message)
        shown = f", not {value!r}" if found and named else ""
        return (f"'{key}' {words}{shown}" if key else f"an entry {words}"), top
    return None
