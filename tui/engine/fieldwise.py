"""Equality, hash and repr over a frozen dataclass's fields, written once (`FieldWise`) for
the engine's data that is compared or kept as a key (a combat, its units, a field, a die
roll, the tables) rather than generated for each class at import: that generated code was
some 18 M instructions of every `crtdesk resolve` (which is mostly start; 6 M for
CombatInput's 40-odd fields alone). Standard library only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any, ClassVar, TypeVar

_Self = TypeVar("_Self", bound="FieldWise")


class FieldWise:
    """A base for a frozen dataclass made with eq=False, repr=False (and `fieldwise` called
    on it once made): its equality, hash and repr behave as the generated ones do: equal
    when of the same class with equal fields, the hash of the fields' tuple, and
    `Name(field=value, ...)` (the preview keeps a combat by its repr)."""

    __slots__ = ()
    # The fields' names and a getter of their values as a tuple (set with `fieldwise`), and
    # each name's place among them.
    _names: ClassVar[tuple[str, ...]]
    _values: ClassVar[Callable[[Any], tuple[Any, ...]]]
    _places: ClassVar[dict[str, int]]

    def replaced(self: _Self, **changes: Any) -> _Self:
        """A copy with `changes` made, as `dataclasses.replace` makes it, without asking the
        dataclass for its fields again: the next column's search makes a few dozen a
        keystroke. Its fields are set as the frozen dataclass's __init__ sets them (each in
        the instance's dict, in order; `fieldwise` refuses a class whose __init__ does more),
        at once rather than one frozen `__setattr__` a field: a combat has 40-odd."""
        cls = type(self)
        values = list(cls._values(self))
        places = self._places
        for name, value in changes.items():
            if name not in places:
                raise TypeError(f"{cls.__qualname__} has no field {name!r}")
            values[places[name]] = value
        made = object.__new__(cls)
        made.__dict__.update(zip(cls._names, values, strict=True))
        return made

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return type(self)._values(self) == type(self)._values(other)

    def __hash__(self) -> int:
        return hash(type(self)._values(self))

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{n}={v!r}" for n, v in zip(self._names, type(self)._values(self), strict=True)
        )
        return f"{type(self).__qualname__}({shown})"


def fieldwise(cls: type[FieldWise]) -> None:
    """Give a FieldWise dataclass the names and the getter of its fields (two or more: the
    getter of one gives the value itself, not a tuple)."""
    found = fields(cls)  # type: ignore[arg-type]
    cls._names = tuple(f.name for f in found)
    if len(cls._names) < 2:
        raise TypeError(f"{cls.__qualname__}: FieldWise needs two fields or more")
    if not all(f.init and not f.kw_only for f in found):
        raise TypeError(f"{cls.__qualname__}: FieldWise fields are all given in order")
    if hasattr(cls, "__post_init__") or not cls.__dictoffset__:
        # `replaced` sets the fields in the instance's dict, as __init__ does, and no more.
        raise TypeError(f"{cls.__qualname__}: FieldWise data has no __post_init__ or slots")
    cls._places = {name: place for place, name in enumerate(cls._names)}
    cls._values = attrgetter(*cls._names)


def same(a: object, b: object) -> bool:
    """Whether two values are equal and of the same types all through (in tuples and in
    FieldWise data: a combat, its units), as their reprs would be the same."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        assert isinstance(b, tuple)
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, FieldWise):
        values = type(a)._values
        return same(values(a), values(b))
    return a == b
