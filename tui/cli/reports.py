"""The CLI's commands that read a save's whole log: `luck` (the dice and each result
against the exact odds) and `report` (an after-action report, as Markdown)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui import saves
from tui.cli.saves import _path, _warn, _whole_number
from tui.engine.errors import InputError
from tui.engine.tables import Tables
from tui.engine.text import one_line, write_json_shown


def _cmd_luck(args: argparse.Namespace, tables: Tables) -> int:
    with saves.no_gc():  # let back in once the figures are let go (`_cmd_report`)
        return _luck(args, tables)


def _luck(args: argparse.Namespace, tables: Tables) -> int:
    # Imported by its command: the other commands start without luck or the report.
    from tui.reports.luck import luck_text
    from tui.reports.luck.reading import read_luck

    width = _whole_number("width", args.width, 30)
    path = _path(args.file, args.saves)
    report, game = read_luck(path, tables)
    _warn(game)
    if args.json:
        write_json_shown(report.to_dict(), sys.stdout)
    else:
        print(luck_text(report, width or 80))
    return 0


def _cmd_report(args: argparse.Namespace, tables: Tables) -> int:
    # The report's records are many small objects and no cycles (`read_report` reads them
    # with the cyclic collector off). It is let back in once they are let go, as the command
    # ends: let in while they were held, its first collection walked every one of them
    # (0.13 s of a first report of 100,000 entries, as much again as its records' fold).
    with saves.no_gc():
        return _report(args, tables)


def _report(args: argparse.Namespace, tables: Tables) -> int:
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
