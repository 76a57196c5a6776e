"""Who is at the keyboard, for the log's `who`: the same for the desk and the CLI.

Headless: no textual, no rich.
"""

from __future__ import annotations

import getpass
import os

PLAYER_ENV = "CRTDESK_PLAYER"


def player_name() -> str:
    """$CRTDESK_PLAYER if set (and not blank), else the OS user, else "uid N"."""
    name = os.environ.get(PLAYER_ENV, "")
    if name.strip():
        return name
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container with an unnamed uid)
        return f"uid {os.getuid()}"
