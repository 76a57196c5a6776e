"""The headless CLI, a module per group of commands: the combat commands (rulesets, table,
resolve, odds: `tui.cli.combat`), the save-file commands (new, log, turn, marker, option,
note, repair, luck, report: `tui.cli.saves`), and `serve` (`tui.cli.serve`); `crtdesk`,
`crtdesk open` and `crtdesk review` open the desk instead.

Bad input exits with status 2 and one line on stderr naming the flag, the value and what
is allowed; never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui.cli import combat
from tui.cli.combat import combat_from_args, command_line, outcome_text
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
from tui.engine.tables import TablesError, default_tables
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


def build_parser() -> argparse.ArgumentParser:
    """Every command's parser, kept for the process: it is made from the built-in rulesets
    (which no process changes) and the tables (loaded once), so a script or a test that
    calls `main` again and again pays about 12 ms for it once, not every call."""
    tables = default_tables()
    kept = _KEPT.get("parser")
    if kept is None or kept[0] is not tables:
        kept = _KEPT["parser"] = (tables, _new_parser())
    return kept[1]


# The parser made, with the tables it was made from (see build_parser).
_KEPT: dict[str, tuple[object, argparse.ArgumentParser]] = {}


def _new_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="crtdesk", description="A combat desk for hex-and-counter wargames.")
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    sub.add_parser("open", help="open the desk on a save file: crtdesk open FILE [--saves DIR]")
    sub.add_parser("review", help="open the desk on a save's log review: crtdesk review FILE")
    combat.register(sub)
    # The save commands are imported when a parser is built: opening the desk needs none.
    from tui.cli import reports, saves

    saves.register(sub)
    reports.register(sub)
    # Imported by the command that runs it: opening the desk loads no other command.
    from tui.cli import games

    games.register(sub)
    # Imported by the command that runs it: opening the desk loads no other command.
    from tui.cli import units

    units.register(sub)
    # Imported by the command that runs it: opening the desk loads no other command.
    from tui.cli import serve

    serve.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        for arg in argv:
            if "\x00" in arg:  # only a caller of main() can pass one; no path may hold it
                raise UsageError(f"argument {arg!r} holds a NUL character; no value may")
        if opens_desk(argv):
            return _open_desk(argv, review=bool(argv) and argv[0] == "review")
        # Imported by the command that runs it: opening the desk loads no other command.
        from tui.cli import games

        if games.handles(argv):  # resolve, odds or table on a player's chart
            return games.run(argv, default_tables())
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        paths_checked(args)
        tables = default_tables()
        return args.func(args, tables)
    except InputError as err:
        _say(err.message(flag_for(err.field, err.value)))
    except (UsageError, TablesError) as err:
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
