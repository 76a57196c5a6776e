"""Every use of a private Textual name, in one place.

Written against Textual 8.2.8. Each piece names the public API that would replace it, and
tests/desk/test_compat.py fails when an internal it relies on changes shape (CI installs the
newest Textual the pin allows, so an upgrade that breaks one is caught there first).

- `PaneCompositor` (a keystroke's frame drawn a pane at a time, each pane's changed lines
  asked only of the widgets showing there) subclasses the private
  `textual._compositor.Compositor` and uses its `_dirty_regions`, `_regions_to_spans`,
  `cuts` and `visible_widgets` (and draws as its `_render_chops` does);
  `use_pane_compositor` sets a screen's private `_compositor`. No public API draws part of
  a frame. Kept because a keystroke redraws the whole form without it, and asks the
  screen, its title, footer and both panes for all their lines (measured: see the commits
  that moved it here and that made `draw_lines`).
- `switchable` gives a first screen the result callback Textual gives every screen it
  pushes or switches to (`Screen._push_result_callback`), so the desk can switch away from
  it. The public way is to push the first screen over the default one, which draws the
  first frame twice.
- `StyledOnceScreen` turns off the restyle of the first `ScreenResume` Textual posts to a
  screen (its `refresh_styles`, read by the private `Screen._on_screen_resume`). No public
  API skips it; kept because it was about a tenth of a combat screen's first frame.
- `StyledOnceScreen.on_resize` keeps Textual's own Resize handler (`Screen._on_resize`) from
  laying the screen out again for a Resize of the size it is laid out at, through the
  public `prevent_default`; it relies on that handler doing nothing else a screen of the
  desk needs at an unchanged size. Kept because a screen shown at start got three such
  Resizes, each a full layout and frame (19 M instructions of the open to ready, counted).
- `KeyHoldingApp` holds the keys the driver sends before the first screen's fields are
  there (`App.on_event`, where Textual forwards a key not yet forwarded), and hands them on
  through it later. No public API delays input; without it Textual dropped the keys a
  player typed as the desk started.
- `keep_input_scroll_width` sets an `Input`'s `virtual_size` for a new value before Input's
  own value watcher (`Input._watch_value`) does, without asking for a layout. No public API
  sizes an Input's scrolling area; without it every keystroke laid the screen out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from rich.cells import cell_len
from textual import events
from textual._compositor import ChopsUpdate, Compositor
from textual.app import App
from textual.geometry import Region, Size
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input

TEXTUAL_WRITTEN_AGAINST = "8.2.8"

ReturnType = TypeVar("ReturnType")


class PaneCompositor(Compositor):
    """Textual's compositor, drawing a frame's changes a pane at a time.

    Textual draws the regions a frame changed by asking every widget whose clip meets the
    rectangle around them all for its lines. A keystroke changes a field in the form on the
    left and the preview on the right, so that rectangle takes in the whole form: each of
    its 50-80 widgets is asked (from its cache, but each pays its style lookups), about half
    the frame at 80x24. Here changes in separate columns are each drawn with their own
    rectangle, which leaves the other pane's widgets alone. What the terminal shows after
    it is the same (a test compares it with Textual's own update; only cursor moves that
    write nothing are left out)."""

    # More groups than this: one rectangle (a screen-wide change gains nothing from more).
    MOST_GROUPS = 3

    def render_partial_update(self) -> ChopsUpdate | None:
        screen = self.size.region
        groups = column_groups(self._dirty_regions, screen)
        if not 2 <= len(groups) <= self.MOST_GROUPS:
            return super().render_partial_update()
        regions = [region for group in groups for region in group]
        self._dirty_regions.clear()
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(line[:-1]) for line in cuts]
        shown = self.shown_widgets()  # once a frame, for every group
        for group in groups:
            spans = list(self._regions_to_spans(group))
            lines = {y for y, _, _ in spans}
            drawn = self.draw_lines(Region.from_union(group), lines, shown)
            # Each span takes the pieces of its lines it covers from its own group's drawing.
            for y, x1, x2 in spans:
                line = cuts[y]
                for cut, end in zip(line, line[1:], strict=False):
                    strip = drawn[y][cut]
                    if strip is not None and cut < x2 and end > x1:
                        chops[y][cut] = strip
        return ChopsUpdate(chops, list(self._regions_to_spans(regions)), [c[1:] for c in cuts])

    def shown_widgets(self) -> list[tuple[Widget, Region, Region]]:
        """Each visible widget front to back, with its region and the part of it shown."""
        return [
            (widget, region, region.intersection(clip))
            for widget, (region, clip) in self.visible_widgets.items()
        ]

    def draw_lines(
        self,
        crop: Region,
        lines: set[int],
        shown_widgets: list[tuple[Widget, Region, Region]] | None = None,
    ) -> list[dict[int, Strip | None]]:
        """The pieces (by cut) of `lines` that the widgets showing in `crop` draw, as
        Textual's `_render_chops` gives them, asking fewer widgets for fewer lines.

        Textual asks every widget whose container's clip meets `crop` for every line it
        shows: the screen, the title, the footer and both panes for a field's one line,
        about 190 lines a keystroke at 80x24, each through the widget's style lookups. Here
        only the widgets showing in `crop` are asked, each for the rows `crop` takes in;
        every other piece of those lines lies outside `crop`, where the caller takes
        nothing. Widgets are taken front to back as Textual takes them (the first piece
        drawn at a cut wins), and a widget whose every piece in `crop` is drawn already (a
        container behind a field) is not asked at all."""
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(line[:-1]) for line in cuts]
        # The crop's edges, read once (each is a property of the Region).
        crop_x, crop_top, crop_right, crop_bottom = crop.x, crop.y, crop.right, crop.bottom
        for widget, region, shown in shown_widgets or self.shown_widgets():
            if not shown.overlaps(crop):
                continue
            top, bottom = max(shown.y, crop_top), min(shown.bottom, crop_bottom)
            x, _, width, _ = shown
            first_cut, last_cut = shown.column_span
            if not any(
                chops[y][cut] is None
                for y in range(top, bottom)
                if y in lines
                for cut, end in zip(cuts[y], cuts[y][1:], strict=False)
                if last_cut >= cut >= first_cut and cut < crop_right and end > crop_x
            ):
                continue  # nothing of it would show in `crop`
            strips = widget.render_lines(Region(x - region.x, top - region.y, width, bottom - top))
            for y, strip in zip(range(top, bottom), strips, strict=False):
                if y not in lines:
                    continue
                line = chops[y]
                at = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                for cut, piece in zip(at, strip.divide([cut - x for cut in at[1:]]), strict=False):
                    if line.get(cut) is None:
                        line[cut] = piece
        return chops


def row_runs(rows: Iterable[int]) -> list[tuple[int, int]]:
    """The rows as runs of consecutive rows, each (first, one past its last), in order."""
    runs: list[tuple[int, int]] = []
    for y in sorted(rows):
        if runs and runs[-1][1] == y:
            runs[-1] = (runs[-1][0], y + 1)
        else:
            runs.append((y, y + 1))
    return runs


def column_groups(regions: Iterable[Region], screen: Region) -> list[list[Region]]:
    """The regions on `screen`, in groups whose columns overlap, left to right."""
    groups: list[tuple[int, list[Region]]] = []  # (the group's right edge, its regions)
    for region in sorted(region.intersection(screen) for region in regions):
        if not region:
            continue
        if groups and region.x < groups[-1][0]:
            right, members = groups[-1]
            groups[-1] = (max(right, region.right), [*members, region])
        else:
            groups.append((region.right, [region]))
    return [members for _, members in groups]


def use_pane_compositor(screen: Screen[Any]) -> None:
    """Draw `screen`'s frames with a `PaneCompositor` (set before it is mounted)."""
    screen._compositor = PaneCompositor()


def switchable(screen: Screen[Any]) -> Screen[Any]:
    """A first screen the desk can switch away from: a switch drops the current screen's
    result callback, and Textual gives one to every screen it switches to, but not to the
    first screen."""
    screen._push_result_callback(screen, None)
    return screen


class StyledOnceScreen(Screen[ReturnType]):
    """A screen styled once when it is first shown.

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

    def on_resize(self, event: events.Resize) -> None:
        """A resize to the size the screen is laid out at already is not laid out again.

        Textual's own handler (`Screen._on_resize`, run after this one unless prevented)
        lays out and draws the whole screen on every Resize, whatever its size: a screen
        shown at start gets three of the size it has just been laid out at (the app's
        first size, its first idle's check, and the one the first layout sends the screen
        itself), each a full layout and frame. Subclasses' handlers still run; a size
        that changed, an inline app or breakpoints get Textual's handler as before."""
        app = self.app
        if (
            event.size == self.outer_size  # as last laid out (`size` is the app's now)
            and not app.is_inline
            and not (self.HORIZONTAL_BREAKPOINTS or app.HORIZONTAL_BREAKPOINTS)
            and not (self.VERTICAL_BREAKPOINTS or app.VERTICAL_BREAKPOINTS)
        ):
            event.prevent_default()


class KeyHoldingApp(App[ReturnType]):
    """An app that holds the keys typed before `release_keys` is called (a player who types
    the factors as soon as the command is entered): a screen still composing has no field
    focused, and Textual dropped them. Released, they are handed on in order, ahead of any
    typed later; from then on keys pass as Textual passes them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held_keys: list[events.Key] | None = []

    @property
    def holding_keys(self) -> bool:
        """Whether keys from the terminal are held (until `release_keys`)."""
        return self._held_keys is not None

    async def on_event(self, event: events.Event) -> None:
        if self._held_keys is not None and isinstance(event, events.Key):
            if not event.is_forwarded:  # from the driver, not a key handed back up
                self._held_keys.append(events.Key(event.key, event.character))
                return
        await super().on_event(event)

    async def release_keys(self) -> None:
        """Hand on the keys held, in order, and hold no more."""
        held, self._held_keys = self._held_keys, None
        for key in held or ():
            await self.on_event(key)


def keep_input_scroll_width(field: Input, value: str) -> None:
    """Give `field` the scrolling area its own value watcher would give it for `value`
    (Input's `content_width`: the placeholder while empty, else the text and a cell for
    the cursor), set without a layout: the watcher then finds it unchanged. For an Input
    whose size its CSS fixes, where a layout changes nothing."""
    shown = field.placeholder if field.placeholder and not value else f"{value} "
    field.set_reactive(Input.virtual_size, Size(cell_len(shown), 1))
