"""The desk's screens: start, one per ruleset, log review, help and dialogs."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from tui.engine import registry

if TYPE_CHECKING:
    from tui.desk.screens.ruleset import RulesetScreen


def screen_for(ruleset: str) -> RulesetScreen:
    """The screen for one ruleset in play: the one its Ruleset names ("module:Class"),
    imported when first shown (the desk opened on one ruleset loads only its screen)."""
    module, _, name = registry.get(ruleset).screen.partition(":")
    screen: RulesetScreen = getattr(import_module(module), name)(ruleset)
    return screen
