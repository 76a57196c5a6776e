"""Odds: totals to a ratio rounded in the defender's favour, columns, and column shifts."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

import msgspec

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


# Pure functions of a chart's labels and two totals, asked for on every dice path of every
# preview: each answer is worked out once.
@lru_cache(maxsize=1024)
def label_ratio(label: str) -> Fraction:
    """The ratio a printed column label stands for: "3-1" -> 3, "1:2" -> 1/2, "10-1+" -> 10."""
    match = _LABEL.match(label.strip())
    if match is None:
        raise ValueError(f"not an odds label: {label!r}")
    return Fraction(int(match.group(1)), int(match.group(2)))


@lru_cache(maxsize=4096)
def column_for_ratio(columns: tuple[str, ...], attack: int, defense: int) -> int | None:
    """Index of the rightmost column whose ratio is <= A/D; None when below the first."""
    found = None
    if type(attack) is int and type(defense) is int and defense > 0:
        # Whole totals: N/M <= A/D as N*D <= A*M (M, D > 0), no Fraction made or compared.
        for index, (numerator, denominator) in enumerate(label_terms(columns)):
            if numerator * defense <= attack * denominator:
                found = index
        return found
    exact = Fraction(attack, defense)
    for index, label in enumerate(columns):
        if label_ratio(label) <= exact:
            found = index
    return found


@lru_cache(maxsize=256)
def label_terms(columns: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """Each column's ratio as its lowest terms (numerator, denominator > 0)."""
    return tuple((ratio.numerator, ratio.denominator) for ratio in map(label_ratio, columns))


# A shift and the netted shifts are read field by field, never compared: equal only to
# themselves (eq=False).
class Shift(msgspec.Struct, frozen=True, eq=False):
    """One column shift asked for: who or what caused it, and the columns (+ = attacker's way)."""

    source: str
    asked: int

    def describe(self) -> str:
        return f"{self.source}: {_columns(self.asked)}"


class NetShift(msgspec.Struct, frozen=True, eq=False):
    """All the shifts of one combat, netted first and then applied once: the column moves by
    the net, stopping at the table's first or last column (RULINGS)."""

    shifts: tuple[Shift, ...]
    net: int
    before: str
    after: str
    index: int
    stopped_at_edge: bool

    def describe(self) -> list[str]:
        """One line per shift and one for the net; a single shift is one line."""
        edge = " (stopped at the table's edge)" if self.stopped_at_edge else ""
        moved = f"{self.before} -> {self.after}{edge}"
        if not self.shifts:
            return []
        if len(self.shifts) == 1:
            return [f"{self.shifts[0].describe()}, {moved}"]
        lines = [shift.describe() for shift in self.shifts]
        if self.net == 0:
            lines.append(f"Net 0 columns: the shifts cancel, the column stays {self.before}")
        else:
            lines.append(f"Net {_columns(self.net)}, {moved}")
        return lines


def _columns(amount: int) -> str:
    way = "right" if amount > 0 else "left"
    return f"{abs(amount)} column{'s' if abs(amount) != 1 else ''} {way}"


def apply_shifts(columns: tuple[str, ...], start: int, shifts: list[tuple[str, int]]) -> NetShift:
    """Net every shift (+ the attacker's way), then move from `start` once, stopping at the
    first or last column. Shifts of 0 columns are left out."""
    asked = tuple(Shift(source, amount) for source, amount in shifts if amount)
    net = sum(shift.asked for shift in asked)
    target = start + net
    index = min(max(target, 0), len(columns) - 1)
    return NetShift(asked, net, columns[start], columns[index], index, index != target)
