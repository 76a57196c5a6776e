"""OCS rules around the chart (RULINGS, OCS): surprise, shifts, DRM and edge rows, supply,
who may attack, internal stocks, options, DG, exploitation, and the folded distribution
against brute-force enumeration of all three rolls."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from msgspec.structs import replace

from tui import saves
from tui.engine import CombatInput, InputError, Unit, distribution, resolve
from tui.engine.dice import enumerate_dice, total_distribution
from tui.engine.rulesets.ocs import rules as ocs
from tui.engine.rulesets.ocs import supply as ocs_supply
from tui.engine.tables import default_tables

TABLES = default_tables()


def units(*specs: tuple) -> tuple[Unit, ...]:
    """(name, strength, steps, ar[, kind[, supply[, stocks]]]) per unit."""
    made = []
    for name, factor, steps, ar, *rest in specs:
        kind = rest[0] if rest else "combat"
        supply = rest[1] if len(rest) > 1 else "on-map"
        stocks = rest[2] if len(rest) > 2 else None
        made.append(
            Unit(factor, name=name, steps=steps, ar=ar, kind=kind, supply=supply, stocks=stocks)
        )
    return tuple(made)


def defenders(*specs: tuple) -> tuple[Unit, ...]:
    """(name, strength, steps, re, ar) per unit."""
    return tuple(Unit(f, name=n, steps=s, re=re, ar=ar) for n, f, s, re, ar in specs)


# 10 vs 2 on Open is 5:1; with ARs 4 vs 3 the DRM is +1. The 2d6 show 8 (as they lie):
# 8 + 1 reads row 9 there, "Ao1 e4 DL1o2".
BASE = CombatInput(
    "ocs",
    attackers=units(("21 Pz", 6, 3, 4), ("Ariete", 4, 2, 3)),
    defenders=defenders(("2 NZ", 2, 2, 1.0, 3)),
    surprise_roll=7,
    roll=8,
)


# ---------------------------------------------------------------------- surprise
@pytest.mark.parametrize(
    ("overrun", "attacker", "defender"),
    [(False, Fraction(6, 36), Fraction(10, 36)), (True, Fraction(10, 36), Fraction(15, 36))],
)
def test_surprise_chances_follow_the_thresholds(overrun: bool, attacker, defender) -> None:
    limits = ocs_supply.surprise_limits(CombatInput("ocs", overrun=overrun), TABLES)
    a, d, n = ocs_supply.surprise_chances(*limits)
    assert (a, d, n) == (attacker, defender, 1 - attacker - defender)


@pytest.mark.parametrize(
    ("overrun", "hedgehog", "raw", "side"),
    [
        (False, 0, 10, "attacker"),
        (False, 0, 9, None),
        (False, 0, 5, "defender"),
        (False, 0, 6, None),
        (True, 0, 9, "attacker"),
        (True, 0, 6, "defender"),
        (True, 0, 7, None),
        # A hedgehog of any level adds 1 to the defender's AR for surprise only.
        (False, 2, 10, None),
        (False, 1, 11, "attacker"),
        (False, 1, 6, "defender"),
    ],
)
def test_surprise_thresholds(overrun: bool, hedgehog: int, raw: int, side: str | None) -> None:
    combat = CombatInput(
        "ocs",
        attackers=(Unit(4),),
        defenders=(Unit(2),),
        overrun=overrun,
        hedgehog=hedgehog,
        surprise_roll=raw,
        shift_roll=1,
        roll=7,  # the 2d6 as they lie; the hedgehog's DRM is added by the desk
    )
    outcome = resolve(combat, TABLES)
    assert outcome.effects.get("surprise", {}).get("side") == side


def test_surprise_side_reads_the_units_ars() -> None:
    # 21 Pz's AR 4 against 2 NZ's 3: +1, so a raw 9 is 10 (attacker), a raw 4 is 5 (defender).
    assert ocs_supply.surprise_side(BASE, TABLES, 9) == "attacker"
    assert ocs_supply.surprise_side(BASE, TABLES, 8) is None
    assert ocs_supply.surprise_side(BASE, TABLES, 4) == "defender"


def test_the_shift_stops_at_the_tables_edges() -> None:
    # 52 vs 1 on Open is past 13:1, the last column; attacker surprise with a 6 stays there.
    right = resolve(
        CombatInput(
            "ocs",
            attackers=(Unit(52),),
            defenders=(Unit(1),),
            surprise_roll=12,
            shift_roll=6,
            roll=7,
        ),
        TABLES,
    )
    assert (right.odds_column, right.column) == ("13:1", "13:1")
    left = resolve(
        CombatInput(
            "ocs", attackers=(Unit(2),), defenders=(Unit(4),), surprise_roll=2, shift_roll=6, roll=7
        ),
        TABLES,
    )
    assert (left.odds_column, left.column) == ("1:2", "1:5")


def test_the_drm_and_the_edge_rows() -> None:
    combat = CombatInput(
        "ocs",
        attackers=(Unit(4),),
        defenders=(Unit(2),),
        attacker_ar=1,
        defender_ar=3,
        surprise_roll=7,
    )
    # The 2d6 are entered as they lie (RULINGS, "Dice"); the desk adds the DRM.
    low = resolve(replace(combat, roll=2), TABLES)  # 2d6 2 - 2 = 0
    assert low.roll == "<=1"
    assert any("DRM -2" in line for line in low.trace)
    (die,) = [d for d in low.dice if d.purpose == "combat"]
    assert (die.total, die.source, die.modifier, die.row) == (2, "manual", -2, "<=1")
    high = resolve(replace(combat, attacker_ar=5, defender_ar=0, hedgehog=1, roll=12), TABLES)
    assert high.roll == ">=15"  # DRM 5 - 0 - hedgehog 1 = +4; 2d6 12 + 4
    assert resolve(replace(combat, roll=12), TABLES).roll == "10"  # 12 - 2
    for face in (1, 13):  # no 2d6 shows these, whatever the DRM
        with pytest.raises(InputError) as caught:
            resolve(replace(combat, roll=face), TABLES)
        assert caught.value.field == "roll" and "2d6 roll from 2 to 12" in caught.value.allowed


def test_the_highest_ar_is_the_default_and_another_unit_may_be_picked() -> None:
    first = resolve(BASE, TABLES)
    assert any("DRM +1 = attacker AR 4" in line for line in first.trace)
    picked = resolve(replace(BASE, attacker_ar_unit="Ariete"), TABLES)
    assert any("DRM +0 = attacker AR 3" in line for line in picked.trace)
    with pytest.raises(InputError) as err:
        resolve(replace(BASE, attacker_ar_unit="Nobody"), TABLES)
    assert "21 Pz" in err.value.allowed


# ---------------------------------------------------------------------- supply
def test_attacker_pays_one_token_per_step_and_a_dak_brigade_one_in_all() -> None:
    assert ocs_supply.attacker_supply(BASE, TABLES) == 5
    brigade = replace(BASE, attackers=units(("21 Pz", 6, 3, 4), ("Ariete", 4, 2, 3, "dak-brigade")))
    assert ocs_supply.attacker_supply(brigade, TABLES) == 4
    stocks = replace(
        BASE, attackers=units(("21 Pz", 6, 3, 4), ("Ariete", 4, 2, 3, "combat", "internal"))
    )
    assert ocs_supply.attacker_supply(stocks, TABLES) == 3
    plain = CombatInput("ocs", attackers=(Unit(5),), defenders=(Unit(3),))
    assert ocs_supply.attacker_supply(plain, TABLES) is None


def test_defender_pays_two_tokens_one_at_one_re_or_less_none_when_withheld() -> None:
    assert ocs_supply.defender_supply(BASE, TABLES) == 1  # 1.0 RE
    big = replace(BASE, defenders=defenders(("2 NZ", 2, 2, 1.0, 3), ("4 Ind", 2, 2, 0.5, 2)))
    assert ocs_supply.defender_supply(big, TABLES) == 2
    assert ocs_supply.defender_supply(replace(big, defender_unsupplied=True), TABLES) == 0
    outcome = resolve(big, TABLES)
    assert outcome.effects["supply"] == {"attacker": 5, "defender": 2}


def test_a_unit_short_of_combat_supply_cannot_attack() -> None:
    none = replace(BASE, attackers=units(("21 Pz", 6, 3, 4), ("Ariete", 4, 2, 3, "combat", "none")))
    with pytest.raises(InputError) as err:
        resolve(none, TABLES)
    assert err.value.field == "Ariete supply"
    assert "cannot attack" in err.value.message()
    spent = units(("21 Pz", 6, 3, 4), ("Ariete", 4, 2, 3, "combat", "internal", "exhausted"))
    assert "Exhausted" in (ocs_supply.refusal(replace(BASE, attackers=spent)) or "")
    assert ocs_supply.refusal(BASE) is None


def test_internal_stocks_go_low_then_exhausted_without_a_second_low(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["ocs"], who="p")
    internal = units(("21 Pz", 6, 3, 4, "combat", "internal"), ("Ariete", 4, 2, 3))
    first = replace(BASE, attackers=internal)
    outcome = resolve(first, TABLES)
    saves.append_combat(path, first, outcome, who="p")
    game = saves.load_game(path)
    assert [(m.kind, m.target) for m in game.markers if m.kind in ("low", "exhausted")] == [
        ("low", "21 Pz")
    ]
    again = replace(first, attackers=(replace(internal[0], stocks="low"), internal[1]))
    saves.append_combat(path, again, resolve(again, TABLES), who="p")
    kinds = [
        (m.kind, m.target) for m in saves.load_game(path).markers if m.kind in ("low", "exhausted")
    ]
    assert kinds == [("exhausted", "21 Pz")]  # Exhausted replaces Low
    assert ocs_supply.stocks_after(replace(internal[0], stocks="low")) == "exhausted"


# ---------------------------------------------------------------------- options and exploitation
def test_e4_marks_units_with_ar_4_or_more_never_hqs() -> None:
    hq = replace(BASE, attackers=BASE.attackers + units(("DAK HQ", 1, 1, 5, "hq")))
    # The HQ's AR 5 is now the highest: DRM +2, so 2d6 7 reads row 9 as in BASE.
    chosen = replace(hq, attacker_option_retreat=0, defender_option_retreat=2, roll=7)
    outcome = resolve(chosen, TABLES)
    assert outcome.roll == "9"
    assert outcome.cell == "Ao1 e4 DL1o2"
    assert outcome.effects["exploitation"]["units"] == ["21 Pz"]
    marks = [(m["kind"], m["target"]) for m in outcome.effects["markers"]]
    assert ("exploitation", "21 Pz") in marks and ("exploitation", "DAK HQ") not in marks
    # The defender retreated 2 hexes: DG on entering the second.
    assert ("DG", "2 NZ") in marks


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"attack_hexes": 3}, "3 hexes"),
        ({"nonadjacent_hexsides": True}, "non-adjacent"),
        ({"attacker_option_retreat": 1}, "retreat"),
    ],
)
def test_each_rule_that_voids_exploitation(change: dict, reason: str) -> None:
    outcome = resolve(replace(BASE, **change), TABLES)
    exploitation = outcome.effects["exploitation"]
    assert exploitation["units"] == [] and reason in exploitation["void"]
    assert not any(m["kind"] == "exploitation" for m in outcome.effects["markers"])
    kept = resolve(replace(BASE, attack_hexes=2, attacker_option_retreat=0), TABLES)
    assert kept.effects["exploitation"]["units"] == ["21 Pz"]


def test_the_defender_may_ignore_its_options_only_after_an_attacker_retreat() -> None:
    waived = resolve(
        replace(BASE, attacker_option_retreat=1, defender_ignores_options=True), TABLES
    )
    assert waived.effects["options"]["defender"]["ignored"] is True
    refused = resolve(
        replace(
            BASE,
            attacker_option_retreat=0,
            defender_ignores_options=True,
            defender_option_retreat=1,
        ),
        TABLES,
    )
    assert refused.effects["options"]["defender"] == {
        "option": 2,
        "chosen": True,
        "retreat": 1,
        "steps": 1,
    }
    pending = resolve(replace(BASE, attacker_option_retreat=1), TABLES)
    assert pending.effects["options"]["defender"]["may_ignore"] is True


def test_an_attacker_destroyed_before_options_lets_the_defender_ignore_them() -> None:
    # 2 vs 2 is 1:1; 2d6 5 + DRM 1 reads row 6, "AL1o1 Do1": L1 takes the one step of a
    # 1-step unit.
    one_step = replace(
        BASE,
        attackers=units(("Recce", 2, 1, 4)),
        defenders=defenders(("2 NZ", 2, 2, 1.0, 3)),
        roll=5,
    )
    outcome = resolve(replace(one_step, defender_ignores_options=True), TABLES)
    assert outcome.cell == "AL1o1 Do1"
    assert outcome.effects["attacker"]["eliminated"] is True
    assert "attacker" not in outcome.effects.get("options", {})
    assert outcome.effects["options"]["defender"]["ignored"] is True
    assert "(the attacker was destroyed)" in outcome.explanation
    # Two steps survive a loss of one: the attacker takes its option, the defender its own.
    two_steps = replace(one_step, attackers=units(("Recce", 2, 2, 4)))
    kept = resolve(replace(two_steps, defender_ignores_options=True), TABLES)
    assert kept.effects["options"]["defender"]["chosen"] is False


def test_an_option_retreat_beyond_the_option_is_refused() -> None:
    with pytest.raises(InputError):
        resolve(replace(BASE, attacker_option_retreat=2), TABLES)


def test_a_retreat_of_two_hexes_is_dg_one_hex_is_not() -> None:
    one = resolve(replace(BASE, attacker_option_retreat=0, defender_option_retreat=1), TABLES)
    assert not any(m["kind"] == "DG" for m in one.effects["markers"])
    two = resolve(replace(BASE, attacker_option_retreat=0, defender_option_retreat=2), TABLES)
    assert [m["target"] for m in two.effects["markers"] if m["kind"] == "DG"] == ["2 NZ"]
    # The chart gives the attacker o1 at most; the rule is the same for both sides.
    effects = {"attacker": {"option": 2}, "defender": {}, "markers": []}
    ocs_supply.execute(replace(BASE, attacker_option_retreat=2), effects, TABLES, [])
    assert [m["target"] for m in effects["markers"] if m["kind"] == "DG"] == ["21 Pz", "Ariete"]


# ---------------------------------------------------------------------- the distribution
def brute_force(combat: CombatInput) -> dict[str, Fraction]:
    """All three rolls by hand, as they lie: surprise 2d6, shift 1d6, result 2d6 (the desk
    adds the DRM)."""
    found: dict[str, Fraction] = {}
    for surprise, p in total_distribution(2, 6):
        for shift in range(1, 7):
            for total, q in total_distribution(2, 6):
                given = replace(combat, surprise_roll=surprise, shift_roll=shift, roll=total)
                cell = resolve(given, TABLES).cell
                found[cell] = found.get(cell, Fraction(0)) + p * q / 6
    return found


@pytest.mark.parametrize(
    "combat",
    [
        replace(BASE, surprise_roll=None, roll=None),
        replace(BASE, surprise_roll=None, roll=None, overrun=True, hedgehog=2, terrain="close"),
        CombatInput("ocs", attackers=(Unit(52),), defenders=(Unit(1),), attacker_ar=5),
        CombatInput("ocs", attackers=(Unit(1),), defenders=(Unit(9),), defender_ar=4),
    ],
)
def test_the_folded_distribution_equals_brute_force(combat: CombatInput) -> None:
    folded = distribution(combat, TABLES)
    exact = {cell: p for cell, p, _ in folded.outcomes}
    assert sum(exact.values()) == 1
    assert exact == brute_force(combat)
    # And equals the generic enumeration of every die (no cache).
    enumerated: dict[str, Fraction] = {}
    for outcome, chance in enumerate_dice(lambda r: ocs.resolve(combat, TABLES, r)):
        enumerated[outcome.cell] = enumerated.get(outcome.cell, Fraction(0)) + chance
    assert exact == enumerated
    assert ocs.cell_chances.cache_info().hits + ocs.cell_chances.cache_info().misses > 0


def test_help_names_the_defender_halves_source_and_the_desk_rulings() -> None:
    rulings = " ".join(TABLES.data["ocs"]["rulings"])
    assert "data/ocs-combat-table-full.csv" in rulings
    assert "a public transcription of the printed chart" in rulings
    assert "/work" not in rulings and "Desk ruling, supply" in rulings
