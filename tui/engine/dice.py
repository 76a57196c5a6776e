"""Dice: rolls from an injected RNG or entered by hand, and exact distributions."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any, TypeVar

from msgspec.structs import replace

from tui.engine.errors import InputError
from tui.engine.records import Record

T = TypeVar("T")


# The sources of dice the desk rolled: luck counts "manual" (by hand) and "seed" dice apart.
DESK, SEED, MANUAL = "desk", "seed", "manual"
ROLLED = (DESK, SEED)


class DiceRoll(Record, frozen=True):
    """One roll as used: what it was for, the dice, the total, and who rolled it."""

    purpose: str
    dice: str
    values: tuple[int, ...]
    total: int
    # "desk" (rolled by crtdesk), "seed" (rolled by crtdesk from a seed the player gave:
    # the same seed gives the same dice, so it is kept) or "manual" (physical dice entered
    # by hand).
    source: str
    # The modifier the desk added to the dice (a DRM), and the row it read (after any clamp
    # to the printed rows): only where a chart reads a modified total (OCS, Day/Night).
    modifier: int = 0
    row: str | None = None
    seed: int | None = None  # the seed a "seed" die was rolled from

    @property
    def rolled(self) -> bool:
        """Rolled by the desk (from a seed or not), not entered by hand."""
        return self.source in ROLLED

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "purpose": self.purpose,
            "dice": self.dice,
            "values": list(self.values),
            "total": self.total,
            "source": self.source,
        }
        if self.modifier:
            out["modifier"] = self.modifier
        if self.row is not None:
            out["row"] = self.row
        if self.seed is not None:
            out["seed"] = self.seed
        return out

    @classmethod
    def from_dict(cls, logged: Mapping[str, Any]) -> DiceRoll:
        """A roll as `to_dict` logged it."""
        return cls(
            purpose=str(logged.get("purpose", "")),
            dice=str(logged.get("dice", "")),
            values=tuple(logged.get("values") or ()),
            total=int(logged.get("total", 0)),
            source=str(logged.get("source", "")),
            modifier=int(logged.get("modifier", 0)),
            row=logged.get("row"),
            seed=logged.get("seed") if type(logged.get("seed")) is int else None,
        )


def parse_dice(text: str) -> tuple[int, int]:
    """ "2d6" -> (2, 6): how many dice, and their sides."""
    count, _, sides = text.strip().lower().partition("d")
    if not (count.isdigit() and sides.isdigit()):
        raise ValueError(f"not a dice expression like 2d6: {text!r}")
    return int(count), int(sides)


@cache
def total_distribution(count: int, sides: int) -> tuple[tuple[int, Fraction], ...]:
    """Exact distribution of the total of `count` dice with `sides` sides."""
    weights: dict[int, int] = {}
    for faces in product(range(1, sides + 1), repeat=count):
        weights[sum(faces)] = weights.get(sum(faces), 0) + 1
    whole = sides**count
    return tuple((total, Fraction(n, whole)) for total, n in sorted(weights.items()))


class Roller:
    """Rolls dice for a resolver. A roll entered by hand (`manual`) is checked and used;
    otherwise the injected RNG rolls. Every roll is recorded in `rolls`."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.rolls: list[DiceRoll] = []

    def roll(
        self,
        purpose: str,
        count: int,
        sides: int,
        manual: int | None = None,
        field: str = "roll",
        modifier: int = 0,
    ) -> int:
        """The dice as they lie (their total, before `modifier`, which is only noted):
        entered by hand (`manual`, checked against the faces) or rolled."""
        dice = f"{count}d{sides}"
        if manual is not None:
            check_roll(field, manual, count, count * sides, dice)
            self.rolls.append(DiceRoll(purpose, dice, (), manual, "manual", modifier))
            return manual
        values = tuple(self.rng.randint(1, sides) for _ in range(count))
        self.rolls.append(DiceRoll(purpose, dice, values, sum(values), "desk", modifier))
        return sum(values)

    def read_row(self, row: str) -> None:
        """Note the row the last roll was read on (its total plus the modifier, clamped)."""
        if self.rolls:
            self.rolls[-1] = replace(self.rolls[-1], row=row)


def check_roll(field: str, value: int, low: int, high: int, what: str) -> None:
    if not low <= value <= high:
        raise InputError(field, value, f"a {what} roll from {low} to {high}")


class _PathRoller(Roller):
    """Replays one path through the dice tree, extending it with the first face of any
    die not yet on the path, and notes how many totals each die could have shown."""

    def __init__(self, path: list[int]) -> None:
        super().__init__(random.Random(0))
        self.path = path
        self.depth = 0
        self.probability = Fraction(1)
        self.branching: list[int] = []

    def roll(
        self,
        purpose: str,
        count: int,
        sides: int,
        manual: int | None = None,
        field: str = "roll",
        modifier: int = 0,
    ) -> int:
        if manual is not None:
            return super().roll(purpose, count, sides, manual, field, modifier)
        options = total_distribution(count, sides)
        if self.depth == len(self.path):
            self.path.append(0)
        choice = self.path[self.depth]
        self.depth += 1
        self.branching.append(len(options))
        total, chance = options[choice]
        self.probability *= chance
        self.rolls.append(DiceRoll(purpose, f"{count}d{sides}", (), total, "desk", modifier))
        return total


def enumerate_dice(run: Callable[[Roller], T]) -> Iterator[tuple[T, Fraction]]:
    """Run `run` once for every combination of dice totals it asks for, yielding each
    result with its exact probability (manual rolls are fixed, probability 1)."""
    path: list[int] = []
    while True:
        roller = _PathRoller(path)
        result = run(roller)
        yield result, roller.probability
        del path[roller.depth :]
        # Advance the path like an odometer, right to left.
        while path and path[-1] + 1 >= roller.branching[len(path) - 1]:
            path.pop()
        if not path:
            return
        path[-1] += 1
