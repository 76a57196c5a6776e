"""How a desk command starts: whether the arguments open the desk, and the cyclic garbage
collector paused while the desk starts (the why is in tui.startup). Imports nothing, so the
entry point can pause before anything else loads."""

from __future__ import annotations

import gc
from collections.abc import Sequence

_paused = False


def opens_desk(argv: Sequence[str]) -> bool:
    """Whether these arguments open the desk rather than run a command of the CLI."""
    return not argv or argv[0] in ("open", "review") or argv[0].startswith(("--saves", "--games"))


def pause_collector() -> None:
    """Pause the cyclic collector until `resume_collector`."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector(freeze: bool = True) -> None:
    """Resume the collector `pause_collector` paused, with what start-up made frozen
    (unless `freeze` is False: a desk that did not start). Nothing when it was not paused:
    a desk the tests run, say."""
    global _paused
    if _paused:
        _paused = False
        if freeze:
            gc.freeze()
        gc.enable()
