"""The CLI on a chart with re-roll codes, ties and "#-#" codes (issue 30, part C): `odds`
gives the exact chances with the re-roll chain folded in, `resolve --roll N --reroll N`
reads the dice of the re-rolls by hand, `check-table` names a bad re-roll in one line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from tests.engine.test_chart_results import FORD
from tui.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "ford.toml").write_text(FORD)
    monkeypatch.setenv("CRTDESK_GAMES", str(folder))
    return folder


def test_odds_fold_the_re_roll_chain_in(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # By hand (tests/engine/test_chart_results.py works each out), in 216ths.
    status, out, err = run(capsys, "odds", "ford", "--column", "1-1", "--json")
    assert status == 0, err
    found = {o["cell"]: Fraction(o["fraction"]) for o in json.loads(out)["outcomes"]}
    expected = {"AE": 78, "NE": 38, "1-1": 44, "2-2": 36, "2-1": 8, "DE": 12}
    assert found == {cell: Fraction(n, 216) for cell, n in expected.items()}
    # The first roll by hand: a 3 reads RR on 1-1, so only the re-rolls are left to chance:
    # on 2-1, AE 1/6, RR 2/6 (then on 3-1: NE, 1-1, 2-1 1/6 each, DE 3/6), 1-1, 2-1, DE 1/6.
    status, out, _ = run(capsys, "odds", "ford", "--column", "1-1", "--roll", "3", "--json")
    found = {o["cell"]: Fraction(o["fraction"]) for o in json.loads(out)["outcomes"]}
    third = Fraction(2, 6)
    assert found == {
        "AE": Fraction(1, 6),
        "NE": third / 6,
        "1-1": Fraction(1, 6) + third / 6,
        "2-1": Fraction(1, 6) + third / 6,
        "DE": Fraction(1, 6) + third * 3 / 6,
    }


def test_resolve_reads_re_rolls_by_hand(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("resolve", "ford", "--column", "1-1", "--roll", "3")
    status, out, err = run(capsys, *argv, "--reroll", "4")
    assert status == 0, err
    assert "column 2-1  roll 4" in out and "Result: 1-1" in out
    assert "Even exchange: one step each." in out
    assert "dice: re-roll 1: 1d6 4 (by hand)" in out
    status, out, _ = run(capsys, *argv, "--reroll", "3", "--reroll", "1")
    assert status == 0 and "Result: NE" in out and "RR again after 2 re-rolls: NE" in out
    status, _, err = run(capsys, *argv, "--reroll", "4", "--reroll", "2")
    assert status == 2 and "--reroll: 2 is not allowed; expected no more rolls" in err
    assert len(err.splitlines()) == 1
    status, _, err = run(capsys, "resolve", "ford", "--column", "1-1", "--reroll", "2")
    assert status == 2 and "a re-roll by hand after the roll by hand" in err


def test_reroll_is_a_flag_only_of_a_chart_with_re_roll_codes(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["resolve", "ford", "--help"])
    assert "--reroll N " in capsys.readouterr().out
    hill = Path(__file__).resolve().parents[2] / "docs" / "games" / "hill-203.toml"
    argv = ("resolve", str(hill), "--attack", "4", "--defense", "4", "--roll", "3")
    status, _, err = run(capsys, *argv, "--reroll", "2")
    assert status == 2 and "unrecognized arguments: --reroll" in err


def test_check_table_names_a_bad_re_roll_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ford.toml"
    path.write_text(FORD.replace('then = "NE"', 'then = "RR"'))
    status, _, err = run(capsys, "check-table", str(path))
    line = FORD.splitlines().index('then = "NE"') + 1
    said = f"crtdesk: {path}:{line}: rerolls.RR.then: 'RR' is not allowed"
    assert status == 2 and err.startswith(said) and len(err.splitlines()) == 1
    path.write_text(FORD)
    status, out, _ = run(capsys, "check-table", str(path))
    assert status == 0 and out.startswith("game:ford: Ford (1d6); 3 odds columns")


def test_table_shows_the_ties_and_the_re_rolls(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "table", "ford")
    assert status == 0
    assert "  NE    No effect (ranks with AR)" in out
    assert "  1-1   Even exchange: one step each (ranks with #-#)" in out
    assert "  RR    roll again, at most 2 times, 1 column right each; then NE" in out
    status, out, _ = run(capsys, "table", "ford", "--json")
    shown = json.loads(out)
    assert shown["ties"] == ["NE", "1-1"]
    assert shown["rerolls"] == {"RR": {"limit": 2, "then": "NE", "shift": 1}}


DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def test_the_worked_example_reads_as_the_page_works_it_out(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/adding-a-game.md, Ashby Ford: 4 against 4 is 1-1. In 216ths: the first roll 36
    # a face, a first re-roll (on a 3 or a 4) 12, a second (EN on 2-1's 2) 2.
    monkeypatch.setenv("CRTDESK_GAMES", str(DOCS))
    argv = ("ashby-ford", "--attack", "4", "--defense", "4")
    status, out, err = run(capsys, "odds", *argv, "--json")
    assert status == 0, err
    found = {o["cell"]: Fraction(o["fraction"]) for o in json.loads(out)["outcomes"]}
    expected = {"AE": 36, "AR": 36 + 12, "1-1": 36 + 12 + 2 + 2, "1-2": 12 + 2}
    expected |= {"DR": 36 + 12 + 2, "DE": 12 + 2 + 2}
    assert found == {cell: Fraction(n, 216) for cell, n in expected.items()}
    status, out, _ = run(capsys, "resolve", *argv, "--roll", "3", "--reroll", "2", "--reroll", "1")
    assert status == 0 and "column 3-1  roll 1" in out and "Result: 1-1" in out
    assert "EN again after 2 re-rolls: 1-1" in out
    # Across the ford a 1 reads 0, below the rows: clamped to row 1, one line of the trace.
    status, out, _ = run(capsys, "resolve", *argv, "--ford", "--roll", "1")
    assert status == 0 and "Result: AE" in out
    assert [line for line in out.splitlines() if "1d6 1 (entered" in line] == [
        "  1d6 1 (entered by hand) -1 DRM = 0: beyond the rows, read on row 1 (clamped); "
        "column 1-1: AE"
    ]
