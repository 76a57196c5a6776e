"""The headless engine: tables, odds, dice and one resolver per ruleset. Never imports
textual or rich.

The names below are read from their modules when first asked for, so importing one small
module (`tui.engine.tables`, `tui.engine.dice`) does not load every ruleset: the desk's
start screen and the save store pay only for what they use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.engine.combat import CombatInput, Distribution, Outcome, Unit, distribution, resolve
    from tui.engine.errors import InputError
    from tui.engine.tables import Tables, TablesError, default_tables, load_tables

# Each public name and the module that defines it.
_HOMES = {
    "CombatInput": "combat",
    "Distribution": "combat",
    "Outcome": "combat",
    "Unit": "combat",
    "distribution": "combat",
    "resolve": "combat",
    "InputError": "errors",
    "Tables": "tables",
    "TablesError": "tables",
    "default_tables": "tables",
    "load_tables": "tables",
}

__all__ = [
    "CombatInput",
    "Distribution",
    "InputError",
    "Outcome",
    "Tables",
    "TablesError",
    "Unit",
    "default_tables",
    "distribution",
    "load_tables",
    "resolve",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
