"""The `crtdesk` command's entry point, and the desk's start-up without the cyclic garbage
collector.

Starting the desk makes a few hundred thousand objects (Textual's modules, the charts, the
first screen) and almost no garbage cycles, yet the collector walked them again and again
while they were made: some 40 ms of a combat screen's first frame, a full collection among
them. A desk command (`crtdesk`, `crtdesk open`, `crtdesk review`) therefore starts with the
collector paused, before anything is imported, and the desk resumes it once its first frame
is drawn. What start-up made lives as long as the desk does, so it is frozen out of the
collector's sight then (`gc.freeze`), and later collections walk only what came after.

This module and `tui.desk.launch` import nothing of the desk or textual before the pause, so
that the pause comes first.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from tui.desk.launch import opens_desk, pause_collector, resume_collector

__all__ = ["main", "opens_desk", "pause_collector", "resume_collector"]


def main(argv: Sequence[str] | None = None) -> int:
    """The `crtdesk` command: `tui.cli.main`, with a desk started as above."""
    args = list(sys.argv[1:] if argv is None else argv)
    if opens_desk(args):
        pause_collector()
    try:
        # Imported once the collector is paused: the CLI imports the desk (see above).
        from tui.cli import main as cli_main

        return cli_main(args)
    finally:
        resume_collector(freeze=False)  # a desk that ended before its first frame


if __name__ == "__main__":
    sys.exit(main())
