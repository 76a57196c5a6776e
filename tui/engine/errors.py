"""Errors the engine reports about its inputs: each names the field, the value and what
is allowed, so a CLI flag or a form field can show it as one line. A value given for a
list of choices is answered with the nearest one when it is near enough ("did you mean
pod-super?")."""

from __future__ import annotations

from collections.abc import Iterable


class InputError(ValueError):
    def __init__(
        self,
        field: str,
        value: object,
        allowed: str,
        *,
        choices: Iterable[object] = (),
        context: str = "",
    ) -> None:
        """`choices`: the values allowed, for the nearest to a mistyped one; `context`:
        said after "is not allowed" (" for the whole chain")."""
        self.field = field
        self.value = value
        self.allowed = allowed
        self.context = context
        self.suggestion = nearest(value, choices)
        said = f"{field}: {value!r} is not allowed{context}; expected {allowed}"
        super().__init__(said + self._hint())

    def message(self, name: str | None = None) -> str:
        """One line naming the field (or the given name for it), the value, what is allowed
        and, for a mistyped choice, the nearest one."""
        label = name or self.field
        if self.value is None:
            return f"{label}: missing; expected {self.allowed}"
        if isinstance(self.value, bool):
            return f"{label}: given, but not allowed; expected {self.allowed}"
        said = f"{label}: {self.value!r} is not allowed{self.context}; expected {self.allowed}"
        return said + self._hint()

    def _hint(self) -> str:
        return f"; did you mean {self.suggestion}?" if self.suggestion else ""


def nearest(value: object, choices: Iterable[object]) -> str | None:
    """The choice nearest to a mistyped `value`, when one is near enough; else None."""
    shown = [str(choice) for choice in choices]
    if not shown or not isinstance(value, str) or value in shown:
        return None
    import difflib  # only when a value is refused

    typed = value.strip().lower()
    lowered = {choice.lower(): choice for choice in shown}
    if typed in lowered:  # another case of a choice
        return lowered[typed]
    found = difflib.get_close_matches(typed, list(lowered), n=1, cutoff=0.6)
    return lowered[found[0]] if found else None


class ChartError(Exception):
    """A player's chart that cannot be used; the message is one line naming the place."""
