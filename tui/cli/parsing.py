"""The CLI's parser: bad input is a UsageError (one line, exit status 2, never a
traceback), and a value typed after "=" is the value, "--" included."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from tui.engine.errors import InputError
from tui.engine.kinds import whole

EXIT_BAD_INPUT = 2

# Flags of the CLI's own, beside each ruleset's inputs (whose flags are in tui.engine.schema).
FLAGS = {
    "ruleset": "RULESET",
    "seed": "--seed",
    "rulesets": "--ruleset",  # new: the rulesets in play
    "ruleset_filter": "--ruleset",  # log: only combats of this ruleset
}


# The help of the flags that name the saves folder, said alike by every command.
SAVES_HELP = "the saves folder (default saves/ or $CRTDESK_SAVES)"
CREATE_HELP = "make the saves folder named by --saves or $CRTDESK_SAVES if it does not exist"


class UsageError(Exception):
    """A command line that cannot be run; the message is one line."""


# Python 3.11's argparse strips "--" from an option's value too, so `--roll=--` became []
# (a crash later, or a silent default). A value typed after "=" is the value, and is
# checked: "--" is carried through the parse as this stand-in and given back after.
_DASHES = "\ue000--"


def _dashes_kept(argv: Sequence[str]) -> list[str]:
    """`argv` with each `--flag=--` carrying the stand-in (nothing after a bare "--")."""
    kept = list(argv)
    for i, arg in enumerate(kept):
        if arg == "--":
            break
        flag, equals, value = arg.partition("=")
        if flag.startswith("--") and len(flag) > 2 and equals and value == "--":
            kept[i] = f"{flag}={_DASHES}"
    return kept


def _dashes_given_back(args: argparse.Namespace) -> argparse.Namespace:
    for name, value in vars(args).items():
        if value == _DASHES:
            setattr(args, name, "--")
        elif isinstance(value, list) and _DASHES in value:
            setattr(args, name, ["--" if item == _DASHES else item for item in value])
    return args


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}".replace(_DASHES, "--"))

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        typed = sys.argv[1:] if args is None else args
        return _dashes_given_back(super().parse_args(_dashes_kept(typed), namespace))


# The longest path, and name within it, a player may type (Linux's PATH_MAX less its NUL,
# and NAME_MAX, in bytes): a longer one is refused before the system is asked about it.
PATH_MOST = 4095
NAME_MOST = 255

# Each command line value that is a path: its flag as a message names it, and whether it
# names a folder (else a file).
PATH_ARGUMENTS = {
    "file": ("FILE", False),
    "save": ("--save", False),
    "output": ("--output", False),
    "saves": ("--saves", True),
    "games": ("--games", True),
}


def paths_checked(args: argparse.Namespace) -> None:
    """Every path a parsed command line holds, checked before use (see `path_checked`)."""
    for name, (flag, folder) in PATH_ARGUMENTS.items():
        value = getattr(args, name, None)
        if isinstance(value, str):
            path_checked(flag, value, folder=folder)


def path_checked(flag: str, text: str, *, folder: bool = False) -> Path:
    """A path typed for `flag`, checked before any use: not empty, not over the system's
    lengths, a `~` that names a home folder, and (for a file) a name at its end. UsageError
    (one line naming the value and what is allowed) when it is not."""
    kind = ("a saves folder" if flag == "--saves" else "a folder") if folder else "a file"
    if not text.strip():
        raise UsageError(f"{flag} {text!r}: empty; expected the name or path of {kind}")
    try:
        raw = os.fsencode(text)
    except UnicodeError:
        raise UsageError(f"{flag} {text!r}: not a name the system can hold") from None
    if len(raw) > PATH_MOST or any(len(part) > NAME_MOST for part in raw.split(b"/")):
        raise UsageError(
            f"{flag} {text!r}: too long; expected the path of {kind}: up to {PATH_MOST} "
            f"bytes, each name in it up to {NAME_MOST}"
        )
    try:
        path = Path(text).expanduser()
    except (RuntimeError, KeyError):
        raise UsageError(f"{flag} {text!r}: its '~' names no home folder") from None
    if not folder and (text.endswith(("/", os.sep)) or path.name in ("", ".", "..")):
        raise UsageError(f"{flag} {text!r}: names a folder; expected the name or path of a file")
    return path


def flag_for(field: str, value: object = None) -> str:
    if " " in field:  # one OCS unit's field ("Ariete supply"): its name says which
        return field
    if field in FLAGS:
        return FLAGS[field]
    # Imported when a message is worded: every command parses without the engine.
    from tui.engine.schema import flag

    return flag(field, value)


# A seed is kept with the dice it rolled (a save's whole numbers are 64-bit, as TOML's are).
SEED_RANGE = (-(2**63), 2**63 - 1)


def seed_value(text: str | None) -> int | None:
    """`--seed`: a whole number a save can keep with the dice it rolls."""
    seed = integer_value("seed", text)
    if seed is not None and not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
        low, high = SEED_RANGE
        raise InputError("seed", text, f"a whole number from {low} to {high}")
    return seed


def integer_value(field: str, text: str | None, low: int | None = None) -> int | None:
    """A whole number typed for `field` (None: not given), read as a whole-number field's
    kind reads it."""
    if text is None:
        return None
    return whole(field, text, low)
