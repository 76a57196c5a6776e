"""The CLI for rulesets that are not built in: `check-table FILE`, `games` (what the games
folder holds), and finding the ruleset `resolve`, `odds` and `table` name (`crtdesk resolve
hill-203 ...`, a path to its file, or a ruleset registered); the commands themselves are
the built-in rulesets' (tui.cli.combat), with the ruleset's own fields as flags."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from tui.cli.combat import own_parser
from tui.cli.folders import folder_given
from tui.cli.parsing import UsageError, path_checked
from tui.engine import registry
from tui.engine.errors import InputError
from tui.engine.ruleset import Ruleset
from tui.engine.rulesets.charts.folder import games_folder, read_games
from tui.engine.rulesets.charts.reading import load_chart
from tui.engine.rulesets.charts.ruleset import ChartRuleset
from tui.engine.tables import Tables
from tui.engine.text import one_line

COMMANDS = ("resolve", "odds", "table")


def handles(argv: Sequence[str]) -> bool:
    """Whether `argv` is resolve, odds or table on a ruleset that is not built in: the word
    after the command is a ruleset registered, a chart file (FILE.toml, a path), a chart's
    id, or a NAME.toml in the games folder. Any other word is left to the built-in
    rulesets' parser (and its message)."""
    if len(argv) < 2 or argv[0] not in COMMANDS or argv[1] in registry.BUILT_IN_IDS:
        return False
    given = argv[1]
    if registry.known(given) or registry.names_a_chart(given):
        return True
    if given.endswith(".toml") or "/" in given:
        return True
    if given.startswith("-") or not given.replace("-", "").replace("_", "").isalnum():
        return False
    try:
        folder = games_folder(_flag_value(argv, "--games"), _flag_value(argv, "--saves"))
        return (folder / f"{given}.toml").is_file()
    except (OSError, ValueError, RuntimeError):
        return True  # a folder or name the system refuses: `run` checks and says which


def _paths_checked(argv: Sequence[str]) -> None:
    """The ruleset's path (a chart file), --games and --saves, checked before use."""
    given = argv[1]
    if given.endswith(".toml") or "/" in given:
        path_checked("RULESET", given)
    elif len(given.encode()) > 200:
        raise UsageError(f"RULESET {given!r}: too long; expected a ruleset or a chart's name")
    for flag in ("--games", "--saves"):
        value = _flag_value(argv, flag)
        if value is not None:
            path_checked(flag, value, folder=True)


def _flag_value(argv: Sequence[str], flag: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def run(argv: Sequence[str], tables: Tables) -> int:
    """`crtdesk resolve|odds|table RULESET ...` on a ruleset that is not built in (a player's
    chart, by NAME, its id or its file; or one registered): the combat commands with its own
    fields as flags."""
    _paths_checked(argv)
    given = argv[1]
    if registry.known(given) and registry.get(given).chart_copy is None:
        ruleset: Ruleset = registry.get(given)
    else:
        folder = folder_given(_flag_value(argv, "--games"), _flag_value(argv, "--saves"))
        ruleset = registry.find_chart(given, folder)
    args = own_parser(argv[0], ruleset, tables).parse_args([ruleset.id, *argv[2:]])
    try:
        result: int = args.func(args, tables)
    except InputError as err:
        # Named by the ruleset's own flag (a field of its own may share a built-in's name).
        found = ruleset.field(err.field)
        if found is None:
            raise
        raise UsageError(err.message(found.flag)) from None
    return result


def _cmd_check(args: argparse.Namespace, tables: Tables) -> int:
    chart = load_chart(args.file)
    ruleset = ChartRuleset(registry.chart_id(chart.name), chart)
    print(one_line(ruleset.summary()))
    if args.columns:
        print("\n".join(ruleset.columns_read()))
    return 0


def _cmd_games(args: argparse.Namespace, tables: Tables) -> int:
    shelf = read_games(folder_given(args.games))
    if args.json:
        data = {
            "folder": str(shelf.folder),
            "games": [
                {"id": registry.chart_id(c.name), "title": c.title, "dice": c.dice}
                for c in shelf.charts
            ],
            "broken": list(shelf.broken),
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(one_line(f"Games folder {shelf.folder}: {len(shelf.charts)} chart(s)"))
    for chart in shelf.charts:
        shown = registry.chart_id(chart.name)
        print(one_line(f"  {shown:20} {chart.title}  ({chart.dice}, {chart.kind})"))
    for line in shelf.broken:
        print(one_line(f"  broken: {line}"))
    return 0
