"""The `crtdesk` command's entry point, and the desk's start-up without the cyclic garbage
collector.

Starting the desk makes a few hundred thousand objects (Textual's modules, the charts, the
first screen) and almost no garbage cycles, yet the collector walked them again and again
while they were made: some 40 ms of a combat screen's first frame, a full collection among
them. A desk command (`crtdesk`, `crtdesk open`, `crtdesk review`) therefore starts with the
collector paused, before anything is imported, and the desk resumes it once its first frame
is drawn. What start-up made lives as long as the desk does, so it is frozen out of the
collector's sight then (`gc.freeze`), and later collections walk only what came after.

Python also compiles, at every start, the methods `dataclasses` and `namedtuple` write as
source text for each class (Textual's, Rich's and the desk's): a tenth of a combat screen's
start (about 100 million instructions, counted with callgrind). A desk command compiles
each such text once and keeps the code in the cache folder (`tui.kept`), as Python keeps a
module's bytecode; the same text is then run from the kept code (`keep_generated_code`).

This module imports nothing of the desk before the pause, so that the pause comes first.
"""

from __future__ import annotations

import builtins
import gc
import marshal
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from types import CodeType
from typing import Any

_paused = False
# Generated source text (mode, text) -> its code, and where it is kept (None: nowhere).
_codes: dict[tuple[str, str], CodeType] = {}
_codes_used: set[tuple[str, str]] = set()
_codes_path: Path | None = None
_codes_new = False
# Beyond this many kept texts (Textual upgraded a few times), only this run's are kept.
CODES_KEPT_AT_MOST = 3000


def opens_desk(argv: Sequence[str]) -> bool:
    """Whether these arguments open the desk rather than run a command of the CLI."""
    return not argv or argv[0] in ("open", "review") or argv[0].startswith("--saves")


def pause_collector() -> None:
    """Pause the cyclic collector until `resume_collector`."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector(freeze: bool = True) -> None:
    """Resume the collector `pause_collector` paused, with what start-up made frozen
    (unless `freeze` is False: a desk that did not start). Nothing when it was not paused:
    a desk the tests run, say."""
    global _paused
    if _paused:
        _paused = False
        if freeze:
            gc.freeze()
        gc.enable()


def _compiled(text: str, mode: str) -> CodeType:
    global _codes_new
    _codes_used.add((mode, text))
    code = _codes.get((mode, text))
    if code is None:
        # As `exec` and `eval` compile a text: no __future__ flag of this module's.
        code = compile(text, "<string>", mode, dont_inherit=True)
        _codes[(mode, text)] = code
        _codes_new = True
    return code


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    if isinstance(source, str):
        source = _compiled(source, "exec")
    builtins.exec(source, globals, locals)


def _eval(source: Any, globals: Any = None, locals: Any = None, /) -> Any:
    if isinstance(source, str):
        source = _compiled(source, "eval")
    return builtins.eval(source, globals, locals)


def keep_generated_code() -> None:
    """Run the source `dataclasses` and `collections.namedtuple` generate from kept code,
    compiling each text only the first time it is seen: their own `exec` and `eval` are
    shadowed (a module global), and the kept code is read from the cache folder. The
    same text gives the same code, so a class is made exactly as before."""
    global _codes_path
    import collections
    import dataclasses

    from tui import kept

    folder = kept.cache_folder()
    if folder is not None:
        made_by = zlib.crc32(Path(__file__).read_bytes()) ^ zlib.crc32(sys.version.encode())
        _codes_path = folder / f"code-{made_by:08x}.marshal"
        data = kept.read_own(_codes_path)
        try:
            codes = marshal.loads(data) if data else {}
        except (EOFError, ValueError, TypeError):
            codes = {}  # damaged: compiled again, and written over
        if isinstance(codes, dict):
            _codes.update(
                (key, code)
                for key, code in codes.items()
                if isinstance(code, CodeType)
                and isinstance(key, tuple)
                and len(key) == 2
                and key[0] in ("exec", "eval")
                and isinstance(key[1], str)
            )
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    collections.eval = _eval  # type: ignore[attr-defined]


def keep_code() -> None:
    """Keep the code compiled since the kept file was read (nothing if none was)."""
    global _codes_new
    if _codes_path is None or not _codes_new:
        return
    _codes_new = False
    from tui import kept

    codes = _codes
    if len(codes) > CODES_KEPT_AT_MOST:
        codes = {key: code for key, code in _codes.items() if key in _codes_used}
    kept.write(_codes_path, marshal.dumps(codes), "code-*.marshal")


def main(argv: Sequence[str] | None = None) -> int:
    """The `crtdesk` command: `tui.cli.main`, with a desk started as above."""
    args = list(sys.argv[1:] if argv is None else argv)
    if opens_desk(args):
        pause_collector()
        keep_generated_code()
    try:
        from tui.cli import main as cli_main

        return cli_main(args)
    finally:
        resume_collector(freeze=False)  # a desk that ended before its first frame


if __name__ == "__main__":
    sys.exit(main())
