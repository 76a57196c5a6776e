"""Save-file commands for the CLI (new, log, turn, marker) and `resolve --save`.
Placeholder: filled in by the save-store work."""

from __future__ import annotations

import argparse

from tui.engine.combat import CombatInput, Outcome


def register(subparsers: argparse._SubParsersAction) -> None:  # noqa: SLF001
    """Add the save-file subcommands."""


def record_combat(save: str, saves_dir: str | None, combat: CombatInput, outcome: Outcome) -> str:
    raise NotImplementedError
