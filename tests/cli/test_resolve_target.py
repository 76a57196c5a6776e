"""`resolve --save` with --target and --note: the result's markers go on the hex named."""

from __future__ import annotations

from pathlib import Path

from tui import cli, saves


def test_boom_no_entry_marker_lands_on_the_target_hex(tmp_path: Path, capsys) -> None:
    folder = str(tmp_path / "saves")
    argv = ["new", "g", "--title", "G", "--ruleset", "pod-boom", "--saves", folder, "--create"]
    assert cli.main(argv) == 0
    args = ["resolve", "pod-boom", "--step", "crt", "--caf", "9", "--roll", "3"]
    assert (
        cli.main(
            [*args, "--save", "g", "--saves", folder, "--target", "0712", "--note", 'the "bridge"']
        )
        == 0
    )
    game = saves.load_game(tmp_path / "saves" / "g.toml")
    # CAF 9 reads the 8 column; roll 3 there interdicts for 4 turns (seed 000).
    assert [(m.kind, m.target, m.turns_left) for m in game.markers] == [("no-entry", "0712", 4)]
    assert game.entries[-1]["note"] == 'the "bridge"'


def test_target_without_a_save_is_refused_in_one_line(capsys) -> None:
    code = cli.main(
        ["resolve", "pod-boom", "--step", "crt", "--caf", "9", "--roll", "3", "--target", "0712"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--target" in err[0] and "--save" in err[0]
