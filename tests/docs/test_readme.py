"""The `crtdesk` shell examples of the README and of docs/ run as written, in the order a
reader meets them (the README, then each page of docs/ in its order), in one fresh
folder: each exits 0 with nothing on stderr, a combat rolls no die of the desk's unless it
gives a --seed, and every command that writes nothing prints the same twice."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.game.player import PLAYER_ENV

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# The pages in the order the README links them: later pages use the saves earlier ones make.
PAGES = ("desk", "cli", "luck", "save-format", "rulings", "performance", "adding-a-game")
DOCS = (README, *(ROOT / "docs" / f"{page}.md" for page in PAGES))
ENV_ASSIGNMENT = re.compile(r"[A-Z_]+=")


def doc_commands(doc: Path) -> list[tuple[dict[str, str], list[str]]]:
    """(environment, argv) of every `crtdesk ...` line in the page's sh blocks, in order."""
    blocks = re.findall(r"^```sh\n(.*?)^```", doc.read_text(encoding="utf-8"), re.M | re.S)
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            env = {}
            while words and ENV_ASSIGNMENT.match(words[0]):
                name, _, value = words.pop(0).partition("=")
                env[name] = value
            if words[:1] == ["crtdesk"] and len(words) > 1 and words[1] != "open":
                commands.append((env, words[1:]))
    return commands


COMMANDS = [command for doc in DOCS for command in doc_commands(doc)]


def test_the_examples_are_found() -> None:
    assert len(doc_commands(README)) >= 3
    argvs = [argv for _, argv in COMMANDS]
    assert len(argvs) >= 30
    assert ["new", "campaign", "--title", "Campaign", "--ruleset", "pod-boom"] in argvs
    assert any("--shift-roll" in argv and "ocs" in argv for argv in argvs)
    assert any(env == {PLAYER_ENV: "alice"} for env, _ in COMMANDS)


def test_the_examples_run_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    monkeypatch.delenv(PLAYER_ENV, raising=False)
    monkeypatch.delenv("CRTDESK_GAMES", raising=False)
    # docs/adding-a-game.md copies its example charts into the games folder first.
    shutil.copytree(ROOT / "docs" / "games", tmp_path / "games")
    for env, argv in COMMANDS:
        with monkeypatch.context() as patch:
            for name, value in env.items():
                patch.setenv(name, value)
            code = main(argv)
        out, err = capsys.readouterr()
        made = f"crtdesk: made the saves folder {tmp_path / 'saves'}\n"
        assert (code, err.replace(made, "")) == (0, ""), argv
        assert out, argv
        if argv[0] == "resolve" and "--seed" not in argv:
            # A README example with dice rolled by hand gives every die.
            assert "(desk)" not in out and '"source": "desk"' not in out, argv
        if argv[0] in ("rulesets", "table", "odds") or (
            argv[0] == "resolve" and "--save" not in argv
        ):
            assert main(argv) == 0
            assert capsys.readouterr().out == out, argv


def test_ci_runs_the_readme_test_command() -> None:
    """`.ci/run` ends with exactly the README's test command, type check included."""
    readme = README.read_text(encoding="utf-8")
    command = re.search(r"Run the tests:\n\n```sh\n(.*)\n```", readme)
    assert command, "the README gives its test command under 'Run the tests:'"
    assert command[1].endswith(" && .venv/bin/mypy")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()
    assert ci[-1] == command[1]
