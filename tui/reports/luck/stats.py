"""Luck against the odds, the statistics: how the dice fell in a save, per player and
per ruleset.

Two figures, both from a save's log entries:

- Dice faces against uniform. Every die the desk rolled counts one face; a chi-square test
  against equal chances gives a p-value (the chance that fair dice stray this far or
  further). Dice entered by hand are counted apart, and only where a face is known (one
  die, not a modified total); so are dice the desk rolled from a seed a player gave (the
  same seed gives the same dice, so a player could try seeds and keep a good one).
- Each combat's result against its exact distribution at the odds fought. The result
  obtained gets a mid-rank percentile, P(a worse result) + P(the same result) / 2, with
  results ordered by how good they are for the attacker (see `result_rank`). With fair
  dice a percentile averages exactly 0.5 whatever the odds, so the mean's distance from
  0.5 says whether a player's combats went better or worse than the odds promised.

An entry's player is its `who`: the player who logged a combat is taken as its attacker.
RULINGS "Luck and after-roll cards": the dice are judged as they fell, on the column they
were read on, before any card played after the roll. A combat amended by a later entry (a
card played after the roll, `amends = N`) is read once, as first rolled: the amending entry
repeats its dice and adds nothing here, but for a result it cancelled (Stanfill), which
leaves the combat it amends unjudged. A card played after the roll kept in a combat's own
inputs (as older saves logged a card flag) is left out of the combat judged
(`tui.engine.procedure.as_rolled`).

About 580 lines: the ranking of results, one combat's percentile, the dice faces and the
running tally kept together, as one statistic; the figures' text is in `tui.reports.luck.text`.

Headless: never imports textual or rich.
"""

from __future__ import annotations

import bisect
import json
import math
import operator
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, NamedTuple, TypeGuard

import msgspec

from tui.engine import registry
from tui.engine.combat import CombatInput, Distribution, distribution, plain
from tui.engine.combat import combat_from_inputs as logged_combat
from tui.engine.dice import DESK, MANUAL, SEED
from tui.engine.errors import InputError
from tui.engine.procedure import as_rolled
from tui.engine.schema import judged
from tui.engine.tables import Tables, TablesError, default_tables
from tui.engine.text import one_line
from tui.reports.kept import Memo
from tui.reports.luck.chi_square import chi_square_p

# --- combats read back from the log ----------------------------------------------------------

# A hand-entered total that older saves logged as modified (an OCS 2d6 + DRM, a Day/Night
# row): the engine's purpose for it said "modified", and it shows no die face.
_MODIFIED = "modified"


def combat_from_inputs(inputs: Mapping[str, Any]) -> CombatInput:
    """A logged combat's `inputs` as the CombatInput again, with only what decides its
    chances: not the dice rolled by hand, nor the answers that say how a result is taken
    (the ruleset's schema says which are which)."""
    return logged_combat(inputs, keep=judged)


# --- ordering results for the attacker -----------------------------------------------------

# Day/Night codes, best for the attacker first: the printed charts read in this order down
# every column (tests/engine/test_luck.py checks it against tables.toml).
_ELIMINATED = 10**6  # a loss of every unit, when the side's total is not known
_ACCURACY = {"miss": 0, "half": 1, "all": 2}


def _known(total: float | None) -> TypeGuard[float]:
    return isinstance(total, int | float) and not isinstance(total, bool) and total > 0


def _loss(side: Mapping[str, Any], total: float | None) -> float:
    whole = total if _known(total) else _ELIMINATED
    if side.get("eliminated") or side.get("factors_lost") in ("all", "All"):
        return whole
    lost: float = 0
    for key in ("factors_lost", "steps_lost", "bombers_removed"):
        value = side.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            lost += value
    return min(lost, whole)


def _gone(side: Mapping[str, Any], total: float | None) -> bool:
    """A side that loses all it has (its total known, or its line says so): nothing is left
    of it to retreat, be disorganized, advance or exploit, whatever else its line says."""
    if side.get("eliminated") or side.get("factors_lost") in ("all", "All"):
        return True
    return _known(total) and _loss(side, total) >= total


def _moved(side: Mapping[str, Any]) -> float:
    """Hexes a side must give up: retreats, and options (retreat or lose steps)."""
    moved: float = 0
    for key in ("retreat", "option", "retreat_or_steps"):
        value = side.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            moved += value
    return moved + (1 if side.get("retreat_or_step") else 0)


def result_rank(
    ruleset: str,
    cell: Any,
    effects: Mapping[str, Any],
    attack_total: float | None = None,
    defense_total: float | None = None,
) -> tuple[float, ...]:
    """How good a result is for the attacker: a larger rank is better, equal ranks tie.

    A ruleset that orders its own results (Day/Night, a player's chart) ranks them. Every other
    ruleset compares, in turn: the defender's losses less the attacker's (factors, steps or
    bombers; an eliminated side loses its whole total), the hexes the defender must give up
    less the attacker's (retreats and options; Big Boom's No-entry turns count for the
    bomber), then DG, exploitation and advances, and Big Boom's accuracy. A side that loses
    all it has (eliminated, or losses of its whole total) keeps nothing else of its line:
    nothing is left of it to retreat, advance or exploit, so results that end the same tie.
    """
    if registry.known(ruleset):
        own = registry.get(ruleset).rank(cell, effects)
        if own is not None:
            return own
    attacker = effects.get("attacker") or {}
    defender = effects.get("defender") or {}
    losses = _loss(defender, defense_total) - _loss(attacker, attack_total)
    # A side wiped out keeps none of the rest of its line: a DL2 that takes a 2-factor
    # defender's all ends as a DLX does, its retreat on top of it worth nothing.
    if _gone(defender, defense_total):
        defender = {}
    if _gone(attacker, attack_total):
        attacker = {}
    moved = _moved(defender) - _moved(attacker)
    for marker in effects.get("markers") or ():
        if marker.get("kind") == "no-entry":
            turns = marker.get("turns")
            moved += _ELIMINATED if turns is None else turns
    disorganized = int(bool(defender.get("disorganized"))) - int(bool(attacker.get("disorganized")))
    exploit = attacker.get("exploit_min_ar")
    exploiting = 100 - exploit if isinstance(exploit, int) else 0
    advance = (attacker.get("advance_up_to") or 0) - (defender.get("advance_up_to") or 0)
    accuracy = _ACCURACY.get(str(effects.get("accuracy")), 0)
    return (losses, moved, disorganized, exploiting, advance, accuracy)


def _cell_key(cell: Any) -> str:
    return json.dumps(plain(cell), sort_keys=True)


class Chances(NamedTuple):
    """A result's exact chances as whole numbers (kept and compared without Fractions):
    P(a worse result) = worse / whole, P(the same result) = same / whole, and the
    percentile's variance under fair dice = spread / spread_whole."""

    worse: int
    same: int
    whole: int
    spread: int
    spread_whole: int

    @classmethod
    def of(cls, p_worse: Fraction, p_same: Fraction, variance: Fraction) -> Chances:
        whole = math.lcm(p_worse.denominator, p_same.denominator)
        return cls(
            p_worse.numerator * (whole // p_worse.denominator),
            p_same.numerator * (whole // p_same.denominator),
            whole,
            variance.numerator,
            variance.denominator,
        )

    @property
    def percentile(self) -> Fraction:
        return Fraction(2 * self.worse + self.same, 2 * self.whole)


class CombatLuck(msgspec.Struct, array_like=True, frozen=True):
    """One combat's result against its exact distribution (its chances exact, as whole
    numbers; `p_worse`, `p_same`, `variance` and `percentile` as Fractions). Encodable: a
    luck record keeps it."""

    seq: int
    turn: int
    player: str
    ruleset: str
    # "desk": every die rolled by the desk; "seed": rolled by the desk from a player's seed;
    # "manual": some entered by hand.
    source: str
    odds: Any  # as logged: text, or None
    cell: Any
    chances: Chances

    @property
    def p_worse(self) -> Fraction:
        return Fraction(self.chances.worse, self.chances.whole)

    @property
    def p_same(self) -> Fraction:
        return Fraction(self.chances.same, self.chances.whole)

    @property
    def variance(self) -> Fraction:
        """The variance of a mid-rank percentile under fair dice: (1 - sum of p^3) / 12,
        over the chances p of each distinct rank."""
        return Fraction(self.chances.spread, self.chances.spread_whole)

    @property
    def percentile(self) -> Fraction:
        return self.chances.percentile

    @property
    def shown(self) -> float:
        """The percentile as a float (as float(percentile), without making a Fraction:
        a whole number's true division is correctly rounded too)."""
        chances = self.chances
        return (2 * chances.worse + chances.same) / (2 * chances.whole)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "turn": self.turn,
            "player": self.player,
            "ruleset": self.ruleset,
            "source": self.source,
            "odds": self.odds,
            "cell": plain(self.cell),
            "p_worse": self.chances.worse / self.chances.whole,
            "p_same": self.chances.same / self.chances.whole,
            "percentile": self.shown,
        }


def same_chances(combat: CombatInput, entry: Mapping[str, Any]) -> CombatInput:
    """A combat with the same exact distribution, cheaper to share between combats (the
    ruleset says which: OCS's on its logged odds column)."""
    return registry.get(combat.ruleset).same_chances(combat, entry)


def _chances(
    ruleset: str,
    found: Distribution,
    cell: Any,
    entry: Mapping[str, Any],
    attack: Any,
    defense: Any,
) -> tuple[Fraction, Fraction, Fraction, bool]:
    """P(a worse result), P(the same result) and the percentile's variance of `cell` in
    `found`, and whether they follow from the cell alone (not from the entry's effects)."""
    details = found.details or tuple({} for _ in found.outcomes)
    ranked = [
        (result_rank(ruleset, outcome, detail, attack, defense), chance, _cell_key(outcome))
        for (outcome, chance, _), detail in zip(found.outcomes, details, strict=True)
    ]
    obtained = next((rank for rank, _, key in ranked if key == _cell_key(cell)), None)
    by_cell = obtained is not None
    if obtained is None:
        obtained = result_rank(ruleset, cell, entry.get("effects") or {}, attack, defense)
    by_rank: dict[tuple[float, ...], Fraction] = {}
    for rank, chance, _ in ranked:
        by_rank[rank] = by_rank.get(rank, Fraction(0)) + chance
    p_same = by_rank.get(obtained, Fraction(0))
    p_worse = sum((p for rank, p in by_rank.items() if rank < obtained), Fraction(0))
    variance = (1 - sum((p**3 for p in by_rank.values()), Fraction(0))) / 12
    return p_worse, p_same, variance, by_cell


def _steps(units: Iterable[Any]) -> int | None:
    steps = [unit.steps for unit in units]
    if not steps or any(not isinstance(s, int) for s in steps):
        return None
    return sum(steps)


def _wholes(combat: CombatInput, entry: Mapping[str, Any], tables: Tables) -> tuple[Any, Any]:
    """What each side has to lose, in what the ruleset's results count losses in
    (its Ruleset's `losses`): its units' steps (None where one's are not known), or the logged
    totals of factors."""
    if registry.get(combat.ruleset).losses(tables) == "steps":
        return _steps(combat.attackers), _steps(combat.defenders)
    return entry.get("attack_total"), entry.get("defense_total")


# Why a combat whose result Stanfill cancelled is not judged (in its own entry, or by a
# card played after its roll): nothing came of its dice.
CANCELLED = "its result was cancelled (Margaret Stanfill): nothing happened to judge"


# A combat's chances judged: its ruleset, its chances, and whether they follow from its
# cell alone (not from its effects); or why it cannot be judged (one line).
Judgment = tuple[str, Chances, bool] | str

# The judgments kept within a run, by what decides them: a long campaign fights the same
# combats again and again.
JUDGMENTS_KEPT = 20_000


def _judged_by(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    """What decides a combat's judgment but its effects: its inputs, the odds column OCS's
    chances are read on (`same_chances`), the totals (what each side has to lose) and the
    result."""
    return tuple(map(entry.get, _JUDGED_BY))


_JUDGED_BY = ("inputs", "odds_column", "attack_total", "defense_total", "cell")


def _judgment(
    entry: Mapping[str, Any],
    tables: Tables,
    cache: dict[str, Distribution] | None = None,
    judged: Memo | None = None,
) -> Judgment:
    """A logged combat's chances, from its inputs again (kept in `judged` by what decides
    them, and the distributions in `cache` by the combat read)."""
    decided_by = _judged_by(entry)
    key: bytes | None = None
    if judged is not None:
        key, found = judged.get(decided_by)
        if found is not None:
            kept: Judgment = found  # (no call to `cast` a combat)
            return kept
    try:
        # The dice as they fell: a card played after the roll (a Joker) is no luck.
        combat = as_rolled(combat_from_inputs(entry.get("inputs") or {}), tables)
        read = same_chances(combat, entry)
        read_key = json.dumps(plain(read.to_dict()), sort_keys=True)
        chances = cache.get(read_key) if cache is not None else None
        if chances is None:
            chances = distribution(read, tables)
            if cache is not None:
                cache[read_key] = chances
    except (InputError, TablesError, TypeError, ValueError, KeyError, AttributeError) as err:
        judgment: Judgment = f"its inputs cannot be read again: {one_line(err)}"
    else:
        attack, defense = _wholes(combat, entry, tables)
        p_worse, p_same, variance, by_cell = _chances(
            combat.ruleset, chances, entry.get("cell"), entry, attack, defense
        )
        judgment = (combat.ruleset, Chances.of(p_worse, p_same, variance), by_cell)
    # Kept unless its effects decided it (a result not among the cells the dice give).
    if judged is not None and (isinstance(judgment, str) or judgment[2]):
        judged.put(key, decided_by, judgment)
    return judgment


def combat_luck(
    entry: Mapping[str, Any],
    tables: Tables | None = None,
    cache: dict[str, Distribution] | None = None,
    judged: Memo | None = None,
) -> CombatLuck | str:
    """A logged combat's percentile, or why it has none (one line)."""
    tables = tables or default_tables()
    dice = _rolls(entry)
    if not dice:
        return "no dice were read (an automatic result)"
    if (entry.get("effects") or {}).get("cancelled"):
        return CANCELLED
    found = _judgment(entry, tables, cache, judged)
    if isinstance(found, str):
        return found
    ruleset, chances, _ = found
    if chances.same == chances.whole:
        return "every result the dice could give was as good as this one"
    return CombatLuck(
        seq=int(entry["seq"]),
        turn=int(entry.get("turn", 0)),
        player=str(entry.get("who", "")),
        ruleset=ruleset,
        source=_source(dice),
        odds=entry.get("odds"),
        cell=entry.get("cell"),
        chances=chances,
    )


def _source(dice: Iterable[Mapping[str, Any]]) -> str:
    """A combat's dice as one source: "desk" when the desk rolled them all, "seed" when it
    rolled some from a player's seed, "manual" when any was entered by hand."""
    sources = {die.get("source") for die in dice}
    if sources <= {DESK}:
        return DESK
    return SEED if sources <= {DESK, SEED} else MANUAL


# --- dice faces ------------------------------------------------------------------------------


def _rolls(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """An entry's dice as logged (a roll edited into something else by hand is left out)."""
    dice = entry.get("dice")
    if not isinstance(dice, list):
        return []
    return [d for d in dice if type(d) is dict or isinstance(d, Mapping)]


def _faces(die: Mapping[str, Any]) -> tuple[int, list[int]] | None:
    """(sides, the faces shown) of one logged roll, or None where no face is known."""
    count, _, sides_text = str(die.get("dice", "")).lower().partition("d")
    if not (count.isdigit() and sides_text.isdigit()) or int(sides_text) < 2:
        return None
    sides = int(sides_text)
    values = [v for v in die.get("values") or () if isinstance(v, int)]
    if values and all(1 <= v <= sides for v in values):
        return sides, values
    total = die.get("total")
    if (
        int(count) == 1
        and isinstance(total, int)
        and 1 <= total <= sides
        and _MODIFIED not in str(die.get("purpose", ""))
    ):
        return sides, [total]
    return None


@dataclass(frozen=True)
class FaceCounts:
    """How often each face of one kind of die came up, against equal chances."""

    sides: int
    counts: tuple[int, ...]  # counts[0] is face 1

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @property
    def expected(self) -> float:
        return self.dice / self.sides

    @property
    def chi_square(self) -> float:
        if not self.dice:
            return 0.0
        return sum((c - self.expected) ** 2 for c in self.counts) / self.expected

    @property
    def df(self) -> int:
        return self.sides - 1

    @property
    def p_value(self) -> float | None:
        return chi_square_p(self.chi_square, self.df) if self.dice else None

    @property
    def few(self) -> bool:
        """Fewer than 5 expected per face: the chi-square p-value is only a rough guide."""
        return self.expected < 5

    def to_dict(self) -> dict[str, Any]:
        return {
            "die": f"d{self.sides}",
            "counts": {str(face): n for face, n in enumerate(self.counts, 1)},
            "dice": self.dice,
            "expected_per_face": self.expected,
            "chi_square": self.chi_square,
            "df": self.df,
            "p_value": self.p_value,
            "few": self.few,
        }


# --- the report ------------------------------------------------------------------------------


_CHANCES = operator.attrgetter("chances")


@dataclass(frozen=True)
class CombatFigures:
    """Percentiles of a set of combats: their mean and how far it is from 0.5."""

    combats: tuple[CombatLuck, ...]

    @property
    def count(self) -> int:
        return len(self.combats)

    @cached_property
    def _counted(self) -> Counter[Chances]:
        """How many combats have each chances (a long campaign's share a few)."""
        return Counter(map(_CHANCES, self.combats))

    @cached_property
    def mean(self) -> float | None:
        if not self.combats:
            return None
        # Exact, as the sum of every percentile; each chances added once, times how many
        # combats have it.
        counted = self._counted
        total = sum((chances.percentile * n for chances, n in counted.items()), Fraction(0))
        return float(total / len(self.combats))

    @property
    def deviation(self) -> float | None:
        """The mean percentile less 0.5: above 0 luckier than the odds, below unluckier."""
        return None if self.mean is None else self.mean - 0.5

    @cached_property
    def z(self) -> float | None:
        """The deviation in standard errors of a fair mean (about +-2 happens 1 time in 20)."""
        counted = self._counted
        spread = sum(
            (Fraction(c.spread, c.spread_whole) * n for c, n in counted.items()), Fraction(0)
        )
        if not self.combats or spread == 0:
            return None
        assert self.deviation is not None
        return self.deviation / (math.sqrt(spread) / len(self.combats))

    def to_dict(self) -> dict[str, Any]:
        return {
            "combats": self.count,
            "mean_percentile": self.mean,
            "deviation": self.deviation,
            "z": self.z,
            "percentiles": [c.shown for c in self.combats],
        }


@dataclass(frozen=True)
class LuckGroup:
    """The figures of one player (None: everyone) in one ruleset (None: every ruleset)."""

    player: str | None
    ruleset: str | None
    desk_faces: tuple[FaceCounts, ...]
    manual_faces: tuple[FaceCounts, ...]
    manual_totals: int  # rolls entered by hand that show no face (2d6 totals, modified)
    desk: CombatFigures
    manual: CombatFigures
    # Dice the desk rolled from a player's seed, and the combats they decided: apart too.
    seed_faces: tuple[FaceCounts, ...] = ()
    seed: CombatFigures = field(default_factory=lambda: CombatFigures(()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "ruleset": self.ruleset,
            "desk_dice": [f.to_dict() for f in self.desk_faces],
            "desk_combats": self.desk.to_dict(),
            "manual_dice": [f.to_dict() for f in self.manual_faces],
            "manual_totals_without_faces": self.manual_totals,
            "manual_combats": self.manual.to_dict(),
            "seed_dice": [f.to_dict() for f in self.seed_faces],
            "seed_combats": self.seed.to_dict(),
        }


@dataclass(frozen=True)
class LuckReport:
    """Everyone's figures first, then each player's, then each player's per ruleset."""

    groups: tuple[LuckGroup, ...]
    combats: tuple[CombatLuck, ...]
    # Combats not judged, as (entry number, why): automatic results, amending entries.
    skipped: tuple[tuple[int, str], ...] = field(default_factory=tuple)

    @property
    def everyone(self) -> LuckGroup:
        return self.groups[0]

    @property
    def players(self) -> list[str]:
        return [g.player for g in self.groups if g.player is not None and g.ruleset is None]

    def group(self, player: str | None, ruleset: str | None = None) -> LuckGroup | None:
        return next((g for g in self.groups if (g.player, g.ruleset) == (player, ruleset)), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "definition": (
                "percentile = P(worse result) + P(same result) / 2 for the attacker (the "
                "player who logged the combat), over the exact distribution at the odds "
                "fought; 0.5 on average with fair dice"
            ),
            "groups": [g.to_dict() for g in self.groups],
            "combats": [c.to_dict() for c in self.combats],
            "skipped": [{"seq": seq, "why": why} for seq, why in self.skipped],
        }


# One kind of die's faces shown by one entry's dice: (source, sides, the faces), the source
# "desk", "seed" or "manual".
Faces = tuple[str, int, tuple[int, ...]]


class LuckRecord(msgspec.Struct, array_like=True, omit_defaults=True, frozen=True):
    """What the luck figures take of one entry (`luck_record`), small and encodable: its
    dice counted (when they count), and its combat judged, or why not. `LuckTally.add_record`
    folds records into the figures, in log order."""

    player: str = ""
    counted: bool = False  # its dice count: it has some, and amends no entry
    tally_ruleset: str | None = None  # its ruleset, when text
    named_ruleset: str | None = None  # the ruleset its player is listed under, if any
    dice: tuple[Faces, ...] = ()
    faceless: int = 0  # rolls entered by hand that show no face
    skipped: tuple[Any, str] | None = None  # (entry number, why its combat is not judged)
    cancels: Any = None  # the entry whose result its card cancelled
    judged: CombatLuck | None = None


def _dice_of(rolls: Iterable[Mapping[str, Any]]) -> tuple[tuple[Faces, ...], int]:
    """An entry's dice as faces by source, and the rolls by hand that show none."""
    found: list[Faces] = []
    faceless = 0
    for die in rolls:
        source = die.get("source")
        faces = _faces(die)
        if faces is None:
            faceless += 0 if source in (DESK, SEED) else 1
            continue
        kind = DESK if source == DESK else SEED if source == SEED else MANUAL
        found.append((kind, faces[0], tuple(int(v) for v in faces[1])))
    return tuple(found), faceless


# An entry's dice read for the figures, kept within a run: a long campaign rolls the same
# dice again and again.
_DICE_READ = Memo(4096)


def _dice_read(entry: Mapping[str, Any]) -> tuple[tuple[Faces, ...], int, str, bool]:
    """An entry's dice as the figures read them: faces by source, the rolls by hand that
    show none, the combat's source (`_source`), and whether it has any dice at all."""
    dice = entry.get("dice")
    key, found = _DICE_READ.get(dice)
    if found is None:
        rolls = _rolls(entry)
        faces, faceless = _dice_of(rolls)
        found = (faces, faceless, _source(rolls), bool(rolls))
        _DICE_READ.put(key, dice, found)
    read: tuple[tuple[Faces, ...], int, str, bool] = found  # (no call to `cast` an entry)
    return read


def luck_record(
    entry: Mapping[str, Any],
    tables: Tables | None = None,
    cache: dict[str, Distribution] | None = None,
    judged: Memo | None = None,
) -> LuckRecord:
    """What the figures take of one entry: the same for the same entry, whatever came
    before it (`cache` and `judged` only keep work done, see `combat_luck`, whose figures
    these are)."""
    faces, faceless, source, rolled = _dice_read(entry)
    player = str(entry.get("who", ""))
    amends = entry.get("amends")
    # Every entry with dice counts them but an amending one (the same dice again).
    counted = rolled and amends is None
    tally_ruleset = named_ruleset = None
    if counted:
        who, ruleset = entry.get("who"), entry.get("ruleset")
        tally_ruleset = ruleset if isinstance(ruleset, str) else None
        named_ruleset = str(ruleset) if ruleset and isinstance(who, str) else None
    else:
        faces, faceless = (), 0
    skipped: tuple[Any, str] | None = None
    cancels = kept = None
    if entry.get("kind") != "combat":
        pass
    elif amends is not None:
        if (entry.get("effects") or {}).get("cancelled"):
            skipped = (entry["seq"], f"it amends entry {amends}, whose result it cancelled")
            cancels = amends
        else:
            skipped = (entry["seq"], f"it amends entry {amends}, read as rolled")
    elif not rolled:
        skipped = (entry["seq"], "no dice were read (an automatic result)")
    elif (entry.get("effects") or {}).get("cancelled"):
        skipped = (entry["seq"], CANCELLED)
    else:
        found = _judgment(entry, tables or default_tables(), cache, judged)
        if isinstance(found, str):
            skipped = (entry["seq"], found)
        elif found[1].same == found[1].whole:
            skipped = (entry["seq"], "every result the dice could give was as good as this one")
        else:
            seq, turn = int(entry["seq"]), int(entry.get("turn", 0))
            odds, cell = entry.get("odds"), entry.get("cell")
            kept = CombatLuck(seq, turn, player, found[0], source, odds, cell, found[1])
    return LuckRecord(
        player, counted, tally_ruleset, named_ruleset, faces, faceless, skipped, cancels, kept
    )


@dataclass
class _Tally:
    """The dice of the entries of one player in one ruleset (as logged: a ruleset that is not
    text is kept as None, and so belongs to no ruleset's figures), counted by kind of die."""

    desk: dict[int, list[int]] = field(default_factory=dict)
    manual: dict[int, list[int]] = field(default_factory=dict)
    seed: dict[int, list[int]] = field(default_factory=dict)
    faceless: int = 0  # rolls entered by hand that show no face

    def count(self, dice: Iterable[Faces], faceless: int) -> None:
        self.faceless += faceless
        for source, sides, values in dice:
            kept = self.desk if source == DESK else self.seed if source == SEED else self.manual
            tally = kept.get(sides)
            if tally is None:
                tally = kept[sides] = [0] * sides
            for value in values:
                tally[value - 1] += 1


def _faces_of(tallies: Iterable[dict[int, list[int]]]) -> tuple[FaceCounts, ...]:
    """Face counts per kind of die, over several tallies."""
    counts: dict[int, list[int]] = {}
    for tally in tallies:
        for sides, counted in tally.items():
            total = counts.setdefault(sides, [0] * sides)
            for face, n in enumerate(counted):
                total[face] += n
    return tuple(FaceCounts(s, tuple(c)) for s, c in sorted(counts.items()))


class LuckTally:
    """Luck worked out one entry at a time, so a save's entries can be read one by one and
    let go: `add` an entry, or `add_record` what `record` (`luck_record`) took of it, kept
    or fresh. It keeps only each combat's figures and the dice counted per player and
    ruleset. `report()` is `luck_report` of every entry added, in the order added."""

    def __init__(self, tables: Tables | None = None) -> None:
        self.tables = tables or default_tables()
        self.combats: list[CombatLuck] = []
        self.skipped: list[tuple[int, str]] = []
        self._cache: dict[str, Distribution] = {}
        self._judged = Memo(JUDGMENTS_KEPT)
        # One copy of each name, odds, cell and chance many combats share: a long campaign's
        # figures keep one small record per combat.
        self._shared: dict[Any, Any] = {}
        self._tallies: dict[tuple[str, str | None], _Tally] = {}
        # The players whose entries' dice count, and the rulesets those entries name.
        self._rulesets: dict[str, set[str]] = {}

    def record(self, entry: Mapping[str, Any]) -> LuckRecord:
        """What the figures take of `entry` (the work this tally has done kept)."""
        return luck_record(entry, self.tables, self._cache, self._judged)

    def add(self, entry: Mapping[str, Any]) -> CombatLuck | None:
        """Count one entry; the combat's figures when it is judged."""
        return self.add_record(self.record(entry))

    def add_record(self, record: LuckRecord) -> CombatLuck | None:
        """Count one entry's record; the combat's figures when it is judged."""
        if record.counted:
            player = record.player
            rulesets = self._rulesets.get(player)
            if rulesets is None:
                rulesets = self._rulesets[player] = set()
            if record.named_ruleset is not None:
                rulesets.add(record.named_ruleset)
            key = (player, record.tally_ruleset)
            tally = self._tallies.get(key)
            if tally is None:
                tally = self._tallies[key] = _Tally()
            tally.count(record.dice, record.faceless)
        if record.cancels is not None:
            self._cancelled(record.cancels)
        if record.skipped is not None:
            self.skipped.append(record.skipped)
            return None
        judged = record.judged
        if judged is None:
            return None
        # One copy of each name, odds and chances many combats share (a cell that is a
        # table is kept as it is).
        shared = self._shared
        player, ruleset, source, odds = judged.player, judged.ruleset, judged.source, judged.odds
        found = CombatLuck(
            judged.seq,
            judged.turn,
            shared.setdefault(player, player),
            shared.setdefault(ruleset, ruleset),
            shared.setdefault(source, source),
            shared.setdefault(odds, odds) if type(odds) is str else odds,
            shared.setdefault(judged.cell, judged.cell)
            if type(judged.cell) is str
            else judged.cell,
            shared.setdefault(judged.chances, judged.chances),
        )
        self.combats.append(found)
        return found

    def _cancelled(self, seq: Any) -> None:
        """A card after the roll (Stanfill) cancelled the result of combat `seq`: it is not
        judged, for the reason its own entry would give had it logged the card."""
        for at in range(len(self.combats) - 1, -1, -1):
            if self.combats[at].seq == seq:
                del self.combats[at]
                where = bisect.bisect(self.skipped, seq, key=lambda skip: skip[0])
                self.skipped.insert(where, (seq, CANCELLED))
                return

    def _group(self, player: str | None, ruleset: str | None) -> LuckGroup:
        tallies = [
            t
            for (who, where), t in self._tallies.items()
            if (player is None or who == player) and (ruleset is None or where == ruleset)
        ]
        chosen: list[CombatLuck] = self.combats
        if player is not None:
            chosen = [c for c in chosen if c.player == player]
        if ruleset is not None:
            chosen = [c for c in chosen if c.ruleset == ruleset]
        by_source: dict[str, list[CombatLuck]] = {DESK: [], MANUAL: [], SEED: []}
        for combat in chosen:
            by_source[combat.source].append(combat)
        return LuckGroup(
            player=player,
            ruleset=ruleset,
            desk_faces=_faces_of(t.desk for t in tallies),
            manual_faces=_faces_of(t.manual for t in tallies),
            manual_totals=sum(t.faceless for t in tallies),
            desk=CombatFigures(tuple(by_source[DESK])),
            manual=CombatFigures(tuple(by_source[MANUAL])),
            seed_faces=_faces_of(t.seed for t in tallies),
            seed=CombatFigures(tuple(by_source[SEED])),
        )

    def report(self) -> LuckReport:
        players = sorted(set(self._rulesets) | {c.player for c in self.combats})
        groups = [self._group(None, None)]
        for player in players:
            groups.append(self._group(player, None))
            rulesets = sorted(self._rulesets.get(player, ()))
            groups += [self._group(player, r) for r in rulesets]
        return LuckReport(tuple(groups), tuple(self.combats), tuple(self.skipped))


def luck_report(entries: Iterable[Mapping[str, Any]], tables: Tables | None = None) -> LuckReport:
    """The luck figures of a save's entries (as `saves.load_game(path).entries`, or read one
    by one: they are read once, in order, and not kept)."""
    tally = LuckTally(tables)
    for entry in entries:
        tally.add(entry)
    return tally.report()


def luck_of_records(records: Iterable[LuckRecord], tables: Tables | None = None) -> LuckReport:
    """The luck figures of a save's entries from what `luck_record` took of each, in log
    order: the same report as `luck_report` of the entries."""
    tally = LuckTally(tables)
    for record in records:
        tally.add_record(record)
    return tally.report()
