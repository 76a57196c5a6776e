"""The CLI on a chart's columns: `check-table FILE --columns` says the column each ratio or
difference reads (per value of a columns choice), `odds` gives the exact chances with a DRM
beyond the ends, `resolve` reads the columns a choice names."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from tests.engine.test_chart_columns import BEYOND, FRACTIONS, TERRAIN
from tui.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def written(folder: Path, name: str, text: str) -> str:
    path = folder / f"{name}.toml"
    path.write_text(text)
    return str(path)


def test_check_table_columns_on_fractional_odds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "check-table", written(tmp_path, "fractions", FRACTIONS), "--columns"
    )
    assert status == 0 and err == ""
    assert out.splitlines()[1:] == [
        "Columns (the rightmost column whose ratio is at most attack/defence):",
        "  below 1-2 (under 1/2): AD (automatic)",
        "  1-2: from 1/2 up to but not 2/3",
        "  2-3: from 2/3 up to but not 1",
        "  1-1: from 1 up to but not 3/2",
        "  3-2: from 3/2 up to but not 2",
        "  2-1: from 2 up to but not 3",
        "  beyond 2-1 (3 and up): AV (automatic)",
    ]


def test_check_table_columns_per_value_of_a_columns_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check-table", written(tmp_path, "terrain", TERRAIN), "--columns")
    assert status == 0
    assert out.splitlines()[1:] == [
        "Columns when terrain is clear (and when it is not set):",
        "  below 1-2 (under 1/2): read on 1-2",
        "  1-2: from 1/2 up to but not 1",
        "  1-1: from 1 up to but not 2",
        "  2-1: from 2 up to but not 3",
        "  3-1: from 3 up to but not 4",
        "  beyond 3-1 (4 and up): read on 3-1",
        "Columns when terrain is woods:",
        "  below 1-1 (under 1): read on 1-1",
        "  1-1: from 1 up to but not 2",
        "  2-1: from 2 up to but not 3",
        "  3-1: from 3 up to but not 4",
        "  4-1: from 4 up to but not 5",
        "  beyond 4-1 (5 and up): read on 4-1",
    ]


def test_check_table_columns_on_a_differential_chart_and_beyond_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check-table", str(DOCS / "border-skirmish.toml"), "--columns")
    assert status == 0
    lines = out.splitlines()
    assert lines[1] == (
        "Columns (the rightmost column whose difference is at most attack - defence, rounded down):"
    )
    assert lines[2] == "  below -2 (under -2): read on -2"
    assert lines[4] == "  -1: from -1 up to but not 0"
    assert lines[-1] == "  beyond +4 (5 and up): read on +4"
    status, out, _ = run(capsys, "check-table", written(tmp_path, "beyond", BEYOND), "--columns")
    assert out.splitlines()[2] == "  below 1-1 (under 1): read on 1-1 with DRM -1 (inside the cap)"
    assert out.splitlines()[-1] == (
        "  beyond 3-1 (4 and up): read on 3-1 with DRM +1 (outside the cap)"
    )


def test_check_table_without_columns_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check-table", written(tmp_path, "terrain", TERRAIN))
    assert status == 0 and len(out.splitlines()) == 1


def test_odds_gives_exact_chances_with_a_drm_beyond_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path, "beyond", BEYOND)
    argv = ("odds", path, "--attack", "1", "--defense", "2", "--leader", "2", "--json")
    status, out, _ = run(capsys, *argv)
    data = json.loads(out)
    assert status == 0 and data["column"] == "1-1"
    # -1 inside the cap with the leader's +2: +1, rows 2..7 (7 reads row 6).
    assert {o["cell"]: Fraction(o["fraction"]) for o in data["outcomes"]} == {
        "R2": Fraction(1, 6),
        "R3": Fraction(1, 6),
        "R4": Fraction(1, 6),
        "R5": Fraction(1, 6),
        "R6": Fraction(1, 3),
    }


def test_resolve_reads_the_columns_a_choice_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = written(tmp_path, "terrain", TERRAIN)
    base = ("resolve", path, "--attack", "3", "--defense", "1", "--roll", "2")
    status, out, _ = run(capsys, *base, "--terrain", "woods")
    assert status == 0 and "column 3-1" in out and "Result: C2" in out
    status, out, _ = run(capsys, *base)
    assert status == 0 and "Result: C3" in out
    status, _, err = run(capsys, *base, "--terrain", "swamp")
    assert status == 2 and "--terrain: 'swamp' is not allowed; expected one of clear, woods" in err
