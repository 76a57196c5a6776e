"""The save store: what an entry records, markers and turns, free text, names and folders,
files broken by hand, torn last entries, and appends that never rewrite the file."""

from __future__ import annotations

import itertools
import os
import random
import re
import stat
import tomllib
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui import saves
from tui.engine.combat import CombatInput, Outcome, Unit, resolve
from tui.engine.dice import Roller
from tui.saves import SaveError, appending, decoding, encoding


def boom(caf: int = 9, roll: int | None = None, seed: int = 3) -> tuple[CombatInput, Outcome]:
    combat = CombatInput("pod-boom", step="crt", caf=caf, roll=roll)
    return combat, resolve(combat, rng=random.Random(seed))


def ocs(seed: int = 1, roll: int | None = None) -> tuple[CombatInput, Outcome]:
    combat = CombatInput(
        "ocs",
        attackers=(Unit(12),),
        defenders=(Unit(3),),
        terrain="close",
        attacker_ar=4,
        defender_ar=2,
        roll=roll,
    )
    return combat, resolve(combat, rng=random.Random(seed))


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.toml"
    saves.new_game(path, "Test game", ["pod-boom", "ocs", "pod-super", "daynight"])
    return path


def whole_toml(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


# --- the file ------------------------------------------------------------------------------


def test_new_game_writes_a_header_any_toml_parser_reads(tmp_path: Path) -> None:
    path = tmp_path / "torch.toml"
    game = saves.new_game(path, "Torch", ["pod-ultra"], {"mines_cdf": 3})
    doc = whole_toml(path)
    assert doc["format"] == saves.FORMAT_VERSION
    assert doc["title"] == "Torch"
    assert doc["rulesets"] == ["pod-ultra"]
    assert doc["options"] == {"mines_cdf": 3}
    assert datetime.fromisoformat(doc["created"]).utcoffset() == timedelta(0)
    assert "log" not in doc  # the log starts empty
    loaded = saves.load_game(path)
    assert (loaded.title, loaded.rulesets, loaded.turn, loaded.format) == (
        "Torch",
        ["pod-ultra"],
        1,
        1,
    )
    assert loaded.options["mines_cdf"] == 3 == game.options["mines_cdf"]
    assert loaded.entries == game.entries == []
    assert re.search(r"\n# end of header crc32 [0-9a-f]{8}\n\Z", path.read_text(encoding="utf-8"))


def test_new_game_defaults_mines_cdf_to_two(tmp_path: Path) -> None:
    assert saves.new_game(tmp_path / "a.toml", "A", ["pod-ultra"]).options["mines_cdf"] == 2
    assert saves.load_game(tmp_path / "a.toml").options["mines_cdf"] == 2


def test_new_game_never_overwrites(game: Path) -> None:
    before = game.read_bytes()
    with pytest.raises(SaveError, match="already exists"):
        saves.new_game(game, "Other", ["ocs"])
    assert game.read_bytes() == before


@pytest.mark.parametrize(
    ("title", "rulesets", "options", "message"),
    [
        ("T", ["pod-mega"], None, "unknown ruleset 'pod-mega'"),
        ("T", [], None, "at least one ruleset"),
        ("  ", ["ocs"], None, "title may not be empty"),
        ("T", ["pod-ultra"], {"mines_cdf": 4}, "mines_cdf must be one of 2, 3"),
        ("T", ["pod-ultra"], {"bad key": 1}, "option name"),
    ],
)
def test_new_game_refuses_bad_settings(tmp_path: Path, title, rulesets, options, message) -> None:
    with pytest.raises(SaveError, match=message):
        saves.new_game(tmp_path / "x.toml", title, rulesets, options)
    assert not (tmp_path / "x.toml").exists()


def test_a_combat_entry_records_everything_needed_to_recheck_it(game: Path) -> None:
    combat = CombatInput(
        "pod-super",
        attackers=(Unit(4), Unit(3, "town")),
        defenders=(Unit(2),),
        attacker_card="jack",
        roll=7,
    )
    outcome = resolve(combat)
    entry = saves.append_combat(game, combat, outcome, note="the river crossing")
    loaded = saves.load_game(game).entries[-1]
    assert loaded == entry
    assert entry["seq"] == 1 and entry["kind"] == "combat" and entry["turn"] == 1
    assert entry["ruleset"] == "pod-super"
    assert entry["inputs"] == combat.to_dict() | {
        "attackers": [{"factor": 4}, {"factor": 3, "terrain": "town"}]
    }
    assert entry["inputs"]["attacker_card"] == "jack"
    assert entry["dice"] == [
        {"purpose": "combat", "dice": "2d6", "values": [], "total": 7, "source": "manual"}
    ]
    assert (entry["odds"], entry["column"], entry["roll"]) == ("4-1", "5-1", "7")
    assert entry["cell"] == {"attacker": ["-", "2"], "defender": ["3", "-3"]}
    assert entry["effects"]["defender"] == {"factors_lost": 3, "retreat": 3}
    assert entry["explanation"] == outcome.explanation
    assert entry["trace"] == outcome.trace
    assert entry["note"] == "the river crossing"
    assert entry["who"] == appending._who()
    when = datetime.fromisoformat(entry["when"])
    assert when.utcoffset() == timedelta(0)
    assert abs((datetime.now(when.tzinfo) - when).total_seconds()) < 60


def test_desk_dice_are_logged_with_their_faces(game: Path) -> None:
    entry = saves.append_combat(game, *ocs(seed=5))
    assert len(entry["dice"]) >= 2 and {d["source"] for d in entry["dice"]} == {"desk"}
    assert all(sum(d["values"]) == d["total"] for d in entry["dice"])
    assert saves.load_game(game).entries[-1]["dice"] == entry["dice"]


def test_a_combat_of_a_ruleset_not_in_play_is_refused(game: Path) -> None:
    combat = CombatInput("rivets", attackers=(Unit(6),), defenders=(Unit(2),), roll=3)
    before = game.read_bytes()
    with pytest.raises(SaveError, match="rivets is not in play"):
        saves.append_combat(game, combat, resolve(combat))
    assert game.read_bytes() == before


def test_every_entry_is_its_own_log_table_in_order(game: Path) -> None:
    for seed in range(5):
        saves.append_combat(game, *boom(seed=seed))
    saves.add_marker(game, "low", "21st Panzer", side="Axis")
    saves.advance_turn(game)
    saves.set_option(game, "mines_cdf", 3)
    doc = whole_toml(game)
    assert [e["seq"] for e in doc["log"]] == list(range(1, 9))
    assert [e["kind"] for e in doc["log"]][-3:] == ["place-marker", "turn", "option"]
    assert saves.load_game(game).entries == doc["log"]


# --- markers and turns -----------------------------------------------------------------------


def test_big_boom_interdiction_places_a_no_entry_marker_that_counts_down(game: Path) -> None:
    combat, outcome = boom(roll=2)  # CAF 9, roll 2: loss 4, interdiction 2
    entry = saves.append_combat(game, combat, outcome, target="0712")
    assert entry["markers"] == [
        {"id": "1.1", "kind": "no-entry", "target": "0712", "side": "both", "turns": 2}
    ]
    [marker] = saves.load_game(game).markers
    assert (marker.kind, marker.target, marker.turns_left, marker.placed_by) == (
        "no-entry",
        "0712",
        2,
        1,
    )
    # Placed in turn 1: the hex is closed for the rest of turn 1, then turns 2 and 3.
    turn = saves.advance_turn(game)
    assert (turn["turn"], turn["counted_down"]) == (2, ["1.1"])
    assert saves.load_game(game).markers[0].turns_left == 1
    turn = saves.advance_turn(game)
    assert (turn["turn"], turn["counted_down"], turn.get("expired")) == (3, ["1.1"], None)
    assert saves.load_game(game).markers[0].turns_left == 0
    turn = saves.advance_turn(game)
    assert turn["expired"] == ["1.1"]
    loaded = saves.load_game(game)
    assert loaded.markers == [] and loaded.turn == 4


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_an_n_turn_marker_placed_in_turn_3_is_lifted_when_turn_4_plus_n_begins(
    game: Path, turns: int
) -> None:
    """The ruling's example: a 1-turn marker placed in turn 3 closes the hex through turn 4
    and is lifted when turn 5 begins; N turns, through turn 3 + N."""
    saves.advance_turn(game)
    saves.advance_turn(game)
    saves.add_marker(game, "no-entry", "0712", side="both", turns=turns)
    in_play = {}
    for _ in range(turns + 2):
        entry = saves.advance_turn(game)
        loaded = saves.load_game(game)
        in_play[entry["turn"]] = [m.target for m in loaded.markers]
        assert bool(entry.get("expired")) == (entry["turn"] == 4 + turns)
    assert {t for t, hexes in in_play.items() if hexes == ["0712"]} == set(range(4, 4 + turns))
    assert in_play[4 + turns] == []


def test_markers_without_a_target_are_on_unspecified(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2))
    assert saves.load_game(game).markers[0].target == "(unspecified)"


def test_interdiction_all_stays_for_the_rest_of_the_game(game: Path) -> None:
    combat = CombatInput("pod-boom", step="crt", caf=16, roll=1)
    outcome = resolve(combat)
    assert {"kind": "no-entry", "side": "both", "turns": None} in outcome.effects["markers"]
    saves.append_combat(game, combat, outcome, target="0911")
    for _ in range(5):
        saves.advance_turn(game)
    [marker] = saves.load_game(game).markers
    assert marker.turns_left is None and marker.target == "0911"


def test_ocs_results_place_dg_and_exploitation_markers(game: Path) -> None:
    # Find desk rolls whose results carry the engine's markers.
    kinds: set[str] = set()
    for seed in range(300):
        combat, outcome = ocs(seed=seed)
        if outcome.effects["markers"]:
            entry = saves.append_combat(game, combat, outcome, target="Ariete")
            kinds |= {m["kind"] for m in entry["markers"]}
            assert all(m["side"] in ("attacker", "defender") for m in entry["markers"])
    assert {"DG", "exploitation"} <= kinds
    exploit = next(m for m in saves.load_game(game).markers if m.kind == "exploitation")
    assert exploit.note and "min ar" in exploit.note


def test_markers_placed_and_removed_by_hand(game: Path) -> None:
    placed = saves.add_marker(game, "Hero Site", "1204", side="Allied", note="Hero #7")
    assert placed["marker"] == {
        "id": "1.1",
        "kind": "hero-site",
        "target": "1204",
        "side": "Allied",
        "note": "Hero #7",
    }
    saves.add_marker(game, "buddy", "Buddy #15", side="Axis")
    saves.add_marker(game, "exhausted", "15th Panzer", turns=3)
    assert [m.kind for m in saves.load_game(game).markers] == [
        "hero-site",
        "buddy-card",
        "exhausted",
    ]
    removed = saves.remove_marker(game, "2.1")
    assert (removed["kind"], removed["marker_id"], removed["target"]) == (
        "remove-marker",
        "2.1",
        "Buddy #15",
    )
    assert [m.id for m in saves.load_game(game).markers] == ["1.1", "3.1"]


@pytest.mark.parametrize(
    ("kind", "target", "turns", "message"),
    [
        ("smoke", "0101", None, "unknown marker kind 'smoke'"),
        ("DG", "", None, "target may not be empty"),
        ("DG", "0101", 0, "turns must be a whole number of 1 or more"),
    ],
)
def test_a_bad_marker_is_refused(game: Path, kind, target, turns, message) -> None:
    before = game.read_bytes()
    with pytest.raises(SaveError, match=message):
        saves.add_marker(game, kind, target, turns=turns)
    assert game.read_bytes() == before


def test_removing_a_marker_that_is_not_there_is_refused(game: Path) -> None:
    before = game.read_bytes()
    with pytest.raises(SaveError, match="no marker '9.1'"):
        saves.remove_marker(game, "9.1")
    assert game.read_bytes() == before


def test_every_marker_kind_the_issue_names_can_be_placed(game: Path) -> None:
    for kind in ("no entry", "obstacle", "LOW", "Exhausted", "dg", "exploitation", "engaged"):
        saves.add_marker(game, kind, "0101")
    saves.add_marker(game, "low", "0102")  # on 0101, Exhausted replaced Low
    saves.add_marker(game, "disorganized", "2/7 Bn")
    saves.add_marker(game, "hero-site", "0808")
    saves.add_marker(game, "buddy-card", "#19 Margaret Stanfill", side="Allied")
    assert {m.kind for m in saves.load_game(game).markers} == set(saves.MARKER_KINDS)


def test_entries_carry_the_turn_they_happened_in(game: Path) -> None:
    saves.append_combat(game, *boom())
    saves.advance_turn(game)
    saves.append_combat(game, *boom(seed=4))
    turns = [(e["kind"], e["turn"]) for e in saves.load_game(game).entries]
    assert turns == [("combat", 1), ("turn", 2), ("combat", 2)]


def test_options_are_logged_and_replayed(game: Path) -> None:
    entry = saves.set_option(game, "mines_cdf", 3)
    assert (entry["kind"], entry["key"], entry["value"]) == ("option", "mines_cdf", 3)
    assert saves.load_game(game).options["mines_cdf"] == 3
    with pytest.raises(SaveError, match="mines_cdf must be one of 2, 3"):
        saves.set_option(game, "mines_cdf", 5)
    assert saves.load_game(game).options["mines_cdf"] == 3


# --- applying an appended entry to a loaded game ------------------------------------------


def test_apply_entry_keeps_a_loaded_game_equal_to_a_fresh_load(game: Path) -> None:
    loaded = saves.load_game(game)
    steps = [
        lambda: saves.append_combat(game, *boom(roll=2), target="0712"),  # No-entry, 2 turns
        lambda: saves.add_marker(game, "DG", "21st Panzer", side="Axis", turns=1),
        lambda: saves.add_marker(game, "hero-site", "1204"),
        lambda: saves.advance_turn(game),  # counts 1.1 down to 1 and 2.1 to 0
        lambda: saves.set_option(game, "mines_cdf", 3),
        lambda: saves.append_event(game, "hero-site-draw", "Axis offers 4 cards"),
        lambda: saves.remove_marker(game, "3.1"),
        lambda: saves.advance_turn(game),  # 1.1 down to 0; 2.1 expires
    ]
    for step in steps:
        entry = step()
        saves.apply_entry(loaded, entry)
        assert loaded == saves.load_game(game), entry["kind"]
    assert (loaded.turn, loaded.options["mines_cdf"]) == (3, 3)
    assert [(m.id, m.turns_left) for m in loaded.markers] == [("1.1", 0)]
    assert [e["kind"] for e in loaded.entries] == [
        "combat",
        "place-marker",
        "place-marker",
        "turn",
        "option",
        "event",
        "remove-marker",
        "turn",
    ]


def test_apply_entry_counts_markers_down_on_a_turn(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2), target="0712")
    saves.add_marker(game, "low", "15th Panzer", turns=1)
    loaded = saves.load_game(game)
    marker = loaded.markers[0]
    saves.apply_entry(loaded, saves.advance_turn(game))
    assert loaded.turn == 2
    assert [(m.id, m.turns_left) for m in loaded.markers] == [("1.1", 1), ("2.1", 0)]
    assert loaded.markers[0] is marker  # updated in place, like the replay
    assert loaded == saves.load_game(game)


def test_apply_entry_takes_an_option(game: Path) -> None:
    loaded = saves.load_game(game)
    assert loaded.options["mines_cdf"] == 2
    saves.apply_entry(loaded, saves.set_option(game, "mines_cdf", 3))
    assert loaded.options["mines_cdf"] == 3
    assert loaded == saves.load_game(game)


def test_apply_entry_follows_random_appends(game: Path) -> None:
    rng = random.Random(8)
    loaded = saves.load_game(game)
    for number in range(60):
        choice = rng.randrange(5)
        if choice == 0:
            entry = saves.append_combat(game, *boom(roll=rng.randint(1, 6)), target=f"{number}")
        elif choice == 1:
            turns = rng.choice([None, 1, 2, 3])
            entry = saves.add_marker(game, "DG", f"{number:04d}", turns=turns)
        elif choice == 2 and loaded.markers:
            entry = saves.remove_marker(game, rng.choice(loaded.markers).id)
        elif choice == 3:
            entry = saves.set_option(game, "mines_cdf", rng.choice([2, 3]))
        else:
            entry = saves.advance_turn(game)
        saves.apply_entry(loaded, entry)
    assert loaded == saves.load_game(game)
    assert loaded.turn > 1 and loaded.markers


# --- free text -----------------------------------------------------------------------------

NASTY = [
    'He said "hold" \\ then ]] [[log]] and \\"',
    "line one\nline two\r\nthree\ttabbed",
    '[[log]]\n"seq" = 99\n# end of entry 99 crc32 00000000\n',
    'a" = b',
    " = leading",
    "\\u0020 literal backslash-u",
    "Ünïcödé ☃ 𝄞 中文 \u200b",
    "\x00\x01\x7f control",
    "",
]


@pytest.mark.parametrize("text", NASTY)
def test_free_text_round_trips_exactly(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.toml"
    saves.new_game(path, text or "x", ["pod-boom"])
    saves.append_combat(path, *boom(roll=2), note=text, target=text or "x")
    saves.add_marker(path, "obstacle", text or "x", side=text or "x", note=text)
    game = saves.load_game(path)
    doc = whole_toml(path)
    assert game.title == doc["title"] == (text or "x")
    assert game.entries[0]["note"] == doc["log"][0]["note"] == text
    assert game.markers[0].target == (text or "x")
    assert game.markers[1].note == text and game.markers[1].side == (text or "x")
    assert game.entries == doc["log"]


_numbers = itertools.count()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40))
def test_any_text_round_trips_exactly(tmp_path: Path, text: str) -> None:
    path = tmp_path / f"h{next(_numbers)}.toml"
    saves.new_game(path, text + "x", ["pod-boom"])
    saves.add_marker(path, "DG", text + "x", note=text)
    game = saves.load_game(path)
    assert game.title == text + "x"
    assert (game.markers[0].target, game.markers[0].note) == (text + "x", text)
    assert whole_toml(path)["log"] == game.entries


_scalars = st.one_of(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=12),
    st.integers(-(2**63), 2**63 - 1),
    st.booleans(),
    st.floats(allow_nan=False),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(st.characters(exclude_categories=["Cs"]), max_size=6), inner, max_size=4
        )
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    fields=st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), _values, max_size=6
    )
)
def test_the_fast_reader_agrees_with_tomllib(fields: dict) -> None:
    entry = {"seq": 1} | {k: v for k, v in fields.items() if k != "seq"}
    block = encoding._block(entry)
    expected = tomllib.loads(block.decode("utf-8"))["log"][0]
    body = decoding._verified_body(block[len(b"\n[[log]]\n") :])
    assert body is not None
    try:
        assert decoding._fast_json([body]) == [expected]
    except ValueError:
        # TOML's inf is not JSON, and numbers past 64 bits or with a 3-digit exponent are
        # left to tomllib to judge: such an entry is read by tomllib, to the same values.
        assert re.search(rb"inf|[0-9]{19}|[eE][+-]?[0-9]{3}", body)
        try:
            assert decoding._json_or_toml(0, body) == expected
        except saves.decoding._BlockError as err:
            assert "not finite" in str(err) or "64-bit" in str(err)


# --- names and folders -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "file"),
    [
        ("campaign", "campaign.toml"),
        ("campaign.toml", "campaign.toml"),
        ("Tobruk 41", "Tobruk 41.toml"),
        ("ÉtÉ", "ÉtÉ.toml"),
    ],
)
def test_save_names_become_files_in_the_folder(tmp_path: Path, name: str, file: str) -> None:
    path = saves.save_path(name, tmp_path)
    assert path == tmp_path / file and path.parent == tmp_path


@pytest.mark.parametrize(
    "name",
    [
        "",
        "  ",
        "..",
        "../x",
        "a/../b",
        "/etc/passwd",
        "a/b",
        "a\\b",
        "x..y",
        ".hidden",
        "-rf",
        "a\x00b",
        "a\nb",
        "x" * 200,
    ],
)
def test_save_names_never_escape_the_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(SaveError):
        saves.save_path(name, tmp_path)


def test_saves_folder_override_env_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(saves.SAVES_ENV, raising=False)
    assert saves.saves_folder() == Path("saves") and (tmp_path / "saves").is_dir()
    monkeypatch.setenv(saves.SAVES_ENV, str(tmp_path / "env"))
    made: list[str] = []
    assert saves.saves_folder(make=True, said=made.append) == tmp_path / "env"
    assert (tmp_path / "env").is_dir() and made == [f"made the saves folder {tmp_path / 'env'}"]
    assert saves.saves_folder(str(tmp_path / "given"), make=True) == tmp_path / "given"
    (tmp_path / "file").write_text("")
    with pytest.raises(SaveError, match="not a folder"):
        saves.saves_folder(str(tmp_path / "file"))


def test_files_are_shared_with_the_group(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        folder = saves.saves_folder(str(tmp_path / "shared"), make=True)
        path = folder / "g.toml"
        saves.new_game(path, "G", ["pod-boom"])
        saves.append_combat(path, *boom())
        with path.open("ab") as handle:
            handle.write(b'\n[[log]]\n"seq" = 2\n')  # a torn entry, to make a backup
        saves.repair_save(path)
        [backup] = folder.glob("g.toml.bak-*")
        for made in (path, folder / "g.toml.lock", backup):
            assert stat.S_IMODE(made.stat().st_mode) & 0o660 == 0o660, made
        assert stat.S_IMODE(folder.stat().st_mode) & 0o070 == 0o070
    finally:
        os.umask(old)


# --- files broken by hand --------------------------------------------------------------------


def _break(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(path: Path, needle: str) -> int:
    """The number of the last line holding `needle`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return max(n for n, line in enumerate(lines, start=1) if needle in line)


BREAKAGES = [
    # (what to replace, with what, the line it is on, what the message says)
    (
        'title = "Test game"',
        'title = "Test game',
        "title =",
        r"line \d+, column \d+: not valid TOML",
    ),
    (
        '"turn" = 1\n"when',
        '"turn" = "three"\n"when',
        '"turn" = "three"',
        r"entry 1: 'turn' must be a whole number",
    ),
    ('"ruleset" = "pod-boom"', '"ruleset" = "pod-mega"', "pod-mega", r"unknown ruleset 'pod-mega'"),
    ('"pod-boom", "ocs"', '"pod-boom", "chess"', "chess", r"unknown ruleset 'chess'"),
    ("format = 1", "format = 2", "format = 2", r"format 2 was written by a newer crtdesk"),
    ("title = ", "title = 5\nx = ", "title = 5", r"'title' must be text"),
    (
        '"kind" = "combat"',
        '"kind" = "combat"\n"kind" = "turn"',
        '"kind" = "turn"',
        r"not valid TOML",
    ),
    ('"seq" = 2', '"seq" = 1', '"seq" = 1', r"entry number 1 does not follow entry 1"),
]


@pytest.mark.parametrize(("old", "new", "needle", "message"), BREAKAGES)
def test_a_file_broken_by_hand_gives_one_line_with_the_line_and_is_left_alone(
    game: Path, old: str, new: str, needle: str, message: str
) -> None:
    saves.append_combat(game, *boom(roll=2))
    saves.append_combat(game, *boom(roll=3))
    _break(game, old, new)
    before = game.read_bytes()
    with pytest.raises(SaveError) as caught:
        saves.load_game(game)
    text = str(caught.value)
    assert "\n" not in text
    assert re.search(message, text), text
    line = _line_of(game, needle)
    assert re.search(rf"\bline {line}\b", text), (text, line)
    assert game.read_bytes() == before
    assert not list(game.parent.glob("*.bak-*"))
    # Appending to it is refused as well when the header or the last entry is broken.
    if needle in ("title =", "chess", "format = 2", "title = 5"):
        with pytest.raises(SaveError):
            saves.append_combat(game, *boom())
        assert game.read_bytes() == before


def test_an_entry_edited_by_hand_is_still_read(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2), note="first")
    saves.append_combat(game, *boom(roll=3), note="second")
    _break(game, '"note" = "first"', '"note" = \'edited: "literal" string\'  # by hand')
    game_ = saves.load_game(game)
    assert game_.entries[0]["note"] == 'edited: "literal" string'
    assert game_.entries == whole_toml(game)["log"]
    saves.append_combat(game, *boom(roll=4))
    assert [e["seq"] for e in saves.load_game(game).entries] == [1, 2, 3]


def test_a_missing_file_is_a_save_error(tmp_path: Path) -> None:
    with pytest.raises(SaveError, match="no save file"):
        saves.load_game(tmp_path / "nope.toml")
    with pytest.raises(SaveError, match="no save file"):
        saves.append_combat(tmp_path / "nope.toml", *boom())
    assert not (tmp_path / "nope.toml").exists()


# --- torn last entries ------------------------------------------------------------------------


def test_every_cut_of_the_last_entry_is_detected_reported_and_kept_by_a_repair(
    tmp_path: Path,
) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-boom"])
    saves.append_combat(path, *boom(roll=2), note="kept")
    whole = path.read_bytes()
    saves.append_combat(path, *boom(roll=3), note="torn")
    full = path.read_bytes()
    # From "\n[" to all but the last two bytes (the end line's newline and a checksum digit).
    cuts = sorted(set(range(len(whole) + 2, len(full) - 1, 5)) | {len(whole) + 2, len(full) - 2})
    for cut in cuts:
        for old in tmp_path.glob("g.toml.bak-*"):
            old.unlink()
        path.write_bytes(full[:cut])
        game = saves.load_game(path)
        assert [e.get("note") for e in game.entries] == ["kept"], cut
        assert len(game.warnings) == 1 and "torn" in game.warnings[0]
        assert f"{cut - len(whole)} bytes" in game.warnings[0]
        assert path.read_bytes() == full[:cut]  # reading changes nothing
        assert not list(tmp_path.glob("g.toml.bak-*"))
        repaired = saves.repair_save(path)
        [backup] = tmp_path.glob("g.toml.bak-*")
        assert (repaired.backup, repaired.entries, repaired.dropped) == (
            backup,
            1,
            cut - len(whole),
        )
        assert backup.read_bytes() == full[:cut]
        assert re.fullmatch(r"g\.toml\.bak-\d{8}T\d{6}\.\d{6}Z", backup.name)
        assert path.read_bytes() == whole
        # The repaired file takes appends and stays valid TOML.
        saves.append_combat(path, *boom(roll=4), note="after")
        assert [e["seq"] for e in whole_toml(path)["log"]] == [1, 2]


def test_an_end_line_cut_inside_its_number_is_torn(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2))
    saves.append_combat(game, *boom(roll=3))
    text = game.read_bytes()
    game.write_bytes(text[: text.rindex(b"# end of entry 2") + len(b"# end of entry ")])
    loaded = saves.load_game(game)
    assert [e["seq"] for e in loaded.entries] == [1] and loaded.warnings


def test_a_whole_entry_missing_only_its_newline_is_kept(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2), note="complete")
    game.write_bytes(game.read_bytes().rstrip(b"\n"))
    loaded = saves.load_game(game)
    assert loaded.entries[-1]["note"] == "complete" and not loaded.warnings
    saves.append_combat(game, *boom(roll=3))
    assert len(whole_toml(game)["log"]) == 2


def test_an_append_repairs_a_torn_tail_first(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2))
    good = game.read_bytes()
    with game.open("ab") as handle:
        handle.write(b'\n[[log]]\n"seq" = 2\n"kind" = "comb')
    torn = game.read_bytes()
    entry = saves.append_combat(game, *boom(roll=3))
    assert entry["seq"] == 2
    [backup] = game.parent.glob("g.toml.bak-*")
    assert backup.read_bytes() == torn
    assert game.read_bytes().startswith(good)
    assert [e["seq"] for e in whole_toml(game)["log"]] == [1, 2]


@pytest.mark.parametrize("torn", [b"\n[", b"\n[[log]]\n", b'\n[[log]]\n"seq" = 1\n"kind" = "com'])
def test_a_torn_first_entry_is_detected_after_the_header(game: Path, torn: bytes) -> None:
    header = game.read_bytes()
    with game.open("ab") as handle:
        handle.write(torn)
    loaded = saves.load_game(game)
    assert loaded.entries == [] and loaded.warnings
    assert game.read_bytes() == header + torn
    assert saves.append_combat(game, *boom(roll=2))["seq"] == 1
    assert game.read_bytes().startswith(header + b'\n[[log]]\n"seq" = 1\n')


def test_two_torn_repairs_keep_two_backups(game: Path) -> None:
    for _ in range(2):
        with game.open("ab") as handle:
            handle.write(b"\n[[lo")
        saves.repair_save(game)
    assert len(list(game.parent.glob("g.toml.bak-*"))) == 2


def test_listing_does_not_repair(game: Path) -> None:
    with game.open("ab") as handle:
        handle.write(b'\n[[log]]\n"seq" = 2\n')
    torn = game.read_bytes()
    [summary] = saves.list_games(game.parent)
    assert summary.error is None and summary.title == "Test game"
    assert game.read_bytes() == torn


# --- appends are O(1) --------------------------------------------------------------------------


def test_an_append_never_rewrites_what_is_there(game: Path) -> None:
    for seed in range(3):
        before = game.read_bytes()
        saves.append_combat(game, *boom(seed=seed))
        assert game.read_bytes().startswith(before)


def grow(path: Path, count: int) -> None:
    """Add `count` combats as the store writes them, without a lock or fsync each (fast)."""
    entries = saves.load_game(path).entries
    last = entries[-1]["seq"] if entries else 0
    combat, outcome = ocs()
    record = outcome.to_dict()
    blocks = []
    for seq in range(last + 1, last + 1 + count):
        entry = {"seq": seq, "kind": "combat", "turn": 1, "when": appending._now(), "who": "bench"}
        blocks.append(encoding._block(entry | record))
    with path.open("ab") as handle:
        handle.write(b"".join(blocks))


def test_an_append_reads_only_the_ends_of_the_file(
    game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grow(game, 1000)
    reads: list[int] = []
    real = saves.files._read_range

    def counting(fd: int, start: int, end: int) -> bytes:
        reads.append(end - start)
        return real(fd, start, end)

    monkeypatch.setattr(saves.files, "_read_range", counting)
    # Written outside the store: the first append checks the whole file, as a load would.
    size = game.stat().st_size
    saves.append_combat(game, *boom())
    assert sum(reads) >= size
    reads.clear()
    size = game.stat().st_size
    saves.append_combat(game, *boom())
    saves.add_marker(game, "DG", "0101")
    saves.set_option(game, "mines_cdf", 3)
    assert reads and size > 1_000_000
    assert sum(reads) <= 3 * 2 * 64 * 1024 < size / 2
    assert [e["seq"] for e in saves.load_game(game).entries][-4:] == [1001, 1002, 1003, 1004]


# --- listing -----------------------------------------------------------------------------------


def test_list_games_newest_first_and_broken_files_listed_not_raised(tmp_path: Path) -> None:
    old = tmp_path / "old.toml"
    new = tmp_path / "new.toml"
    saves.new_game(old, "Old", ["ocs"])
    saves.advance_turn(old)
    saves.new_game(new, "New", ["pod-boom"])
    saves.append_combat(new, *boom())
    # Make the old game's last entry older by hand (its checksum then no longer matches).
    text = old.read_text(encoding="utf-8")
    at = text.rindex('"when" = "') + len('"when" = "')
    old.write_text(text[:at] + "2000-01-01T00:00:00+00:00" + text[text.index('"', at) :])
    (tmp_path / "broken.toml").write_text("title = [\n")
    (tmp_path / "notes.txt").write_text("not a save")
    listed = saves.list_games(tmp_path)
    assert [s.path.name for s in listed] == ["new.toml", "old.toml", "broken.toml"]
    assert [s.title for s in listed[:2]] == ["New", "Old"]
    assert listed[1].turn == 2 and listed[0].turn == 1
    assert listed[1].last_entry == "2000-01-01T00:00:00+00:00" < listed[0].last_entry
    assert listed[2].error and "broken.toml" in listed[2].error


def test_a_save_an_editor_turned_to_crlf_still_loads_and_takes_appends(game: Path) -> None:
    saves.append_combat(game, *boom(roll=2), note="before")
    game.write_bytes(game.read_bytes().replace(b"\n", b"\r\n"))
    assert [e["seq"] for e in saves.load_game(game).entries] == [1]
    entry = saves.append_combat(game, *boom(roll=3), note="after")
    assert entry["seq"] == 2
    loaded = saves.load_game(game)
    assert [e.get("note") for e in loaded.entries] == ["before", "after"]
    assert loaded.entries == whole_toml(game)["log"] and not loaded.warnings


def test_events_are_logged_with_their_dice(game: Path) -> None:
    roller = Roller(random.Random(2))
    roller.roll("Buddy cards offered", 1, 6)
    entry = saves.append_event(
        game, "hero-site-draw", "Axis offers 4 cards", ruleset="pod-super", dice=roller.rolls
    )
    loaded = saves.load_game(game).entries[-1]
    assert loaded == entry
    assert (entry["kind"], entry["event"], entry["ruleset"]) == (
        "event",
        "hero-site-draw",
        "pod-super",
    )
    assert entry["dice"] == [d.to_dict() for d in roller.rolls]
    with pytest.raises(SaveError, match="rivets is not in play"):
        saves.append_event(game, "x", "y", ruleset="rivets")
    with pytest.raises(SaveError, match="event name"):
        saves.append_event(game, "two words", "y")


def test_the_desk_may_name_the_player(game: Path) -> None:
    assert saves.append_combat(game, *boom(), who="Rommel")["who"] == "Rommel"
    assert saves.add_marker(game, "DG", "0101", who="Monty")["who"] == "Monty"
    assert saves.advance_turn(game)["who"] == appending._who()
    assert [e["who"] for e in saves.load_game(game).entries] == [
        "Rommel",
        "Monty",
        appending._who(),
    ]
    with pytest.raises(SaveError, match="player name may not be empty"):
        saves.set_option(game, "mines_cdf", 3, who=" ")


def test_a_turn_logged_under_an_earlier_count_down_replays_as_it_was_played(
    game: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save written when a 1-turn marker was lifted as the next turn began keeps that
    marker lifted when it is loaded now."""
    saves.add_marker(game, "no-entry", "0712", side="both", turns=1)

    def earlier(markers: dict[str, saves.Marker]) -> list[str]:
        for marker in markers.values():
            marker.turns_left -= 1
        return [m.id for m in markers.values() if m.turns_left <= 0]

    monkeypatch.setattr("tui.saves.markers._count_down", earlier)
    entry = saves.advance_turn(game)
    assert entry["expired"] == ["1.1"]
    monkeypatch.undo()
    assert saves.load_game(game).markers == []


def test_has_games_is_whether_list_games_lists_anything(tmp_path: Path) -> None:
    """The desk's first-run check reads no save, yet agrees with the list it would show."""
    assert not saves.has_games(tmp_path) and saves.list_games(tmp_path) == []
    (tmp_path / "notes.txt").write_text("not a save", encoding="utf-8")
    (tmp_path / "folder.toml").mkdir()
    assert not saves.has_games(tmp_path) and saves.list_games(tmp_path) == []
    (tmp_path / "broken.toml").write_text("title = ", encoding="utf-8")
    assert saves.has_games(tmp_path)
    assert [game.path.name for game in saves.list_games(tmp_path)] == ["broken.toml"]
