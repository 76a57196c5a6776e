"""Luck against the odds: the chi-square p-value, mid-rank percentiles and the per-player
figures, checked against computations done by hand here from the printed charts."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from tests.generated_saves import logs
from tui import saves
from tui.engine import CombatInput, Unit, distribution, resolve
from tui.engine.cells import plain
from tui.engine.combat import combat_from_inputs as read_logged
from tui.engine.rulesets.daynight import ORDER as DAYNIGHT_ORDER
from tui.engine.tables import default_tables
from tui.reports.luck import (
    LuckReport,
    chi_square_p,
    combat_from_inputs,
    luck_report,
    luck_text,
    result_rank,
    same_chances,
    sparkline,
)


class Scripted(random.Random):
    """The desk's dice, as the test says they fall."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def q_half_integer(k: int, x: float) -> float:
    """P(chi-square with odd k degrees of freedom >= x), from Q(1/2, y) = erfc(sqrt y) and
    Q(a + 1, y) = Q(a, y) + y^a e^-y / Gamma(a + 1), with y = x / 2."""
    y = x / 2
    total = math.erfc(math.sqrt(y))
    a = 0.5
    while a < k / 2:
        total += y**a * math.exp(-y) / math.gamma(a + 1)
        a += 1
    return total


@pytest.mark.parametrize("x", [0.0, 0.3, 1.0, 3.0, 6.0, 11.0705, 20.0, 40.0])
def test_chi_square_p_matches_the_closed_forms(x: float) -> None:
    assert chi_square_p(x, 5) == pytest.approx(q_half_integer(5, x), rel=1e-10, abs=1e-15)
    assert chi_square_p(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10, abs=1e-15)
    # Even degrees of freedom: Q(1, y) = e^-y, Q(2, y) = e^-y (1 + y).
    assert chi_square_p(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10)
    assert chi_square_p(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-10)


def test_the_five_percent_point_of_five_degrees_of_freedom() -> None:
    # The printed tables' 11.07 for 5 df at 0.05.
    assert chi_square_p(11.0705, 5) == pytest.approx(0.05, abs=1e-5)


# --- a save with known dice -------------------------------------------------------------------

RIVETS_1_1 = CombatInput("rivets", (Unit(3),), (Unit(2),))  # 3 vs 2: odds 1-1
BASIC_1_1 = CombatInput("pod-basic", (Unit(3),), (Unit(3),))


def logged(path: Path, combat: CombatInput, faces: list[int], who: str) -> dict[str, Any]:
    outcome = resolve(combat, rng=Scripted(faces))
    return saves.append_combat(path, combat, outcome, who=who)


@pytest.fixture
def known(tmp_path: Path) -> Path:
    path = tmp_path / "known.toml"
    saves.new_game(path, "Known dice", ["rivets", "pod-basic"])
    for face in (6, 6, 4, 1, 6, 2):
        logged(path, RIVETS_1_1, [face], "alice")
    logged(path, BASIC_1_1, [6], "bob")
    logged(path, BASIC_1_1, [3], "bob")
    # Rolled by hand: counted apart, never as the desk's.
    hand = CombatInput("rivets", (Unit(3),), (Unit(2),), roll=5)
    saves.append_combat(path, hand, resolve(hand), who="alice")
    return path


def test_luck_figures_match_a_hand_computation(known: Path) -> None:
    report = luck_report(saves.load_game(known).entries)
    alice = report.group("alice")
    assert alice is not None
    # Faces 6, 6, 4, 1, 6, 2: six dice, one expected per face.
    counts = [1, 1, 0, 1, 0, 3]
    (faces,) = alice.desk_faces
    assert list(faces.counts) == counts
    chi2 = sum((c - 1) ** 2 / 1 for c in counts)  # = 6
    assert faces.chi_square == pytest.approx(chi2)
    assert faces.p_value == pytest.approx(q_half_integer(5, chi2), rel=1e-10)
    # Rivets 1-1 reads AX AR NE NE DR DX on rolls 1..6, worst to best for the attacker:
    # 6 (DX) has 5/6 worse, 1/6 the same; 4 (NE) 2/6 worse and 2/6 the same; 1 (AX) none
    # worse; 2 (AR) 1/6 worse.
    by_hand = {6: Fraction(5, 6) + Fraction(1, 12), 4: Fraction(2, 6) + Fraction(2, 12)}
    by_hand |= {1: Fraction(1, 12), 2: Fraction(1, 6) + Fraction(1, 12)}
    expected = [by_hand[f] for f in (6, 6, 4, 1, 6, 2)]
    assert [c.percentile for c in alice.desk.combats] == expected
    assert alice.desk.mean == pytest.approx(float(sum(expected) / 6))  # 43/72
    assert alice.desk.deviation == pytest.approx(43 / 72 - 0.5)
    # Each percentile's spread under fair dice: (1 - (4 (1/6)^3 + (1/3)^3)) / 12.
    variance = (1 - (4 * Fraction(1, 216) + Fraction(1, 27))) / 12
    assert alice.desk.z == pytest.approx((43 / 72 - 0.5) / (math.sqrt(6 * variance) / 6))
    # The hand-rolled 5 (DR) is apart: 4/6 worse, 1/6 the same.
    assert [c.percentile for c in alice.manual.combats] == [Fraction(4, 6) + Fraction(1, 12)]
    assert [list(f.counts) for f in alice.manual_faces] == [[0, 0, 0, 0, 1, 0]]


def test_an_order_of_results_from_effects_on_a_chart_that_is_not_monotone(known: Path) -> None:
    # Pair-o-Dice Basic 1-1, attack 3: ALX (lose all 3) < AL2 AR1 < AL2 < - AR2 < - - < DL2 DR1,
    # one roll each. Roll 6 is "- / AR2": 3 results worse; roll 3 "DL2 / DR1": 5 worse.
    bob = luck_report(saves.load_game(known).entries).group("bob")
    assert bob is not None
    assert [c.percentile for c in bob.desk.combats] == [
        Fraction(3, 6) + Fraction(1, 12),
        Fraction(5, 6) + Fraction(1, 12),
    ]


def test_groups_per_player_and_per_ruleset(known: Path) -> None:
    report = luck_report(saves.load_game(known).entries)
    assert report.players == ["alice", "bob"]
    assert report.everyone.desk.count == 8 and report.everyone.manual.count == 1
    assert report.group("alice", "rivets") is not None
    assert report.group("alice", "pod-basic") is None
    everyone_faces = report.everyone.desk_faces[0]
    assert everyone_faces.dice == 8 and everyone_faces.counts[5] == 4  # 6 6 6 and bob's 6


def test_an_amended_combat_counts_its_dice_once(known: Path) -> None:
    entries = saves.load_game(known).entries
    first = entries[0]
    amending = dict(first, seq=len(entries) + 1, amends=first["seq"])
    before = luck_report(entries)
    after = luck_report([*entries, amending])
    assert after.everyone.desk_faces == before.everyone.desk_faces
    assert after.everyone.desk.count == before.everyone.desk.count
    assert (amending["seq"], f"it amends entry {first['seq']}, read as rolled") in after.skipped
    # Without the amends key the same entry would count again: the test can fail.
    again = luck_report([*entries, dict(first, seq=len(entries) + 1)])
    assert again.everyone.desk_faces[0].dice == before.everyone.desk_faces[0].dice + 1


def test_an_automatic_result_is_not_judged(tmp_path: Path) -> None:
    path = tmp_path / "auto.toml"
    saves.new_game(path, "Auto", ["pod-basic"])
    av = CombatInput("pod-basic", (Unit(12),), (Unit(2),))  # 6-1: Automatic Victory
    saves.append_combat(path, av, resolve(av), who="alice")
    report = luck_report(saves.load_game(path).entries)
    assert report.combats == () and report.skipped[0][0] == 1


def test_a_result_stanfill_cancelled_is_not_judged(tmp_path: Path) -> None:
    # Stanfill cancels the result: nothing happens to either side, so there is no luck in it.
    path = tmp_path / "stanfill.toml"
    saves.new_game(path, "Stanfill", ["pod-super"])
    played = CombatInput("pod-super", (Unit(6),), (Unit(2),), defender_card="stanfill", roll=8)
    outcome = resolve(played)
    assert outcome.effects["attacker"] == {} and outcome.effects["defender"] == {}
    saves.append_combat(path, played, outcome, who="alice")
    plain_roll = replace(played, defender_card=None)
    saves.append_combat(path, plain_roll, resolve(plain_roll), who="alice")
    report = luck_report(saves.load_game(path).entries)
    assert [seq for seq, _ in report.skipped] == [1]
    assert "cancelled" in report.skipped[0][1]
    assert len(report.combats) == 1  # the same roll without the card is judged


def test_inputs_read_back_as_the_combat() -> None:
    # Luck reads a logged combat back with what decides its chances: the form and every unit
    # field, not the dice rolled by hand nor an answer that only says how a result is taken.
    # The schema without `keep` reads everything back.
    combat = CombatInput(
        "pod-super", (Unit(3, "town"), Unit(2)), (Unit(4),), attacker_card="ace", roll=7
    )
    assert combat_from_inputs(combat.to_dict()) == replace(combat, roll=None)
    assert read_logged(combat.to_dict()) == combat
    daynight = CombatInput(
        "daynight",
        (Unit(6),),
        (Unit(2),),
        terrain="clear",
        time="day",
        roll=5,
        rerolls=(3, 4),
        reserve=2,
        press_on=True,
        attacker_retreats=True,
    )
    logged = daynight.to_dict() | {"rerolls": [3, 4]}  # a TOML array reads back as a list
    # The reserve and pressing on shape the chances: kept.
    judged = replace(daynight, roll=None, rerolls=(), attacker_retreats=False)
    assert combat_from_inputs(logged) == judged
    assert (judged.reserve, judged.press_on) == (2, True)
    assert read_logged(logged) == daynight
    ocs = CombatInput(
        "ocs",
        (Unit(6, name="21 Pz", steps=3, ar=4, kind="combat", supply="internal", stocks="low"),),
        (Unit(2, name="2 NZ", steps=2, re=1.0, ar=3),),
        terrain="close",
        surprise_roll=7,
        shift_roll=2,
        roll=8,
        attacker_option_retreat=1,
        defender_option_retreat=0,
        defender_ignores_options=True,
    )
    blank = CombatInput("ocs")
    assert combat_from_inputs(ocs.to_dict()) == replace(
        ocs,
        surprise_roll=blank.surprise_roll,
        shift_roll=blank.shift_roll,
        roll=None,
        attacker_option_retreat=blank.attacker_option_retreat,
        defender_option_retreat=blank.defender_option_retreat,
        defender_ignores_options=blank.defender_ignores_options,
    )
    assert read_logged(ocs.to_dict()) == ocs
    boom = CombatInput("pod-boom", (Unit(6), Unit(4)), aaf=3, chain_rolls=(2, 5, 1, 3))
    logged = boom.to_dict() | {"chain_rolls": [2, 5, 1, 3]}
    assert combat_from_inputs(logged) == replace(boom, chain_rolls=())
    assert read_logged(logged) == boom


@settings(max_examples=12, deadline=None)
@given(
    attack=st.integers(1, 40),
    defense=st.integers(1, 12),
    ratings=st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 2)),
    terrain=st.sampled_from(["open", "close", "very close", "extremely close"]),
    overrun=st.booleans(),
    unsupplied=st.booleans(),
)
def test_an_ocs_combat_read_on_its_odds_column_has_the_same_chances(
    attack: int,
    defense: int,
    ratings: tuple[int, int, int],
    terrain: str,
    overrun: bool,
    unsupplied: bool,
) -> None:
    attacker_ar, defender_ar, hedgehog = ratings
    combat = CombatInput(
        "ocs",
        (Unit(attack),),
        (Unit(defense),),
        terrain=terrain,
        attacker_ar=attacker_ar,
        defender_ar=defender_ar,
        hedgehog=hedgehog,
        overrun=overrun,
        defender_unsupplied=unsupplied,
    )
    entry = resolve(combat).to_dict()
    shared = same_chances(combat, entry)
    assert shared.column == entry["odds_column"] and shared.attackers == ()
    assert shared.attacker_ar - shared.defender_ar == attacker_ar - defender_ar
    assert min(shared.attacker_ar, shared.defender_ar) == 0

    def chances(c: CombatInput) -> dict[str, Fraction]:
        return {json.dumps(plain(cell)): p for cell, p, _ in distribution(c).outcomes}

    assert chances(shared) == chances(combat)


# --- the order of results against the printed charts ------------------------------------------


def test_the_day_night_order_reads_down_every_printed_column() -> None:
    tables = default_tables()
    for time in ("day", "night"):
        chart = tables.terrain_chart(f"daynight.{time}")
        rows = sorted(chart.rows, key=int)
        for terrain, columns in chart.columns_by_terrain.items():
            for index, column in enumerate(columns):
                read = [chart.rows[row][index] for row in rows]
                ranks = [result_rank("daynight", cell, {}) for cell in read]
                assert ranks == sorted(ranks, reverse=True), (time, terrain, column, read)
    assert set(DAYNIGHT_ORDER) >= {
        c
        for t in ("day", "night")
        for r in default_tables().terrain_chart(f"daynight.{t}").rows.values()
        for c in r
    }


def test_higher_rivets_rolls_are_never_worse_for_the_attacker() -> None:
    chart = default_tables().chart("rivets.crt")
    for column in chart.columns:
        ranks = []
        for roll in range(1, 7):
            combat = CombatInput("rivets", (Unit(1),), (Unit(1),), column=column, roll=roll)
            outcome = resolve(combat)
            ranks.append(result_rank("rivets", outcome.cell, outcome.effects, 1, 1))
        assert ranks == sorted(ranks), column


def test_higher_ocs_rolls_are_never_worse_for_the_attacker() -> None:
    chart = default_tables().terrain_chart("ocs.crt")
    for terrain, columns in chart.columns_by_terrain.items():
        for column in columns:
            ranks = []
            for roll in range(2, 13):
                combat = CombatInput(
                    "ocs",
                    (Unit(1),),
                    (Unit(1),),
                    terrain=terrain.lower(),
                    column=column,
                    roll=roll,
                    surprise_roll=7,
                )
                outcome = resolve(combat)
                ranks.append(result_rank("ocs", outcome.cell, outcome.effects))
            assert ranks == sorted(ranks), (terrain, column)


# --- as text -----------------------------------------------------------------------------------


def test_luck_text_shows_bars_a_sparkline_and_the_numbers(known: Path) -> None:
    report = luck_report(saves.load_game(known).entries)
    text = luck_text(report, 60)
    assert "Player alice" in text and "Player bob" in text
    alice = report.group("alice")
    assert alice is not None
    marks = sparkline([float(c.percentile) for c in alice.desk.combats], 56)
    assert marks in text and len(marks) == 6
    assert f"p = {alice.desk_faces[0].p_value:.3f}" in text
    assert "By hand (apart)" in text
    bars = [line for line in text.splitlines() if "█" in line]
    assert bars and max(len(line) for line in bars) <= 60


@pytest.mark.parametrize("width", [40, 60, 76])
def test_luck_text_breaks_its_lines_between_words_to_fit_the_pane(known: Path, width) -> None:
    """Every line fits `width` (the review's pane broke longer ones mid-word), and what was
    said is said in the same words."""
    report = luck_report(saves.load_game(known).entries)
    text, wide = luck_text(report, width), luck_text(report, 400)
    assert max(len(line) for line in text.splitlines()) <= width
    marks = set("▁▂▃▄▅▆▇█▏▎▍▌▋▊▉")  # bars and sparklines are drawn to the width

    def words(said: str) -> list[str]:
        return [word for word in said.split() if not marks & set(word)]

    assert words(text) == words(wide)
    assert "Luck against the odds. Percentile: P(worse) + P(same)/2 of the result" in wide


def test_entries_edited_by_hand_are_left_out_not_a_crash(known: Path) -> None:
    entries = saves.load_game(known).entries
    first = entries[0]
    broken = [
        dict(first, seq=101, inputs={"ruleset": "rivets", "bogus": 1}),
        dict(first, seq=102, inputs={"ruleset": "rivets", "attackers": [3]}),
        dict(first, seq=103, inputs=5),
        dict(first, seq=104, dice=[7, "1d6"]),
    ]
    report = luck_report([*entries, *broken])
    why = dict(report.skipped)
    assert "'bogus' is not allowed" in why[101]
    assert why[102].startswith("its inputs cannot be read again")
    assert why[103].startswith("its inputs cannot be read again")
    assert why[104].startswith("no dice were read")
    # Their dice still count (101-103 keep the first combat's 6); the bad roll does not.
    before = luck_report(entries).everyone.desk_faces[0].counts
    after = report.everyone.desk_faces[0].counts
    assert after == (*before[:5], before[5] + 3)
    # The text names each one with the reason its JSON gives.
    left_out = luck_text(report, 400).partition("\nNot judged:\n")[2].splitlines()
    for seq, reason in why.items():
        assert any(f"#{seq}" in line and line.endswith(f": {reason}") for line in left_out)


def test_an_empty_log_has_no_figures() -> None:
    report = luck_report([])
    assert report.players == [] and report.everyone.desk.mean is None
    assert "Desk dice: none" in luck_text(report)


def test_dice_the_desk_rolled_outside_a_combat_count_as_its_dice(known: Path) -> None:
    before = luck_report(saves.load_game(known).entries).group("bob")
    draw = {"purpose": "Hero Site card draw", "dice": "1d6", "values": [3], "total": 3}
    saves.append_event(
        known,
        "hero-site-draw",
        "draw",
        ruleset="pod-basic",
        dice=[draw | {"source": "desk"}],
        who="bob",
    )
    after = luck_report(saves.load_game(known).entries).group("bob")
    assert before is not None and after is not None
    assert after.desk_faces[0].counts[2] == before.desk_faces[0].counts[2] + 1
    assert after.desk.count == before.desk.count  # not a combat


def test_a_card_after_the_roll_amends_the_combat_and_its_dice_count_once(tmp_path: Path) -> None:
    path = tmp_path / "joker.toml"
    saves.new_game(path, "Joker", ["pod-super"])
    combat = CombatInput("pod-super", (Unit(6),), (Unit(2),))  # 3-1
    rolled = resolve(combat, rng=Scripted([2, 5]))
    saves.append_combat(path, combat, rolled, who="alice")
    # The Joker played after the roll: the same roll read again, the same dice (desk).
    amended = replace(combat, attacker_card="joker", roll=int(rolled.roll or 0))
    again = resolve(amended)
    again.dice = list(rolled.dice)
    saves.append_combat(path, amended, again, amends=1, who="alice")
    entries = saves.load_game(path).entries
    assert entries[1]["amends"] == 1 and entries[1]["dice"][0]["source"] == "desk"
    report = luck_report(entries)
    alice = report.group("alice")
    assert alice is not None
    assert list(alice.desk_faces[0].counts) == [0, 1, 0, 0, 1, 0]  # 2 and 5, once
    assert [c.seq for c in report.combats] == [1] and dict(report.skipped)[2].startswith(
        "it amends entry 1"
    )
    # Judged as rolled, without the card: 3-1 roll 7 is "A - 2 / D 3 -4" (seed 000).
    assert report.combats[0].cell == {"attacker": ["-", "2"], "defender": ["3", "-4"]}


# --- one pass: the figures of entries read one by one ------------------------------------------


def whole_list_report(entries: list[dict[str, Any]]) -> LuckReport:
    """The figures as they were worked out with every entry at hand: each group's dice
    gathered again from the entries (the one-pass tally must give the same)."""
    from tui.reports.luck.stats import (
        CombatFigures,
        FaceCounts,
        LuckGroup,
        _faces,
        _rolls,
        combat_luck,
    )

    def faces(rolls: list[dict[str, Any]]) -> tuple[tuple[FaceCounts, ...], int]:
        counts: dict[int, list[int]] = {}
        faceless = 0
        for die in rolls:
            found = _faces(die)
            if found is None:
                faceless += 1
                continue
            for value in found[1]:
                counts.setdefault(found[0], [0] * found[0])[value - 1] += 1
        return tuple(FaceCounts(s, tuple(c)) for s, c in sorted(counts.items())), faceless

    counted = [e for e in entries if _rolls(e) and e.get("amends") is None]
    combats, skipped = [], []
    for entry in entries:
        if entry.get("kind") != "combat":
            continue
        if entry.get("amends") is not None:
            skipped.append((entry["seq"], f"it amends entry {entry['amends']}, read as rolled"))
            continue
        found = combat_luck(entry, default_tables(), {})
        (skipped.append((entry["seq"], found)) if isinstance(found, str) else combats.append(found))

    def group(player: str | None, ruleset: str | None) -> LuckGroup:
        def mine(player_of: Any, ruleset_of: Any) -> bool:
            return player in (None, player_of) and ruleset in (None, ruleset_of)

        rolls = [
            d for e in counted if mine(str(e.get("who", "")), e.get("ruleset")) for d in _rolls(e)
        ]
        desk, _ = faces([d for d in rolls if d.get("source") == "desk"])
        seeded, _ = faces([d for d in rolls if d.get("source") == "seed"])
        manual, faceless = faces([d for d in rolls if d.get("source") not in ("desk", "seed")])
        chosen = [c for c in combats if mine(c.player, c.ruleset)]
        return LuckGroup(
            player,
            ruleset,
            desk,
            manual,
            faceless,
            CombatFigures(tuple(c for c in chosen if c.source == "desk")),
            CombatFigures(tuple(c for c in chosen if c.source == "manual")),
            seeded,
            CombatFigures(tuple(c for c in chosen if c.source == "seed")),
        )

    players = sorted({str(e.get("who", "")) for e in counted} | {c.player for c in combats})
    groups = [group(None, None)]
    for player in players:
        groups.append(group(player, None))
        rulesets = {
            str(e["ruleset"]) for e in counted if e.get("who") == player and e.get("ruleset")
        }
        groups += [group(player, r) for r in sorted(rulesets)]
    return LuckReport(tuple(groups), tuple(combats), tuple(skipped))


# Entries no save holds (a load refuses them), that the figures still take as they come.
ODD_ENTRIES = [
    {"seq": 90, "kind": "event", "ruleset": 5, "who": "ann", "dice": [{"dice": "1d6", "total": 4}]},
    {
        "seq": 91,
        "kind": "event",
        "dice": [
            {"dice": "2d6", "values": [6, 1], "source": "desk"},
            {"dice": "2d6", "total": 9, "source": "desk"},
        ],
    },
    {
        "seq": 92,
        "kind": "event",
        "who": 7,
        "ruleset": "rivets",
        "dice": [{"dice": "1d6", "total": 2}],
    },
]


@settings(max_examples=25, deadline=None)
@given(log=logs(), odd=st.booleans())
def test_the_one_pass_tally_gives_the_figures_of_the_whole_list(
    log: list[tuple[dict[str, Any], str]], odd: bool
) -> None:
    entries = [entry for entry, _ in log] + (ODD_ENTRIES if odd else [])
    # Read once, from an iterator: nothing is gathered again.
    assert luck_report(iter(entries)) == whole_list_report(entries)


def test_luck_read_entry_by_entry_from_the_save_is_the_loaded_games(known: Path) -> None:
    streamed = luck_report(read.entry for read in saves.read_entries(known, 200))
    assert streamed == luck_report(saves.load_game(known).entries)
    assert streamed.players and streamed.combats


# --- a side that loses all it has ---------------------------------------------------------------


def test_results_that_wipe_out_the_defender_rank_alike_whatever_else_its_line_says(
    tmp_path: Path,
) -> None:
    # Basic 4-1, 8 v 2: rolls 1 and 4 read DLX / -, 2 DL2 / DR1, 3 - / DR1, 5 DL2 / DR2 and
    # 6 DL2 / -. Every DL2 wipes out the 2-factor defender as DLX does: nothing is left to
    # retreat, so the five rank alike and only - / DR1 is worse.
    combat = CombatInput("pod-basic", (Unit(8),), (Unit(2),))
    path = tmp_path / "wipe.toml"
    saves.new_game(path, "Wipe", ["pod-basic"])
    for face in range(1, 7):
        logged(path, combat, [face], "alice")
    entries = saves.load_game(path).entries
    assert [plain(e["cell"]) for e in entries] == [
        ["DLX", "-"],
        ["DL2", "DR1"],
        ["-", "DR1"],
        ["DLX", "-"],
        ["DL2", "DR2"],
        ["DL2", "-"],
    ]
    ranks = [result_rank("pod-basic", e["cell"], e["effects"], 8, 2) for e in entries]
    assert ranks[0] == ranks[1] == ranks[3] == ranks[4] == ranks[5] > ranks[2]
    report = luck_report(entries)
    top = Fraction(1, 6) + Fraction(5, 12)  # one result worse, five the same
    assert [c.percentile for c in report.combats] == [top, top, Fraction(1, 12), top, top, top]
    # A 3-factor defender is not wiped out by a DL2: its retreat still counts.
    three = [
        result_rank("pod-basic", e["cell"], e["effects"], 8, 3)
        for e in entries
        if plain(e["cell"]) in (["DL2", "DR2"], ["DL2", "-"])
    ]
    assert three[0] > three[1]


def test_an_ocs_side_is_weighed_by_its_steps() -> None:
    # OCS losses are steps: luck weighs a side's losses against its units' steps (where each
    # unit's are given, as OCS itself reads them), not its factors.
    from tui.engine.tables import default_tables
    from tui.reports.luck.stats import _wholes

    tables = default_tables()
    assert tables.losses_in("ocs") == "steps" and tables.losses_in("pod-basic") == "factors"
    logged = {"attack_total": 4, "defense_total": 1}
    known = CombatInput("ocs", (Unit(4, steps=2),), (Unit(1, steps=3), Unit(0, steps=1)))
    assert _wholes(known, logged, tables) == (2, 4)
    steps_unknown = CombatInput("ocs", (Unit(4, steps=2),), (Unit(1),))
    assert _wholes(steps_unknown, logged, tables) == (2, None)
    plain_units = CombatInput("pod-basic", (Unit(4),), (Unit(1),))
    assert _wholes(plain_units, logged, tables) == (4, 1)
    effects = {"attacker": {"option": 1}, "defender": {"steps_lost": 1, "option": 1}}
    # One step of a 1-factor, 3-step defender: it is still there, and its option counts.
    assert result_rank("ocs", "Ao1 DL1o1", effects, 2, 3) == (1, 0, 0, 0, 0, 0)
    # Its only step: it is gone, and the option its line adds is nothing.
    assert result_rank("ocs", "Ao1 DL1o1", effects, 2, 1) == (1, -1, 0, 0, 0, 0)


def test_luck_names_the_true_reason_for_a_chart_combat_it_leaves_out(tmp_path: Path) -> None:
    # Hill 203: 2 against 5 is an Automatic Defeat, read with no dice (the roll by hand is not
    # read); 10 against 2 is 5-1, and with the leader's +2 every roll reads DE, so a roll by
    # hand there has dice but nothing to judge. Luck leaves both out, each for its reason, and
    # says of the dice by hand that no combat was judged, not that none had dice.
    from tui.engine import registry
    from tui.engine.rulesets.charts.reading import load_chart

    hill = load_chart(Path(__file__).resolve().parents[2] / "docs" / "games" / "hill-203.toml")
    ruleset = registry.chart_ruleset(hill).id
    path = tmp_path / "hill.toml"
    saves.new_game(path, "Hill", [ruleset], charts={ruleset: hill.text})
    automatic = CombatInput(ruleset, (Unit(2),), (Unit(5),), roll=3)
    certain = CombatInput(ruleset, (Unit(10),), (Unit(2),), roll=3, modifiers=(("leader", 2),))
    for found in (automatic, certain):
        saves.append_combat(path, found, resolve(found), who="alice")
    report = luck_report(saves.load_game(path).entries)
    assert report.combats == ()
    assert report.skipped == (
        (1, "no dice were read (an automatic result)"),
        (2, "every result the dice could give was as good as this one"),
    )
    text = luck_text(report, 200)
    by_hand = text.splitlines()[text.splitlines().index("Everyone") + 3 :][:2]
    assert by_hand[0].startswith("  By hand (apart): 1 d6")
    assert by_hand[1].strip() == "no combats judged"
    assert "no combats with dice" not in text
