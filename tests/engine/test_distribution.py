"""Exact distributions: every one sums to 1 and equals a brute-force count over every face
of every die, each face fed to `resolve` as a roll entered by hand (or a scripted die)."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from tui.engine import CombatInput, Unit, distribution, resolve

FACES = range(1, 7)


class ScriptedDice:
    """An RNG whose dice show the faces given, in order; unused faces are left over."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        assert (low, high) == (1, 6)
        return self.faces.pop(0)


def key(cell: Any) -> str:
    def plain(value: Any) -> Any:
        if isinstance(value, str) or value is None:
            return value
        if isinstance(value, tuple | list):
            return [plain(v) for v in value]
        return {side: plain(value[side]) for side in value}

    return json.dumps(plain(cell))


def tally(reads: list[tuple[Any, Fraction]]) -> dict[str, Fraction]:
    counts: dict[str, Fraction] = {}
    for cell, weight in reads:
        counts[key(cell)] = counts.get(key(cell), Fraction(0)) + weight
    return counts


def brute_force(combat: CombatInput) -> dict[str, Fraction]:
    """Every face of every die the ruleset rolls, each equally likely."""
    ruleset = combat.ruleset
    memo: dict[tuple[int, ...], Any] = {}

    def read(**rolls: int) -> Any:
        index = tuple(rolls.values())
        if index not in memo:
            memo[index] = resolve(replace(combat, **rolls)).cell
        return memo[index]

    if ruleset in ("pod-basic", "rivets") or (ruleset == "pod-boom" and combat.step):
        return tally([(read(roll=face), Fraction(1, 6)) for face in FACES])
    if ruleset in ("pod-super", "pod-ultra"):
        return tally([(read(roll=a + b), Fraction(1, 36)) for a, b in product(FACES, FACES)])
    if ruleset == "daynight":
        # The die plus the net DRM, read on rows 0..7; ENG is always rolled again and BTL
        # may be, so a battle rolls up to three times: script the desk's dice.
        reads = []
        for faces in product(FACES, repeat=3):
            reads.append((resolve(combat, rng=ScriptedDice(faces)).cell, Fraction(1, 6**3)))
        return tally(reads)
    if ruleset == "ocs":
        # Surprise 2d6, its 1d6 shift and the result 2d6, each as they lie (the desk adds
        # the DRM to the result).
        weight = Fraction(1, 36 * 6 * 36)
        reads = []
        for s1, s2, shift, r1, r2 in product(FACES, FACES, FACES, FACES, FACES):
            cell = read(surprise_roll=s1 + s2, shift_roll=shift, roll=r1 + r2)
            reads.append((cell, weight))
        return tally(reads)
    # The Big Boom chain rolls up to five dice (attrition, accuracy, direction, the CRT on
    # target and on the astray hex) and takes no hand-entered roll: script the desk's dice,
    # one more die at a time, as far as each way of falling reads.
    reads = []

    def walk(faces: tuple[int, ...]) -> None:
        dice = ScriptedDice(faces + (1,) * 6)
        cell = resolve(combat, rng=dice).cell
        if len(faces) + 6 - len(dice.faces) <= len(faces):
            reads.append((cell, Fraction(1, 6 ** len(faces))))
            return
        for face in FACES:
            walk((*faces, face))

    walk(())
    return tally(reads)


def check(combat: CombatInput) -> None:
    result = distribution(combat)
    probabilities = [p for _, p, _ in result.outcomes]
    assert all(isinstance(p, Fraction) and p > 0 for p in probabilities)
    assert sum(probabilities) == 1
    cells = [key(cell) for cell, _, _ in result.outcomes]
    assert len(cells) == len(set(cells)), "identical cells are merged"
    assert dict(zip(cells, probabilities, strict=True)) == brute_force(combat)


def some_units(low: int, high: int, size: int = 3) -> st.SearchStrategy[tuple[Unit, ...]]:
    return st.lists(st.integers(low, high).map(Unit), min_size=1, max_size=size).map(tuple)


SIDE = st.sampled_from([None, "attacker", "defender"])
POD_TERRAIN = st.sampled_from([None, "beach", "bridge", "clear", "railroad", "river", "town"])


@st.composite
def pod_combats(draw: st.DrawFn) -> CombatInput:
    ruleset = draw(st.sampled_from(["pod-basic", "pod-super", "pod-ultra"]))
    if ruleset == "pod-basic":
        # Stanfill is one card: one side at most.
        stanfill = draw(st.sampled_from([None, "attacker", "defender"]))
        attackers, defenders = draw(some_units(1, 12)), draw(some_units(1, 12))
        return CombatInput(
            ruleset,
            attackers=attackers,
            defenders=defenders,
            buddy=draw(SIDE),
            attacker_card="stanfill" if stanfill == "attacker" else None,
            defender_card="stanfill" if stanfill == "defender" else None,
        )
    card = st.sampled_from([None, "ace", "king", "queen", "jack", "joker", "stanfill"])
    attacker_card = draw(card)
    # Cards are single (RULINGS): no second Joker or Stanfill, and no Joker with Stanfill.
    single = ("joker", "stanfill")
    defender_card = draw(card.filter(lambda c: not (c in single and attacker_card in single)))
    unit = st.builds(Unit, st.integers(0, 10), POD_TERRAIN)
    attackers = tuple(draw(st.lists(unit, min_size=1, max_size=3)))
    # Terrain can take 1 off each unit: keep the attack above 0 even then (0 is no attack).
    if sum(max(0, u.factor - 1) for u in attackers) == 0:
        attackers = (Unit(3),)
    obstacle = draw(st.sampled_from([None, "mines", "glider"])) if ruleset == "pod-ultra" else None
    defenders = () if obstacle else tuple(draw(st.lists(unit, min_size=1, max_size=3)))
    combat = CombatInput(
        ruleset,
        attackers=attackers,
        defenders=defenders,
        buddy=draw(SIDE),
        medal=draw(SIDE),
        attacker_card=attacker_card,
        defender_card=defender_card,
        morale_attack=draw(st.integers(0, 2)),
        morale_defense=draw(st.integers(-2, 2)),
        obstacle=obstacle,
    )
    return combat


@settings(max_examples=40, deadline=None)
@given(pod_combats())
def test_pair_o_dice_distributions(combat):
    check(combat)


@settings(max_examples=25, deadline=None)
@given(attackers=some_units(0, 30), defenders=some_units(0, 10))
def test_rivets_distributions(attackers, defenders):
    if sum(u.factor for u in attackers) == 0:
        attackers = (Unit(1),)
    check(CombatInput("rivets", attackers=attackers, defenders=defenders))


@settings(max_examples=25, deadline=None)
@given(
    attackers=some_units(1, 40),
    defenders=some_units(1, 10),
    terrain=st.sampled_from(["forest", "woods", "rough", "clear"]),
    time=st.sampled_from(["day", "night"]),
    drm=st.integers(-6, 6),
)
def test_daynight_distributions(attackers, defenders, terrain, time, drm):
    combat = CombatInput(
        "daynight", attackers=attackers, defenders=defenders, terrain=terrain, time=time, drm=drm
    )
    check(combat)


@settings(max_examples=12, deadline=None)
@given(
    attackers=some_units(1, 80),
    defenders=some_units(1, 12),
    terrain=st.sampled_from(["open", "close", "very-close", "extremely-close"]),
    attacker_ar=st.integers(0, 5),
    defender_ar=st.integers(0, 5),
    hedgehog=st.integers(0, 3),
    overrun=st.booleans(),
)
def test_ocs_distributions(
    attackers, defenders, terrain, attacker_ar, defender_ar, hedgehog, overrun
):
    combat = CombatInput(
        "ocs",
        attackers=attackers,
        defenders=defenders,
        terrain=terrain,
        attacker_ar=attacker_ar,
        defender_ar=defender_ar,
        hedgehog=hedgehog,
        overrun=overrun,
    )
    check(combat)


@settings(max_examples=20, deadline=None)
@given(
    step=st.sampled_from(["attrition", "accuracy", "direction", "crt"]),
    aaf=st.integers(0, 9),
    caf=st.integers(1, 20),
    long_range=st.booleans(),
)
def test_boom_step_distributions(step, aaf, caf, long_range):
    if step == "attrition":
        combat = CombatInput("pod-boom", step=step, aaf=aaf, long_range=long_range)
    elif step == "crt":
        combat = CombatInput("pod-boom", step=step, caf=caf)
    else:
        combat = CombatInput("pod-boom", step=step)
    check(combat)


@settings(max_examples=8, deadline=None)
@given(
    attackers=st.lists(st.integers(0, 9).map(Unit), min_size=1, max_size=4),
    aaf=st.one_of(st.none(), st.integers(0, 8)),
)
def test_boom_chain_distributions(attackers, aaf):
    if sum(u.factor for u in attackers) == 0:
        attackers = [Unit(2)]
    check(CombatInput("pod-boom", attackers=tuple(attackers), aaf=aaf))


# A few fixed combats, worked out by hand from the seed charts.


def test_basic_distribution_at_four_to_one():
    # 1d6 on the 4-1 column: DLX / - on 1 and 4, DL2 / DR1 on 2, - / DR1 on 3,
    # DL2 / DR2 on 5, DL2 / - on 6.
    result = distribution(CombatInput("pod-basic", attackers=(Unit(8),), defenders=(Unit(2),)))
    got = {key(cell): p for cell, p, _ in result.outcomes}
    assert got == {
        key(["DLX", "-"]): Fraction(2, 6),
        key(["DL2", "DR1"]): Fraction(1, 6),
        key(["-", "DR1"]): Fraction(1, 6),
        key(["DL2", "DR2"]): Fraction(1, 6),
        key(["DL2", "-"]): Fraction(1, 6),
    }
    assert (result.odds, result.column) == ("4-1", "4-1")


def test_super_distribution_at_three_to_one():
    result = distribution(CombatInput("pod-super", attackers=(Unit(6),), defenders=(Unit(2),)))
    got = {key(cell): p for cell, p, _ in result.outcomes}
    # Rolls 3 (2 ways), 5 (4), 6 (5), 12 (1) all read attacker "1 -", defender "1 -".
    same = key({"attacker": ["1", "-"], "defender": ["1", "-"]})
    assert got[same] == Fraction(2 + 4 + 5 + 1, 36)
    # Rolls 2 (1 way) and 8 (5 ways): "- 2" / "2 -3".
    assert got[key({"attacker": ["-", "2"], "defender": ["2", "-3"]})] == Fraction(6, 36)


def test_automatic_results_are_certain():
    result = distribution(CombatInput("pod-super", attackers=(Unit(1),), defenders=(Unit(9),)))
    assert [(cell, p) for cell, p, _ in result.outcomes] == [(None, 1)]
    overrun = distribution(CombatInput("rivets", attackers=(Unit(12),), defenders=(Unit(2),)))
    assert [(cell, p) for cell, p, _ in overrun.outcomes] == [("DX", 1)]


@pytest.mark.parametrize("roll", [2, 7, 12])
def test_a_fixed_roll_is_certain(roll):
    combat = CombatInput("pod-super", attackers=(Unit(6),), defenders=(Unit(2),), roll=roll)
    result = distribution(combat)
    assert len(result.outcomes) == 1 and result.outcomes[0][1] == 1
    assert result.outcomes[0][0] == resolve(combat).cell


def test_a_boom_chain_claims_no_single_column():
    # The accuracy die decides the CAF that hits (10, or 6 when the 4 listed last drifts,
    # or none when both miss), so the chain's outcomes come from several CRT columns.
    combat = CombatInput("pod-boom", attackers=(Unit(6), Unit(4)))
    read = set()
    for faces in product(FACES, repeat=5):
        read.add(resolve(combat, rng=ScriptedDice(faces)).odds_column)
    assert len(read) > 1
    result = distribution(combat)
    assert result.column is None
    assert set(result.columns) == read
    assert result.to_dict()["column"] is None and None in result.to_dict()["columns"]


def test_one_column_is_claimed_when_every_outcome_reads_it():
    result = distribution(CombatInput("pod-super", attackers=(Unit(6),), defenders=(Unit(2),)))
    assert (result.column, result.columns) == ("3-1", ("3-1",))
    step = distribution(CombatInput("pod-boom", step="crt", caf=9))
    assert (step.column, step.columns) == ("8", ("8",))
