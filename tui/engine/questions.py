"""The questions the one procedure asks (tui.engine.procedure), and the roller that finds
the first die not yet answered: what a ruleset's rules ask once the dice are read is made of
these, and so are the Pair-o-Dice questions away from the CRT (the Hero Site draw, the
Engineer/Frogman's hex). Headless: never imports textual or rich."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from tui.engine.dice import DiceRoll, Roller

# The questions are read field by field, never compared or kept as keys: each is made with
# no generated __eq__ or __hash__ (eq=False), which `crtdesk resolve` would make at every
# start for nothing.


@dataclass(frozen=True, eq=False)
class DiceQuestion:
    field: str  # the input dice rolled by hand are kept in (roll, surprise_roll, rerolls, ...)
    purpose: str
    count: int
    sides: int
    modifier: int = 0  # what the desk adds to the dice before it reads a row

    @property
    def dice(self) -> str:
        return f"{self.count}d{self.sides}"

    @property
    def low(self) -> int:
        return self.count

    @property
    def high(self) -> int:
        return self.count * self.sides

    @property
    def prompt(self) -> str:
        """ "surprise (2d6)", "combat (2d6), DRM +1 added": what the dice are for."""
        text = f"{self.purpose} ({self.dice})"
        if self.modifier:
            text += f", DRM {self.modifier:+d} added"
        return text


@dataclass(frozen=True, eq=False)
class Option:
    key: str  # the key that picks it in a dialog
    label: str
    value: Any


@dataclass(frozen=True, eq=False)
class ChoiceQuestion:
    field: str
    prompt: str
    options: tuple[Option, ...]


@dataclass(frozen=True, eq=False)
class NumberQuestion:
    field: str
    prompt: str
    low: int
    high: int | None
    empty: str  # what no number means ("none")


@dataclass(frozen=True, eq=False)
class MarkerQuestion:
    field: str
    prompt: str
    markers: tuple[Any, ...]  # markers in play (each with an `id`); answered by one's id


Question = DiceQuestion | ChoiceQuestion | NumberQuestion | MarkerQuestion


class AnsweringRoller(Roller):
    """Reads the dice answered so far: those rolled by hand are in the combat's inputs,
    those the desk rolled are `kept` and read in turn. At the first die not yet answered it
    notes the question and reads the lowest face, so the rest can be read for what is known."""

    def __init__(self, kept: list[DiceRoll]) -> None:
        super().__init__(random.Random(0))
        self.kept = kept
        self.used = 0
        self.known = 0  # dice read for real, before the first one wanted
        self.wanted: DiceQuestion | None = None

    def roll(
        self,
        purpose: str,
        count: int,
        sides: int,
        manual: int | None = None,
        field: str = "roll",
        modifier: int = 0,
    ) -> int:
        if self.wanted is None and manual is not None:
            self.known += 1
            return super().roll(purpose, count, sides, manual, field, modifier)
        if self.wanted is None and self.used < len(self.kept):
            die = self.kept[self.used]
            self.used += 1
            self.known += 1
            self.rolls.append(replace(die, purpose=purpose, modifier=modifier))
            return die.total
        if self.wanted is None:
            self.wanted = DiceQuestion(field, purpose, count, sides, modifier)
        self.rolls.append(DiceRoll(purpose, f"{count}d{sides}", (), count, "desk", modifier))
        return count
