"""The CLI's start: the parser is built without the commands' modules (a command's module
is imported when it runs), `crtdesk resolve` loads none of the store, the other commands,
the TOML parser (with the tables' kept copy) or the desk, and every `--help` prints what
it printed when every command's module was imported to build the parser.

tests/cli/help_texts.txt holds each `--help` as printed before that change (Python 3.11's
argparse, 100 columns); a help text changed on purpose is changed there too."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tests.conftest import fresh_python
from tui.cli import build_parser, main
from tui.cli.commands import ALL, COMMANDS, NAMED, needed

HELP_TEXTS = Path(__file__).with_name("help_texts.txt")

# The modules that run the commands: none is imported to build a parser.
COMMAND_MODULES = (
    "tui.cli.combat",
    "tui.cli.fought",
    "tui.cli.games",
    "tui.cli.reports",
    "tui.cli.saves",
    "tui.cli.serve",
    "tui.cli.units",
)


def recorded_helps() -> dict[str, str]:
    """Each command line of the recorded file ("crtdesk marker FILE add --help") and the
    help it printed."""
    found: dict[str, str] = {}
    for part in HELP_TEXTS.read_text(encoding="utf-8").split("=== ")[1:]:
        head, _, text = part.partition("\n")
        found[head] = text
    return found


def every_command_line() -> list[list[str]]:
    """`--help` after every command and subcommand the whole parser holds."""
    lines: list[list[str]] = []

    def walk(path: list[str], parser: object) -> None:
        lines.append(path)
        for action in getattr(parser, "_actions", ()):
            for name, sub in (getattr(action, "choices", None) or {}).items():
                if hasattr(sub, "_actions"):
                    walk([*path, name], sub)

    walk([], build_parser(ALL))
    return [[*p[:1], *(["FILE"] if len(p) > 1 else []), *p[1:], "--help"] for p in lines]


def test_the_recorded_helps_are_every_command_s() -> None:
    assert {f"crtdesk {' '.join(argv)}" for argv in every_command_line()} == set(recorded_helps())
    assert len(recorded_helps()) == 27


@pytest.mark.parametrize("line", sorted(recorded_helps()))
def test_every_help_prints_as_it_did(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), pytest.raises(SystemExit) as done:
        main(line.split()[1:])
    assert done.value.code == 0
    assert printed.getvalue() == recorded_helps()[line]


def test_the_parser_a_command_line_needs() -> None:
    assert needed(["resolve", "pod-basic", "--attack", "8"]) == "resolve"
    assert needed(["units", "torch", "add", "x"]) == "units"
    assert needed(["--help"]) == NAMED
    assert needed(["nosuch"]) == NAMED
    assert needed([]) == NAMED
    # argparse reads the first word that is not an option as the command.
    assert needed(["-h", "resolve"]) == ALL
    assert needed(["--", "log", "g"]) == ALL


def test_a_command_s_parser_holds_that_command_alone() -> None:
    alone = build_parser("new")
    (commands,) = [a for a in alone._actions if getattr(a, "choices", None)]
    assert list(commands.choices) == ["new"]
    named = build_parser(NAMED)
    (listed,) = [a for a in named._actions if getattr(a, "choices", None)]
    assert list(listed.choices) == list(COMMANDS)
    # Named only: no command's flags are declared.
    assert all(len(sub._actions) == 1 for sub in listed.choices.values())


PARSER_PROBE = """
import json, sys
from tui.cli import build_parser
from tui.cli.commands import ALL, COMMANDS, NAMED
made = {}
for holds in (NAMED, *COMMANDS, ALL):
    build_parser(holds)
    made[holds or "named"] = sorted(m for m in sys.modules if m.startswith(("tui.cli.", "tui.saves", "textual", "rich")))
print(json.dumps(made))
"""


def test_no_parser_imports_a_command_s_module() -> None:
    made = fresh_python(PARSER_PROBE)
    assert set(made) == {"named", *COMMANDS, "*"}
    for holds, modules in made.items():
        assert not set(modules) & set(COMMAND_MODULES), holds
        assert not [m for m in modules if m.split(".")[0] in ("textual", "rich")], holds
    # The parser of every command named holds no flag that reads the engine or the store.
    assert made["named"] == ["tui.cli.commands", "tui.cli.parsing"]
    # A marker's kinds are the store's (its help names them), read once its flags are made.
    assert "tui.saves.replay" in made["marker"]
    # The probe would see a command's module: running one imports it.
    ran = fresh_python(
        "import json, sys\nfrom tui.cli import main\nmain(['rulesets'])\n"
        "print(json.dumps('tui.cli.combat' in sys.modules))\n"
    )
    assert ran is True


RESOLVE_PROBE = """
import json, sys
from tui.cli import main
assert main(["resolve", "pod-basic", "--attack", "8", "--defense", "2", "--seed", "1"]) == 0
print(json.dumps(sorted(sys.modules)))
"""


def test_resolve_loads_no_other_command_nor_the_store_nor_a_toml_parser(tmp_path: Path) -> None:
    """As a player's second run: the tables' kept copy is read, not tables.toml parsed."""
    keeps = (
        "import os, sys\n"
        f"os.environ['CRTDESK_CACHE'] = {str(tmp_path)!r}\n"
        "from tui.engine.tables import load_tables\n"
        "load_tables()\n"
        "print('[]')\n"
    )
    fresh_python(keeps)
    assert list(tmp_path.glob("tables-*.json")), "the tables' copy was not kept"
    kept = f"import os\nos.environ['CRTDESK_CACHE'] = {str(tmp_path)!r}\n"
    loaded = set(fresh_python(kept + RESOLVE_PROBE))
    assert "tui.cli.combat" in loaded and "tui.engine.procedure" in loaded
    unwanted = {*COMMAND_MODULES, "tui.saves", "tomllib", "textual", "rich"} - {
        "tui.cli.combat",
        "tui.cli.fought",
    }
    assert not loaded & unwanted
    assert not [m for m in loaded if m.startswith(("tui.saves.", "tui.desk.app", "textual."))]
