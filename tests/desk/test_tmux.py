"""The real `crtdesk` in a real terminal: tmux at 80x24, keys typed with send-keys, the
screen read with capture-pane, and the combat found in the save file afterwards."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tui import saves

CRTDESK = Path(sys.executable).with_name("crtdesk")


def tmux(*args: str) -> str:
    done = subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=10)
    return done.stdout


def wait_for(session: str, text: str, timeout: float = 15.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def open_desk(folder: Path, player: str, *args: str) -> str:
    """The real `crtdesk ARGS` on the saves `folder`, in a new tmux session at 80x24: the
    session's name."""
    assert shutil.which("tmux"), "tmux is needed for this test (.ci/run installs it)"
    assert CRTDESK.exists(), f"{CRTDESK} is not installed"
    session = f"crtdesk-{uuid.uuid4().hex[:8]}"
    env = {"CRTDESK_SAVES": str(folder), "CRTDESK_PLAYER": player, "TERM": "xterm-256color"}
    command = " ".join(
        [*(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.quote(str(CRTDESK)), *args]
    )
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    return session


def test_a_combat_typed_in_tmux_lands_in_the_save_file(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    session = open_desk(folder, "tmux-tester")
    try:
        # First run: a default game opens on the Basic screen, the CAF field focused.
        wait_for(session, "Attackers")
        tmux("send-keys", "-t", session, "8")
        tmux("send-keys", "-t", session, "Tab")
        tmux("send-keys", "-t", session, "2")
        wait_for(session, "odds 4-1")
        tmux("send-keys", "-t", session, "C-r")
        screen = wait_for(session, "Logged as entry")
        line = next(row for row in screen.splitlines() if "Roll " in row and " on 4-1:" in row)
        roll = line.split("Roll ", 1)[1].split(" ", 1)[0]
        tmux("send-keys", "-t", session, "C-q")
        deadline = time.monotonic() + 10
        while (
            session in tmux("list-sessions", "-F", "#{session_name}")
            and time.monotonic() < deadline
        ):
            time.sleep(0.1)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    files = list(folder.glob("*.toml"))
    assert len(files) == 1
    entry = saves.load_game(files[0]).entries[-1]
    assert entry["kind"] == "combat" and entry["ruleset"] == "pod-basic"
    assert entry["column"] == "4-1" and entry["roll"] == roll
    assert entry["who"] == "tmux-tester"


def box_text(screen: str) -> str:
    """The "Last roll" box's text as the terminal shows it (its rows joined by spaces)."""
    rows = screen.splitlines()
    top = next(i for i, row in enumerate(rows) if "╭─ Last roll" in row)
    bottom = next(i for i in range(top, len(rows)) if "╰" in rows[i])
    inside = [row.split("│")[1].strip() for row in rows[top + 1 : bottom] if row.count("│") >= 2]
    return " ".join(inside)


def test_each_roll_in_turn_shows_its_own_result_whole_in_tmux(tmp_path: Path) -> None:
    """Rolls whose texts take as many rows as the one before (5, 4 and 6 at 4-1 by hand,
    then three desk rolls): the box shows each one's result, whole, as `crtdesk log` has it
    (it kept the first roll's text, and cut the retreat off)."""
    folder = tmp_path / "saves"
    folder.mkdir()
    session = open_desk(folder, "tmux-tester")
    seen: list[str] = []
    try:
        wait_for(session, "Attackers")
        tmux("send-keys", "-t", session, "8", "Enter", "2")
        wait_for(session, "odds 4-1")
        keys = [("C-t", "5", "Enter"), ("C-t", "4", "Enter"), ("C-t", "6", "Enter")]
        keys += [("C-r",)] * 3
        for seq, typed in enumerate(keys, start=1):
            for key in typed:
                tmux("send-keys", "-t", session, key)
                time.sleep(0.15)
            seen.append(box_text(wait_for(session, f"Logged as entry {seq} ")))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    files = list(folder.glob("*.toml"))
    entries = saves.load_game(files[0]).entries
    assert [e["roll"] for e in entries[:3]] == ["5", "4", "6"]
    for entry, box in zip(entries, seen, strict=True):
        head = f"Roll {entry['roll']} on 4-1: {' / '.join(entry['cell'])}"
        assert box.startswith(head), (box, entry["seq"])
        # Every word of the result, retreats included, as the log has it.
        assert entry["explanation"] in box, (box, entry["seq"])


def test_a_first_run_in_an_empty_folder_says_where_it_made_saves() -> None:
    """`crtdesk` in an empty folder makes `saves/` there and its first screen says where,
    in the words the README quotes."""
    import re
    import tempfile

    readme = (Path(__file__).parents[2] / "README.md").read_text()
    quoted = re.search(r'"(Made the saves folder )(/\S+?)(/saves\.)"', readme)
    assert quoted, "the README quotes what the first screen says"
    # A short folder name: the notice draws the whole path on one line.
    where = Path(tempfile.mkdtemp(prefix="crt"))
    session = f"crtdesk-{uuid.uuid4().hex[:8]}"
    command = (
        f"cd {shlex.quote(str(where))} && env -u CRTDESK_SAVES -u CRTDESK_GAMES "
        f"CRTDESK_PLAYER=ann {shlex.quote(str(CRTDESK))}"
    )
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    try:
        screen = wait_for(session, "Made the saves folder")
        shown = " ".join(row.split("▌", 1)[1].strip() for row in screen.splitlines() if "▌" in row)
        said = f"{quoted[1]}{where}{quoted[3]}"
        assert said in shown, shown
        assert (where / "saves").is_dir()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


# The README's sample screen, typed as a player would: two attackers, one on a beach hex,
# and dice rolled by hand.
SAMPLE_KEYS = ["4", "Tab", "b", "C-n", "3", "Enter", "2", "C-t", "8", "Enter"]


def sample_block(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    return text.split("```text\n", 1)[1].split("```", 1)[0]


def test_the_readme_sample_screen_is_the_desk_at_80x24(tmp_path: Path) -> None:
    """The README's (and docs/desk.md's) sample screen is what the real desk draws at 80x24
    for the combat the README describes (it showed a 7-line box the desk did not draw)."""
    folder = tmp_path / "saves"
    folder.mkdir()
    saves.new_game(folder / "bastogne.toml", "Bastogne", ["pod-super", "pod-basic"], {})
    session = open_desk(folder, "alice", "open", "bastogne")
    try:
        wait_for(session, "Attackers")
        for key in SAMPLE_KEYS:
            tmux("send-keys", "-t", session, key)
            time.sleep(0.15)
        screen = wait_for(session, "Logged as entry 1")
        time.sleep(0.5)  # the chances drawn too
        screen = tmux("capture-pane", "-p", "-t", session)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    shown = [row.rstrip() for row in screen.rstrip("\n").split("\n")]
    root = Path(__file__).parents[2]
    for page in (root / "README.md", root / "docs" / "desk.md"):
        sample = [row.rstrip() for row in sample_block(page).rstrip("\n").split("\n")]
        assert sample == shown, page.name + "\n" + "\n".join(shown)
