"""The CLI's combat commands: rulesets, table, resolve, odds; each ruleset's inputs as
flags, made from the rulesets' schemas, and back (`combat_from_args`, `command_line`)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from tui.cli.parsing import Subcommands, UsageError, seed_value

# The combat engine and its rulesets are imported by the commands that resolve: opening the
# desk (`crtdesk`, `crtdesk open`) pays only for what its first screen shows.
from tui.engine.errors import InputError
from tui.engine.tables import RULESET_IDS, Tables, default_tables
from tui.engine.text import cell_text, die_text, table_json, table_text

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution, Outcome

_GROUPS = {
    "pod-basic": "Pair-o-Dice",
    "pod-boom": "Big Boom (pod-boom)",
    "ocs": "OCS",
    "rivets": "Rivets",
    "daynight": "Day/Night",
}


def _readers_text(readers: tuple[str, ...]) -> str:
    """ "pod-basic/super/ultra", "ocs, daynight": who reads a flag, for its help."""
    pod = [r for r in readers if r in ("pod-basic", "pod-super", "pod-ultra")]
    rest = [r for r in readers if r not in pod]
    if len(pod) > 1:
        rest.insert(0, "pod-" + "/".join(r.removeprefix("pod-") for r in pod))
    else:
        rest = [*pod, *rest]
    return ", ".join(rest)


def _combat_flags(parser: argparse.ArgumentParser, tables: Tables | None = None) -> None:
    """Every ruleset's inputs as flags, made from the rulesets' schemas."""
    from tui.engine import schema

    tables = tables or default_tables()
    parser.add_argument("ruleset", metavar="RULESET", help="one of " + ", ".join(RULESET_IDS))
    groups: dict[str, Any] = {}
    for field, readers in schema.cli_fields():
        everyone = set(readers) == set(RULESET_IDS) or len(readers) >= len(RULESET_IDS) - 1
        if everyone:
            where: Any = parser
            help_text = field.help
        else:
            title = _GROUPS.get(readers[0], "Pair-o-Dice")
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
        help_text += field.kind.range_said(field, tables)
        where.add_argument(field.flag, help=help_text, **field.kind.flag_options(field))
    parser.add_argument("--json", action="store_true", help="print JSON")


def _dest(flag: str) -> str:
    return flag.removeprefix("--").replace("-", "_")


def combat_from_args(args: argparse.Namespace) -> CombatInput:
    """Turn parsed flags into a CombatInput, each read by its field's kind."""
    from tui.engine import schema
    from tui.engine.model import CombatInput

    if args.ruleset not in RULESET_IDS:
        raise InputError(
            "ruleset", args.ruleset, "one of " + ", ".join(RULESET_IDS), choices=RULESET_IDS
        )
    values: dict[str, Any] = {}
    for field, _ in schema.cli_fields():
        value = field.kind.from_flag(field, getattr(args, _dest(field.flag), None))
        if value is not None:
            values[field.name] = field.kind.merge(values.get(field.name), value)
    return CombatInput(ruleset=args.ruleset, **values)


def command_line(combat: CombatInput) -> list[str]:
    """The `crtdesk resolve` arguments that give `combat` (every input it holds, dice rolled
    by hand and answers included): the inverse of `combat_from_args`, from the schema."""
    from tui.engine import schema
    from tui.engine.model import CombatInput

    blank = CombatInput(combat.ruleset)
    args = ["resolve", combat.ruleset]
    for field, readers in schema.cli_fields():
        value = getattr(combat, field.name)
        if combat.ruleset not in readers or value == getattr(blank, field.name):
            continue
        args += field.kind.to_flags(field, value)
    return args


def outcome_text(outcome: Outcome) -> str:
    totals = ""
    if outcome.attack_total is not None:
        totals = f"attack {outcome.attack_total}"
        if outcome.defense_total is not None:
            totals += f" vs defence {outcome.defense_total}"
    head = [outcome.ruleset]
    if totals:
        head.append(totals)
    ratio = outcome.ratio if outcome.ratio != outcome.odds else None
    for name, value in (
        ("odds", outcome.odds),
        ("ratio", ratio),
        ("column", outcome.column),
        ("roll", outcome.roll),
    ):
        if value is not None:
            head.append(f"{name} {value}")
    lines = ["  ".join(head), f"Result: {cell_text(outcome.cell)}", outcome.explanation]
    supply = outcome.effects.get("supply")
    if supply:
        paid = supply.get("attacker")
        attacker = f"{paid}T" if paid is not None else "not known (give --attacker with steps)"
        lines.append(f"Supply: attacker {attacker}, defender {supply['defender']}T")
    lines.append("Trace:")
    lines += [f"  {step}" for step in outcome.trace]
    lines += [f"  dice: {die.purpose}: {die_text(die)}" for die in outcome.dice]
    return "\n".join(lines)


def _bar(probability: float, width: int = 20) -> str:
    filled = round(probability * width)
    return "#" * filled + "." * (width - filled)


def _cmd_rulesets(args: argparse.Namespace, tables: Tables) -> int:
    items = [
        {"id": r, "title": tables.title(r), "dice": tables.data[r]["dice"]} for r in RULESET_IDS
    ]
    if args.json:
        print(json.dumps(items, indent=2))
    else:
        for item in items:
            print(f"{item['id']:10} {item['title']}  ({item['dice']})")
    return 0


def _cmd_table(args: argparse.Namespace, tables: Tables) -> int:
    if args.ruleset not in RULESET_IDS:
        raise InputError(
            "ruleset", args.ruleset, "one of " + ", ".join(RULESET_IDS), choices=RULESET_IDS
        )
    if args.json:
        print(json.dumps(table_json(args.ruleset, tables), indent=2, ensure_ascii=False))
    else:
        print(table_text(args.ruleset, tables))
    return 0


def _cmd_resolve(args: argparse.Namespace, tables: Tables) -> int:
    if args.roll is not None and args.seed is not None:
        raise UsageError(
            "resolve: give --roll (dice rolled by hand) or --seed (the desk's dice), not both"
        )
    if (args.target is not None or args.note is not None) and not args.save:
        flag = "--target" if args.target is not None else "--note"
        raise UsageError(f"resolve: {flag} is kept in a save file: give --save FILE with it")
    from tui.engine.procedure import answer_from, run

    combat = combat_from_args(args)
    seed = seed_value(args.seed)
    if args.save:
        from tui.cli import saves as cli_saves

        # The game's own options (the Ultra mines CDF) decide the combat it is saved to.
        combat = cli_saves.combat_for_game(args.save, args.saves, combat, tables)
    # The one procedure the desk follows too: the dice no flag gave are rolled, each choice
    # is answered by its flag (or left open, and the result says who still chooses).
    # Dice from a seed are logged as seeded, with it: the same seed gives the same dice.
    combat, outcome = run(combat, tables, answer_from(combat, None, seed))
    saved = None
    if args.save:
        from tui.cli import saves as cli_saves

        saved = cli_saves.record_combat(
            args.save, args.saves, combat, outcome, target=args.target, note=args.note
        )
    if args.json:
        print(json.dumps(outcome.to_dict(), indent=2, ensure_ascii=False))
    else:
        print(outcome_text(outcome))
        if saved:
            print(saved)
    return 0


def _cmd_odds(args: argparse.Namespace, tables: Tables) -> int:
    from tui.engine.combat import distribution

    combat = combat_from_args(args)
    print_odds(combat, distribution(combat, tables), args.json)
    return 0


def print_odds(combat: CombatInput, result: Distribution, as_json: bool) -> None:
    """A combat's exact chances: one line per result, most likely first (or JSON)."""
    data = result.to_dict()
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    head = [combat.ruleset, f"odds {result.odds or '-'}"]
    if result.ratio and result.ratio != result.odds:
        head.append(f"ratio {result.ratio}")
    if result.column is not None or len(result.columns) <= 1:
        head.append(f"column {result.column or '-'}")
    else:
        read = ", ".join(column or "none" for column in result.columns)
        head.append(f"columns {read} (the dice decide)")
    print("  ".join(head))
    width = max(len(cell_text(o["cell"])) for o in data["outcomes"])
    for item in sorted(data["outcomes"], key=lambda o: -o["probability"]):
        print(
            f"  {item['probability'] * 100:6.2f}%  {_bar(item['probability'])}  "
            f"{cell_text(item['cell']).ljust(width)}  {item['meaning']}"
        )


def register(subparsers: Subcommands) -> None:
    """Add the combat commands: rulesets, table, resolve, odds."""
    rulesets = subparsers.add_parser("rulesets", help="list the rulesets")
    rulesets.add_argument("--json", action="store_true")
    rulesets.set_defaults(func=_cmd_rulesets)
    table = subparsers.add_parser("table", help="print a ruleset's tables")
    table.add_argument("ruleset", metavar="RULESET")
    table.add_argument("--json", action="store_true")
    table.set_defaults(func=_cmd_table)
    res = subparsers.add_parser("resolve", help="resolve one combat")
    _combat_flags(res)
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
    res.add_argument(
        "--saves", metavar="DIR", help="the saves folder (default saves/ or $CRTDESK_SAVES)"
    )
    res.set_defaults(func=_cmd_resolve)
    odds = subparsers.add_parser("odds", help="exact chance of every result for a combat")
    _combat_flags(odds)
    odds.set_defaults(func=_cmd_odds)
