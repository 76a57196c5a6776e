"""The CLI's combat commands: rulesets, table, resolve, odds; each ruleset's inputs as
flags, made from the rulesets' schemas, and back (`combat_from_args`, `command_line`)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from tui.cli.parsing import Subcommands, UsageError, integer_value, seed_value

# The combat engine and its rulesets are imported by the commands that resolve: opening the
# desk (`crtdesk`, `crtdesk open`) pays only for what its first screen shows.
from tui.engine.errors import InputError
from tui.engine.tables import RULESET_IDS, Tables, default_tables
from tui.engine.text import cell_text, die_text, table_json, table_text

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution, Outcome, Unit

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
        low, high = field.bounds(tables)
        if field.kind in ("whole", "signed") and high is not None:
            help_text += f" ({low} to {high})"
        kind = field.kind
        if kind in ("units", "ocs-attackers", "ocs-defenders", "dice-list"):
            where.add_argument(
                field.flag, action="append", default=[], metavar=field.metavar, help=help_text
            )
        elif kind == "tick":
            where.add_argument(field.flag, action="store_true", help=help_text)
        elif kind == "maybe":
            where.add_argument(
                field.flag, action=argparse.BooleanOptionalAction, default=None, help=help_text
            )
        else:
            where.add_argument(field.flag, metavar=field.metavar, help=help_text)
    parser.add_argument("--json", action="store_true", help="print JSON")


def _dest(flag: str) -> str:
    return flag.removeprefix("--").replace("-", "_")


def combat_from_args(args: argparse.Namespace) -> CombatInput:
    """Turn parsed flags into a CombatInput, each read by its kind in the schema."""
    from tui.engine import schema
    from tui.engine.model import CombatInput
    from tui.engine.rulesets.common import parse_unit

    if args.ruleset not in RULESET_IDS:
        raise InputError(
            "ruleset", args.ruleset, "one of " + ", ".join(RULESET_IDS), choices=RULESET_IDS
        )
    values: dict[str, Any] = {}
    for field, _ in schema.cli_fields():
        raw = getattr(args, _dest(field.flag), None)
        kind, name = field.kind, field.name
        if raw is None or raw == [] or (raw is False and kind == "tick"):
            continue
        if kind == "units":
            value: Any = tuple(parse_unit(field.aliases[0], text) for text in raw)
        elif kind == "ocs-attackers":
            value = tuple(_ocs_attacker(text) for text in raw)
        elif kind == "ocs-defenders":
            value = tuple(_ocs_defender(text) for text in raw)
        elif kind == "dice-list":
            value = tuple(integer_value(name, text) for text in raw)
        elif kind in ("whole", "signed", "dice"):
            low = field.low if kind == "whole" and isinstance(field.low, int) else None
            value = integer_value(name, raw, 0 if name == "caf" else low)
        elif kind == "choice" and field.choices is not None and name == "mines_cdf":
            value = integer_value(name, raw)
        elif kind == "choice":
            value = raw.lower()
        else:
            value = raw
        if kind in ("units", "ocs-attackers", "ocs-defenders"):
            value = values.get(name, ()) + value  # --attack and --attacker both add units
        values[name] = value
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
        kind = field.kind
        if kind == "units":
            for unit in value:
                if unit.name is None:
                    text = str(unit.factor) + (f"@{unit.terrain}" if unit.terrain else "")
                    args += [field.flag, text]
        elif kind in ("ocs-attackers", "ocs-defenders"):
            for unit in value:
                if unit.name is not None:
                    args += [field.flag, _ocs_spec(unit, kind == "ocs-attackers")]
        elif kind == "tick":
            args.append(field.flag)
        elif kind == "maybe":
            args.append(field.flag if value else "--no-" + field.flag.removeprefix("--"))
        elif kind == "dice-list":
            for die in value:
                args += [field.flag, str(die)]
        else:
            args += [field.flag, str(value)]
    return args


def _ocs_spec(unit: Unit, attacker: bool) -> str:
    """An OCS counter as --attacker or --defender takes it."""
    if attacker:
        parts = [unit.name, unit.factor, unit.steps, unit.ar, unit.kind, unit.supply]
    else:
        parts = [unit.name, unit.factor, unit.steps, unit.re, unit.ar]
    return ":".join("" if part is None else str(part) for part in parts).rstrip(":")


def _ocs_fields(flag: str, text: str, names: tuple[str, ...], least: int) -> list[str]:
    parts = [part.strip() for part in text.split(":")]
    if not least <= len(parts) <= len(names) or not parts[0]:
        raise InputError(flag, text, ":".join(names) + f" (the first {least} given)")
    return parts


def _ocs_attacker(text: str) -> Unit:
    """An OCS attacking unit as typed: NAME:STRENGTH:STEPS:AR[:TYPE[:SUPPLY]]."""
    from tui.engine.model import Unit

    names = ("NAME", "STRENGTH", "STEPS", "AR", "TYPE", "SUPPLY")
    name, strength, steps, ar, *rest = _ocs_fields("attacker", text, names, 4)
    return Unit(
        integer_value(f"{name} strength", strength, 0),  # type: ignore[arg-type]
        name=name,
        steps=integer_value(f"{name} steps", steps, 0),
        ar=integer_value(f"{name} AR", ar, 0),
        kind=(rest[0].lower() if rest else "combat"),
        supply=(rest[1].lower() if len(rest) > 1 else "on-map"),
    )


def _ocs_defender(text: str) -> Unit:
    """An OCS defending unit as typed: NAME:STRENGTH:STEPS:RE:AR."""
    from tui.engine.model import Unit

    names = ("NAME", "STRENGTH", "STEPS", "RE", "AR")
    name, strength, steps, re_text, ar = _ocs_fields("defender", text, names, 5)
    try:
        size = float(re_text)
    except ValueError:
        raise InputError(f"{name} RE", re_text, "a number >= 0 (1, 0.5, 2)") from None
    return Unit(
        integer_value(f"{name} strength", strength, 0),  # type: ignore[arg-type]
        name=name,
        steps=integer_value(f"{name} steps", steps, 0),
        ar=integer_value(f"{name} AR", ar, 0),
        re=size,
    )


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
