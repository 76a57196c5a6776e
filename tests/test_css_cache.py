"""The parsed CSS kept between starts (tui.css_cache): read back, it equals what Textual
parses; anything else is parsed afresh."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest
import textual.css.stylesheet
from conftest import make_app
from textual.css.model import RuleSet
from textual.layout import Layout

from tui.css_cache import KeptStylesheet, kept_file
from tui.screens.pod import PodScreen


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("CRTDESK_CACHE", str(folder))
    return folder


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every piece of CSS Textual parses from now on, by where it was read from."""
    seen: list[tuple[str, str]] = []
    parse = textual.css.stylesheet.parse

    def counted(scope: str, css: str, read_from: tuple[str, str], *args: Any, **kwargs: Any) -> Any:
        seen.append(read_from)
        return parse(scope, css, read_from, *args, **kwargs)

    monkeypatch.setattr(textual.css.stylesheet, "parse", counted)
    return seen


async def open_desk(folder: Path) -> dict[tuple, list]:
    """A combat screen opened and drawn; the pieces of CSS its stylesheet parsed."""
    app = make_app(folder, rulesets=["pod-basic"])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PodScreen)
        assert app.screen.query_one(".combat-form").outer_size.width == 37
        app.kept_css.keep()
        parsed = app.kept_css._parse_cache
        return {key: parsed[key] for key in parsed.keys()}


def shape(rules: list[RuleSet]) -> list[tuple]:
    """What a parse gave, comparable: a layout is a new object at each parse, so it is
    compared by its kind."""
    return [
        (
            rule.selector_set,
            rule.errors,
            rule.is_default_rules,
            rule.tie_breaker,
            rule.selector_names,
            rule.pseudo_classes,
            sorted(rule.styles.important),
            {
                name: type(value) if isinstance(value, Layout) else value
                for name, value in rule.styles.get_rules().items()
            },
        )
        for rule in rules
    ]


async def test_a_second_start_parses_none_of_the_css_the_first_kept(
    tmp_path: Path, cache: Path, parses: list
) -> None:
    first = await open_desk(tmp_path / "one")
    assert parses and kept_file() is not None and kept_file().exists()
    parses.clear()
    again = await open_desk(tmp_path / "two")
    assert parses == []
    # Read back, every piece equals what Textual parsed the first time.
    assert again.keys() == first.keys()
    for key, rules in first.items():
        assert shape(again[key]) == shape(rules), key[1]


CSS = "Static { width: 10; layout: horizontal; }\n.hint { color: $text-muted; }"
VARIABLES = {"text-muted": "#808080", "accent": "#ff0000"}


def read(css: str, variables: dict[str, str] = VARIABLES) -> tuple[KeptStylesheet, list]:
    """A stylesheet reading the kept file, and the rules it gives for `css`."""
    sheet = KeptStylesheet(variables=dict(variables), path=kept_file())
    sheet.add_source(css, read_from=("test.tcss", ""))
    return sheet, sheet.rules


def test_css_edited_or_under_another_theme_is_parsed_afresh(cache: Path, parses: list) -> None:
    sheet, first = read(CSS)
    sheet.keep()
    assert len(parses) == 1
    _, again = read(CSS)
    assert len(parses) == 1 and shape(again) == shape(first)
    # Edited: parsed, and read as edited.
    _, edited = read(CSS.replace("10", "12"))
    assert len(parses) == 2 and shape(edited) != shape(first)
    # Another theme's colours: parsed with them, and kept in place of the first theme's.
    themed, other = read(CSS, {**VARIABLES, "text-muted": "#123456"})
    assert len(parses) == 3 and shape(other) != shape(first)
    themed.keep()
    read(CSS)
    assert len(parses) == 4


def test_a_damaged_file_or_anothers_is_not_read_and_is_written_over(
    cache: Path, parses: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = kept_file()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a pickle")
    sheet, first = read(CSS)
    assert len(parses) == 1
    sheet.keep()
    read(CSS)
    assert len(parses) == 1
    # A kept file that is not the player's own is never unpickled.
    monkeypatch.setattr(os, "getuid", lambda: os.stat(path).st_uid + 1)
    read(CSS)
    assert len(parses) == 2
    assert pickle.loads(path.read_bytes())[0] == VARIABLES


def test_nothing_is_kept_without_a_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRTDESK_CACHE", "")
    monkeypatch.chdir(tmp_path)
    assert kept_file() is None
    sheet, rules = read(CSS)
    sheet.keep()
    assert rules and list(tmp_path.iterdir()) == []
