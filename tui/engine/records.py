"""The base of the engine's records that are compared or kept as a key (a combat, its
units, a field, a die roll, the tables): a frozen msgspec Struct, whose class msgspec makes
in C. A frozen dataclass's generated methods (an __init__ compiled for each class, and its
frozen __setattr__) cost some 11 M instructions for CombatInput's 40-odd fields alone, and
about 90 M over the records and messages the desk made at start (counted).

`same` tells values apart as their reprs would (5 from 5.0, True from 1), where equality
does not."""

from __future__ import annotations

from typing import Any

import msgspec


class Record(msgspec.Struct, frozen=True):
    """A frozen record: equal when of the same class with equal fields, hashed by its
    fields, shown as `Name(field=value, ...)` (the preview keeps a combat by its repr);
    copied with changes by `msgspec.structs.replace`."""


def defaults(cls: type[msgspec.Struct]) -> tuple[tuple[str, Any], ...]:
    """Each field of a record's class and its default (None where it has none). For a
    class whose defaults are values, not made afresh for each record (TypeError else)."""
    names = cls.__struct_fields__
    given = cls.__struct_defaults__
    if any(hasattr(default, "factory") for default in given):
        raise TypeError(f"{cls.__qualname__}: a default made afresh has no one value")
    return tuple(zip(names, (None,) * (len(names) - len(given)) + given, strict=True))


def same(a: object, b: object) -> bool:
    """Whether two values are equal and of the same types all through (in tuples and in
    records: a combat, its units), as their reprs would be the same."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        assert isinstance(b, tuple)
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, msgspec.Struct):
        assert isinstance(b, msgspec.Struct)
        return same(msgspec.structs.astuple(a), msgspec.structs.astuple(b))
    return a == b
