"""The kinds of a ruleset's inputs, one class each: a unit list, the OCS counters, a choice,
a tick, a tick that may be left unsaid, a whole number, a signed number, a name, dice, a
list of dice and a player's chart's modifiers.

A kind knows how a value typed is read (text -> value, or an InputError naming the value
and what is allowed), the shape of its CLI flag (argparse's keywords) and the flags that
give a value back, its check (the range a game can reach), how a logged value is read back,
and which desk widget shows it: a name (`Shown`) the desk maps to a widget class, for the
engine never imports one. A Field (tui.engine.schema) has one of these as its kind: the
CLI, the desk's form and the range check ask the kind, and never switch on it.

Light on purpose: a form is drawn from these before any combat is made, so the combat
model is imported by the functions that make a unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from tui.engine.errors import InputError

if TYPE_CHECKING:
    from tui.engine.model import Unit
    from tui.engine.tables import Tables


# A combat's two sides, as every input and effect names them.
SIDES = ("attacker", "defender")


class FieldShape(Protocol):
    """What a kind reads of its field (a tui.engine.schema.Field, which holds the kind)."""

    @property
    def name(self) -> str: ...

    @property
    def flag(self) -> str: ...

    @property
    def metavar(self) -> str: ...

    @property
    def low(self) -> int | str | None: ...

    @property
    def allowed(self) -> str: ...

    @property
    def said_as(self) -> str: ...

    def bounds(self, tables: Tables) -> tuple[int | None, int | None]: ...

    def form_options(self, ruleset: str, tables: Tables) -> tuple[tuple[Any, str], ...]: ...


class Shown(Enum):
    """The desk widget a field is shown in (the desk maps each to a widget class)."""

    UNIT_ROWS = "unit rows"  # a row a unit: its factor, and its hex's terrain where it counts
    OCS_UNIT_ROWS = "OCS unit rows"  # a counter a row: strength, steps, AR, name, and more
    NUMBER = "number"  # a small number typed
    CHOICE = "choice"  # one of a few named values, cycled through
    TICK = "tick"  # a box ticked or not
    NOTHING = "nothing"  # not a widget of its own (a player's chart's modifiers: one each)


FACTOR = "a whole number >= 0"
# How the CLI types a unit where terrain counts.
_AT_TERRAIN = " (or N@terrain in pod-super/pod-ultra)"


def a(what: str) -> str:
    """ "a CAF", "an attack": what a missing value is, with its article."""
    return f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"


def _number(name: str, text: str, digits: str) -> int:
    """`digits` (ASCII, with an optional sign) as an int; more digits than Python reads into
    one (over 4300) are refused as the value typed, not a traceback."""
    try:
        return int(digits)
    except ValueError:
        raise InputError(name, text, "a whole number of at most 4300 digits") from None


def whole(name: str, text: str, low: int | None = None) -> int:
    """A whole number as typed ("+" or "-" allowed before its digits); one below `low` (if
    given) is refused, naming it."""
    typed = text.strip()
    digits = typed[1:] if typed[:1] in ("+", "-") else typed
    allowed = "a whole number" + (f" >= {low}" if low is not None else " (+ or -)")
    if not digits.isdigit() or not digits.isascii():
        raise InputError(name, text, allowed)
    number = _number(name, text, typed)
    if low is not None and number < low:
        raise InputError(name, text, allowed)
    return number


def _factor(name: str, text: str) -> int:
    """A unit's factor as typed: digits only (no sign)."""
    typed = text.strip()
    if not typed.isdigit() or not typed.isascii():
        raise InputError(name, text, FACTOR)
    return _number(name, text, typed)


def unit_typed(name: str, text: str) -> Unit:
    """A unit as the command line types it: "N", or "N@terrain" (Pair-o-Dice Super/Ultra
    hex terrain)."""
    from tui.engine.model import Unit  # with the first unit made (see the note at the top)

    factor, at, terrain = text.strip().partition("@")
    try:
        if at and not terrain.strip():
            raise InputError(name, text, FACTOR)
        number = _factor(name, factor)
    except InputError as err:
        if err.allowed != FACTOR:
            raise
        raise InputError(name, text, FACTOR + _AT_TERRAIN) from None
    return Unit(number, terrain.strip().lower() or None)


# A logged unit's keys and the types each may hold.
_UNIT_TYPES: dict[str, tuple[type, ...]] = {
    "factor": (int,),
    "terrain": (str,),
    "name": (str,),
    "steps": (int,),
    "ar": (int,),
    "kind": (str,),
    "supply": (str,),
    "re": (int, float),
    "stocks": (str,),
}


def logged_unit(name: str, value: Any) -> Unit:
    """A unit as a save logs it (CombatInput.to_dict), read back; InputError names a key or
    a value a unit cannot hold."""
    from tui.engine.model import Unit  # with the first unit made (see the note at the top)

    if not isinstance(value, Mapping) or "factor" not in value:
        raise InputError(name, value, "a unit as logged: a table with its factor")
    for key, item in value.items():
        if key not in _UNIT_TYPES:
            raise InputError(f"{name} {key}", item, "a unit field: " + ", ".join(_UNIT_TYPES))
        if item is not None and (isinstance(item, bool) or not isinstance(item, _UNIT_TYPES[key])):
            raise InputError(f"{name} {key}", item, f"a {_UNIT_TYPES[key][0].__name__}")
    return Unit(**dict(value))


class Kind:
    """What every kind answers; a plain value typed once, by default. A kind holds no state
    but the options it is made with: one object of each is enough (below)."""

    shown = Shown.NUMBER

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({options})"

    def read(self, field: FieldShape, text: str) -> Any:
        """The value `text` (as typed for `field`) stands for; InputError if none."""
        return text

    def flag_options(self, field: FieldShape) -> dict[str, Any]:
        """argparse's `add_argument` keywords for the field's flag (its help aside)."""
        return {"metavar": field.metavar}

    def from_flag(self, field: FieldShape, given: Any) -> Any:
        """The value of the flag as argparse parsed it (None: not given)."""
        return None if given is None else self.read(field, given)

    def to_flags(self, field: FieldShape, value: Any) -> list[str]:
        """The command-line words that give `value` (`from_flag`'s inverse)."""
        return [field.flag, str(value)]

    def flag_named(self, field: FieldShape, value: Any) -> str:
        """The flag a message names for this field holding `value`."""
        return field.flag

    def merge(self, before: Any, value: Any) -> Any:
        """The value of a field given twice, by two of its flags (`value` the later)."""
        return value

    def range_said(self, field: FieldShape, tables: Tables) -> str:
        """The range the flag's help names (" (0 to 999)"), if it has one."""
        return ""

    def errors(self, field: FieldShape, value: Any, tables: Tables) -> Sequence[InputError]:
        """Each number of `value` beyond what a game could reach (one below its floor, or
        not whole, is left to the resolver)."""
        return ()

    def logged(self, name: str, value: Any) -> Any:
        """A logged value (as a save reads back) as the combat holds it."""
        return tuple(value) if isinstance(value, list) else value

    def on_form(self, field: FieldShape, ruleset: str, tables: Tables) -> bool:
        """Whether the desk's form has anything to show for the field."""
        return True


def _beyond(
    field: FieldShape, numbers: Sequence[Any], tables: Tables, signed: bool
) -> Sequence[InputError]:
    """The numbers above the field's top (or, `signed`, below its floor), each named."""
    low, high = field.bounds(tables)
    if high is None:
        return ()
    found: Sequence[InputError] = ()  # a list only when one is found: read on every key
    for number in numbers:
        if isinstance(number, bool) or not isinstance(number, int):
            continue
        if number > high or (signed and low is not None and number < low):
            text = field.allowed or "a whole number from {low} to {high}"
            error = InputError(field.said_as, number, text.format(low=low, high=high))
            found = [*found, error]
    return found


class Whole(Kind):
    """A whole number from the field's floor (0 if it names none) up."""

    def floor(self, field: FieldShape) -> int:
        return field.low if isinstance(field.low, int) else 0

    def read(self, field: FieldShape, text: str) -> int:
        return whole(field.name, text, self.floor(field))

    def range_said(self, field: FieldShape, tables: Tables) -> str:
        low, high = field.bounds(tables)
        return f" ({low} to {high})" if high is not None else ""

    def errors(self, field: FieldShape, value: Any, tables: Tables) -> Sequence[InputError]:
        return _beyond(field, (value,), tables, signed=False)


class Signed(Whole):
    """A whole number, + or -, between the field's bounds."""

    def read(self, field: FieldShape, text: str) -> int:
        return whole(field.name, text)

    def errors(self, field: FieldShape, value: Any, tables: Tables) -> Sequence[InputError]:
        return _beyond(field, (value,), tables, signed=True)


class Dice(Kind):
    """Dice rolled by hand, as they lie: their total (the resolver checks it is on the
    dice)."""

    def read(self, field: FieldShape, text: str) -> int:
        return whole(field.name, text)


class Repeated(Kind):
    """A value given once per unit or die: its flag is repeated."""

    def flag_options(self, field: FieldShape) -> dict[str, Any]:
        return {"action": "append", "default": [], "metavar": field.metavar}

    def from_flag(self, field: FieldShape, given: Any) -> Any:
        return tuple(self.read(field, text) for text in given) if given else None

    def to_flags(self, field: FieldShape, value: Any) -> list[str]:
        return [word for item in value for word in (field.flag, str(item))]


class DiceList(Repeated):
    """Dice rolled by hand, one die a value, in the order they are read."""

    def read(self, field: FieldShape, text: str) -> int:
        return whole(field.name, text)


class Choice(Kind):
    """One of the field's choices, by name (`whole`: choices that are numbers)."""

    shown = Shown.CHOICE

    def __init__(self, whole: bool = False) -> None:
        self.whole = whole

    def read(self, field: FieldShape, text: str) -> Any:
        return whole(field.name, text) if self.whole else text.strip().lower()

    def on_form(self, field: FieldShape, ruleset: str, tables: Tables) -> bool:
        # A choice the form has nothing to offer is left off it (Basic plays no card before
        # the roll).
        return bool(field.form_options(ruleset, tables))


class Text(Kind):
    """A name, as typed (on the desk, picked among the names the form holds: the unit
    whose action rating a side uses)."""

    shown = Shown.CHOICE


_YES = {"yes": True, "y": True, "true": True, "1": True}
_NO = {"no": False, "n": False, "false": False, "0": False}


class Tick(Kind):
    """Ticked or not: its flag takes no value."""

    shown = Shown.TICK

    def read(self, field: FieldShape, text: str) -> bool | None:
        found = {**_YES, **_NO}.get(text.strip().lower())
        if found is None:
            raise InputError(field.name, text, "yes or no")
        return found

    def flag_options(self, field: FieldShape) -> dict[str, Any]:
        return {"action": "store_true"}

    def from_flag(self, field: FieldShape, given: Any) -> Any:
        return True if given else None

    def to_flags(self, field: FieldShape, value: Any) -> list[str]:
        return [field.flag]


class Maybe(Tick):
    """Yes, no, or not said (None): --flag, --no-flag, or neither."""

    def read(self, field: FieldShape, text: str) -> bool | None:
        return None if not text.strip() else super().read(field, text)

    def flag_options(self, field: FieldShape) -> dict[str, Any]:
        import argparse  # the CLI's, when it makes its flags

        return {"action": argparse.BooleanOptionalAction, "default": None}

    def from_flag(self, field: FieldShape, given: Any) -> Any:
        return given

    def to_flags(self, field: FieldShape, value: Any) -> list[str]:
        return [self.flag_named(field, value)]

    def flag_named(self, field: FieldShape, value: Any) -> str:
        return "--no-" + field.flag.removeprefix("--") if value is False else field.flag


class Modifiers(Kind):
    """A player's chart's modifiers, each set by name: (name, value) pairs. Not a flag or a
    widget of its own: each modifier is a field (tui.engine.rulesets.charts.chart)."""

    shown = Shown.NOTHING

    def logged(self, name: str, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise InputError(name, value, "a table of each modifier's value")
        return tuple((str(key), item) for key, item in value.items())


class Units(Repeated):
    """A side's units, each by its factor: "N", or "N@terrain" on the command line (where a
    unit's hex terrain counts). `blank_rows`: on the desk, a row left empty is no unit (a
    route with no AA), not a factor missing."""

    shown = Shown.UNIT_ROWS

    def __init__(self, blank_rows: bool = False) -> None:
        self.blank_rows = blank_rows

    def read(self, field: FieldShape, text: str) -> Unit:
        return unit_typed(field.said_as, text)

    def read_row(
        self, name: str, parts: Mapping[str, Any], what: str = "factor"
    ) -> tuple[Unit | None, list[tuple[str, InputError]]]:
        """One row of the desk's form, named `name` ("A1"): its factor as typed (`parts`
        "factor", called `what` when missing) and its hex's terrain ("terrain", chosen).
        The unit (None: none read) and each part's error."""
        from_text = str(parts.get("factor") or "")
        if not from_text.strip():
            if self.blank_rows:
                return None, []
            return None, [("factor", InputError(name, None, a(what)))]
        try:
            factor = _factor(name, from_text)
        except InputError as err:
            return None, [("factor", err)]
        from tui.engine.model import Unit  # with the first unit made (see the note at the top)

        return Unit(factor, parts.get("terrain"), name=parts.get("name") or None), []

    def to_flags(self, field: FieldShape, value: Any) -> list[str]:
        # OCS counters (an action rating always) are given whole by their own flag; a
        # unit picked by name elsewhere is its factor here.
        words = []
        for unit in value:
            if unit.ar is None:
                words += [
                    field.flag,
                    str(unit.factor) + (f"@{unit.terrain}" if unit.terrain else ""),
                ]
        return words

    def merge(self, before: Any, value: Any) -> Any:
        # --attack and --attacker both add units.
        return (before or ()) + value

    def errors(self, field: FieldShape, value: Any, tables: Tables) -> Sequence[InputError]:
        return _beyond(field, [unit.factor for unit in value or ()], tables, signed=False)

    def logged(self, name: str, value: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise InputError(name, value, "a list of units")
        return tuple(logged_unit(name, unit) for unit in value)


# An OCS counter's parts: each one's name in messages, and what it is when missing.
_PART_NAMES = {"factor": "strength", "steps": "steps", "ar": "AR", "re": "RE"}
_PART_DEFAULTS: dict[str, Any] = {"steps": 1, "ar": 0, "re": None}


class OcsUnits(Units):
    """A side's OCS counters, whole: NAME:STRENGTH:STEPS:AR[:TYPE[:SUPPLY]] for an
    attacker (TYPE combat by default, SUPPLY on-map), NAME:STRENGTH:STEPS:RE:AR for a
    defender. On the desk, a row a counter, its parts typed apart."""

    shown = Shown.OCS_UNIT_ROWS

    def __init__(self, side: str) -> None:
        super().__init__()
        self.side = side

    @property
    def spec(self) -> tuple[tuple[tuple[str, str], ...], int]:
        """The parts of a counter typed whole, in order, each with its word in the flag's
        help; and how many must be given."""
        if self.side == "attacker":
            parts = ("name", "NAME"), ("factor", "STRENGTH"), ("steps", "STEPS"), ("ar", "AR")
            return (*parts, ("kind", "TYPE"), ("supply", "SUPPLY")), 4
        parts = ("name", "NAME"), ("factor", "STRENGTH"), ("steps", "STEPS"), ("re", "RE")
        return (*parts, ("ar", "AR")), 5

    def read(self, field: FieldShape, text: str) -> Unit:
        spec, least = self.spec
        typed = [part.strip() for part in text.split(":")]
        if not least <= len(typed) <= len(spec) or not typed[0]:
            words = ":".join(word for _, word in spec)
            raise InputError(field.said_as, text, f"{words} (the first {least} given)")
        parts = {part: value for (part, _), value in zip(spec, typed, strict=False)}
        unit, errors = self.read_row(typed[0], parts)
        if errors:
            raise errors[0][1]
        assert unit is not None
        return unit

    def read_row(
        self, name: str, parts: Mapping[str, Any], what: str = "strength"
    ) -> tuple[Unit | None, list[tuple[str, InputError]]]:
        """A counter from its parts as typed (a part not given, None, is its default:
        steps 1, AR 0, type combat, supply on-map, RE not said; the strength must be
        given), called by its name, else `name` ("A1"). The unit (None without a
        strength) and each part's error; a part that cannot be read is its default in
        the unit."""
        from tui.engine.model import Unit  # with the first unit made (see the note at the top)

        called = str(parts.get("name") or "") or name
        numbers: dict[str, Any] = {}
        errors: list[tuple[str, InputError]] = []
        for part in ("factor", "steps", "ar", "re"):
            text = parts.get(part)
            if part == "re" and self.side == "attacker":
                continue
            if text is None:
                if part == "factor":
                    errors.append((part, InputError(called, None, a(what))))
                else:
                    numbers[part] = _PART_DEFAULTS[part]
                continue
            said = f"{called} {_PART_NAMES[part]}"
            try:
                numbers[part] = _re(said, text) if part == "re" else whole(said, text, 0)
            except InputError as err:
                errors.append((part, err))
                numbers.setdefault(part, _PART_DEFAULTS.get(part))
        if numbers.get("factor") is None:
            return None, errors
        attacker = self.side == "attacker"
        return (
            Unit(
                numbers["factor"],
                name=called,
                steps=numbers["steps"],
                ar=numbers["ar"],
                kind=str(parts.get("kind") or "combat").lower() if attacker else None,
                supply=str(parts.get("supply") or "on-map").lower() if attacker else None,
                re=None if attacker else numbers["re"],
            ),
            errors,
        )

    def to_flags(self, field: FieldShape, value: Any) -> list[str]:
        words = []
        for unit in value:
            if unit.name is not None:
                words += [field.flag, self.typed(unit)]
        return words

    def typed(self, unit: Unit) -> str:
        """A counter as its flag takes it (`read`'s inverse)."""
        parts: list[object]
        if self.side == "attacker":
            parts = [unit.name, unit.factor, unit.steps, unit.ar, unit.kind, unit.supply]
        else:
            parts = [unit.name, unit.factor, unit.steps, unit.re, unit.ar]
        return ":".join("" if part is None else str(part) for part in parts).rstrip(":")


def _re(name: str, text: str) -> float:
    """A unit's size in RE: a number >= 0 (1, 0.5, 2)."""
    try:
        size = float(text)
    except ValueError:
        raise InputError(name, text, "a number >= 0 (1, 0.5, 2)") from None
    if not size >= 0:  # NaN too
        raise InputError(name, text, "a number >= 0 (1, 0.5, 2)")
    return size


# The kinds, one object each (a Field names one).
UNITS = Units()
AA_UNITS = Units(blank_rows=True)
OCS_ATTACKERS = OcsUnits(side="attacker")
OCS_DEFENDERS = OcsUnits(side="defender")
CHOICE = Choice()
WHOLE_CHOICE = Choice(whole=True)
TICK = Tick()
MAYBE = Maybe()
WHOLE = Whole()
SIGNED = Signed()
TEXT = Text()
DICE = Dice()
DICE_LIST = DiceList()
MODIFIERS = Modifiers()
