"""The live odds preview as one engine call: everything a combat screen shows before the
roll (totals, odds, each shift, the column, an automatic result, and the chance and short
meaning of every result), so a screen never reads the engine's effects dictionaries."""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import msgspec
from msgspec.structs import replace

import tui.engine.registry as registry
from tui.engine.cells import short_meaning
from tui.engine.combat import (
    CombatInput,
    Outcome,
    cell_text,
    check_inputs,
    check_limits,
    checked_distribution,
    resolve,
)
from tui.engine.dice import Roller
from tui.engine.errors import InputError
from tui.engine.records import same
from tui.engine.tables import Tables, default_tables


class PreviewRow(msgspec.Struct, frozen=True):
    """One possible result: the cell as printed, its exact chance, and what it means."""

    cell: str
    probability: Fraction
    meaning: str


class Preview(msgspec.Struct, frozen=True):
    """What the preview shows for one combat's inputs, before any die is rolled."""

    attack_total: int | float | None
    defense_total: int | float | None
    odds: str | None
    shifts: tuple[str, ...]
    column: str | None
    # An automatic result (AD, AV, overrun) read without dice: its explanation.
    automatic: str | None
    dice: str
    rows: tuple[PreviewRow, ...]
    # What stands for the defending units when they are not read (an Ultra obstacle).
    defence_note: str | None = None
    # The least attack added that reaches the next column right, and that column (None:
    # beyond the last column, or not an odds chart).
    next_column: tuple[int, str] | None = None

    @property
    def headline(self) -> str:
        return f"Attack {self.attack_total} · Defence {self.defense_total} · odds {self.odds}"


def probe(combat: CombatInput, tables: Tables | None = None) -> Outcome:
    """The combat read without caring for the dice: totals, odds, AD/AV and shifts (none
    of them depends on a die). Raises InputError for a combat the engine refuses."""
    # A fixed seed: the probe's dice are never shown, and a preview must not flicker.
    return resolve(combat, tables or default_tables(), random.Random(0))


# Previews already worked out, by the tables' identity and the combat, each kept with the
# combat it answers: an equal combat is answered only when it is also of the same types all
# through (`same`: 7 is not 7.0, True is not 1; the totals are shown as given). Keyed by the
# combat's hash and equality, not by its repr: a new combat (most keys typed) pays no repr.
# A Preview is frozen, so handing the same one out again is safe.
_KEPT: OrderedDict[tuple[int, CombatInput], tuple[Tables, CombatInput, Preview]] = OrderedDict()
KEPT_PREVIEWS = 256


def preview(combat: CombatInput, tables: Tables | None = None) -> Preview:
    """The preview of one combat. Raises InputError for a combat the engine refuses.
    Kept: typing a digit and deleting it asks for the same combat again, and the answer
    is the one working it out again gives (a refused combat is not kept)."""
    tables = tables or default_tables()
    key = (id(tables), combat)
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is tables and same(kept[1], combat):
        _KEPT.move_to_end(key)
        return kept[2]
    shown = work_out(combat, tables)
    _KEPT[key] = (tables, combat, shown)
    _KEPT.move_to_end(key)
    if len(_KEPT) > KEPT_PREVIEWS:
        _KEPT.popitem(last=False)
    return shown


def first_probe(combat: CombatInput, tables: Tables) -> Outcome:
    """What a preview reads of `combat` before its chances: `probe`, or, where the ruleset
    can answer without reading a result (Ruleset.read_before_dice), the combat checked
    and read up to its result dice (what the preview reads of a probe: the totals, odds,
    shifts, columns, ratio and terrain, as `probe` gives them). Raises InputError as
    `probe` would."""
    ruleset = registry.get(combat.ruleset)
    if not ruleset.reads_before_dice(combat):
        return probe(combat, tables)  # checked as it is resolved
    check_inputs(combat)
    check_limits(combat, tables)
    return ruleset.read_before_dice(combat, tables)


def work_out(combat: CombatInput, tables: Tables) -> Preview:
    """The preview worked out from the engine, nothing kept."""
    first = first_probe(combat, tables)
    effects = first.effects
    automatic = first.explanation if effects.get("result") else None
    rows: tuple[PreviewRow, ...] = ()
    column = first.odds_column
    if automatic is None:
        # Checked by the probe above, which resolved it through the engine's checks.
        dist = checked_distribution(combat, tables, first)
        column = dist.column
        rows = preview_rows(dist.outcomes, dist.details)
    dice = registry.get(combat.ruleset).dice(tables)
    return Preview(
        attack_total=first.attack_total,
        defense_total=first.defense_total,
        odds=first.odds,
        shifts=tuple(str(s) for s in effects.get("shifts", ())),
        column=column,
        automatic=automatic,
        dice=dice,
        rows=rows,
        defence_note=_defence_note(effects),
        next_column=None if automatic else next_column(combat, first, tables),
    )


# The last few chances' rows, the latest first, with the outcomes and details they were
# made of (the very tuples, held here): a ruleset that answers a new combat with chances
# it answered before (Day/Night's battles kept, OCS's cells) hands the same tuples out
# again, and their rows are ranked and worded once. A few, not one: a digit typed and taken
# back goes from one column to another and back.
_LAST_ROWS: list[tuple[tuple[Any, ...], tuple[Any, ...], tuple[PreviewRow, ...]]] = []
KEPT_ROWS = 4


def preview_rows(
    outcomes: tuple[tuple[Any, Fraction, str], ...], details: tuple[dict[str, Any], ...]
) -> tuple[PreviewRow, ...]:
    """Every outcome as a row, the likeliest first: its cell, chance and short meaning."""
    for kept_outcomes, kept_details, kept_rows in _LAST_ROWS:
        if kept_outcomes is outcomes and kept_details is details:
            return kept_rows
    ranked = sorted(
        zip(outcomes, details or tuple({} for _ in outcomes), strict=True),
        key=lambda pair: -pair[0][1],
    )
    rows = tuple(
        PreviewRow(cell_text(cell), probability, short_meaning(detail))
        for (cell, probability, _), detail in ranked
    )
    _LAST_ROWS.insert(0, (outcomes, details, rows))
    del _LAST_ROWS[KEPT_ROWS:]
    return rows


# The most attack the search for the next column adds (a factor's range on every chart).
MOST_ADDED = 999


def next_column(combat: CombatInput, first: Outcome, tables: Tables) -> tuple[int, str] | None:
    """The least attack added to `combat` (a unit like its last attacker) that moves the
    column right, and the column it reaches; None beyond the last column, or where the
    column is not read from the odds (given by the player, or no odds at all). More attack
    never moves the column left, so each attack is probed once (a probe reads the combat's
    column): first the ruleset's guesses (`Ruleset.column_guesses`, the attacks that reach
    each column's ratio), a guess that reaches it checked by one factor less; else, or
    where they miss, the search doubles, then halves (`search_column`, the reference)."""
    if first.ratio is None or first.column is None or not combat.attackers:
        return None
    now = first.column

    def reached(added: int) -> str | None:
        try:
            label = column_added(combat, added, tables)
        except InputError:
            return None
        return label if label and label != now else None

    low = 0  # an attack added known not to reach the next column (0: none added)
    guesses = registry.get(combat.ruleset).column_guesses(combat, first, tables)
    for guess in guesses:
        if guess <= low or guess > MOST_ADDED:
            continue
        label = reached(guess)
        if label is None:
            low = guess
            continue
        if guess - 1 == low:
            return guess, label
        shorter = reached(guess - 1)
        if shorter is None:
            return guess, label
        return _halved(reached, low, guess - 1, shorter)
    return search_column(reached, low)


def search_column(reached: Callable[[int], str | None], low: int = 0) -> tuple[int, str] | None:
    """The least attack added above `low` (known not to reach it) for which `reached` names
    a column: the last column checked first (MOST_ADDED), then the attack doubled until it
    reaches one, then halved back."""
    if low >= MOST_ADDED or reached(MOST_ADDED) is None:
        return None  # the last column already
    high = min(2 * low, MOST_ADDED) if low else 1
    label = reached(high)
    while label is None:
        low, high = high, min(high * 2, MOST_ADDED)
        label = reached(high)
    return _halved(reached, low, high, label)


def _halved(
    reached: Callable[[int], str | None], low: int, high: int, label: str
) -> tuple[int, str]:
    """The least attack in (low, high] that reaches a column, `high` reaching `label`."""
    while high - low > 1:
        middle = (low + high) // 2
        found = reached(middle)
        if found is None:
            low = middle
        else:
            high, label = middle, found
    return high, label


def column_added(combat: CombatInput, added: int, tables: Tables) -> str | None:
    """The column `combat` with one more attacker like its last, of `added` factors, reads
    its result on (its odds where it reads none), as `probe(...).column or .odds` says:
    its result not read where the ruleset can answer without it (Ruleset.column), and,
    `combat` itself being checked already (a probe read it), only what the added unit
    changes checked again (Ruleset.check_added). Raises InputError as a probe would."""
    unit = replace(combat.attackers[-1], factor=added)
    more = replace(combat, attackers=(*combat.attackers, unit))
    ruleset = registry.get(more.ruleset)
    ruleset.check_added(more, tables)
    return ruleset.column(more, tables, Roller(random.Random(0)))


def _defence_note(effects: dict[str, Any]) -> str | None:
    obstacle = effects.get("obstacle")
    if not obstacle:
        return None
    # Its line is read (not "the defender rows are not read"): the result says its fate.
    cdf = obstacle["cdf"]
    return f"The {obstacle['kind']} obstacle defends (CDF {cdf}): a loss of {cdf}+ clears it"
