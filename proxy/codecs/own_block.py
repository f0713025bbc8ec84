"""Removing and joining memtap's own block inside message contents, shared by the codecs.

Only what memtap writes is recognised (`engine/memory_block.py`: the exact block, as a whole
string, a part of its own, or joined to a string with a blank line), so text a user wrote
that merely resembles the block stays. The same removal applies wherever memtap may have
written a block (a user turn, a system or developer message, `instructions`, `system`,
`systemInstruction`): a block that comes back from a replayed request or a stored
conversation is removed before a new one is placed, so it never arrives twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memtap.engine.memory_block import is_memory_block, remove_joined_blocks

TextKinds = tuple[str, ...] | None
"""The `type` values of a text part (`("text",)`, `("input_text", "text")`), or None for
Gemini's untyped `{"text": ...}` parts."""


def join(existing: str, block: str, *, first: bool) -> str:
    """`block` joined to a non-empty string with a blank line, before or after it."""
    return f"{block}\n\n{existing}" if first else f"{existing}\n\n{block}"


def _text_of(part: Any, kinds: TextKinds) -> str | None:
    if not isinstance(part, dict) or not isinstance(part.get("text"), str):
        return None
    if kinds is not None and part.get("type") not in kinds:
        return None
    return part["text"]  # type: ignore[no-any-return]


def without_own_parts(
    parts: list[Any], is_own: Callable[[Any], bool], kinds: TextKinds = ("text",)
) -> tuple[list[Any], int]:
    """`parts` without memtap's own parts, text parts without a block memtap joined to
    them (a part left empty goes), and how many blocks there were."""
    kept: list[Any] = []
    removed = 0
    for part in parts:
        if is_own(part):
            removed += 1
            continue
        text = _text_of(part, kinds)
        if text is not None:
            rest, n = remove_joined_blocks(text)
            if n:
                removed += n
                if not rest:
                    continue
                part = {**part, "text": rest}
        kept.append(part)
    return kept, removed


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
        return without_own_parts(content, lambda p: text_part_is_own(p, kinds), kinds)
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
