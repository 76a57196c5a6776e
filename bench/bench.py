"""The desk's benchmark: every figure beside its budget and the reference measured in the
same run, as one table.

    .venv/bin/python bench/bench.py            # the full run (under two minutes)
    .venv/bin/python bench/bench.py --quick    # one run of each, a small save: does it work?
    .venv/bin/python bench/bench.py --smoke    # each figure once, tiny sizes (the test runs it)

What it measures (each a median over several runs):
- cold start: a fresh `crtdesk` to its start screen, and `crtdesk open NAME` to a combat
  screen, under a pty at 80x24 until the expected text shows, beside a minimal Textual app
  (Header, Static, Input, Footer) started the same way. Setup starts the desk once first, as
  a player's first start does, so what it keeps between starts is there (`tui.engine.kept`: the
  checked tables); a first start, with nothing kept, is reported beside them;
- instructions to the first frame (callgrind, which the machine's load does not move; the
  bench installs valgrind where it is missing and it can): the minimal app to its first
  frame, and the real `crtdesk` and `crtdesk open NAME` commands to the desk ready (a
  combat screen's engine imported and its last roll's panel drawn), each headless at 80x24;
  each desk start within 1.3x the minimal app's count (the times above are reported
  beside: they move with the machine's load); and per keystroke to the preview on every
  screen (four keys posted to the desk as its terminal driver posts them), each within the
  count measured on 2026-11-25 plus 20%. Not counted in --smoke;
- keystroke to preview on every ruleset screen with a form (`tui.desk.screens.screen_for`): a
  key typed in a factor field until the preview's headline shows the new totals, beside a
  key echoed by the minimal app's Input; and the engine's share, `tui.engine.preview.preview`
  for a typical combat of every ruleset, and of a player's chart (docs/games/hill-203.toml);
- rolling on a long campaign: the longest the UI's event loop is held while a combat is
  rolled and recorded on a long save;
- opening a long save from the saves list: the time the open call holds the UI thread, and
  the event loop's longest stall from Enter until the game is read;
- saves: an append to a new save and to a long one; a long save opened to the log review
  until it answers a key; the desk's peak RSS with that review open;
- units: `crtdesk units` on a 100,000-entry campaign with 2,000 units and loss entries, its
  peak RSS within the long campaign's bound (its time in the note), the log read and then
  the state kept; and the completion candidates a unit row's keystroke builds for 2,000
  units (the game's units read, the side's names that match), within a keystroke's budget;
- keystroke to completion: the desk (Pilot) on a game of 2,000 imported units, a unit's name
  typed in the first attacker's name field one key at a time, each key timed until the
  field shows the completion the game's units give (within a keystroke's budget), and
  counted in instructions (callgrind, not in --smoke);
- bytes on the wire: a combat screen's first frame, and per keystroke;
- the CLI: `crtdesk resolve pod-basic --attack 8 --defense 2 --seed 1` counted in
  instructions (callgrind) beside `python -c "import tomllib"`, within 3x it (the tables'
  kept copy made, as at a player's second run; a first run's count reported beside); and
  timed beside `python -c pass`, and whether it imports textual or rich.

Nothing here is a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import fcntl
import gc
import json
import os
import platform
import pty
import random
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bench_saves import build, combats
from msgspec.structs import replace

COLUMNS, LINES = 80, 24
ROOT = Path(__file__).resolve().parent.parent
PLAYER_CHART_ROW = "engine share: a player's chart (hill-203)"
# A long campaign with an order of battle: its entries (as the campaign bench's) and units.
UNITS_CAMPAIGN, UNITS = 100_000, 2_000
CTRL_Q = b"\x11"
TAB, SHIFT_TAB, BACKSPACE, UP, END = b"\t", b"\x1b[Z", b"\x7f", b"\x1b[A", b"\x1b[F"
ENTER = b"\r"
F_KEYS = (b"\x1bOQ", b"\x1bOR", b"\x1bOS", b"\x1b[15~", b"\x1b[17~", b"\x1b[18~", b"\x1b[19~")
# CSI, OSC and the short escapes: what is left is the text a player sees.
ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78NOM]"
)
# The totals line of each preview: most rulesets, OCS ("A 7 : D 2 = 3:1") and the Big Boom
# chain ("CAF 12 in 3 units").
HEADLINE = re.compile(r"Attack \S+ · Defence \S+|A \S+ : D \S+ =|CAF \S+ in \d+ unit")
# The keys that make each form valid, ending in a factor the keys are timed in (Tab goes
# across a unit's row, Enter down to the next unit's factor).
SETUP: dict[str, tuple[bytes, ...]] = {
    "": (b"1", TAB, b"1", SHIFT_TAB, END),
    # A terrain beside each factor: Enter to the defender's, timed there.
    "pod-super": (b"1", ENTER, b"1", END),
    "pod-ultra": (b"1", ENTER, b"1", END),
    # The first attacker's strength first (its name is the row's last field), Enter to
    # the defender's.
    "ocs": (b"1", ENTER, b"1", END),
    # Units, AA, the target hex (left empty), the bomber range.
    "pod-boom": (b"1", TAB, b"1", TAB, TAB, b"8", SHIFT_TAB, SHIFT_TAB, SHIFT_TAB, END),
}
PREVIEW_WORDS = ("Column", "Chances", "odds", "Odds")

# A reference for the combat screen: what Textual alone takes to draw a bare form of about
# its shape (a strip, six labelled inputs in one pane, a text preview in the other).
FORM_APP = """
from textual.app import App
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Header, Input, Label, Static


class Form(App):
    def compose(self):
        yield Header()
        yield Static("[Basic] [Super]")
        with Horizontal():
            with VerticalScroll():
                for n in range(6):
                    with Horizontal(classes="row"):
                        yield Label(f"Factor {n}")
                        yield Input(compact=True)
            with VerticalScroll():
                yield Static("form ready\\n" + "\\n".join(f"{n}0% result" for n in range(12)))
        yield Footer(compact=True)


Form().run()
"""

# The minimal app's class, Textual's own widgets: the reference the desk's start (MINIMAL_APP,
# COUNT_MINIMAL) and its keystrokes (COUNT_ECHO) are set against, written once.
MINIMAL_CLASS = """
class Minimal(App):
    def compose(self):
        yield Header()
        yield Static("minimal ready")
        yield Input()
        yield Footer()
"""
MINIMAL_APP = (
    """
from textual.app import App
from textual.widgets import Footer, Header, Input, Static

"""
    + MINIMAL_CLASS
    + """

Minimal().run()
"""
)


# Counted in instructions (callgrind): each program ends itself as its first frame is
# reported (on_ready), headless at 80x24, so the count is its start alone.
COUNT_MINIMAL = "import os\n" + MINIMAL_APP.replace(
    "Minimal().run()",
    "Minimal.on_ready = lambda self: os._exit(0)\nMinimal().run(headless=True, size=(80, 24))",
)
# The desk counted through its real command (the installed `crtdesk`, its CLI included),
# headless at 80x24 as the minimal app is (Textual's own TEXTUAL_DRIVER), to the desk ready:
# $CRTDESK_EXIT_AT_READY ends it there (`CrtDeskApp.desk_ready`: the first screen drawn, and
# a combat screen's engine imported and its last roll's panel drawn), as on_ready ends the
# minimal app.
COUNT_ENV = {
    "TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver",
    "CRTDESK_EXIT_AT_READY": "1",
    "PYTHONHASHSEED": "0",
}
COLLECTED = re.compile(r"Collected : (\d+)")
SUMMARY = re.compile(r"^summary: (\d+)", re.M)
# Keystrokes counted (callgrind): the desk on a game of the given rulesets, each screen's
# form set up as the timed rows set it up (through Textual's Pilot, not counted), then the
# counted keys (`new_combat_keys`: each a factor value not typed before, so no preview is
# kept for it) posted to the app as the terminal driver posts them, each given time to be
# handled and drawn. The collector is paused before anything is imported and frozen after
# the first frame (`tui.startup`, `CrtDeskApp.on_ready`), as `crtdesk` starts the desk (with
# it running, a first round could take in a collection of all that start-up made). libc's
# getpgrp and getppid, called nowhere else, mark where callgrind zeroes its counts
# (--zero-before) and dumps them (--dump-before).
COUNT_KEYS = """
from tui import startup

startup.pause_collector()  # as `crtdesk` does; the desk freezes it at its first frame
import asyncio
import json
import os
import random
import sys
from pathlib import Path

from textual import events
from textual.widgets import Input

from tui import saves
from tui.desk.app import CrtDeskApp

folder, keys, wait = Path(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
setups, rulesets = json.loads(sys.argv[4]), sys.argv[5:]
F_KEYS = ("f2", "f3", "f4", "f5", "f6", "f7", "f8")
WAITING = "waiting for a valid form"
CHARS = {"tab": "\\t", "enter": "\\r", "backspace": "\\x08"}


# Keys posted as the driver posts them, each given `wait` (Pilot's press gives up after a
# while, which a loaded machine under callgrind can pass).
async def press(app, *keys):
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else CHARS.get(key)))
        await asyncio.sleep(wait)


# Until the focused field holds "1" and the preview shows a combat, then `wait` more: what
# a key left to do is done before the next count starts (a loaded machine under callgrind
# can take longer than `wait`).
async def settled(app):
    for _ in range(600):
        field, preview = app.screen.focused, app.screen.query_one("#preview")
        if getattr(field, "value", None) == "1" and WAITING not in str(preview.content):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(wait)


async def main():
    path = folder / "keys.toml"
    saves.new_game(path, "keys", rulesets, {})
    app = CrtDeskApp(saves_dir=folder, game_path=path, rng=random.Random(1), player="bench")
    async with app.run_test(size=(80, 24)):
        for index, ruleset in enumerate(rulesets):
            if index:
                await press(app, F_KEYS[index])
            for _ in range(600):  # the screen shown, and ready for a combat
                if getattr(app.screen, "ruleset", None) == ruleset and app.screen.prepared:
                    break
                await asyncio.sleep(0.1)
            for field in app.screen.query(Input):
                field.cursor_blink = False
            await press(app, *setups[ruleset])
            await settled(app)
            changed = 0
            for round_keys in keys:
                shown = [str(app.screen.query_one("#preview").content)]
                os.getpgrp()
                for key in round_keys:
                    app.post_message(events.Key(key, key))
                    await asyncio.sleep(wait)
                    shown.append(str(app.screen.query_one("#preview").content))
                os.getppid()
                # A key counts if it drew a new combat's preview (not a problem).
                changed += sum(a != b and WAITING not in b for a, b in zip(shown, shown[1:]))
                await press(app, *["backspace"] * len(round_keys))  # back to "1"
                await settled(app)
            print(ruleset, changed, flush=True)
    os._exit(0)


asyncio.run(main())
"""
# The keystrokes' reference, counted the same way: the minimal app (COUNT_MINIMAL's) on
# Pilot at 80x24, its Input focused and holding "1" (its cursor not blinking, as the desk's
# fields in COUNT_KEYS), then the same keys posted as COUNT_KEYS posts them, each given the
# same time, its collector paused and frozen after the first frame as the desk's; it
# prints whether the Input's line shows what was typed.
COUNT_ECHO = (
    """
import gc

gc.disable()  # as COUNT_KEYS starts the desk: paused, then frozen at the first frame
import asyncio
import json
import os
import sys

from textual import events
from textual.app import App
from textual.widgets import Footer, Header, Input, Static

keys, wait = json.loads(sys.argv[1]), float(sys.argv[2])

"""
    + MINIMAL_CLASS
    + """

def frozen(self):
    gc.freeze()
    gc.enable()


Minimal.on_ready = frozen


# Until the field holds "1", then `wait` more (as COUNT_KEYS waits between its counts).
async def settled(field):
    for _ in range(600):
        if field.value == "1":
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(wait)


async def main():
    app = Minimal()
    async with app.run_test(size=(80, 24)):
        field = app.query_one(Input)
        field.cursor_blink = False
        field.focus()
        app.post_message(events.Key("1", "1"))
        await settled(field)
        echoed = True
        for round_keys in keys:
            os.getpgrp()
            for key in round_keys:
                app.post_message(events.Key(key, key))
                await asyncio.sleep(wait)
            os.getppid()
            typed = "1" + "".join(round_keys)
            echoed &= field.value == typed and typed in field.render_line(0).text
            for _ in round_keys:
                app.post_message(events.Key("backspace", "\\x08"))
            await settled(field)
        print("echo", echoed, flush=True)
    os._exit(0)


asyncio.run(main())
"""
)


def new_combat_keys(rounds: int) -> list[list[str]]:
    """Two digits typed after a factor's "1", a round at a time (the field taken back to
    "1" between rounds): each round starts with a digit of its own, so every key makes a
    factor value not typed before (12, 123; 13, 134; ...; a factor is at most 999) and asks
    for a combat whose preview is not kept. At most eight rounds."""
    return [[str(first), str((first + 1) % 10)] for first in range(2, 2 + rounds)]


# Instructions per keystroke to the preview, as counted on 2026-11-25 by this bench's
# method (four keys a screen): each screen's budget is this count plus 20%.
KEY_COUNTS_MEASURED: dict[str, float] = {
    "pod-basic": 20.9e6,
    "pod-super": 22.0e6,
    "pod-ultra": 23.1e6,
    "pod-boom": 22.9e6,
    "ocs": 29.0e6,
    "rivets": 20.0e6,
    "daynight": 22.7e6,
}

# A unit's name typed in the first attacker's name field, one key at a time, on the desk
# opened on a game of many units (an OCS form: "1" Enter "1" gives both strengths first,
# as the keystroke rows set it up). Each key is posted to the app as the terminal driver
# posts it. Timed ("time"): from the key posted until the field's line shows the key and
# the completion the game's units give (each key asks the suggester again); a tenth of a
# second to be drawn before the next key, and the name deleted again after each round.
# Counted ("count", under callgrind, one round): between getpgrp and getppid, each key
# given `wait` seconds to be handled and drawn, as COUNT_KEYS counts them.
COMPLETION_KEYS = """
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

from textual import events
from textual.widgets import Input

from tui.desk.app import CrtDeskApp

path, mode, rounds, wait = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
wanted = json.loads(sys.argv[5])  # [what is typed, the completion it shows], key by key


async def main():
    app = CrtDeskApp(saves_dir=path.parent, game_path=path, rng=random.Random(1), player="bench")
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(600):
            await pilot.pause(0.05)
            screen = app.screen
            if getattr(screen, "prepared", False) and getattr(screen, "unit_states", None):
                break
        for field in screen.query(Input):
            field.cursor_blink = False
        await pilot.press("1", "enter", "1")
        name = screen.unit_rows("attacker")[0].name_input
        name.focus()
        await pilot.pause(0.2)
        times, missed = [], []
        for _ in range(rounds):
            if mode == "count":
                os.getpgrp()
            for typed, completion in wanted:
                char = typed[-1]
                start = time.perf_counter()
                app.post_message(events.Key("space" if char == " " else char, char))
                if mode == "count":
                    await asyncio.sleep(wait)
                    continue
                while time.perf_counter() - start < 5:
                    if name.value == typed and name.render_line(0).text.startswith(completion):
                        times.append(time.perf_counter() - start)
                        break
                    await asyncio.sleep(0.0005)
                else:
                    missed.append([typed, name.value, name.render_line(0).text])
                await asyncio.sleep(wait)
            if mode == "count":
                os.getppid()
                shown = name.render_line(0).text
                if name.value != wanted[-1][0] or not shown.startswith(wanted[-1][1]):
                    missed.append([wanted[-1][0], name.value, shown])
            await pilot.press(*["backspace"] * len(name.value))
            await pilot.pause(0.2)
        print(json.dumps({"times": times, "missed": missed}), flush=True)
    os._exit(0)


asyncio.run(main())
"""


def plain(data: bytes) -> str:
    return ESCAPES.sub(b"", data).decode("utf-8", "ignore")


class Terminal:
    """A program run under a pty of 80x24, its output read as it comes."""

    def __init__(self, argv: Sequence[str], env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: size its terminal, then become the program
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
            try:
                os.execve(argv[0], list(argv), env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.out = bytearray()
        self.alive = True
        self.rusage: object | None = None

    def pump(self, timeout: float) -> bool:
        """Read what is there (waiting up to `timeout`); False once the program is gone."""
        if not self.alive:
            return False
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                data = b""
            if not data:
                self.alive = False
                return False
            self.out += data
        return True

    def wait_for(
        self, test: Callable[[str], bool], since: int, timeout: float = 20.0
    ) -> float | None:
        """Seconds from now until `test` holds for the text written since byte `since`."""
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if test(plain(bytes(self.out[since:]))):
                return time.perf_counter() - start
            if not self.pump(0.05):
                break
        return None

    def settle(self, quiet: float = 0.25, limit: float = 5.0) -> None:
        """Read until the program has written nothing for `quiet` seconds."""
        start = time.perf_counter()
        while time.perf_counter() - start < limit:
            before = len(self.out)
            self.pump(quiet)
            if len(self.out) == before:
                return

    def send(self, keys: bytes) -> int:
        """Type `keys`; the output's length before them (a mark for wait_for)."""
        mark = len(self.out)
        os.write(self.fd, keys)
        return mark

    def tail(self) -> str:
        """The last words the program wrote (what a failed wait saw)."""
        return " ".join(plain(bytes(self.out)).split())[-200:]

    def peak_rss(self) -> int | None:
        """The program's peak RSS in KB so far (Linux's VmHWM), or None where unknown.

        Not the rusage of the finished child: `pty.fork` copies the bench into the child
        before it becomes the program, so that figure counts the bench's own memory too
        (a bench that has a 10,000-entry game loaded makes every desk look 100 MB bigger)."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text(encoding="utf-8")
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return None

    def close(self) -> int:
        """Quit (ctrl+q, then a kill if it hangs); the peak RSS in KB (see `peak_rss`)."""
        if self.alive:
            with contextlib.suppress(OSError):
                os.write(self.fd, CTRL_Q)
            deadline = time.perf_counter() + 5
            while self.alive and time.perf_counter() < deadline:
                self.pump(0.1)
        done, status, usage = os.wait4(self.pid, os.WNOHANG)
        if done == 0:
            os.kill(self.pid, signal.SIGKILL)
            done, status, usage = os.wait4(self.pid, 0)
        os.close(self.fd)
        return usage.ru_maxrss


@dataclass
class Row:
    """One figure of the table."""

    name: str
    values: list[float] = field(default_factory=list)
    unit: str = "ms"
    budget: str = ""
    reference: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.values) if self.values else None

    def shown(self) -> str:
        value = self.median
        if value is None:
            return "n/a"
        if self.unit == "ms":
            return f"{value * 1000:.1f} ms"
        if self.unit == "x":
            return f"{value:.2f}x"
        if self.unit == "B":
            return f"{value:,.0f} B"
        if self.unit == "MB":
            return f"{value:.1f} MB"
        if self.unit == "instructions":
            return f"{value / 1e6:,.0f} M"
        return f"{value:g} {self.unit}"


def ms(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1000:.1f} ms"


class Bench:
    def __init__(self, quick: bool, entries: int, smoke: bool = False) -> None:
        quick = quick or smoke
        self.quick = quick
        self.smoke = smoke
        self.runs = 1 if quick else 4
        self.keys = 1 if smoke else 2 if quick else 12
        # How long the output must stay quiet before the next key of a form's setup, and
        # before a program counts as settled.
        self.quiet = 0.05 if smoke else 0.15 if quick else 0.3
        self.rest = 0.08 if smoke else 0.25
        self.entries = entries
        self.rows: list[Row] = []
        self.minimal_echo_ms: float | None = None
        self.first_frame: list[float] = []
        self.failures: list[str] = []
        self.tmp = Path(tempfile.mkdtemp(prefix="crtdesk-bench-"))
        self.desk_saves = self.tmp / "desk"
        self.long_saves = self.tmp / "long"
        self.desk_saves.mkdir()
        self.long_saves.mkdir()
        bindir = Path(sys.executable).parent
        script = bindir / "crtdesk"
        self.crtdesk = [sys.executable, str(script)] if script.exists() else None
        if self.crtdesk is None:
            self.crtdesk = [sys.executable, "-m", "tui.startup"]
        self.minimal = self.tmp / "minimal_app.py"
        self.minimal.write_text(MINIMAL_APP, encoding="utf-8")
        self.form = self.tmp / "form_app.py"
        self.form.write_text(FORM_APP, encoding="utf-8")
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("TEXTUAL", "CRTDESK"))
            # A player's Python keeps its bytecode: without it every start compiles the
            # desk's source again (setup compiles it once, as pip does on install).
            and key not in ("NO_COLOR", "TMUX", "PYTHONDONTWRITEBYTECODE")
        }
        self.env |= {
            "TERM": "xterm-256color",
            "COLUMNS": str(COLUMNS),
            "LINES": str(LINES),
            "CRTDESK_PLAYER": "bench",
            # The bench's own cache of the parsed tables.toml, made in setup.
            "CRTDESK_CACHE": str(self.tmp / "cache"),
        }

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        import tui
        from tui import saves
        from tui.engine.registry import BUILT_IN_IDS as RULESET_IDS

        compileall.compile_dir(Path(tui.__file__).parent, quiet=1)
        # The parsed tables.toml a player's first start keeps (tui.engine.tables).
        subprocess.run(
            [sys.executable, "-c", "from tui.engine.tables import load_tables; load_tables()"],
            env=self.env,
            check=True,
        )

        self.rulesets = list(RULESET_IDS)
        saves.new_game(self.desk_saves / "desk.toml", "Desk", self.rulesets)
        self.long_path = self.long_saves / "long.toml"
        build(self.long_path, self.entries, random.Random(1))
        self.long_last = self.entries
        # A player's first start: the start screen and a combat screen are drawn once, then
        # quit (the files they read are in the page cache, as at a player's next start).
        for argv, wanted in self.desk_starts().values():
            term = self.terminal(argv)
            term.wait_for(lambda text, w=wanted: all(s in text for s in w), 0, 30)
            term.close()

    def terminal(self, argv: Sequence[str]) -> Terminal:
        return Terminal(argv, self.env)

    # ------------------------------------------------------------------ cold start
    def desk_starts(self) -> dict[str, tuple[list[str], tuple[str, ...]]]:
        """`crtdesk` and `crtdesk open NAME`, and the text each first screen shows."""
        from tui.engine.registry import short_name

        first = f"[{short_name(self.rulesets[0])}]"
        return {
            "start": ([*self.crtdesk, "--saves", str(self.desk_saves)], ("Saves in", "desk")),
            "open": (
                [*self.crtdesk, "open", "desk", "--saves", str(self.desk_saves)],
                (first, "Odds"),
            ),
        }

    def cold_start(self) -> None:
        desk = self.desk_starts()
        cases = {
            "minimal": ([sys.executable, str(self.minimal)], ("minimal ready",)),
            "form": ([sys.executable, str(self.form)], ("form ready",)),
            **desk,
            # A player's very first start: no checked tables kept yet.
            "first": (["/usr/bin/env", "CRTDESK_CACHE=", *desk["open"][0]], desk["open"][1]),
        }
        times: dict[str, list[float | None]] = {name: [] for name in cases}
        frames: list[float] = []
        echo: list[float] = []
        # More rounds than the other figures: a start is short and the machine's load moves
        # it by a tenth either way.
        for round_no in range(self.runs if self.quick else 2 * self.runs + 2):
            for name, (argv, wanted) in cases.items():
                if name == "first" and round_no % 2:
                    times[name].append(None)  # every other round: it is only reported
                    continue
                term = self.terminal(argv)
                took = term.wait_for(lambda text, w=wanted: all(s in text for s in w), 0, 30)
                if took is not None:
                    times[name].append(time.perf_counter() - term.started)
                else:
                    times[name].append(None)
                    self.failures.append(f"{name}: {term.tail()}")
                if name == "open":
                    term.settle(self.rest)
                    frames.append(len(term.out))
                if name == "minimal" and took is not None:
                    term.settle(self.rest)
                    echo.extend(self.minimal_echo(term))
                term.close()
        shown = {name: [t for t in runs if t is not None] for name, runs in times.items()}
        minimal = statistics.median(shown["minimal"]) if shown["minimal"] else None
        self.minimal_echo_ms = statistics.median(echo) if echo else None
        for name, label in (
            ("form", "cold start: a bare Textual form (reference)"),
            ("start", "cold start: crtdesk to the start screen"),
            ("open", "cold start: crtdesk open NAME to a combat screen"),
            ("first", "cold start: open NAME, nothing kept (first start)"),
        ):
            # Reported: the start's budgets are on its instruction counts (`counts`), which
            # the machine's load does not move; a time moves a tenth either way.
            row = self.add(Row(label, shown[name], budget="report"))
            row.reference = f"minimal app {ms(minimal)}"
            # Each run's figure over the minimal app's in the same round, so the machine's
            # drift during the bench moves both.
            ratios = [
                took / base
                for took, base in zip(times[name], times["minimal"], strict=True)
                if took is not None and base is not None
            ]
            if ratios:
                ratio = statistics.median(ratios)
                row.note = f"{ratio:.2f}x (median of each round's ratio)"
        self.first_frame = frames

    def minimal_echo(self, term: Terminal) -> list[float]:
        """The keys the keystroke rows type (`key_rounds`) typed after a "1" in the minimal
        app's Input, each until the typed digit is drawn (a cursor's blink is not an echo)."""
        took = []
        term.send(b"1")
        term.settle(0.05)
        for keys in self.key_rounds():
            for key in keys:
                mark = term.send(key.encode())
                seconds = term.wait_for(lambda text, k=key: k in text, mark, 5)
                if seconds is not None:
                    took.append(seconds)
                term.settle(0.05)
            term.send(BACKSPACE * len(keys))
            term.settle(0.05)
        return took

    def key_rounds(self) -> list[list[str]]:
        """The keys typed in each form's factor (and in the minimal app's Input) after its
        "1", in rounds of two (one with --smoke), each key a factor value not typed before."""
        rounds = new_combat_keys(-(-self.keys // 2))
        return [keys[: self.keys] for keys in rounds]

    # ------------------------------------------------------------------ keystrokes
    def keystrokes(self) -> None:
        from tui.desk.screens import screen_for
        from tui.desk.screens.combat import CombatScreen
        from tui.engine.registry import short_name

        term = self.terminal([*self.crtdesk, "open", "desk", "--saves", str(self.desk_saves)])
        term.wait_for(lambda text: "Odds" in text, 0, 30)
        term.settle(self.rest)
        key_bytes: list[float] = []
        tab_bytes: list[float] = []
        for index, ruleset in enumerate(self.rulesets):
            name = f"keystroke to preview: {short_name(ruleset)}"
            row = self.add(Row(name, budget="< 16 ms"))
            row.reference = f"minimal echo {ms(self.minimal_echo_ms)}"
            if not has_form(screen_for, CombatScreen, ruleset):
                row.note = "no form on this screen yet"
                continue
            if self.smoke and index > 0:
                row.note = "not timed with --smoke (the first screen is)"
                continue
            if index > 0:
                mark = term.send(F_KEYS[index])
                strip = f"[{short_name(ruleset)}]"
                term.wait_for(lambda text, s=strip: s in text, mark, 20)
                term.settle(2 * self.quiet)
            # Both factors entered (and what else the form needs), then back in the
            # attacker's: "1" and "12" by turns.
            for keys in SETUP.get(ruleset, SETUP[""]):
                mark = term.send(keys)
                # A key that changes nothing (End with the cursor at the end) writes
                # nothing: a short wait, then the quiet settle.
                term.wait_for(lambda text: text.strip() != "", mark, 0.3 if self.smoke else 1)
                term.settle(self.quiet)
                if keys == TAB:
                    tab_bytes.append(len(term.out) - mark)
            shown = HEADLINE.findall(plain(bytes(term.out)))
            last = shown[-1] if shown else None
            if last is None:
                # A preview without the usual headline: any redraw of it counts.
                row.note = "no totals headline: timed to a preview redraw"
            # Digits after the factor's "1", each a combat not asked for before; the factor
            # taken back to "1" between rounds (not timed).
            for keys in self.key_rounds():
                for key in keys:
                    mark = term.send(key.encode())

                    def changed(text: str, last: str | None = last) -> bool:
                        if last is None:
                            return any(word in text for word in PREVIEW_WORDS)
                        found = HEADLINE.findall(text)
                        return bool(found) and found[-1] != last

                    seconds = term.wait_for(changed, mark, 5)
                    term.settle(min(0.1, self.rest))
                    if seconds is None:
                        row.note = "the preview did not change on a key"
                        self.failures.append(f"{ruleset}: {term.tail()}")
                        break
                    row.values.append(seconds)
                    key_bytes.append(len(term.out) - mark)
                    found = HEADLINE.findall(plain(bytes(term.out[mark:])))
                    last = found[-1] if found and last is not None else last
                else:
                    mark = term.send(BACKSPACE * len(keys))
                    term.settle(self.quiet)
                    found = HEADLINE.findall(plain(bytes(term.out[mark:])))
                    last = found[-1] if found and last is not None else last
                    continue
                break
            row.met = row.median is not None and row.median < 0.016
        term.close()
        frame = self.add(
            Row("bytes: a combat screen's first frame", self.first_frame, "B", "report")
        )
        frame.note = "crtdesk open NAME, 80x24"
        per_key = self.add(Row("bytes: per keystroke (all screens)", key_bytes, "B", "< 4 KB"))
        tab = self.add(Row("bytes: Tab to the next field", tab_bytes, "B", "report"))
        tab.note = "a focus change redraws the whole screen (in Textual's minimal app too)"
        if key_bytes:
            per_key.note = f"max {max(key_bytes):,} B"
            per_key.met = statistics.median(key_bytes) < 4096 and max(key_bytes) < 4096

    def completion(self) -> None:
        """A unit's name typed in a combat form's name field on a game of 2,000 imported
        units, one key at a time, each key asking the game's units again for the completion
        (`COMPLETION_KEYS`): timed to the completion shown in the field, and counted in
        instructions (callgrind, not in --smoke) against the OCS screen's keystroke budget."""
        from bench_saves import unit_records

        from tui import saves

        folder = self.tmp / "completion"
        folder.mkdir()
        path = folder / "units.toml"
        saves.new_game(path, f"{UNITS} units", ["ocs"])
        records = unit_records(UNITS)
        # In files of 1,000, as a big order of battle is brought in (an import entry holds
        # at most 256 KiB, about 1,800 such units).
        for first in range(0, UNITS, 1000):
            saves.import_units(path, records[first : first + 1000], source="bench-oob.csv")
        # The last unit imported, typed letter by letter: every key's completion is the first
        # of the game's units (in their order, any side: no attacker is picked yet) whose
        # name starts with what is typed.
        typed = str(records[-1]["name"])
        names = [str(record["name"]) for record in records]
        wanted = []
        for end in range(1, len(typed) + 1):
            prefix = typed[:end]
            found = next(n for n in names if n.casefold().startswith(prefix.casefold()))
            wanted.append([prefix, found])
        script = self.tmp / "completion_keys.py"
        script.write_text(COMPLETION_KEYS, encoding="utf-8")
        argv = [sys.executable, str(script), str(path)]
        rounds = 1 if self.quick else 4
        done = subprocess.run(
            [*argv, "time", str(rounds), "0.1", json.dumps(wanted)],
            capture_output=True,
            text=True,
            env=self.env,
        )
        row = self.add(Row(f"keystroke to completion: {UNITS:,} units", budget="< 16 ms"))
        row.reference = f"minimal echo {ms(self.minimal_echo_ms)}"
        result = json.loads(done.stdout.splitlines()[-1]) if done.stdout.strip() else None
        if result is None or result["missed"]:
            row.note = "the completion was not shown on every key"
            shown = result["missed"][:2] if result else done.stderr.strip()[-300:]
            self.failures.append(f"completion: {shown}")
        else:
            row.values = result["times"]
            row.met = row.median is not None and row.median < 0.016
            row.note = (
                f"max {ms(max(row.values))}; OCS A1's name, {typed!r} typed {rounds}x; "
                "each key posted as the terminal's driver posts it"
            )
        self.completion_count(argv, wanted)

    def completion_count(self, argv: list[str], wanted: list[list[str]]) -> None:
        """The completion's keystrokes counted by callgrind, one round of the name: reported
        beside an OCS factor's keystroke (a name's key does more: the name is part of the
        combat, so every key is a new combat's preview, and the completion is drawn in a
        frame of its own)."""
        name = f"instructions: keystroke to completion: {UNITS:,} units"
        row = self.add(Row(name, unit="instructions", budget="report"))
        row.reference = f"OCS keystroke {KEY_COUNTS_MEASURED['ocs'] / 1e6:,.0f} M on 2026-11-25"
        valgrind = shutil.which("valgrind") or self.install_valgrind()
        if valgrind is None or self.smoke:
            row.note = "valgrind not installed" if valgrind is None else "not counted in --smoke"
            return
        out = self.tmp / "completion.out"
        done = subprocess.run(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}"]
            + ["--zero-before=getpgrp", "--dump-before=getppid"]
            + [*argv, "count", "1", "1.5", json.dumps(wanted)],
            capture_output=True,
            text=True,
            env=self.env | {"PYTHONHASHSEED": "0"},
        )
        dump = out.parent / f"{out.name}.1"
        found = SUMMARY.search(dump.read_text()) if dump.exists() else None
        missed = json.loads(done.stdout.splitlines()[-1])["missed"] if done.stdout else None
        if found is None or missed is None or missed:
            row.note = "not counted: the completion was not shown"
            self.failures.append(f"completion counted: {done.stderr.strip()[-300:]}")
            return
        row.values = [int(found.group(1)) / len(wanted)]
        row.note = f"{len(wanted)} keys; each a new combat's preview and a completion"

    def engine_share(self) -> None:
        from tui.engine import CombatInput, Unit
        from tui.engine.preview import preview

        cases = {
            "pod-basic": CombatInput("pod-basic", (Unit(8),), (Unit(2),), buddy="attacker"),
            "pod-super": CombatInput(
                "pod-super", (Unit(4, "town"), Unit(3)), (Unit(2),), attacker_card="jack"
            ),
            "pod-ultra": CombatInput("pod-ultra", (Unit(9),), obstacle="mines"),
            "pod-boom": CombatInput(
                "pod-boom", (Unit(6), Unit(4), Unit(2)), aaf=3, long_range=True
            ),
            "ocs": CombatInput(
                "ocs",
                (Unit(7),),
                (Unit(2),),
                terrain="close",
                attacker_ar=3,
                defender_ar=2,
                hedgehog=1,
            ),
            "rivets": CombatInput("rivets", (Unit(5),), (Unit(2),)),
            "daynight": CombatInput(
                "daynight", (Unit(4),), (Unit(2),), terrain="clear", reserve=4, press_on=True
            ),
        }
        from tui.engine.registry import short_name

        for ruleset in self.rulesets:
            combat = cases.get(ruleset)
            row = self.add(Row(f"engine share: {short_name(ruleset)}", budget="< 2 ms"))
            if combat is None:
                row.note = "no typical combat in the bench"
                continue
            times = []
            # As typing does: the first attacker's factor changes on every call, to a
            # value not asked before (a combat asked again is answered from the kept ones).
            for n in range(2 if self.smoke else 15):
                first = replace(combat.attackers[0], factor=combat.attackers[0].factor + n)
                changed = replace(combat, attackers=(first, *combat.attackers[1:]))
                start = time.perf_counter()
                preview(changed)
                times.append(time.perf_counter() - start)
            row.values = times
            row.note = f"max {max(times) * 1000:.1f} ms; each a new combat"
            row.met = statistics.median(times) < 0.002
        self.chart_share()

    def chart_share(self) -> None:
        """The engine's share on a player's chart (docs/games/hill-203.toml): a multiplied
        defence, a column shift and a capped DRM, each call a new combat."""
        from tui.engine import CombatInput, Unit
        from tui.engine.preview import preview
        from tui.engine.registry import chart_ruleset
        from tui.engine.rulesets.charts.reading import load_chart

        chart = chart_ruleset(load_chart(ROOT / "docs" / "games" / "hill-203.toml"))
        row = self.add(Row(PLAYER_CHART_ROW, budget="< 2 ms"))
        mods = (("town", True), ("artillery", "attacker"), ("leader", 3))
        times = []
        for n in range(2 if self.smoke else 15):
            combat = CombatInput(chart.id, (Unit(9 + n),), (Unit(2),), modifiers=mods)
            start = time.perf_counter()
            preview(combat)
            times.append(time.perf_counter() - start)
        row.values = times
        row.note = f"max {max(times) * 1000:.1f} ms; each a new combat"
        row.met = statistics.median(times) < 0.002

    # ------------------------------------------------------------------ saves
    def appends(self) -> None:
        from tui import saves

        small = self.tmp / "append-new.toml"
        saves.new_game(small, "new", ["pod-super", "pod-boom", "ocs", "daynight"])
        big = self.tmp / "append-long.toml"
        shutil.copyfile(self.long_path, big)
        pool = combats(random.Random(2))
        count = 3 if self.smoke else 20 if self.quick else 200

        def timed(path: Path) -> list[float]:
            times = []
            for n in range(count):
                start = time.perf_counter()
                saves.append_combat(path, *pool[n % len(pool)])
                times.append(time.perf_counter() - start)
            return times

        new = self.add(Row("save: append to a new save", timed(small), budget="report"))
        long = self.add(Row(f"save: append to a {self.entries:,}-entry save", timed(big)))
        long.budget = "<= 1.5x new"
        long.reference = f"new save {new.shown()}"
        if new.median and long.median is not None:
            long.note = f"{long.median / new.median:.2f}x"
            long.met = long.median <= 1.5 * new.median

    def review(self) -> None:
        times: list[float] = []
        rss: list[float] = []
        last = str(self.long_last)
        for _ in range(max(1, self.runs // 2)):
            term = self.terminal([*self.crtdesk, "--saves", str(self.long_saves)])
            term.wait_for(lambda text: "Saves in" in text, 0, 30)
            term.settle(self.rest)
            mark = term.send(b"l")
            shown = term.wait_for(lambda text: last in text, mark, 30)
            if shown is not None:
                # Interactive: the review answers a key.
                start = time.perf_counter()
                mark = term.send(UP)
                answered = term.wait_for(lambda text: text.strip() != "", mark, 30)
                if answered is not None:
                    times.append(shown + (time.perf_counter() - start))
                term.settle(2 * self.rest)
            peak = term.peak_rss()
            closed = term.close()
            rss.append((peak if peak is not None else closed) / 1024)
        row = self.add(Row(f"review: open a {self.entries:,}-entry save", times))
        row.budget = "< 300 ms"
        row.note = "l on the start screen until the last entry shows and a key is answered"
        row.met = row.median is not None and row.median < 0.3
        peak = self.add(Row("review: peak RSS with it open", rss, "MB", "< 120 MB"))
        peak.met = peak.median is not None and peak.median < 120

    def units(self) -> None:
        """A long campaign with an order of battle of 2,000 units: `crtdesk units` on it
        (its peak RSS against the long campaign's bound, its time in the note), first on the
        save as written outside (the log read) then with the state crtdesk keeps beside it;
        and what a unit row's keystroke costs to complete a name (the game's units read,
        `saves.game_state`, and the side's names that match)."""
        from bench_saves import RSS_BUDGET_MB, build_with_units, measured

        from tui import saves

        entries = 200 if self.smoke else 10_000 if self.quick else UNITS_CAMPAIGN
        folder = self.tmp / "units"
        folder.mkdir()
        path = folder / "units.toml"
        started = time.perf_counter()
        losses = build_with_units(path, entries, UNITS, random.Random(3))
        made = time.perf_counter() - started
        listed = [sys.executable, "-m", "tui.cli", "units", path.name, "--saves", str(folder)]
        size = f"{entries:,} entries ({path.stat().st_size / 1e6:.0f} MB), {UNITS:,} units"
        for name, note in (
            ("units: crtdesk units, the log read", f"{size}, {losses:,} loss entries"),
            ("units: crtdesk units, the state kept", "after a loss taken through the store"),
        ):
            took, rss = measured(listed)
            row = self.add(Row(name, [rss], "MB", f"< {RSS_BUDGET_MB} MB"))
            row.met = rss < RSS_BUDGET_MB
            row.note = f"{took:.2f} s; {note}"
            if name.endswith("log read"):
                row.note += f"; the save written in {made:.1f} s"
                take = [*listed[:-2], "take", "2 Armd", "--steps", "1", *listed[-2:]]
                subprocess.run(take, check=True, capture_output=True, env=self.env)
        # A unit row typed into: each key reads the game's units and lists the side's names
        # that start with what is typed.
        typed = "1 pz"
        times, found = [], 0
        for n in range(3 if self.smoke else 40):
            wanted = typed[: 1 + n % len(typed)]
            start = time.perf_counter()
            game = saves.game_state(path)
            names = [
                u.name
                for u in game.units.values()
                if u.side == "Axis" and u.name.lower().startswith(wanted)
            ]
            times.append(time.perf_counter() - start)
            found = max(found, len(names))
        row = self.add(Row(f"units: completion candidates, {UNITS:,} units", times))
        row.budget = "< 16 ms"
        row.met = row.median is not None and row.median < 0.016
        row.note = (
            f"per key: saves.game_state + the side's names matching (up to {found}); the "
            "form's own is the keystroke to completion row"
        )

    def rolling(self) -> None:
        """The longest the event loop is held while a roll is made and recorded."""
        path = self.tmp / "rolling.toml"
        shutil.copyfile(self.long_path, path)
        held, missed = asyncio.run(self._roll_in_desk(path, 1 if self.quick else 7))
        row = self.add(Row(f"roll and record on a {self.entries:,}-entry save", held))
        row.budget = "< 16 ms"
        row.note = "the event loop's longest stall per roll"
        row.met = not missed and row.median is not None and row.median < 0.016
        if missed:
            row.note = f"{missed} roll(s) not recorded: the bench typed no combat"

    async def _roll_in_desk(self, path: Path, rolls: int) -> tuple[list[float], int]:
        from tui.desk.app import CrtDeskApp
        from tui.desk.screens.combat import CombatScreen
        from tui.game.live import last_seq

        app = CrtDeskApp(saves_dir=path.parent, game_path=path, rng=random.Random(3))
        held: list[float] = []
        missed = 0
        async with app.run_test(size=(COLUMNS, LINES)) as pilot:
            await pilot.pause()
            screen = app.screen
            if not isinstance(screen, CombatScreen):
                return held, rolls
            # The typing order: Enter goes from the attacker's factor to the defender's.
            await pilot.press("8", "enter", "2")
            await pilot.pause()
            for _ in range(rolls):
                seq = last_seq(app.game) if app.game else 0
                gaps: list[float] = []
                stop = asyncio.Event()
                task = asyncio.create_task(_loop_gaps(gaps, stop))
                await asyncio.sleep(0.005)
                await pilot.press("ctrl+r")
                deadline = time.perf_counter() + 10
                while time.perf_counter() < deadline:
                    await asyncio.sleep(0.005)
                    if (app.game and last_seq(app.game) > seq) or (
                        screen.save_state.status == "failed"
                    ):
                        break
                await asyncio.sleep(0.02)
                stop.set()
                await task
                if app.game and last_seq(app.game) > seq:
                    held.append(max(gaps) if gaps else 0.0)
                else:
                    # No entry was recorded: the stall measured is not a roll's.
                    missed += 1
                await pilot.press("tab")  # the form changes: the next roll is a fresh one
                await pilot.press("shift+tab")
        return held, missed

    def opening(self) -> None:
        """A long save opened from the saves list: the open call on the UI thread, the
        combat screen drawn and ready (Textual's compose and layout, the same for any save),
        the longest the event loop is held from the start of the read (once the screen is
        drawn) until the game is read, and then while the game read is shown (the markers,
        and the last combat on the screen in its result box and its form, the same work for
        any save: a layout of the screen in each of two frames)."""
        calls, builds, stalls, shown = asyncio.run(
            self._open_in_desk(1 if self.quick else self.runs)
        )
        name = f"open a {self.entries:,}-entry save from the list"
        call = self.add(Row(f"{name}: the open call", calls, budget="< 16 ms"))
        call.note = "Enter on the saves list: the UI thread's own time in open_game"
        call.met = call.median is not None and call.median < 0.016
        build = self.add(Row(f"{name}: the screen shown", builds, budget="report"))
        build.note = "Enter to the combat screen drawn and ready (as long for a 10-entry save)"
        stall = self.add(Row(f"{name}: UI blocked while read", stalls, budget="< 16 ms"))
        stall.met = stall.median is not None and stall.median < 0.016
        most = f"max {ms(max(stalls))}; " if stalls else ""
        stall.note = f"{most}the event loop's longest stall from the read's start to the game read"
        # Then the game read is shown: the markers, and the last combat on the screen in its
        # result box and its form, each laid out in a frame of its own: as long for any save.
        last = self.add(Row(f"{name}: last combat shown", shown))
        last.budget = "< 33 ms"
        last.met = last.median is not None and last.median < 0.033
        most = f"max {ms(max(shown))}; " if shown else ""
        last.note = f"{most}the longest stall once read: the box and the form filled, two frames"

    async def _open_in_desk(
        self, opens: int
    ) -> tuple[list[float], list[float], list[float], list[float]]:
        from tui.desk.app import CrtDeskApp
        from tui.desk.screens.combat import CombatScreen
        from tui.desk.screens.start import StartScreen
        from tui.startup import pause_collector

        calls: list[float] = []
        builds: list[float] = []
        stalls: list[float] = []
        shown_stalls: list[float] = []
        for _ in range(opens):
            # Each run a desk just started as `crtdesk` starts it: what the runs before left
            # is collected, and the collector paused until the first frame, when what the
            # start made is frozen out of its sight (tui.startup).
            gc.collect()
            pause_collector()
            app = CrtDeskApp(saves_dir=self.long_saves, rng=random.Random(3))
            real_open = app.open_game

            def timed_open(*args: object, real_open: Callable = real_open) -> None:
                start = time.perf_counter()
                real_open(*args)
                calls.append(time.perf_counter() - start)

            app.open_game = timed_open  # type: ignore[method-assign]
            async with app.run_test(size=(COLUMNS, LINES)) as pilot:
                await pilot.pause()
                if not isinstance(app.screen, StartScreen):
                    break
                await pilot.pause(0.2)  # the start screen settled
                gaps: list[float] = []
                ticks: list[float] = []
                stop = asyncio.Event()
                task = asyncio.create_task(_loop_gaps(gaps, stop, ticks))
                await asyncio.sleep(0.005)
                pressed = time.perf_counter()
                # Not awaited here: Pilot's press waits for the app to be idle, the read too.
                key = asyncio.create_task(pilot.press("enter"))
                deadline = pressed + 10
                shown = False
                while time.perf_counter() < deadline:
                    await asyncio.sleep(0.001)
                    screen = app.screen
                    if not shown and isinstance(screen, CombatScreen) and screen.prepared:
                        shown = True
                        builds.append(time.perf_counter() - pressed)
                    if app.session is not None and (app.session.loaded or app.session.closed):
                        break
                read = time.perf_counter()  # seen read: the stalls from here show the game
                await key
                await asyncio.sleep(0.1)  # the game read shown, its last combat too
                stop.set()
                await task
                session = app.session
                if session is not None and session.loaded and session.read_started and shown:
                    # The stalls that began once the read had begun (each tick is the end
                    # of its gap, on the loop's clock: perf_counter's).
                    after = [
                        gap
                        for gap, tick in zip(gaps, ticks, strict=True)
                        if session.read_started <= tick - gap < read
                    ]
                    stalls.append(max(after) if after else 0.0)
                    then = [
                        gap for gap, tick in zip(gaps, ticks, strict=True) if tick - gap >= read
                    ]
                    shown_stalls.append(max(then) if then else 0.0)
                else:
                    self.failures.append("opening: the long save was not shown and read")
        return calls, builds, stalls, shown_stalls

    # ------------------------------------------------------------------ instruction counts
    def counts(self) -> None:
        """Instructions (callgrind), which the machine's load does not move: the minimal app
        to its first frame, and the desk through its real command (`crtdesk`, `crtdesk open
        NAME`) to ready (`COUNT_ENV`)."""
        names = {
            "minimal": "instructions: minimal app to its first frame",
            "start": "instructions: crtdesk to the start screen",
            "open": "instructions: crtdesk open NAME to a combat screen",
        }
        valgrind = shutil.which("valgrind") or self.install_valgrind()
        if valgrind is None or self.smoke:
            why = "valgrind not installed" if valgrind is None else "not counted in --smoke"
            for name in names.values():
                self.add(Row(name, unit="instructions", budget="report", note=why))
            for name in self.key_count_names():
                self.add(Row(name, unit="instructions", budget="report", note=why))
            return
        minimal = self.tmp / "count_minimal.py"
        minimal.write_text(COUNT_MINIMAL, encoding="utf-8")
        desk = self.desk_starts()
        programs = {
            "minimal": [sys.executable, str(minimal)],
            "start": desk["start"][0],
            "open": desk["open"][0],
        }
        counted = {
            key: self.counted(valgrind, key, argv, COUNT_ENV) for key, argv in programs.items()
        }
        base = counted["minimal"]
        for key, name in names.items():
            value = counted[key]
            row = self.add(Row(name, [] if value is None else [value], unit="instructions"))
            if key == "minimal":
                row.budget = "report"
                row.note = "headless 80x24, ended at its first frame"
                continue
            row.reference = f"minimal app {base / 1e6:,.0f} M" if base else "minimal app n/a"
            if value is not None and base:
                row.note = f"{value / base:.2f}x; the command run headless, to ready"
                row.budget = "<= 1.3x minimal"
                row.met = value <= 1.3 * base
        self.key_counts(valgrind)

    def counted(
        self, valgrind: str, key: str, argv: Sequence[str], env: dict[str, str]
    ) -> float | None:
        """Instructions callgrind counts for `argv` run to its end (None, and the reason
        kept with the run's failures, where it failed or ran past 600 s)."""
        try:
            done = subprocess.run(
                [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                capture_output=True,
                text=True,
                env=self.env | env,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            self.failures.append(f"counting {key}: not done within 600 s")
            return None
        found = COLLECTED.search(done.stderr)
        if found is None or done.returncode != 0:
            self.failures.append(f"counting {key}: {done.stderr.strip()[-300:]}")
            return None
        return float(found.group(1))

    def keystroke_counts(self) -> None:
        """The keystrokes' instruction counts alone (`counts` ends with them)."""
        if any(row.name in self.key_count_names() for row in self.rows):
            return  # counted (or said why not) by `counts` in this run
        valgrind = shutil.which("valgrind") or self.install_valgrind()
        if valgrind is None or self.smoke:
            why = "valgrind not installed" if valgrind is None else "not counted in --smoke"
            for name in self.key_count_names():
                self.add(Row(name, unit="instructions", budget="report", note=why))
            return
        self.key_counts(valgrind)

    def key_count_names(self) -> list[str]:
        from tui.engine.registry import short_name

        return [f"instructions: keystroke to preview: {short_name(r)}" for r in self.rulesets]

    def echo_count(self, valgrind: str, keys: list[list[str]], wait: float) -> float | None:
        """Instructions per key echoed by the minimal app's Input (`COUNT_ECHO`), the same
        keys posted the same way as the desk's are counted: their reference."""
        script = self.tmp / "count_echo.py"
        script.write_text(COUNT_ECHO, encoding="utf-8")
        dump = self.tmp / "echo-counted"
        done = subprocess.run(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={dump}"]
            + ["--zero-before=getpgrp", "--dump-before=getppid", sys.executable, str(script)]
            + [json.dumps(keys), str(wait)],
            capture_output=True,
            text=True,
            env=self.env | {"PYTHONHASHSEED": "0"},
        )
        counted = summed_dumps(dump, range(1, len(keys) + 1))
        if counted is None or "echo True" not in done.stdout:
            self.failures.append(f"echo counted: {done.stdout.strip()} {done.stderr[-300:]}")
            return None
        return counted / sum(map(len, keys))

    def key_counts(self, valgrind: str) -> None:
        """Instructions per keystroke to the preview on every screen, by callgrind: two
        rounds of two digits typed after the "1" in a factor the form's setup leaves
        focused (`new_combat_keys`, each round counted, the field taken back between them
        not), each key a factor value (so a combat) not asked for before; beside the same
        keys echoed by the minimal app's Input (`echo_count`), each screen within 1.5x
        that."""
        out = self.tmp / "keys-counted"
        out.mkdir()
        folder = self.tmp / "keys-saves"
        folder.mkdir()
        script = self.tmp / "count_keys.py"
        script.write_text(COUNT_KEYS, encoding="utf-8")
        keys, wait = new_combat_keys(2), 1.5
        typed = sum(map(len, keys))
        names = {b"\t": "tab", SHIFT_TAB: "shift+tab", END: "end", ENTER: "enter"}
        setups = {
            ruleset: [names.get(key, key.decode()) for key in SETUP.get(ruleset, SETUP[""])]
            for ruleset in self.rulesets
        }
        echo = self.echo_count(valgrind, keys, wait)
        done = subprocess.run(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={out / 'keys'}"]
            + ["--zero-before=getpgrp", "--dump-before=getppid", sys.executable, str(script)]
            + [str(folder), json.dumps(keys), str(wait), json.dumps(setups), *self.rulesets],
            capture_output=True,
            text=True,
            env=self.env | {"PYTHONHASHSEED": "0"},
        )
        changed = dict(line.split() for line in done.stdout.splitlines() if line.count(" ") == 1)
        for index, (ruleset, name) in enumerate(
            zip(self.rulesets, self.key_count_names(), strict=True), start=1
        ):
            row = self.add(Row(name, unit="instructions"))
            row.budget = "<= 1.5x echo"
            row.reference = f"echo {echo / 1e6:,.1f} M" if echo else "echo n/a"
            first = (index - 1) * len(keys) + 1  # each round dumped on its own
            counted = summed_dumps(out / "keys", range(first, first + len(keys)))
            if counted is None or changed.get(ruleset) != str(typed):
                row.note = "not counted: a key did not draw a new combat's preview"
                self.failures.append(f"keys counted on {ruleset}: {done.stderr.strip()[-300:]}")
                continue
            row.values = [counted / typed]
            if echo:
                row.note = f"{row.values[0] / echo:.2f}x; "
                row.met = row.values[0] <= 1.5 * echo
            row.note += f"{typed} keys, each a new combat, posted as the terminal's driver does"

    def install_valgrind(self) -> str | None:
        """Valgrind from the system's packages, where it is missing and can be installed."""
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            return None
        subprocess.run(
            "apt-get update -qq && apt-get install -y -qq valgrind",
            shell=True,
            capture_output=True,
        )
        return shutil.which("valgrind")

    # ------------------------------------------------------------------ the CLI
    def cli(self) -> None:
        """`crtdesk resolve` (the issue's command) counted by callgrind beside Python's own
        `import tomllib` (the reference: the CLI within 3x it), with the tables' kept copy
        made (a player's second run) and without (`CRTDESK_CACHE=`: a first run); then timed
        beside `python -c pass`, and checked to import neither textual nor rich."""
        argv = [*self.crtdesk, "resolve", "pod-basic", "--attack", "8", "--defense", "2"]
        argv += ["--seed", "1"]
        names = {
            "tomllib": "instructions: python -c 'import tomllib' (reference)",
            "resolve": "instructions: crtdesk resolve",
            "first": "instructions: crtdesk resolve, nothing kept (first run)",
        }
        valgrind = shutil.which("valgrind") or self.install_valgrind()
        if valgrind is None or self.smoke:
            why = "valgrind not installed" if valgrind is None else "not counted in --smoke"
            for name in names.values():
                self.add(Row(name, unit="instructions", budget="report", note=why))
        else:
            programs = {
                "tomllib": ([sys.executable, "-c", "import tomllib"], {}),
                "resolve": (argv, {}),
                "first": (argv, {"CRTDESK_CACHE": ""}),
            }
            counted = {
                key: self.counted(valgrind, key, command, {"PYTHONHASHSEED": "0"} | env)
                for key, (command, env) in programs.items()
            }
            base = counted["tomllib"]
            for key, name in names.items():
                value = counted[key]
                row = self.add(Row(name, [] if value is None else [value], unit="instructions"))
                if key == "tomllib":
                    row.budget = "report"
                    row.note = "Python's own start and a module of the standard library"
                    continue
                row.reference = f"tomllib {base / 1e6:,.0f} M" if base else "tomllib n/a"
                if value is not None and base:
                    row.note = f"{value / base:.2f}x"
                if key == "resolve":
                    row.budget = "<= 3x tomllib"
                    row.met = value is not None and base is not None and value <= 3 * base
                else:
                    row.budget = "report"
                    row.note += "; tables.toml parsed and checked, its copy kept"
        resolve_times, bare = [], []
        for _ in range(self.runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True, env=self.env)
            resolve_times.append(time.perf_counter() - start)
        row = self.add(Row("cli: crtdesk resolve", resolve_times))
        row.reference = f"python -c pass {ms(statistics.median(bare))}"
        row.budget = "no textual, rich"
        traced = subprocess.run(
            [sys.executable, "-X", "importtime", *argv[1:]],
            capture_output=True,
            text=True,
            env=self.env,
        )
        pulled = sorted(
            {
                line.split("|")[-1].strip().split(".")[0]
                for line in traced.stderr.splitlines()
                if line.startswith("import time:")
            }
            & {"textual", "rich"}
        )
        row.met = traced.returncode == 0 and not pulled
        row.note = "imports " + (", ".join(pulled) if pulled else "neither")

    # ------------------------------------------------------------------ report
    def report(self, started: float) -> None:
        cores = os.cpu_count() or 0
        print(
            f"crtdesk bench {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {cores} cores · "
            f"Python {platform.python_version()} · {self.runs} runs, {self.keys} keys per "
            f"screen, {self.entries:,}-entry save · {time.perf_counter() - started:.0f} s"
        )
        width = max(len(row.name) for row in self.rows)
        print(f"{'figure':{width}}  {'median':>10}  {'budget':16}  {'met':4}  reference; note")
        for row in self.rows:
            met = "-" if row.met is None else "yes" if row.met else "NO"
            notes = "; ".join(part for part in (row.reference, row.note) if part)
            print(f"{row.name:{width}}  {row.shown():>10}  {row.budget:16}  {met:4}  {notes}")
        for failure in self.failures:
            print(f"not measured: {failure}")


async def _loop_gaps(
    gaps: list[float], stop: asyncio.Event, ticks: list[float] | None = None
) -> None:
    """How late each 1 ms sleep of the event loop wakes, until `stop` is set (and, given
    `ticks`, when each woke, by time.perf_counter)."""
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last - 0.001)
        if ticks is not None:
            ticks.append(now)
        last = now


def summed_dumps(path: Path, numbers: Iterable[int]) -> int | None:
    """The instructions callgrind counted in the dumps `path.N` for these N (None if one is
    missing)."""
    total = 0
    for number in numbers:
        dump = path.with_name(f"{path.name}.{number}")
        found = SUMMARY.search(dump.read_text()) if dump.exists() else None
        if found is None:
            return None
        total += int(found.group(1))
    return total


def has_form(screen_for: Callable[[str], object], form: type, ruleset: str) -> bool:
    """Whether the desk's screen for `ruleset` is a combat form (one that cannot even be
    built outside the desk is taken to be one, and timed)."""
    try:
        return isinstance(screen_for(ruleset), form)
    except Exception:
        return True


# The figures in the order they run (the keystrokes take the minimal app's echo and the first
# frame from the cold start when it runs).
STEP_METHODS = {
    "cold": "cold_start",
    "counts": "counts",
    "keycounts": "keystroke_counts",
    "keys": "keystrokes",
    "completion": "completion",
    "engine": "engine_share",
    "rolling": "rolling",
    "opening": "opening",
    "appends": "appends",
    "review": "review",
    "units": "units",
    "cli": "cli",
}
STEPS = tuple(STEP_METHODS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each, a small save")
    parser.add_argument(
        "--smoke", action="store_true", help="each figure once, tiny sizes: does every row print?"
    )
    parser.add_argument("--entries", type=int, help="entries in the long save (10,000)")
    parser.add_argument(
        "--only", nargs="+", choices=STEPS, metavar="STEP", help=f"only these: {', '.join(STEPS)}"
    )
    args = parser.parse_args()
    steps = args.only or STEPS
    entries = args.entries or (20 if args.smoke else 300 if args.quick else 10_000)
    started = time.perf_counter()
    bench = Bench(args.quick, entries, args.smoke)
    try:
        bench.setup()
        for step in steps:
            getattr(bench, STEP_METHODS[step])()
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)
    bench.report(started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
