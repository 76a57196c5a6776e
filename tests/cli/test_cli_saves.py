"""The save commands of the CLI: new, resolve --save, log (table, --json, filters, --markers),
turn, marker, option; broken saves and bad names exit 2 with one line."""

from __future__ import annotations

import getpass
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.game.player import PLAYER_ENV, player_name


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    monkeypatch.delenv(PLAYER_ENV, raising=False)
    return tmp_path / "saves"


# A Big Boom strike logged in the "torch" save: CAF 9 reads the 8 column; roll 2 there is
# loss 4, interdiction 2 (seed 000), so it places a No-entry marker.
BOOM_CRT_SAVED = (
    "resolve",
    "pod-boom",
    "--step",
    "crt",
    "--caf",
    "9",
    "--roll",
    "2",
    "--save",
    "torch",
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def new(capsys: pytest.CaptureFixture[str], name: str = "torch", *rulesets: str) -> None:
    code, out, err = run(
        capsys, "new", name, "--title", "Torch", "--ruleset", *(rulesets or ("pod-boom", "ocs"))
    )
    assert code == 0, err


def test_new_then_resolve_save_then_log(folder: Path, capsys) -> None:
    code, out, _ = run(
        capsys,
        "new",
        "torch",
        "--title",
        "Operation Torch",
        "--ruleset",
        "pod-boom",
        "--ruleset",
        "ocs",
    )
    assert code == 0 and "saves/torch.toml" in out
    code, out, _ = run(capsys, *BOOM_CRT_SAVED)
    assert code == 0
    assert (
        out.splitlines()[-1]
        == "Saved as entry 1 in saves/torch.toml; placed no-entry 1.1 on (unspecified) (both, 2 turns)"
    )
    code, out, _ = run(capsys, "log", "torch")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Operation Torch (saves/torch.toml)"
    # Big Boom and OCS: the Ultra mines CDF is no option of this game's.
    assert "turn 1" in lines[1] and lines[1].endswith("options: none")
    assert "mines_cdf" not in out
    assert lines[2].split()[:5] == ["#", "turn", "when", "(UTC)", "who"]
    row = lines[-1]
    assert row.split()[:2] == ["1", "1"] and len(lines) == 4
    assert "pod-boom" in row and "1d6 2 (by hand)" in row and "Defender loses 4 factors" in row


def test_log_reads_what_resolve_save_wrote_in_a_separate_process(tmp_path: Path) -> None:
    def crtdesk(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tui.cli", *argv, "--saves", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert crtdesk("new", "g", "--title", "G", "--ruleset", "ocs").returncode == 0
    args = ["--attack", "12", "--defense", "3", "--terrain", "close", "--seed", "4"]
    resolved = crtdesk("resolve", "ocs", *args, "--save", "g")
    assert resolved.returncode == 0, resolved.stderr
    assert f"Saved as entry 1 in {tmp_path}/g.toml" in resolved.stdout
    shown = crtdesk("log", "g", "--json")
    assert shown.returncode == 0, shown.stderr
    entry = json.loads(shown.stdout)["entries"][-1]
    again = subprocess.run(
        [sys.executable, "-m", "tui.cli", "resolve", "ocs", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    outcome = json.loads(again.stdout)
    for key in (
        "odds",
        "column",
        "roll",
        "cell",
        "effects",
        "explanation",
        "trace",
        "dice",
        "inputs",
    ):
        assert entry[key] == outcome[key], key


def test_log_json_has_every_field_and_the_filters_filter(folder: Path, capsys, monkeypatch) -> None:
    new(capsys)
    run(capsys, *BOOM_CRT_SAVED)
    run(capsys, "turn", "torch")
    ocs = [
        "--attack",
        "12",
        "--defense",
        "3",
        "--terrain",
        "close",
        "--roll",
        "9",
        "--surprise-roll",
        "7",
    ]
    monkeypatch.setenv("CRTDESK_PLAYER", "bob")
    run(capsys, "resolve", "ocs", *ocs, "--save", "torch")
    code, out, _ = run(capsys, "log", "torch", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["title"], data["turn"], data["rulesets"]) == ("Torch", 2, ["pod-boom", "ocs"])
    assert [e["kind"] for e in data["entries"]] == ["combat", "turn", "combat"]
    combat = data["entries"][2]
    for key in (
        "seq",
        "turn",
        "when",
        "who",
        "ruleset",
        "inputs",
        "dice",
        "odds",
        "column",
        "roll",
        "cell",
        "effects",
        "explanation",
        "trace",
    ):
        assert key in combat, key
    assert combat["dice"][0]["source"] == "manual"

    def seqs(*flags: str) -> list[int]:
        code, out, err = run(capsys, "log", "torch", "--json", *flags)
        assert code == 0, err
        return [e["seq"] for e in json.loads(out)["entries"]]

    assert seqs("--turn", "2") == [2, 3]
    assert seqs("--ruleset", "ocs") == [3]
    assert seqs("--player", "bob") == [3]
    assert seqs("--turn", "1", "--ruleset", "pod-boom") == [1]
    assert seqs("--turn", "7") == []
    code, out, _ = run(capsys, "log", "torch", "--player", "nobody")
    assert code == 0 and "(no entries match)" in out


def test_turn_and_markers(folder: Path, capsys) -> None:
    new(capsys)
    run(capsys, *BOOM_CRT_SAVED)
    code, out, err = run(
        capsys,
        "marker",
        "torch",
        "add",
        "DG",
        "0712",
        "--side",
        "Axis",
        "--turns",
        "1",
        "--note",
        'hit "hard"',
    )
    assert code == 0, err
    assert out.strip() == (
        'Placed DG 2.1 on 0712 (Axis, 1 turn): hit "hard" as entry 2 in saves/torch.toml'
    )
    code, out, _ = run(capsys, "log", "torch", "--markers")
    lines = out.splitlines()
    assert lines[1].split() == [
        "id",
        "kind",
        "target",
        "side",
        "turns",
        "left",
        "placed",
        "by",
        "note",
    ]
    assert lines[2].split()[:5] == ["1.1", "no-entry", "(unspecified)", "both", "2"]
    assert lines[3].split() == ["2.1", "DG", "0712", "Axis", "1", "entry", "2", "hit", '"hard"']
    code, out, _ = run(capsys, "turn", "torch")
    assert code == 0 and out.startswith("Turn 2 begins (entry 3")
    assert "Counted down: no-entry 1.1 on (unspecified) (both, 1 turn left); " in out
    assert 'DG 2.1 on 0712 (Axis, through this turn): hit "hard".' in out
    code, out, _ = run(capsys, "log", "torch", "--markers", "--json")
    assert [(m["id"], m["turns_left"]) for m in json.loads(out)] == [("1.1", 1), ("2.1", 0)]
    # A 1-turn marker placed in turn 1 holds through turn 2 and is lifted when turn 3 begins.
    code, out, _ = run(capsys, "turn", "torch")
    assert code == 0 and 'Expired and removed: DG 2.1 on 0712 (Axis): hit "hard".' in out
    code, out, _ = run(capsys, "marker", "torch", "remove", "1.1", "--saves", "saves")
    assert code == 0 and out.startswith("Removed marker 1.1 (no-entry on (unspecified)) as entry 5")
    code, out, _ = run(capsys, "log", "torch", "--markers")
    assert "(no markers)" in out


def test_option_is_logged(folder: Path, capsys) -> None:
    new(capsys, "u", "pod-ultra")
    code, out, _ = run(capsys, "option", "u", "mines_cdf", "3")
    assert code == 0 and "entry 1" in out
    code, out, _ = run(capsys, "log", "u", "--json")
    assert json.loads(out)["options"]["mines_cdf"] == 3
    code, _, err = run(capsys, "option", "u", "mines_cdf", "7")
    assert code == 2 and "mines_cdf must be one of 2, 3" in err


def test_saves_folder_from_flag_and_environment(tmp_path: Path, capsys, monkeypatch) -> None:
    """A folder named by CRTDESK_SAVES or --saves that does not exist is refused with its
    path, in one line, unless --create; a folder made is said, with where (a mistyped name
    made a new folder and a game in it without a word)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(saves.SAVES_ENV, str(tmp_path / "env"))
    b = ["new", "b", "--title", "B", "--ruleset", "ocs"]
    code, out, err = run(capsys, *b)
    assert (code, out) == (2, "") and err.count("\n") == 1 and not (tmp_path / "env").exists()
    assert err == (
        f"crtdesk: saves folder {tmp_path / 'env'} (CRTDESK_SAVES) does not exist: "
        f"{tmp_path / 'env'}; check the name, or add --create to make it\n"
    )
    code, _, err = run(capsys, *b, "--create")
    assert code == 0 and (tmp_path / "env" / "b.toml").is_file()
    assert err == f"crtdesk: made the saves folder {tmp_path / 'env'}\n"
    code, _, err = run(capsys, *b, "--saves", "flg")
    assert code == 2 and "saves folder flg (--saves) does not exist: " in err
    assert err.endswith(f"{tmp_path / 'flg'}; check the name, or add --create to make it\n")
    code, _, err = run(capsys, *b, "--saves", str(tmp_path / "flag"), "--create")
    assert code == 0 and (tmp_path / "flag" / "b.toml").is_file() and "made the" in err
    # No folder named: ./saves is made, and said (not started silently in another folder).
    monkeypatch.delenv(saves.SAVES_ENV)
    code, _, err = run(capsys, *b)
    assert code == 0 and err == f"crtdesk: made the saves folder {tmp_path / 'saves'}\n"
    code, _, err = run(capsys, "new", "c", "--title", "C", "--ruleset", "ocs")
    assert code == 0 and err == ""  # said once, when made
    code, out, _ = run(capsys, "log", "b", "--saves", str(tmp_path / "flag"))
    assert code == 0 and out.startswith("B (")


@pytest.mark.parametrize(
    "argv",
    [
        ["log", "../torch"],
        ["log", "/etc/passwd"],
        ["new", "a/b", "--title", "T", "--ruleset", "ocs"],
        ["resolve", "ocs", "--attack", "6", "--defense", "2", "--roll", "7", "--save", ".."],
        ["turn", "missing"],
        ["log", "torch", "--turn", "x"],
        ["new", "t2", "--title", "T", "--ruleset", "chess"],
        ["new", "torch", "--title", "Again", "--ruleset", "ocs"],
        ["marker", "torch", "add", "smoke", "0101"],
        ["marker", "torch", "add", "DG", "0101", "--turns", "0"],
        ["resolve", "rivets", "--attack", "6", "--defense", "2", "--roll", "3", "--save", "torch"],
    ],
)
def test_bad_names_and_values_exit_2_in_one_line(folder: Path, capsys, argv: list[str]) -> None:
    new(capsys)
    before = sorted(p.name for p in folder.iterdir())
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("crtdesk: ") and err.count("\n") == 1, err
    assert sorted(p.name for p in folder.iterdir()) == before


BROKEN = [
    ('title = "Torch"', 'title = "Torch', r"line 5, column \d+: not valid TOML"),
    (
        '"ruleset" = "pod-boom"',
        '"ruleset" = "pod-mega"',
        r"line \d+: entry 1: unknown ruleset 'pod-mega'",
    ),
    ("format = 1", "format = 3", r"line 4: format 3 was written by a newer crtdesk"),
    ('"seq" = 1\n', '"seq" = "one"\n', r"line \d+: .*'seq' must be a whole number"),
]


@pytest.mark.parametrize(("old", "new_text", "message"), BROKEN)
@pytest.mark.parametrize(
    "command", [["log", "torch"], ["log", "torch", "--markers"], ["turn", "torch"]]
)
def test_a_broken_save_exits_2_with_one_line_and_is_left_alone(
    folder: Path, capsys, old: str, new_text: str, message: str, command: list[str]
) -> None:
    new(capsys)
    run(capsys, *BOOM_CRT_SAVED)
    path = folder / "torch.toml"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new_text, 1), encoding="utf-8")
    before = path.read_bytes()
    code, out, err = run(capsys, *command)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("crtdesk: saves/torch.toml: ")
    assert re.search(message, err), err
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["torch.toml", "torch.toml.lock"]


def test_a_torn_save_is_read_with_a_warning_and_left_as_it_is(folder: Path, capsys) -> None:
    new(capsys)
    with (folder / "torch.toml").open("ab") as handle:
        handle.write(b'\n[[log]]\n"seq" = 1\n"kind" = "com')
    torn = (folder / "torch.toml").read_bytes()
    code, out, err = run(capsys, "log", "torch")
    assert code == 0 and "(the log is empty)" in out
    assert "torn" in err and "torch.toml.bak-" in err
    assert list(folder.glob("torch.toml.bak-*")) == []
    assert (folder / "torch.toml").read_bytes() == torn


def test_free_text_in_the_log_table_stays_on_one_line(folder: Path, capsys) -> None:
    code, _, _ = run(capsys, "new", "t", "--title", 'A\nB [[log]] "q"', "--ruleset", "ocs")
    assert code == 0
    run(capsys, "marker", "t", "add", "low", "1st\nPanzer", "--note", "x]]\\y")
    code, out, _ = run(capsys, "log", "t")
    assert code == 0
    assert out.splitlines()[0] == 'A\\nB [[log]] "q" (saves/t.toml)'
    assert out.splitlines()[-1].endswith("Placed low 1.1 on 1st\\nPanzer: x]]\\y.")
    code, out, _ = run(capsys, "log", "t", "--json")
    assert json.loads(out)["title"] == 'A\nB [[log]] "q"'


MINES = ("resolve", "pod-ultra", "--attack", "9", "--obstacle", "mines", "--roll", "7")


def test_resolve_save_uses_the_games_mines_cdf(folder: Path, capsys) -> None:
    # RULINGS: every combat against mines in a game uses the game's mines CDF. 9 against
    # CDF 3 is 3-1; against the default 2 it would be 4-1.
    code, _, err = run(
        capsys, "new", "u", "--title", "U", "--ruleset", "pod-ultra", "--option", "mines_cdf=3"
    )
    assert code == 0, err
    code, out, err = run(capsys, *MINES, "--save", "u", "--json")
    assert code == 0, err
    assert json.loads(out)["column"] == "3-1"
    code, out, _ = run(capsys, *MINES, "--json")  # not saved: the default CDF 2
    assert json.loads(out)["column"] == "4-1"
    code, out, _ = run(capsys, "log", "u", "--json")
    (entry,) = json.loads(out)["entries"]
    assert entry["inputs"]["mines_cdf"] == 3 and entry["column"] == "3-1"
    # After `option u mines_cdf 2`, the next saved combat reads CDF 2.
    run(capsys, "option", "u", "mines_cdf", "2")
    code, out, _ = run(capsys, *MINES, "--save", "u", "--json")
    assert code == 0 and json.loads(out)["column"] == "4-1"


def test_resolve_save_refuses_a_mines_cdf_the_game_does_not_use(folder: Path, capsys) -> None:
    run(capsys, "new", "u", "--title", "U", "--ruleset", "pod-ultra", "--option", "mines_cdf=3")
    before = (folder / "u.toml").read_bytes()
    code, out, err = run(capsys, *MINES, "--mines-cdf", "2", "--save", "u")
    assert code == 2 and out == ""
    assert err.startswith("crtdesk: --mines-cdf: 2 is not allowed") and "3, the mines CDF" in err
    assert len(err.strip().splitlines()) == 1
    assert (folder / "u.toml").read_bytes() == before
    # The value the game uses is accepted.
    code, out, err = run(capsys, *MINES, "--mines-cdf", "3", "--save", "u", "--json")
    assert code == 0 and json.loads(out)["column"] == "3-1", err


# --- a save named by a path on the command line --------------------------------------------


def test_every_save_command_takes_a_path_to_an_existing_save(folder: Path, capsys) -> None:
    new(capsys)
    elsewhere = folder.parent / "elsewhere"
    code, _, err = run(
        capsys,
        "new",
        "far",
        "--title",
        "Far",
        "--ruleset",
        "ocs",
        "--saves",
        str(elsewhere),
        "--create",
    )
    assert code == 0, err
    boom = [a if a != "torch" else "saves/torch.toml" for a in BOOM_CRT_SAVED]
    steps = [
        boom,
        ["marker", "saves/torch", "add", "DG", "0712"],
        ["marker", "./saves/torch.toml", "remove", "2.1"],
        ["option", str(folder / "torch.toml"), "mines_cdf", "3"],
        ["turn", "saves/torch.toml"],
        ["log", "saves/torch.toml", "--markers"],
        ["turn", str(elsewhere / "far.toml")],
    ]
    for argv in steps:
        code, out, err = run(capsys, *argv)
        assert (code, err) == (0, ""), argv
    code, out, _ = run(capsys, "log", "saves/torch.toml", "--json")
    kinds = [e["kind"] for e in json.loads(out)["entries"]]
    assert kinds == ["combat", "place-marker", "remove-marker", "option", "turn"]
    code, out, _ = run(capsys, "log", "elsewhere/far")
    assert code == 0 and "Turn 2 begins." in out
    assert sorted(p.name for p in folder.parent.iterdir()) == ["elsewhere", "saves"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["log", "saves/nothing.toml"], "no save file saves/nothing.toml; a path must name"),
        (["turn", "../torch"], "no save file ../torch; a path must name"),
        (["log", "notes.txt"], None),  # a name: looked up in the saves folder
        (["log", "./notes.txt"], "./notes.txt is not a crtdesk save file"),
        (["turn", "./other.toml"], "./other.toml is not a crtdesk save file"),
        (["marker", "./other", "add", "DG", "0101"], "./other is not a crtdesk save file"),
        (
            [
                "resolve",
                "ocs",
                "--attack",
                "6",
                "--defense",
                "2",
                "--roll",
                "7",
                "--save",
                "./other",
            ],
            "./other is not a crtdesk save file",
        ),
        (
            ["new", "./fresh", "--title", "T", "--ruleset", "ocs"],
            "may not contain a path separator",
        ),
    ],
)
def test_a_path_names_only_an_existing_save_and_writes_nothing_else(
    folder: Path, capsys, argv: list[str], message: str | None
) -> None:
    new(capsys)
    # Not saves: a text file, and TOML with a [[log]] table the store would take as torn.
    (folder.parent / "notes.txt").write_text("hello\n", encoding="utf-8")
    (folder.parent / "other.toml").write_text("a = 1\n\n[[log]]\nb = 2\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in folder.parent.rglob("*") if p.is_file()}
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("crtdesk: ") and err.count("\n") == 1, err
    if message:
        assert message in err
    after = {p: p.read_bytes() for p in folder.parent.rglob("*") if p.is_file()}
    assert after == before  # no lock file beside it, no backup, nothing cut


# --- who: $CRTDESK_PLAYER, as the desk takes it --------------------------------------------


def test_every_save_command_logs_the_crtdesk_player(folder: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv(PLAYER_ENV, "carol")
    new(capsys)
    for argv in (
        BOOM_CRT_SAVED,
        ("marker", "torch", "add", "DG", "0712"),
        ("marker", "torch", "remove", "2.1"),
        ("option", "torch", "mines_cdf", "3"),
        ("turn", "torch"),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 0, err
    monkeypatch.setenv(PLAYER_ENV, "dave")
    run(capsys, "turn", "torch")
    _, out, _ = run(capsys, "log", "torch", "--json")
    who = [e["who"] for e in json.loads(out)["entries"]]
    assert who == ["carol"] * 5 + ["dave"]
    assert 'created_by = "carol"' in (folder / "torch.toml").read_text(encoding="utf-8")
    _, out, _ = run(capsys, "log", "torch", "--player", "dave", "--json")
    assert [e["seq"] for e in json.loads(out)["entries"]] == [6]


def test_without_crtdesk_player_the_os_user_is_logged(folder: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv(PLAYER_ENV, "  ")  # blank counts as unset
    new(capsys)
    run(capsys, *BOOM_CRT_SAVED)
    _, out, _ = run(capsys, "log", "torch", "--json")
    assert json.loads(out)["entries"][0]["who"] == getpass.getuser() == player_name()


def test_player_name_without_a_login_name(monkeypatch) -> None:
    def no_name() -> str:
        raise OSError("no login name")

    monkeypatch.delenv(PLAYER_ENV, raising=False)
    monkeypatch.setattr(getpass, "getuser", no_name)
    assert player_name() == f"uid {os.getuid()}"
    monkeypatch.setenv(PLAYER_ENV, "erin")
    assert player_name() == "erin"


def test_the_desk_still_imports_player_name_from_the_app() -> None:
    from tui.desk.app import player_name as desk_player_name

    assert desk_player_name is player_name


def test_the_desk_refuses_a_saves_folder_that_does_not_exist(tmp_path: Path) -> None:
    """`crtdesk --saves typo` says so in one line, before any screen, and makes nothing."""
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "--saves", str(tmp_path / "typo")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"crtdesk: saves folder {tmp_path / 'typo'} (--saves) does not")
    assert not (tmp_path / "typo").exists() and not (tmp_path / "saves").exists()
