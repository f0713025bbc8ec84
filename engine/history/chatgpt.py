"""ChatGPT's data export (`conversations.json`): conversations as messages.

The export is a JSON array of conversations: `{id | conversation_id, title, create_time,
mapping: {node_id: {message, parent, children}}, current_node}`. A conversation is a tree
(every edit or regeneration branches it); what the user last saw is the branch from
`current_node` up through the parents, which is the one imported. System, tool and hidden
messages, tool calls and non-text content (code runs, browsing, custom instructions) are
not what the user and the assistant said to each other: they are skipped.

`split_array` cuts an export into its conversations without parsing the whole document,
so the CLI can send any size as one conversation per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Final

from memtap.engine.history.messages import (
    BadMessage,
    HistoryMessage,
    Owners,
    said_at_of,
    session_of,
)

TEXT_CONTENT: Final = frozenset({"text", "multimodal_text"})


def is_conversation(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("mapping"), dict)


def conversation_time(item: Any) -> float:
    """Sort key: when the conversation started (unknown first)."""
    value = item.get("create_time") if isinstance(item, dict) else None
    return float(value) if isinstance(value, int | float) else 0.0


def conversation_messages(item: Any, line: int, owners: Owners) -> list[HistoryMessage]:
    """The main branch's user and assistant messages, oldest first. Raises BadMessage when
    the conversation as a whole cannot be read (then none of it is imported)."""
    if not is_conversation(item):
        raise BadMessage("not a ChatGPT conversation (no mapping)")
    session = session_of(item.get("conversation_id") or item.get("id"))
    if session is None:
        raise BadMessage("conversation has no id")
    owner = owners.resolve(item.get("owner"), item.get("api_key"))
    mapping: dict[str, Any] = item["mapping"]
    started = item.get("create_time")
    out: list[HistoryMessage] = []
    last_time = started if isinstance(started, int | float) else None
    for node in _main_branch(mapping, item.get("current_node")):
        message = node.get("message") if isinstance(node, dict) else None
        text, role = _said(message)
        if text is None or role is None:
            continue
        assert isinstance(message, dict)
        when = message.get("create_time")
        when = when if isinstance(when, int | float) else last_time
        if when is None:
            raise BadMessage(f"conversation {session}: a message has no create_time")
        last_time = when
        metadata = message.get("metadata")
        model = metadata.get("model_slug") if isinstance(metadata, dict) else None
        out.append(
            HistoryMessage(
                owner=owner,
                session=session,
                role=role,
                content=text,
                said_at=said_at_of(when),
                line=line,
                model=model if isinstance(model, str) else None,
            )
        )
    return out


def _main_branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    if not isinstance(current, str) or current not in mapping:
        current = _latest_leaf(mapping)
    branch: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: Any = current
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        branch.append(node)
        node_id = node.get("parent")
    branch.reverse()
    return branch


def _latest_leaf(mapping: dict[str, Any]) -> str | None:
    """No usable current_node (older exports): the leaf written last."""
    best: tuple[float, str] | None = None
    for node_id, node in mapping.items():
        if not isinstance(node, dict) or node.get("children"):
            continue
        message = node.get("message")
        when = message.get("create_time") if isinstance(message, dict) else None
        key = (float(when) if isinstance(when, int | float) else 0.0, node_id)
        if best is None or key > best:
            best = key
    return best[1] if best else None


def _said(message: Any) -> tuple[str | None, Any]:
    if not isinstance(message, dict):
        return None, None
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if role not in ("user", "assistant"):
        return None, None
    metadata = message.get("metadata")
    if isinstance(metadata, dict) and (
        metadata.get("is_visually_hidden_from_conversation")
        or metadata.get("is_user_system_message")
    ):
        return None, None
    if message.get("recipient", "all") != "all":
        return None, None  # a tool call, not said to the user
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in TEXT_CONTENT:
        return None, None
    parts = content.get("parts")
    if not isinstance(parts, list):
        return None, None
    text = "\n".join(p for p in parts if isinstance(p, str)).strip()
    return (text or None), role


# -- cutting an export into conversations -------------------------------------------------

_STRUCTURE = re.compile(rb'["\[\]{}]')
_IN_STRING = re.compile(rb'["\\]')
_QUOTE, _BACKSLASH, _OPEN_OBJECT = 0x22, 0x5C, 0x7B
_OPENERS, _CLOSERS = frozenset(b"{["), frozenset(b"}]")


def split_array(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """The objects of a top-level JSON array arriving in chunks, each as (byte offset, its
    bytes), unparsed: the caller parses one conversation at a time, in bounded memory.
    Raises ValueError when the document is not an array of objects."""
    depth, base, carry = 0, 0, 0
    in_string = started = False
    element = bytearray()
    element_at = 0
    for chunk in chunks:
        n, i = len(chunk), carry
        carry = 0
        if not started:
            stripped = chunk.lstrip()
            if not stripped:
                base += n
                continue
            if stripped[0] != ord("["):
                raise ValueError("not a JSON array")
            started, depth, i = True, 1, n - len(stripped) + 1
        segment: int | None = 0 if depth >= 2 else None
        while i < n:
            if in_string:
                m = _IN_STRING.search(chunk, i)
                if m is None:
                    break
                i = m.start()
                if chunk[i] == _BACKSLASH:
                    i += 2  # the escaped byte may be the next chunk's first
                    continue
                in_string = False
                i += 1
                continue
            m = _STRUCTURE.search(chunk, i)
            if m is None:
                break
            i = m.start()
            char = chunk[i]
            if char == _QUOTE:
                if depth < 2:
                    raise ValueError("conversations must be JSON objects")
                in_string = True
            elif char in _OPENERS:
                if depth == 1:
                    if char != _OPEN_OBJECT:
                        raise ValueError("conversations must be JSON objects")
                    segment, element_at = i, base + i
                depth += 1
            elif char in _CLOSERS:
                depth -= 1
                if depth == 0:
                    return
                if depth == 1 and segment is not None:
                    element += chunk[segment : i + 1]
                    yield element_at, bytes(element)
                    element.clear()
                    segment = None
            i += 1
        if i > n:
            carry = i - n
        if segment is not None:
            element += chunk[segment:]
        base += n
    if started:
        raise ValueError("the JSON array is cut short")
