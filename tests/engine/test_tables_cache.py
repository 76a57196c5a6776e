"""A checked tables.toml is kept parsed in the cache folder and read back on the next
load, the same tables as parsing it again; changed bytes are parsed and checked afresh, a
damaged or unwritable cache is passed over, and an empty CRTDESK_CACHE keeps nothing."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tui.engine import tables as tables_module
from tui.engine.kept import cache_folder
from tui.engine.tables import TablesError, load_tables

TABLES_TOML = Path(__file__).resolve().parents[2] / "tables.toml"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("CRTDESK_CACHE", str(folder))
    return folder


def copy(tmp_path: Path, old: str = "", new: str = "") -> Path:
    target = tmp_path / "tables.toml"
    text = TABLES_TOML.read_text(encoding="utf-8")
    if old:
        assert old in text
        text = text.replace(old, new, 1)
    target.write_text(text, encoding="utf-8")
    return target


def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(tomllib, "loads", refuse)


def test_a_second_load_reads_the_kept_copy(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = copy(tmp_path)
    first = load_tables(target)
    kept = list(cache.glob("tables-*.json"))
    assert len(kept) == 1
    no_parsing(monkeypatch)
    second = load_tables(target)
    assert second == first
    assert second.charts == first.charts and second.legends == first.legends
    assert second.chart("pod-basic.crt").cell("1", "1-1") == first.chart("pod-basic.crt").cell(
        "1", "1-1"
    )


def test_changed_bytes_are_checked_again(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = copy(tmp_path)
    load_tables(target)
    copy(tmp_path, "format = 1\n", "format = 2\n")
    with pytest.raises(TablesError, match="format 2 is not supported"):
        load_tables(target)
    copy(tmp_path, "format = 1\n", "format = 1\n# a comment changes the bytes\n")
    load_tables(target)
    # The copy kept for the earlier bytes is gone: one file per tables.toml in use.
    assert len(list(cache.glob("tables-*.json"))) == 1


def test_a_damaged_copy_is_passed_over(tmp_path: Path, cache: Path) -> None:
    target = copy(tmp_path)
    first = load_tables(target)
    (kept,) = cache.glob("tables-*.json")
    for damage in (b"", b"not json", b"null", b"[1, 2]", kept.read_bytes()[:100]):
        kept.write_bytes(damage)
        assert load_tables(target) == first
    assert load_tables(target) == first  # and it was written again


def test_an_unwritable_cache_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CRTDESK_CACHE", str(blocker / "cache"))
    target = copy(tmp_path)
    assert load_tables(target) == load_tables(target)
    assert blocker.read_text() == "not a folder"


def test_an_empty_setting_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRTDESK_CACHE", "")
    monkeypatch.chdir(tmp_path)
    assert cache_folder() is None
    load_tables(copy(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tables.toml"]


def test_the_cache_folder_follows_the_platform_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CRTDESK_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "crtdesk"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_folder() == tmp_path / "home" / ".cache" / "crtdesk"


def test_the_kept_copy_is_named_by_the_checks_too(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = copy(tmp_path)
    load_tables(target)
    before = {p.name for p in cache.glob("tables-*.json")}
    # Checks changed (a new desk) name another copy: the old one is not read.
    changed = tmp_path / "tables_checks.py"
    changed.write_text(Path(tables_module.__file__).read_text() + "\n# changed\n")
    monkeypatch.setattr(tables_module, "__file__", str(changed))
    load_tables(target)
    after = {p.name for p in cache.glob("tables-*.json")}
    assert after and after.isdisjoint(before)


def test_a_copy_kept_for_other_bytes_is_not_read(tmp_path: Path, cache: Path) -> None:
    import json

    target = copy(tmp_path)
    first = load_tables(target)
    (kept,) = cache.glob("tables-*.json")
    text, data = json.loads(kept.read_bytes())
    data["pod-basic"]["title"] = "Not the chart's title"
    # Same name (the checksum matched, say), other bytes: passed over.
    kept.write_text(json.dumps([text + "\n", data]))
    assert load_tables(target).title("pod-basic") == first.title("pod-basic")
    # The same bytes are believed: the copy is what was checked.
    kept.write_text(json.dumps([text, data]))
    assert load_tables(target).title("pod-basic") == "Not the chart's title"
