"""The entry schema's first use from several threads at once (the desk reads a save in one
worker while the review reads the log's tail in another): before the first conversion was
made one thread at a time, a fresh process crashed with a segmentation fault in about a third
of such runs (8 of 20 here). Half the threads check entries one at a time, half a batch at
once (`all_fit`, the streamed reader's check)."""

from __future__ import annotations

import subprocess
import sys

FIRST_USE = """
import threading
from tui.saves.schema import all_fit, schema_problem
entry = {"seq": 1, "kind": "note", "turn": 1, "when": "x", "who": "y", "annotates": 1, "text": "t"}
barrier = threading.Barrier(4)
def check():
    barrier.wait()
    for _ in range(3):
        assert schema_problem(dict(entry)) is None
def check_all():
    barrier.wait()
    for _ in range(3):
        assert all_fit([dict(entry), dict(entry)])
threads = [threading.Thread(target=target) for target in (check, check_all) * 2]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
"""


def test_the_schema_first_used_by_four_threads_at_once_never_crashes() -> None:
    codes = [
        subprocess.run([sys.executable, "-c", FIRST_USE], capture_output=True).returncode
        for _ in range(20)
    ]
    assert codes == [0] * 20
