"""The CLI for a player's own charts: `check-table FILE`, `games` (what the games folder
holds), and `resolve`, `odds` and `table` on a chart (`crtdesk resolve hill-203 ...`, or a
path to its file), with flags made from the chart's modifiers."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.cli.parsing import Parser, Subcommands, UsageError, integer_value, seed_value
from tui.engine.tables import RULESET_IDS, Tables
from tui.engine.text import cell_text, one_line

if TYPE_CHECKING:
    from tui.engine.model import CombatInput
    from tui.engine.rulesets.charts.chart import PlayerChart

COMMANDS = ("resolve", "odds", "table")
GAMES_HELP = "the games folder (default: games beside the saves folder, or $CRTDESK_GAMES)"


def handles(argv: Sequence[str]) -> bool:
    """Whether `argv` is resolve, odds or table on a player's chart: the word after the
    command is a chart file (FILE.toml, a path), game:NAME, or a NAME.toml in the games
    folder. Any other word is left to the built-in rulesets' parser (and its message)."""
    if len(argv) < 2 or argv[0] not in COMMANDS or argv[1] in RULESET_IDS:
        return False
    given = argv[1]
    if given.startswith("game:") or given.endswith(".toml") or "/" in given:
        return True
    if given.startswith("-") or not given.replace("-", "").replace("_", "").isalnum():
        return False
    from tui.engine.rulesets.charts.folder import games_folder

    folder = games_folder(_flag_value(argv, "--games"), _flag_value(argv, "--saves"))
    return (folder / f"{given}.toml").is_file()


def _flag_value(argv: Sequence[str], flag: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def folder_given(games: str | None, saves: str | None = None) -> Path:
    """The games folder; one named by --games must be a folder."""
    from tui.engine.rulesets.charts.folder import games_folder

    if games is not None and not Path(games).expanduser().is_dir():
        raise UsageError(f"--games: {games!r} is not a folder; expected the games folder")
    return games_folder(games, saves)


def kept_copies(rulesets: Sequence[str], games: str | None, saves: str | None) -> dict[str, str]:
    """The text of each player's chart (game:NAME) among `rulesets`, read from the games
    folder: the copies a new save keeps."""
    from tui.engine.rulesets.charts.folder import find_chart

    found = [r for r in rulesets if r.startswith("game:")]
    if not found and games is None:
        return {}
    folder = folder_given(games, saves)
    return {r: find_chart(r, folder).text for r in found}


def run(argv: Sequence[str], tables: Tables) -> int:
    """`crtdesk resolve|odds|table CHART ...` on a player's chart."""
    from tui.engine.rulesets.charts.folder import find_chart

    folder = folder_given(_flag_value(argv, "--games"), _flag_value(argv, "--saves"))
    chart = find_chart(argv[1], folder)
    command = argv[0]
    parser = _parser(command, chart)
    args = parser.parse_args(list(argv[1:]))
    if command == "table":
        if args.json:
            print(json.dumps(chart_json(chart), indent=2, ensure_ascii=False))
        else:
            print(chart_text(chart))
        return 0
    combat = combat_from_args(args, chart)
    if command == "odds":
        from tui.cli.combat import print_odds
        from tui.engine.combat import distribution

        print_odds(combat, distribution(combat, tables), args.json)
        return 0
    from tui.cli.combat import outcome_text
    from tui.engine.procedure import answer_from
    from tui.engine.procedure import run as run_procedure

    if args.roll is not None and args.seed is not None:
        raise UsageError(
            "resolve: give --roll (dice rolled by hand) or --seed (the desk's dice), not both"
        )
    seed = seed_value(args.seed)
    if args.save:
        _use_the_games_copy(args.save, args.saves, chart)
    # Dice from a seed are logged as seeded, with it: the same seed gives the same dice.
    combat, outcome = run_procedure(combat, tables, answer_from(combat, None, seed))
    saved = None
    if args.save:
        from tui.cli.saves import record_combat

        saved = record_combat(args.save, args.saves, combat, outcome, note=args.note)
    if args.json:
        print(json.dumps(outcome.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(outcome_text(outcome))
        if saved:
            print(saved)
    return 0


def _use_the_games_copy(save: str, saves_dir: str | None, chart: PlayerChart) -> None:
    """A combat saved to a game is read on the copy of the chart the game keeps (loading the
    save registers it); a chart file changed since the game began is named on stderr."""
    import sys

    from tui import saves
    from tui.cli.saves import save_file
    from tui.engine.rulesets.charts.chart import known
    from tui.saves.charts import changed_chart

    game = saves.load_game(save_file(save, saves_dir))
    if chart.ruleset not in game.rulesets:
        raise UsageError(
            f"resolve: {chart.ruleset} is not in play in {game.path.name} "
            f"({', '.join(game.rulesets)}); start a game with it to log its combats"
        )
    said = changed_chart(known(chart.ruleset), chart)
    if said:
        print(one_line(f"crtdesk: {said}"), file=sys.stderr)


def _parser(command: str, chart: PlayerChart) -> argparse.ArgumentParser:
    from tui.engine.rulesets.charts.chart import fields

    parser = Parser(
        prog=f"crtdesk {command} {chart.name}",
        description=one_line(f"{chart.title}: a player's chart ({chart.dice}, {chart.kind})."),
    )
    parser.add_argument(
        "chart", metavar="CHART", help="the chart: NAME in the games folder, or FILE"
    )
    parser.add_argument("--games", metavar="DIR", help=GAMES_HELP)
    parser.add_argument("--saves", metavar="DIR", help="the saves folder (locates games/)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    if command == "table":
        return parser
    for field in fields(chart):
        help_text = one_line(field.help)
        if field.choices:
            names = "|".join(name for name, _ in chart.modifier(field.name).values)
            help_text += f" ({names})"
        parser.add_argument(field.flag, help=help_text, **field.kind.flag_options(field))
    if command == "resolve":
        parser.add_argument("--seed", metavar="S", help="seed the desk's dice")
        parser.add_argument("--save", metavar="FILE", help="append the combat to this save")
        parser.add_argument("--note", metavar="TEXT", help="a note kept with the logged combat")
    return parser


def combat_from_args(args: argparse.Namespace, chart: PlayerChart) -> CombatInput:
    """The parsed flags as a combat on `chart` (each modifier's value checked by the engine)."""
    from tui.engine.model import CombatInput
    from tui.engine.rulesets.common import parse_unit

    values: dict[str, Any] = {
        "attackers": tuple(parse_unit("attack", text) for text in args.attack),
        "defenders": tuple(parse_unit("defense", text) for text in args.defense),
        "column": args.column,
        "roll": integer_value("roll", args.roll),
    }
    modifiers: list[tuple[str, Any]] = []
    for mod in chart.modifiers:
        raw = getattr(args, mod.name.replace("-", "_"))
        if raw is None or raw is False:
            continue
        if mod.input == "tick":
            value: Any = True
        elif mod.input == "choice":
            value = raw.strip().lower()
        else:
            value = integer_value(mod.name, raw)
        modifiers.append((mod.name, value))
    return CombatInput(ruleset=chart.ruleset, modifiers=tuple(modifiers), **values)


def command_line(combat: CombatInput, chart: PlayerChart) -> list[str]:
    """The `crtdesk resolve` arguments that give `combat` on `chart`."""
    args = ["resolve", chart.name]
    for unit in combat.attackers:
        args += ["--attack", str(unit.factor)]
    for unit in combat.defenders:
        args += ["--defense", str(unit.factor)]
    if combat.column is not None:
        args += ["--column", combat.column]
    if combat.roll is not None:
        args += ["--roll", str(combat.roll)]
    for name, value in combat.modifiers:
        if value is True:
            args.append(f"--{name}")
        elif value not in (None, False):
            args += [f"--{name}", str(value)]
    return args


def chart_json(chart: PlayerChart) -> dict[str, Any]:
    """The chart as the CLI prints it with --json."""
    from tui.engine.cells import plain

    return {
        "ruleset": chart.ruleset,
        "title": chart.title,
        "dice": chart.dice,
        "kind": chart.kind,
        "columns": list(chart.columns),
        "left": chart.left or "end",
        "right": chart.right or "end",
        "low": chart.low or "clamp",
        "high": chart.high or "clamp",
        "rows": {row.label: plain(row.cells) for row in chart.rows},
        "results": dict(chart.results),
        "modifiers": [
            {"name": m.name, "label": m.label, "input": m.input, "effect": m.effect}
            for m in chart.modifiers
        ],
        "caps": {"drm": chart.drm_cap, "shift": chart.shift_cap},
        "digest": chart.digest,
    }


def chart_text(chart: PlayerChart) -> str:
    """The chart as printed text: the grid, the ends, the results and the modifiers; every
    text from the file shown as text."""
    from tui.engine.rulesets.charts.chart import effect_text

    texts = [[cell_text(c) for c in row.cells] for row in chart.rows]
    labels = [row.label for row in chart.rows]
    roll = f"{chart.dice}+DRM" if any(m.effect == "drm" for m in chart.modifiers) else chart.dice
    key_width = max(len(roll), *(len(k) for k in labels))
    widths = [max(len(col), *(len(t[i]) for t in texts)) for i, col in enumerate(chart.columns)]
    lines = [one_line(f"{chart.title} ({chart.ruleset}, {chart.kind} columns)")]
    lines.append(
        f"{roll:>{key_width}}  "
        + "  ".join(one_line(c).ljust(w) for c, w in zip(chart.columns, widths, strict=True))
    )
    for label, cells in zip(labels, texts, strict=True):
        lines.append(
            f"{label:>{key_width}}  "
            + "  ".join(one_line(c).ljust(w) for c, w in zip(cells, widths, strict=True))
        )
    lines.append("")
    lines.append(
        f"Below the first column: {chart.left or 'read the first column'}; beyond the last: "
        f"{chart.right or 'read the last column'}"
    )
    lines.append(
        f"A roll below the rows: {chart.low or 'read the first row'}; above them: "
        f"{chart.high or 'read the last row'}"
    )
    if chart.drm_cap is not None or chart.shift_cap is not None:
        caps = []
        if chart.drm_cap is not None:
            caps.append(f"net DRM at most {chart.drm_cap} either way")
        if chart.shift_cap is not None:
            caps.append(f"net shift at most {chart.shift_cap} columns either way")
        lines.append("Caps: " + "; ".join(caps))
    lines += ["", "Results:"] + [one_line(f"  {c:5} {m}") for c, m in chart.results.items()]
    if chart.modifiers:
        lines += ["", "Modifiers:"]
        lines += [one_line(f"  --{m.name}  {effect_text(m)}") for m in chart.modifiers]
    if chart.rulings:
        lines += ["", "Rulings:"] + [one_line(f"  {r}") for r in chart.rulings]
    return "\n".join(line.rstrip() for line in lines)


def _cmd_check(args: argparse.Namespace, tables: Tables) -> int:
    from tui.engine.rulesets.charts.reading import load_chart

    print(one_line(load_chart(args.file).summary()))
    return 0


def _cmd_games(args: argparse.Namespace, tables: Tables) -> int:
    from tui.engine.rulesets.charts.folder import read_games

    shelf = read_games(folder_given(args.games))
    if args.json:
        data = {
            "folder": str(shelf.folder),
            "games": [{"id": c.ruleset, "title": c.title, "dice": c.dice} for c in shelf.charts],
            "broken": list(shelf.broken),
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    print(one_line(f"Games folder {shelf.folder}: {len(shelf.charts)} chart(s)"))
    for chart in shelf.charts:
        print(one_line(f"  {chart.ruleset:20} {chart.title}  ({chart.dice}, {chart.kind})"))
    for line in shelf.broken:
        print(one_line(f"  broken: {line}"))
    return 0


def register(subparsers: Subcommands) -> None:
    """Add check-table and games."""
    check = subparsers.add_parser(
        "check-table", help="check a player's chart file: one line, exit 2 when it is broken"
    )
    check.add_argument("file", metavar="FILE")
    check.set_defaults(func=_cmd_check)
    games = subparsers.add_parser("games", help="list the player's charts in the games folder")
    games.add_argument("--games", metavar="DIR", help=GAMES_HELP)
    games.add_argument("--json", action="store_true")
    games.set_defaults(func=_cmd_games)
