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
# Generated source text, as (mode, text): its code as kept (marshalled, read when the text
# is first run), its code in this run, and the code compiled in this run (not kept yet).
_kept: dict[tuple[str, str], bytes] = {}
_codes: dict[tuple[str, str], CodeType] = {}
_fresh: dict[tuple[str, str], CodeType] = {}
_codes_path: Path | None = None  # None: nothing is kept
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
    key = (mode, text)
    code = _codes.get(key)
    if code is None:
        try:
            code = marshal.loads(_kept[key])
        except (KeyError, EOFError, ValueError, TypeError):
            code = None
        if not isinstance(code, CodeType):
            # As `exec` and `eval` compile a text: no __future__ flag of this module's.
            code = _fresh[key] = compile(text, "<string>", mode, dont_inherit=True)
        _codes[key] = code
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
    global _codes_path, _kept
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
        _kept = codes if isinstance(codes, dict) else {}
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    collections.eval = _eval  # type: ignore[attr-defined]


def keep_code() -> None:
    """Keep the code compiled since the kept file was read (nothing if none was)."""
    global _kept
    if _codes_path is None or not _fresh:
        return
    from tui import kept

    for key, code in _fresh.items():
        _kept[key] = marshal.dumps(code)
    _fresh.clear()
    if len(_kept) > CODES_KEPT_AT_MOST:
        _kept = {key: marshal.dumps(code) for key, code in _codes.items()}
    kept.write(_codes_path, marshal.dumps(_kept), "code-*.marshal")


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
