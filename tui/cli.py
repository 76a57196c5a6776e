"""The headless CLI: rulesets, table, resolve, odds (and the save-file commands).

Bad input exits with status 2 and one line on stderr naming the flag, the value and what
is allowed; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

# The combat engine and its rulesets are imported by the commands that resolve: opening the
# desk (`crtdesk`, `crtdesk open`) pays only for what its first screen shows.
from tui.engine.errors import InputError
from tui.engine.tables import RULESET_IDS, Tables, TablesError, default_tables
from tui.startup import opens_desk
from tui.text import cell_text, die_text, one_line, table_json, table_text

if TYPE_CHECKING:
    from tui.engine.model import CombatInput, Outcome, Unit

__all__ = ["build_parser", "combat_from_args", "main", "outcome_text"]

EXIT_BAD_INPUT = 2

# Engine field names -> the flag a CLI user typed.
FLAGS = {
    "attack": "--attack",
    "defense": "--defense",
    "defender": "--defense",
    "column": "--column",
    "roll": "--roll",
    "ruleset": "RULESET",
    "attacker_card": "--attacker-card",
    "defender_card": "--defender-card",
    "buddy": "--buddy",
    "medal": "--medal",
    "morale_attack": "--morale-attack",
    "morale_defense": "--morale-defense",
    "obstacle": "--obstacle",
    "mines_cdf": "--mines-cdf",
    "step": "--step",
    "aaf": "--aaf",
    "caf": "--caf",
    "terrain": "--terrain",
    "attacker_ar": "--attacker-ar",
    "defender_ar": "--defender-ar",
    "hedgehog": "--hedgehog",
    "surprise_roll": "--surprise-roll",
    "attacker_option_retreat": "--attacker-retreat",
    "defender_option_retreat": "--defender-retreat",
    "shift_roll": "--shift-roll",
    "time": "--time",
    "drm": "--drm",
    "reserve": "--reserve",
    "press_on": "--press-on",
    "bcpc": "--bcpc",
    "hold": "--hold",
    "attacker_retreats": "--attacker-retreats",
    "reroll": "--reroll",
    "rerolls": "--reroll",
    "seed": "--seed",
    "rulesets": "--ruleset",  # new: the rulesets in play
    "ruleset_filter": "--ruleset",  # log: only combats of this ruleset
}


class UsageError(Exception):
    """A command line that cannot be run; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        # Python 3.11 strips "--" from an option's value too, so `--roll=--` became [] (a crash
        # later, or a silent default); a value typed after "=" is the value, and is checked.
        if action.option_strings and arg_strings == ["--"]:
            value = self._get_value(action, "--")
            self._check_value(action, value)
            return value if action.nargs in (None, argparse.OPTIONAL) else [value]
        return super()._get_values(action, arg_strings)


def _flag(field: str, value: object = None) -> str:
    if field == "hold" and value is False:
        return "--no-hold"
    if " " in field:  # one OCS unit's field ("Ariete supply"): its name says which
        return field
    return FLAGS.get(field, "--" + field.replace("_", "-"))


def _integer(field: str, text: str | None, low: int | None = None) -> int | None:
    if text is None:
        return None
    value = text.strip()
    sign = value[:1] in "+-" and value[:1] != ""
    digits = value[1:] if sign else value
    if not digits.isdigit() or not digits.isascii():
        allowed = "a whole number" + (f" >= {low}" if low is not None else ", + or -")
        raise InputError(field, text, allowed)
    from tui.engine.rulesets.common import whole_number

    number = whole_number(field, text, value)
    if low is not None and number < low:
        raise InputError(field, text, f"a whole number >= {low}")
    return number


def _combat_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ruleset", metavar="RULESET", help="one of " + ", ".join(RULESET_IDS))
    parser.add_argument(
        "--attack",
        action="append",
        default=[],
        metavar="N",
        help="an attacking unit's factor (repeat per unit); N@terrain in pod-super/ultra",
    )
    parser.add_argument(
        "--defense",
        action="append",
        default=[],
        metavar="N",
        help="a defending unit's factor (repeat per unit); N@terrain in pod-super/ultra",
    )
    parser.add_argument(
        "--column", metavar="LABEL", help="read this column instead of computing the odds"
    )
    pod = parser.add_argument_group("Pair-o-Dice")
    pod.add_argument("--attacker-card", metavar="CARD", help="ace|king|queen|jack|joker|stanfill")
    pod.add_argument("--defender-card", metavar="CARD", help="ace|king|queen|jack|joker|stanfill")
    pod.add_argument("--buddy", metavar="SIDE", help="who holds the Hero Buddy card at a Hero Site")
    pod.add_argument("--medal", metavar="SIDE", help="who holds the card for a Medal of Honor hex")
    pod.add_argument("--morale-attack", metavar="N", help="other +/- attack factors (morale)")
    pod.add_argument("--morale-defense", metavar="N", help="other +/- defence factors (morale)")
    pod.add_argument(
        "--obstacle", metavar="KIND", help="pod-ultra: beach|glider|mines obstacle defends"
    )
    pod.add_argument(
        "--mines-cdf",
        metavar="N",
        help="pod-ultra: the game's mines CDF (see crtdesk table pod-ultra)",
    )
    boom = parser.add_argument_group("Big Boom (pod-boom)")
    boom.add_argument(
        "--step", metavar="STEP", help="attrition|accuracy|direction|crt (default: the chain)"
    )
    boom.add_argument("--aaf", metavar="N", help="AA factor total on the route")
    boom.add_argument(
        "--long-range",
        action="store_true",
        help="target over half the bomber's range (adds the long-range AA bonus)",
    )
    boom.add_argument("--caf", metavar="N", help="CAF on target (crt step)")
    rivets = parser.add_argument_group("Rivets")
    rivets.add_argument(
        "--bcpc",
        action="store_true",
        help="rivets: the defenders are the enemy BCPC, which is never overrun (6-1+ is rolled)",
    )
    ocs = parser.add_argument_group("OCS and Day/Night")
    ocs.add_argument(
        "--terrain",
        metavar="T",
        help="ocs: open|close|very-close|extremely-close; daynight: forest|woods|rough|clear",
    )
    ocs.add_argument("--attacker-ar", metavar="N", help="ocs: the attacker's action rating")
    ocs.add_argument("--defender-ar", metavar="N", help="ocs: the defender's action rating")
    ocs.add_argument("--hedgehog", metavar="N", help="ocs: the defender's hedgehog level")
    ocs.add_argument(
        "--overrun",
        action="store_true",
        help="ocs: an overrun attack (overrun surprise thresholds)",
    )
    ocs.add_argument("--surprise-roll", metavar="N", help="ocs: the surprise 2d6 rolled by hand")
    ocs.add_argument("--shift-roll", metavar="N", help="ocs: the surprise shift 1d6 rolled by hand")
    ocs.add_argument(
        "--defender-unsupplied",
        action="store_true",
        help="ocs: the defender withholds combat supply and defends at half strength",
    )
    ocs.add_argument(
        "--attacker",
        action="append",
        default=[],
        metavar="SPEC",
        help="ocs: an attacking unit NAME:STRENGTH:STEPS:AR[:TYPE[:SUPPLY]] (repeat); TYPE "
        "combat|hq|dak-brigade, SUPPLY on-map|internal|none (defaults combat, on-map)",
    )
    ocs.add_argument(
        "--defender",
        action="append",
        default=[],
        metavar="SPEC",
        help="ocs: a defending unit NAME:STRENGTH:STEPS:RE:AR (repeat)",
    )
    ocs.add_argument(
        "--attacker-ar-unit", metavar="NAME", help="ocs: the attacker's AR unit (default highest)"
    )
    ocs.add_argument(
        "--defender-ar-unit", metavar="NAME", help="ocs: the defender's AR unit (default highest)"
    )
    ocs.add_argument("--attack-hexes", metavar="N", help="ocs: hexes the attack comes from")
    ocs.add_argument(
        "--nonadjacent-hexsides",
        action="store_true",
        help="ocs: the attacking hexes lie on two non-adjacent hexsides (no exploitation)",
    )
    ocs.add_argument(
        "--attacker-retreat",
        metavar="N",
        help="ocs: hexes of the attacker's option taken as a retreat (the rest in steps)",
    )
    ocs.add_argument(
        "--defender-retreat",
        metavar="N",
        help="ocs: hexes of the defender's option taken as a retreat (the rest in steps)",
    )
    ocs.add_argument(
        "--defender-ignores-options",
        action="store_true",
        help="ocs: after the attacker retreats, the defender ignores its options",
    )
    ocs.add_argument("--time", metavar="T", help="daynight: day|night")
    ocs.add_argument("--drm", metavar="N", help="daynight: the net die roll modifier")
    ocs.add_argument(
        "--reserve",
        metavar="N",
        help="daynight: on ENG (always rolled again), commit a reserve of N factors first",
    )
    ocs.add_argument(
        "--press-on", action="store_true", help="daynight: on BTL, take a step loss and roll again"
    )
    ocs.add_argument(
        "--hold",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="daynight: the defender's hex gives the step-loss-and-hold option, so D1/D2 may "
        "be taken as step losses; --no-hold: it does not, D1/D2 are retreats (default: "
        "not said, both readings named)",
    )
    ocs.add_argument(
        "--attacker-retreats",
        action="store_true",
        help="daynight: on A1/A1X/A2X the attacker retreats, disorganized, instead of "
        "losing a step",
    )
    ocs.add_argument(
        "--reroll",
        action="append",
        default=[],
        metavar="N",
        help="daynight: a re-roll's row rolled by hand (repeat)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


def combat_from_args(args: argparse.Namespace) -> CombatInput:
    """Turn parsed flags into a CombatInput, checking every number."""
    from tui.engine.model import CombatInput
    from tui.engine.rulesets.common import parse_unit

    if args.ruleset not in RULESET_IDS:
        raise InputError("ruleset", args.ruleset, "one of " + ", ".join(RULESET_IDS))
    roll = getattr(args, "roll", None)
    attackers = tuple(parse_unit("attack", text) for text in args.attack)
    attackers += tuple(_ocs_attacker(text) for text in args.attacker)
    defenders = tuple(parse_unit("defense", text) for text in args.defense)
    defenders += tuple(_ocs_defender(text) for text in args.defender)
    return CombatInput(
        ruleset=args.ruleset,
        attackers=attackers,
        defenders=defenders,
        column=args.column,
        roll=_integer("roll", roll),
        attacker_card=args.attacker_card.lower() if args.attacker_card else None,
        defender_card=args.defender_card.lower() if args.defender_card else None,
        buddy=args.buddy.lower() if args.buddy else None,
        medal=args.medal.lower() if args.medal else None,
        morale_attack=_integer("morale_attack", args.morale_attack) or 0,
        morale_defense=_integer("morale_defense", args.morale_defense) or 0,
        obstacle=args.obstacle.lower() if args.obstacle else None,
        mines_cdf=_integer("mines_cdf", args.mines_cdf),
        step=args.step.lower() if args.step else None,
        aaf=_integer("aaf", args.aaf, 0),
        caf=_integer("caf", args.caf, 0),
        long_range=args.long_range,
        terrain=args.terrain,
        attacker_ar=_integer("attacker_ar", args.attacker_ar, 0) or 0,
        defender_ar=_integer("defender_ar", args.defender_ar, 0) or 0,
        hedgehog=_integer("hedgehog", args.hedgehog, 0) or 0,
        overrun=args.overrun,
        defender_unsupplied=args.defender_unsupplied,
        attacker_ar_unit=args.attacker_ar_unit,
        defender_ar_unit=args.defender_ar_unit,
        attack_hexes=_integer("attack_hexes", args.attack_hexes, 1) or 1,
        nonadjacent_hexsides=args.nonadjacent_hexsides,
        attacker_option_retreat=_integer("attacker_retreat", args.attacker_retreat, 0),
        defender_option_retreat=_integer("defender_retreat", args.defender_retreat, 0),
        defender_ignores_options=args.defender_ignores_options,
        surprise_roll=_integer("surprise_roll", args.surprise_roll),
        shift_roll=_integer("shift_roll", args.shift_roll),
        time=args.time,
        drm=_integer("drm", args.drm) or 0,
        reserve=_integer("reserve", args.reserve, 0),
        press_on=args.press_on,
        rerolls=tuple(_integer("reroll", text) for text in args.reroll),  # type: ignore[misc]
        bcpc=args.bcpc,
        hold=args.hold,
        attacker_retreats=args.attacker_retreats,
    )


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
        _integer(f"{name} strength", strength, 0),  # type: ignore[arg-type]
        name=name,
        steps=_integer(f"{name} steps", steps, 0),
        ar=_integer(f"{name} AR", ar, 0),
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
        _integer(f"{name} strength", strength, 0),  # type: ignore[arg-type]
        name=name,
        steps=_integer(f"{name} steps", steps, 0),
        ar=_integer(f"{name} AR", ar, 0),
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
        raise InputError("ruleset", args.ruleset, "one of " + ", ".join(RULESET_IDS))
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
    from tui.engine.combat import resolve

    combat = combat_from_args(args)
    seed = _integer("seed", args.seed)
    if args.save:
        from tui import cli_saves

        # The game's own options (the Ultra mines CDF) decide the combat it is saved to.
        combat = cli_saves.combat_for_game(args.save, args.saves, combat, tables)
    outcome = resolve(combat, tables, random.Random(seed) if seed is not None else None)
    saved = None
    if args.save:
        from tui import cli_saves

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
    result = distribution(combat, tables)
    data = result.to_dict()
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
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
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="crtdesk", description="A combat desk for hex-and-counter wargames.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    sub.add_parser("open", help="open the desk on a save file: crtdesk open FILE [--saves DIR]")
    sub.add_parser("review", help="open the desk on a save's log review: crtdesk review FILE")
    rulesets = sub.add_parser("rulesets", help="list the rulesets")
    rulesets.add_argument("--json", action="store_true")
    rulesets.set_defaults(func=_cmd_rulesets)
    table = sub.add_parser("table", help="print a ruleset's tables")
    table.add_argument("ruleset", metavar="RULESET")
    table.add_argument("--json", action="store_true")
    table.set_defaults(func=_cmd_table)
    res = sub.add_parser("resolve", help="resolve one combat")
    _combat_flags(res)
    res.add_argument("--roll", metavar="N", help="the total read against the rows, rolled by hand")
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
    odds = sub.add_parser("odds", help="exact chance of every result for a combat")
    _combat_flags(odds)
    odds.add_argument("--roll", metavar="N", help="fix the roll read against the rows")
    odds.set_defaults(func=_cmd_odds)
    from tui import cli_saves

    cli_saves.register(sub)
    from tui import serve

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
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        tables = default_tables()
        return args.func(args, tables)
    except InputError as err:
        _say(err.message(_flag(err.field, err.value)))
    except (UsageError, TablesError) as err:
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
        from tui.saves import SaveError
    except ImportError:
        return ()
    return (SaveError,)


def _serve_errors() -> tuple[type[Exception], ...]:
    from tui.serve import ServeError

    return (ServeError,)


def _open_desk(argv: list[str], review: bool = False) -> int:
    """`crtdesk [--saves DIR]`, or `crtdesk open FILE`: the Textual desk; `crtdesk review
    FILE` opens it on that save's log review."""
    try:
        from tui.app import run_desk
    except ImportError:
        print(
            "crtdesk: the desk's screens are not built yet; try `crtdesk --help` for the CLI",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    parser = _Parser(
        prog="crtdesk review" if review else "crtdesk open",
        description="Review a game's log on the desk." if review else "Open the combat desk.",
    )
    parser.add_argument(
        "file",
        nargs=None if review else "?",
        help="a save file: a path, or a name in the saves folder",
    )
    parser.add_argument(
        "--saves", metavar="DIR", help="the saves folder (default saves/ or $CRTDESK_SAVES)"
    )
    args = parser.parse_args(argv[1:] if argv and (review or argv[0] == "open") else argv)
    if review:
        return run_desk(args.file, args.saves, review=True)
    return run_desk(args.file, args.saves)


if __name__ == "__main__":
    sys.exit(main())
