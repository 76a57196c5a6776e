"""What the desk's full screens (start, ruleset, review) share."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.screen import Screen


class DeskScreen(Screen[None]):
    """A full screen, styled once when it is first shown.

    Textual restyles every node of a screen each time it is shown (ScreenResume), first
    time included, though each node was styled as it was mounted a moment before: on a
    combat screen's first frame that second pass was about a tenth of the work. It is
    skipped the first time only; later resumes restyle as Textual does (the theme or a
    class may have changed while the screen was hidden)."""

    _shown_once = False

    def post_message(self, message: Message) -> bool:
        if isinstance(message, events.ScreenResume) and not self._shown_once:
            self._shown_once = True
            message.refresh_styles = False
        return super().post_message(message)
