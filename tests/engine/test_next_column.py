"""The next column's search starts from the ruleset's guesses (OCS: the attack that reaches
each column's ratio), each checked by probing it and one factor less: it must find what
the search that doubles and halves from nothing finds, for every combat."""

from __future__ import annotations

import itertools

import pytest

from tui.engine import CombatInput, Unit
from tui.engine import preview as engine_preview
from tui.engine.errors import InputError
from tui.engine.preview import MOST_ADDED, column_added, next_column, probe
from tui.engine.tables import Tables, default_tables


def reference(combat: CombatInput, tables: Tables) -> tuple[int, str] | None:
    """The search as it was before any guess: the last column checked, then the attack
    added doubled from 1 until it reaches the next column, then halved back."""
    first = probe(combat, tables)
    if first.ratio is None or first.column is None or not combat.attackers:
        return None
    now = first.column

    def reached(added: int) -> str | None:
        try:
            label = engine_preview.column_added(combat, added, tables)
        except InputError:
            return None
        return label if label and label != now else None

    if reached(MOST_ADDED) is None:
        return None
    low, high = 0, 1
    label = reached(high)
    while label is None:
        low, high = high, min(high * 2, MOST_ADDED)
        label = reached(high)
    while high - low > 1:
        middle = (low + high) // 2
        found = reached(middle)
        if found is None:
            low = middle
        else:
            high, label = middle, found
    return high, label


def ocs_combats() -> list[CombatInput]:
    """OCS combats over its terrains, action ratings (a surprise either way, or none), a
    defender with and without combat supply (half strength: odd totals halve to .5), and
    totals from far below the first column to beyond the last."""
    found = []
    terrains = ("open", "close", "very-close", "extremely-close")
    ratings = ((0, 0, 0), (3, 0, 0), (0, 4, 1), (5, 1, 0))
    for terrain, (attacker_ar, defender_ar, hedgehog), unsupplied in itertools.product(
        terrains, ratings, (False, True)
    ):
        for attack, defence in itertools.product((1, 4, 9, 30), (1, 3, 12, 134, 999)):
            found.append(
                CombatInput(
                    "ocs",
                    (Unit(attack), Unit(2)),
                    (Unit(defence),),
                    terrain=terrain,
                    attacker_ar=attacker_ar,
                    defender_ar=defender_ar,
                    hedgehog=hedgehog,
                    defender_unsupplied=unsupplied,
                )
            )
    return found


@pytest.mark.parametrize("terrain", ["open", "close", "very-close", "extremely-close"])
def test_the_guessed_search_finds_what_the_reference_search_finds(terrain: str) -> None:
    tables = default_tables()
    combats = [c for c in ocs_combats() if c.terrain == terrain]
    found_some = False
    for combat in combats:
        first = probe(combat, tables)
        wanted = reference(combat, tables)
        found_some = found_some or wanted is not None
        assert next_column(combat, first, tables) == wanted, combat
    assert found_some  # the sweep reaches a next column, not only the last one


def test_the_other_rulesets_search_as_before() -> None:
    """A ruleset with no guesses searches from nothing, as the reference does."""
    tables = default_tables()
    for ruleset, attack, defence in itertools.product(
        ("pod-basic", "pod-super", "rivets", "daynight"), (1, 7, 13), (1, 3, 40)
    ):
        combat = CombatInput(ruleset, attackers=(Unit(attack),), defenders=(Unit(defence),))
        first = probe(combat, tables)
        assert next_column(combat, first, tables) == reference(combat, tables), combat


def test_a_guess_that_reaches_the_next_column_is_checked_by_one_factor_less(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """OCS at 1 to 123 (a key the bench types): the next column's ratio guessed, then one
    factor less, two probes where the search from nothing asks eight or more."""
    tables = default_tables()
    asked: list[int] = []

    def counted(combat: CombatInput, added: int, tables: Tables) -> str | None:
        asked.append(added)
        return column_added(combat, added, tables)

    monkeypatch.setattr(engine_preview, "column_added", counted)
    combat = CombatInput("ocs", (Unit(1),), (Unit(123),), terrain="open")
    first = probe(combat, tables)
    found = next_column(combat, first, tables)
    guessed = list(asked)
    asked.clear()
    assert found == reference(combat, tables)
    assert found is not None and guessed == [found[0], found[0] - 1]
    assert len(asked) >= 8, asked  # the reference's probes, for scale


@pytest.mark.parametrize("wrong", [lambda g: g + 5, lambda g: max(g - 3, 1), lambda g: 2 * g])
def test_a_wrong_guess_costs_probes_not_the_answer(monkeypatch: pytest.MonkeyPatch, wrong) -> None:
    """Guesses too high, too low or far off still give the reference's answer: a guess
    that reaches is checked by one factor less and halved back from there, and guesses
    that all fall short leave the search to go on from the last of them."""
    from tui.engine.rulesets.ocs import OcsRuleset

    right = OcsRuleset.column_guesses

    def guessed(self: OcsRuleset, *args: object) -> tuple[int, ...]:
        return tuple(wrong(g) for g in right(self, *args))  # type: ignore[arg-type]

    monkeypatch.setattr(OcsRuleset, "column_guesses", guessed)
    tables = default_tables()
    for combat in ocs_combats()[::7]:
        first = probe(combat, tables)
        assert next_column(combat, first, tables) == reference(combat, tables), combat
