"""The resolvers against the seeds' worked examples and the RULINGS, ruleset by ruleset.

Expected values are worked out from the seed text and RULINGS.md (the numbers in the
comments), never read back from the engine."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from tests.seed_transcription import DAYNIGHT, OCS, POD_BASIC, POD_BOOM, POD_SUPER, RIVETS
from tui.engine import CombatInput, InputError, Unit, distribution, resolve
from tui.engine.odds import label_ratio


class ScriptedDice:
    """An RNG whose dice show the faces given, in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        face = self.faces.pop(0)
        assert low <= face <= high
        return face


def units(*factors: int | str) -> tuple[Unit, ...]:
    out = []
    for factor in factors:
        number, _, terrain = str(factor).partition("@")
        out.append(Unit(int(number), terrain or None))
    return tuple(out)


def pod(ruleset: str, attack, defense, roll: int | None = None, **extra):
    return resolve(
        CombatInput(
            ruleset, attackers=units(*attack), defenders=units(*defense), roll=roll, **extra
        )
    )


# ---------------------------------------------------------------- worked examples


def test_super_example_roll_8_at_3_1():
    # Seed 000: "Attacker rolls 8 at 3-1 odds": attack - 2 (optional advance 2),
    # defence 2 -3 (2 factors lost, retreat 3).
    outcome = pod("pod-super", [6], [2], roll=8)
    assert (outcome.odds, outcome.column, outcome.roll) == ("3-1", "3-1", "8")
    assert outcome.cell["attacker"] == ("-", "2")
    assert outcome.cell["defender"] == ("2", "-3")
    assert outcome.effects["attacker"] == {"advance_up_to": 2}
    assert outcome.effects["defender"] == {"factors_lost": 2, "retreat": 3}


def test_basic_example_roll_2_at_4_1():
    # Seed 001: "Attacker rolls 2 at 4-1 odds": DL2 / DR1.
    outcome = pod("pod-basic", [8], [2], roll=2)
    assert (outcome.odds, outcome.column) == ("4-1", "4-1")
    assert tuple(outcome.cell) == ("DL2", "DR1")
    assert outcome.effects["defender"] == {"factors_lost": 2, "retreat": 1}
    # After DL the attacker may advance up to 2 hexes, after DR1 up to 1: the larger.
    assert outcome.effects["attacker"] == {"advance_up_to": 2}


@pytest.mark.parametrize("ruleset", ["pod-basic", "pod-super", "pod-ultra"])
def test_seven_attacks_four_is_one_to_one(ruleset):
    outcome = pod(ruleset, [7], [4], roll=3)
    assert outcome.odds == "1-1" and outcome.column == "1-1"


# ---------------------------------------------------------------- every cell via resolve


def grid_reads():
    for ruleset, seed in (
        ("pod-basic", POD_BASIC),
        ("pod-super", POD_SUPER),
        ("pod-ultra", POD_SUPER),
    ):
        for row, cells in seed["rows"].items():
            for column, cell in zip(seed["columns"], cells, strict=True):
                yield CombatInput(ruleset, column=column, roll=int(row)), cell
    for row, cells in RIVETS["rows"].items():
        for column, cell in zip(RIVETS["columns"], cells, strict=True):
            yield CombatInput("rivets", column=column, roll=int(row)), cell
    for time in ("day", "night"):
        for terrain, columns in DAYNIGHT[time]["columns_by_terrain"].items():
            for row, cells in DAYNIGHT[time]["rows"].items():
                # 1d6 + DRM reaches row 0 only with a DRM of -1 or less, row 7 with +1 or more;
                # the die is entered as it lies, the desk adds the DRM.
                drm = {"0": -1, "7": 1}.get(row, 0)
                for column, cell in zip(columns, cells, strict=True):
                    combat = CombatInput(
                        "daynight",
                        column=column,
                        roll=int(row) - drm,
                        time=time,
                        terrain=terrain,
                        drm=drm,
                    )
                    yield combat, cell
    # OCS rows past 2..12 need a DRM: (attacker AR, defender AR, 2d6 as they lie), the
    # desk adding the DRM. The surprise roll is set so nobody gains surprise.
    ocs_dice = {"<=1": (0, 1, 2), "13": (2, 0, 11), "14": (2, 0, 12), ">=15": (3, 0, 12)}
    for terrain, columns in OCS["columns_by_terrain"].items():
        for row, cells in OCS["rows"].items():
            attacker_ar, defender_ar, roll = ocs_dice.get(
                row, (0, 0, int(row) if row.isdigit() else 0)
            )
            for column, cell in zip(columns, cells, strict=True):
                combat = CombatInput(
                    "ocs",
                    column=column,
                    terrain=terrain,
                    attacker_ar=attacker_ar,
                    defender_ar=defender_ar,
                    surprise_roll=7 - (attacker_ar - defender_ar),
                    roll=roll,
                )
                yield combat, cell


def as_plain(cell):
    if isinstance(cell, str):
        return cell
    if isinstance(cell, tuple | list):
        return [as_plain(c) for c in cell]
    return {side: as_plain(cell[side]) for side in cell}


def test_every_cell_is_read_by_resolve_with_column_and_roll():
    count = 0
    for combat, expected in grid_reads():
        outcome = resolve(combat, rng=ScriptedDice(1))
        # A Day/Night ENG is always rolled again (RULINGS): the printed cell is the first read.
        first = outcome.effects.get("battle", [{"cell": outcome.cell, "column": outcome.column}])[0]
        assert as_plain(first["cell"]) == expected, combat
        assert first["column"] == combat.column
        count += 1
    assert count == 6 * 7 + 2 * 11 * 8 + 6 * 10 + 2 * 4 * 8 * 10 + 4 * 15 * 13


def test_every_boom_cell_is_read_by_resolve():
    for roll in range(1, 7):
        for column, cell in zip(
            POD_BOOM["attrition"]["columns"], POD_BOOM["attrition"]["rows"][str(roll)], strict=True
        ):
            outcome = resolve(CombatInput("pod-boom", step="attrition", aaf=int(column), roll=roll))
            assert (outcome.column, outcome.cell) == (column, cell)
        for column, cell in zip(
            POD_BOOM["crt"]["columns"], POD_BOOM["crt"]["rows"][str(roll)], strict=True
        ):
            outcome = resolve(CombatInput("pod-boom", step="crt", caf=int(column), roll=roll))
            assert (outcome.column, as_plain(outcome.cell)) == (column, cell)
        for step in ("accuracy", "direction"):
            outcome = resolve(CombatInput("pod-boom", step=step, roll=roll))
            assert outcome.cell == POD_BOOM[step][str(roll)]


# ---------------------------------------------------------------- Pair-o-Dice


@pytest.mark.parametrize(
    ("ruleset", "attack", "defense", "expected"),
    [
        # Basic: AD at 1-4 or worse; 1-3 is read.
        ("pod-basic", 1, 3, "1-3"),
        ("pod-basic", 1, 4, "AD"),
        ("pod-basic", 2, 6, "1-3"),
        ("pod-basic", 2, 7, "AD"),  # 3.5 rounds to 1-4
        ("pod-basic", 2, 9, "AD"),
        # Super/Ultra: AD worse than 1-4; 1-4 is read.
        ("pod-super", 1, 4, "1-4"),
        ("pod-super", 1, 5, "AD"),
        ("pod-ultra", 3, 12, "1-4"),
        ("pod-ultra", 3, 13, "AD"),  # 4.33 rounds to 1-5
        ("pod-ultra", 2, 9, "AD"),
        # AV at 6-1 or better, all levels; 5-1 is read.
        ("pod-basic", 11, 2, "5-1"),
        ("pod-basic", 12, 2, "AV"),
        ("pod-super", 17, 3, "5-1"),
        ("pod-super", 18, 3, "AV"),
        ("pod-ultra", 30, 1, "AV"),
    ],
)
def test_automatic_defeat_and_victory(ruleset, attack, defense, expected):
    outcome = pod(ruleset, [attack], [defense], roll=3)
    if expected in ("AD", "AV"):
        assert outcome.effects["result"] == expected
        assert outcome.cell is None and outcome.column is None and outcome.roll is None
        assert outcome.dice == []
        side = "attacker" if expected == "AD" else "defender"
        assert outcome.effects[side].get("eliminated") is True
    else:
        assert "result" not in outcome.effects
        assert outcome.column == expected


def test_basic_automatic_victory_destroys_and_advances_two():
    outcome = pod("pod-basic", [6], [1])
    assert outcome.effects["defender"] == {"eliminated": True}
    assert outcome.effects["attacker"] == {"advance_up_to": 2}


def test_super_automatic_victory_must_move_in():
    outcome = pod("pod-super", [12], [2])
    assert outcome.effects["defender"] == {"eliminated": True}
    assert "must move into" in outcome.explanation


@pytest.mark.parametrize("ruleset", ["pod-super", "pod-ultra"])
def test_av_move_in_uses_the_printed_defence_factors(ruleset):
    # RULINGS: attackers with defence factors equal to the removed defenders' printed
    # factors (before terrain and morale) must move in. Printed 2 + 2 = 4; after terrain
    # (town +1, railroad +1) 3 + 3 = 6, and morale +1: 7. 40 vs 7 is 5-1, 45 vs 7 is 6-1.
    outcome = pod(ruleset, ["40@clear"], ["2@town", "2@railroad"], morale_defense=1)
    assert outcome.defense_total == 7 and outcome.odds != "AV"
    outcome = pod(ruleset, ["45@clear"], ["2@town", "2@railroad"], morale_defense=1)
    assert outcome.effects["result"] == "AV" and outcome.defense_total == 7
    assert outcome.effects["move_in_factors"] == 4
    assert "printed 4 must move" in outcome.explanation
    assert "removed 7" not in outcome.explanation


def test_no_card_is_played_in_ad_or_av():
    # An Ace would lift 1-5 to 1-2, but AD is decided before any card.
    ad = pod("pod-super", [1], [5], attacker_card="ace", buddy="attacker", medal="attacker")
    assert ad.effects["result"] == "AD"
    assert "No card is played" in ad.explanation
    av = pod("pod-super", [6], [1], defender_card="ace")
    assert av.effects["result"] == "AV"


def test_defence_zero_is_automatic_victory():
    # 1@beach loses its only factor; attacker on clear, so terrain applies.
    outcome = pod("pod-super", [1], ["1@beach"])
    assert outcome.defense_total == 0
    assert outcome.effects["result"] == "AV"


@pytest.mark.parametrize(
    ("attack", "defense", "totals", "odds"),
    [
        # Town +1 for the attacker, beach -1 for the defender: 4 vs 1.
        (["3@town"], ["2@beach"], (4, 1), "4-1"),
        # Everyone on the same terrain type: nobody is adjusted.
        (["3@town"], ["2@town"], (3, 2), "1-1"),
        (["3@river", "2@river"], ["5@river"], (5, 5), "1-1"),
        # Mixed: 3 on railroad (+1), 2 on bridge (-1) vs 4 on clear (0): 4+1 vs 4.
        (["3@railroad", "2@bridge"], ["4@clear"], (5, 4), "1-1"),
        # Never below 0: 0 on river stays 0.
        (["0@river", "6@road"], ["3@town"], (6, 4), "1-1"),
        # No terrain given reads as clear: clear vs town is mixed.
        (["4"], ["1@town"], (4, 2), "2-1"),
    ],
)
def test_super_terrain_adjusts_each_unit_by_its_own_hex(attack, defense, totals, odds):
    outcome = pod("pod-super", attack, defense, roll=7)
    assert (outcome.attack_total, outcome.defense_total) == totals
    assert outcome.odds == odds


@pytest.mark.parametrize("terrain", ["swamp", "sea"])
def test_swamp_and_sea_are_unit_terrain_with_no_combat_effect(terrain):
    # RULINGS: Swamp and Sea 0; a unit may stand there. 4 on swamp/sea vs 2 on a river:
    # the terrains differ, so the river unit takes -1: 4 vs 1 is 4-1.
    outcome = pod("pod-super", [f"4@{terrain}"], ["2@river"], roll=7)
    assert (outcome.attack_total, outcome.defense_total, outcome.odds) == (4, 1, "4-1")
    # Every unit on the same terrain: nobody is adjusted.
    outcome = pod("pod-ultra", [f"4@{terrain}"], [f"2@{terrain}"], roll=7)
    assert (outcome.attack_total, outcome.defense_total) == (4, 2)


def test_basic_has_no_terrain_and_no_medal():
    with pytest.raises(InputError):
        pod("pod-basic", ["3@town"], [2], roll=1)
    with pytest.raises(InputError) as caught:
        pod("pod-basic", [3], [2], roll=1, medal="attacker")
    assert caught.value.field == "medal"


def test_morale_adjusts_the_totals():
    outcome = pod("pod-super", [6], [2], roll=7, morale_attack=-2, morale_defense=1)
    assert (outcome.attack_total, outcome.defense_total, outcome.odds) == (4, 3, "1-1")


@pytest.mark.parametrize("ruleset", ["pod-basic", "pod-super", "pod-ultra"])
@pytest.mark.parametrize("morale", [-5, -10])
def test_a_morale_change_that_takes_the_attack_to_zero_is_named(ruleset, morale):
    with pytest.raises(InputError) as caught:
        pod(ruleset, [3, 2], [2], roll=2, morale_attack=morale)
    assert caught.value.field == "morale_attack" and caught.value.value == morale
    assert (
        "at least -4" in caught.value.allowed and "totals 5 before morale" in caught.value.allowed
    )
    assert pod(ruleset, [3, 2], [2], roll=2, morale_attack=-4).attack_total == 1


def test_an_attack_of_zero_before_morale_is_still_the_attack():
    with pytest.raises(InputError) as caught:
        pod("pod-super", [0], [2], roll=7, morale_attack=-1)
    assert caught.value.field == "attack"


# RULINGS: Ace 3 columns, King 2, Queen 2, Jack 1; Buddy and Medal one each.
CARD_COLUMNS = {"ace": 3, "king": 2, "queen": 2, "jack": 1, "joker": 0, "stanfill": 0}
SUPER_COLUMNS = POD_SUPER["columns"]


@pytest.mark.parametrize(
    ("card", "side", "column"),
    [
        ("ace", "attacker", "4-1"),
        ("king", "attacker", "3-1"),
        ("queen", "attacker", "3-1"),
        ("jack", "attacker", "2-1"),
        ("ace", "defender", "1-4"),
        ("king", "defender", "1-3"),
        ("jack", "defender", "1-2"),
    ],
)
def test_special_cards_shift_from_one_to_one(card, side, column):
    outcome = pod("pod-super", [4], [4], roll=7, **{f"{side}_card": card})
    assert outcome.odds == "1-1"
    assert outcome.column == column


def test_card_shifts_stop_at_the_last_column():
    outcome = pod("pod-super", [16], [4], roll=7, attacker_card="ace")
    assert outcome.column == "5-1"
    assert "stopped at the table's edge" in " ".join(outcome.trace)


def test_buddy_and_medal_each_shift_one_column():
    assert pod("pod-super", [4], [2], roll=7, buddy="attacker").column == "3-1"
    assert pod("pod-super", [4], [2], roll=7, buddy="defender").column == "1-1"
    assert pod("pod-super", [4], [2], roll=7, medal="attacker", buddy="attacker").column == "4-1"
    assert pod("pod-basic", [4], [2], roll=1, buddy="defender").column == "1-1"


def test_joker_swaps_the_result_lines():
    # Roll 8 at 3-1: attacker "- 2", defender "2 -3"; the Joker flips them.
    outcome = pod("pod-super", [6], [2], roll=8, defender_card="joker")
    assert outcome.column == "3-1"
    assert outcome.effects["attacker"] == {"factors_lost": 2, "retreat": 3}
    assert outcome.effects["defender"] == {"advance_up_to": 2}


@pytest.mark.parametrize("ruleset", ["pod-basic", "pod-super"])
def test_stanfill_cancels_the_result(ruleset):
    outcome = pod(ruleset, [8], [2], roll=2, attacker_card="stanfill")
    assert outcome.effects["cancelled"] is True
    assert "cancels the result" in outcome.explanation
    # Nothing happens: no side keeps the loss, retreat or advance the cell printed.
    assert outcome.effects["attacker"] == {} and outcome.effects["defender"] == {}
    assert pod(ruleset, [8], [2], roll=2).effects["defender"] != {}


@pytest.mark.parametrize(
    ("ruleset", "attacker_card", "defender_card", "field", "why"),
    [
        ("pod-super", "joker", "joker", "defender_card", "second Joker"),
        ("pod-ultra", "joker", "joker", "defender_card", "second Joker"),
        ("pod-super", "stanfill", "stanfill", "defender_card", "one card"),
        ("pod-basic", "stanfill", "stanfill", "defender_card", "one card"),
        ("pod-super", "stanfill", "joker", "defender_card", "cancels the result"),
        ("pod-super", "joker", "stanfill", "attacker_card", "cancels the result"),
    ],
)
def test_cards_are_single(ruleset, attacker_card, defender_card, field, why):
    # RULINGS: a second Joker, Stanfill on both sides, or a Joker with Stanfill is refused,
    # even where AD or AV would play no card.
    for attack, defense in ((6, 2), (1, 9), (12, 2)):
        with pytest.raises(InputError) as caught:
            pod(
                ruleset,
                [attack],
                [defense],
                roll=8 if ruleset != "pod-basic" else 2,
                attacker_card=attacker_card,
                defender_card=defender_card,
            )
        assert caught.value.field == field and why in caught.value.allowed
        assert caught.value.value in (attacker_card, defender_card)


def test_one_joker_swaps_once():
    plain = pod("pod-super", [6], [2], roll=8)
    joker = pod("pod-super", [6], [2], roll=8, attacker_card="joker")
    assert joker.effects["attacker"] == plain.effects["defender"]
    assert joker.effects["defender"] == plain.effects["attacker"]
    assert sum("Joker played" in line for line in joker.trace) == 1


def test_basic_has_no_suit_cards():
    with pytest.raises(InputError) as caught:
        pod("pod-basic", [4], [2], roll=1, attacker_card="ace")
    assert caught.value.field == "attacker_card"


@pytest.mark.parametrize("roll", [6, 12])
def test_defender_dash_one_at_one_to_four_is_an_optional_advance(roll):
    outcome = pod("pod-super", [1], [4], roll=roll)
    assert outcome.column == "1-4"
    assert outcome.cell["defender"] == ("-", "1")
    assert outcome.effects["defender"] == {"advance_up_to": 1}
    assert outcome.effects["attacker"] == {"factors_lost": 1, "retreat": 3}


@pytest.mark.parametrize(
    ("obstacle", "mines_cdf", "attack", "column"),
    [
        ("mines", None, 6, "3-1"),  # mines CDF 2 by default
        ("mines", 3, 6, "2-1"),  # the game's option: 3
        ("glider", None, 3, "3-1"),  # CDF 1
        ("beach", None, 12, "5-1"),  # 12-1 would be AV: obstacles are exempt
    ],
)
def test_ultra_obstacles(obstacle, mines_cdf, attack, column):
    outcome = resolve(
        CombatInput(
            "pod-ultra", attackers=units(attack), obstacle=obstacle, mines_cdf=mines_cdf, roll=7
        )
    )
    assert "result" not in outcome.effects
    assert outcome.column == column


@pytest.mark.parametrize(
    ("obstacle", "roll", "fate", "said"),
    [
        # Roll 8 at 3-1 is "D 2 -3": a loss of 2 clears mines (CDF 2), and nothing retreats.
        ("mines", 8, "cleared", "The mines obstacle (CDF 2) is cleared (a loss of 2)."),
        # Roll 9 at 3-1 is "D 1 -2": a loss of 1 is under the mines' CDF 2, and no retreat.
        ("mines", 9, "stays", "The mines obstacle (CDF 2) stays in place (a loss of 1, under"),
        ("beach", 3, "cleared", "The beach obstacle (CDF 1) is cleared (a loss of 1)."),
    ],
)
def test_an_obstacles_result_says_what_happens_to_it(obstacle, roll, fate, said):
    """RULINGS "Obstacles": the defender's line is the obstacle's; a loss of at least its CDF
    clears it, a smaller loss or a retreat leaves it (it said "Defender loses 2 factors, must
    retreat 3 hexes")."""
    attack = 6 if obstacle == "mines" else 3
    combat = CombatInput("pod-ultra", attackers=units(attack), obstacle=obstacle, roll=roll)
    outcome = resolve(combat)
    assert outcome.column == "3-1"
    assert outcome.effects["defender"]["obstacle"] == fate
    assert "retreat" not in outcome.effects["defender"]
    assert said in outcome.explanation and "Defender" not in outcome.explanation
    assert "obstacle's" in outcome.trace[-1]


def test_obstacles_are_ultra_only():
    with pytest.raises(InputError):
        resolve(CombatInput("pod-super", attackers=units(3), obstacle="mines", roll=7))


def expected_pod_column(ruleset, odds, buddy, medal, attacker_card, defender_card):
    """RULINGS: every shift (Buddy, Medal, attacker's card, defender's card) netted, then
    applied once, stopping at the first or last column."""
    columns = POD_BASIC["columns"] if ruleset == "pod-basic" else SUPER_COLUMNS
    index = columns.index(odds)
    moves = []
    for holder in (buddy, medal):
        if holder:
            moves.append(1 if holder == "attacker" else -1)
    for sign, card in ((1, attacker_card), (-1, defender_card)):
        if card:
            moves.append(sign * CARD_COLUMNS[card])
    # RULINGS: the shifts are netted first, then applied once.
    index = min(max(index + sum(moves), 0), len(columns) - 1)
    return columns[index]


SIDE = st.sampled_from([None, "attacker", "defender"])
SUIT = st.sampled_from([None, "ace", "king", "queen", "jack", "joker", "stanfill"])


@settings(max_examples=150, deadline=None)
@given(
    ruleset=st.sampled_from(["pod-basic", "pod-super", "pod-ultra"]),
    attack=st.integers(1, 40),
    defense=st.integers(1, 40),
    buddy=SIDE,
    medal=SIDE,
    attacker_card=SUIT,
    defender_card=SUIT,
    roll=st.integers(1, 6),
)
def test_pod_shifts_never_leave_the_table(
    ruleset, attack, defense, buddy, medal, attacker_card, defender_card, roll
):
    if ruleset == "pod-basic":
        medal = None
        attacker_card = "stanfill" if attacker_card == "stanfill" else None
        defender_card = "stanfill" if defender_card == "stanfill" else None
    # Cards are single (RULINGS): those pairs are refused, tested on their own.
    single = {"joker", "stanfill"}
    assume(not (attacker_card in single and defender_card in single))
    if ruleset != "pod-basic":
        roll += 1
    outcome = pod(
        ruleset,
        [attack],
        [defense],
        roll=roll,
        buddy=buddy,
        medal=medal,
        attacker_card=attacker_card,
        defender_card=defender_card,
    )
    columns = POD_BASIC["columns"] if ruleset == "pod-basic" else SUPER_COLUMNS
    if outcome.effects.get("result") in ("AD", "AV"):
        assert outcome.column is None
        return
    assert outcome.column in columns
    assert outcome.column == expected_pod_column(
        ruleset, outcome.odds, buddy, medal, attacker_card, defender_card
    )


# ---------------------------------------------------------------- the column read


def column_position(ruleset: str, attack: int, defense: int, terrain: str | None) -> int:
    """Where the resolver reads: -1 for AD, len(columns) for AV/overrun, else the index."""
    extra = {}
    roll = 1
    if ruleset in ("pod-super", "pod-ultra"):
        roll = 2
    if ruleset == "ocs":
        extra = {"terrain": terrain, "surprise_roll": 7}
        roll = 7
    if ruleset == "daynight":
        extra = {"terrain": terrain}
    outcome = resolve(
        CombatInput(ruleset, attackers=units(attack), defenders=units(defense), roll=roll, **extra)
    )
    columns = ruleset_columns(ruleset, terrain)
    result = outcome.effects.get("result")
    if result == "AD":
        return -1
    if result in ("AV", "overrun"):
        return len(columns)
    return columns.index(outcome.column)


def ruleset_columns(ruleset: str, terrain: str | None) -> list[str]:
    if ruleset == "pod-basic":
        return POD_BASIC["columns"]
    if ruleset in ("pod-super", "pod-ultra"):
        return SUPER_COLUMNS
    if ruleset == "rivets":
        return RIVETS["columns"]
    if ruleset == "ocs":
        return OCS["columns_by_terrain"][terrain]
    return DAYNIGHT["day"]["columns_by_terrain"][terrain]


WITH_TERRAIN = st.one_of(
    st.tuples(st.sampled_from(["pod-basic", "pod-super", "pod-ultra", "rivets"]), st.none()),
    st.tuples(st.just("ocs"), st.sampled_from(list(OCS["columns_by_terrain"]))),
    st.tuples(st.just("daynight"), st.sampled_from(list(DAYNIGHT["day"]["columns_by_terrain"]))),
)


@settings(max_examples=150, deadline=None)
@given(which=WITH_TERRAIN, attack=st.integers(1, 300), defense=st.integers(1, 300))
def test_the_resolvers_never_read_a_column_above_the_ratio(which, attack, defense):
    ruleset, terrain = which
    columns = ruleset_columns(ruleset, terrain)
    position = column_position(ruleset, attack, defense, terrain)
    exact = Fraction(attack, defense)
    ratios = [label_ratio(label) for label in columns]
    if ruleset in ("pod-basic", "pod-super", "pod-ultra", "rivets") and exact >= 6:
        assert position == len(columns)
    if position == len(columns):
        # AV (Pair-o-Dice) and overrun (Rivets) come at 6-1 or better.
        assert exact >= 6
    elif position == -1:
        assert ruleset.startswith("pod-") and exact < ratios[0]
    elif exact < ratios[0]:
        # Below the first column: Rivets reads 1-5, Day/Night's first is "or less",
        # OCS reads its first column (desk ruling).
        assert position == 0 and ruleset in ("rivets", "daynight", "ocs")
    else:
        assert ratios[position] <= exact
        if position + 1 < len(columns):
            assert ratios[position + 1] > exact


@settings(max_examples=100, deadline=None)
@given(
    which=WITH_TERRAIN,
    attack=st.integers(1, 200),
    more=st.integers(1, 200),
    defense=st.integers(1, 200),
)
def test_more_attack_never_moves_the_resolvers_left(which, attack, more, defense):
    ruleset, terrain = which
    before = column_position(ruleset, attack, defense, terrain)
    after = column_position(ruleset, attack + more, defense, terrain)
    assert after >= before


# ---------------------------------------------------------------- Rivets


def test_rivets_worse_than_one_to_five_reads_one_to_five():
    outcome = resolve(CombatInput("rivets", attackers=units(1), defenders=units(9), roll=6))
    assert (outcome.odds, outcome.column, outcome.cell) == ("1-9", "1-5", "AR")


@pytest.mark.parametrize(("attack", "defense"), [(6, 1), (13, 2), (100, 3)])
def test_rivets_six_to_one_is_an_overrun_without_a_die(attack, defense):
    outcome = resolve(CombatInput("rivets", attackers=units(attack), defenders=units(defense)))
    assert outcome.effects["result"] == "overrun"
    assert outcome.cell == "DX" and outcome.roll is None and outcome.dice == []
    assert outcome.effects["defender"] == {"eliminated": True}
    assert "BCPC" in outcome.explanation


def test_rivets_just_under_six_to_one_rolls():
    outcome = resolve(CombatInput("rivets", attackers=units(11), defenders=units(2), roll=1))
    assert (outcome.column, outcome.cell) == ("5-1", "DR")
    assert "result" not in outcome.effects


# ---------------------------------------------------------------- OCS


def ocs(**fields):
    base = {
        "attackers": units(fields.pop("attack", 4)),
        "defenders": units(fields.pop("defense", 2)),
    }
    return resolve(CombatInput("ocs", **base, **fields))


def test_ocs_terrain_row_picks_the_columns():
    # 4 vs 2 = 2:1: Open lists 2:1 sixth, Extremely Close third.
    assert ocs(terrain="open", surprise_roll=7, roll=7).column == "2:1"
    outcome = ocs(terrain="extremely-close", surprise_roll=7, roll=7)
    assert outcome.column == "2:1"
    assert outcome.cell == OCS["rows"]["7"][2]


def test_ocs_between_columns_reads_the_lower():
    # 20 vs 2 = 10:1 in Extremely Close: 8:1 (next is 12:1).
    assert (
        ocs(attack=20, defense=2, terrain="extremely-close", surprise_roll=7, roll=7).column
        == "8:1"
    )


def test_ocs_below_the_first_column_reads_it():
    outcome = ocs(attack=1, defense=9, terrain="open", surprise_roll=7, roll=7)
    assert (outcome.odds, outcome.column) == ("1:9", "1:5")


@pytest.mark.parametrize(
    ("overrun", "surprise_roll", "side"),
    [
        (False, 10, "attacker"),
        (False, 9, None),
        (False, 6, None),
        (False, 5, "defender"),
        (True, 9, "attacker"),
        (True, 8, None),
        (True, 7, None),
        (True, 6, "defender"),
    ],
)
def test_ocs_surprise_thresholds(overrun, surprise_roll, side):
    outcome = ocs(overrun=overrun, surprise_roll=surprise_roll, shift_roll=2, roll=7)
    assert outcome.effects.get("surprise", {}).get("side") == side
    # 4 vs 2 in Open is 2:1 (index 5); surprise 2 columns either way.
    expected = {"attacker": "4:1", "defender": "1:2", None: "2:1"}[side]
    assert outcome.column == expected


def test_ocs_surprise_uses_the_ar_difference_and_the_hedgehog():
    # Raw 8, AR 3 - 1 = +2: 10, attacker surprise.
    assert (
        ocs(attacker_ar=3, defender_ar=1, surprise_roll=8, shift_roll=1, roll=7).effects[
            "surprise"
        ]["side"]
        == "attacker"
    )
    # In a hedgehog the defender's AR counts one more: 8 + 3 - 2 = 9, nobody.
    outcome = ocs(attacker_ar=3, defender_ar=1, hedgehog=1, surprise_roll=8, roll=7)
    assert "surprise" not in outcome.effects


@pytest.mark.parametrize("surprise_roll", [12, 7, 2, None])
@pytest.mark.parametrize("shift_roll", [0, 7, 9])
def test_ocs_a_shift_roll_no_die_gives_is_refused_with_or_without_surprise(
    surprise_roll, shift_roll
):
    # Surprise 12: the attacker's; 7: nobody's; 2: the defender's; None: the desk rolls it.
    with pytest.raises(InputError) as caught:
        ocs(surprise_roll=surprise_roll, shift_roll=shift_roll, roll=7)
    assert caught.value.field == "shift_roll" and "from 1 to 6" in caught.value.allowed
    with pytest.raises(InputError, match="shift_roll"):
        distribution(CombatInput("ocs", attackers=units(4), defenders=units(2), shift_roll=9))


def test_ocs_a_good_shift_roll_without_surprise_is_noted_unused():
    outcome = ocs(surprise_roll=7, shift_roll=6, roll=7)
    assert "surprise" not in outcome.effects and outcome.column == "2:1"
    assert "The shift roll 6 is not used" in outcome.trace


def test_ocs_surprise_shift_stops_at_the_edge():
    outcome = ocs(attack=40, defense=2, terrain="open", surprise_roll=12, shift_roll=6, roll=7)
    assert outcome.odds_column == "13:1" and outcome.column == "13:1"
    outcome = ocs(attack=1, defense=4, terrain="open", surprise_roll=2, shift_roll=6, roll=7)
    assert outcome.column == "1:5"


def test_ocs_drm_and_edge_rows():
    # DRM = 4 - 1 - hedgehog 2 = +1; the 2d6 as they lie run 2..12, read on rows 3..13.
    base = {"attacker_ar": 4, "defender_ar": 1, "hedgehog": 2, "surprise_roll": 6}
    assert ocs(**base, roll=12).roll == "13"
    assert ocs(**base, roll=2).roll == "3"
    for face in (1, 13):
        with pytest.raises(InputError) as caught:
            ocs(**base, roll=face)
        assert caught.value.field == "roll" and "2d6 roll from 2 to 12" in caught.value.allowed
    low = ocs(attacker_ar=0, defender_ar=3, surprise_roll=10, roll=2)  # 2 - 3 = -1
    assert low.roll == "<=1"
    high = ocs(attacker_ar=5, defender_ar=0, surprise_roll=2, roll=12)  # 12 + 5 = 17
    assert high.roll == ">=15"


def test_ocs_desk_dice_add_the_drm():
    # Surprise 2d6 (3, 3) + 2 = 8: nobody; result 2d6 (6, 6) + 2 = 14.
    outcome = resolve(
        CombatInput("ocs", attackers=units(4), defenders=units(2), attacker_ar=2),
        rng=ScriptedDice(3, 3, 6, 6),
    )
    assert outcome.roll == "14"
    assert outcome.cell == OCS["rows"]["14"][5]


def test_ocs_cell_effects():
    # Roll 12 at 11:1 in Open: Ae2 DL2o3DG.
    outcome = ocs(attack=22, defense=2, surprise_roll=7, roll=12)
    assert outcome.cell == "Ae2 DL2o3DG"
    assert outcome.effects["attacker"] == {"exploit_min_ar": 2}
    assert outcome.effects["defender"] == {"steps_lost": 2, "option": 3, "disorganized": True}


# ---------------------------------------------------------------- Day/Night


def daynight(**fields):
    base = {
        "attackers": units(fields.pop("attack", 4)),
        "defenders": units(fields.pop("defense", 2)),
    }
    return resolve(CombatInput("daynight", **base, **fields))


def test_daynight_first_column_is_or_less_and_last_or_more():
    outcome = daynight(attack=1, defense=9, terrain="forest", roll=1, drm=-1)
    assert outcome.column == "1-1"
    outcome = daynight(attack=90, defense=2, terrain="forest", roll=1, drm=-1, time="night")
    assert outcome.roll == "0"
    assert outcome.column == "10-1+"
    assert outcome.cell == DAYNIGHT["night"]["rows"]["0"][9]


@pytest.mark.parametrize(
    ("face", "drm", "row"), [(6, 3, "7"), (1, -3, "0"), (4, 2, "6"), (2, 0, "2")]
)
def test_daynight_die_plus_drm_is_clamped_to_the_rows(face, drm, row):
    outcome = resolve(
        CombatInput("daynight", attackers=units(4), defenders=units(2), drm=drm),
        rng=ScriptedDice(face),
    )
    assert outcome.roll == row
    assert outcome.cell == DAYNIGHT["day"]["rows"][row][4]


@pytest.mark.parametrize(
    ("row", "column", "cell", "attacker", "defender"),
    [
        (0, "2-1", "D2", {}, {"retreat_or_steps": 2}),
        (0, "3-1", "D2", {}, {"retreat_or_steps": 2}),
        (3, "1-1", "D1+", {"steps_lost": 1}, {"retreat_or_steps": 1}),
        (0, "4-1", "D2X", {}, {"steps_lost": 1, "retreat_or_steps": 2}),
        (4, "3-1", "FF", {"steps_lost": 1}, {"steps_lost": 1}),
    ],
)
def test_daynight_results_follow_the_rulings(row, column, cell, attacker, defender):
    drm = -1 if row == 0 else 0  # row 0 needs a DRM of -1 or less: the die 1, less 1
    outcome = resolve(
        CombatInput("daynight", column=column, roll=row - drm, terrain="clear", drm=drm)
    )
    assert outcome.roll == str(row)
    assert outcome.cell == cell
    assert outcome.effects["attacker"] == attacker
    assert outcome.effects["defender"] == defender


def test_daynight_btl_offers_a_reroll():
    outcome = resolve(CombatInput("daynight", column="1-3", roll=3, terrain="clear"))
    assert outcome.cell == "BTL"
    assert outcome.effects["reroll"] == "BTL"


def test_daynight_eng_is_always_rolled_again():
    # RULINGS: ENG always rolls again (here with no reserve: the same column).
    outcome = resolve(
        CombatInput("daynight", column="1-3", roll=2, terrain="clear"), rng=ScriptedDice(4)
    )
    assert [step["cell"] for step in outcome.effects["battle"]] == ["ENG", "A1"]
    assert outcome.cell == DAYNIGHT["day"]["rows"]["4"][1] == "A1"
    assert "reroll" not in outcome.effects


@pytest.mark.parametrize(
    ("drm", "rows"),
    [
        (0, {1: "1", 6: "6"}),
        (-3, {1: "0", 3: "0", 4: "1", 6: "3"}),
        (5, {1: "6", 2: "7", 6: "7"}),
        (-6, {1: "0", 6: "0"}),
        (2, {1: "3", 5: "7", 6: "7"}),
    ],
)
def test_daynight_hand_dice_are_the_die_the_drm_added_and_clamped(drm, rows):
    # RULINGS "Dice": a die entered by hand is the die as it lies; the desk adds the DRM and
    # reads the row after the 0..7 clamp.
    for face, row in rows.items():
        outcome = resolve(CombatInput("daynight", column="1-1", roll=face, drm=drm))
        assert outcome.roll == row
        (die,) = outcome.dice
        assert (die.total, die.source, die.modifier, die.row) == (face, "manual", drm, row)
    # A face no die shows is refused whatever the DRM, even where face + DRM is a row.
    for face in (0, 7, -1):
        with pytest.raises(InputError) as caught:
            resolve(CombatInput("daynight", column="1-1", roll=face, drm=drm))
        assert caught.value.field == "roll"
        assert "a 1d6 roll from 1 to 6" in caught.value.allowed


def test_daynight_hand_rerolls_are_dice_the_drm_added():
    # Clear, day, 2-1: row 5 is ENG; with DRM -3 a die reads rows 0..3 only: 6 reads row 3.
    combat = CombatInput(
        "daynight", attackers=units(4), defenders=units(2), terrain="clear", drm=-3, roll=6
    )
    assert resolve(combat).cell == DAYNIGHT["day"]["rows"]["3"][4]
    # DRM +1: the die 4 reads row 5 (ENG), the re-roll's 6 row 7 (A1).
    engaged = replace(combat, drm=1, roll=4, rerolls=(6,))
    outcome = resolve(engaged)
    assert [step["roll"] for step in outcome.effects["battle"]] == ["5", "7"]
    assert outcome.cell == DAYNIGHT["day"]["rows"]["7"][4] == "A1"
    assert [(die.total, die.modifier, die.row) for die in outcome.dice] == [
        (4, 1, "5"),
        (6, 1, "7"),
    ]
    for face in (0, 7):
        with pytest.raises(InputError) as caught:
            resolve(replace(engaged, rerolls=(face,)))
        assert caught.value.field == "rerolls" and "a 1d6 roll from 1 to 6" in caught.value.allowed


@pytest.mark.parametrize(
    ("ruleset", "attack", "defense", "roll", "result"),
    [
        ("pod-super", 1, 9, 13, "AD"),
        ("pod-super", 1, 9, 1, "AD"),
        ("pod-ultra", 12, 2, 0, "AV"),
        ("pod-basic", 12, 2, 7, "AV"),
        ("pod-basic", 1, 4, 0, "AD"),
        ("rivets", 12, 2, 9, "overrun"),
        ("rivets", 12, 2, 0, "overrun"),
    ],
)
def test_a_roll_no_die_could_give_is_refused_even_with_no_die_read(
    ruleset, attack, defense, roll, result
):
    # RULINGS: checked against the dice the combat would read, even on AD, AV or overrun.
    combat = CombatInput(ruleset, attackers=units(attack), defenders=units(defense))
    assert resolve(combat).effects["result"] == result
    with pytest.raises(InputError) as caught:
        resolve(replace(combat, roll=roll))
    assert caught.value.field == "roll"
    # A roll the dice could give is still accepted (and not read).
    lowest = 2 if ruleset in ("pod-super", "pod-ultra") else 1
    assert resolve(replace(combat, roll=lowest)).effects["result"] == result


# ---------------------------------------------------------------- Big Boom


@pytest.mark.parametrize(
    ("aaf", "long_range", "column"),
    [
        (0, False, "0"),
        (1, False, "0"),
        (3, False, "2"),
        (5, False, "4"),
        (5, True, "6"),
        (4, True, "6"),
        (30, False, "6"),
    ],
)
def test_boom_attrition_column(aaf, long_range, column):
    outcome = resolve(
        CombatInput("pod-boom", step="attrition", aaf=aaf, long_range=long_range, roll=1)
    )
    assert outcome.column == column
    assert (
        outcome.cell
        == POD_BOOM["attrition"]["rows"]["1"][POD_BOOM["attrition"]["columns"].index(column)]
    )


@pytest.mark.parametrize(
    ("caf", "column"), [(1, "1"), (3, "2"), (9, "8"), (15, "14"), (16, "16"), (99, "16")]
)
def test_boom_crt_column(caf, column):
    outcome = resolve(CombatInput("pod-boom", step="crt", caf=caf, roll=4))
    assert outcome.column == column


def test_boom_crt_effects_and_no_entry_marker():
    # Roll 1, CAF 8: All / All: every unit lost, no entry for the rest of the game.
    outcome = resolve(CombatInput("pod-boom", step="crt", caf=8, roll=1))
    assert outcome.effects["defender"] == {"eliminated": True}
    assert outcome.effects["markers"] == [{"kind": "no-entry", "side": "both", "turns": None}]
    # Roll 4, CAF 4: 4 lost, 1 turn.
    outcome = resolve(CombatInput("pod-boom", step="crt", caf=4, roll=4))
    assert outcome.effects["defender"] == {"factors_lost": 4}
    assert outcome.effects["markers"][0]["turns"] == 1


def test_boom_chain_half_miss_drifts_the_last_units():
    # Three units 4, 2, 2: accuracy 3 (half, rounded down: 1 unit misses), direction 5,
    # so 4 + 2 = 6 CAF hit; CRT roll 2 at column 6: "4 2". The astray 2 CAF strike the
    # hex one West: CRT roll 4 at column 2: "1 1".
    outcome = resolve(
        CombatInput("pod-boom", attackers=units(4, 2, 2)), rng=ScriptedDice(3, 5, 2, 4)
    )
    assert outcome.column == "6"
    assert as_plain(outcome.cell) == ["4", "2"]
    assert "West" in outcome.explanation
    assert outcome.effects["astray"] == {
        "direction": "W",
        "caf": 2,
        "column": "2",
        "cell": ["1", "1"],
        "factors_lost": 1,
    }
    assert outcome.effects["markers"] == [
        {"kind": "no-entry", "side": "both", "turns": 2},
        {"kind": "no-entry", "side": "both", "turns": 1, "astray": "W"},
    ]


def test_boom_chain_attrition_removes_bombers_first():
    # AA 6: attrition roll 2 at column 6 removes 3 bombers: nothing reaches the target.
    outcome = resolve(
        CombatInput("pod-boom", attackers=units(2, 2, 2), aaf=6), rng=ScriptedDice(2, 1)
    )
    assert outcome.cell is None
    assert outcome.effects["attacker"] == {"bombers_removed": 3}


def test_boom_chain_full_miss():
    # Accuracy 2: every unit lands one hex away (direction 1, North-East); no CAF on
    # target, and the 8 CAF strike the hex one NE: CRT roll 3 at column 8, "6 4".
    outcome = resolve(CombatInput("pod-boom", attackers=units(8)), rng=ScriptedDice(2, 1, 3))
    assert outcome.cell is None
    assert "North-East" in outcome.explanation
    assert outcome.effects["defender"] == {}
    assert outcome.effects["astray"]["cell"] == ["6", "4"]
    assert outcome.effects["markers"] == [
        {"kind": "no-entry", "side": "both", "turns": 4, "astray": "NE"}
    ]


def test_attack_of_zero_is_refused_everywhere():
    for ruleset in ("pod-basic", "pod-super", "pod-ultra", "ocs", "rivets", "daynight"):
        with pytest.raises(InputError) as caught:
            resolve(CombatInput(ruleset, attackers=units(0, 0), defenders=units(3), roll=2))
        assert caught.value.field == "attack", ruleset
    with pytest.raises(InputError):
        resolve(CombatInput("pod-boom", attackers=units(0)))


def test_defence_zero_reads_the_best_result():
    assert (
        resolve(CombatInput("rivets", attackers=units(1), defenders=units(0))).effects["result"]
        == "overrun"
    )
    outcome = resolve(
        CombatInput(
            "daynight", attackers=units(1), defenders=units(0), terrain="woods", roll=5, drm=2
        )
    )
    assert outcome.column == "9-1+"
    outcome = ocs(attack=1, defense=0, terrain="close", surprise_roll=7, roll=7)
    assert outcome.odds_column == "18:1"


def test_unread_inputs_are_refused():
    with pytest.raises(InputError) as caught:
        resolve(
            replace(CombatInput("rivets", attackers=units(3), defenders=units(1)), terrain="open")
        )
    assert caught.value.field == "terrain"
    with pytest.raises(InputError) as caught:
        resolve(CombatInput("ocs", attackers=units("3@town"), defenders=units(1)))
    assert caught.value.field == "attack"


def test_a_mines_cdf_outside_its_options_is_refused_without_an_obstacle_too():
    with pytest.raises(InputError) as caught:
        resolve(CombatInput("pod-ultra", attackers=units(4), defenders=units(2), mines_cdf=7))
    assert caught.value.field == "mines_cdf" and caught.value.allowed == "2 or 3"
