"""A save's header is read without tomllib when the store wrote it (`header_loads`: its
comment lines and end line, then the careful reader of `key = value` lines), as tomllib
reads it; a header edited by hand goes to tomllib, which reads it or says why not. A save
the store wrote is opened without importing tomllib at all (about 10 M instructions of
every command that reads a save)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tui import saves
from tui.saves import decoding, encoding

TITLES = [
    "Desk",
    'Kursk: "Citadel" = 4:1 [a] {b} # not a comment',
    "Tobruk \\ back\\slash \u00e9\u4e2d \t tab",
    "#1 first",
    "a\nb",
]
OPTIONS = [
    {},
    {"mines": True, "hero_deck": 3, "odd key": "x = y", "nested": {"a": [1, 2.5, "c"]}},
]


def header_text(title: str, options: dict, charts: dict[str, str] | None = None) -> str:
    sealed = encoding._header(
        title, ["pod-basic", "ocs"], options, "2026-11-27T10:00:00Z", "me", charts
    )
    return sealed.decode("utf-8")


@pytest.mark.parametrize("title", TITLES)
@pytest.mark.parametrize("options", OPTIONS)
def test_a_header_the_store_writes_is_read_as_tomllib_reads_it_without_it(
    title: str, options: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    charts = {"my chart": 'name = "x"\n[[column]]\nlabel = "1:1"\n'} if options else None
    text = header_text(title, options, charts)
    expected = tomllib.loads(text)
    assert expected["title"] == title
    monkeypatch.setattr(decoding, "toml_loads", lambda _: pytest.fail("tomllib asked"))
    assert decoding.header_loads(text) == expected


EDITED = {
    "a comment between keys": '# c\nformat = 1\n# between\ntitle = "t"\n# end of header\n',
    "a comment after a value": 'format = 1\ntitle = "t" # says\n',
    "a key of an inline table given at the top too": 'format = 1\noptions = { "a" = 1, "b" = 2 }\nb = 3\n',
    "a control character in a comment": "# a\x01b\nformat = 1\n",
    "a control character in the end line": "format = 1\n# end\x02\n",
    "a key twice": "format = 1\nformat = 2\n",
    "a table": "format = 1\n[options]\nmines = true\n",
    "a date": "format = 1\ncreated = 2026-11-27T10:00:00Z\n",
    "a multi-line string": 'format = 1\ntitle = """a\nb"""\n',
    "a blank line": 'format = 1\n\ntitle = "t"\n',
    "CRLF line ends": '# c\r\nformat = 1\r\ntitle = "t"\r\n',
    "a dotted key": 'format = 1\ngame.title = "t"\n',
    "a value left open": "format = 1\ntitle = [1,\n2]\n",
    "a null": "format = 1\ntitle = null\n",
    "nan": "format = 1\nx = nan\n",
    "a number past 64 bits": "format = 1\nx = 99999999999999999999\n",
    "no newline at the end": "format = 1",
    "blank lines after the end line": "format = 1\n# end of header\n\n\n",
    "only blank lines": "\n\n",
    "nothing": "",
}


@pytest.mark.parametrize("sealed", [False, True], ids=["as edited", "sealed again"])
@pytest.mark.parametrize("name", EDITED)
def test_a_header_edited_by_hand_reads_as_tomllib_reads_it(name: str, sealed: bool) -> None:
    """As edited (its checksum no longer holds): tomllib reads it. Sealed again with a
    checksum made to match: the careful reader reads it as tomllib does, or leaves it to
    tomllib."""
    text = EDITED[name]
    if sealed:
        text = encoding.sealed_header(text.encode("utf-8")).decode("utf-8")
    try:
        expected = decoding.toml_loads(text)
    except decoding.TomlError as err:
        with pytest.raises(decoding.TomlError) as caught:
            decoding.header_loads(text)
        assert str(caught.value) == str(err)
    else:
        assert decoding.header_loads(text) == expected


def test_only_a_sealed_header_is_read_without_tomllib(monkeypatch: pytest.MonkeyPatch) -> None:
    text = header_text("Desk", {})
    asked: list[str] = []
    real = decoding.toml_loads
    monkeypatch.setattr(decoding, "toml_loads", lambda t: asked.append(t) or real(t))
    assert decoding.header_loads(text)["title"] == "Desk"
    assert asked == []
    # The same header with its checksum broken (a title edited by hand), or with no end
    # line (a save written before headers had one): tomllib's to read.
    edited = text.replace('"Desk"', '"Dusk"')
    assert decoding.header_loads(edited)["title"] == "Dusk"
    unsealed = text[: text.index("# end of header")]
    assert decoding.header_loads(unsealed)["title"] == "Desk"
    assert asked == [edited, unsealed]


def test_a_save_the_store_wrote_is_read_without_importing_tomllib(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    saves.new_game(path, "G", ["pod-basic"], {"mines_cdf": 3})
    saves.append_event(path, "hero-site-draw", "a draw: 4:1 [x]")
    probe = (
        "import sys\nfrom pathlib import Path\nfrom tui import saves\n"
        f"game = saves.load_game(Path({str(path)!r}))\n"
        "print(game.title, len(game.entries), 'tomllib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["G", "1", "False"]
    # A header edited by hand (a comment between its keys) is read by tomllib, and loads.
    text = path.read_text()
    path.write_text(text.replace("format = 1\n", "format = 1\n# edited\n", 1))
    with pytest.raises(saves.SaveError):  # its checksum no longer matches
        saves.load_game(path)
