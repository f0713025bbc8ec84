"""The extraction model's answer, read strictly: the provider's chat completion, then the
JSON of its message against the schema memtap asked for (`prompt.answer_schema`).

Anything else is a `BadAnswer` with a bounded reason (the metrics label), and the batch goes
to the rules: malformed JSON (`malformed_json`), a shape that is not the schema's
(`wrong_schema`), or a replaced memory memtap did not show the model for this owner
(`foreign_id`: whatever the model was told or tricked into, it can only replace one of the
owner's live memories it was shown)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from memtap.engine.extraction.keys import MAX_CONTENT_CHARS
from memtap.engine.extraction.rules import FAMILIES
from memtap.engine.extractors.prompt import Prompt
from memtap.engine.types import MEMORY_TYPES, MemoryType

MAX_FACTS_PER_TURN = 32
"""As many facts as the rules keep from one message at most; a fact is at most
`MAX_CONTENT_CHARS` (500) characters, as the rules' are."""
MAX_KEY_CHARS = 100
MAX_LANG_CHARS = 16
_FACT_FIELDS = frozenset(
    ("turn", "type", "family", "key", "content", "polarity", "lang", "replaces")
)


class BadAnswer(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ModelFact:
    turn: int
    """Index of the turn in the batch sent."""
    type: MemoryType
    family: str
    content: str
    polarity: str
    lang: str
    replaces: tuple[str, ...]
    """Memory ids (the aliases mapped back), all of the owner's live memories shown."""


@dataclass(frozen=True, slots=True)
class Usage:
    tokens_in: int | None
    tokens_out: int | None


@dataclass(frozen=True, slots=True)
class Answer:
    facts: tuple[ModelFact, ...]
    usage: Usage
    text: str
    """The message's content (its size estimates the output tokens without `usage`)."""


def usage_of(body: bytes) -> Usage:
    """The `usage` of a provider answer, whatever else it holds (None where absent)."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return Usage(None, None)
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return Usage(None, None)
    return Usage(
        _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    )


def _count(value: Any) -> int | None:
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0
        else None
    )


def read_answer(body: bytes, prompt: Prompt) -> Answer:
    """The facts of a chat completion `body`, checked against `prompt`; raises `BadAnswer`."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise BadAnswer("malformed_json", f"the response is not JSON: {exc}") from None
    text = _message_text(data)
    try:
        answer = orjson.loads(_unfenced(text))
    except orjson.JSONDecodeError as exc:
        raise BadAnswer("malformed_json", f"the answer is not JSON: {exc}") from None
    if not isinstance(answer, dict) or set(answer) != {"facts"}:
        raise BadAnswer("wrong_schema", "the answer is not an object of `facts` alone")
    items = answer["facts"]
    if not isinstance(items, list):
        raise BadAnswer("wrong_schema", "`facts` is not a list")
    if len(items) > MAX_FACTS_PER_TURN * max(1, prompt.turns):
        raise BadAnswer("wrong_schema", f"{len(items)} facts for {prompt.turns} turns")
    facts = tuple(_fact(item, index, prompt) for index, item in enumerate(items))
    return Answer(facts, usage_of(body), text)


def _message_text(data: Any) -> str:
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadAnswer("wrong_schema", "the response has no choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise BadAnswer("wrong_schema", "the response's message has no text content")
    return content


def _unfenced(text: str) -> str:
    """The JSON of a message some local models still wrap in a ``` fence."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) > 6:
        inner = stripped[3:-3]
        newline = inner.find("\n")
        return inner[newline + 1 :] if newline >= 0 else inner
    return stripped


def _fact(item: Any, index: int, prompt: Prompt) -> ModelFact:
    where = f"facts[{index}]"
    if not isinstance(item, dict) or set(item) != _FACT_FIELDS:
        raise BadAnswer("wrong_schema", f"{where} does not have the schema's fields")
    turn = item["turn"]
    if (
        not isinstance(turn, int)
        or isinstance(turn, bool)
        or not 0 <= turn < prompt.turns
    ):
        raise BadAnswer("wrong_schema", f"{where}.turn is not a turn that was sent")
    if item["type"] not in MEMORY_TYPES:
        raise BadAnswer("wrong_schema", f"{where}.type is not a memory type")
    if item["family"] not in FAMILIES:
        raise BadAnswer("wrong_schema", f"{where}.family is not a known family")
    if item["polarity"] not in ("positive", "negative"):
        raise BadAnswer("wrong_schema", f"{where}.polarity is not positive|negative")
    content, key, lang = item["content"], item["key"], item["lang"]
    if not isinstance(content, str) or not content.strip():
        raise BadAnswer("wrong_schema", f"{where}.content is not a text")
    if len(content) > MAX_CONTENT_CHARS:
        raise BadAnswer("wrong_schema", f"{where}.content is too long")
    if not isinstance(key, str) or len(key) > MAX_KEY_CHARS:
        raise BadAnswer("wrong_schema", f"{where}.key is not a short text")
    if not isinstance(lang, str) or len(lang) > MAX_LANG_CHARS:
        raise BadAnswer("wrong_schema", f"{where}.lang is not a language code")
    replaces = item["replaces"]
    if not isinstance(replaces, list) or not all(isinstance(r, str) for r in replaces):
        raise BadAnswer("wrong_schema", f"{where}.replaces is not a list of ids")
    ids: list[str] = []
    for alias in replaces:
        memory_id = prompt.aliases.get(alias)
        if memory_id is None:
            # Not an id memtap showed for this owner: another owner's id, a made-up one, or
            # a real id where an alias belongs. Nothing of this answer is kept.
            raise BadAnswer("foreign_id", f"{where}.replaces names a memory not sent")
        ids.append(memory_id)
    return ModelFact(
        turn=turn,
        type=item["type"],
        family=item["family"],
        content=content,
        polarity=item["polarity"],
        lang=(lang.strip().lower() or "und"),
        replaces=tuple(dict.fromkeys(ids)),
    )
