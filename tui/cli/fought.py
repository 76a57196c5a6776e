"""The game's units a CLI combat fights with: `--attacker-unit NAME` / `--defender-unit NAME`
(repeatable, with `--save`) fill the combat's units from their current state in the save,
and `--attacker-takes NAME=N` / `--defender-takes NAME=N` choose which of them take a loss
the owner chooses (else it is left open for `crtdesk units FILE take ... --combat N`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from tui.cli.parsing import UsageError
from tui.engine.kinds import SIDES

if TYPE_CHECKING:
    from tui.engine.model import CombatInput


def named(args: argparse.Namespace) -> dict[str, list[str]]:
    """The units each side names (empty when none)."""
    return {side: list(getattr(args, f"{side}_unit", None) or []) for side in SIDES}


def takes_given(args: argparse.Namespace, names: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    """The owner's choices, NAME=N per side, checked against the side's named units."""
    out: dict[str, dict[str, int]] = {}
    for side in SIDES:
        for text in getattr(args, f"{side}_takes", None) or []:
            name, sep, amount = text.rpartition("=")
            name = name.strip()
            if not sep or not name or not amount.strip().isdigit():
                raise UsageError(
                    f"--{side}-takes {text!r}: expected NAME=N, a unit and a whole number >= 0"
                )
            if name not in names[side]:
                raise UsageError(
                    f"--{side}-takes {text!r}: {name!r} is not one of the {side}'s units "
                    f"(--{side}-unit: {', '.join(names[side]) or 'none given'})"
                )
            chosen = out.setdefault(side, {})
            if name in chosen:
                raise UsageError(f"--{side}-takes {text!r}: {name!r} given twice")
            chosen[name] = int(amount)
    return out


def with_units(
    args: argparse.Namespace, combat: CombatInput, names: dict[str, list[str]]
) -> CombatInput:
    """The combat with each named unit added as the save's game has it now (its current
    factor, an OCS counter whole; named, as the desk's rows name it). SaveError (one
    line) names a unit not in the game, eliminated, or of the wrong side."""
    if not any(names.values()):
        return combat
    if not args.save:
        raise UsageError(
            "--attacker-unit and --defender-unit name a game's units: give --save FILE"
        )
    # Imported by a command that names units: the combat commands start without the store.
    from tui import saves
    from tui.cli.saves import _path
    from tui.saves.combats import check_combat_units

    game = saves.game_state(_path(args.save, args.saves))
    check_combat_units(game, names)
    sides: dict[str, Any] = {}
    for side, field in (("attacker", "attackers"), ("defender", "defenders")):
        units = tuple(game.units[name].combat_unit() for name in names[side])
        sides[field] = getattr(combat, field) + units
    return replace(combat, **sides)
