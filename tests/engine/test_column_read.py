"""The next column's search reads each probe's column alone where the ruleset can
(Ruleset.column), and checks again only what the added attacker changes
(Ruleset.check_added): it must say what resolving the whole combat says, column and
refusal."""

from __future__ import annotations

import itertools
from pathlib import Path
from random import Random
from typing import Any

from msgspec.structs import replace

import tui.engine.registry as registry
from tui.engine import CombatInput, Unit
from tui.engine.errors import InputError
from tui.engine.preview import column_added, probe
from tui.engine.registry import chart_ruleset
from tui.engine.rulesets.charts.reading import load_chart
from tui.engine.tables import default_tables

GAMES = Path(__file__).resolve().parents[2] / "docs" / "games"
ATTACKS = (1, 2, 3, 5, 7, 12, 40, 123, 999)
DEFENCES = (0, 1, 2, 3, 9, 134)
# The attack the search adds: a little, a lot, the most it asks, and beyond any factor.
ADDED = (1, 4, 37, 999, 1000)


def built_in(attack: int, defence: int) -> list[CombatInput]:
    """Combats of every built-in ruleset at these factors, with their shifts, terrains and
    the inputs a result read could refuse."""
    a, d = Unit(attack), Unit(defence)
    found = [
        CombatInput("pod-basic", (a,), (d,), buddy="attacker"),
        CombatInput("pod-super", (Unit(attack, "town"), Unit(3)), (d,), attacker_card="jack"),
        CombatInput("pod-ultra", (a,), (d,)),
        CombatInput("pod-ultra", (a,), obstacle="mines"),
        CombatInput("pod-boom", (a, Unit(4)), aaf=3, long_range=True),
        CombatInput("rivets", (a,), (d,)),
    ]
    for terrain in ("open", "close", "very-close", "extremely-close"):
        for ars in ((3, 2, 1), (0, 0, 0), (1, 4, 0)):
            found.append(
                CombatInput(
                    "ocs",
                    (a,),
                    (d,),
                    terrain=terrain,
                    attacker_ar=ars[0],
                    defender_ar=ars[1],
                    hedgehog=ars[2],
                    defender_unsupplied=ars == (0, 0, 0),
                )
            )
        # An option's retreat given: the cell read may refuse it.
        found.append(
            CombatInput(
                "ocs",
                (a,),
                (d,),
                terrain=terrain,
                attacker_option_retreat=1,
                defender_option_retreat=2,
            )
        )
    counter = Unit(attack, name="A1", steps=2, ar=3, kind="combat", supply="on-map")
    found.append(CombatInput("ocs", (counter,), (Unit(defence, name="D1", steps=1, ar=2),)))
    found.append(CombatInput("ocs", (a,), (d,), surprise_roll=12, shift_roll=3, roll=7))
    for time, terrain in itertools.product(("day", "night"), ("clear", "rough", "town")):
        found.append(CombatInput("daynight", (a,), (d,), time=time, terrain=terrain, drm=1))
        found.append(
            CombatInput(
                "daynight", (a,), (d,), time=time, terrain=terrain, reserve=4, press_on=True
            )
        )
        found.append(CombatInput("daynight", (a,), (d,), time=time, roll=3, rerolls=(2,)))
    return found


def charts() -> list[Any]:
    return [chart_ruleset(load_chart(path)) for path in sorted(GAMES.glob("*.toml"))]


def set_all(chart: Any) -> tuple[tuple[str, Any], ...]:
    """Every modifier of a chart's combat set (a unit's marks left off): its shifts, DRMs
    and multiplied totals all read."""
    found: list[tuple[str, Any]] = []
    for mod in chart.chart.modifiers:
        if mod.on == "unit":
            continue
        if mod.input == "tick":
            found.append((mod.name, True))
        elif mod.input == "choice":
            found.append((mod.name, mod.values[-1][0]))
        else:
            found.append((mod.name, mod.high if mod.high is not None else 2))
    return tuple(found)


def said(combat: CombatInput, read: Any) -> tuple[str, object]:
    try:
        return "read", read(combat)
    except InputError as err:
        return "refused", str(err)


def test_a_column_read_alone_is_the_column_the_whole_combat_reads() -> None:
    tables = default_tables()
    combats = [c for a, d in itertools.product(ATTACKS, DEFENCES) for c in built_in(a, d)]
    for chart in charts():
        for a, d in itertools.product(ATTACKS, DEFENCES):
            combats.append(CombatInput(chart.id, (Unit(a),), (Unit(d),)))
            combats.append(CombatInput(chart.id, (Unit(a),), (Unit(d),), modifiers=set_all(chart)))
            # Re-rolls by hand: refused where the chart has none, or the combat needs fewer.
            combats.append(CombatInput(chart.id, (Unit(a),), (Unit(d),), roll=2, rerolls=(3, 4)))
    seen = set()
    for combat in combats:
        try:
            probe(combat, tables)
        except InputError:
            continue  # the search starts only from a combat the engine reads
        for added in ADDED:
            unit = replace(combat.attackers[-1], factor=added)
            more = replace(combat, attackers=(*combat.attackers, unit))
            whole = said(more, lambda c: (lambda o: o.column or o.odds)(probe(c, tables)))
            alone = said(combat, lambda c, n=added: column_added(c, n, tables))
            assert alone == whole, (combat, added)
            seen.add((combat.ruleset, whole[0]))
    # Every ruleset read and refused somewhere in the sweep: the comparison was made.
    for ruleset in registry.BUILT_IN_IDS:
        assert (ruleset, "read") in seen, ruleset
    assert any(kind == "refused" for _, kind in seen)


def test_a_chart_combat_read_again_is_resolved_as_it_was_the_first_time() -> None:
    """A player's chart keeps the last combat read up to its dice (a preview reads it on
    every path of its dice): resolved from the kept reading, a combat's outcome is the one
    read afresh, trace and shifts included; an equal combat of other types is read again."""
    import tui.engine.rulesets.charts.player as player
    from tui.engine.combat import resolve

    tables = default_tables()
    compared = 0
    for chart in charts():
        for a, d in itertools.product(ATTACKS, DEFENCES):
            for combat in (
                CombatInput(chart.id, (Unit(a),), (Unit(d),), roll=3),
                CombatInput(chart.id, (Unit(a),), (Unit(d),), modifiers=set_all(chart)),
            ):
                player._LAST_READ.clear()
                try:
                    fresh = resolve(combat, tables, Random(5))
                except InputError:
                    continue
                again = resolve(combat, tables, Random(5))
                assert player._LAST_READ and player._LAST_READ[0][1] is combat
                assert repr(again) == repr(fresh), combat
                compared += 1
    assert compared > 100


def test_a_chart_reads_again_a_combat_equal_to_the_last_but_of_other_types(monkeypatch) -> None:
    import tui.engine.rulesets.charts.player as player
    from tui.engine.combat import resolve

    tables = default_tables()
    reads: list[CombatInput] = []
    read = player._read_column

    def counted(chart: Any, combat: CombatInput, trace: list[str], effects: Any) -> Any:
        reads.append(combat)
        return read(chart, combat, trace, effects)

    monkeypatch.setattr(player, "_read_column", counted)
    player._LAST_READ.clear()
    chart = next(c for c in charts() if c.id.endswith("hill-203"))
    whole = CombatInput(chart.id, (Unit(6),), (Unit(3),))
    first = resolve(whole, tables, Random(1))
    assert resolve(whole, tables, Random(2)).trace[:3] == first.trace[:3]
    assert reads == [whole]  # the second read from the kept one
    # 6.0 equals 6 (and hashes alike), but the trace shows it as given: read again.
    floated = CombatInput(chart.id, (Unit(6.0),), (Unit(3),))  # type: ignore[arg-type]
    assert floated == whole
    try:
        resolve(floated, tables, Random(1))
    except InputError:
        pass
    assert len(reads) == 2 and reads[1] is floated


def test_a_day_night_battle_read_again_is_resolved_as_it_was_the_first_time() -> None:
    """Day/Night keeps the last combat read up to its dice too: resolved from the kept
    reading, every battle (its re-rolls, reserves, presses on) is the one read afresh."""
    import tui.engine.rulesets.daynight.rules as daynight
    from tui.engine.combat import resolve

    tables = default_tables()
    compared = 0
    for a, d in itertools.product(ATTACKS, DEFENCES):
        for combat in built_in(a, d):
            if combat.ruleset != "daynight":
                continue
            for seed in range(4):
                daynight._LAST_READ.clear()
                try:
                    fresh = resolve(combat, tables, Random(seed))
                except InputError:
                    continue
                again = resolve(combat, tables, Random(seed))
                assert daynight._LAST_READ and daynight._LAST_READ[0][1] is combat
                assert repr(again) == repr(fresh), combat
                compared += 1
    assert compared > 100


def test_a_distribution_given_the_preview_probe_is_the_one_worked_out_without_it() -> None:
    """A preview hands its first probe to the distribution (OCS reads its odds, column and
    terrain from it rather than reading them again): over every built-in ruleset's sweep,
    and counters with ratings and stocks, the chances are the ones worked out without it."""
    from tui.engine.combat import checked_distribution

    tables = default_tables()
    combats = [c for a, d in itertools.product(ATTACKS, DEFENCES) for c in built_in(a, d)]
    for a, d in itertools.product(ATTACKS, DEFENCES):
        attacker = Unit(a, name="A1", steps=2, ar=3, kind="combat", supply="internal")
        defender = Unit(d, name="D1", steps=1, ar=4, re=2)
        for half in (False, True):
            combats.append(CombatInput("ocs", (attacker,), (defender,), defender_unsupplied=half))
    compared: dict[str, int] = {}
    for combat in combats:
        try:
            first = probe(combat, tables)
            alone = checked_distribution(combat, tables)
        except InputError:
            continue
        given = checked_distribution(combat, tables, first)
        assert repr(given) == repr(alone), combat
        compared[combat.ruleset] = compared.get(combat.ruleset, 0) + 1
    assert compared.get("ocs", 0) > 100, compared
    assert set(compared) == set(registry.BUILT_IN_IDS)


def test_a_combat_read_before_its_dice_is_what_its_whole_probe_reads(monkeypatch) -> None:
    """A preview's first probe of an OCS combat reads it up to its result dice only
    (Ruleset.read_before_dice): over the sweep, what it gives of the totals, odds, columns,
    ratio, surprise, shifts and terrain is what resolving it whole gives, refusals included,
    and each preview is the one worked out from the whole probe."""
    import tui.engine.preview as previews
    from tui.engine.ruleset import Ruleset

    tables = default_tables()
    combats = [c for a, d in itertools.product(ATTACKS, DEFENCES) for c in built_in(a, d)]
    for a, d in itertools.product(ATTACKS, DEFENCES):
        for supply in ("internal", "on-map", "none", None):
            attacker = Unit(a, name="A1", steps=2, ar=3, kind="combat", supply=supply)
            defender = Unit(d, name="D1", steps=1, ar=4, re=2)
            combats.append(CombatInput("ocs", (attacker,), (defender,), hedgehog=1))
            combats.append(CombatInput("ocs", (attacker,), (defender,), surprise_roll=2))
    parts = ("attack_total", "defense_total", "odds", "column", "odds_column", "ratio")
    read_alone = 0
    for combat in combats:
        before = said(combat, lambda c: previews.first_probe(c, tables))
        whole = said(combat, lambda c: probe(c, tables))
        assert before[0] == whole[0] and (before[0] == "read" or before == whole), combat
        if before[0] == "refused":
            continue
        short, full = before[1], whole[1]
        if short is not full and short.cell is None:
            read_alone += 1
        assert [getattr(short, p) for p in parts] == [getattr(full, p) for p in parts], combat
        for key in ("terrain", "shifts", "surprise", "result", "obstacle"):
            assert short.effects.get(key) == full.effects.get(key), (combat, key)
    assert read_alone > 100, read_alone
    shown = {}
    for combat in combats:
        shown[combat] = said(combat, lambda c: previews.work_out(c, tables))
    monkeypatch.setattr(Ruleset, "reads_before_dice", lambda self, combat: False)
    for combat in combats:
        assert said(combat, lambda c: previews.work_out(c, tables)) == shown[combat], combat
