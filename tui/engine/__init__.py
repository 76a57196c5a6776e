"""The headless engine: tables, odds, dice and one resolver per ruleset. Never imports
textual or rich."""

from tui.engine.combat import (
    CombatInput,
    Distribution,
    Outcome,
    Unit,
    distribution,
    resolve,
)
from tui.engine.errors import InputError
from tui.engine.tables import RULESET_IDS, Tables, TablesError, default_tables, load_tables

__all__ = [
    "RULESET_IDS",
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
