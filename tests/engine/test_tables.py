"""Every cell of every chart, read through the engine and through `crtdesk table --json`,
against the hand transcription of the seeds in seed_transcription.py; and a broken
tables.toml reported in one line naming the key path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.seed_transcription import (
    DAYNIGHT,
    OCS,
    OCS_ATTACKER_SEED,
    POD_BASIC,
    POD_BOOM,
    POD_SUPER,
    POD_ULTRA,
    RIVETS,
)
from tui.cli import main
from tui.engine.cells import plain
from tui.engine.registry import BUILT_IN_IDS as RULESET_IDS
from tui.engine.tables import TablesError, default_path, default_tables, load_tables

TABLES_TOML = Path(__file__).resolve().parents[2] / "tables.toml"

SEED_BY_RULESET = {
    "pod-basic": POD_BASIC,
    "pod-super": POD_SUPER,
    "pod-ultra": POD_ULTRA,
    "pod-boom": POD_BOOM,
    "ocs": OCS,
    "rivets": RIVETS,
    "daynight": DAYNIGHT,
}

# Chart key in the engine -> the transcribed grid it must hold.
GRIDS = {
    "pod-basic.crt": POD_BASIC,
    "pod-super.crt": POD_SUPER,
    "pod-boom.attrition": POD_BOOM["attrition"],
    "pod-boom.crt": POD_BOOM["crt"],
    "rivets.crt": RIVETS,
}
TERRAIN_GRIDS = {
    "ocs.crt": OCS,
    "daynight.day": DAYNIGHT["day"],
    "daynight.night": DAYNIGHT["night"],
}


def test_transcription_covers_every_ruleset():
    assert set(SEED_BY_RULESET) == set(RULESET_IDS)


@pytest.mark.parametrize("key", sorted(GRIDS))
def test_every_cell_of_each_chart_matches_the_seed(key):
    seed = GRIDS[key]
    chart = default_tables().chart(key)
    assert list(chart.columns) == seed["columns"]
    assert list(chart.rows) == list(seed["rows"])
    for row, cells in seed["rows"].items():
        assert len(cells) == len(seed["columns"])
        for column, expected in zip(seed["columns"], cells, strict=True):
            assert plain(chart.cell(row, column)) == expected, (key, row, column)


@pytest.mark.parametrize("key", sorted(TERRAIN_GRIDS))
def test_every_cell_of_each_terrain_chart_matches_the_seed(key):
    seed = TERRAIN_GRIDS[key]
    chart = default_tables().terrain_chart(key)
    assert plain(chart.columns_by_terrain) == seed["columns_by_terrain"]
    assert list(chart.columns_by_terrain) == list(seed["columns_by_terrain"])
    assert list(chart.rows) == list(seed["rows"])
    for terrain, columns in seed["columns_by_terrain"].items():
        for row, cells in seed["rows"].items():
            for column, expected in zip(columns, cells, strict=True):
                assert chart.cell(row, terrain, column) == expected, (key, terrain, row, column)


def test_boom_accuracy_and_direction_tables_match_the_seed():
    data = default_tables().data["pod-boom"]
    assert plain(data["accuracy"]) == POD_BOOM["accuracy"]
    assert plain(data["direction"]) == POD_BOOM["direction"]


def test_ultra_reads_the_super_chart():
    tables = default_tables()
    assert tables.data["pod-ultra"]["same_chart_as"] == "pod-super"
    assert POD_ULTRA == POD_SUPER


def attacker_half(cell: str) -> str:
    """The attacker's part of a printed OCS cell: everything before the defender's ' D'."""
    return cell.split(" D", 1)[0]


def test_ocs_attacker_halves_equal_the_seed():
    chart = default_tables().terrain_chart("ocs.crt")
    assert list(chart.rows) == list(OCS_ATTACKER_SEED["rows"])
    for row, seed_cells in OCS_ATTACKER_SEED["rows"].items():
        assert [attacker_half(c) for c in chart.rows[row]] == seed_cells, row
        assert [attacker_half(c) for c in OCS["rows"][row]] == seed_cells, row


def test_ocs_roll_13_fifth_column_follows_the_ruling():
    # RULINGS: read "Ao1 DL1o1", row 12 moved one column to the right.
    chart = default_tables().terrain_chart("ocs.crt")
    assert chart.rows["13"][4] == "Ao1 DL1o1"
    assert chart.rows["13"][4] == chart.rows["12"][3]


def test_the_attacker_half_splits_as_printed():
    assert attacker_half("AL1o1 Do1") == "AL1o1"
    assert attacker_half("Ao1 e4 DL1o2") == "Ao1 e4"
    assert attacker_half("Ae3 DL2o2DG") == "Ae3"
    assert attacker_half("AL2") == "AL2"


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_table_json_matches_the_seed(capsys, ruleset):
    status, out, err = run_main(capsys, "table", ruleset, "--json")
    assert (status, err) == (0, "")
    shown = json.loads(out)
    assert shown == SEED_BY_RULESET[ruleset]


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_table_text_prints_every_cell(capsys, ruleset):
    status, out, err = run_main(capsys, "table", ruleset)
    assert (status, err) == (0, "")
    words = set(out.split())
    for code in ("AL2", "DL2o3DG", "A2X", "DX", "All", "ALX"):
        if code in json.dumps(SEED_BY_RULESET[ruleset]):
            assert code in words


# ---------------------------------------------------------------- a broken tables.toml


def broken_copy(tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    text = TABLES_TOML.read_text(encoding="utf-8")
    assert text.count(old) >= count, old
    target = tmp_path / "tables.toml"
    target.write_text(text.replace(old, new, count), encoding="utf-8")
    return target


BREAKAGES = [
    pytest.param(
        '["DLX", "-"], ["DL4", "DR2"]]\n"2" = [',
        '["DLX", "-"]]\n"2" = [',
        ['pod-basic.crt.rows."1"', "7 cells", "found 6"],
        id="cell-removed",
    ),
    pytest.param(
        '"6" = ["AR", "NE", "NE", "DR", "DX", "DX", "DX", "DX", "DX", "DX"]',
        '"6" = ["AR", "NE", "QQ", "DR", "DX", "DX", "DX", "DX", "DX", "DX"]',
        ['rivets.crt.rows."6"[2]', "'QQ'", "not made of result codes"],
        id="bad-code",
    ),
    pytest.param(
        'code = "NE"\nmeans = "No effect"\nseed = "003"',
        'code = "NX"\nmeans = "No effect"\nseed = "003"',
        ["rivets.crt.rows", "'NE'", "no legend entry"],
        id="code-without-legend",
    ),
    pytest.param(
        "overrun_from = 6\n",
        "",
        ["rivets.overrun_from", "missing"],
        id="missing-key",
    ),
    pytest.param(
        "overrun_from = 6\n",
        'overrun_from = "six"\n',
        ["rivets.overrun_from", "whole number", "'six'"],
        id="wrong-type",
    ),
    pytest.param(
        '"Open" = ["1:5", "1:4",',
        '"Open" = ["1:4",',
        ["ocs.crt.columns_by_terrain.Open", "13 column labels", "found 12"],
        id="column-removed",
    ),
    pytest.param(
        "factor_max = 999\n",
        "factor_max = 0\n",
        ["limits.factor_max", "whole number >= 1"],
        id="limit-zero",
    ),
    pytest.param(
        'losses = "steps"\n',
        'losses = "hexes"\n',
        ["ocs.losses", "factors, steps"],
        id="losses-unit",
    ),
    pytest.param(
        "format = 1\n",
        "format = 1\n[[[ not toml\n",
        ["not valid TOML"],
        id="bad-toml",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), BREAKAGES)
def test_a_broken_tables_file_is_one_line_naming_the_key(tmp_path, old, new, expected):
    target = broken_copy(tmp_path, old, new)
    with pytest.raises(TablesError) as caught:
        load_tables(target)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(target))
    for part in expected:
        assert part in message


def test_a_missing_tables_file_is_one_line(tmp_path):
    with pytest.raises(TablesError) as caught:
        load_tables(tmp_path / "nowhere.toml")
    assert "\n" not in str(caught.value)
    assert "nowhere.toml" in str(caught.value)


def test_the_real_tables_file_loads_and_is_the_default():
    assert load_tables(TABLES_TOML).data == default_tables().data
    assert default_path().name == "tables.toml"


@pytest.mark.parametrize(("old", "new", "expected"), BREAKAGES[:2])
def test_cli_reports_a_broken_tables_file_in_one_line(
    tmp_path, monkeypatch, capsys, old, new, expected
):
    target = broken_copy(tmp_path, old, new)
    monkeypatch.setenv("CRTDESK_TABLES", str(target))
    default_tables.cache_clear()
    try:
        status, out, err = run_main(capsys, "resolve", "rivets", "--attack", "2", "--defense", "1")
    finally:
        default_tables.cache_clear()
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "Traceback" not in err
    for part in expected:
        assert part in err


def test_cli_subprocess_with_a_broken_tables_file(tmp_path):
    target = broken_copy(tmp_path, "format = 1\n", "format = 1\n[[[ not toml\n")
    env = {**os.environ, "CRTDESK_TABLES": str(target)}
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "table", "ocs"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert str(target) in done.stderr and "not valid TOML" in done.stderr
