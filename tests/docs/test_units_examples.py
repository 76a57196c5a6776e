"""docs/units.md's example orders of battle import as the page says (`crtdesk units` then
lists every unit, with the fields the file gave), and the page's bad-row lines are the
ones the import prints."""

from __future__ import annotations

import csv
import json
import tomllib
from pathlib import Path

import pytest

from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "units.md"


def rows_of(example: Path) -> list[dict[str, str]]:
    """The example's units as the file holds them, read here by the standard library."""
    if example.suffix == ".csv":
        with example.open(encoding="utf-8", newline="") as file:
            return list(csv.DictReader(file))
    units = tomllib.loads(example.read_text(encoding="utf-8"))["unit"]
    return [{k: str(v) for k, v in unit.items()} for unit in units]


@pytest.mark.parametrize(
    ("example", "ruleset"),
    [("ocs-example.csv", "ocs"), ("daynight-example.toml", "daynight")],
)
def test_an_example_order_of_battle_imports_and_is_listed(
    example: str,
    ruleset: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    source = ROOT / "docs" / "oob" / example
    assert f"(oob/{example})" in PAGE.read_text(encoding="utf-8")
    assert main(["new", "g", "--title", "Example", "--ruleset", ruleset, "--saves", "."]) == 0
    assert main(["units", "g", "--saves", ".", "import", str(source)]) == 0
    wanted = rows_of(source)
    assert f"Imported {len(wanted)} units from {example}" in capsys.readouterr().out

    assert main(["units", "g", "--saves", "."]) == 0
    listed = capsys.readouterr().out
    for row in wanted:
        assert f"  {row['name']} " in listed
    assert main(["units", "g", "--saves", ".", "--json"]) == 0
    units = json.loads(capsys.readouterr().out)["units"]
    assert [u["name"] for u in units] == [row["name"] for row in wanted]
    for unit, row in zip(units, wanted, strict=True):
        # Every field the file gave, as the game keeps it; a unit at full strength.
        for key, value in row.items():
            if value == "":
                assert key == "hex" and "hex" not in unit  # only a hex is left empty
                continue
            kept = unit[key]
            assert (float(kept) if key == "re" else str(kept)) == (
                float(value) if key == "re" else value
            )
        assert unit["steps_left"] == int(row["steps"]) and unit["eliminated"] is False

    # The same file again: every name is already there, so nothing more is imported.
    assert main(["units", "g", "--saves", ".", "import", str(source)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is already a unit; each name once" in err
    assert main(["units", "g", "--saves", ".", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["units"]) == len(wanted)


@pytest.mark.parametrize(
    ("name", "text", "ruleset"),
    [
        ("bad.csv", "name,side,factor,steps,ar\n21 Pz,Axis,6,3,4\n15 Pz,Axis,5,three,4\n", "ocs"),
        ("bad.csv", "name,side,factor,steps,ar,kind\n21 Px,Axis,6,3,4,tank\n", "ocs"),
        ("bad.csv", "name,side,factor,strength\nX,Axis,6,3\n", "ocs"),
        ("bad.toml", '[[unit]]\nname = "Q"\nside = "Red"\n', "daynight"),
    ],
)
def test_the_pages_bad_rows_are_what_the_import_says(
    name: str,
    text: str,
    ruleset: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "g", "--title", "Bad", "--ruleset", ruleset, "--saves", "."]) == 0
    (tmp_path / name).write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["units", "g", "--saves", ".", "import", name]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"\n{err}" in PAGE.read_text(encoding="utf-8")
    assert main(["units", "g", "--saves", ".", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["units"] == []  # nothing imported
