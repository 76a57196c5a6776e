"""The headless CLI, a module per group of commands: the combat commands (rulesets, table,
resolve, odds: `tui.cli.combat`), the save-file commands (new, log, turn, marker, option,
note, repair: `tui.cli.saves`; luck, report: `tui.cli.reports`), and `serve`
(`tui.cli.serve`); `crtdesk`, `crtdesk open` and `crtdesk review` open the desk instead.
Every command's flags are declared in `tui.cli.commands`, and a command's module is
imported when it runs.

Bad input exits with status 2 and one line on stderr naming the flag, the value and what
is allowed; never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any

from tui.cli.commands import ALL, TABLES_READ, needed, parser_for
from tui.cli.parsing import (
    CREATE_HELP,
    EXIT_BAD_INPUT,
    SAVES_HELP,
    Parser,
    UsageError,
    flag_for,
    paths_checked,
)
from tui.desk.launch import opens_desk
from tui.engine.errors import InputError
from tui.engine.text import one_line

__all__ = [
    "EXIT_BAD_INPUT",
    "UsageError",
    "build_parser",
    "combat_from_args",
    "command_line",
    "main",
    "outcome_text",
]


# What this package gives from its commands' modules, each imported when first asked for
# (see __getattr__): `import tui.cli` loads no command.
_FROM_COMBAT = ("combat_from_args", "command_line", "outcome_text")


def __getattr__(name: str) -> Any:
    if name not in _FROM_COMBAT:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module("tui.cli.combat"), name)
    globals()[name] = value
    return value


def build_parser(holds: str = ALL) -> argparse.ArgumentParser:
    """`crtdesk`'s parser, holding one command alone (by its name), every command with its
    flags (ALL) or every command named (NAMED: see `tui.cli.commands.needed`), kept for the
    process: the combat commands' flags are made from the built-in rulesets (which no
    process changes) and the tables (loaded once), so a script or a test that calls `main`
    again and again pays for each parser once, not every call. No command's module is
    imported to build it (`tui.cli.commands`)."""
    tables = _tables() if holds in (ALL, *TABLES_READ) else None
    kept = _KEPT.get(holds)
    if kept is None or kept[0] is not tables:
        kept = _KEPT[holds] = (tables, parser_for(holds))
    return kept[1]


# Each parser made, by what it holds, with the tables it was made from where its flags read
# them (see build_parser).
_KEPT: dict[str, tuple[object, argparse.ArgumentParser]] = {}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        for arg in argv:
            if "\x00" in arg:  # only a caller of main() can pass one; no path may hold it
                raise UsageError(f"argument {arg!r} holds a NUL character; no value may")
        if opens_desk(argv):
            return _open_desk(argv, review=bool(argv) and argv[0] == "review")
        if _names_a_chart(argv):  # resolve, odds or table on a player's chart
            # Imported by the command that runs it: the built-in rulesets start without it.
            from tui.cli import games

            if games.handles(argv):
                return games.run(argv, _tables())
        parser = build_parser(needed(argv))
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        paths_checked(args)
        result: int = args.func(args, _tables())
        return result
    except InputError as err:
        _say(err.message(flag_for(err.field, err.value)))
    except UsageError as err:
        _say(str(err))
    except _tables_errors() as err:
        _say(str(err))
    except _chart_errors() as err:
        _say(str(err))
    except _serve_errors() as err:
        _say(str(err))
    except _save_errors() as err:
        _say(str(err))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    return EXIT_BAD_INPUT


def _say(message: str) -> None:
    """Bad input: one line on stderr, whatever characters the value typed holds."""
    line = message if message.startswith("crtdesk") else f"crtdesk: {message}"
    print(one_line(line), file=sys.stderr)


def _names_a_chart(argv: Sequence[str]) -> bool:
    """Whether `argv` may be resolve, odds or table on a ruleset that is not built in (see
    `tui.cli.games.handles`, which decides)."""
    if len(argv) < 2 or argv[0] not in ("resolve", "odds", "table"):
        return False
    # The rulesets, read by the combat commands that run: the other commands start
    # without them.
    from tui.engine.registry import BUILT_IN_IDS

    return argv[1] not in BUILT_IN_IDS


def _tables() -> Any:
    # The tables, read by the command that runs: the parser and the help are made without.
    from tui.engine.tables import default_tables

    return default_tables()


def _tables_errors() -> tuple[type[Exception], ...]:
    # Imported when an error is worded: the parser and the help are made without the tables.
    from tui.engine.tables import TablesError

    return (TablesError,)


def _save_errors() -> tuple[type[Exception], ...]:
    try:
        # Imported by the command that runs it: opening the desk loads no other command.
        from tui.saves import SaveError
    except ImportError:
        return ()
    return (SaveError,)


def _chart_errors() -> tuple[type[Exception], ...]:
    # Imported by the command that runs it: opening the desk loads no other command.
    from tui.engine.rulesets.charts.chart import ChartError

    return (ChartError,)


def _serve_errors() -> tuple[type[Exception], ...]:
    # Imported by the command that runs it: opening the desk loads no other command.
    from tui.cli.serve import ServeError

    return (ServeError,)


def _open_desk(argv: list[str], review: bool = False) -> int:
    """`crtdesk [--saves DIR]`, or `crtdesk open FILE`: the Textual desk; `crtdesk review
    FILE` opens it on that save's log review."""
    try:
        # Imported by the command that runs it: opening the desk loads no other command.
        from tui.desk.app import run_desk
    except ImportError:
        print(
            "crtdesk: the desk's screens are not built yet; try `crtdesk --help` for the CLI",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    parser = Parser(
        prog="crtdesk review" if review else "crtdesk open",
        description="Review a game's log on the desk." if review else "Open the combat desk.",
    )
    parser.add_argument(
        "file",
        nargs=None if review else "?",
        help="a save file: a path, or a name in the saves folder",
    )
    parser.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    parser.add_argument(
        "--games",
        metavar="DIR",
        help="the games folder of players' charts (default games/ beside the saves folder, "
        "or $CRTDESK_GAMES)",
    )
    parser.add_argument(
        "--create",
        action="store_true",
        help=CREATE_HELP,
    )
    args = parser.parse_args(argv[1:] if argv and (review or argv[0] == "open") else argv)
    paths_checked(args)
    if args.games is not None:
        # Imported by the command that runs it: opening the desk loads no other command.
        from tui.cli.folders import folder_given

        folder_given(args.games)  # a folder named must be one
    if review:
        return run_desk(
            args.file, args.saves, review=True, games_dir=args.games, create=args.create
        )
    return run_desk(args.file, args.saves, games_dir=args.games, create=args.create)
