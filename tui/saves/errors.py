"""The one error the save store raises: a message of one line."""

from __future__ import annotations


class SaveError(Exception):
    """A save file that cannot be read or written; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split("\n")))
