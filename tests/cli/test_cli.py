"""The headless CLI: `resolve` and `odds` for every ruleset, their JSON shapes, and every
kind of bad input (exit 2, one line on stderr naming the flag, the value and what is
allowed, never a traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tui import saves
from tui.cli import build_parser, main
from tui.engine.registry import BUILT_IN_IDS as RULESET_IDS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# A good combat per ruleset, with the dice entered by hand (as they lie, RULINGS "Dice"),
# and the cell the seed gives.
GOOD = {
    # Seed 001 example: roll 2 at 4-1.
    "pod-basic": (["--attack", "8", "--defense", "2"], "2", ["DL2", "DR1"]),
    # Seed 000 example: roll 8 at 3-1.
    "pod-super": (
        ["--attack", "4", "--attack", "2", "--defense", "2"],
        "8",
        {"attacker": ["-", "2"], "defender": ["2", "-3"]},
    ),
    # 6 against mines (CDF 2) is 3-1 on the Super chart.
    "pod-ultra": (
        ["--attack", "6", "--obstacle", "mines"],
        "8",
        {"attacker": ["-", "2"], "defender": ["2", "-3"]},
    ),
    # CAF 9 reads column 8; roll 4 there: loss 8, interdiction 1.
    "pod-boom": (["--step", "crt", "--caf", "9"], "4", ["8", "1"]),
    # 12 vs 3 in Close is 4:1; surprise 9 + AR 4 - 2 = 11, attacker shifts 2 to 8:1;
    # 2d6 8 + DRM 2 reads row 10 there: Ae4 DL1o2.
    "ocs": (
        [
            "--attack",
            "12",
            "--defense",
            "3",
            "--terrain",
            "close",
            "--attacker-ar",
            "4",
            "--defender-ar",
            "2",
            "--surprise-roll",
            "9",
            "--shift-roll",
            "2",
        ],
        "8",
        "Ae4 DL1o2",
    ),
    # 7 vs 4 is 1-1; roll 5 there: DR.
    "rivets": (["--attack", "7", "--defense", "4"], "5", "DR"),
    # 9 vs 3 in Woods at night is 3-1; row 4 there: BTL.
    "daynight": (
        ["--attack", "9", "--defense", "3", "--terrain", "woods", "--time", "night"],
        "4",
        "BTL",
    ),
}

# The row read where it is not the dice as they lie (the desk adds the DRM).
ROW_READ = {"ocs": "10"}

RESOLVE_KEYS = {
    "ruleset",
    "attack_total",
    "defense_total",
    "odds",
    "column",
    "roll",
    "cell",
    "effects",
    "explanation",
    "trace",
}


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_resolve_json(capsys, ruleset):
    flags, roll, cell = GOOD[ruleset]
    status, out, err = run(capsys, "resolve", ruleset, *flags, "--roll", roll, "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert RESOLVE_KEYS <= set(data)
    assert data["ruleset"] == ruleset
    assert data["roll"] == ROW_READ.get(ruleset, roll)
    assert data["cell"] == cell
    result = [d for d in data["dice"] if d["purpose"] not in ("surprise", "surprise shift")]
    assert [(d["total"], d["source"]) for d in result] == [(int(roll), "manual")]
    if ruleset == "ocs":
        assert (result[0]["modifier"], result[0]["row"]) == (2, "10")
    assert isinstance(data["effects"], dict)
    assert isinstance(data["explanation"], str) and data["explanation"]
    assert isinstance(data["trace"], list) and all(isinstance(s, str) for s in data["trace"])


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_resolve_text(capsys, ruleset):
    flags, roll, cell = GOOD[ruleset]
    status, out, err = run(capsys, "resolve", ruleset, *flags, "--roll", roll)
    assert (status, err) == (0, "")
    assert out.startswith(ruleset)
    printed = (
        cell if isinstance(cell, str) else " / ".join(cell) if isinstance(cell, list) else None
    )
    if printed:
        assert f"Result: {printed}" in out
    assert "Trace:" in out
    if ruleset == "ocs":
        # The dice as they lie, the DRM the desk added and the row it read.
        assert "combat: 2d6 8 (by hand) +2 DRM: row 10" in out


def test_resolve_json_totals_and_odds(capsys):
    status, out, _ = run(
        capsys, "resolve", "rivets", "--attack", "3", "--defense", "7", "--roll", "1", "--json"
    )
    data = json.loads(out)
    assert (data["attack_total"], data["defense_total"], data["odds"], data["column"]) == (
        3,
        7,
        "1-3",
        "1-3",
    )
    assert data["cell"] == "AX"


def test_resolve_with_a_seed_repeats(capsys):
    argv = ["resolve", "pod-super", "--attack", "5", "--defense", "2", "--seed", "11", "--json"]
    _, first, _ = run(capsys, *argv)
    _, second, _ = run(capsys, *argv)
    assert json.loads(first)["cell"] == json.loads(second)["cell"]
    # Logged as seeded, with its seed: the same seed gives the same dice.
    assert json.loads(first)["dice"][0]["source"] == "seed"
    assert json.loads(first)["dice"][0]["seed"] == 11


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_odds_json(capsys, ruleset):
    flags, _, cell = GOOD[ruleset]
    status, out, err = run(capsys, "odds", ruleset, *flags, "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert {"odds", "column", "outcomes"} <= set(data)
    outcomes = data["outcomes"]
    assert outcomes
    cells = [json.dumps(o["cell"]) for o in outcomes]
    assert len(cells) == len(set(cells)), "identical cells are merged"
    assert all(0 < o["probability"] <= 1 for o in outcomes)
    assert sum(o["probability"] for o in outcomes) == pytest.approx(1)
    assert sum(Fraction(o["fraction"]) for o in outcomes) == 1
    assert json.dumps(cell) in cells


def test_odds_json_counts_the_die(capsys):
    # Basic 4-1 column: DLX / - on rolls 1 and 4, every other cell once.
    _, out, _ = run(capsys, "odds", "pod-basic", "--attack", "8", "--defense", "2", "--json")
    data = json.loads(out)
    assert (data["odds"], data["column"]) == ("4-1", "4-1")
    by_cell = {json.dumps(o["cell"]): Fraction(o["fraction"]) for o in data["outcomes"]}
    assert by_cell[json.dumps(["DLX", "-"])] == Fraction(1, 3)
    assert len(by_cell) == 5


def test_odds_with_a_fixed_roll_is_certain(capsys):
    _, out, _ = run(
        capsys, "odds", "rivets", "--attack", "7", "--defense", "4", "--roll", "5", "--json"
    )
    data = json.loads(out)
    assert [(o["cell"], o["probability"]) for o in data["outcomes"]] == [("DR", 1.0)]


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_odds_text(capsys, ruleset):
    flags, _, _ = GOOD[ruleset]
    status, out, err = run(capsys, "odds", ruleset, *flags)
    assert (status, err) == (0, "")
    assert out.startswith(ruleset)
    assert "%" in out


def test_rulesets_command(capsys):
    status, out, _ = run(capsys, "rulesets", "--json")
    assert status == 0
    assert [item["id"] for item in json.loads(out)] == list(RULESET_IDS)


# ---------------------------------------------------------------- bad input

# (ruleset, flags, the flag named, the value named, a word of what is allowed)
BAD_COLUMN = {
    "pod-basic": ["--attack", "3", "--defense", "1", "--column", "6-1"],
    "pod-super": ["--attack", "3", "--defense", "1", "--column", "1-5"],
    "pod-ultra": ["--attack", "3", "--defense", "1", "--column", "3:1"],
    "pod-boom": ["--step", "crt", "--caf", "4", "--column", "4"],
    "ocs": ["--attack", "3", "--defense", "1", "--column", "14:1"],
    "rivets": ["--attack", "3", "--defense", "1", "--column", "7-1"],
    "daynight": ["--attack", "3", "--defense", "1", "--column", "10-1"],
}
BAD_TERRAIN = {
    "pod-basic": (["--attack", "3@town", "--defense", "1"], "--attack", "3@town"),
    "pod-super": (["--attack", "3@lava", "--defense", "1"], "--attack", "lava"),
    "pod-ultra": (["--attack", "3", "--defense", "1@marsh"], "--defense", "marsh"),
    "pod-boom": (["--step", "crt", "--caf", "4", "--terrain", "open"], "--terrain", "open"),
    "ocs": (["--attack", "3", "--defense", "1", "--terrain", "lava"], "--terrain", "lava"),
    "rivets": (["--attack", "3", "--defense", "1", "--terrain", "clear"], "--terrain", "clear"),
    "daynight": (["--attack", "3", "--defense", "1", "--terrain", "open"], "--terrain", "open"),
}
BAD_ROLL = {
    "pod-basic": (["--attack", "3", "--defense", "1"], "7", "1 to 6"),
    "pod-super": (["--attack", "3", "--defense", "1"], "13", "2 to 12"),
    "pod-ultra": (["--attack", "3", "--defense", "1"], "1", "2 to 12"),
    "pod-boom": (["--step", "crt", "--caf", "4"], "0", "1 to 6"),
    # Hand dice are as they lie: no 2d6 shows 13, no 1d6 a 7, whatever the DRM.
    "ocs": (["--attack", "3", "--defense", "1"], "13", "2 to 12"),
    "rivets": (["--attack", "3", "--defense", "1"], "0", "1 to 6"),
    "daynight": (["--attack", "3", "--defense", "1"], "7", "1 to 6"),
}


def base_flags(ruleset: str, attack: str = "3", defense: str = "1") -> list[str]:
    if ruleset == "pod-boom":
        return ["--attack", attack]
    return ["--attack", attack, "--defense", defense]


def bad_cases():
    for command in ("resolve", "odds"):
        for ruleset in RULESET_IDS:
            yield pytest.param(
                command,
                [ruleset[:3] + "x", "--attack", "3"],
                "RULESET",
                ruleset[:3] + "x",
                "one of",
                id=f"{command}-{ruleset}-unknown-ruleset",
            )
            column = BAD_COLUMN[ruleset]
            yield pytest.param(
                command,
                [ruleset, *column],
                "--column",
                column[-1],
                "",
                id=f"{command}-{ruleset}-unknown-column",
            )
            flags, flag, value = BAD_TERRAIN[ruleset]
            yield pytest.param(
                command,
                [ruleset, *flags],
                flag,
                value,
                "",
                id=f"{command}-{ruleset}-unknown-terrain",
            )
            flags, roll, allowed = BAD_ROLL[ruleset]
            yield pytest.param(
                command,
                [ruleset, *flags, "--roll", roll],
                "--roll",
                roll,
                allowed,
                id=f"{command}-{ruleset}-roll-off-the-table",
            )
            for text in ("x", "-2", "1.5", "three", ""):
                yield pytest.param(
                    command,
                    [ruleset, *base_flags(ruleset, attack=text)],
                    "--attack",
                    text,
                    "whole number",
                    id=f"{command}-{ruleset}-attack-{text or 'empty'}",
                )
                if ruleset != "pod-boom":
                    yield pytest.param(
                        command,
                        [ruleset, *base_flags(ruleset, defense=text)],
                        "--defense",
                        text,
                        "whole number",
                        id=f"{command}-{ruleset}-defense-{text or 'empty'}",
                    )
            yield pytest.param(
                command,
                [ruleset, *base_flags(ruleset, attack="0")],
                "--attack",
                "0",
                "at least 1",
                id=f"{command}-{ruleset}-attack-zero",
            )
        yield pytest.param(
            command,
            ["pod-boom", "--step", "crt", "--caf", "0"],
            "--caf",
            "0",
            ">= 1",
            id=f"{command}-pod-boom-caf-zero",
        )
        yield pytest.param(
            command,
            ["pod-boom", "--step", "crt", "--caf", "2.5"],
            "--caf",
            "2.5",
            "whole number",
            id=f"{command}-pod-boom-caf-fraction",
        )
        yield pytest.param(
            command,
            ["pod-boom", "--step", "attrition", "--aaf", "-1"],
            "--aaf",
            "-1",
            "whole number",
            id=f"{command}-pod-boom-aaf-negative",
        )
        yield pytest.param(
            command,
            ["pod-boom", "--step", "bombs", "--aaf", "1"],
            "--step",
            "bombs",
            "attrition",
            id=f"{command}-pod-boom-unknown-step",
        )
        yield pytest.param(
            command,
            ["pod-boom", "--step", "accuracy", "--caf", "5"],
            "--caf",
            "5",
            "crt",
            id=f"{command}-pod-boom-caf-unread-by-accuracy",
        )
        yield pytest.param(
            command,
            ["pod-boom", "--attack", "4", "--caf", "9"],
            "--caf",
            "9",
            "crt",
            id=f"{command}-pod-boom-caf-unread-by-the-chain",
        )
        yield pytest.param(
            command,
            ["pod-boom", "--step", "crt", "--caf", "4", "--defense", "2"],
            "--defense",
            "2",
            "pod-boom",
            id=f"{command}-pod-boom-defenders",
        )
        yield pytest.param(
            command,
            ["daynight", "--attack", "3", "--defense", "1", "--time", "noon"],
            "--time",
            "noon",
            "day or night",
            id=f"{command}-daynight-unknown-time",
        )
        yield pytest.param(
            command,
            ["ocs", "--attack", "3", "--defense", "1", "--attacker-ar", "x"],
            "--attacker-ar",
            "x",
            "whole number",
            id=f"{command}-ocs-bad-ar",
        )
        yield pytest.param(
            command,
            ["ocs", "--attack", "3", "--defense", "1", "--surprise-roll", "13"],
            "--surprise-roll",
            "13",
            "2 to 12",
            id=f"{command}-ocs-surprise-off-the-table",
        )
        for surprise in ("7", "12"):  # nobody gains surprise, the attacker does
            yield pytest.param(
                command,
                ["ocs", *("--attack", "3", "--defense", "1", "--surprise-roll", surprise)]
                + ["--shift-roll", "9"],
                "--shift-roll",
                "9",
                "1 to 6",
                id=f"{command}-ocs-shift-roll-off-the-die-surprise-{surprise}",
            )
        yield pytest.param(
            command,
            ["pod-super", "--attack", "3", "--defense", "1", "--attacker-card", "deuce"],
            "--attacker-card",
            "deuce",
            "ace",
            id=f"{command}-pod-super-unknown-card",
        )
        yield pytest.param(
            command,
            ["pod-basic", "--attack", "3", "--defense", "1", "--buddy", "both"],
            "--buddy",
            "both",
            "attacker or defender",
            id=f"{command}-pod-basic-buddy-side",
        )
        yield pytest.param(
            command,
            ["rivets", "--attack", "3", "--defense", "1", "--drm", "1"],
            "--drm",
            "1",
            "daynight",
            id=f"{command}-rivets-unread-flag",
        )


@pytest.mark.parametrize(("command", "argv", "flag", "value", "allowed"), list(bad_cases()))
def test_bad_input_is_one_line_and_exit_2(capsys, command, argv, flag, value, allowed):
    status, out, err = run(capsys, command, *argv)
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert "Traceback" not in err
    assert line.startswith(f"crtdesk: {flag}: ")
    assert repr(value) in line or f" {value} " in line
    assert "expected" in line and allowed in line


def test_roll_and_seed_together_are_refused(capsys):
    status, out, err = run(
        capsys, "resolve", "rivets", "--attack", "3", "--defense", "1", "--roll", "2", "--seed", "4"
    )
    assert (status, out) == (2, "")
    assert len(err.splitlines()) == 1 and "--roll" in err and "--seed" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["resolve"],
        ["resolve", "rivets", "--bogus"],
        ["table"],
        ["table", "chess"],
        ["dance"],
        ["resolve", "rivets", "--attack"],
        ["odds", "ocs", "--attack", "4", "--defense", "1", "--seed", "3"],
    ],
)
def test_usage_errors_are_one_line(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert len(err.splitlines()) == 1, err
    assert err.startswith("crtdesk")


TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6
) | st.sampled_from(["0", "1", "-1", "6", "13", "1.5", "3@town", "x", "1-1", "open"])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    command=st.sampled_from(["resolve", "odds"]),
    ruleset=st.sampled_from([*RULESET_IDS, "pod"]),
    picks=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "--attack",
                    "--defense",
                    "--roll",
                    "--column",
                    "--terrain",
                    "--drm",
                    "--caf",
                    "--aaf",
                    "--step",
                    "--time",
                    "--attacker-ar",
                    "--surprise-roll",
                    "--attacker-card",
                    "--seed",
                ]
            ),
            TEXT,
        ),
        max_size=4,
    ),
)
# Python 3.11's argparse turned `--flag=--` into [] (a traceback, or a silent default).
@example(
    command="resolve",
    ruleset="pod-basic",
    picks=[("--attack", "5"), ("--defense", "2"), ("--roll", "--")],
)
@example(command="resolve", ruleset="pod-basic", picks=[("--attack", "--"), ("--defense", "2")])
@example(
    command="resolve",
    ruleset="pod-basic",
    picks=[("--attack", "5"), ("--defense", "2"), ("--seed", "--")],
)
@example(
    command="odds",
    ruleset="ocs",
    picks=[("--attack", "5"), ("--defense", "2"), ("--terrain", "--")],
)
@example(
    command="resolve",
    ruleset="ocs",
    picks=[("--attack", "5"), ("--defense", "2"), ("--terrain", "--")],
)
# A usage error echoing a value that holds a character str.splitlines() breaks at.
@example(command="odds", ruleset="pod-basic", picks=[("--seed", "\x1e")])
@example(command="resolve", ruleset="rivets", picks=[("--seed", "1\u2028")])
def test_any_flag_values_give_a_result_or_one_line(capsys, command, ruleset, picks):
    argv = [command, ruleset]
    for flag, text in picks:
        argv.append(f"{flag}={text}")
    status, out, err = run(capsys, *argv)
    if status == 0:
        assert err == "" and out
    else:
        assert status == 2
        assert out == ""
        assert len(err.splitlines()) == 1, err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["resolve", "pod-basic", "--attack", "5", "--defense", "2", "--roll=--"], "--roll"),
        (["resolve", "pod-basic", "--attack=--", "--defense", "2"], "--attack"),
        (["resolve", "pod-basic", "--attack", "5", "--defense", "2", "--seed=--"], "--seed"),
        (["resolve", "ocs", "--attack", "5", "--defense", "2", "--terrain=--"], "--terrain"),
        (["odds", "ocs", "--attack", "5", "--defense", "2", "--terrain=--"], "--terrain"),
    ],
)
def test_a_double_dash_value_is_named_and_refused(capsys, argv, flag):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.splitlines() == [err.rstrip("\n")]
    assert err.startswith(f"crtdesk: {flag}: '--' is not allowed; expected ")


# Every command, with arguments that succeed on their own; each value flag is added as
# `--flag=--` to it. Save commands work on a game "torch" holding marker 1.1.
BASE_ARGV = {
    "rulesets": ["rulesets"],
    "table": ["table", "ocs"],
    "resolve": [
        *("resolve", "ocs", "--attack", "5", "--defense", "2", "--terrain", "close"),
        *("--roll", "7", "--surprise-roll", "7", "--save", "torch"),
    ],
    "odds": [
        "odds",
        "ocs",
        "--attack",
        "5",
        "--defense",
        "2",
        "--terrain",
        "close",
        "--save",
        "torch",
    ],
    "new": ["new", "other", "--title", "Other", "--ruleset", "ocs"],
    "log": ["log", "torch"],
    "turn": ["turn", "torch"],
    "marker": ["marker", "torch", "add", "DG", "0101"],
    "marker add": ["marker", "torch", "add", "DG", "0101"],
    "marker remove": ["marker", "torch", "remove", "1.1"],
    "option": ["option", "torch", "mines_cdf", "3"],
    "repair": ["repair", "torch"],
    "note": ["note", "torch", "1", "x"],
    # Alone it would serve until stopped: each of its value flags is refused as `=--`.
    "serve": ["serve"],
    "luck": ["luck", "torch"],
    "report": ["report", "torch", "--markdown"],
    "games": ["games"],
    "units": ["units", "torch"],
    "units add": [
        *("units", "torch", "add", "90 Lt", "--side", "Axis"),
        *("--factor", "4", "--steps", "2", "--ar", "3"),
    ],
    "units edit": ["units", "torch", "edit", "21 Pz", "--hex", "0101"],
    "units remove": ["units", "torch", "remove", "21 Pz"],
    "units import": ["units", "torch", "import", "oob.csv"],
    "units take": ["units", "torch", "take", "21 Pz", "--steps", "1"],
}


def value_flags() -> list[tuple[str, str]]:
    """(command, flag) for every flag that takes a value, in every command."""
    found = []

    def walk(name: str, parser) -> None:
        for action in parser._actions:
            if action.option_strings and action.nargs != 0:
                found.append((name, action.option_strings[-1]))
            for sub_name, sub in (getattr(action, "choices", None) or {}).items():
                if isinstance(sub, type(parser)) or hasattr(sub, "_actions"):
                    walk(f"{name} {sub_name}".strip(), sub)

    walk("", build_parser())
    return found


def test_every_command_is_covered():
    assert {name for name, _ in value_flags()} == set(BASE_ARGV) - {"rulesets", "table"}
    assert ("log", "--turn") in value_flags() and ("resolve", "--seed") in value_flags()


@pytest.fixture
def torch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    assert main(["new", "torch", "--title", "Torch", "--ruleset", "ocs", "rivets"]) == 0
    assert main(["marker", "torch", "add", "DG", "0712"]) == 0
    unit = ["21 Pz", "--side", "Axis", "--factor", "6", "--steps", "3", "--ar", "4"]
    assert main(["units", "torch", "add", *unit]) == 0
    (tmp_path / "oob.csv").write_text("name,side,factor,steps,ar\n7 Armd,Allied,5,2,3\n")
    return tmp_path / "saves" / "torch.toml"


@pytest.mark.parametrize(("command", "flag"), value_flags())
def test_every_flag_takes_a_double_dash_value_as_typed(torch, capsys, command, flag):
    capsys.readouterr()
    before = torch.read_text(encoding="utf-8")
    argv = [*BASE_ARGV[command], f"{flag}=--"]
    status = main(argv)
    out, err = capsys.readouterr()
    if status == 0:
        # Taken as the text "--": it shows, or it is kept in the save, or (a filter on a
        # command that writes nothing) it changes what is printed.
        kept = torch.read_text(encoding="utf-8")[len(before) :]
        if "--" not in out.replace(f"{torch.parent.name}/", "") and '"--"' not in kept:
            assert kept == "" and main(BASE_ARGV[command]) == 0
            assert capsys.readouterr().out != out
    else:
        assert (status, out) == (2, "")
        assert len(err.splitlines()) == 1, err
        # Refused naming the value, or the flag it conflicts with.
        assert "'--'" in err or "--/" in err or flag in err, err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["log", "torch", "--ruleset", "chess"],
            "crtdesk: --ruleset: 'chess' is not allowed; expected one of ",
        ),
        (
            ["new", "g", "--title", "G", "--ruleset", "ocs", "chess"],
            "crtdesk: --ruleset: 'chess' is not allowed; expected one of ",
        ),
    ],
)
def test_an_unknown_ruleset_flag_is_named_as_typed(torch, capsys, argv, line):
    capsys.readouterr()
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.startswith(line) and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv", [["turn", "torch", "--saves=\x00"], ["log", "a/\x00"], ["open", "--saves", "\x00"]]
)
def test_a_nul_in_an_argument_is_one_line(torch, capsys, argv):
    capsys.readouterr()
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "NUL" in err


def test_log_turn_double_dash_is_refused(torch, capsys):
    capsys.readouterr()
    status, out, err = run(capsys, "log", "torch", "--turn=--")
    assert (status, out) == (2, "")
    assert err == "crtdesk: --turn: '--' is not allowed; expected a whole number >= 1\n"


# ---------------------------------------------------------------- the real console script


def crtdesk_command() -> list[str]:
    script = Path(sys.executable).with_name("crtdesk")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tui.cli"]


def test_console_script_resolves():
    done = subprocess.run(
        [
            *crtdesk_command(),
            "resolve",
            "pod-basic",
            "--attack",
            "8",
            "--defense",
            "2",
            "--roll",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cell"] == ["DL2", "DR1"]


@pytest.mark.parametrize(
    "argv",
    [
        ["resolve", "pod-super", "--attack", "1.5", "--defense", "2"],
        ["odds", "chess", "--attack", "1", "--defense", "1"],
    ],
)
def test_console_script_bad_input(argv):
    for command in (crtdesk_command(), [sys.executable, "-m", "tui.cli"]):
        done = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith("crtdesk: ")


# The JSON contract: "odds" names AD, AV or an overrun where one replaces the table, and
# the rounded odds stay in "ratio" for every result whose totals are known.
@pytest.mark.parametrize(
    ("argv", "odds", "ratio", "column"),
    [
        (["pod-super", "--attack", "14", "--defense", "2"], "AV", "7-1", None),
        (["pod-basic", "--attack", "12", "--defense", "2"], "AV", "6-1", None),
        (["pod-super", "--attack", "1", "--defense", "5"], "AD", "1-5", None),
        (["pod-basic", "--attack", "1", "--defense", "4"], "AD", "1-4", None),
        (["pod-super", "--attack", "3", "--defense", "0@clear"], "AV", None, None),
        (["rivets", "--attack", "13", "--defense", "2"], "overrun", "6-1", "6-1"),
        (["pod-super", "--attack", "6", "--defense", "2", "--roll", "8"], "3-1", "3-1", "3-1"),
        (
            ["pod-ultra", "--attack", "13", "--obstacle", "mines", "--roll", "8"],
            "6-1",
            "6-1",
            "5-1",
        ),
        (["rivets", "--attack", "7", "--defense", "4", "--roll", "5"], "1-1", "1-1", "1-1"),
        (
            ["ocs", "--attack", "9", "--defense", "3", "--surprise-roll", "7", "--roll", "7"],
            "3:1",
            "3:1",
            "3:1",
        ),
        (["daynight", "--attack", "9", "--defense", "3", "--roll", "3"], "3-1", "3-1", "3-1"),
        (["pod-super", "--column", "2-1", "--roll", "8"], "2-1", None, "2-1"),
    ],
)
def test_resolve_json_odds_and_ratio(capsys, argv, odds, ratio, column):
    status, out, err = run(capsys, "resolve", *argv, "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert (data["odds"], data["ratio"], data["column"]) == (odds, ratio, column)


def test_resolve_text_shows_the_ratio_beside_av(capsys):
    status, out, _ = run(capsys, "resolve", "pod-super", "--attack", "14", "--defense", "2")
    assert (
        status == 0
        and out.splitlines()[0] == "pod-super  attack 14 vs defence 2  odds AV  ratio 7-1"
    )


def test_odds_json_names_the_automatic_result(capsys):
    _, out, _ = run(capsys, "odds", "pod-super", "--attack", "1", "--defense", "5", "--json")
    data = json.loads(out)
    assert (data["odds"], data["ratio"]) == ("AD", "1-5")


@pytest.mark.parametrize("roll", ["1", "4"])
def test_press_on_on_a_hand_roll_that_is_not_btl_is_refused(capsys, roll):
    # 5 vs 2 by day in Clear is 2-1: row 1 reads D1, row 4 D1+ (no BTL).
    argv = ["daynight", "--attack", "5", "--defense", "2", "--press-on", "--roll", roll]
    for command in ("resolve", "odds"):
        status, out, err = run(capsys, command, *argv)
        assert (status, out) == (2, "")
        assert len(err.splitlines()) == 1
        assert err.startswith("crtdesk: --press-on: ") and "only applies to BTL" in err
        assert f"(row {roll})" in err
    # Row 6 there is BTL: pressing on applies.
    status, out, err = run(capsys, "resolve", *argv[:-1], "6", "--json")
    assert (status, err) == (0, "")
    assert json.loads(out)["effects"]["attacker"]["steps_lost"] >= 1


@pytest.mark.parametrize("command", ["resolve", "odds"])
def test_a_morale_change_that_takes_the_attack_to_zero_names_morale_attack(capsys, command):
    argv = ["pod-super", "--attack", "5", "--morale-attack", "-10", "--defense", "2"]
    status, out, err = run(capsys, command, *argv)
    assert (status, out) == (2, "")
    assert err == (
        "crtdesk: --morale-attack: -10 is not allowed; expected at least -4: the attack "
        "totals 5 before morale, and 0 factors is not an attack\n"
    )


def test_odds_for_a_boom_chain_names_every_column(capsys):
    status, out, _ = run(capsys, "odds", "pod-boom", "--attack", "6", "--attack", "4")
    head = out.splitlines()[0]
    assert status == 0 and "column " not in head
    # Accuracy: all hit (CAF 10), half miss (the 4 listed last drifts: CAF 6), all miss.
    assert head.endswith("columns 6, 10, none (the dice decide)")


def test_a_double_dash_value_after_the_separator_is_text(torch, capsys):
    """After a bare "--" every argument is positional, typed as it is."""
    capsys.readouterr()
    assert main(["note", "torch", "1", "--", "--turn=--"]) == 0
    assert '"--turn=--"' in torch.read_text(encoding="utf-8")


def test_the_parser_is_made_once_and_each_call_parses_alone(tmp_path: Path, capsys) -> None:
    """`main` called again and again (a script, a test) reuses one parser; what one call
    typed (an appended option, a flag) never shows in the next call's values."""
    assert build_parser() is build_parser()
    first = ["new", "a", "--title", "A", "--ruleset", "pod-ultra", "--option", "mines_cdf=3"]
    assert main([*first, "--saves", str(tmp_path)]) == 0
    assert (
        main(["new", "b", "--title", "B", "--ruleset", "pod-ultra", "--saves", str(tmp_path)]) == 0
    )
    assert saves.load_game(tmp_path / "a.toml").options == {"mines_cdf": 3}
    capsys.readouterr()
    assert saves.load_game(tmp_path / "b.toml").options == {"mines_cdf": 2}  # the default
    code, once, _ = run(
        capsys, "resolve", "rivets", "--attack", "4", "--defense", "2", "--roll", "3", "--json"
    )
    assert code == 0 and json.loads(once)["dice"][0]["source"] == "manual"
    code, again, _ = run(
        capsys, "resolve", "rivets", "--attack", "4", "--defense", "2", "--json", "--seed", "1"
    )
    (dice,) = json.loads(again)["dice"]
    assert code == 0 and (dice["source"], dice["seed"]) == ("seed", 1)
