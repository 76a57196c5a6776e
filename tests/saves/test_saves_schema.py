"""Hand edits never crash a reader: a sound save holding every kind of entry, each field of
each entry (nested ones too) given a value of another type with its checksum made right
again, run through `log`, `luck`, `report`, `turn` and `marker` in process and the review's
reading; the review in Pilot over a sample. Each variant is refused in one line by name, or
loads and every command works: never a traceback."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.review_save import combat_entry
from tui import saves
from tui.cli import main
from tui.reports.review_data import Index, detail_text, entry_cells
from tui.reports.review_rows import read_for_review
from tui.saves import encoding, schema

WHEN = "2026-11-20T18:00:00+00:00"
# A value of each type TOML has, bar dates: whatever a field holds, most of these are wrong.
SHARED = ("dice", "markers", "note", "target", "cell", "explanation", "amends")
WRONG: list[Any] = ["x", 7, -1, 1.5, True, [], [1.5], ["x"], {}, {"a": 1}, [{"a": 1}]]


def sound_log() -> list[dict[str, Any]]:
    """One entry of each kind, with every optional field a reader touches filled in."""
    common = {"turn": 1, "when": WHEN, "who": "ann"}
    marker = {"id": "1.1", "kind": "DG", "target": "0712", "side": "Axis", "turns": 2}
    first = combat_entry(1, 1) | common | {"note": "n", "target": "0712"}
    first |= {"markers": [marker | {"note": "cut off"}]}
    first["dice"][0] |= {"values": [3], "modifier": 1, "row": "4"}
    return [
        first,
        combat_entry(1, 1) | common | {"seq": 2, "amends": 1},
        common
        | {
            "seq": 3,
            "kind": "event",
            "event": "hero-site-draw",
            "ruleset": "pod-basic",
            "text": "drawn",
            "dice": [
                {"dice": "1d6", "values": [4], "total": 4, "source": "seed", "seed": 3}
                | {"purpose": "draw"}
            ],
        },
        common | {"seq": 4, "kind": "place-marker", "marker": marker | {"id": "4.1", "note": "x"}},
        common
        | {"seq": 5, "kind": "remove-marker", "marker_id": "4.1"}
        | {"marker_kind": "DG", "target": "0712"},
        common | {"seq": 6, "kind": "note", "annotates": 1, "text": "seen"},
        common | {"seq": 7, "kind": "option", "key": "mines_cdf", "value": 3},
        common | {"seq": 8, "kind": "turn", "turn": 2, "counted_down": ["1.1"], "expired": ["9.9"]},
    ]


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in an entry a value sits: its fields, and inside tables and arrays
    (an array's first item)."""
    found = [at] if at else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*at, key))
    elif isinstance(value, list) and value:
        found += paths(value[0], (*at, 0))
    return found


def replaced(entry: dict[str, Any], at: tuple[Any, ...], value: Any) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(entry))
    place: Any = copy
    for step in at[:-1]:
        place = place[step]
    place[at[-1]] = value
    return copy


def variants() -> list[tuple[int, tuple[Any, ...], Any]]:
    """(entry index, path, wrong value): every path of every entry, each given the wrong
    values in turn (so every path sees several types, and every type many paths)."""
    found = []
    n = 0
    for i, entry in enumerate(sound_log()):
        for at in paths(entry):
            if at in (("seq",), ("kind",)):
                continue  # another number or kind is another entry: other tests have it
            for k in range(3):
                found.append((i, at, WRONG[(n + 4 * k) % len(WRONG)]))
            n += 1
        # Fields a reader takes from an entry of any kind: a note's `dice`, say.
        for key in SHARED:
            if key not in entry:
                found.append((i, (key,), WRONG[n % len(WRONG)]))
                n += 1
    return found


VARIANTS = variants()


def write(path: Path, log: list[dict[str, Any]]) -> None:
    saves.new_game(path, "Schema", ["rivets", "pod-basic"], {}, who="ann")
    with path.open("ab") as handle:
        handle.write(b"".join(encoding._block(entry) for entry in log))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


COMMANDS = (
    ["log", "g"],
    ["log", "g", "--json"],
    ["log", "g", "--markers"],
    ["luck", "g"],
    ["report", "g", "--markdown"],
    ["turn", "g"],
    ["marker", "g", "add", "DG", "0101"],
)


def check(path: Path, turn: int = 0) -> bool:
    """Every command on the save works or refuses it in one line naming it; the review's
    reading shows every entry. Whether it loaded. A save `log` refuses is refused by the
    same load in every command: then `log` and one more, in turn by `turn`, are run."""
    loaded = True
    for n, argv in enumerate(COMMANDS):
        if not loaded and n != 1 + turn % (len(COMMANDS) - 1):
            continue
        code, out, err = run(*argv, "--saves", str(path.parent))
        assert "Traceback" not in err, (argv, err)
        assert code in (0, 2), (argv, err)
        if code == 2:
            assert out == "" and err.count("\n") == 1 and err.startswith("crtdesk: "), (argv, err)
            assert "g.toml" in err, (argv, err)
            loaded = False
    try:
        review, _ = read_for_review(path)
    except saves.SaveError as err:
        assert "\n" not in str(err)
        assert not loaded
    else:
        index = Index()
        for i in range(len(review.rows)):
            entry = review.entry(i)
            entry_cells(entry, index)
            detail_text(entry, index)
    return loaded


def test_the_sound_save_loads_and_every_command_works(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    write(path, sound_log())
    assert check(path)
    assert len(VARIANTS) >= 300


@pytest.mark.parametrize("part", range(4))
def test_every_field_of_every_kind_given_another_type(tmp_path: Path, part: int) -> None:
    """A quarter of the variants each (the four run side by side)."""
    counts = {"loaded": 0, "refused": 0}
    for n, (i, at, value) in enumerate(VARIANTS[part::4]):
        log = sound_log()
        log[i] = replaced(log[i], at, value)
        path = tmp_path / str(n) / "g.toml"
        path.parent.mkdir()
        write(path, log)
        try:
            counts["loaded" if check(path, n) else "refused"] += 1
        except AssertionError as err:
            raise AssertionError(f"entry {i + 1} {at} = {value!r}: {err}") from None
    print(part, counts)
    assert counts["refused"] > 0


@pytest.mark.parametrize(
    ("index", "at", "value"),
    [
        (5, ("dice",), True),  # a note with `dice = true`
        (0, ("inputs", "attackers"), "x"),
        (0, ("inputs", "attackers"), [1.5]),
        (0, ("inputs", "attackers"), 7),
        (0, ("effects", "attacker"), "x"),
        (0, ("effects",), "x"),  # `effects` not a table
        (0, ("effects",), 7),
        (0, ("markers",), "x"),
    ],
)
def test_each_named_crash_is_refused_by_name(
    tmp_path: Path, index: int, at: tuple[Any, ...], value: Any
) -> None:
    log = sound_log()
    log[index] = replaced(log[index], at, value)
    path = tmp_path / "g.toml"
    write(path, log)
    with pytest.raises(saves.SaveError, match=f"g.toml: line \\d+: entry {index + 1}: "):
        saves.load_game(path)
    assert not check(path)


async def test_the_review_in_pilot_over_a_sample(tmp_path: Path) -> None:
    from tests.conftest import settle
    from tui.desk.app import CrtDeskApp
    from tui.desk.screens import review

    sample = random.Random(32).sample(VARIANTS, 3)
    for n, (i, at, value) in enumerate(sample):
        log = sound_log()
        log[i] = replaced(log[i], at, value)
        path = tmp_path / str(n) / "g.toml"
        path.parent.mkdir()
        write(path, log)
        app = CrtDeskApp(
            saves_dir=path.parent, game_path=path, rng=random.Random(1), player="t", review=True
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await app.workers.wait_for_complete()
            await settle(pilot)
            assert isinstance(app.screen, review.ReviewScreen)
            for key in ("home", "down", "down", "down", "down", "end"):
                await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, review.ReviewScreen)


def test_repair_sets_an_entry_that_does_not_fit_aside(tmp_path: Path) -> None:
    log = sound_log()
    log[5] = replaced(log[5], ("dice",), True)  # the note, entry 6
    path = tmp_path / "g.toml"
    write(path, log)
    code, out, err = run("repair", "g", "--saves", str(tmp_path))
    assert code == 0, err
    assert "set aside 1" in out
    assert "'dice' must be an array, not True" in out
    [side] = tmp_path.glob("g.toml.set-aside-*")
    assert '"dice" = true' in side.read_text()
    assert [e["seq"] for e in saves.load_game(path).entries] == [1, 2, 3, 4, 5, 7, 8]
    assert check(path)


def test_the_schema_s_structs_are_left_to_reference_counting() -> None:
    """The structs a check makes (every entry of a sound log, each kind) are not tracked by
    the cyclic collector: each is let go as soon as the check is made, and none can be in
    a cycle."""
    for entry in sound_log():
        held = msgspec.convert({"entry": entry}, schema._One)
        made = [held, held.entry, *getattr(held.entry, "dice", [])]
        made += [*getattr(held.entry, "markers", [])]
        assert not any(map(gc.is_tracked, made)), entry["kind"]
