"""The title line of the full screens (TitleBar): what Textual's Header showed, in one
widget."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from tests.conftest import make_app, settle
from tui.desk.app import CrtDeskApp
from tui.desk.widgets.title import TitleBar


def title_line(app: CrtDeskApp) -> str:
    return app.screen.query_one(TitleBar).render_line(0).text


async def test_the_title_follows_the_screen_and_is_centred(tmp_path: Path) -> None:
    app = make_app(tmp_path / "saves", rulesets=["pod-basic"], title="Bastogne")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        line = title_line(app)
        assert line.startswith(" ● ") and len(line) == 80
        title = "Bastogne — Turn 1 · tester · Pair-o-Dice, Basic game"
        # Centred between the icon's 8 cells and the clock's 10, as the Header put it.
        assert line[8:70].strip() == title
        assert line.index("Bastogne") == 8 + (62 - len(title)) // 2
        app.screen.sub_title = "Turn 2"
        await pilot.pause()
        assert title_line(app)[8:70].strip() == "Bastogne — Turn 2"


async def test_a_long_title_is_cut_with_an_ellipsis(tmp_path: Path) -> None:
    app = make_app(tmp_path / "saves", rulesets=["pod-basic"], title="A" * 100)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        line = title_line(app)
        assert len(line) == 80 and line[8:70].endswith("…") and line[70:] == " " * 10


async def test_a_click_on_the_icon_opens_the_command_palette(tmp_path: Path) -> None:
    app = make_app(tmp_path / "saves", rulesets=["pod-basic"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.click(TitleBar, offset=(30, 0))
        await settle(pilot)
        assert not isinstance(app.screen, CommandPalette)
        await pilot.click(TitleBar, offset=(1, 0))
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)


# The Geometric Shapes of Windows Glyph List 4, the set the common fonts cover.
WGL4_SHAPES = {0x25A0, 0x25A1, 0x25AA, 0x25AB, 0x25AC, 0x25B2, 0x25BA, 0x25BC, 0x25C4}
WGL4_SHAPES |= {0x25CA, 0x25CB, 0x25CF, 0x25D8, 0x25D9, 0x25E6}


def test_the_icon_is_a_glyph_common_fonts_have() -> None:
    """The icon "⭘" (U+2B58) showed as a box in the browser: now one of WGL4's shapes."""
    from tui.desk.widgets.title import ICON

    assert len(ICON) == 1 and ord(ICON) in WGL4_SHAPES
