"""The query projection's build child (`python -m memtap.engine.embeddings.query_projection`,
`_child_main`) run as serve runs it, over a part of the vocabulary: the whole path of the
build (nice 19, the model opened as the proxy opened it, the signature check, the file
written beside the graph) in about a second instead of 20-40 s of one core at nice 19,
which a busy machine may not give it within a test's timeout. The full build is the same
`build_sync`, run once per test session by tests/conftest.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from memtap.engine.embeddings import query_projection
from tests.support.semantic import COMMON_TOKEN_IDS

_full_build = query_projection.build_sync


def _small_build(embedder: Any, out: Path, **kwargs: Any) -> Any:
    return _full_build(embedder, out, texts=400, token_ids=COMMON_TOKEN_IDS)


if __name__ == "__main__":
    query_projection.build_sync = _small_build  # type: ignore[assignment]
    sys.exit(query_projection._child_main(sys.argv[1:]))
