"""The CLI on a player's chart: `check-table` names the place of each kind of mistake in one
line and exits 2; `resolve`, `odds`, `table` and `games` read the games folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
HILL = (DOCS / "hill-203.toml").read_text()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def edited(old: str, new: str) -> str:
    assert old in HILL, old
    return HILL.replace(old, new, 1)


# Each broken chart: the edit to the sound Hill 203, and what the one line must say.
BROKEN = {
    "short-row": (
        edited('"2" = ["AE", "AR",  "AR",  "DR1", "DR2", "DE"]', '"2" = ["AE", "AR", "AR"]'),
        ':22: crt.rows."2": 3 cells, expected 6 (one per column)',
    ),
    "unknown-code": (
        edited('"3" = ["AR",', '"3" = ["XX",'),
        ":23: crt.rows.\"3\"[0]: 'XX' is not a result code; expected one of [results] (AD, AE, AR",
    ),
    "duplicated-column": (
        edited('"4-1", "5-1"]', '"4-1", "4-1"]'),
        "crt.columns[5]: '4-1' is a duplicated column",
    ),
    "columns-out-of-order": (
        edited('["1-2", "1-1", "2-1"', '["1-1", "1-2", "2-1"'),
        "crt.columns[1]: '1-2' after '1-1': columns out of order",
    ),
    "number-without-range": (
        edited("low = 0\nhigh = 3\n", ""),
        "modifiers[2].low: missing; a number needs its range: low and high",
    ),
    "cap-below-zero": (
        edited("drm = 2", "drm = -1"),
        "caps.drm: -1 is not allowed; expected a whole number from 0 to 99",
    ),
    "bad-toml": (
        edited('title = "Hill 203"', 'title "Hill 203"'),
        ":4: not TOML: Expected '=' after a key in a key/value pair (column 7)",
    ),
    "row-gap": (
        edited('"3" = ["AR",', '"4x" = ["AR",'),
        'crt.rows."4x": not a roll; expected a modified roll such as "3" or a range "4-5"',
    ),
    "rows-overlap": (
        edited('"3" = ["AR",', '"1-3" = ["AR",'),
        "crt.rows.\"1-3\": overlaps row '2'; expected rows in order, each roll once (3 next)",
    ),
    "unknown-effect": (
        edited('effect = "multiply"', 'effect = "halve"'),
        "modifiers[0].effect: 'halve' is not allowed; expected multiply, add, shift, drm or columns",
    ),
    "bad-dice": (
        edited('dice = "1d6"', 'dice = "1d1"'),
        "game.dice: '1d1' is not allowed; expected NdS with N from 1 to 4",
    ),
    "end-not-a-code": (
        edited('right = "AV"', 'right = "DD"'),
        "crt.right: 'DD' is not allowed; expected \"end\" or a code of [results]",
    ),
    "choice-without-values": (
        edited("values = { attacker = 1, defender = -1 }\n", ""),
        "modifiers[1].values: missing; expected a table of named values",
    ),
    "reserved-name": (
        edited('name = "leader"', 'name = "roll"'),
        "modifiers[2].name: 'roll' is not allowed",
    ),
    "multiply-by-zero": (
        edited("by = 2", "by = 0"),
        "modifiers[0].by: 0 is not allowed; expected a number above 0",
    ),
    "unknown-key": (
        edited("[caps]", "[caps]\nshifts = 1"),
        "caps.shifts: not a key of the format; expected one of drm, shift",
    ),
    "control-character": (
        edited('AE = "Attacker eliminated"', 'AE = "Attacker \\u001b[31meliminated"'),
        "results.AE: holds the character U+001B; expected text on one line",
    ),
    "no-results": (
        HILL[: HILL.index("[results]")] + HILL[HILL.index("[[modifiers]]") :],
        "results: missing; expected a [results] table",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_check_table_names_the_place_of_each_mistake(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, said = BROKEN[case]
    path = tmp_path / "hill-203.toml"
    path.write_text(text)
    status, out, err = run(capsys, "check-table", str(path))
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"crtdesk: {path}")
    assert said in lines[0]


def test_check_table_on_a_file_not_utf8_or_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.toml"
    path.write_bytes(b"\xff\xfe[game]\n")
    status, _, err = run(capsys, "check-table", str(path))
    assert status == 2 and "not UTF-8" in err and len(err.splitlines()) == 1
    status, _, err = run(capsys, "check-table", str(tmp_path / "gone.toml"))
    assert status == 2 and "cannot be read" in err


def test_check_table_on_a_sound_chart(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "check-table", str(DOCS / "hill-203.toml"))
    assert status == 0 and err == ""
    assert out.strip() == (
        "game:hill-203: Hill 203 (1d6); 6 odds columns 1-2..5-1; 6 rows 1..6; "
        "7 result codes; 4 modifiers"
    )


def test_resolve_odds_and_table_from_the_games_folder(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRTDESK_GAMES", str(DOCS))
    status, out, _ = run(
        capsys, "resolve", "hill-203", "--attack", "6", "--defense", "2", "--town", "--roll", "4"
    )
    assert status == 0
    assert "odds 1-1  column 1-1  roll 4" in out and "Result: EX" in out
    status, out, _ = run(
        capsys, "odds", "game:border-skirmish", "--attack", "9", "--defense", "5", "--json"
    )
    data = json.loads(out)
    assert status == 0 and data["column"] == "+4"
    assert {o["cell"]: o["fraction"] for o in data["outcomes"]} == {
        "D1": "5/12",
        "D2": "1/6",
        "D3": "5/12",
    }
    status, out, _ = run(capsys, "table", "hill-203")
    assert status == 0 and "--artillery  Artillery: attacker +1 column" in out
    monkeypatch.delenv("CRTDESK_GAMES")
    status, out, _ = run(capsys, "games", "--games", str(DOCS), "--json")
    listed = [g["id"] for g in json.loads(out)["games"]]
    assert listed == [f"game:{p.stem}" for p in sorted(DOCS.glob("*.toml"))]
    assert {"game:border-skirmish", "game:hill-203"} <= set(listed)


def test_resolve_with_the_desk_dice_repeats_with_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("resolve", str(DOCS / "hill-203.toml"), "--attack", "6", "--defense", "2")
    first = run(capsys, *argv, "--seed", "5")
    again = run(capsys, *argv, "--seed", "5")
    assert first == again and first[0] == 0


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--leader", "9"], "--leader: 9 is not allowed; expected a whole number from 0 to 3"),
        (["--leader", "x"], "leader: 'x' is not allowed; expected a whole number"),
        (["--artillery", "both"], "--artillery: 'both' is not allowed; expected one of attacker"),
        (["--smoke"], "unrecognized arguments: --smoke"),
        (["--roll", "7"], "--roll: 7 is not allowed; expected a 1d6 roll from 1 to 6"),
    ],
)
def test_bad_flags_on_a_chart(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["resolve", str(DOCS / "hill-203.toml"), "--attack", "6", "--defense", "2"]
    status, _, err = run(capsys, *base, *argv)
    assert status == 2 and said in err and len(err.splitlines()) == 1


def test_a_chart_not_in_the_games_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "odds", "game:nowhere", "--games", str(tmp_path), "--attack", "1")
    assert status == 2 and "no chart nowhere.toml in the games folder" in err
    status, _, err = run(capsys, "odds", "nowhere", "--attack", "1")  # not a chart either
    assert status == 2 and "RULESET: 'nowhere' is not allowed" in err


def test_the_charts_on_the_page_are_the_example_files() -> None:
    """docs/adding-a-game.md shows each example chart whole: as the file reads, but for
    the file's comment line and rulings."""
    import re
    import tomllib

    page = (DOCS.parent / "adding-a-game.md").read_text(encoding="utf-8")
    shown = [tomllib.loads(b) for b in re.findall(r"^```toml\n(.*?)^```", page, re.M | re.S)]
    files = [
        tomllib.loads((DOCS / f).read_text())
        for f in ("hill-203.toml", "border-skirmish.toml", "ashby-ford.toml")
    ]
    for data in files:
        data["game"].pop("rulings", None)
    assert shown == files


def test_the_desk_refuses_a_games_folder_that_is_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "--games", str(tmp_path / "none"))
    assert status == 2 and err.strip().endswith("is not a folder; expected the games folder")
