"""Files built from the local model and kept in a cache folder, and what is left of them.

The integer graph (`integer_graph.py`) and the query projection (`query_projection.py`) are
each built once per model and kept beside each other, in a folder several data dirs may share
(`MEMTAP_ONNX_GRAPH_CACHE`). A new model, build or tool version gives another file, and a
build killed midway leaves its work folder: both would stay for good.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

UNUSED_AFTER_S = 7 * 86400
"""A kept file of another key not loaded for this long is removed: a folder shared by
installs of different versions keeps each one's file."""


def tidy(
    folder: Path, keep: Path, *, files: str, work: str, work_timeout_s: float
) -> None:
    """Mark `keep` as used; remove the other files named `files…` unused for
    `UNUSED_AFTER_S`, and work folders named `work…` older than any build may run."""
    now = time.time()
    try:
        os.utime(keep, (now, now))
    except OSError:
        pass  # not built yet, or a read-only folder (where nothing is removed either)
    try:
        entries = list(folder.iterdir())
    except OSError:  # no folder yet: nothing kept in it
        return
    for path in entries:
        try:
            age = now - path.stat().st_mtime
            if path.name.startswith(work) and path.is_dir():
                if age > work_timeout_s:
                    shutil.rmtree(path, ignore_errors=True)
            elif path.name.startswith(files) and path != keep and age > UNUSED_AFTER_S:
                path.unlink()
        except OSError:
            continue
