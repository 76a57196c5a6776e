"""What loads is sound: sound saves mutated (a value of another type, a missing field, a
value that is not TOML though its checksum holds, a line nested 1,000 deep, flipped bytes)
and run through `log`, `log --json`, `luck`, `report`, the review's reading and an append.
Each either works or is refused in one line: never a traceback."""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.generated_saves import logs, write_save
from tui import saves
from tui.cli import main
from tui.reports.review_data import Index, detail_text, entry_cells
from tui.reports.review_rows import read_for_review

DEEP = "[" * 1000 + "]" * 1000
# Values a hand edit (or a bad sector) may leave, JSON text the fast reader might take.
ODD_VALUES = [
    "null",
    '{"a": 1}',
    '"\\ud800"',
    "NaN",
    "Infinity",
    "1e400",
    "99999999999999999999999",
    "-1",
    "0",
    "true",
    '""',
    '"x"',
    "[]",
    "[1, 2]",
    '["a"]',
    "{}",
    '{ "a" = 1 }',
    '[{ "dice" = 3 }]',
    "1.5",
    DEEP,
]


def header_end(data: bytes) -> bytes:
    """The line that closes a save's header, its checksum with it."""
    found = re.search(rb"# end of header[^\n]*\n", data)
    assert found is not None
    return found[0]


def reseal(block: bytes) -> bytes:
    """A `[[log]]` block with its checksum made right again, as a careful editor would."""
    body, line, end = block.rpartition(b"# end of entry ")
    seq = end.split()[0]
    head, _, rest = body.partition(b"[[log]]\n")
    crc = zlib.crc32(rest)
    return head + b"[[log]]\n" + rest + line + seq + f" crc32 {crc:08x}\n".encode()


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, Any, Any]:
    how = draw(st.sampled_from(["value", "value", "drop", "flip"]))
    if how == "flip":
        return how, draw(st.floats(0, 1)), draw(st.integers(0, 255))
    return how, draw(st.floats(0, 1)), draw(st.sampled_from(ODD_VALUES))


def mutate(data: bytes, how: str, where: float, what: Any) -> bytes:
    if how == "flip":
        at = min(len(data) - 1, int(where * len(data)))
        return data[:at] + bytes([data[at] ^ (what or 1)]) + data[at + 1 :]
    header, end, log = data.partition(header_end(data))
    blocks = log.split(b"\n[[log]]\n")
    if len(blocks) < 2:
        return data
    lines_at = [
        (b, i)
        for b in range(1, len(blocks))
        for i, line in enumerate(blocks[b].split(b"\n"))
        if b" = " in line and not line.startswith(b"#")
    ]
    b, i = lines_at[min(len(lines_at) - 1, int(where * len(lines_at)))]
    lines = blocks[b].split(b"\n")
    key = lines[i].partition(b" = ")[0]
    if how == "drop":
        del lines[i]
    else:
        lines[i] = key + b" = " + what.encode()
    sealed = reseal(b"[[log]]\n" + b"\n".join(lines))
    blocks[b] = sealed[len(b"[[log]]\n") :].rstrip(b"\n")
    rebuilt = b"\n[[log]]\n".join(blocks)
    return header + end + rebuilt + (b"\n" if not rebuilt.endswith(b"\n") else b"")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def check_commands(path: Path) -> None:
    folder = str(path.parent)
    for argv in (
        ["log", "g"],
        ["log", "g", "--json"],
        ["log", "g", "--markers"],
        ["luck", "g"],
        ["report", "g", "--markdown"],
        ["note", "g", "1", "seen"],
    ):
        code, out, err = run(*argv, "--saves", folder)
        assert code in (0, 2), (argv, err)
        if code == 2:
            assert out == "" and err.count("\n") == 1 and err.startswith("crtdesk: "), (argv, err)
        assert "Traceback" not in err
    try:
        loaded, _ = read_for_review(path)
    except saves.SaveError as err:
        assert "\n" not in str(err)
    else:
        index = Index()
        for i in range(len(loaded.rows)):
            entry = loaded.entry(i)
            entry_cells(entry, index)
            detail_text(entry, index)
    listed = saves.list_games(path.parent)
    assert [s.path.name for s in listed] == ["g.toml"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(log=logs(most=6), change=mutations())
def test_a_mutated_save_is_refused_in_one_line_or_works(
    log: list[tuple[dict[str, Any], str]], change: tuple[str, Any, Any]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.toml"
        data = write_save(path, log)
        path.write_bytes(mutate(data, *change))
        check_commands(path)


@pytest.mark.parametrize("value", ODD_VALUES)
@pytest.mark.parametrize("key", [b"note", b"dice", b"cell", b"inputs", b"who", b"trace"])
def test_each_odd_value_in_each_field(tmp_path: Path, key: bytes, value: str) -> None:
    from tests.review_save import combat_entry

    path = tmp_path / "g.toml"
    entry = combat_entry(1, 1) | {"note": "n"}
    data = write_save(path, [(entry, "store")])
    header, end, log = data.partition(header_end(data))
    lines = log.split(b"\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(b'"' + key + b'" = '))
    lines[at] = b'"' + key + b'" = ' + value.encode()
    start = next(i for i, line in enumerate(lines) if line == b"[[log]]")
    block = reseal(b"\n".join(lines[start:]).rstrip(b"\n") + b"\n")
    path.write_bytes(header + end + b"\n".join(lines[:start]) + b"\n" + block)
    check_commands(path)


def test_a_save_nested_1000_deep_beside_a_sound_one(tmp_path: Path) -> None:
    from tests.generated_saves import block
    from tests.review_save import combat_entry

    sound = tmp_path / "sound.toml"
    saves.new_game(sound, "Sound", ["rivets"])
    deep = tmp_path / "deep.toml"
    write_save(deep, [(combat_entry(1, 1), "store")])
    second = block(combat_entry(2, 1) | {"note": "x"}, "no checksum")
    deep.write_bytes(
        deep.read_bytes() + second.replace(b'"note" = "x"', f'"note" = {DEEP}'.encode())
    )
    listed = {s.path.name: s for s in saves.list_games(tmp_path)}
    assert listed["sound.toml"].error is None
    assert "nested more than 32 deep" in (listed["deep.toml"].error or "")
    for call in (
        lambda: saves.load_game(deep),
        lambda: list(saves.read_entries(deep)),
        lambda: saves.add_marker(deep, "DG", "0101"),
    ):
        with pytest.raises(saves.SaveError, match="nested more than 32 deep") as caught:
            call()
        assert "\n" not in str(caught.value)


async def test_the_start_screen_lists_a_sound_save_beside_a_1000_deep_one(tmp_path: Path) -> None:
    import random

    from tests.conftest import settle
    from tui.desk.app import CrtDeskApp
    from tui.desk.screens.start import StartScreen

    test_a_save_nested_1000_deep_beside_a_sound_one(tmp_path)
    app = CrtDeskApp(saves_dir=tmp_path, rng=random.Random(1), player="tester")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        screen = app.export_screenshot()
    assert "Sound" in screen and "unreadable" in screen


@pytest.mark.parametrize("value", ["null", '{"a": 1}', '"\\ud800"', "NaN", "-Infinity"])
def test_json_that_is_not_toml_is_refused_though_its_checksum_holds(
    tmp_path: Path, value: str
) -> None:
    from tests.review_save import combat_entry

    path = tmp_path / "g.toml"
    write_save(path, [(combat_entry(1, 1) | {"note": "n"}, "store")])
    data = path.read_bytes()
    header, _, rest = data.partition(b"\n[[log]]\n")
    edited = reseal(b"[[log]]\n" + rest.replace(b'"note" = "n"', f'"note" = {value}'.encode()))
    path.write_bytes(header + b"\n" + edited)
    assert saves.decoding._verified_body(edited[len(b"[[log]]\n") :]) is not None
    for call in (
        lambda: saves.load_game(path),
        lambda: list(saves.read_entries(path)),
        lambda: saves.add_marker(path, "DG", "0101"),
    ):
        with pytest.raises(saves.SaveError, match="not valid TOML|not UTF-8") as caught:
            call()
        assert "\n" not in str(caught.value) and "line 1" not in str(caught.value)


def test_a_save_that_breaks_the_reader_itself_never_stops_the_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saves.new_game(tmp_path / "a.toml", "Sound", ["rivets"])
    saves.new_game(tmp_path / "b.toml", "Bad", ["rivets"])
    real = saves.loading._read_ends

    def reader(fd: int, path: Path) -> Any:
        if path.name == "b.toml":
            raise RecursionError("maximum recursion depth exceeded")
        return real(fd, path)

    monkeypatch.setattr(saves.loading, "_read_ends", reader)
    listed = {s.path.name: s for s in saves.list_games(tmp_path)}
    assert listed["a.toml"].error is None and listed["a.toml"].title == "Sound"
    assert "RecursionError" in (listed["b.toml"].error or "")


async def test_the_review_says_why_when_its_reader_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import random

    from textual.widgets import Static

    from tests.conftest import settle
    from tui.desk.app import CrtDeskApp
    from tui.desk.screens import review

    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["rivets"])

    def broken(path: Path, chunk: int = 0, keep: int = 0) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(review, "read_for_review", broken)
    app = CrtDeskApp(
        saves_dir=tmp_path, game_path=path, rng=random.Random(1), player="t", review=True
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, review.ReviewScreen)
        assert str(screen.query_one("#review-status", Static).content) == "Not read"
        assert "RecursionError" in str(screen.query_one("#review-detail", Static).content)
