"""The `crtdesk` command's entry point, and the desk's start-up without the cyclic garbage
collector.

Starting the desk makes a few hundred thousand objects (Textual's modules, the charts, the
first screen) and almost no garbage cycles, yet the collector walked them again and again
while they were made: some 40 ms of a combat screen's first frame, a full collection among
them. A desk command (`crtdesk`, `crtdesk open`, `crtdesk review`) therefore starts with the
collector paused, before anything is imported, and the desk resumes it once its first frame
is drawn. What start-up made lives as long as the desk does, so it is frozen out of the
collector's sight then (`gc.freeze`), and later collections walk only what came after.

This module imports nothing of the desk before the pause, so that the pause comes first.
"""

from __future__ import annotations

import gc
import sys
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


def main(argv: Sequence[str] | None = None) -> int:
    """The `crtdesk` command: `tui.cli.main`, with a desk started as above."""
    args = list(sys.argv[1:] if argv is None else argv)
    if opens_desk(args):
        pause_collector()
    try:
        from tui.cli import main as cli_main

        return cli_main(args)
    finally:
        resume_collector(freeze=False)  # a desk that ended before its first frame


if __name__ == "__main__":
    sys.exit(main())
