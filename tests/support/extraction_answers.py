"""Scripted answers of an extraction model, served by the stand-in (`standin.py`).

memtap's extraction requests (`engine/extractors/prompt.py`) are chat completions whose
`response_format` names the schema `memtap_extraction`; the stand-in sends each to
`standin.extraction_requests` and answers it with the next `ExtractionAnswer` of
`standin.extraction_answers` (FIFO; when none is queued, `{"facts": []}`).

An answer's facts may depend on the request (`facts=lambda prompt: [...]`): `prompt` is the
JSON of memtap's user message (`turns`, `memories`), so a test can name the alias of a live
memory memtap sent (`alias_of(prompt, "Lives in Oslo")`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

SCHEMA_NAME = "memtap_extraction"
Facts = Sequence[dict[str, Any]] | Callable[[dict[str, Any]], Sequence[dict[str, Any]]]


def is_extraction(body: bytes) -> bool:
    try:
        parsed = json.loads(body)
    except ValueError:
        return False
    if not isinstance(parsed, dict):
        return False
    fmt = parsed.get("response_format")
    return (
        isinstance(fmt, dict)
        and isinstance(fmt.get("json_schema"), dict)
        and fmt["json_schema"].get("name") == SCHEMA_NAME
    )


def prompt_of(body: bytes) -> dict[str, Any]:
    """memtap's user message of an extraction request, parsed."""
    messages = json.loads(body)["messages"]
    return json.loads(next(m["content"] for m in messages if m["role"] == "user"))


def alias_of(prompt: dict[str, Any], content: str) -> str:
    return next(m["id"] for m in prompt["memories"] if m["content"] == content)


def fact(
    content: str,
    *,
    family: str = "location",
    turn: int = 0,
    replaces: Sequence[str] = (),
    polarity: str = "positive",
    lang: str = "en",
    type: str = "factual",
    key: str = "topic",
) -> dict[str, Any]:
    return {
        "turn": turn,
        "type": type,
        "family": family,
        "key": key,
        "content": content,
        "polarity": polarity,
        "lang": lang,
        "replaces": list(replaces),
    }


@dataclass(slots=True)
class ExtractionAnswer:
    """One scripted answer: `facts` (the good answer), or `content` sent as the message's
    text as is (malformed JSON, a wrong schema), or `status` with an error body; `delay_s`
    before the headers (slow past memtap's timeout); `usage` None sends no usage."""

    facts: Facts = ()
    content: str | None = None
    status: int = 200
    delay_s: float = 0.0
    usage: dict[str, int] | None = None

    def response(self, body: bytes) -> tuple[int, bytes]:
        if self.status != 200:
            error = {"error": {"message": "scripted failure", "type": "server_error"}}
            return self.status, json.dumps(error).encode()
        text = self.content
        if text is None:
            facts = self.facts(prompt_of(body)) if callable(self.facts) else self.facts
            text = json.dumps({"facts": list(facts)}, ensure_ascii=False)
        answer: dict[str, Any] = {
            "id": "chatcmpl-extraction",
            "object": "chat.completion",
            "created": 0,
            "model": json.loads(body).get("model", "standin-extractor"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }
        if self.usage is not None:
            answer["usage"] = self.usage
        return 200, json.dumps(answer, ensure_ascii=False).encode()


def good(facts: Facts, usage: dict[str, int] | None = None) -> ExtractionAnswer:
    return ExtractionAnswer(
        facts=facts,
        usage=usage
        or {"prompt_tokens": 300, "completion_tokens": 40, "total_tokens": 340},
    )


def malformed_json() -> ExtractionAnswer:
    return ExtractionAnswer(content='{"facts": [{"turn": 0, "content": "Lives in')


def wrong_schema() -> ExtractionAnswer:
    return ExtractionAnswer(
        content=json.dumps({"memories": [{"text": "Lives in Oslo"}]})
    )


def slow(seconds: float, facts: Facts = ()) -> ExtractionAnswer:
    return ExtractionAnswer(facts=facts, delay_s=seconds)


def status(code: int) -> ExtractionAnswer:
    return ExtractionAnswer(status=code)
