"""What the CLI says to a mistyped name or a flag given where it is not read: one line on
stderr naming the flag, the value, what is allowed and, for a name, the nearest valid one;
exit status 2. The first tests run the real `crtdesk`; the rest call main() in-process for
each command and choice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tui.cli import main


def crtdesk(*argv: str, cwd: Path) -> tuple[int, str, str]:
    script = Path(sys.executable).with_name("crtdesk")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "tui.cli"]
    done = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=60, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


ALL_RULESETS = "pod-basic, pod-super, pod-ultra, pod-boom, ocs, rivets, daynight"


def test_a_mistyped_ruleset_is_answered_with_the_nearest(tmp_path: Path) -> None:
    for command in ("resolve", "odds"):
        status, out, err = crtdesk(
            command, "pod-supr", "--attack", "8", "--defense", "2", cwd=tmp_path
        )
        assert (status, out) == (2, "")
        assert err == (
            f"crtdesk: RULESET: 'pod-supr' is not allowed; expected one of {ALL_RULESETS}; "
            "did you mean pod-super?\n"
        )


def test_caf_for_the_whole_chain_says_which_step_reads_it(tmp_path: Path) -> None:
    status, out, err = crtdesk("resolve", "pod-boom", "--attack", "3", "--caf", "9", cwd=tmp_path)
    assert (status, out) == (2, "")
    assert err == (
        "crtdesk: --caf: 9 is not allowed for the whole chain (no --step); "
        "expected --caf only with --step crt\n"
    )


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["table", "pod-supr"],
            f"RULESET: 'pod-supr' is not allowed; expected one of {ALL_RULESETS}; "
            "did you mean pod-super?",
        ),
        (
            ["log", "game", "--ruleset", "rivet"],
            f"--ruleset: 'rivet' is not allowed; expected one of {ALL_RULESETS}; "
            "did you mean rivets?",
        ),
        (
            ["new", "game", "--title", "G", "--ruleset", "pod-ultr"],
            "--ruleset: 'pod-ultr' is not allowed; expected one of "
            f"{ALL_RULESETS}, or game:NAME (a chart in the games folder); "
            "did you mean pod-ultra?",
        ),
        (
            ["resolve", "pod-boom", "--step", "atrition", "--attack", "3"],
            "--step: 'atrition' is not allowed; expected one of attrition, accuracy, "
            "direction, crt; did you mean attrition?",
        ),
        (
            ["resolve", "pod-super", "--attack", "8@clera", "--defense", "2"],
            "--attack: 'clera' is not allowed; expected a terrain of beach, bridge, clear, "
            "medal, railroad, river, road, sea, swamp, town; did you mean clear?",
        ),
        (
            ["resolve", "pod-basic", "--attack", "8", "--defense", "2", "--buddy", "atacker"],
            "--buddy: 'atacker' is not allowed; expected attacker or defender; "
            "did you mean attacker?",
        ),
        (
            ["resolve", "pod-basic", "--attack", "8", "--defense", "2", "--column", "4-l"],
            "--column: '4-l' is not allowed; expected one of 1-3, 1-2, 1-1, 2-1, 3-1, 4-1, "
            "5-1; did you mean 4-1?",
        ),
        (
            ["resolve", "daynight", "--attack", "8", "--defense", "2", "--time", "nigth"],
            "--time: 'nigth' is not allowed; expected day or night; did you mean night?",
        ),
        (
            ["resolve", "pod-ultra", "--attack", "8", "--obstacle", "mine"],
            "--obstacle: 'mine' is not allowed; expected one of beach, glider, mines; "
            "did you mean mines?",
        ),
        (
            [
                "resolve",
                "pod-basic",
                "--attack",
                "8",
                "--defense",
                "2",
                "--attacker-card",
                "stanfil",
            ],
            "--attacker-card: 'stanfil' is not allowed; expected one of stanfill in "
            "pod-basic; did you mean stanfill?",
        ),
        (
            ["odds", "daynight", "--attack", "8", "--defense", "2", "--terrain", "wods"],
            "--terrain: 'wods' is not allowed; expected one of forest, woods, rough, clear; "
            "did you mean woods?",
        ),
        (
            ["resolve", "pod-boom", "--step", "attrition", "--aaf", "2", "--caf", "9"],
            "--caf: 9 is not allowed with --step attrition; expected --caf only with --step crt",
        ),
        (
            ["resolve", "pod-boom", "--step", "crt", "--caf", "9", "--aaf", "2"],
            "--aaf: 2 is not allowed with --step crt; expected --aaf only with --step "
            "attrition or with no --step (the whole chain)",
        ),
        (
            ["resolve", "pod-boom", "--step", "accuracy", "--attack", "3"],
            "--attack: 3 is not allowed with --step accuracy; expected --attack only with "
            "--step crt or with no --step (the whole chain)",
        ),
        (
            ["resolve", "pod-boom", "--step", "crt", "--caf", "9", "--chain-roll", "4"],
            "--chain-roll: 4 is not allowed with --step crt; expected --chain-roll only "
            "with no --step (the whole chain)",
        ),
    ],
)
def test_each_choice_names_the_nearest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], line: str
) -> None:
    saves = ["--saves", str(tmp_path)] if argv[0] in ("log", "new") else []
    status, out, err = run(capsys, *argv, *saves)
    assert (status, out) == (2, "")
    assert err == f"crtdesk: {line}\n"


def test_a_name_far_from_every_choice_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "odds", "chess", "--attack", "1", "--defense", "1")
    assert status == 2
    assert err == f"crtdesk: RULESET: 'chess' is not allowed; expected one of {ALL_RULESETS}\n"


def test_a_mistyped_marker_kind_or_option_is_answered_with_the_nearest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saves = ["--saves", str(tmp_path)]
    assert run(capsys, "new", "g", "--title", "G", "--ruleset", "pod-ultra", *saves)[0] == 0
    status, out, err = run(capsys, "marker", "g", "add", "disorganzed", "0712", *saves)
    assert (status, out) == (2, "")
    assert err.startswith("crtdesk: unknown marker kind 'disorganzed'; expected one of ")
    assert err.endswith("; did you mean disorganized?\n")
    status, out, err = run(capsys, "option", "g", "mines_cfd", "3", *saves)
    assert (status, out) == (2, "")
    assert err == (
        "crtdesk: unknown option 'mines_cfd'; known options: mines_cdf (2 or 3); "
        "did you mean mines_cdf?\n"
    )
