"""The CLI's combat commands: rulesets, table, resolve, odds; each ruleset's inputs as
flags, made from the rulesets' schemas, and back (`combat_from_args`, `command_line`)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from tui.cli.parsing import Subcommands, UsageError, integer_value, seed_value

# The combat engine and its rulesets are imported by the commands that resolve: opening the
# desk (`crtdesk`, `crtdesk open`) pays only for what its first screen shows.
from tui.engine import registry
from tui.engine.errors import InputError
from tui.engine.ruleset import Ruleset
from tui.engine.schema import Field
from tui.engine.tables import Tables, default_tables
from tui.engine.text import cell_text, die_text, one_line

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution, Outcome, Unit


def _readers_text(readers: tuple[str, ...]) -> str:
    """ "pod-basic/super/ultra", "ocs, daynight": who reads a flag, for its help."""
    family = {r.id: r.family for r in registry.rulesets()}
    rest = list(readers)
    for name in dict.fromkeys(family[r] for r in readers if family.get(r)):
        kin = [r for r in readers if family.get(r) == name]
        if len(kin) > 1:
            rest = [r for r in rest if r not in kin]
            rest.insert(0, f"{name}-" + "/".join(r.removeprefix(f"{name}-") for r in kin))
    return ", ".join(rest)


def _combat_flags(parser: argparse.ArgumentParser, tables: Tables | None = None) -> None:
    """Every built-in ruleset's inputs as flags, made from the rulesets' fields."""
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
    """One field as a flag, as its kind takes it."""
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


def _own_flags(parser: argparse.ArgumentParser, ruleset: Ruleset, tables: Tables) -> None:
    """A ruleset that is not built in (a player's chart, one registered): its own fields."""
    parser.add_argument("ruleset", metavar="RULESET", help=f"{ruleset.id}, or its chart file")
    group = parser.add_argument_group(ruleset.cli_group or ruleset.id)
    for field in ruleset.flags:
        help_text = one_line(field.help)
        if field.choices:
            help_text += " (" + "|".join(str(v) for v, _ in field.options(ruleset.id, tables)) + ")"
        add_flag(group, field, help_text, tables)
    parser.add_argument("--json", action="store_true", help="print JSON")


def flag_fields(ruleset: Ruleset) -> tuple[Field, ...]:
    """The fields a ruleset's combat is read from on the command line."""
    if ruleset.id in registry.BUILT_IN_IDS:
        return tuple(f for f, readers in registry.cli_fields() if ruleset.id in readers)
    return ruleset.flags


def _dest(flag: str) -> str:
    return flag.removeprefix("--").replace("-", "_")


def combat_from_args(args: argparse.Namespace) -> CombatInput:
    """Turn parsed flags into a CombatInput, each read by its field's kind; a field the
    combat does not hold by name (a player's chart's modifier) is kept in `modifiers`."""
    from tui.engine.model import CombatInput

    ruleset = registry.get(args.ruleset)
    held = CombatInput.__dataclass_fields__
    values: dict[str, Any] = {}
    modifiers: list[tuple[str, Any]] = []
    fields = (
        [f for f, _ in registry.cli_fields()]
        if ruleset.id in registry.BUILT_IN_IDS
        else list(ruleset.flags)
    )
    for field in fields:
        raw = getattr(args, _dest(field.flag), None)
        kind, name = field.kind, field.name
        if raw is None or raw == [] or (raw is False and kind == "tick"):
            continue
        value = read_flag(field, raw)
        if name not in held:
            modifiers.append((name, value))
            continue
        if kind in ("units", "ocs-attackers", "ocs-defenders"):
            value = values.get(name, ()) + value  # --attack and --attacker both add units
        values[name] = value
    if modifiers:
        values["modifiers"] = tuple(modifiers)
    return CombatInput(ruleset=ruleset.id, **values)


def read_flag(field: Field, raw: Any) -> Any:
    """A flag's text (or texts, or tick) as its field's value."""
    from tui.engine.rulesets.common import parse_unit

    kind, name = field.kind, field.name
    if kind == "units":
        return tuple(parse_unit(field.aliases[0], text) for text in raw)
    if kind == "ocs-attackers":
        return tuple(_ocs_attacker(text) for text in raw)
    if kind == "ocs-defenders":
        return tuple(_ocs_defender(text) for text in raw)
    if kind == "dice-list":
        return tuple(integer_value(name, text) for text in raw)
    if kind in ("whole", "signed", "dice"):
        low = field.low if kind == "whole" and isinstance(field.low, int) else None
        return integer_value(name, raw, 0 if name == "caf" else low)
    if kind == "choice" and name == "mines_cdf":
        return integer_value(name, raw)
    if kind == "choice":
        return raw.strip().lower()
    return raw


def command_line(combat: CombatInput) -> list[str]:
    """The `crtdesk resolve` arguments that give `combat` (every input it holds, dice rolled
    by hand and answers included): the inverse of `combat_from_args`, from its fields."""
    from tui.engine.model import CombatInput

    ruleset = registry.get(combat.ruleset)
    blank = CombatInput(combat.ruleset)
    set_values = dict(combat.modifiers)
    args = ["resolve", registry.chart_name(ruleset.id) or ruleset.id]
    for field in flag_fields(ruleset):
        if field.name in CombatInput.__dataclass_fields__:
            value = getattr(combat, field.name)
            if value == getattr(blank, field.name):
                continue
        else:
            value = set_values.get(field.name)
            if value is None or value is False:
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
        {"id": r.id, "title": r.title(tables), "dice": r.dice(tables)}
        for r in registry.rulesets()
        if registry.chart_name(r.id) is None
    ]
    if args.json:
        print(json.dumps(items, indent=2))
    else:
        for item in items:
            print(f"{item['id']:10} {item['title']}  ({item['dice']})")
    return 0


def _cmd_table(args: argparse.Namespace, tables: Tables) -> int:
    ruleset = registry.get(args.ruleset)
    if args.json:
        print(json.dumps(ruleset.chart_json(tables), indent=2, ensure_ascii=False))
    else:
        print(ruleset.chart_text(tables))
    return 0


def _cmd_resolve(args: argparse.Namespace, tables: Tables) -> int:
    if args.roll is not None and args.seed is not None:
        raise UsageError(
            "resolve: give --roll (dice rolled by hand) or --seed (the desk's dice), not both"
        )
    if (args.target is not None or args.note is not None) and not args.save:
        flag = "--target" if args.target is not None else "--note"
        raise UsageError(f"resolve: {flag} is kept in a save file: give --save FILE with it")
    from tui.engine.procedure import answer_from, card_played_after

    combat = combat_from_args(args)
    seed = seed_value(args.seed)
    if args.save:
        from tui.cli import saves as cli_saves

        # The game's own options (the Ultra mines CDF) decide the combat it is saved to, and
        # a player's chart resolves on the copy the game keeps.
        cli_saves.check_in_play(args.save, args.saves, registry.get(combat.ruleset))
        combat = cli_saves.combat_for_game(args.save, args.saves, combat, tables)
    # The one procedure the desk follows too: the dice no flag gave are rolled, each choice
    # is answered by its flag (or left open, and the result says who still chooses).
    # Dice from a seed are logged as seeded, with it: the same seed gives the same dice.
    # A card played after the roll (the Joker, Stanfill) is played after it, as F9 plays
    # it: the roll is logged, then the card amending it.
    (combat, outcome), card = card_played_after(combat, tables, answer_from(combat, None, seed))
    saved = None
    if args.save:
        from tui.cli import saves as cli_saves

        saved, seq = cli_saves.record_combat(
            args.save, args.saves, combat, outcome, target=args.target, note=args.note
        )
        if card is not None:
            more, _ = cli_saves.record_combat(
                args.save,
                args.saves,
                card.combat,
                card.outcome,
                target=args.target,
                note=card.note(seq),
                amends=seq,
            )
            saved += f"\n{more} ({card.note(seq)})"
    if card is not None:
        outcome = card.outcome
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


def own_parser(command: str, ruleset: Ruleset, tables: Tables) -> argparse.ArgumentParser:
    """`crtdesk resolve|odds|table RULESET ...` for a ruleset that is not built in: the same
    commands, with its own fields as flags."""
    from tui.cli.parsing import Parser

    parser = Parser(
        prog=f"crtdesk {command} {registry.chart_name(ruleset.id) or ruleset.id}",
        description=one_line(f"{ruleset.title(tables)} ({ruleset.dice(tables)})."),
    )
    parser.add_argument("--games", metavar="DIR", help=GAMES_HELP)
    parser.add_argument("--saves", metavar="DIR", help="the saves folder (locates games/)")
    if command == "table":
        parser.add_argument("ruleset", metavar="RULESET")
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.set_defaults(func=_cmd_table)
        return parser
    _own_flags(parser, ruleset, tables)
    if command == "resolve":
        _resolve_flags(parser)
        parser.set_defaults(func=_cmd_resolve)
    else:
        parser.set_defaults(func=_cmd_odds)
    return parser


GAMES_HELP = "the games folder (default: games beside the saves folder, or $CRTDESK_GAMES)"


def _resolve_flags(res: argparse.ArgumentParser) -> None:
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
    _resolve_flags(res)
    res.add_argument(
        "--saves", metavar="DIR", help="the saves folder (default saves/ or $CRTDESK_SAVES)"
    )
    res.set_defaults(func=_cmd_resolve)
    odds = subparsers.add_parser("odds", help="exact chance of every result for a combat")
    _combat_flags(odds)
    odds.set_defaults(func=_cmd_odds)
