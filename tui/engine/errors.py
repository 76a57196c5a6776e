"""Errors the engine reports about its inputs: each names the field, the value and what
is allowed, so a CLI flag or a form field can show it as one line."""

from __future__ import annotations


class InputError(ValueError):
    def __init__(self, field: str, value: object, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field}: {value!r} is not allowed; expected {allowed}")

    def message(self, name: str | None = None) -> str:
        """One line naming the field (or the given name for it), the value, what is allowed."""
        label = name or self.field
        if self.value is None:
            return f"{label}: missing; expected {self.allowed}"
        if isinstance(self.value, bool):
            return f"{label}: given, but not allowed; expected {self.allowed}"
        return f"{label}: {self.value!r} is not allowed; expected {self.allowed}"
