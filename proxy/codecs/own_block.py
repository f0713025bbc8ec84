"""Removing and joining memtap's own block inside message contents, shared by the codecs.

Only what memtap writes is recognised (`engine/memory_block.py`: the exact block, as a whole
string, a part of its own, or joined to a string with a blank line), so text a user wrote
that merely resembles the block stays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memtap.engine.memory_block import is_memory_block, remove_joined_blocks


def join(existing: str, block: str, *, first: bool) -> str:
    """`block` joined to a non-empty string with a blank line, before or after it."""
    return f"{block}\n\n{existing}" if first else f"{existing}\n\n{block}"


def without_own_parts(
    parts: list[Any], is_own: Callable[[Any], bool]
) -> tuple[list[Any], int]:
    """`parts` without memtap's own parts, and how many there were."""
    kept = [part for part in parts if not is_own(part)]
    return kept, len(parts) - len(kept)


def text_part_is_own(part: Any, kinds: tuple[str, ...] = ("text",)) -> bool:
    """A `{"type": "text", "text": BLOCK}` part exactly as memtap writes it (no other keys)."""
    return (
        isinstance(part, dict)
        and len(part) == 2
        and part.get("type") in kinds
        and is_memory_block(part.get("text"))
    )


def without_own_content(
    content: Any, kinds: tuple[str, ...] = ("text",)
) -> tuple[Any, int]:
    """A message `content` (string or parts list) without memtap's blocks."""
    if isinstance(content, str):
        return remove_joined_blocks(content)
    if isinstance(content, list):
        return without_own_parts(content, lambda p: text_part_is_own(p, kinds))
    return content, 0


def carries_own(content: Any, kinds: tuple[str, ...] = ("text",)) -> bool:
    return without_own_content(content, kinds)[1] > 0


def with_block_appended(content: Any, block: str, kind: str = "text") -> Any:
    """A user `content` with `block` after everything it holds (a string stays a string)."""
    if isinstance(content, list):
        return [*content, {"type": kind, "text": block}]
    if isinstance(content, str) and content:
        return join(content, block, first=False)
    return block
