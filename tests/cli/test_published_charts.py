"""The charts of published games in docs/games, read as their sources print them: a dozen
cells of each and its rule for beyond its ends, through `crtdesk resolve --roll --json` in
process. Each expected cell is quoted from the source the chart's file names (row = the
modified roll, column = the odds or difference read).

Guns of August needs the beyond-the-ends DRM table (`left`/`right` as `{ drm = ... }`) and
the modifiers `per` and `needs`; WWII: PTO needs odds columns read as printed (2-3, 3-2)
and a modifier on one unit (`on = "unit"`); the RFT chart needs nothing new."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def resolve(
    capsys: pytest.CaptureFixture[str],
    chart: str,
    attack: str,
    defense: str,
    roll: int,
    *flags: str,
) -> dict[str, Any]:
    """`crtdesk resolve game:CHART --attack A --defense D FLAGS --roll N --json`, read."""
    argv = ["resolve", f"game:{chart}"]
    argv += [part for unit in attack.split() for part in ("--attack", unit)]
    argv += [part for unit in defense.split() for part in ("--defense", unit)]
    argv += [*flags, "--roll", str(roll), "--json", "--games", str(DOCS)]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def read(data: dict[str, Any]) -> tuple[str, str, str]:
    """The column, the row read (the modified roll, clamped) and the cell of a resolved combat."""
    return data["column"], data["dice"][0]["row"], data["cell"]


# ---------------------------------------------------------------- Guns of August
# Rows 0-6, columns 1-1 2-1 3-1 4-1 5-1 6-1, as the module's chart prints them:
#   0: AE AA AA AD BD BD    1: AA AA AD BD BD DD    2: AD AD BD BD DD DX
#   3: BD BD BD DD DX DE    4: BD BD DD DX DE DE    5: DD DD DX DE DE DE
#   6: DX DX DE DE DE DE
GUNS = [
    # (attack, defence, flags, die), (column, row, cell)
    (("3", "3", (), 1), ("1-1", "1", "AA")),  # row 1, 1-1
    (("4", "2", (), 2), ("2-1", "2", "AD")),  # row 2, 2-1
    (("6", "2", (), 3), ("3-1", "3", "BD")),  # row 3, 3-1
    (("8", "2", (), 4), ("4-1", "4", "DX")),  # row 4, 4-1
    (("10", "2", (), 5), ("5-1", "5", "DE")),  # row 5, 5-1
    (("12", "2", (), 6), ("6-1", "6", "DE")),  # row 6, 6-1
    (("6", "1", (), 1), ("6-1", "1", "DD")),  # row 1, 6-1
    (("7", "4", (), 6), ("1-1", "6", "DX")),  # 7 v 4 is 1-1; row 6, 1-1
    (("5", "2", (), 5), ("2-1", "5", "DD")),  # 5 v 2 is 2-1; row 5, 2-1
    # "(-1) If defending units under Entrenchment marker": 1 - 1 = row 0, 3-1
    (("6", "2", ("--entrenchment",), 1), ("3-1", "0", "AA")),
    # "(-2) If defending units under a Fort marker": 3 - 2 = row 1, 4-1
    (("8", "2", ("--fort",), 3), ("4-1", "1", "BD")),
    # "(+1) If any defending unit is demoralized": 4 + 1 = row 5, 3-1
    (("6", "2", ("--demoralized",), 4), ("3-1", "5", "DX")),
    # Note 5, the cap of three: +5 for five assault units is +3; row 4, 1-1
    (("3", "3", ("--assault", "5"), 1), ("1-1", "4", "BD")),
    # "+1 for every six regular artillery strength points (fractions rounded down)":
    # 13 points are +2 (row 3, 2-1), 11 points +1 (row 2, 2-1)
    (("4", "2", ("--artillery", "13"), 1), ("2-1", "3", "BD")),
    (("4", "2", ("--artillery", "11"), 1), ("2-1", "2", "AD")),
    # "+1 for each siege artillery unit attacking units under a Fort marker": no fort, no
    # effect (row 3, 4-1); with the fort, -2 + 3 (row 4, 4-1)
    (("8", "2", ("--siege", "3"), 3), ("4-1", "3", "DD")),
    (("8", "2", ("--siege", "3", "--fort"), 3), ("4-1", "4", "DX")),
]


GUNS_BEYOND = [
    # Note 3, below 1-1: read 1-1 with the roll less one; 1 - 1 = row 0, 1-1 (AE, where a 1
    # at 1-1 reads AA), 4 - 1 = row 3 (BD)
    (("1", "2", (), 1), ("1-1", "0", "AE")),
    (("1", "2", (), 4), ("1-1", "3", "BD")),
    # Note 4, above 6-1: read 6-1 with the roll plus one; 1 + 1 = row 2, 6-1 (DX, where a 1
    # at 6-1 reads DD); 6 + 1 reads row 6 (note 2)
    (("14", "2", (), 1), ("6-1", "2", "DX")),
    (("14", "2", (), 6), ("6-1", "6", "DE")),
    # Note 5 caps all the modifiers, the -1 of note 3 among them: fort, entrenchment and
    # terrain (-4) and -1 below 1-1 are -3 in all; 4 - 3 = row 1, 1-1 (AA; outside the cap it
    # would be row 0, AE)
    (("1", "2", ("--fort", "--entrenchment", "--terrain"), 4), ("1-1", "1", "AA")),
]


# ---------------------------------------------------------------- WWII: PTO
# Rows -1 to 7, columns 1-2 2-3 1-1 3-2 2-1 3-1 4-1 6-1, as the module's chart prints them:
#   -1: AE AE AE AE xxx xxx xxx xxx        0: AE AE AE xxx xx xx xx xx
#    1: AE AE xx xx xx D1xx D1x D2x        2: AE xx xx D1x D1x D2x D2x D3x
#    3: xx xx D1x D1 D2x D3x DEx DEx       4: x x D1 D2x D3x DEx DEx DE
#    5: D1x D1x D2x D3x DE DE DE DE        6: D2 D2 D2 DE DE DE DE DE
#    7: D3 D3 DE DE DE DE DE DE
PTO = [
    (("1", "2", (), 1), ("1-2", "1", "AE")),  # row 1, 1-2
    (("2", "3", (), 2), ("2-3", "2", "xx")),  # 2 v 3 is 2-3 exactly; row 2, 2-3
    (("4", "6", (), 2), ("2-3", "2", "xx")),  # 4 v 6 reads 2-3 (printed rule), not 1-2 (AE)
    (("5", "8", (), 2), ("1-2", "2", "AE")),  # 5/8 is below 2-3: row 2, 1-2
    (("3", "3", (), 3), ("1-1", "3", "D1x")),  # row 3, 1-1
    (("5", "3", (), 3), ("3-2", "3", "D1")),  # 5 v 3 reads 3-2, not 1-1 (D1x); row 3
    (("3", "2", (), 6), ("3-2", "6", "DE")),  # row 6, 3-2
    (("9", "6", (), 4), ("3-2", "4", "D2x")),  # 9/6 is 3-2 exactly; row 4
    (("7", "5", (), 2), ("1-1", "2", "xx")),  # 7/5 is under 3/2: row 2, 1-1
    (("2", "1", (), 4), ("2-1", "4", "D3x")),  # row 4, 2-1
    (("3", "1", (), 1), ("3-1", "1", "D1xx")),  # row 1, 3-1
    (("4", "1", (), 3), ("4-1", "3", "DEx")),  # row 3, 4-1
    (("5", "1", (), 1), ("4-1", "1", "D1x")),  # no 5-1 column: 4-1; row 1
    (("6", "1", (), 2), ("6-1", "2", "D3x")),  # row 2, 6-1
    # "-2 Attacker out of supply": 1 - 2 = row -1, 2-1
    (("2", "1", ("--attacker-unsupplied",), 1), ("2-1", "-1", "xxx")),
    # "+2 Marine amphibious assault": 5 + 2 = row 7, 1-1
    (("1", "1", ("--marines",), 5), ("1-1", "7", "DE")),
    # "Fortifications double 1 defending unit's strength": 2 doubled and 2 is 6 v 6, 1-1
    # (row 3: D1x); unmarked, 6 v 4 is 3-2 (row 3: D1)
    (("6", "2@fortified 2", (), 3), ("1-1", "3", "D1x")),
    (("6", "2 2", (), 3), ("3-2", "3", "D1")),
]


PTO_BEYOND = [
    # Below 1-2 and above 6-1 the chart prints nothing; the file reads the end column
    (("1", "3", (), 3), ("1-2", "3", "xx")),  # 1-3 reads 1-2: row 3
    (("13", "2", (), 1), ("6-1", "1", "D2x")),  # 6.5 to 1 reads 6-1: row 1
    (("7", "1", (), 4), ("6-1", "4", "DE")),  # 7-1 reads 6-1: row 4
    # A modified roll beyond -1..7 reads the end row: 6 + 3 reads row 7; 1 - 5 row -1
    (("1", "1", ("--marines", "--paratroop"), 6), ("1-1", "7", "DE")),
    (("1", "1", ("--amphibious", "--attacker-unsupplied"), 1), ("1-1", "-1", "AE")),
]


# ---------------------------------------------------------------- RFT (7.2.1.3)
# Rows 1-6, columns -5 or less, -4 ... 6, 7 or more, as the module's chart prints them:
#   1: 3r-0 3r-0 2r-0 2r-0 2r-0 2-1 2-1 2-1 2-2 1-1 1-2 1-2 1-2
#   2: 3-0 2r-0 2-0 2-1 2-1 2-2 2-2 2-2 1-1 1-2 1-2 0-1r 0-1r
#   3: 2-0 2-0 2-1 2-2 2-2 1r-0 1r-0 1r-1 1-2 1-2 0-1r 0-2 0-2
#   4: 2-0 2-1 2-1 1r-0 1r-0 1-0 1-1 0-1 0-1 0-1r 0-2 0-2 0-3
#   5: 2r-1 1r-0 1r-0 1-0 1-0 0-1 0-1 0-1r 0-1r 0-2 0-2 0-2r 0-3r
#   6: 1r-0 1-0 1-0 1-0 0-1r 0-1r 0-1r 0-2r 0-2r 0-2r 0-2r 0-3r 0-3r
RFT = [
    (("1", "6", (), 1), ("-5", "1", "3r-0")),  # -5: row 1
    (("1", "5", (), 2), ("-4", "2", "2r-0")),  # -4: row 2
    (("2", "5", (), 3), ("-3", "3", "2-1")),  # -3: row 3
    (("3", "5", (), 4), ("-2", "4", "1r-0")),  # -2: row 4
    (("4", "5", (), 5), ("-1", "5", "1-0")),  # -1: row 5
    (("5", "5", (), 6), ("0", "6", "0-1r")),  # 0: row 6
    (("6", "5", (), 1), ("+1", "1", "2-1")),  # 1: row 1
    (("7", "5", (), 3), ("+2", "3", "1r-1")),  # 2: row 3
    (("8", "5", (), 2), ("+3", "2", "1-1")),  # 3: row 2
    (("9", "5", (), 4), ("+4", "4", "0-1r")),  # 4: row 4
    (("10", "5", (), 5), ("+5", "5", "0-2")),  # 5: row 5
    (("11", "5", (), 6), ("+6", "6", "0-3r")),  # 6: row 6
    (("12", "5", (), 4), ("+7", "4", "0-3")),  # 7 or more: row 4
]


RFT_BEYOND = [
    # "-5 or less": -9 reads the -5 column, row 5 (2r-1) and row 2 (3-0)
    (("1", "10", (), 5), ("-5", "5", "2r-1")),
    (("1", "10", (), 2), ("-5", "2", "3-0")),
    # "7 or more": +19 reads the 7 column, row 1 (1-2) and row 6 (0-3r)
    (("20", "1", (), 1), ("+7", "1", "1-2")),
    (("20", "1", (), 6), ("+7", "6", "0-3r")),
]


# Each chart's cells, then its rule for beyond its ends.
CASES = [
    *(("guns-of-august", *case) for case in GUNS + GUNS_BEYOND),
    *(("wwii-pto", *case) for case in PTO + PTO_BEYOND),
    *(("rft-differential", *case) for case in RFT + RFT_BEYOND),
]


@pytest.mark.parametrize(
    ("chart", "combat", "expected"), CASES, ids=lambda v: "-".join(map(str, v))
)
def test_published_chart_reads_as_printed(
    capsys: pytest.CaptureFixture[str],
    chart: str,
    combat: tuple[str, str, tuple[str, ...], int],
    expected: tuple[str, str, str],
) -> None:
    attack, defense, flags, die = combat
    assert read(resolve(capsys, chart, attack, defense, die, *flags)) == expected
