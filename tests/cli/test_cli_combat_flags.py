"""The combat inputs the desk sets, from the CLI too: --bcpc (Rivets: the enemy BCPC is
never overrun), --hold/--no-hold (Day/Night: the step-loss-and-hold option) and
--attacker-retreats (Day/Night: A1/A1X/A2X taken as a disorganized retreat). Each is
refused in a ruleset that does not read it, and `--json` carries it in the inputs."""

from __future__ import annotations

import json

import pytest

from tui.cli import main
from tui.engine.registry import BUILT_IN_IDS as RULESET_IDS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    status, out, err = run(capsys, *argv, "--json")
    assert (status, err) == (0, ""), err
    return json.loads(out)


# 12 vs 2 is 6-1: an overrun in Rivets, unless the defenders are the enemy BCPC.
RIVETS_SIX_TO_ONE = ["rivets", "--attack", "12", "--defense", "2"]
# By day in Clear: 4 vs 1 is 4-1, row 4 reads D1; 1 vs 4 is 1-4, row 3 A1, row 4 A1X.
DAYNIGHT_D1 = ["daynight", "--attack", "4", "--defense", "1", "--terrain", "clear", "--roll", "4"]
DAYNIGHT_AGAINST_4 = ["daynight", "--attack", "1", "--defense", "4", "--terrain", "clear"]


def test_bcpc_rolls_six_to_one_instead_of_an_overrun(capsys: pytest.CaptureFixture[str]) -> None:
    plain = as_json(capsys, "resolve", *RIVETS_SIX_TO_ONE, "--roll", "4")
    assert (plain["odds"], plain["roll"]) == ("overrun", None)
    assert "bcpc" not in plain["inputs"]
    held = as_json(capsys, "resolve", *RIVETS_SIX_TO_ONE, "--roll", "4", "--bcpc")
    assert (held["odds"], held["column"], held["roll"]) == ("6-1", "6-1", "4")
    assert held["inputs"]["bcpc"] is True
    assert any("BCPC cannot be overrun" in line for line in held["trace"])
    chances = as_json(capsys, "odds", *RIVETS_SIX_TO_ONE, "--bcpc")
    assert (chances["odds"], chances["column"]) == ("6-1", "6-1")
    assert chances["inputs"]["bcpc"] is True
    assert as_json(capsys, "odds", *RIVETS_SIX_TO_ONE)["odds"] == "overrun"


def test_hold_and_no_hold_read_d1(capsys: pytest.CaptureFixture[str]) -> None:
    no_hold = as_json(capsys, "resolve", *DAYNIGHT_D1, "--no-hold")
    assert no_hold["cell"] == "D1" and no_hold["effects"]["defender"] == {"retreat": 1}
    assert no_hold["inputs"]["hold"] is False
    hold = as_json(capsys, "resolve", *DAYNIGHT_D1, "--hold")
    assert hold["effects"]["defender"] == {"retreat_or_steps": 1}
    assert hold["inputs"]["hold"] is True
    unsaid = as_json(capsys, "resolve", *DAYNIGHT_D1)
    assert unsaid["effects"]["defender"] == {"retreat_or_steps": 1}
    assert "hold" not in unsaid["inputs"]
    status, out, _ = run(capsys, "resolve", *DAYNIGHT_D1, "--no-hold")
    assert status == 0 and "Defender must retreat 1 hex" in out
    assert as_json(capsys, "odds", *DAYNIGHT_D1, "--no-hold")["inputs"]["hold"] is False


@pytest.mark.parametrize(("row", "cell"), [("3", "A1"), ("4", "A1X")])
def test_attacker_retreats_marks_the_attacker_disorganized(
    capsys: pytest.CaptureFixture[str], row: str, cell: str
) -> None:
    data = as_json(capsys, "resolve", *DAYNIGHT_AGAINST_4, "--roll", row, "--attacker-retreats")
    assert data["cell"] == cell and data["inputs"]["attacker_retreats"] is True
    assert {"kind": "disorganized", "side": "attacker"} in data["effects"]["markers"]
    steps = as_json(capsys, "resolve", *DAYNIGHT_AGAINST_4, "--roll", row)
    assert {"kind": "disorganized", "side": "attacker"} not in steps["effects"]["markers"]


def test_attacker_retreats_on_a_hand_roll_with_no_attacker_result_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "resolve", *DAYNIGHT_D1, "--attacker-retreats")
    assert (status, out) == (2, "")
    assert err.splitlines() == [err.rstrip("\n")]
    assert err.startswith("crtdesk: --attacker-retreats: ")
    assert "only on A1, A1X, A2X" in err and "ended on D1 (row 4)" in err


def test_attacker_retreats_with_the_desks_dice_is_an_order_kept_in_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 1-1 by day in Clear: rows 1..6 read D1, FF, D1+, ENG, BTL, A1.
    argv = ["daynight", "--attack", "2", "--defense", "2", "--terrain", "clear"]
    cells = set()
    for seed in range(30):
        data = as_json(capsys, "resolve", *argv, "--attacker-retreats", "--seed", str(seed))
        cells.add(data["cell"])
        retreated = {"kind": "disorganized", "side": "attacker"} in data["effects"]["markers"]
        assert retreated == (data["cell"] in ("A1", "A1X", "A2X"))
    assert "A1" in cells and cells - {"A1", "A1X", "A2X"}
    chances = as_json(capsys, "odds", *argv, "--attacker-retreats")
    assert chances["inputs"]["attacker_retreats"] is True
    assert sum(o["probability"] for o in chances["outcomes"]) == pytest.approx(1)


def unread_cases():
    readers = {"--bcpc": "rivets", "--hold": "daynight", "--no-hold": "daynight"}
    readers["--attacker-retreats"] = "daynight"
    for flag, reader in readers.items():
        for ruleset in RULESET_IDS:
            if ruleset != reader:
                for command in ("resolve", "odds"):
                    yield pytest.param(
                        command, ruleset, flag, reader, id=f"{command}-{ruleset}{flag}"
                    )


@pytest.mark.parametrize(("command", "ruleset", "flag", "reader"), list(unread_cases()))
def test_a_flag_the_ruleset_does_not_read_is_refused(
    capsys: pytest.CaptureFixture[str], command: str, ruleset: str, flag: str, reader: str
) -> None:
    units = ["--attack", "3"] if ruleset == "pod-boom" else ["--attack", "3", "--defense", "1"]
    status, out, err = run(capsys, command, ruleset, *units, flag)
    assert (status, out) == (2, "")
    assert err.splitlines() == [err.rstrip("\n")]
    assert err.startswith(f"crtdesk: {flag}: given, but not allowed; expected nothing in {ruleset}")
    assert f"only {reader} read it" in err


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_odds_json_carries_the_inputs(capsys: pytest.CaptureFixture[str], ruleset: str) -> None:
    units = ["--attack", "3"] if ruleset == "pod-boom" else ["--attack", "3", "--defense", "1"]
    data = as_json(capsys, "odds", ruleset, *units)
    assert data["inputs"]["ruleset"] == ruleset
    assert data["inputs"]["attackers"] == [{"factor": 3}]
