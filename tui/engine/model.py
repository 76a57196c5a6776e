"""The engine's data: what a player enters for one combat (CombatInput, Unit), what a
resolver returns (Outcome) and a combat's exact chances (Distribution); cells as text are
in tui.engine.cells. The resolvers and the front door in tui.engine.combat both import
this module; it imports neither."""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from fractions import Fraction
from typing import Any

import msgspec

from tui.engine.cells import plain
from tui.engine.dice import DiceRoll
from tui.engine.records import Record, defaults


class Unit(Record, frozen=True):
    """One unit's combat factor, and in Pair-o-Dice Super/Ultra the terrain of its hex.

    OCS counters say more (all optional, so a plain factor still works): the unit's name,
    steps, action rating, type ("combat", "hq", "dak-brigade"), how it pays combat supply
    ("on-map", "internal", "none"), its size in RE, and the internal-stocks marker it
    already carries ("low", "exhausted")."""

    factor: int
    terrain: str | None = None
    name: str | None = None
    steps: int | None = None
    ar: int | None = None
    kind: str | None = None
    supply: str | None = None
    re: float | None = None
    stocks: str | None = None


class CombatInput(Record, frozen=True):
    """Everything a player enters for one combat. Fields a ruleset does not use stay None."""

    ruleset: str
    attackers: tuple[Unit, ...] = ()
    defenders: tuple[Unit, ...] = ()
    column: str | None = None
    # The result dice rolled by hand, as they lie on the table (before any DRM).
    roll: int | None = None
    # Pair-o-Dice
    attacker_card: str | None = None
    defender_card: str | None = None
    buddy: str | None = None
    medal: str | None = None
    morale_attack: int = 0
    morale_defense: int = 0
    obstacle: str | None = None
    mines_cdf: int | None = None
    # Big Boom
    step: str | None = None
    aaf: int | None = None
    caf: int | None = None
    long_range: bool = False
    # The whole chain's dice rolled by hand, in the order it reads them (attrition, accuracy,
    # direction, combat on target, combat one hex astray); the desk rolls any not given.
    chain_rolls: tuple[int, ...] = ()
    # OCS
    terrain: str | None = None
    attacker_ar: int = 0
    defender_ar: int = 0
    hedgehog: int = 0
    overrun: bool = False
    surprise_roll: int | None = None
    shift_roll: int | None = None
    defender_unsupplied: bool = False
    # OCS per-unit combats: the unit whose AR each side uses (by name; default the highest),
    # the attacking hexes and whether they lie on two non-adjacent hexsides, and each
    # side's option as hexes retreated (the rest of the option is steps lost; None: not
    # chosen yet), and whether the defender ignores its options after the attacker retreats.
    attacker_ar_unit: str | None = None
    defender_ar_unit: str | None = None
    attack_hexes: int = 1
    nonadjacent_hexsides: bool = False
    attacker_option_retreat: int | None = None
    defender_option_retreat: int | None = None
    defender_ignores_options: bool = False
    # Rivets: the defender is the enemy BCPC, which cannot be overrun.
    bcpc: bool = False
    # Day/Night
    time: str | None = None
    drm: int = 0
    # A Day/Night battle's re-rolls: the reserve committed on ENG, pressing on after BTL
    # with a step loss, and the die of any re-roll made by hand (as it lies, 1..6).
    reserve: int | None = None
    press_on: bool = False
    rerolls: tuple[int, ...] = ()
    # Whether the defender's hex gives a step-loss-and-hold option (None: not said), and
    # whether the attacker takes an A1/A1X/A2X as a retreat (disorganized).
    hold: bool | None = None
    attacker_retreats: bool = False
    # A player's chart: each of its modifiers set, (name, value).
    modifiers: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Only the fields that were set, for the log."""
        out: dict[str, Any] = {}
        # Field by field (not `asdict`, which copies every field): it runs on every preview.
        for key, default in _INPUT_DEFAULTS:
            value = getattr(self, key)
            if value != default or key == "ruleset":
                # The units and modifiers are made afresh below: never copied twice.
                plain = isinstance(value, _PLAIN) or key in _MADE_AFRESH
                out[key] = value if plain else deepcopy(value)
        if "attackers" in out:
            out["attackers"] = [_unit_dict(u) for u in self.attackers]
        if "defenders" in out:
            out["defenders"] = [_unit_dict(u) for u in self.defenders]
        if "modifiers" in out:
            out["modifiers"] = dict(self.modifiers)
        return out


_PLAIN = (str, int, float, bool, type(None))
_MADE_AFRESH = frozenset({"attackers", "defenders", "modifiers"})
_INPUT_DEFAULTS: tuple[tuple[str, Any], ...] = defaults(CombatInput)


def _unit_dict(unit: Unit) -> dict[str, Any]:
    """A unit's fields that were set (its factor always)."""
    out: dict[str, Any] = {}
    for key, default in _UNIT_DEFAULTS:
        value = getattr(unit, key)
        if key == "factor" or value != default:
            out[key] = value if isinstance(value, _PLAIN) else deepcopy(value)
    return out


_UNIT_DEFAULTS: tuple[tuple[str, Any], ...] = defaults(Unit)


class Outcome(msgspec.Struct):
    """One resolved combat: the cell as printed, what it means, and how the desk got there."""

    ruleset: str
    attack_total: int | float | None
    defense_total: int | float | None
    odds: str | None
    column: str | None
    roll: str | None
    cell: Any
    effects: dict[str, Any]
    explanation: str
    trace: list[str]
    dice: list[DiceRoll] = msgspec.field(default_factory=list)
    inputs: dict[str, Any] = msgspec.field(default_factory=dict)
    # The column found from the odds and the shifts known before any die (OCS surprise
    # comes later): what a distribution is read against.
    odds_column: str | None = None
    # The odds as rounded from the totals ("7-1", "3:1"), whenever both totals are known
    # and the defence is above 0, even where `odds` names the result instead: "AD", "AV"
    # (Pair-o-Dice) or "overrun" (Rivets). None when a column was given by the player.
    ratio: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "attack_total": self.attack_total,
            "defense_total": self.defense_total,
            "odds": self.odds,
            "ratio": self.ratio,
            "column": self.column,
            "roll": self.roll,
            "cell": plain(self.cell),
            "effects": plain(self.effects),
            "explanation": self.explanation,
            "trace": list(self.trace),
            "dice": [d.to_dict() for d in self.dice],
            "inputs": plain(self.inputs),
            "odds_column": self.odds_column,
        }


class Distribution(Record, frozen=True):
    """The exact chance of every distinct cell for a combat's inputs."""

    ruleset: str
    odds: str | None
    column: str | None
    outcomes: tuple[tuple[Any, Fraction, str], ...]  # (cell, probability, meaning)
    # The decoded effects of each outcome, in the same order (for compact displays).
    details: tuple[dict[str, Any], ...] = ()
    ratio: str | None = None  # as Outcome.ratio
    # The inputs that were set (CombatInput.to_dict), as Outcome.inputs.
    inputs: Mapping[str, Any] = msgspec.field(default_factory=dict)
    # Every column the outcomes are read on (None: an outcome read on no column). `column`
    # is set only when there is exactly one.
    columns: tuple[str | None, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "odds": self.odds,
            "ratio": self.ratio,
            "column": self.column,
            "inputs": plain(self.inputs),
            "columns": list(self.columns),
            "outcomes": [
                {
                    "cell": plain(cell),
                    "probability": float(p),
                    "fraction": f"{p.numerator}/{p.denominator}",
                    "meaning": meaning,
                }
                for cell, p, meaning in self.outcomes
            ],
        }
