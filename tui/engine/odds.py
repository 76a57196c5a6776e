"""Odds: totals to a ratio rounded in the defender's favour, columns, and column shifts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

_LABEL = re.compile(r"^(\d+)\s*[-:]\s*(\d+)\+?$")


def round_odds(attack: int, defense: int) -> tuple[int, int]:
    """Odds rounded in the defender's favour: (N, 1) with N = floor(A/D) when A >= D,
    else (1, N) with N = ceil(D/A). Needs attack > 0 and defense > 0."""
    if attack <= 0 or defense <= 0:
        raise ValueError("odds need attack > 0 and defense > 0")
    if attack >= defense:
        return attack // defense, 1
    return 1, -(-defense // attack)


def odds_label(attack: int, defense: int, separator: str = "-") -> str:
    left, right = round_odds(attack, defense)
    return f"{left}{separator}{right}"


def label_ratio(label: str) -> Fraction:
    """The ratio a printed column label stands for: "3-1" -> 3, "1:2" -> 1/2, "10-1+" -> 10."""
    match = _LABEL.match(label.strip())
    if match is None:
        raise ValueError(f"not an odds label: {label!r}")
    return Fraction(int(match.group(1)), int(match.group(2)))


def column_for_ratio(columns: tuple[str, ...], attack: int, defense: int) -> int | None:
    """Index of the rightmost column whose ratio is <= A/D; None when below the first."""
    exact = Fraction(attack, defense)
    found = None
    for index, label in enumerate(columns):
        if label_ratio(label) <= exact:
            found = index
    return found


@dataclass(frozen=True)
class Shift:
    """One column shift: who or what caused it, the columns asked for (+ = attacker's way),
    and where it landed."""

    source: str
    asked: int
    before: str
    after: str
    stopped_at_edge: bool

    def describe(self) -> str:
        way = "right" if self.asked > 0 else "left"
        text = f"{self.source}: {abs(self.asked)} column{'s' if abs(self.asked) != 1 else ''} {way}, {self.before} -> {self.after}"
        if self.stopped_at_edge:
            text += " (stopped at the table's edge)"
        return text


def apply_shifts(
    columns: tuple[str, ...], start: int, shifts: list[tuple[str, int]]
) -> tuple[int, list[Shift]]:
    """Move along the columns one shift at a time; each stops at the first or last column."""
    index = start
    done: list[Shift] = []
    for source, amount in shifts:
        if amount == 0:
            continue
        target = index + amount
        clamped = min(max(target, 0), len(columns) - 1)
        done.append(Shift(source, amount, columns[index], columns[clamped], clamped != target))
        index = clamped
    return index, done
