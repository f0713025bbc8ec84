"""What memtap sends the extraction model: one chat request per batch of an owner's turns.

The system message says what a fact is and how to answer; the user message is JSON: the
turns (numbered, with their time) and the owner's related live memories under short
aliases (`m1`, `m2`…: fewer tokens than ids, and an answer can name only what it was shown).
The answer's shape is a JSON schema (`response_format: json_schema`, strict)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from memtap.engine.extraction.rules import FAMILIES
from memtap.engine.text.tokens import estimate_tokens
from memtap.engine.types import MEMORY_TYPES, Memory, Turn

SCHEMA_NAME = "memtap_extraction"
MAX_MEMORY_CHARS = 300
"""Characters of each related memory sent (they are short facts; a long one is cut)."""

SYSTEM_PROMPT = """\
You extract durable facts about the user from their messages, for a memory that will be \
shown to an assistant in later conversations.

Input: JSON with `turns` (numbered from 0, each with the time it was said, the user's \
words and maybe the assistant's reply) and `memories` (what is already known about this \
user, each with an id).

Keep only facts the user states about themselves (or, in an assistant reply, what the \
assistant committed to): identity, where they live, work, family, constraints (allergies, \
diets, budgets), standing instructions for the assistant, tech stack, goals, events with \
dates, preferences, decisions, habits. Keep nothing from questions, hypotheticals, fiction, \
quoted or pasted text, code, requests to write or translate something, other people's \
preferences, or what the user is doing right now.

Write each fact as a short third-person statement without a subject word, in the language \
the user wrote in (English "Lives in Oslo", Spanish "Vive en Madrid", German "Wohnt in \
Berlin"). Write dates as absolute dates, using the turn's time. `turn` is the number of the \
turn the fact was said in; `lang` its ISO 639-1 code; `key` a short snake_case topic \
(`home_city`, `employer`); `polarity` negative for what the user does not do, like or have.

`replaces` lists the ids of memories the new fact makes untrue or outdated (a new home \
city replaces the old one; "no longer vegetarian" replaces "Is vegetarian"); use only ids \
from `memories`, and [] when it replaces nothing. Restating a known fact adds nothing: \
leave it out. Answer {"facts": []} when the turns state no fact."""


def answer_schema() -> dict[str, Any]:
    fact = {
        "type": "object",
        "additionalProperties": False,
        "required": [
            "turn",
            "type",
            "family",
            "key",
            "content",
            "polarity",
            "lang",
            "replaces",
        ],
        "properties": {
            "turn": {"type": "integer", "minimum": 0},
            "type": {"type": "string", "enum": list(MEMORY_TYPES)},
            "family": {"type": "string", "enum": list(FAMILIES)},
            "key": {"type": "string"},
            "content": {"type": "string"},
            "polarity": {"type": "string", "enum": ["positive", "negative"]},
            "lang": {"type": "string"},
            "replaces": {"type": "array", "items": {"type": "string"}},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["facts"],
        "properties": {"facts": {"type": "array", "items": fact}},
    }


@dataclass(frozen=True, slots=True)
class Prompt:
    """One request's body and what its answer is checked against."""

    body: dict[str, Any]
    aliases: dict[str, str]
    """Alias shown to the model -> the memory's id (this owner's live memories only)."""
    turns: int
    estimated_tokens: int
    """Input tokens, estimated (≈ 4 characters a token) before the call, for the budget."""


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def build_prompt(
    turns: list[Turn],
    memories: list[Memory],
    *,
    model: str,
    extract_from: tuple[str, ...],
    max_turn_chars: int,
    max_output_tokens: int,
    temperature: float,
) -> Prompt:
    aliases: dict[str, str] = {}
    shown: list[dict[str, str]] = []
    for index, memory in enumerate(memories, start=1):
        alias = f"m{index}"
        aliases[alias] = memory.id
        shown.append(
            {
                "id": alias,
                "type": memory.type,
                "content": memory.content[:MAX_MEMORY_CHARS],
            }
        )
    said: list[dict[str, Any]] = []
    for index, turn in enumerate(turns):
        item: dict[str, Any] = {"turn": index, "said_at": turn.created_at}
        if "user" in extract_from:
            item["user"] = _tail(turn.user_text, max_turn_chars)
        if "assistant" in extract_from:
            item["assistant"] = _tail(turn.assistant_text, max_turn_chars)
        said.append(item)
    user_message = orjson.dumps({"turns": said, "memories": shown}).decode()
    body: dict[str, Any] = {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user_message},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": SCHEMA_NAME,
                "strict": True,
                "schema": answer_schema(),
            },
        },
        "temperature": temperature,
        "max_tokens": max_output_tokens,
        "stream": False,
    }
    estimated = estimate_tokens(SYSTEM_PROMPT) + estimate_tokens(user_message)
    return Prompt(body, aliases, len(turns), estimated)
