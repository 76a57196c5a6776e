"""What the desk's full screens (start, ruleset, review) share: styled once when first
shown (`compat.StyledOnceScreen`)."""

from __future__ import annotations

from tui.desk.compat import StyledOnceScreen


class DeskScreen(StyledOnceScreen[None]):
    """A full screen of the desk."""
