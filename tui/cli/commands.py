"""The CLI's commands and their flags, declared apart from the modules that run them.

The parser names every command (`crtdesk --help` lists them all) but declares the flags of
the command typed only (its parser alone, where the command line starts with it), and a
command's module is imported when it runs (`Handler`): a `crtdesk resolve` loads neither
the save store nor `serve` nor the report, and a `crtdesk new` none of the rulesets'
flags. `parser_for(ALL)` declares every command's flags (the tests walk it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any

from tui.cli.parsing import CREATE_HELP, SAVES_HELP, Parser
from tui.engine.kinds import SIDES

if TYPE_CHECKING:
    from tui.engine.ruleset import Ruleset
    from tui.engine.schema import Field
    from tui.engine.tables import Tables

FILE_HELP = "the save's name in the saves folder, or a path to it (.toml may be left off)"
NEW_FILE_HELP = "the new save's name in the saves folder (.toml may be left off)"
GAMES_HELP = "the games folder (default: games beside the saves folder, or $CRTDESK_GAMES)"

# `crtdesk serve`'s defaults and bounds (tui.cli.serve checks against them).
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# Each desk is a Python process of some 40 MB: a few players' tabs, not a crowd's.
DEFAULT_MAX_DESKS = 8
MOST_DESKS = 100

# The per-unit fields a `units` command line may give (each ruleset reads its own:
# record_fields).
UNIT_FIELD_FLAGS = (
    ("factor", "its combat factor (strength), 0 to 999"),
    ("steps", "its steps at full strength, 1 to 99"),
    ("ar", "its action rating, 0 to 9 (OCS)"),
    ("kind", "combat, hq or dak-brigade (OCS)"),
    ("supply", "on-map, internal or none (OCS)"),
    ("re", "its size in RE (OCS)"),
)


class Handler:
    """A command's handler, named by its module and function: the module is imported when
    the command runs (`args.func(args, tables)`), not when the parser is built."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, args: argparse.Namespace, tables: Tables) -> int:
        # The command's module, imported as it runs: the parser is built without it.
        run: Callable[[argparse.Namespace, Tables], int] = getattr(
            import_module(self.module), self.name
        )
        return run(args, tables)

    def __repr__(self) -> str:
        return f"Handler({self.module}.{self.name})"


def _runs(parser: argparse.ArgumentParser, module: str, name: str) -> None:
    parser.set_defaults(func=Handler(f"tui.cli.{module}", name))


# --- the combat commands (tui.cli.combat) ------------------------------------------------------


def _readers_text(readers: tuple[str, ...]) -> str:
    """ "pod-basic/super/ultra", "ocs, daynight": who reads a flag, for its help."""
    # The rulesets are read by the combat commands' flags only: the other commands' are
    # declared without them.
    from tui.engine import registry

    family = {r.id: r.family for r in registry.rulesets()}
    rest = list(readers)
    for name in dict.fromkeys(family[r] for r in readers if family.get(r)):
        kin = [r for r in readers if family.get(r) == name]
        if len(kin) > 1:
            rest = [r for r in rest if r not in kin]
            rest.insert(0, f"{name}-" + "/".join(r.removeprefix(f"{name}-") for r in kin))
    return ", ".join(rest)


def combat_flags(parser: argparse.ArgumentParser, tables: Tables | None = None) -> None:
    """Every built-in ruleset's inputs as flags, made from the rulesets' fields."""
    # The rulesets and their tables are read by the combat commands' flags only: the other
    # commands' are declared without them.
    from tui.engine import registry
    from tui.engine.tables import default_tables

    tables = tables or default_tables()
    built_in = registry.BUILT_IN_IDS
    parser.add_argument("ruleset", metavar="RULESET", help="one of " + ", ".join(built_in))
    groups: dict[str, Any] = {}
    for field, readers in registry.cli_fields():
        everyone = set(readers) == set(built_in) or len(readers) >= len(built_in) - 1
        if everyone:
            where: Any = parser
            help_text = field.help
        else:
            title = registry.get(readers[0]).cli_group
            if title not in groups:
                groups[title] = parser.add_argument_group(title)
            where = groups[title]
            help_text = f"{_readers_text(readers)}: {field.help}"
        if field.choices:
            # The values allowed, said per ruleset where the rulesets allow different ones.
            by_values: dict[str, list[str]] = {}
            for ruleset in readers:
                values = "|".join(str(v) for v, _ in field.options(ruleset, tables))
                by_values.setdefault(values, []).append(ruleset)
            if len(by_values) == 1:
                help_text += f" ({next(iter(by_values))})"
            else:
                said = [f"{_readers_text(tuple(r))} {v}" for v, r in by_values.items()]
                help_text += " (" + "; ".join(said) + ")"
        add_flag(where, field, help_text, tables)
    parser.add_argument("--json", action="store_true", help="print JSON")


def add_flag(where: Any, field: Field, help_text: str, tables: Tables) -> None:
    """One field as a flag, in the shape its kind gives it."""
    help_text += field.kind.range_said(field, tables)
    where.add_argument(field.flag, help=help_text, **field.kind.flag_options(field))


def own_flags(parser: argparse.ArgumentParser, ruleset: Ruleset, tables: Tables) -> None:
    """A ruleset that is not built in (a player's chart, one registered): its own fields."""
    # One line of text, as the chart's ruleset runs: the other commands are declared
    # without the text module.
    from tui.engine.text import one_line

    parser.add_argument("ruleset", metavar="RULESET", help=f"{ruleset.id}, or its chart file")
    group = parser.add_argument_group(ruleset.cli_group or ruleset.id)
    for field in ruleset.flags:
        help_text = one_line(field.help)
        if field.choices:
            help_text += " (" + "|".join(str(v) for v, _ in field.options(ruleset.id, tables)) + ")"
        add_flag(group, field, help_text, tables)
    parser.add_argument("--json", action="store_true", help="print JSON")


def resolve_flags(res: argparse.ArgumentParser) -> None:
    """`resolve`'s own flags, beside the combat's."""
    res.add_argument("--seed", metavar="S", help="seed the desk's dice (repeatable results)")
    res.add_argument(
        "--save", metavar="FILE", help="append the combat to this save (a name, or a path to it)"
    )
    res.add_argument(
        "--target", metavar="HEX", help="the hex or unit the result's markers go on (with --save)"
    )
    res.add_argument(
        "--note", metavar="TEXT", help="a note kept with the logged combat (with --save)"
    )
    unit_flags(res, takes=True)


def odds_flags(parser: argparse.ArgumentParser) -> None:
    """`odds`'s own flags, beside the combat's."""
    parser.add_argument(
        "--save", metavar="FILE", help="the save whose units --attacker-unit/--defender-unit name"
    )
    unit_flags(parser, takes=False)


def unit_flags(parser: argparse.ArgumentParser, *, takes: bool) -> None:
    """The flags naming the game's units that fight (and, to resolve, who takes a loss):
    read by tui.cli.fought."""
    for side in SIDES:
        parser.add_argument(
            f"--{side}-unit",
            metavar="NAME",
            action="append",
            help=f"a unit of the game (with --save) fighting as {side}, as it stands now "
            "(repeatable)",
        )
    if not takes:
        return
    for side in SIDES:
        parser.add_argument(
            f"--{side}-takes",
            metavar="NAME=N",
            action="append",
            help=f"the {side}'s unit NAME takes N of a loss its owner chooses (steps, or "
            "factors; of an option, steps, the rest retreated) (repeatable)",
        )


def _rulesets(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true")
    _runs(parser, "combat", "_cmd_rulesets")


def _table(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ruleset", metavar="RULESET")
    parser.add_argument("--json", action="store_true")
    _runs(parser, "combat", "_cmd_table")


def _resolve(parser: argparse.ArgumentParser) -> None:
    combat_flags(parser)
    resolve_flags(parser)
    parser.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(parser, "combat", "_cmd_resolve")


def _odds(parser: argparse.ArgumentParser) -> None:
    combat_flags(parser)
    odds_flags(parser)
    parser.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(parser, "combat", "_cmd_odds")


# --- the save commands (tui.cli.saves) ---------------------------------------------------------


def _new(new: argparse.ArgumentParser) -> None:
    # The rulesets' ids, for the help: the other commands are declared without the rulesets.
    from tui.engine.registry import BUILT_IN_IDS

    new.add_argument("file", metavar="FILE", help=NEW_FILE_HELP)
    new.add_argument("--title", required=True, help="the game's title")
    new.add_argument(
        "--ruleset",
        dest="rulesets",
        action="extend",
        nargs="+",
        required=True,
        metavar="ID",
        help="the rulesets in play (repeat or list several): "
        + ", ".join(BUILT_IN_IDS)
        + ", or a player's chart by its id",
    )
    new.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a per-game option, e.g. mines_cdf=3 (pod-ultra; default 2)",
    )
    new.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    new.add_argument(
        "--games", metavar="DIR", help="the games folder a player's chart in play is read from"
    )
    new.add_argument(
        "--create",
        action="store_true",
        help=CREATE_HELP,
    )
    _runs(new, "saves", "_cmd_new")


def _log(log: argparse.ArgumentParser) -> None:
    log.add_argument("file", metavar="FILE", help=FILE_HELP)
    log.add_argument("--json", action="store_true", help="every field, as JSON")
    log.add_argument("--turn", metavar="N", help="only entries of turn N")
    log.add_argument("--ruleset", metavar="ID", help="only combats of this ruleset")
    log.add_argument(
        "--player",
        metavar="NAME",
        help="only entries by this player ($CRTDESK_PLAYER, else the OS user)",
    )
    log.add_argument("--markers", action="store_true", help="print the current markers instead")
    log.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(log, "saves", "_cmd_log")


def _turn(turn: argparse.ArgumentParser) -> None:
    turn.add_argument("file", metavar="FILE", help=FILE_HELP)
    turn.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(turn, "saves", "_cmd_turn")


def _marker(marker: argparse.ArgumentParser) -> None:
    # The marker kinds, for the help: the other commands are declared without the store.
    from tui.saves.replay import MARKER_KINDS

    marker.add_argument("file", metavar="FILE", help=FILE_HELP)
    marker.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    actions = marker.add_subparsers(dest="action", metavar="add|remove", required=True)
    add = actions.add_parser("add", help="place a marker")
    add.add_argument("kind", metavar="KIND", help="one of " + ", ".join(MARKER_KINDS))
    add.add_argument("target", metavar="TARGET", help="a hex such as 0712 or a unit's name")
    add.add_argument("--side", metavar="SIDE", help="whose marker it is (attacker, Allied, ...)")
    add.add_argument("--turns", metavar="N", help="turns it lasts (counted down by `turn`)")
    add.add_argument("--note", metavar="TEXT", help="a note for the log")
    add.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=SAVES_HELP)
    _runs(add, "saves", "_cmd_marker_add")
    remove = actions.add_parser("remove", help="lift a marker")
    remove.add_argument("marker_id", metavar="ID", help="the marker's id, as `log --markers` shows")
    remove.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=SAVES_HELP)
    _runs(remove, "saves", "_cmd_marker_remove")


def _option(option: argparse.ArgumentParser) -> None:
    option.add_argument("file", metavar="FILE", help=FILE_HELP)
    option.add_argument("key", metavar="KEY", help="e.g. mines_cdf")
    option.add_argument("value", metavar="VALUE", help="e.g. 3")
    option.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(option, "saves", "_cmd_option")


def _repair(repair: argparse.ArgumentParser) -> None:
    repair.add_argument("file", metavar="FILE", help=FILE_HELP)
    repair.add_argument(
        "--yes",
        action="store_true",
        help="repair even when setting entries aside changes the game (a turn gone, a note "
        "pointing at nothing); without it such a repair says what would change and writes "
        "nothing",
    )
    repair.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    repair.add_argument(
        "--restore-charts",
        action="store_true",
        help="copy each player's chart in play from its file in the games folder into the "
        "save's header again (a kept chart edited by hand is refused otherwise)",
    )
    repair.add_argument(
        "--games", metavar="DIR", help="the games folder the charts are restored from"
    )
    _runs(repair, "saves", "_cmd_repair")


def _note(note: argparse.ArgumentParser) -> None:
    note.add_argument("file", metavar="FILE", help=FILE_HELP)
    note.add_argument("seq", metavar="SEQ", help="the number of the entry annotated (see `log`)")
    note.add_argument("text", metavar="TEXT", help="the note")
    note.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(note, "saves", "_cmd_note")


# --- luck and report (tui.cli.reports) ---------------------------------------------------------


def _luck(luck: argparse.ArgumentParser) -> None:
    luck.add_argument("file", metavar="FILE", help=FILE_HELP)
    luck.add_argument("--json", action="store_true", help="every figure, as JSON")
    luck.add_argument("--width", metavar="N", help="the charts' width in columns (default 80)")
    luck.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(luck, "reports", "_cmd_luck")


def _report(report: argparse.ArgumentParser) -> None:
    report.add_argument("file", metavar="FILE", help=FILE_HELP)
    report.add_argument(
        "--markdown", action="store_true", required=True, help="write Markdown (the format)"
    )
    report.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default stdout)")
    report.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    _runs(report, "reports", "_cmd_report")


# --- a player's charts (tui.cli.games) ---------------------------------------------------------


def _check_table(check: argparse.ArgumentParser) -> None:
    check.add_argument("file", metavar="FILE")
    check.add_argument(
        "--columns",
        action="store_true",
        help="also print the column each ratio (or difference) reads, and what lies beyond "
        "the ends (per value of a columns choice)",
    )
    _runs(check, "games", "_cmd_check")


def _games(games: argparse.ArgumentParser) -> None:
    games.add_argument("--games", metavar="DIR", help=GAMES_HELP)
    games.add_argument("--json", action="store_true")
    _runs(games, "games", "_cmd_games")


# --- units (tui.cli.units) ---------------------------------------------------------------------


def _units(units: argparse.ArgumentParser) -> None:
    units.add_argument("file", metavar="FILE", help=FILE_HELP)
    units.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    units.add_argument("--json", action="store_true", help="print the units as JSON")
    units.add_argument("--side", metavar="SIDE", help="only this side's units")
    units.add_argument("--hex", metavar="HEX", help="only the units in this hex")
    _runs(units, "units", "_cmd_list")
    actions = units.add_subparsers(
        dest="action", metavar="add|edit|remove|import|take", parser_class=type(units)
    )
    add = actions.add_parser("add", help="add a unit")
    add.add_argument("name", metavar="NAME", help="the unit's name, as its counter says")
    add.add_argument("--side", metavar="SIDE", required=True, help="whose unit (Axis, red, ...)")
    _record_flags(add)
    _runs(add, "units", "_cmd_add")
    edit = actions.add_parser("edit", help="change a unit's record (logged; the old one stays)")
    edit.add_argument("name", metavar="NAME", help="the unit's name")
    edit.add_argument("--side", metavar="SIDE", help="whose unit")
    _record_flags(edit)
    _runs(edit, "units", "_cmd_edit")
    remove = actions.add_parser("remove", help="take a unit off the roster (not a loss)")
    remove.add_argument("name", metavar="NAME", help="the unit's name")
    remove.add_argument("--note", metavar="TEXT", help="why, for the log")
    remove.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=SAVES_HELP)
    _runs(remove, "units", "_cmd_remove")
    imported = actions.add_parser(
        "import", help="read an order of battle from a CSV or TOML file (all or nothing)"
    )
    imported.add_argument(
        "source",
        metavar="OOB",
        help="a .csv file (a header row naming the columns: name, side, hex and the fields) "
        "or a .toml file ([[unit]] tables)",
    )
    imported.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=SAVES_HELP)
    _runs(imported, "units", "_cmd_import")
    take = actions.add_parser(
        "take", help="a unit takes a loss: a combat's loss assigned, or a correction"
    )
    take.add_argument("name", metavar="UNIT", help="the unit's name")
    take.add_argument("--steps", metavar="N", help="steps lost (below 0: given back)")
    take.add_argument("--factors", metavar="N", help="factors lost (below 0: given back)")
    gone = take.add_mutually_exclusive_group()
    gone.add_argument("--eliminated", action="store_true", help="the unit is eliminated")
    gone.add_argument("--back", action="store_true", help="an eliminated unit is back in play")
    take.add_argument(
        "--combat",
        metavar="N",
        help="the combat whose open loss it takes (its entry number; `crtdesk units FILE` "
        "lists them); without it, a correction",
    )
    take.add_argument("--note", metavar="TEXT", help="a note for the log")
    take.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=SAVES_HELP)
    _runs(take, "units", "_cmd_take")


def _record_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hex", metavar="HEX", help="the hex it stands in")
    for name, said in UNIT_FIELD_FLAGS:
        parser.add_argument(
            f"--{name}", metavar="N" if name not in ("kind", "supply") else "WORD", help=said
        )
    parser.add_argument("--saves", metavar="DIR", default=argparse.SUPPRESS, help=SAVES_HELP)


# --- serve (tui.cli.serve) ---------------------------------------------------------------------


def _serve(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--host", default=DEFAULT_HOST, help=f"the address to listen on (default {DEFAULT_HOST})"
    )
    serve.add_argument(
        "--port", default=str(DEFAULT_PORT), help=f"the port to listen on (default {DEFAULT_PORT})"
    )
    serve.add_argument(
        "--public-url",
        metavar="URL",
        help="the address players open, when a reverse proxy sits in front (default http://HOST:PORT)",
    )
    serve.add_argument("--saves", metavar="DIR", help=SAVES_HELP)
    serve.add_argument(
        "--create",
        action="store_true",
        help=CREATE_HELP,
    )
    serve.add_argument(
        "--max-desks",
        metavar="N",
        default=str(DEFAULT_MAX_DESKS),
        help=f"the most desks (browser tabs, a process each) run at once, 1 to {MOST_DESKS} "
        f"(default {DEFAULT_MAX_DESKS})",
    )
    _runs(serve, "serve", "_cmd_serve")


# Every command in the order `crtdesk --help` lists them: its help, and what declares its
# flags (None: the desk's, declared where it opens, tui.cli._open_desk).
Declare = Callable[[argparse.ArgumentParser], None]
COMMANDS: dict[str, tuple[str, Declare | None]] = {
    "open": ("open the desk on a save file: crtdesk open FILE [--saves DIR]", None),
    "review": ("open the desk on a save's log review: crtdesk review FILE", None),
    "rulesets": ("list the rulesets", _rulesets),
    "table": ("print a ruleset's tables", _table),
    "resolve": ("resolve one combat", _resolve),
    "odds": ("exact chance of every result for a combat", _odds),
    "new": ("start a game in a new save file", _new),
    "log": ("print a save's log, or its markers", _log),
    "turn": ("advance to the next turn (markers count down)", _turn),
    "marker": ("place or lift a marker by hand", _marker),
    "option": ("set a per-game option (logged)", _option),
    "repair": (
        "cut off a torn last entry, or set aside entries broken in the middle (kept in a "
        "side file), keeping a copy of the whole file",
        _repair,
    ),
    "note": ("annotate a logged entry (the entry is kept as it is)", _note),
    "luck": ("the dice and each result against the exact odds", _luck),
    "report": ("an after-action report of a save, as Markdown", _report),
    "check-table": (
        "check a player's chart file: one line, exit 2 when it is broken",
        _check_table,
    ),
    "games": ("list the player's charts in the games folder", _games),
    "units": ("a game's units: list them, or add, edit, remove, import, take losses", _units),
    "serve": (
        "serve the desk to a web browser (localhost only unless --host says otherwise)",
        _serve,
    ),
}


# The commands whose flags are made from the tables (the values and ranges their help says).
TABLES_READ = ("resolve", "odds")


# What a parser holds: one command alone (its name), every command with its flags (ALL),
# or every command named, none with its flags (NAMED: what `crtdesk --help` lists).
ALL = "*"
NAMED = ""


def needed(argv: Sequence[str]) -> str:
    """The parser `argv` needs: the command it starts with alone; every command named where
    it starts otherwise (`--help`, a word that is no command); every command's flags where
    it names one further on (`-h resolve`, `-- resolve`: argparse reads the first word
    that is not an option as the command)."""
    if argv and argv[0] in COMMANDS:
        return argv[0]
    return ALL if any(arg in COMMANDS for arg in argv) else NAMED


def parser_for(holds: str) -> argparse.ArgumentParser:
    """`crtdesk`'s parser, holding what `needed` says (a command's name, ALL or NAMED).
    A command alone parses and says its usage and errors as among all of them: argparse
    makes each command's parser apart, from the name `crtdesk` only."""
    parser = Parser(prog="crtdesk", description="A combat desk for hex-and-counter wargames.")
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for name, (help_text, declare) in COMMANDS.items():
        if holds not in (ALL, NAMED, name):
            continue
        added = sub.add_parser(name, help=help_text)
        if declare is not None and holds in (ALL, name):
            declare(added)
    return parser
