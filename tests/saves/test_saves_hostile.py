"""A saves folder shared with a hostile neighbour: links planted beside a save, a save
reached by two names, a lock file deleted under a writer, a loose umask. Nothing crtdesk
does there writes through a link, changes a file it did not make, or lets two writers in."""

from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tui import saves
from tui.cli import main
from tui.engine.combat import CombatInput, Outcome, resolve
from tui.saves import SaveError


def boom(seed: int = 3) -> tuple[CombatInput, Outcome]:
    combat = CombatInput("pod-boom", step="crt", caf=9)
    return combat, resolve(combat, rng=random.Random(seed))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    made = tmp_path / "saves"
    made.mkdir()
    return made


@pytest.fixture
def game(folder: Path) -> Path:
    path = folder / "g.toml"
    saves.new_game(path, "G", ["pod-boom"])
    saves.append_combat(path, *boom())
    return path


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """Another player's private file, outside the saves folder."""
    private = tmp_path / "alice"
    private.mkdir()
    path = private / "mine.txt"
    path.write_bytes(b"alice's own words\n")
    path.chmod(0o600)
    return path


def untouched(victim: Path) -> bool:
    return victim.read_bytes() == b"alice's own words\n" and stat.S_IMODE(
        victim.stat().st_mode
    ) == (0o600)


# --- links planted beside a save -------------------------------------------------------------


def test_a_lock_file_planted_as_a_link_is_never_written_or_chmodded(
    game: Path, victim: Path
) -> None:
    lock = game.with_name("g.toml.lock")
    lock.unlink()
    lock.symlink_to(victim)
    assert len(saves.load_game(game).entries) == 1  # a read
    list(saves.read_entries(game))
    saves.list_games(game.parent)
    saves.append_note(game, 1, "hi")  # a write
    saves.add_marker(game, "DG", "0101")
    assert untouched(victim)
    assert lock.is_symlink()
    assert [e["seq"] for e in saves.load_game(game).entries] == [1, 2, 3]


def test_reads_never_make_or_change_the_lock_file(game: Path) -> None:
    lock = game.with_name("g.toml.lock")
    lock.unlink()
    saves.load_game(game)
    list(saves.read_entries(game))
    saves.list_games(game.parent)
    assert not lock.exists()


def test_an_existing_lock_file_keeps_its_mode(game: Path) -> None:
    lock = game.with_name("g.toml.lock")
    lock.chmod(0o600)
    saves.add_marker(game, "DG", "0101")
    saves.load_game(game)
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600


def test_a_save_name_that_is_a_link_is_refused_with_its_name(folder: Path, tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    real = private / "mine.toml"
    saves.new_game(real, "Mine", ["pod-boom"])
    before = real.read_bytes()
    evil = folder / "evil.toml"
    evil.symlink_to(real)
    for call in (
        lambda: saves.add_marker(evil, "DG", "0101"),
        lambda: saves.load_game(evil),
        lambda: saves.repair_save(evil),
        lambda: list(saves.read_entries(evil)),
    ):
        with pytest.raises(SaveError) as caught:
            call()
        message = str(caught.value)
        assert "\n" not in message
        assert "evil.toml is a symbolic link" in message
    assert real.read_bytes() == before
    [listed] = saves.list_games(folder)
    assert listed.error is not None and "symbolic link" in listed.error


def test_the_cli_refuses_a_save_name_that_is_a_link_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["new", "mine", "--title", "Mine", "--ruleset", "pod-boom", "--saves", "a", "--create"]
    assert main(argv) == 0
    real = tmp_path / "a" / "mine.toml"
    before = real.read_bytes()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "evil.toml").symlink_to(real)
    capsys.readouterr()
    code = main(["marker", "evil", "add", "DG", "0101", "--saves", "b"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "evil.toml is a symbolic link" in err
    assert real.read_bytes() == before
    # A path typed outright still reaches the save the link names, resolved once.
    assert main(["log", str(tmp_path / "b" / "evil.toml")]) == 0
    assert "Mine" in capsys.readouterr().out


def test_new_never_writes_through_a_planted_temporary_file(folder: Path, victim: Path) -> None:
    # The temporary file's old name was predictable: plant a link at every such name.
    for pid in {os.getpid(), os.getppid()}:
        (folder / f".g.toml.new-{pid}").symlink_to(victim)
    saves.new_game(folder / "g.toml", "G", ["pod-boom"])
    assert untouched(victim)
    left = {p.name for p in folder.iterdir()} - {"g.toml", "g.toml.lock"}
    assert all(name.startswith(".g.toml.new-") and (folder / name).is_symlink() for name in left)


def test_new_refuses_a_name_taken_by_a_dangling_link(folder: Path, tmp_path: Path) -> None:
    (folder / "g.toml").symlink_to(tmp_path / "nowhere.toml")
    with pytest.raises(SaveError, match="already exists"):
        saves.new_game(folder / "g.toml", "G", ["pod-boom"])
    assert not (tmp_path / "nowhere.toml").exists()


def test_the_report_replaces_a_planted_link_instead_of_writing_through_it(
    game: Path, victim: Path
) -> None:
    report = game.with_name("g-report.md")
    report.symlink_to(victim)
    written = saves.write_beside(game, "g-report.md", "# Report\n")
    assert written == report
    assert untouched(victim)
    assert not report.is_symlink() and report.read_text() == "# Report\n"
    assert stat.S_IMODE(report.stat().st_mode) == stat.S_IMODE(game.stat().st_mode)
    assert [p.name for p in game.parent.iterdir() if p.name.startswith(".")] == []


async def test_the_reviews_w_writes_the_report_without_following_a_link(
    game: Path, victim: Path
) -> None:
    from tests.conftest import settle
    from tui.desk.app import CrtDeskApp
    from tui.desk.screens.review import ReviewScreen

    report = game.with_name("g-report.md")
    report.symlink_to(victim)
    app = CrtDeskApp(saves_dir=game.parent, game_path=game, player="tester", review=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("w")
        await settle(pilot)
    assert untouched(victim)
    assert not report.is_symlink() and report.read_text().startswith("#")


# --- modes -----------------------------------------------------------------------------------


def test_under_umask_000_nothing_crtdesk_makes_is_world_writable(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        folder = saves.saves_folder(str(tmp_path / "shared" / "saves"), make=True)
        path = folder / "g.toml"
        saves.new_game(path, "G", ["pod-boom"])
        saves.append_combat(path, *boom())
        with path.open("ab") as handle:
            handle.write(b"\n[[log]]\nseq = 2\n")  # torn: the repair makes a backup
        saves.repair_save(path)
        saves.write_beside(path, "g-report.md", "# R\n")
        made = [folder, folder.parent, *folder.iterdir()]
        assert len(made) == 6  # the folder and the one above it, save, lock, backup, report
        for each in made:
            assert stat.S_IMODE(each.stat().st_mode) & 0o002 == 0, each
        assert stat.S_IMODE(folder.stat().st_mode) & 0o2070 == 0o2070
    finally:
        os.umask(old)


def test_backups_and_reports_take_the_saves_own_mode(game: Path) -> None:
    game.chmod(0o640)
    with game.open("ab") as handle:
        handle.write(b"\n[[log]]\nseq = 2\n")
    saves.repair_save(game)
    [backup] = game.parent.glob("g.toml.bak-*")
    report = saves.write_beside(game, "g-report.md", "# R\n")
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640
    assert stat.S_IMODE(report.stat().st_mode) == 0o640


def test_a_saves_folder_name_too_long_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    name = "s" * 300
    with pytest.raises(SaveError, match="cannot be used"):
        saves.saves_folder(name, make=True)
    code = main(["log", "g", "--saves", name])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "saves folder" in err and "Traceback" not in err


# --- one lock per save, whatever its name ----------------------------------------------------


def _blocked_while_held(held: Path, other: Path) -> None:
    """An append through `other` waits while the save is locked through `held`."""
    done = threading.Event()

    def append() -> None:
        saves.add_marker(other, "DG", "0202")
        done.set()

    with saves.locking._locked(held, exclusive=True):
        writer = threading.Thread(target=append)
        writer.start()
        assert not done.wait(0.3), "a second writer got in under another name"
    writer.join(5)
    assert done.is_set()


def test_a_hard_link_shares_the_saves_lock(game: Path) -> None:
    other = game.with_name("h.toml")
    os.link(game, other)
    _blocked_while_held(game, other)


def test_a_deleted_lock_file_lets_no_second_writer_in(game: Path) -> None:
    done = threading.Event()
    with saves.locking._locked(game, exclusive=True):
        game.with_name("g.toml.lock").unlink()
        writer = threading.Thread(target=lambda: (saves.add_marker(game, "DG", "1"), done.set()))
        writer.start()
        assert not done.wait(0.3)
    writer.join(5)
    assert done.is_set()


def test_a_path_typed_through_a_link_shares_the_saves_lock(game: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.symlink_to(game.parent, target_is_directory=True)
    _blocked_while_held(game, elsewhere / "g.toml")


def test_an_append_checks_the_number_it_writes_against_the_file(game: Path) -> None:
    # The store's record says the file is as checked, but another entry 2 is there.
    saves.add_marker(game, "DG", "0101")
    data = game.read_bytes()
    at = data.rindex(b"\n[[log]]\n")
    last = data[at:]
    with game.open("ab") as handle:
        handle.write(last.replace(b'"seq" = 2', b'"seq" = 3').replace(b"entry 2 ", b"entry 3 "))
    fd = os.open(game, os.O_RDONLY)
    try:
        with pytest.raises(SaveError, match="entry 3 would follow entry 3"):
            saves.appending._check_follows(fd, game, 3)
        saves.appending._check_follows(fd, game, 4)
    finally:
        os.close(fd)


WRITER = textwrap.dedent(
    """
    import random, sys
    from pathlib import Path
    from tui import saves
    from tui.engine.combat import CombatInput, resolve

    path, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    combat = CombatInput("pod-boom", step="crt", caf=9)
    rng = random.Random(name)
    for number in range(count):
        saves.append_combat(path, combat, resolve(combat, rng=rng), note=f"{name} {number}")
    """
)


def test_two_writers_by_two_names_with_the_lock_file_deleted_lose_nothing(game: Path) -> None:
    other = game.with_name("h.toml")
    os.link(game, other)
    count = 40
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, str(count)])
        for path, name in ((game, "a"), (other, "b"))
    ]
    while any(w.poll() is None for w in writers):
        for lock in game.parent.glob("*.lock"):
            lock.unlink(missing_ok=True)
        time.sleep(0.002)
    assert [w.returncode for w in writers] == [0, 0]
    entries = saves.load_game(game).entries
    assert [e["seq"] for e in entries] == list(range(1, 2 + 2 * count))
    notes = [e["note"] for e in entries[1:]]
    for name in "ab":
        assert [n for n in notes if n.startswith(name)] == [f"{name} {i}" for i in range(count)]


def test_two_names_and_a_deleted_lock_file_under_two_writers_20_trials(tmp_path: Path) -> None:
    """Issue 23's check, 20 trials: each a new save, one writer through a hard link, one
    through a path that goes through a symbolic link (to the folder: a link to the save
    itself is refused), the lock file deleted all the while. No number is ever written
    twice, and every acknowledged entry is there once. Writers are threads: each opens the
    save itself, so each holds its own flock, as two processes would (and it stays fast)."""
    appends = 5
    for trial in range(20):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        game = folder / "g.toml"
        saves.new_game(game, "G", ["pod-boom"])
        linked = folder / "h.toml"
        os.link(game, linked)
        through = tmp_path / f"l{trial}"
        through.symlink_to(folder, target_is_directory=True)
        start = threading.Barrier(3)
        failures: list[BaseException] = []

        def write(
            path: Path,
            name: str,
            start: threading.Barrier = start,
            failures: list[BaseException] = failures,
        ) -> None:
            start.wait()
            try:
                for number in range(appends):
                    saves.add_marker(path, "DG", f"{name}{number}")
            except BaseException as err:  # noqa: BLE001 - said in the assertion below
                failures.append(err)

        writers = [
            threading.Thread(target=write, args=(path, name))
            for path, name in ((linked, "a"), (through / "g.toml", "b"))
        ]
        for writer in writers:
            writer.start()
        start.wait()
        while any(writer.is_alive() for writer in writers):
            game.with_name("g.toml.lock").unlink(missing_ok=True)
            linked.with_name("h.toml.lock").unlink(missing_ok=True)
            time.sleep(0.0005)
        for writer in writers:
            writer.join()
        assert failures == [], (trial, failures)
        entries = saves.load_game(game).entries
        assert [e["seq"] for e in entries] == list(range(1, 2 * appends + 1)), trial
        for name in "ab":
            placed = [e["marker"]["target"] for e in entries if e["marker"]["target"][0] == name]
            assert placed == [f"{name}{number}" for number in range(appends)], trial


# --- the smaller list ------------------------------------------------------------------------


def test_a_read_with_a_mistyped_saves_folder_makes_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["log", "g", "--saves", "typo"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "typo").exists()


def test_note_says_when_it_cut_a_torn_entry_off(
    game: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with game.open("ab") as handle:
        handle.write(b'\n[[log]]\nseq = 2\nkind = "co')
    assert main(["note", "g", "1", "seen", "--saves", str(game.parent)]) == 0
    out, err = capsys.readouterr()
    assert "Noted on entry 1 as entry 2" in out
    assert err.count("\n") == 1 and "torn last entry" in err and ".bak-" in err


def test_new_clears_what_a_killed_new_left_behind(folder: Path) -> None:
    import fcntl

    stale = folder / ".g.toml.new-1234"  # no process holds it: a killed `new`'s
    stale.write_bytes(b"half a hea")
    fresh = folder / ".g.toml.new-5678"  # another player's `new`, still writing (locked)
    fresh.write_bytes(b"half")
    with fresh.open("rb") as writing:
        fcntl.flock(writing, fcntl.LOCK_EX)
        notices: list[str] = []
        saves.new_game(folder / "g.toml", "G", ["pod-boom"], notices=notices)
    assert not stale.exists() and fresh.exists()
    assert notices == [saves.files.temporaries_notice(folder / "g.toml", [stale.name])]


def test_a_backup_cut_short_by_a_full_disk_is_not_left_behind(
    game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with game.open("ab") as handle:
        handle.write(b"\n[[log]]\nseq = 2\n")
    real = saves.files._write_all

    def full(fd: int, data: bytes) -> None:
        real(fd, data[:10])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(saves.files, "_write_all", full)
    with pytest.raises((SaveError, OSError)):
        saves.repair_save(game)
    assert list(game.parent.glob("g.toml.bak-*")) == []


def test_a_writer_also_takes_turns_with_an_older_crtdesk_locking_the_lock_file(
    game: Path,
) -> None:
    import fcntl

    done = threading.Event()
    fd = os.open(game.with_name("g.toml.lock"), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as an older crtdesk's writer holds it
        writer = threading.Thread(target=lambda: (saves.add_marker(game, "DG", "1"), done.set()))
        writer.start()
        assert not done.wait(0.3)
    finally:
        os.close(fd)
    writer.join(5)
    assert done.is_set()


# --- the lock held briefly -------------------------------------------------------------------


def test_turn_reads_the_log_before_the_lock_and_only_checks_it_under_it(
    game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saves.add_marker(game, "DG", "0101", turns=1)
    under_lock: list[int] = []
    before: list[int] = []
    real = saves.appending._read_whole
    real_before = saves.appending._read_beforehand

    def counted(fd: int, path: Path):  # noqa: ANN202
        under_lock.append(1)
        return real(fd, path)

    def counted_before(path: Path):  # noqa: ANN202
        before.append(1)
        return real_before(path)

    monkeypatch.setattr(saves.appending, "_read_whole", counted)
    monkeypatch.setattr(saves.appending, "_read_beforehand", counted_before)
    # The state kept beside the save: neither the log nor its replay is read.
    entry = saves.advance_turn(game)
    assert under_lock == [] and before == [] and entry["turn"] == 2
    assert "2.1" in entry["counted_down"]
    # No state (the lock file gone): the log is read entry by entry before the lock.
    game.with_name("g.toml.lock").unlink()
    saves.add_marker(game, "DG", "0303", turns=1)
    assert under_lock == [] and before == [1]
    game.with_name("g.toml.lock").unlink()

    # Another writer between the read and the lock: the log is read again under it.
    def then_a_note(path: Path):  # noqa: ANN202
        read = counted_before(path)
        if len(before) == 2:  # the other writer's own read (no state either) is let be
            saves.add_marker(path, "DG", "0202", turns=1)
            game.with_name("g.toml.lock").unlink()  # and no state is left by it
        return read

    monkeypatch.setattr(saves.appending, "_read_beforehand", then_a_note)
    entry = saves.remove_marker(game, "5.1")
    assert under_lock == [1] and len(before) == 3
    assert entry["seq"] == 6 and entry["target"] == "0202"
    assert [e["seq"] for e in saves.load_game(game).entries] == [1, 2, 3, 4, 5, 6]
