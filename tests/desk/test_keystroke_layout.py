"""A keystroke in a combat form redraws the field and the preview's changed lines in place:
the preview holds the rest of its pane (and on Big Boom every line a mission can show), so
the screen is laid out again only when a preview is taller than any before it (a layout of
a whole combat form costs more than a frame at 80x24, and redraws the whole pane). A roll
after the first redraws the result panel's lines in place too."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from textual.geometry import Region
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Input, Static

from tests.conftest import Desk, notes, settle
from tui import saves
from tui.desk.widgets.combat import OddsPreview, TypingForm
from tui.desk.widgets.markers import MarkerPanel
from tui.desk.widgets.result import ResultLines, ResultPanel
from tui.game import session
from tui.game.session import SaveState


def count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    layouts = [0]
    laid_out = Screen._refresh_layout

    def counted(self: Screen, *args: object, **kwargs: object) -> None:
        layouts[0] += 1
        laid_out(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    return layouts


def panel_text(panel: ResultPanel) -> str:
    return "\n".join(str(s.content) for s in panel.query(Static).results(Static))


def rows_of(rows: list[str], lines: list[str]) -> bool:
    """Whether `rows` are `lines` drawn a row each, a line too long cut short ("…")."""
    return len(rows) == len(lines) and all(
        row == line or (row.endswith("…") and line.startswith(row[:-1]))
        for row, line in zip(rows, lines, strict=True)
    )


async def quick(pilot: Pilot, attack: str, defence: str, *then: str) -> None:
    """The quick check typed (attack, Enter, defence), then the first attacker's factor
    focused again with the cursor at its end, and `then` typed there."""
    screen = pilot.app.screen
    screen.query_one("#attackers .factor", Input).focus()
    await pilot.press(*attack, "enter", *defence)
    screen.query_one("#attackers .factor", Input).focus()
    await pilot.press("end", *then)


def shown_rows(odds: OddsPreview) -> list[str]:
    """The preview's lines as drawn on the screen (trailing blanks dropped)."""
    size = odds.size
    rows = [strip.text.rstrip() for strip in odds.render_lines(Region(0, 0, *size))]
    while rows and not rows[-1]:
        rows.pop()
    return rows


@pytest.mark.parametrize("ruleset", ["pod-basic", "ocs", "pod-boom"])
async def test_typing_a_factor_lays_nothing_out_and_shows_the_new_odds(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, ruleset: str
) -> None:
    async with desk(rulesets=[ruleset]) as (app, pilot):
        await quick(pilot, "5", "4")
        await settle(pilot)
        field = app.screen.focused
        assert isinstance(field, Input) and field.value == "5"
        odds = app.screen.query_one(OddsPreview)
        headline = odds.texts["odds-head"].split("\n")[0]
        layouts = count_layouts(monkeypatch)
        for _ in range(2):
            await pilot.press("1")
            await settle(pilot)
            assert field.value == "51"
            # The field's scrolling area is as wide as Input's own watcher would make it.
            assert field.virtual_size.width == field.content_width == 3
            assert "51" in odds.texts["odds-head"]  # the new total, shown
            assert shown_rows(odds)[0] == odds.texts["odds-head"].split("\n")[0]
            await pilot.press("backspace")
            await settle(pilot)
            assert field.value == "5"
            assert shown_rows(odds)[0] == headline
        assert layouts[0] == 0


async def test_the_preview_keeps_its_height_from_the_empty_form_to_the_full_chart(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        # Counted from the screen prepared (its hidden result panel mounted, laid out once):
        # on a loaded machine the count began before that and took its layouts in.
        for _ in range(100):
            if app.screen.prepared:
                break
            await pilot.pause(0.01)
        await settle(pilot)
        odds = app.screen.query_one(OddsPreview)
        empty = odds.size.height
        assert odds.texts["chances"] == "" and odds.texts["problems"]  # the empty form
        layouts = count_layouts(monkeypatch)
        await pilot.press("5")
        app.screen.query_one("#defenders .factor", Input).value = "2"
        await settle(pilot)
        assert "Chances on" in odds.texts["chances"]  # the full chart, every result
        assert odds.size.height == empty
        assert layouts[0] == 0
        # A row per line: a chance too long for the pane is cut short ("…"), not wrapped.
        assert rows_of(shown_rows(odds), odds.content.split("\n"))


async def test_a_preview_taller_than_its_pane_keeps_its_likeliest_rows(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The side pane does not scroll: a preview taller than it is cut at the bottom, where
    the least likely results are; its height is held, so a shorter one lays nothing out."""
    from tui.desk.screens.ruleset import RulesetScreen

    # A pane shorter than any at 80x24, where the screen would say the size it needs.
    monkeypatch.setattr(RulesetScreen, "LEAST_SIZE", (80, 12))
    async with desk(rulesets=["pod-basic"], size=(80, 12)) as (app, pilot):
        await quick(pilot, "5", "2")  # 2-1: every result's chance
        await settle(pilot)
        odds = app.screen.query_one(OddsPreview)
        full = odds.content.split("\n")
        side = app.screen.query_one(".combat-side")
        assert odds.region.bottom > side.region.bottom  # taller than the pane: cut short
        assert odds.size.height == len(full)
        assert rows_of(shown_rows(odds), full)  # every row drawn; the pane shows the first
        # The totals, the column, what the next column needs, then the chances.
        assert full[2].startswith("+1 attack factor to 3-1")
        assert full[3].startswith("Chances on") and "16.7%" in full[4]
        layouts = count_layouts(monkeypatch)
        await pilot.press("1")  # 51:2, an automatic result: fewer lines, in place
        await settle(pilot)
        assert "odds AV" in odds.texts["odds-head"]
        assert odds.size.height == len(full) and layouts[0] == 0
        assert " ".join(shown_rows(odds)).split() == odds.content.split()  # wrapped, whole
        await pilot.press("ctrl+r")  # the result panel comes in above the preview
        await settle(pilot)
        assert odds.size.height >= len(odds.content.split("\n"))
        await pilot.press("backspace")
        await settle(pilot)
        assert rows_of(shown_rows(odds), full)


async def test_a_long_line_wraps_at_words_and_loses_nothing(desk: Desk) -> None:
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("1", "2", "enter", "1")  # 12:1, an automatic victory
        await settle(pilot)
        odds = app.screen.query_one(OddsPreview)
        automatic = odds.texts["odds-head"].split("\n")[1]
        width = odds.content_size.width
        assert len(automatic) > width
        wrapped = [row for row in shown_rows(odds)[1:] if row and row in automatic]
        assert " ".join(wrapped) == automatic
        assert all(len(row) <= width for row in wrapped) and len(wrapped) > 1


async def test_a_key_that_changes_one_line_redraws_that_line_only(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("9", "enter", "2")  # 9:2 is 4-1
        await settle(pilot)
        odds = app.screen.query_one(OddsPreview)
        drawn: list[int] = []
        render_line = OddsPreview.render_line

        def counted(self: OddsPreview, y: int) -> Strip:
            drawn.append(y)
            return render_line(self, y)

        monkeypatch.setattr(OddsPreview, "render_line", counted)
        app.screen.query_one("#attackers .factor", Input).value = "8"  # 8:2, still 4-1
        await settle(pilot)
        assert odds.texts["odds-head"].startswith("Attack 8 · Defence 2 · odds 4-1")
        # The totals and what 5-1 needs (+2, was +1); the column and its chances stand.
        assert odds.texts["odds-head"].endswith("+2 attack factors to 5-1")
        assert drawn == [0, 2]


async def test_a_typed_value_reaches_the_preview_before_its_message_and_is_read_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["pod-super"]) as (app, pilot):
        await quick(pilot, "5", "4")
        await settle(pilot)
        screen = app.screen
        field = screen.focused
        assert isinstance(field, Input)
        odds = screen.query_one(OddsPreview)
        reads = [0]
        read_form = type(screen).read_form

        def counted(self: object) -> object:
            reads[0] += 1
            return read_form(self)  # type: ignore[arg-type]

        monkeypatch.setattr(type(screen), "read_form", counted)
        field.insert_text_at_cursor("1")
        # Drawn in the same frame as the echo: no message has been handled yet.
        assert "51" in odds.texts["odds-head"]
        await settle(pilot)
        assert reads[0] == 1  # its Changed message, when it came, read nothing again
        # A value set by the program (not typed in the focused field) still arrives.
        screen.query_one("#defenders .factor", Input).value = "3"
        await settle(pilot)
        assert "Defence 3" in odds.texts["odds-head"]


async def test_a_roll_recorded_does_not_rebuild_the_footer(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("5", "enter", "2")
        await settle(pilot)
        screen = app.screen
        rebuilt = [0]
        refresh_bindings = Screen.refresh_bindings

        def counted(self: Screen) -> None:
            rebuilt[0] += 1
            refresh_bindings(self)

        monkeypatch.setattr(Screen, "refresh_bindings", counted)
        for _ in range(2):
            await pilot.press("ctrl+r")
            await settle(pilot)
        assert app.game is not None and len(app.game.entries) == 2  # both logged
        assert screen.save_state.status == "saved"
        assert rebuilt[0] == 0


async def test_a_roll_after_the_first_lays_nothing_out(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the result panel is in, a roll redraws its lines in place (a result taller
    than any before it would grow it: the same die here, so none is)."""
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("5", "enter", "2")
        await settle(pilot)
        app.rng.seed(5)
        await pilot.press("ctrl+r")  # the first: the result panel comes in (a layout)
        await settle(pilot)
        screen = app.screen
        panel = screen.query_one(ResultPanel)
        height = panel.size.height
        shown: list[object] = []
        show = MarkerPanel.show
        monkeypatch.setattr(MarkerPanel, "show", lambda self, *a: shown.append(a) or show(self, *a))
        layouts = count_layouts(monkeypatch)
        for seq in (2, 3):
            app.rng.seed(5)
            await pilot.press("ctrl+r")
            await settle(pilot)
            assert screen.save_state.entry["seq"] == seq
            assert f"Logged as entry {seq}" in panel_text(panel)
        assert layouts[0] == 0 and panel.size.height == height
        assert shown == []  # the marker panel: neither turn nor marker changed
        await pilot.press("ctrl+s", "y")  # the next turn: the panel shows it
        await settle(pilot)
        assert len(shown) == 1 and shown[0][0] == 2


async def test_a_card_offer_shows_with_the_roll_while_it_is_saved(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line naming the card that may follow the roll comes with the roll, so the result
    panel does not grow (a layout) when the roll is logged; F9 waits for the save."""
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("8", "enter", "2")
        await settle(pilot)
        written = threading.Event()
        append = saves.append_combat

        def held(*args: object, **kwargs: object) -> dict:
            written.wait(5)
            return append(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(saves, "append_combat", held)
        screen = app.screen
        await pilot.press("ctrl+r")
        await pilot.pause()
        shown = panel_text(screen.query_one(ResultPanel))
        assert screen.last is not None and "Saving…" in shown
        hint = screen.after_roll_hint()
        assert hint.startswith("F9: play"), "the seeded roll offers no card: pick another"
        assert shown.endswith(f"Saving… · {hint}")
        await pilot.press("f9")
        await pilot.pause()
        assert screen.save_state.status == "saving"
        assert notes(app)[-1].startswith("The last roll is being saved")
        written.set()
        await settle(pilot)
        assert panel_text(screen.query_one(ResultPanel)).endswith(f"Logged as entry 1 · {hint}")


async def test_a_roll_is_drawn_before_its_save_is_written(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save's thread starts once the roll's frame is drawn, so the two do not share the
    frame's time; a save whose frame never comes is written all the same."""
    monkeypatch.setattr(session, "SAVE_WAITS_FOR_FRAME", 5.0)
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("8", "enter", "2")
        await settle(pilot)
        drawn: list[str] = []
        render_line = ResultLines.render_line

        def counted(self: ResultLines, y: int) -> Strip:
            drawn.append(self.texts["result-cell"])
            return render_line(self, y)

        seen_when_written: list[list[str]] = []
        append = saves.append_combat

        def written(*args: object, **kwargs: object) -> dict:
            seen_when_written.append(list(drawn))
            return append(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(ResultLines, "render_line", counted)
        monkeypatch.setattr(saves, "append_combat", written)
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen = app.screen
        assert screen.save_state.status == "saved"
        cell = screen.query_one(ResultPanel).lines.texts["result-cell"]
        assert cell.startswith("Roll ") and seen_when_written[0].count(cell) > 0

        # No frame ever follows: the save waits its while, then is written.
        monkeypatch.setattr(session, "SAVE_WAITS_FOR_FRAME", 0.05)
        states: list[SaveState] = []
        app.session.note(1, "a note", done=states.append, after=threading.Event())
        await settle(pilot)
        assert [state.status for state in states] == ["saved"]


async def test_the_ocs_preview_reads_the_exploitation_levels_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui.engine.rulesets.ocs import supply as ocs_supply

    asked: list[object] = []
    levels = ocs_supply.exploit_levels
    monkeypatch.setattr(ocs_supply, "exploit_levels", lambda t: asked.append(t) or levels(t))
    async with desk(rulesets=["ocs"]) as (app, pilot):
        await quick(pilot, "5", "2", "1", "backspace")
        await settle(pilot)
        odds = app.screen.query_one(OddsPreview)
        assert "Exploit: e" in odds.texts["odds-head"]
        assert len(asked) == 1


async def test_the_preview_takes_a_new_theme_and_a_stale_result_its_colours(
    desk: Desk,
) -> None:
    """The lines keep each row's style until the styles change: a theme, or the result
    panel marked stale, redraws them in the new colours."""
    async with desk(rulesets=["pod-basic"]) as (app, pilot):
        await pilot.press("5", "enter", "2", "ctrl+r")
        await settle(pilot)
        odds = app.screen.query_one(OddsPreview)
        lines = app.screen.query_one(ResultLines)

        def colour(widget: OddsPreview | ResultLines) -> object:
            return next(iter(widget.render_line(0))).style.color

        before = colour(odds), colour(lines)
        await pilot.press("1")  # the form changed: the result is stale, greyed
        await settle(pilot)
        assert colour(lines) != before[1]
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await settle(pilot)
        assert colour(odds) != before[0]


@pytest.mark.parametrize("ruleset", ["pod-basic", "ocs"])
async def test_a_value_typed_is_handed_to_its_form_before_the_changed_message(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, ruleset: str
) -> None:
    """The form field tells its screen (a TypingForm) in the same step as the key, not a
    frame later by its Changed message, which then stops at the field: it reaches neither
    the field's row nor the screen, and reads nothing again."""
    async with desk(rulesets=[ruleset]) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, TypingForm)
        told: list[str] = []
        real = screen.field_typed

        def field_typed(field: Input, value: str) -> bool:
            told.append(value)
            return real(field, value)

        monkeypatch.setattr(screen, "field_typed", field_typed)
        reads: list[int] = []
        read_form = screen.read_form
        monkeypatch.setattr(screen, "read_form", lambda: reads.append(1) or read_form())
        field = screen.focused
        assert isinstance(field, Input) and field.parent is not None
        climbed: list[str] = []
        for node in (field.parent, screen):
            posted = node.post_message

            def post(message: Message, posted: Any = posted) -> bool:
                if isinstance(message, Input.Changed):
                    climbed.append(message.value)
                return posted(message)

            monkeypatch.setattr(node, "post_message", post)
        await pilot.press("7", "2")
        await settle(pilot)
        assert told == ["7", "72"]
        assert len(reads) == 2  # once a key: the Changed messages read nothing again
        assert climbed == []
        assert field.value == "72"
        # A value set in a field without the focus (not typed) still climbs to the
        # screen, which reads the form for it.
        other = next(found for found in screen.query(Input) if found.parent is not field.parent)
        other.value = "9"
        await settle(pilot)
        assert climbed == ["9"]
        assert len(reads) == 3
