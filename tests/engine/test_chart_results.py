"""A player's chart's results (issue 30, part C): [results] entries that tie in luck's order,
codes with several # ("#-#"), re-roll codes ([rerolls]) resolved as a chain and folded into
the exact chances, the luck reason of a combat a chart game leaves out, and a clamped
roll's one trace line. Each chance below is worked out by hand from the chart here."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from tui import saves
from tui.engine import registry
from tui.engine.cells import plain
from tui.engine.combat import CombatInput, Unit, distribution, resolve
from tui.engine.errors import InputError
from tui.engine.rulesets.charts.chart import ChartError, PlayerChart
from tui.engine.rulesets.charts.reading import load_chart, parse_chart
from tui.reports.luck import luck_report

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"

# Columns 1-1, 2-1, 3-1 on 1d6. RR rolls again one column to the right, at most twice; an
# RR on the second re-roll is NE. "1-1" is an exact code beside the "#-#" pattern, and ties
# with it in luck's order; NE ties with AR.
FORD = """\
[game]
title = "Ford"
dice = "1d6"

[crt]
kind = "odds"
columns = ["1-1", "2-1", "3-1"]

[crt.rows]
"1" = ["AE",  "AE",  "RR"]
"2" = ["AE",  "RR",  "1-1"]
"3" = ["RR",  "RR",  "2-1"]
"4" = ["NE",  "1-1", "DE"]
"5" = ["1-1", "2-1", "DE"]
"6" = ["2-2", "DE",  "DE"]

[results]
AE = "Attacker eliminated"
AR = "Attacker retreats"
NE = { means = "No effect", tie = true }
RR = "Roll again"
"#-#" = "Attacker loses #, defender loses #"
"1-1" = { means = "Even exchange: one step each", tie = true }
DE = "Defender eliminated"

[rerolls.RR]
limit = 2
then = "NE"
shift = 1
"""


def ford(text: str = FORD, name: str = "ford") -> PlayerChart:
    found = parse_chart(text, f"{name}.toml", name)
    registry.chart_ruleset(found)
    return found


def combat(column: str = "1-1", roll: int | None = None, *rerolls: int) -> CombatInput:
    ford()
    return CombatInput(
        "game:ford", (Unit(2),), (Unit(2),), column=column, roll=roll, rerolls=rerolls
    )


def chances(found: CombatInput) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for cell, p, _ in distribution(found).outcomes:
        key = json.dumps(plain(cell))
        out[key] = out.get(key, Fraction(0)) + p
    return out


def refused(text: str) -> str:
    with pytest.raises(ChartError) as err:
        parse_chart(text, "f.toml", "f")
    message = str(err.value)
    assert "\n" not in message and message.startswith("f.toml")
    return message


# --- ties and codes ---------------------------------------------------------------------------


def test_a_tied_entry_ranks_alike_with_the_one_before() -> None:
    chart = ford()
    rank = registry.get("game:ford").rules_module().rank
    assert rank(chart, "NE") == rank(chart, "AR")
    assert rank(chart, "1-1") == rank(chart, "2-2") == rank(chart, "1-3")
    assert rank(chart, "AE") < rank(chart, "AR") < rank(chart, "RR") < rank(chart, "2-2")
    assert rank(chart, "2-2") < rank(chart, "DE")
    assert chart.meaning("NE") == "No effect"


def test_luck_counts_tied_results_as_the_same(tmp_path: Path) -> None:
    # Column 2-1: AE (1), RR (2, 3), 1-1 (4), 2-1 (5), DE (6); an RR rolls on 3-1, where RR
    # again (then on 3-1, the edge: RR -> NE), 1-1, 2-1 read 1/6 each and DE 3/6. In 216ths:
    # AE 36, NE 2/6 * 1/6 * 1/6 = 2, 1-1 and 2-1 36 + 2/6 * (1/6 + 1/36) = 50 each, DE 78.
    # A roll of 5 reads 2-1, which ties with 1-1 (and every #-#): worse are AE and NE (38),
    # the same 100, so its percentile is 38/216 + 50/216 = 11/27.
    chart = ford()
    path = tmp_path / "ford.toml"
    saves.new_game(path, "Ford", ["game:ford"], charts={"game:ford": chart.text})
    played = combat("2-1", 5)
    outcome = resolve(played)
    assert outcome.cell == "2-1"
    assert outcome.explanation.startswith("Attacker loses 2, defender loses 1")
    saves.append_combat(path, played, outcome, who="alice")
    [judged] = luck_report(saves.load_game(path).entries).combats
    assert (judged.p_worse, judged.p_same) == (Fraction(38, 216), Fraction(100, 216))
    assert judged.percentile == Fraction(11, 27)


def test_a_code_with_several_numbers_fills_them_in_order_and_an_exact_code_wins() -> None:
    chart = ford()
    assert chart.meaning("2-3") == "Attacker loses 2, defender loses 3"
    assert chart.meaning("1-1") == "Even exchange: one step each"
    assert chart.meaning("2-") is None and chart.meaning("x-1") is None
    six = resolve(combat("1-1", 6))
    assert (six.cell, six.explanation) == ("2-2", "Attacker loses 2, defender loses 2.")


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ('"#-#" =', '"##-#" =', "up to 4 # never side by side"),
        ('"#-#" =', '"#-#-#-#-#" =', "up to 4 # never side by side"),
        ('"#-#" =', '"#-#-12345678901234" =', "1 to 16 characters without spaces"),
        ("NE = { means", "NE = { meaning", "expected one of means, tie"),
        ('NE = { means = "No effect", tie = true }', "NE = { tie = true }", "means: missing"),
        ("tie = true }\nRR", 'tie = "yes" }\nRR', "expected true or false"),
        (
            'AE = "Attacker eliminated"',
            'AE = { means = "Attacker eliminated", tie = true }',
            "the first entry cannot tie",
        ),
        (
            '"Attacker loses #, defender loses #"',
            '"Attacker loses #, defender loses #, # more"',
            "3 # in the meaning, the code 2",
        ),
    ],
)
def test_bad_results_are_one_line_naming_what_is_allowed(old: str, new: str, said: str) -> None:
    assert old in FORD, old
    message = refused(FORD.replace(old, new, 1))
    assert said in message and "results." in message


def test_existing_charts_read_and_rank_as_before() -> None:
    hill = load_chart(DOCS / "hill-203.toml")
    rank = registry.chart_ruleset(hill).rules_module().rank
    order = list(hill.results)
    assert [rank(hill, code) for code in ("AD", "AE", "EX", "DE", "AV")] == [
        float(order.index(code)) for code in ("AD", "AE", "EX", "DE", "AV")
    ]
    assert rank(hill, "DR1") == rank(hill, "DR3") == float(order.index("DR#"))
    assert hill.meaning("DR2") == "Defender retreats 2 hexes; the attacker may advance into the hex"


# --- re-rolls ---------------------------------------------------------------------------------


def test_the_exact_chances_fold_the_re_roll_chain_in() -> None:
    # By hand, in 216ths (the first roll 36 each; a re-roll on 2-1 6 each; a second on 3-1 1):
    # AE: rolls 1, 2 (72) and RR then 1 (6) = 78; NE: roll 4 (36) and RR, RR, 1 (2) = 38;
    # 1-1: roll 5 (36), RR then 4 (6), RR, RR, 2 (2) = 44; 2-2: roll 6 = 36;
    # 2-1: RR then 5 (6), RR, RR, 3 (2) = 8; DE: RR then 6 (6), RR, RR, 4..6 (6) = 12.
    expected = {"AE": 78, "NE": 38, "1-1": 44, "2-2": 36, "2-1": 8, "DE": 12}
    found = chances(combat("1-1"))
    assert found == {json.dumps(k): Fraction(v, 216) for k, v in expected.items()}
    assert sum(found.values()) == 1
    assert distribution(combat("1-1")).column == "1-1"  # the column the chain began on


def test_re_rolls_by_hand_are_each_logged_and_traced() -> None:
    outcome = resolve(combat("1-1", 3, 3, 1))
    assert (outcome.cell, outcome.column, outcome.roll) == ("NE", "3-1", "1")
    assert [(d.purpose, d.total, d.source) for d in outcome.dice] == [
        ("combat", 3, "manual"),
        ("re-roll 1", 3, "manual"),
        ("re-roll 2", 1, "manual"),
    ]
    assert [d.row for d in outcome.dice] == ["3", "3", "1"]
    rolled = [line for line in outcome.trace if "1d6" in line]
    assert len(rolled) == 3
    assert "row 3, column 1-1: RR" in rolled[0]
    assert "Re-roll 1" in rolled[1] and "row 3, column 2-1: RR" in rolled[1]
    assert "Re-roll 2" in rolled[2] and "row 1, column 3-1: RR" in rolled[2]
    assert any("RR again after 2 re-rolls: NE" in line for line in outcome.trace)
    assert outcome.explanation == "No effect."
    assert list(outcome.inputs["rerolls"]) == [3, 1]


def test_a_re_roll_not_given_is_rolled_by_the_desk_and_the_shift_stops_at_the_edge() -> None:
    import random

    outcome = resolve(combat("2-1", 2), rng=random.Random(0))
    assert outcome.dice[0].source == "manual" and outcome.dice[1].source == "desk"
    assert outcome.dice[1].purpose == "re-roll 1"
    # From 3-1 the second re-roll's shift stops at the table's edge.
    edge = resolve(combat("2-1", 2, 1, 2))  # RR on 2-1, then 1 on 3-1: RR, then 2 on 3-1
    assert (edge.cell, edge.column) == ("1-1", "3-1")
    assert any("stopped at the table's edge" in line for line in edge.trace)


def test_re_roll_dice_the_chain_does_not_read_are_refused() -> None:
    with pytest.raises(InputError) as err:
        resolve(combat("1-1", 4, 2))  # 4 reads NE: no re-roll
    assert err.value.field == "rerolls" and "no more rolls" in err.value.message()
    with pytest.raises(InputError) as err:
        resolve(combat("1-1", None, 2))  # a re-roll by hand needs the roll by hand
    assert err.value.field == "rerolls"
    with pytest.raises(InputError):
        resolve(combat("1-1", 3, 7))  # 1d6 shows 1 to 6
    hill = registry.chart_ruleset(load_chart(DOCS / "hill-203.toml"))
    with pytest.raises(InputError) as err:
        resolve(CombatInput(hill.id, (Unit(4),), (Unit(4),), roll=3, rerolls=(2,)))
    assert err.value.field == "rerolls"


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "limit = 2",
            "limit = 0",
            "rerolls.RR.limit: 0 is not allowed; expected a whole number from 1 to 10",
        ),
        ("limit = 2", "limit = 11", "expected a whole number from 1 to 10"),
        ("limit = 2\n", "", "rerolls.RR.limit: missing"),
        ('then = "NE"', 'then = "RR"', "rerolls.RR.then: 'RR' is not allowed; expected a code"),
        ('then = "NE"', 'then = "XX"', "rerolls.RR.then: 'XX' is not allowed"),
        ("shift = 1", "shift = 1.5", "rerolls.RR.shift: 1.5 is not allowed; expected a whole"),
        ("shift = 1", "colour = 1", "rerolls.RR.colour: not a key of the format"),
        ("[rerolls.RR]", "[rerolls.QQ]", "rerolls.QQ: not a code of [results]"),
        (
            '"1" = ["AE",  "AE",  "RR"]',
            '"1" = ["AE",  "AE",  ["RR", "AE"]]',
            "RR is a re-roll code; expected it alone in its cell",
        ),
        ('kind = "odds"', 'kind = "odds"\nleft = "RR"', "crt.left: 'RR' is a re-roll code"),
        ('kind = "odds"', 'kind = "odds"\nhigh = "RR"', "crt.high: 'RR' is a re-roll code"),
    ],
)
def test_bad_rerolls_are_one_line_naming_what_is_allowed(old: str, new: str, said: str) -> None:
    assert old in FORD, old
    assert said in refused(FORD.replace(old, new, 1))


def test_a_bad_re_roll_is_named_on_its_line() -> None:
    message = refused(FORD.replace("limit = 2", "limit = 0"))
    line = FORD.splitlines().index("limit = 2") + 1
    assert message.startswith(f"f.toml:{line}: rerolls.RR.limit")


# --- the two fixes ----------------------------------------------------------------------------


def test_a_clamped_roll_has_one_trace_line() -> None:
    hill = registry.chart_ruleset(load_chart(DOCS / "hill-203.toml"))
    # Leader 3 (capped +2): a 5 reads 7, beyond the rows, so row 6.
    outcome = resolve(
        CombatInput(hill.id, (Unit(4),), (Unit(4),), roll=5, modifiers=(("leader", 3),))
    )
    rolled = [line for line in outcome.trace if "1d6 5" in line]
    assert rolled == [
        "1d6 5 (entered by hand) +2 DRM = 7: beyond the rows, read on row 6 (clamped); "
        "column 1-1: DR2"
    ]


def test_the_desk_asks_for_each_re_roll_die_by_hand_as_day_night_does() -> None:
    # The desk plays a combat by the one procedure: with dice by hand it asks for each die
    # the chart reads, the first for the roll, each re-roll's for the re-rolls.
    from tui.engine.procedure import hand_dice, run
    from tui.engine.questions import DiceQuestion
    from tui.engine.tables import default_tables

    faces = iter([3, 3, 5])
    asked: list[DiceQuestion] = []

    def answer(question: object) -> object:
        assert isinstance(question, DiceQuestion)
        asked.append(question)
        return hand_dice(question, next(faces))

    played, outcome = run(combat("1-1"), default_tables(), answer)
    assert [(q.field, q.purpose, q.dice) for q in asked] == [
        ("roll", "combat", "1d6"),
        ("rerolls", "re-roll 1", "1d6"),
        ("rerolls", "re-roll 2", "1d6"),
    ]
    assert (played.roll, played.rerolls) == (3, (3, 5))
    assert (outcome.cell, outcome.column) == ("DE", "3-1")
