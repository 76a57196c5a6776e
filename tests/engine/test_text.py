"""tui.engine.text: one reading of a cell, dice, a time stamp, a marker and a log entry, the same
for `crtdesk resolve` as for `crtdesk log` (and for the screens once they import it)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from tui import saves
from tui.cli import main
from tui.engine import combat as engine_combat
from tui.engine import registry, text
from tui.engine.dice import DiceRoll
from tui.engine.registry import BUILT_IN_IDS as RULESET_IDS
from tui.engine.tables import default_tables


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    return tmp_path / "saves"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# Combats whose cells take each shape a chart has: two codes, two lines, one code, none.
COMBATS = {
    # Seed 001, 4-1 column, roll 3: "-" for the attacker, DR1 for the defender.
    "two codes": ("pod-basic", "--attack", "8", "--defense", "2", "--roll", "3"),
    # Seed 000, 3-1 column, roll 8: a two-line Super cell.
    "two lines": ("pod-super", "--attack", "4", "--attack", "2", "--defense", "2", "--roll", "8"),
    # Seed 003, 1-1 column, roll 5: DR.
    "one code": ("rivets", "--attack", "7", "--defense", "4", "--roll", "5"),
    # 1 against 9 in Basic is worse than 1-3: Automatic Defeat reads no cell.
    "no cell": ("pod-basic", "--attack", "1", "--defense", "9", "--roll", "3"),
    # The desk's dice, two of them: their faces are part of the reading.
    "desk dice": ("pod-super", "--attack", "5", "--defense", "2", "--seed", "11"),
}


@pytest.mark.parametrize("argv", COMBATS.values(), ids=COMBATS.keys())
def test_resolve_and_log_print_the_same_cell_and_dice(folder: Path, capsys, argv) -> None:
    code, _, err = run(
        capsys, "new", "g", "--title", "G", "--ruleset", "pod-basic", "pod-super", "rivets"
    )
    assert code == 0, err
    code, resolved, err = run(capsys, "resolve", *argv, "--save", "g")
    assert code == 0, err
    cell = re.search(r"^Result: (.*)$", resolved, re.M).group(1)
    dice = re.findall(r"^  dice: [^:]+: (.*)$", resolved, re.M)
    assert bool(dice) == (argv != COMBATS["no cell"])  # Automatic Defeat reads no dice
    code, logged, err = run(capsys, "log", "g")
    assert code == 0, err
    row = logged.splitlines()[-1]
    assert f"  {cell}: " in row
    assert ", ".join(dice) in row
    # The same cell in the JSON of either command reads the same way.
    code, out, _ = run(capsys, "log", "g", "--json")
    assert text.cell_text(json.loads(out)["entries"][-1].get("cell")) == cell


def test_the_issue_example_reads_with_a_slash_in_both(folder: Path, capsys) -> None:
    run(capsys, "new", "g", "--title", "G", "--ruleset", "pod-basic")
    _, resolved, _ = run(capsys, "resolve", *COMBATS["two codes"], "--save", "g")
    _, logged, _ = run(capsys, "log", "g")
    assert "Result: - / DR1" in resolved
    assert "  - / DR1: " in logged.splitlines()[-1]


def every_cell() -> list[object]:
    tables = default_tables()
    cells: list[object] = []
    for chart in tables.charts.values():
        cells += [cell for row in chart.rows.values() for cell in row]
    return cells


def test_every_chart_cell_reads_as_the_engine_reads_it() -> None:
    # The screens still import the engine's cell_text; both must give one reading.
    cells = every_cell()
    assert len(cells) > 300
    for cell in [*cells, None]:
        assert text.cell_text(cell) == engine_combat.cell_text(cell), cell


def test_cell_shapes() -> None:
    assert text.cell_text(["DL2", "DR1"]) == "DL2 / DR1"
    assert text.cell_text({"attacker": ["-", "2"], "defender": ["2", "-3"]}) == "A - 2 / D 2 -3"
    assert text.cell_text("AL1o1 Do1") == "AL1o1 Do1"
    assert text.cell_text(None) == "(no cell)"


def test_dice_read_the_same_from_the_engine_and_from_a_save() -> None:
    rolled = DiceRoll("combat", "2d6", (4, 6), 10, "desk")
    by_hand = DiceRoll("combat", "1d6", (), 3, "manual")
    assert text.die_text(rolled) == "2d6 4+6=10 (desk)"
    assert text.die_text(by_hand) == "1d6 3 (by hand)"
    assert text.dice_text([rolled.to_dict(), by_hand.to_dict()]) == text.dice_text(
        [rolled, by_hand]
    )


def test_a_time_stamp_reads_to_the_minute() -> None:
    assert text.when_text("2026-11-22T19:16:40+00:00") == "2026-11-22 19:16"


def test_markers_as_placed_and_in_play() -> None:
    placed = {"id": "2.1", "kind": "DG", "target": "0712", "side": "Axis", "turns": 1}
    assert text.marker_text(placed) == "DG 2.1 on 0712 (Axis, 1 turn)"
    in_play = saves.Marker(
        id="2.1", kind="DG", target="0712", side="Axis", placed_by=2, turns_left=3, note=None
    )
    assert text.marker_text(in_play) == "DG 2.1 on 0712 (Axis, 3 turns left)"
    # At 0 the marker still holds for the turn in play; it is lifted when the next begins.
    ending = replace(in_play, turns_left=0)
    assert text.marker_text(ending) == "DG 2.1 on 0712 (Axis, through this turn)"
    lasting = saves.Marker(
        id="1.1", kind="no-entry", target="a\nb", side=None, placed_by=1, turns_left=None, note=None
    )
    assert text.marker_text(lasting) == "no-entry 1.1 on a\\nb"


def test_a_marker_note_is_shown_placed_and_in_play() -> None:
    placed = {"id": "4.1", "kind": "no-entry", "target": "0412", "turns": 2, "note": "bridge"}
    assert text.marker_text(placed) == "no-entry 4.1 on 0412 (2 turns): bridge"
    in_play = saves.Marker(
        id="4.1", kind="no-entry", target="0412", side=None, placed_by=4, turns_left=1, note="x\ny"
    )
    assert text.marker_text(in_play) == "no-entry 4.1 on 0412 (1 turn left): x\\ny"
    entry = {"seq": 4, "kind": "place-marker", "turn": 2, "marker": placed}
    assert text.entry_text(entry) == ("marker", "Placed no-entry 4.1 on 0412 (2 turns): bridge.")


def test_a_combat_entry_reads_cell_first() -> None:
    entry = {
        "kind": "combat",
        "ruleset": "rivets",
        "cell": "DR",
        "explanation": "Defender retreats.",
        "note": "line\nbreak",
    }
    assert text.entry_text(entry) == ("rivets", "DR: Defender retreats. Note: line\\nbreak")


EFFECTS = [
    ({"attacker": {"advance_up_to": 2}, "defender": {"factors_lost": 2, "retreat": 3}}, None),
    ({"attacker": {"eliminated": True}, "defender": {}}, "A: elim"),
    ({"attacker": {}, "defender": {"factors_lost": "all"}}, "D: lose all"),
    ({"attacker": {"advance_up_to": 2}, "cancelled": True}, "cancelled"),
    ({}, "no effect"),
]


@pytest.mark.parametrize(("effects", "words"), EFFECTS)
def test_short_meaning_matches_the_desk_preview(effects, words) -> None:
    from tui.engine.preview import short_meaning as preview_short_meaning

    # One function: the desk's preview rows and the CLI read effects the same way.
    assert text.short_meaning is preview_short_meaning
    if words:
        assert text.short_meaning(effects) == words


def test_short_meaning_of_the_readme_capture() -> None:
    effects = EFFECTS[0][0]
    assert text.short_meaning(effects) == "A: adv<=2; D: lose 2, ret 3"


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_a_rulesets_printed_chart_starts_with_its_title_and_ends_with_its_legend(ruleset) -> None:
    printed = registry.get(ruleset).chart_text(default_tables())
    assert printed.startswith(default_tables().title(ruleset))
    assert "Legend:" in printed


@given(st.text())
def test_one_line_is_one_line(free_text: str) -> None:
    shown = text.one_line(free_text)
    assert len(shown.splitlines()) <= 1
    assert shown == free_text or "\\" in shown


def test_one_line_escapes_what_splitlines_breaks_at() -> None:
    assert text.one_line("a\x1eb\x85c\u2028d\ne") == "a\\x1eb\\x85c\\u2028d\\ne"


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=40) | st.dictionaries(st.text(), inner, max_size=40),
    max_leaves=30,
)


@settings(max_examples=30, deadline=None)
@given(value=_JSON_VALUES, copies=st.integers(1, 60))
def test_json_written_in_pieces_is_the_json_shown(value: object, copies: int) -> None:
    """`write_json_shown` writes `json_shown`'s text and a newline, whatever the value and
    however its pieces fall (a value repeated past one piece's size too), the characters that
    break a line on screen (U+2028, bidi controls) escaped in every piece."""
    whole = [value, "\u2028\u202e" * 1000] * copies
    out = io.StringIO()
    text.write_json_shown(whole, out)
    assert out.getvalue() == text.json_shown(whole) + "\n"
    assert "\u2028" not in out.getvalue() and "\u202e" not in out.getvalue()
    assert json.loads(out.getvalue()) == json.loads(text.json_shown(whole))
