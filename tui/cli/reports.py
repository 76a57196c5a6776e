"""The CLI's commands that read a save's whole log: `luck` (the dice and each result
against the exact odds) and `report` (an after-action report, as Markdown)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui.cli.parsing import SAVES_HELP, Subcommands
from tui.cli.saves import _FILE_HELP, _path, _warn, _whole_number
from tui.engine.errors import InputError
from tui.engine.tables import Tables
from tui.engine.text import json_shown, one_line


def register(subparsers: Subcommands) -> None:
    """Add the commands that read a save's log as a whole: luck and report."""
    luck = subparsers.add_parser("luck", help="the dice and each result against the exact odds")
    luck.add_argument("file", metavar="FILE", help=_FILE_HELP)
    luck.add_argument("--json", action="store_true", help="every figure, as JSON")
    luck.add_argument("--width", metavar="N", help="the charts' width in columns (default 80)")
    luck.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    luck.set_defaults(func=_cmd_luck)
    report = subparsers.add_parser("report", help="an after-action report of a save, as Markdown")
    report.add_argument("file", metavar="FILE", help=_FILE_HELP)
    report.add_argument(
        "--markdown", action="store_true", required=True, help="write Markdown (the format)"
    )
    report.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default stdout)")
    report.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    report.set_defaults(func=_cmd_report)


def _cmd_luck(args: argparse.Namespace, tables: Tables) -> int:
    # Imported by its command: the other commands start without luck or the report.
    from tui.reports.luck import luck_text
    from tui.reports.luck.reading import read_luck

    width = _whole_number("width", args.width, 30)
    path = _path(args.file, args.saves)
    report, game = read_luck(path, tables)
    _warn(game)
    if args.json:
        print(json_shown(report.to_dict()))
    else:
        print(luck_text(report, width or 80))
    return 0


def _cmd_report(args: argparse.Namespace, tables: Tables) -> int:
    # Imported by its command: the other commands start without luck or the report.
    from tui.reports.report import read_report

    path = _path(args.file, args.saves)
    read, game = read_report(path, tables)
    _warn(game)
    if args.output is None:
        sys.stdout.writelines(read.lines(game))
        return 0
    out = Path(args.output).expanduser()
    if out.exists() and out.resolve() == path.resolve():
        raise InputError("output", args.output, "a file other than the save itself")
    if out.is_symlink():
        # Never written through: a link planted in a shared folder would aim the report at
        # a file of the player's own (their shell's start-up file, say).
        raise InputError("output", args.output, "a file, not a link (crtdesk writes through none)")
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
        with open(fd, "w", encoding="utf-8") as handle:
            handle.writelines(read.lines(game))
    except OSError as err:
        raise InputError(
            "output", args.output, f"a file that can be written ({err.strerror})"
        ) from err
    print(f"Wrote the report of {one_line(game.title)!r} to {out}")
    return 0
