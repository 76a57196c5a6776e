"""The CLI's combat commands: rulesets, table, resolve, odds; each ruleset's inputs read
from its flags (declared in tui.cli.commands from the rulesets' schemas), and back
(`combat_from_args`, `command_line`)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from tui.cli.commands import GAMES_HELP, odds_flags, own_flags, resolve_flags
from tui.cli.parsing import UsageError, seed_value

# The combat engine and its rulesets are imported by the commands that resolve: opening the
# desk (`crtdesk`, `crtdesk open`) pays only for what its first screen shows.
from tui.engine import registry
from tui.engine.ruleset import Ruleset
from tui.engine.schema import Field
from tui.engine.tables import Tables
from tui.engine.text import cell_text, die_text, one_line

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Distribution, Outcome


def flag_fields(ruleset: Ruleset) -> tuple[Field, ...]:
    """The fields a ruleset's combat is read from on the command line."""
    if ruleset.id in registry.BUILT_IN_IDS:
        return tuple(f for f, readers in registry.cli_fields() if ruleset.id in readers)
    return ruleset.flags


def _dest(flag: str) -> str:
    return flag.removeprefix("--").replace("-", "_")


def combat_from_args(args: argparse.Namespace) -> CombatInput:
    """Turn parsed flags into a CombatInput, each read by its field's kind (--attack and
    --attacker both add units); a field the combat does not hold by name (a player's
    chart's modifier) is kept in `modifiers`."""
    # Imported by the command that resolves: `crtdesk` opens the desk without the engine.
    from tui.engine.model import CombatInput

    ruleset = registry.get(args.ruleset)
    held = set(CombatInput.__struct_fields__)
    if ruleset.id not in registry.BUILT_IN_IDS:
        # A chart's modifier named like a field of CombatInput ("terrain") is a modifier.
        held &= {f.name for f in ruleset.logged_fields()}
    values: dict[str, Any] = {}
    modifiers: list[tuple[str, Any]] = []
    fields = (
        [f for f, _ in registry.cli_fields()]
        if ruleset.id in registry.BUILT_IN_IDS
        else list(ruleset.flags)
    )
    for field in fields:
        value = field.kind.from_flag(field, getattr(args, _dest(field.flag), None))
        if value is None:
            continue
        if field.name not in held:
            modifiers.append((field.name, value))
            continue
        values[field.name] = field.kind.merge(values.get(field.name), value)
    if modifiers:
        values["modifiers"] = tuple(modifiers)
    return CombatInput(ruleset=ruleset.id, **values)


def command_line(combat: CombatInput) -> list[str]:
    """The `crtdesk resolve` arguments that give `combat` (every input it holds, dice rolled
    by hand and answers included): the inverse of `combat_from_args`, from its fields."""
    # Imported by the command that resolves: `crtdesk` opens the desk without the engine.
    from tui.engine.model import CombatInput

    ruleset = registry.get(combat.ruleset)
    blank = CombatInput(combat.ruleset)
    set_values = dict(combat.modifiers)
    args = ["resolve", ruleset.cli_name]
    for field in flag_fields(ruleset):
        if field.name in CombatInput.__struct_fields__:
            value = getattr(combat, field.name)
            if value == getattr(blank, field.name):
                continue
        else:
            value = set_values.get(field.name)
            if value is None or value is False:
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
        {"id": r.id, "title": r.title(tables), "dice": r.dice(tables)}
        for r in registry.rulesets()
        if r.chart_copy is None
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
    # Imported by the command that resolves: `crtdesk` opens the desk without the engine.
    from tui.cli import fought
    from tui.engine.procedure import answer_from, card_played_after

    combat = combat_from_args(args)
    names = fought.named(args)
    takes = fought.takes_given(args, names)
    if takes and not args.save:
        raise UsageError("resolve: --attacker-takes and --defender-takes need --save FILE")
    combat = fought.with_units(args, combat, names)
    seed = seed_value(args.seed)
    if args.save:
        # Imported by the command that resolves: `crtdesk` opens the desk without the engine.
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
        # Imported by the command that resolves: `crtdesk` opens the desk without the engine.
        from tui.cli import saves as cli_saves

        saved, seq = cli_saves.record_combat(
            args.save,
            args.saves,
            combat,
            outcome,
            target=args.target,
            note=args.note,
            units=names,
            takes=takes,
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
    # Imported by the command that resolves: `crtdesk` opens the desk without the engine.
    from tui.cli import fought
    from tui.engine.combat import distribution

    combat = fought.with_units(args, combat_from_args(args), fought.named(args))
    if args.save:
        # Imported with a save only: odds start without the store.
        from tui import saves
        from tui.cli import saves as cli_saves

        # The save must be one (its units, Low and Exhausted markers, options are read).
        saves.game_state(cli_saves.save_file(args.save, args.saves))
        cli_saves.check_in_play(args.save, args.saves, registry.get(combat.ruleset))
        combat = cli_saves.combat_for_game(args.save, args.saves, combat, tables)
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
    # Imported by the command that resolves: `crtdesk` opens the desk without the engine.
    from tui.cli.parsing import Parser

    parser = Parser(
        prog=f"crtdesk {command} {ruleset.cli_name}",
        description=one_line(f"{ruleset.title(tables)} ({ruleset.dice(tables)})."),
    )
    parser.add_argument("--games", metavar="DIR", help=GAMES_HELP)
    parser.add_argument("--saves", metavar="DIR", help="the saves folder (locates games/)")
    if command == "table":
        parser.add_argument("ruleset", metavar="RULESET")
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.set_defaults(func=_cmd_table)
        return parser
    own_flags(parser, ruleset, tables)
    if command == "resolve":
        resolve_flags(parser)
        parser.set_defaults(func=_cmd_resolve)
    else:
        odds_flags(parser)
        parser.set_defaults(func=_cmd_odds)
    return parser
