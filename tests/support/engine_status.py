"""Reading engine-status in tests and benchmarks."""

from __future__ import annotations

from typing import Any


def projection_building(status: dict[str, Any]) -> bool:
    """Whether the query projection's first-start build (~20-25 s, a child at nice 19) is
    under way: part of the install, not of a measured load."""
    embedding = status["vector"].get("embedding")
    projection = (
        embedding.get("query_projection") if isinstance(embedding, dict) else None
    )
    return bool(projection) and projection.get("state") == "building"
