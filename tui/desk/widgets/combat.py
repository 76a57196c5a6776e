"""The widgets of a combat form: unit rows, the live odds preview and the result panel.

Every table text and user text is shown literally (markup off): Textual markup would eat
a result code like `[DR]`.

About 550 lines: the widgets one combat screen composes, each small (the longest,
`LinesInPlace`, redraws only the lines that changed so a keystroke costs a few hundred
bytes); kept together because the screens, their tests and the bench import them as one
set.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from time import monotonic
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.css.scalar import Scalar, Unit
from textual.geometry import Region, Size
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, Static

from tui.desk.compat import keep_input_scroll_width, row_runs

if TYPE_CHECKING:
    from tui.engine.preview import Preview

BAR_WIDTH = 10
# The preview's bars: narrow, so a chance, its cell and some of its meaning share a row.
CHANCE_BAR_WIDTH = 5
# Letters typed on a choice within this many seconds of each other spell one name.
TYPED_TOGETHER = 1.0
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(probability: float, width: int = BAR_WIDTH) -> str:
    """A bar of `width` cells, in eighths."""
    eighths = round(probability * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width)


class TypingForm:
    """A screen whose form is read as a value is typed in one of its `FixedInput`s, not
    when the field's Changed message reaches it (a frame later)."""

    def field_typed(self, field: Input, value: str) -> bool:
        """`field` now holds `value`, typed. True when the form has taken it (read it):
        the field's Changed message for it then goes no further than the field."""
        raise NotImplementedError


class FixedInput(Input):
    """An Input whose size is fixed by its CSS: a changed value redraws it without
    laying the screen out again (Textual's Input asks for a layout whenever its text
    grows or shrinks, to resize its scrolling area). A value typed is handed at once to
    its screen, when that is a `TypingForm`; once the form has taken it, the value's
    Changed message stops at the field (a message climbing to the screen wakes every
    widget on the way: about 1.7 M instructions of a 13 M OCS keystroke, counted)."""

    # The value typed that the form took, until its Changed message reaches the field.
    _taken: str | None = None

    def validate_value(self, value: str) -> str:
        if not self.styles.auto_dimensions:
            # Set before Input's own watcher and without a layout (it only scrolls the
            # text): the watcher then finds it unchanged.
            keep_input_scroll_width(self, value)
        return value

    def watch_value(self, value: str) -> None:
        if self.has_focus and isinstance(self.screen, TypingForm):
            # Typed: the form is told now, so the preview is drawn in the same frame as
            # the key's echo (its Changed message reaches the screen a frame later).
            self._taken = value if self.screen.field_typed(self, value) else None

    def on_input_changed(self, event: Input.Changed) -> None:
        """The Changed message of a value the form took as it was typed goes no further;
        any other (a value set, or one typed and changed again before this) goes up. The
        value taken is forgotten at the first message either way, so none left waiting (its
        message dropped) can stop a later one."""
        taken, self._taken = self._taken, None
        if taken is not None and event.value == taken:
            event.stop()


class Cycle(Widget, can_focus=True):
    """A choice among a few values, on one line, for every form's choices: space, enter or
    right for the next value, left for the one before, a letter for the next value whose
    name starts with it, a click for the next. It is a fraction of the cost of Textual's
    Select (a Select's closed list alone is an OptionList of its own), which took about a
    tenth of a combat screen's first frame."""

    DEFAULT_CSS = """
    Cycle { width: auto; min-width: 8; height: 1; padding: 0 1; background: $boost; }
    Cycle:focus { background: $accent; color: $text; }
    """
    BINDINGS = [
        Binding("space,enter,right", "step(1)", "Next", show=False),
        Binding("left", "step(-1)", "Previous", show=False),
    ]

    class Changed(Message):
        def __init__(self, cycle: Cycle, value: Any) -> None:
            super().__init__()
            self.cycle = cycle
            self.value = value

        @property
        def control(self) -> Cycle:
            return self.cycle

    def __init__(
        self, options: Sequence[tuple[str, Any]], value: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.options = list(options)
        self.index = self._index_of(value)
        # Letters typed together (within TYPED_TOGETHER seconds) and when the last was.
        self._typed = ""
        self._typed_at = 0.0

    @property
    def value(self) -> Any:
        return self.options[self.index][1]

    @value.setter
    def value(self, value: Any) -> None:
        self.select(value)

    @property
    def label(self) -> str:
        return self.options[self.index][0]

    def set_options(self, options: Sequence[tuple[str, Any]]) -> None:
        """New options, keeping the value chosen if it is still one of them."""
        if list(options) == self.options:
            return
        current = self.value
        self.options = list(options)
        self.index = self._index_of(current)
        self.refresh(layout=self.styles.auto_dimensions)

    def select(self, value: Any) -> None:
        """Choose `value`; a ValueError names it and the values there are."""
        values = [v for _, v in self.options]
        if value not in values:
            raise ValueError(f"{value!r} is not one of {', '.join(map(repr, values))}")
        self._show(self._index_of(value))

    def _index_of(self, value: Any) -> int:
        """Where `value` is among the options (the first when it is none of them)."""
        values = [v for _, v in self.options]
        return values.index(value) if value in values else 0

    def action_step(self, by: int) -> None:
        self._show((self.index + by) % len(self.options))

    def on_click(self) -> None:
        self.action_step(1)

    def on_key(self, event: events.Key) -> None:
        """A letter or digit: the next value whose name starts with it; typed quickly after
        the one before, the value whose name starts with both ("to" reaches "town")."""
        typed = event.character
        if not typed or len(typed) != 1 or not typed.isalnum():
            return
        event.stop()
        event.prevent_default()
        now = monotonic()
        if now - self._typed_at > TYPED_TOGETHER:
            self._typed = ""
        self._typed_at = now
        count = len(self.options)
        longer = self._typed + typed.lower()
        for step in range(count):  # the longer name, from the value shown
            index = (self.index + step) % count
            if self.options[index][0].lower().startswith(longer):
                self._typed = longer
                self._show(index)
                return
        self._typed = typed.lower()
        for step in range(1, count + 1):  # else the letter alone, from the next value
            index = (self.index + step) % count
            if self.options[index][0].lower().startswith(self._typed):
                self._show(index)
                return

    def render(self) -> Content:
        return Content(f"{self.label} ▸")

    def _show(self, index: int) -> None:
        changed = index != self.index
        self.index = index
        # Laid out again only where the width follows the name (OCS): the other forms
        # give it a fixed width, and a choice redraws one line.
        self.refresh(layout=self.styles.auto_dimensions)
        if changed:
            self.post_message(self.Changed(self, self.value))


def set_choice(cycle: Cycle, value: Any) -> None:
    """Show `value` on a choice where it is one of its options (a value logged by an
    older desk, or a hand-edited save, is left as the choice shows)."""
    try:
        cycle.value = value
    except ValueError:
        pass


def _no_names(suggester: Any) -> Input:
    raise RuntimeError("a unit row names no unit until its screen gives it new_name")


class FieldLine(Horizontal):
    """One line of a form: its label, then its field(s). The line draws its label itself,
    in the cells left of its first field, as the Label widget it replaces showed it (markup
    read, in 15 cells, its first line there): a widget fewer on every form line (a Basic
    screen's two, about 5 M instructions of its start, docs/performance.md)."""

    DEFAULT_CSS = """
    FieldLine { height: 1; }
    FieldLine > .after-label { margin-left: 15; }
    """
    LABEL_WIDTH = 15

    def __init__(self, label: str, *widgets: Widget, classes: str = "field") -> None:
        if widgets:
            widgets[0].add_class("after-label")
        super().__init__(*widgets, classes=classes)
        self.label = label
        self._drawn: Content | None = None  # the label as drawn, worked out once

    def render(self) -> Content:
        """The label, in the cells left of the first field."""
        if self._drawn is None:
            lines = Content.from_markup(self.label).wrap(self.LABEL_WIDTH)
            self._drawn = lines[0] if lines else Content("")
        return self._drawn


class UnitRow(Horizontal):
    """One unit: its factor and, where terrain counts, the terrain of its hex (on a
    player's chart, the mark the unit carries, if any)."""

    # The row's label ("A1") is drawn by the row itself, under its fields (the factor starts
    # four cells in): a Label of its own was a widget more on every form (about 8 M
    # instructions of a combat screen's start each, docs/performance.md).
    DEFAULT_CSS = """
    UnitRow { height: 1; }
    UnitRow > Input { width: 8; }
    UnitRow > Input.factor { margin-left: 4; }
    UnitRow > Cycle { width: 1fr; }
    UnitRow > .unit-name { width: 14; }
    """

    def __init__(
        self,
        side: str,
        number: int,
        terrains: tuple[str, ...],
        factor: str = "",
        placeholder: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(classes=f"unit-row {side}", **kwargs)
        self.side = side
        self.number = number
        self.terrains = terrains
        self.initial = factor
        self.placeholder = placeholder or ("CAF" if side == "attacker" else "CDF")
        # The row's own fields, held: a keystroke reads every row.
        self._factor = FixedInput(
            factor, placeholder=self.placeholder, compact=True, classes="factor"
        )
        # The unit's name: a field only where the game has units (or a logged combat
        # named them), made then by `new_name` (its screen's: the name field's module is
        # imported only for a row that names a unit).
        self._name_box: Input | None = None
        self.new_name: Callable[[Any], Input] = _no_names
        self.suggester: Any = None  # the names a unit's name completes from
        self._terrain: Cycle | None = None
        if terrains:
            # "-" is no mark (a player's chart's unit marks, first); a hex starts clear.
            self._terrain = Cycle(
                [(name, None if name == "-" else name) for name in terrains],
                value=None if "-" in terrains else "clear",
                classes="terrain",
            )

    @property
    def label(self) -> str:
        return f"{'A' if self.side == 'attacker' else 'D'}{self.number}"

    def compose(self) -> ComposeResult:
        yield self._factor
        if self._name_box is not None:
            yield self._name_box
        if self._terrain is not None:
            yield self._terrain

    def render(self) -> Content:
        """The row's label, in the cells left of its factor."""
        return Content(self.label)

    def renumber(self, number: int) -> None:
        self.number = number
        for label in self.query(".unit-label").results(Static):  # a row that has its own
            label.update(self.label)
        self.refresh()

    @property
    def factor_input(self) -> Input:
        return self._factor

    @property
    def name_input(self) -> Input:
        """The unit's name field, made (and shown after the factor) when first asked for."""
        if self._name_box is None:
            self._name_box = self.new_name(self.suggester)
            if self.is_mounted:
                self.mount(self._name_box, after=self._factor)
        return self._name_box

    @property
    def named(self) -> bool:
        """Whether the row has a name field."""
        return self._name_box is not None

    def show_names(self, suggester: Any) -> None:
        """Take a unit's name, completed by `suggester` (the game's units)."""
        self.suggester = self.name_input.suggester = suggester

    def fill(self, unit: Any) -> None:
        """Show a logged unit (tui.engine.Unit): its factor, its name and its hex's
        terrain."""
        self.factor_input.value = str(unit.factor)
        if unit.name:
            self.name_input.value = unit.name
        if self._terrain is not None and unit.terrain:
            set_choice(self._terrain, unit.terrain)

    @property
    def factor_text(self) -> str:
        return self.factor_input.value

    @property
    def terrain(self) -> str | None:
        if self._terrain is None:
            return None
        value = self._terrain.value
        return value if isinstance(value, str) else None

    def parts(self) -> dict[str, Any]:
        """What the row holds, as its field's kind reads it (a part left empty: None)."""
        return {
            "factor": self.factor_text.strip() or None,
            "terrain": self.terrain,
            "name": self._name_box.value.strip() or None if self._name_box else None,
        }

    def mark_invalid(self, parts: Collection[str]) -> None:
        """Mark the parts that cannot be read (and only those)."""
        invalid = "factor" in parts
        if self.factor_input.has_class("-invalid") != invalid:  # as it is, nothing to do
            self.factor_input.set_class(invalid, "-invalid")


class LinesInPlace(Static):
    """Text in named parts, each in its own style, drawn line by line: a new text redraws
    only the lines that changed, in place, and lays nothing out while it fits the height
    laid out (a shorter text leaves blank lines below it). Its lines (at least `reserve`)
    are always its least height: set quietly while they fit, so the next layout keeps them
    all, and with one layout when they do not. A layout of a combat screen costs more than
    a frame at 80x24 and redraws the whole pane."""

    # The parts in the order shown, and each one's component class (None: the widget's own
    # style).
    PARTS: ClassVar[dict[str, str | None]] = {}
    # Parts whose lines are cut short at the width ("…") rather than wrapped: one row each.
    CLIPPED_PARTS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, reserve: int = 0, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.reserve = reserve
        if reserve:
            self.styles.min_height = reserve
        self._texts: dict[str, str] = dict.fromkeys(self.PARTS, "")
        # Each line of the texts, in the order shown: (part, text).
        self._lines: list[tuple[str, str]] = []
        # The lines as drawn at `_width` (a long one wrapped): (part, line, offset, text).
        self._rows: list[tuple[str, int, int, str]] = []
        self._width = 0
        # Each line's rows (where each starts, its text) by (part, line), for the lines shown
        # now, at `_wrapped_width`.
        self._wrapped: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self._wrapped_width = 0
        # Each row's style by (part, offset, line), until the styles change.
        self._row_styles: dict[tuple[str, int, int], RichStyle] = {}
        self._own_screen: Screen[Any] | None = None
        # Whether the text is selected (as the lines being drawn are: `render_lines`).
        self._selected = False

    def show_parts(self, texts: Mapping[str, str]) -> None:
        """New text for some of the parts (the others stay as they are)."""
        texts = self._texts | dict(texts)
        if texts == self._texts:
            return
        self._texts = texts
        self._lines = [
            (part, line) for part in self.PARTS if texts[part] for line in texts[part].split("\n")
        ]
        width = self.content_size.width
        if not width:
            self._width = 0  # wrapped and drawn once laid out
            self.refresh()
            return
        before, self._rows, self._width = self._rows, self._wrap(width), width
        if self._hold_rows():
            return
        changed = row_runs(
            y
            for y in range(max(len(before), len(self._rows)))
            if y >= len(before) or y >= len(self._rows) or before[y] != self._rows[y]
        )
        if changed:
            # A region for each run of changed rows (the same rows as one a row: the frame
            # then has fewer regions to place, group and cut into spans).
            self.refresh(*(Region(0, first, width, end - first) for first, end in changed))

    @property
    def texts(self) -> dict[str, str]:
        """What each part shows now."""
        return dict(self._texts)

    # Read-only here: the box is set through its parts (`texts`), never as a whole; reading
    # it gives what a player sees, as a Static's content does.
    @property  # type: ignore[misc]
    def content(self) -> str:
        """Every line shown, as the player reads it (unwrapped)."""
        return "\n".join(text for _, text in self._lines)

    def _hold_rows(self) -> bool:
        """Keep every row as the least height; True if that takes a layout."""
        rows = max(len(self._rows), self.reserve)
        if rows > self.size.height:
            self.styles.min_height = rows  # taller than laid out: grows, one layout
            # Asked for whether or not the least height changed: where the height laid out
            # stayed short of it, setting the same value again redrew nothing.
            self.refresh(layout=True)
            return True
        # Read by the next layout, whatever asks for it (a roll shown, markers placed).
        self.styles.set_rule("min_height", Scalar(float(rows), Unit.CELLS, Unit.HEIGHT))
        return False

    def on_resize(self) -> None:
        width = self.content_size.width
        if width and width != self._width:
            self._rows, self._width = self._wrap(width), width
            self.refresh()
        self._hold_rows()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._wrap(width))

    def _wrap(self, width: int) -> list[tuple[str, int, int, str]]:
        """Each line as rows of `width` cells, wrapped at words as a Static wraps them. A
        line shown before at this width is not wrapped again (a new combat's preview
        changes a few of its lines)."""
        if width != self._wrapped_width:
            self._wrapped, self._wrapped_width = {}, width
        before, self._wrapped = self._wrapped, {}
        rows = []
        for number, (part, text) in enumerate(self._lines):
            pieces = before.get((part, text))
            if pieces is None:
                pieces = self._pieces(part, text, width)
            self._wrapped[part, text] = pieces
            rows += [(part, number, offset, piece) for offset, piece in pieces]
        return rows

    def _pieces(self, part: str, text: str, width: int) -> list[tuple[int, str]]:
        """One line's rows at `width`, each with where it starts in the line."""
        if cell_len(text) <= width:
            return [(0, text)]
        if part in self.CLIPPED_PARTS:
            if text.isprintable():  # no control code that Content would take out
                return [(0, set_cell_size(text, width - 1) + "…")]  # as Content.truncate
            return [(0, Content(text).truncate(width, ellipsis=True).plain)]
        pieces = []
        offset = 0
        for piece in Content(text).wrap(width):
            offset = text.find(piece.plain, offset)
            pieces.append((offset, piece.plain))
            offset += len(piece.plain)
        return pieces

    def on_mount(self) -> None:
        self._own_screen = self.screen  # asked on every line drawn: found once

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._row_styles.clear()

    def _row_style(self, part: str, offset: int, number: int) -> RichStyle:
        """A row's style, with where its text starts for selecting it with the mouse."""
        key = (part, offset, number)
        style = self._row_styles.get(key)
        if style is None:
            component = self.PARTS[part]
            visual = self.get_visual_style(component) if component else self.visual_style
            style = self._row_styles[key] = visual.rich_style_with_offset(offset, number)
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        # Asked once for the lines drawn, not once a line (each asks the widget's geometry
        # and the screen's selections): whether this text is selected, and its width.
        screen = self._own_screen or self.screen
        self._selected = self in screen.selections
        width = self.content_size.width
        if width != self._width:
            self._rows, self._width = self._wrap(width), width
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if self._selected:
            return super().render_line(y)  # the whole text as a Static draws it
        width = self._width
        if not width:  # asked before any `render_lines`
            width = self.content_size.width
            self._rows, self._width = self._wrap(width), width
        if y >= len(self._rows):
            return Strip.blank(width, self.visual_style.rich_style)
        part, number, offset, text = self._rows[y]
        return Strip([Segment(text, self._row_style(part, offset, number))], cell_len(text))

    def render(self) -> Content:
        """The whole text, styled part by part (drawn this way while text is selected)."""
        pieces = []
        for part, text in self._lines:
            component = self.PARTS[part]
            style = self.get_visual_style(component, partial=True) if component else None
            pieces.append(Content.styled(text, style) if style else Content(text))
        return Content("\n").join(pieces)


class OddsPreview(LinesInPlace):
    """Totals, odds, column after each shift (bold), what stops the form (in the error
    colour), and the chance of every result. It fills the rest of its pane, so the empty
    form's few lines and the full chart take the same room."""

    PARTS: ClassVar[dict[str, str | None]] = {
        "odds-head": "odds-preview--head",
        "problems": "odds-preview--problem",
        "chances": None,
    }
    # A chance per row, the likeliest first: as many as the pane has room for.
    CLIPPED_PARTS: ClassVar[frozenset[str]] = frozenset({"chances"})
    COMPONENT_CLASSES: ClassVar[set[str]] = {"odds-preview--head", "odds-preview--problem"}
    DEFAULT_CSS = """
    OddsPreview { height: 1fr; }
    OddsPreview > .odds-preview--head { text-style: bold; }
    OddsPreview > .odds-preview--problem { color: $error; }
    """

    # The chances' text, with the rows (the very tuple), column and dice it was worded
    # from: a new combat on the same chances (its column met already) brings the same rows.
    _chances: tuple[tuple[Any, ...], str | None, str, str] | None = None

    def show(self, preview: Preview | None, problems: Sequence[str] = ()) -> None:
        kept = self._chances
        if (
            preview is not None
            and kept is not None
            and kept[0] is preview.rows
            and (kept[1], kept[2]) == (preview.column, preview.dice)
        ):
            chances = kept[3]
        else:
            chances = "\n".join(preview_chances(preview))
            if preview is not None:
                self._chances = (preview.rows, preview.column, preview.dice, chances)
        self.show_text("\n".join(preview_head(preview)), chances, problems)

    def show_text(self, head: str, chances: str, problems: Sequence[str] = ()) -> None:
        """A preview a ruleset words itself (a chain of tables rather than one column)."""
        self.show_parts({"odds-head": head, "problems": "\n".join(problems), "chances": chances})


def preview_head(preview: Preview | None) -> list[str]:
    """The preview's first lines: totals and odds, each shift, the column (or the result
    that needs no dice)."""
    if preview is None:
        return ["Odds: waiting for a valid form"]
    lines = [preview.headline]
    if preview.defence_note:
        lines.append(preview.defence_note)
    if preview.automatic:
        lines.append(preview.automatic)
    else:
        lines.extend(f" {shift}" for shift in preview.shifts)
        lines.append(f"Column {preview.column}")
        if preview.next_column is not None:
            lines.append(next_column_text(preview.next_column))
    return lines


def next_column_text(found: tuple[int, str]) -> str:
    """What the next column right needs: "+3 attack factors to 4-1"."""
    added, column = found
    return f"+{added} attack factor{'' if added == 1 else 's'} to {column}"


def preview_chances(preview: Preview | None) -> list[str]:
    """The chance of every result on the column, the likeliest first, one row each: with a
    bar, its cell and what it means (cut short where the pane is narrow)."""
    rows: list[str] = []
    if preview is None:
        return rows
    if preview.rows:
        rows.append(f"Chances on {preview.column} ({preview.dice}):")
    for row in preview.rows:
        chance = float(row.probability)
        rows.append(
            f"{chance * 100:5.1f}% {bar(chance, CHANCE_BAR_WIDTH)} {row.cell} · {row.meaning}"
        )
    return rows
