"""A player's chart's columns (tui.engine.rulesets.charts): odds columns read as printed
(2-3, 3-2 reached directly, exactly), what lies beyond each end (a DRM or a shift counted in
or outside the caps), and columns chosen by a choice (one set per terrain, the same rows).
Each chart here is written in the test; each case worked out by hand or by a plain reading
of the same columns with Fraction."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from tui.engine import registry
from tui.engine.cells import plain
from tui.engine.combat import CombatInput, Unit, distribution, resolve
from tui.engine.preview import work_out
from tui.engine.rulesets.charts.chart import ChartError, PlayerChart
from tui.engine.rulesets.charts.reading import load_chart, parse_chart
from tui.engine.tables import default_tables


def read(text: str, name: str) -> PlayerChart:
    found = parse_chart(text, f"{name}.toml", name)
    registry.chart_ruleset(found)
    return found


def units(*factors: int) -> tuple[Unit, ...]:
    return tuple(Unit(f) for f in factors)


def chances(combat: CombatInput) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for cell, p, _ in distribution(combat).outcomes:
        key = json.dumps(plain(cell))
        out[key] = out.get(key, Fraction(0)) + p
    return out


def split(text: str) -> dict[str, Fraction]:
    """ "R1 1/6, R6 1/2" as chances."""
    found = {}
    for part in text.split(","):
        code, chance = part.split()
        found[json.dumps(code)] = Fraction(chance)
    return found


# --- odds read as printed -----------------------------------------------------------------------

FRACTIONS = """
[game]
title = "Fractions"
dice = "1d6"

[crt]
kind = "odds"
columns = ["1-2", "2-3", "1-1", "3-2", "2-1"]
left = "AD"
right = "AV"

[crt.rows]
"1-6" = ["C0", "C1", "C2", "C3", "C4"]

[results]
AD = "Automatic defeat"
C0 = "Read on 1-2"
C1 = "Read on 2-3"
C2 = "Read on 1-1"
C3 = "Read on 3-2"
C4 = "Read on 2-1"
AV = "Automatic victory"
"""


def fractions(attack: int, defense: int) -> CombatInput:
    read(FRACTIONS, "fractions")
    return CombatInput("game:fractions", units(attack), units(defense), roll=1)


def test_five_against_three_reads_three_to_two() -> None:
    outcome = resolve(fractions(5, 3))
    assert (outcome.odds, outcome.column, outcome.cell) == ("5-3", "3-2", "C3")
    assert any("rightmost column whose ratio is at most 5/3" in line for line in outcome.trace)


def test_four_against_six_reads_two_to_three() -> None:
    outcome = resolve(fractions(4, 6))
    assert (outcome.odds, outcome.column, outcome.cell) == ("2-3", "2-3", "C1")


def test_a_fractional_total_gives_the_exact_reduced_odds() -> None:
    read(FRACTIONS, "fractions")
    # 5 against 3, doubled by nothing: 7.5 against 3 needs a half; 15 against 6 is 5-2.
    outcome = resolve(CombatInput("game:fractions", units(15), units(6), roll=1))
    assert (outcome.odds, outcome.column) == ("5-2", "2-1")


def whole_odds(ratio: Fraction) -> Fraction:
    """Odds rounded in the defender's favour to N-1 or 1-N."""
    if ratio >= 1:
        return Fraction(math.floor(ratio))
    return Fraction(1, math.ceil(1 / ratio))


def plain_reading(columns: list[str], attack: int, defense: int) -> str:
    """The column (or the automatic code) a person reads: the rightmost column whose ratio
    is at most attack/defence; below the first, AD; whole odds above the last, AV."""
    ratios = [Fraction(int(c.split("-")[0]), int(c.split("-")[1])) for c in columns]
    ratio = Fraction(attack, defense)
    if ratio < ratios[0]:
        return "AD"
    if whole_odds(ratio) > ratios[-1]:
        return "AV"
    return [c for c, r in zip(columns, ratios, strict=True) if r <= ratio][-1]


def test_a_sweep_reads_every_column_as_a_plain_reading_does() -> None:
    columns = ["1-2", "2-3", "1-1", "3-2", "2-1"]
    seen = set()
    for attack in range(1, 21):
        for defense in range(1, 21):
            outcome = resolve(fractions(attack, defense))
            expected = plain_reading(columns, attack, defense)
            read_on = outcome.column if outcome.cell is not None else outcome.odds
            assert read_on == expected, (attack, defense)
            if outcome.cell is not None:
                ratio = Fraction(attack, defense)
                assert outcome.odds == f"{ratio.numerator}-{ratio.denominator}"
            seen.add(expected)
    assert seen == {*columns, "AD", "AV"}


HILL_COLUMNS = ["1-2", "1-1", "2-1", "3-1", "4-1", "5-1"]


def test_a_chart_of_whole_odds_reads_and_says_its_odds_as_before() -> None:
    """Hill 203's columns are all N-1 or 1-N: 11 against 2 is still 5-1 (not beyond it),
    and the odds are still said rounded in the defender's favour."""
    text = FRACTIONS.replace(
        '"1-2", "2-3", "1-1", "3-2", "2-1"', ", ".join(f'"{c}"' for c in HILL_COLUMNS)
    ).replace('"C0", "C1", "C2", "C3", "C4"', '"C0", "C1", "C2", "C3", "C4", "C4"')
    read(text, "whole")
    for attack in range(1, 21):
        for defense in range(1, 21):
            outcome = resolve(CombatInput("game:whole", units(attack), units(defense), roll=1))
            expected = plain_reading(HILL_COLUMNS, attack, defense)
            read_on = outcome.column if outcome.cell is not None else outcome.odds
            assert read_on == expected, (attack, defense)
            if outcome.cell is not None:
                left, right = whole_odds(Fraction(attack, defense)).as_integer_ratio()
                assert outcome.odds == f"{left}-{right}"
    assert resolve(CombatInput("game:whole", units(11), units(2), roll=1)).column == "5-1"


def test_the_preview_reads_the_printed_column() -> None:
    shown = work_out(fractions(5, 3), default_tables())
    assert (shown.odds, shown.column) == ("5-3", "3-2")


# --- beyond the ends ---------------------------------------------------------------------------

BEYOND = """
[game]
title = "Beyond"
dice = "1d6"

[crt]
kind = "odds"
columns = ["1-1", "2-1", "3-1"]
left = { drm = -1 }
right = { drm = 1, caps = "outside" }

[crt.rows]
"1" = ["R1", "R1", "R1"]
"2" = ["R2", "R2", "R2"]
"3" = ["R3", "R3", "R3"]
"4" = ["R4", "R4", "R4"]
"5" = ["R5", "R5", "R5"]
"6" = ["R6", "R6", "R6"]

[results]
"R#" = "Row #"

[[modifiers]]
name = "leader"
label = "Leader"
input = "number"
effect = "drm"
low = 0
high = 2

[caps]
drm = 1
"""


def beyond(attack: int, defense: int, leader: int = 0, text: str = BEYOND) -> CombatInput:
    read(text, "beyond")
    mods = (("leader", leader),) if leader else ()
    return CombatInput("game:beyond", units(attack), units(defense), modifiers=mods)


@pytest.mark.parametrize(
    ("attack", "defense", "leader", "expected"),
    [
        # Below 1-1: read 1-1 with -1. Alone: 1 and 2 read row 1 (clamped), 3..6 rows 2..5.
        (1, 2, 0, "R1 1/3, R2 1/6, R3 1/6, R4 1/6, R5 1/6"),
        # Leader +2 and -1 inside the cap: net +1 (within the cap of 1): rows 2..7, 7 -> 6.
        (1, 2, 2, "R2 1/6, R3 1/6, R4 1/6, R5 1/6, R6 1/3"),
        # Beyond 3-1 (4-1): +1 outside the cap: leader +2 capped at +1, then +1: rows 3..8.
        (4, 1, 2, "R3 1/6, R4 1/6, R5 1/6, R6 1/2"),
        # 3-1 itself: leader +2 capped at +1 and nothing more: rows 2..7.
        (3, 1, 2, "R2 1/6, R3 1/6, R4 1/6, R5 1/6, R6 1/3"),
    ],
)
def test_a_drm_beyond_the_ends_counts_inside_or_outside_the_cap(
    attack: int, defense: int, leader: int, expected: str
) -> None:
    assert chances(beyond(attack, defense, leader)) == split(expected)


def test_a_drm_inside_the_cap_is_capped_with_the_modifiers() -> None:
    # Outside the cap instead, leader +2 capped at +1, then -1: net 0, rows 1..6.
    outside = BEYOND.replace("left = { drm = -1 }", 'left = { drm = -1, caps = "outside" }')
    assert chances(beyond(1, 2, 2, outside)) == split(
        "R1 1/6, R2 1/6, R3 1/6, R4 1/6, R5 1/6, R6 1/6"
    )


def test_the_trace_names_the_beyond_drm_and_where_it_counts() -> None:
    read(BEYOND, "beyond")
    outcome = resolve(CombatInput("game:beyond", units(1), units(2), roll=4))
    assert outcome.column == "1-1" and outcome.cell == "R3"
    assert "Below the first column: DRM -1 (inside the cap)" in outcome.trace
    outcome = resolve(CombatInput("game:beyond", units(9), units(2), roll=4))
    assert (
        outcome.cell == "R5" and "Beyond the last column: DRM +1 (outside the cap)" in outcome.trace
    )


SHIFTED = """
[game]
title = "Shifted"
dice = "1d6"

[crt]
kind = "differential"
columns = ["-1", "0", "1", "2"]
left = { shift = 1, caps = "inside" }
right = "end"

[crt.rows]
"1-6" = ["C0", "C1", "C2", "C3"]

[results]
C0 = "Read on -1"
C1 = "Read on 0"
C2 = "Read on 1"
C3 = "Read on 2"

[caps]
shift = 0
"""


def test_a_shift_beyond_the_end_counts_inside_or_outside_the_cap() -> None:
    read(SHIFTED, "shifted")
    # 1 against 4 is -3, below -1: read -1 shifted one right; the cap of 0 keeps it on -1.
    inside = resolve(CombatInput("game:shifted", units(1), units(4), roll=1))
    assert (inside.column, inside.cell) == ("-1", "C0")
    read(SHIFTED.replace('caps = "inside"', 'caps = "outside"'), "shifted")
    outside = resolve(CombatInput("game:shifted", units(1), units(4), roll=1))
    assert (outside.column, outside.cell) == ("0", "C1")
    assert "Below the first column: shift +1 (outside the cap)" in outside.trace


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("{ drm = 0 }", "crt.left: expected a DRM or a shift that is not 0"),
        (
            "{ drm = 1.5 }",
            "crt.left.drm: 1.5 is not allowed; expected a whole number from -99 to 99",
        ),
        (
            '{ drm = 1, caps = "within" }',
            "crt.left.caps: 'within' is not allowed; expected inside or outside",
        ),
        (
            "{ drm = 1, dice = 2 }",
            "crt.left.dice: not a key of the format; expected one of caps, drm, shift",
        ),
        ("3", 'crt.left: 3 is not allowed; expected "end", a result code or a table'),
    ],
)
def test_a_bad_beyond_table_is_one_line_naming_its_place(written: str, said: str) -> None:
    text = BEYOND.replace("left = { drm = -1 }", f"left = {written}")
    with pytest.raises(ChartError) as err:
        read(text, "beyond")
    message = str(err.value)
    assert said in message and len(message.splitlines()) == 1
    assert message.startswith("beyond.toml:9: "), message


# --- columns chosen by a choice ----------------------------------------------------------------

TERRAIN = """
[game]
title = "Terrain"
dice = "1d6"

[crt]
kind = "odds"
columns = { clear = ["1-2", "1-1", "2-1", "3-1"], woods = ["1-1", "2-1", "3-1", "4-1"] }
left = "end"
right = "end"

[crt.rows]
"1-6" = ["C0", "C1", "C2", "C3"]

[results]
C0 = "First column"
C1 = "Second column"
C2 = "Third column"
C3 = "Fourth column"

[[modifiers]]
name = "terrain"
label = "Terrain"
input = "choice"
effect = "columns"
"""


def terrain(attack: int, defense: int, value: str | None = None) -> CombatInput:
    read(TERRAIN, "terrain")
    mods = (("terrain", value),) if value else ()
    return CombatInput("game:terrain", units(attack), units(defense), roll=3, modifiers=mods)


@pytest.mark.parametrize(
    ("attack", "defense", "value", "column", "cell"),
    [
        (3, 1, "clear", "3-1", "C3"),
        (3, 1, "woods", "3-1", "C2"),
        (1, 1, "clear", "1-1", "C1"),
        (1, 1, "woods", "1-1", "C0"),
        (1, 2, "woods", "1-1", "C0"),  # below the woods' first column: its end
        (9, 1, "woods", "4-1", "C3"),
        (3, 1, None, "3-1", "C3"),  # unset: the first set, clear
    ],
)
def test_a_choice_picks_the_columns_and_the_rows_are_shared(
    attack: int, defense: int, value: str | None, column: str, cell: str
) -> None:
    outcome = resolve(terrain(attack, defense, value))
    assert (outcome.column, outcome.cell) == (column, cell)


def test_the_trace_says_which_columns_and_when_unset() -> None:
    assert "Terrain not set: the clear columns" in resolve(terrain(3, 1)).trace
    assert "Terrain woods: the woods columns" in resolve(terrain(3, 1, "woods")).trace


def test_a_column_set_as_its_own_table_reads_alike() -> None:
    text = TERRAIN.replace(
        'columns = { clear = ["1-2", "1-1", "2-1", "3-1"], woods = ["1-1", "2-1", "3-1", "4-1"] }\n',
        "",
    ).replace(
        "[crt.rows]",
        '[crt.columns]\nclear = ["1-2", "1-1", "2-1", "3-1"]\nwoods = ["1-1", "2-1", "3-1", "4-1"]\n\n[crt.rows]',
    )
    found = parse_chart(text, "terrain.toml", "terrain")
    assert found.column_sets == read(TERRAIN, "terrain").column_sets
    assert [m.name for m in found.modifiers] == ["terrain"]
    assert [name for name, _ in found.modifiers[0].values] == ["clear", "woods"]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            lambda t: t.replace('effect = "columns"', 'effect = "shift"\nvalues = { up = 1 }'),
            'crt.columns: a table of column sets needs a [[modifiers]] table with effect = "columns"',
        ),
        (
            lambda t: t.replace(
                'columns = { clear = ["1-2", "1-1", "2-1", "3-1"], woods = ["1-1", "2-1", "3-1", "4-1"] }',
                'columns = ["1-2", "1-1", "2-1", "3-1"]',
            ),
            "modifiers[0].effect: 'columns' needs [crt].columns as a table of column sets",
        ),
        (
            lambda t: t.replace(
                'woods = ["1-1", "2-1", "3-1", "4-1"]', 'woods = ["1-1", "2-1", "3-1"]'
            ),
            "crt.columns.woods: 3 columns, expected 4 (as clear: the rows' cells are shared)",
        ),
        (
            lambda t: t.replace(
                'woods = ["1-1", "2-1", "3-1", "4-1"]', 'woods = ["1-1", "3-1", "2-1", "4-1"]'
            ),
            "crt.columns.woods[2]: '2-1' after '3-1': columns out of order",
        ),
        (
            lambda t: t.replace('effect = "columns"', 'effect = "columns"\nvalues = { a = 1 }'),
            "modifiers[0].values: not read by effect columns",
        ),
        (
            lambda t: t.replace('input = "choice"', 'input = "tick"'),
            "modifiers[0].input: 'tick' is not allowed with effect columns; expected choice",
        ),
        (
            lambda t: (
                t
                + '\n[[modifiers]]\nname = "time"\nlabel = "Time"\ninput = "choice"\neffect = "columns"\n'
            ),
            "modifiers[1].effect: a second columns modifier; expected at most one (terrain)",
        ),
        (
            lambda t: t.replace("clear = [", "Clear = ["),
            "crt.columns.Clear: not allowed as a name; expected lower-case letters, digits, - or _",
        ),
    ],
)
def test_a_bad_column_set_is_one_line_naming_both(edit: object, said: str) -> None:
    assert callable(edit)
    with pytest.raises(ChartError) as err:
        read(edit(TERRAIN), "terrain")
    message = str(err.value)
    assert said in message and len(message.splitlines()) == 1, message


def test_the_chart_text_json_and_summary_show_the_new_parts() -> None:
    read(TERRAIN, "terrain")
    ruleset = registry.get("game:terrain")
    text = ruleset.chart_text(default_tables())
    assert "Columns by terrain:" in text
    assert "  woods  1-1  2-1  3-1  4-1" in text
    data = ruleset.chart_json(default_tables())
    assert data["columns"] == ["1-2", "1-1", "2-1", "3-1"]  # the first set, as ever
    assert data["column_sets"] == {
        "clear": ["1-2", "1-1", "2-1", "3-1"],
        "woods": ["1-1", "2-1", "3-1", "4-1"],
    }
    assert data["columns_by"] == "terrain"
    assert "columns by terrain (clear, woods)" in ruleset.summary()
    read(BEYOND, "beyond")
    ruleset = registry.get("game:beyond")
    text = ruleset.chart_text(default_tables())
    assert (
        "Below the first column: read the first column with DRM -1 (inside the cap); beyond the "
        "last: read the last column with DRM +1 (outside the cap)"
    ) in text
    data = ruleset.chart_json(default_tables())
    assert data["left"] == {"drm": -1, "shift": 0, "caps": "inside"}
    assert data["right"] == {"drm": 1, "shift": 0, "caps": "outside"}
    assert "below the first column DRM -1; beyond the last DRM +1" in ruleset.summary()


# --- the worked example in docs/games ----------------------------------------------------------

FORD = Path(__file__).parents[2] / "docs" / "games" / "ford-of-aln.toml"


@pytest.mark.parametrize(
    ("attack", "defense", "ground", "leader", "roll", "column", "cell"),
    [
        (5, 3, None, 0, 4, "3-2", "DR"),  # open, unset: 5/3 reads 3-2
        (5, 3, "woods", 0, 4, "3-2", "EX"),  # the woods' 3-2 is its second column
        (4, 6, None, 0, 1, "2-3", "AR"),
        (4, 6, "ford", 0, 1, "2-3", "AE"),
        (4, 6, "woods", 0, 3, "1-1", "AR"),  # below the woods' 1-1: DRM -1, 3 reads row 2
        (5, 2, "ford", 0, 2, "5-2", "DR"),
        (5, 2, "woods", 0, 1, "5-2", "EX"),
        (1, 3, None, 2, 4, "1-2", "EX"),  # leader +2 and -1 inside the cap of 1: +1
        (1, 3, None, 0, 1, "1-2", "AE"),  # 1 - 1 is 0: row 1 (clamped)
        (9, 2, None, 0, 1, "3-1", "DR"),  # 4-1 is beyond 3-1: +1
        (9, 2, None, 2, 1, "3-1", "DE"),  # leader capped at +1, then +1 after the cap
        (7, 2, None, 2, 1, "3-1", "DR"),  # 7/2 is 3-1 in whole odds: not beyond
        (9, 2, "woods", 0, 1, "4-1", "DR"),  # 9/2 reads the woods' 4-1
        (10, 2, "woods", 0, 2, "4-1", "DE"),  # 5-1 is beyond the woods' 4-1: +1
    ],
)
def test_the_ford_of_aln_read_by_hand(
    attack: int, defense: int, ground: str | None, leader: int, roll: int, column: str, cell: str
) -> None:
    registry.chart_ruleset(load_chart(FORD))
    mods: list[tuple[str, object]] = [("terrain", ground)] if ground else []
    mods += [("leader", leader)] if leader else []
    combat = CombatInput(
        "game:ford-of-aln", units(attack), units(defense), roll=roll, modifiers=tuple(mods)
    )
    outcome = resolve(combat)
    assert (outcome.column, outcome.cell) == (column, cell)
