"""How much of each request a provider prompt cache can reuse, per memory placement (not a test).

    .venv/bin/python scripts/bench_cache.py               # 20 turns, every format
    .venv/bin/python scripts/bench_cache.py --turns 40 --json

Provider caches (OpenAI and Gemini automatic prefix caching, Anthropic `cache_control`)
reuse the longest byte-identical prefix of what they processed before: the previous request
and the answer it produced. For each API format and each `memory.placement` this replays a
conversation of `--turns` turns, as an application sends it (its history never holds memtap's
block: memtap rewrote only what went upstream), with a retrieved memory set that changes
between turns (one memory in, one out, as a new question pulls in other facts). Every
request goes through the format's real codec (`codec.inject`, what memtap sends upstream).

The figure per request: the share of its prompt that is a byte-identical prefix of the
previous request plus its answer. The prompt is linearised in the provider's processing
order (tools, system / instructions, then messages), one canonical JSON unit per message or
block, so the figure counts what the provider sees, not JSON key order. Printed per placement:
the mean over turns 2..N (turn 1 has no predecessor), the last turn, and `none` (no memory
at all) as the ceiling.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtap.engine.memory_block import MemoryLine, build_memory_block
from memtap.proxy.codecs.base import Codec, Placed, Placement
from memtap.proxy.codecs.registry import (
    ANTHROPIC,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
)

PLACEMENTS: tuple[Placement, ...] = ("prepend", "after_prefix", "last_user")
SYSTEM = (
    "You are Kumo, the support assistant of Harusora Cloud. Answer in the customer's "
    "language, be concise, cite the invoice number when you mention a charge, and never "
    "promise a refund before checking the invoice. "
) * 8  # ~1.7 KB, a typical application prompt
FACTS = [
    f"The user {verb} {thing}."
    for verb in ("prefers", "uses", "asked about", "dislikes", "manages")
    for thing in (
        "Postgres for side projects",
        "the annual Pro plan",
        "invoices in JPY",
        "two shops in Osaka",
        "dark mode in the dashboard",
        "a Shopify integration",
        "weekly sales reports",
        "email over phone support",
    )
]

Message = tuple[str, str]  # (role, text): the application's own history


def retrieved_sets(turns: int, rng: random.Random) -> list[list[str]]:
    """Five memories per turn; each turn swaps one for another fact."""
    current = rng.sample(FACTS, 5)
    sets = []
    for _ in range(turns):
        sets.append(list(current))
        out = rng.randrange(len(current))
        current[out] = rng.choice([f for f in FACTS if f not in current])
    return sets


def conversation(turns: int, rng: random.Random) -> list[tuple[str, str]]:
    """(user text, assistant answer) per turn, of realistic and varying lengths."""
    words = [
        "invoice",
        "charge",
        "plan",
        "shop",
        "refund",
        "report",
        "order",
        "customer",
        "region",
        "month",
    ]
    out = []
    for turn in range(turns):
        user = f"Turn {turn}: " + " ".join(rng.choices(words, k=rng.randint(8, 40)))
        answer = " ".join(rng.choices(words, k=rng.randint(40, 160)))
        out.append((user, answer))
    return out


# -- what the application sends, per format ----------------------------------------------


def chat_body(history: list[Message]) -> dict[str, Any]:
    return {
        "model": "gpt-4o",
        "messages": [{"role": "system", "content": SYSTEM}]
        + [{"role": role, "content": text} for role, text in history],
    }


def responses_body(history: list[Message]) -> dict[str, Any]:
    return {
        "model": "gpt-4.1",
        "instructions": SYSTEM,
        "input": [{"role": role, "content": text} for role, text in history],
    }


def anthropic_body(history: list[Message]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": SYSTEM,
        "messages": [{"role": role, "content": text} for role, text in history],
    }


def gemini_body(history: list[Message]) -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": SYSTEM}]},
        "contents": [
            {
                "role": "model" if role == "assistant" else "user",
                "parts": [{"text": text}],
            }
            for role, text in history
        ],
    }


# -- what the provider processes, in order -----------------------------------------------


def _unit(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def chat_prompt(body: dict[str, Any]) -> list[bytes]:
    return [_unit(m) for m in body["messages"]]


def responses_prompt(body: dict[str, Any]) -> list[bytes]:
    units = []
    if body.get("instructions"):
        units.append(_unit({"role": "system", "content": body["instructions"]}))
    raw = body["input"]
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
    return units + [_unit(item) for item in items]


def anthropic_prompt(body: dict[str, Any]) -> list[bytes]:
    system = body.get("system")
    blocks = system if isinstance(system, list) else [system] if system else []
    return [_unit(b) for b in blocks] + [_unit(m) for m in body["messages"]]


def gemini_prompt(body: dict[str, Any]) -> list[bytes]:
    instruction = body.get("systemInstruction") or {}
    return [_unit(p) for p in instruction.get("parts", [])] + [
        _unit(c) for c in body["contents"]
    ]


FORMATS: dict[
    str, tuple[Codec, Callable[..., dict[str, Any]], Callable[..., list[bytes]]]
] = {
    "openai-chat": (OPENAI_CHAT, chat_body, chat_prompt),
    "openai-responses": (OPENAI_RESPONSES, responses_body, responses_prompt),
    "anthropic": (ANTHROPIC, anthropic_body, anthropic_prompt),
    "gemini": (GEMINI, gemini_body, gemini_prompt),
}


def answer_unit(fmt: str, text: str) -> bytes:
    """The answer as the provider appended it (and as the app replays it next turn)."""
    if fmt == "gemini":
        return _unit({"role": "model", "parts": [{"text": text}]})
    return _unit({"role": "assistant", "content": text})


def common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n  # binary search on equal prefixes: fast for 100 KB prompts
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def replay(fmt: str, placement: Placement | None, turns: int, seed: int) -> list[float]:
    """Reusable share of each request after the first (placement None: no memory)."""
    codec, make_body, prompt = FORMATS[fmt]
    rng = random.Random(seed)
    talk = conversation(turns, rng)
    memories = retrieved_sets(turns, rng)
    history: list[Message] = []
    previous: bytes | None = None
    shares = []
    for (user, answer), facts in zip(talk, memories, strict=True):
        history.append(("user", user))
        body = make_body(history)
        if placement is not None:
            block = build_memory_block([MemoryLine(f, "2026-11-30") for f in facts])
            injection = codec.inject(body, block, placement, None)
            assert isinstance(injection, Placed), injection
            body = injection.body
        sent = b"".join(prompt(body))
        if previous is not None:
            shares.append(common_prefix(sent, previous) / len(sent))
        previous = sent + answer_unit(fmt, answer)
        history.append(("assistant", answer))
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", action="store_true", help="print figures as JSON")
    args = parser.parse_args()
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for fmt in FORMATS:
        figures[fmt] = {}
        for placement in (*PLACEMENTS, None):
            shares = replay(fmt, placement, args.turns, args.seed)
            figures[fmt][placement or "none"] = {
                "mean": round(statistics.fmean(shares), 4),
                "last": round(shares[-1], 4),
            }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(
        f"reusable prefix share per request, {args.turns} turns, "
        "memories changing every turn (mean over turns 2..N / last turn)"
    )
    header = f"{'format':<18}" + "".join(f"{p:>22}" for p in (*PLACEMENTS, "none"))
    print(header)
    for fmt, row in figures.items():
        cells = "".join(
            f"{row[p]['mean'] * 100:>13.1f}% /{row[p]['last'] * 100:>5.1f}%"
            for p in (*PLACEMENTS, "none")
        )
        print(f"{fmt:<18}{cells}")


if __name__ == "__main__":
    main()
