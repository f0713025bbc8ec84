"""Extraction quality on a labelled set (a benchmark, not a test): per family, per language and
overall recall, clean rate, polarity kept and updates correct.

    .venv/bin/python scripts/eval_extraction.py               # tests/datasets/extraction_set.json
    .venv/bin/python scripts/eval_extraction.py --failures    # list what was missed or leaked
    .venv/bin/python scripts/eval_extraction.py --json
    .venv/bin/python scripts/eval_extraction.py --extractor model \
        --model-url http://127.0.0.1:11434/v1 --model-name qwen2.5:7b   # a local Ollama
    OPENAI_API_KEY=... .venv/bin/python scripts/eval_extraction.py --extractor model \
        --model-url https://api.openai.com/v1 --model-name gpt-4o-mini --model-key-env OPENAI_API_KEY

`--extractor model` sends every message to that OpenAI-compatible endpoint exactly as memtap's
`extraction.kind: model` does (`engine/extractors/`: the same prompt, JSON schema and strict
reading; a sequence's live facts are sent as the owner's memories), and prints the same
figures, plus the model's failed calls by reason. A failed call counts as nothing extracted
(memtap would hand that message to the rules: this measures the model alone).

- recall: expected facts found (an extracted fact of the expected family whose content contains
  every expected substring, case-insensitive);
- clean rate: messages that state no fact about the user and create nothing;
- polarity kept: found facts whose polarity is the expected one;
- updates correct: sequences replayed in order with the store's supersession rule (a fact
  upserts on its key, then supersedes every other live fact with the same subject, exactly as
  `memories.supersede` does, and the memories a model's fact names in `replaces`) whose final
  live facts hold the new value (a substring) and none of the stale ones (whole contents).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtap.config.schema import ModelExtractionConfig
from memtap.engine.clock import now_iso
from memtap.engine.extraction.extract import extract_facts
from memtap.engine.extractors.answer import BadAnswer
from memtap.engine.extractors.client import CallFailed, new_session
from memtap.engine.extractors.model import ask_model
from memtap.engine.types import ExtractedFact, Memory, Turn

Reader = Callable[[str, list[ExtractedFact]], Awaitable[list[ExtractedFact]]]
"""A message and the facts live so far -> the facts read in it."""

DEFAULT_SET = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "datasets"
    / "extraction_set.json"
)


@dataclass(slots=True)
class Tally:
    hits: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.total += 1
        self.hits += ok

    @property
    def rate(self) -> float | None:
        return round(self.hits / self.total, 3) if self.total else None


@dataclass(slots=True)
class Report:
    recall: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    polarity: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    clean: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    updates: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    failures: list[str] = field(default_factory=list)


def matches(fact: ExtractedFact, expected: dict[str, Any]) -> bool:
    content = fact.content.casefold()
    return fact.family == expected["family"] and all(
        h.casefold() in content for h in expected["has"]
    )


def show(facts: list[ExtractedFact]) -> str:
    return (
        "; ".join(
            f"{f.family}{'-' if f.polarity == 'negative' else '+'} {f.content!r}"
            for f in facts
        )
        or "nothing"
    )


async def read_all(
    texts: list[str], reader: Reader, concurrency: int
) -> list[list[ExtractedFact]]:
    gate = asyncio.Semaphore(concurrency)

    async def one(text: str) -> list[ExtractedFact]:
        async with gate:
            return await reader(text, [])

    return list(await asyncio.gather(*(one(text) for text in texts)))


def score_facts(
    data: dict[str, Any], report: Report, read: list[list[ExtractedFact]]
) -> None:
    for item, facts in zip(data["facts"], read, strict=True):
        for expected in item["expect"]:
            found = next((f for f in facts if matches(f, expected)), None)
            for key in ("all", expected["family"], f"lang:{item['lang']}"):
                report.recall[key].add(found is not None)
            if found is None:
                report.failures.append(
                    f"MISS {item['id']} [{item['lang']}] {expected['family']} {expected['has']}: "
                    f"{item['text']!r} -> {show(facts)}"
                )
                continue
            ok = found.polarity == expected["polarity"]
            for key in ("all", expected["family"], f"lang:{item['lang']}"):
                report.polarity[key].add(ok)
            if not ok:
                report.failures.append(
                    f"POLARITY {item['id']}: {item['text']!r} -> {show(facts)}"
                )


def score_non_facts(
    data: dict[str, Any], report: Report, read: list[list[ExtractedFact]]
) -> None:
    for item, facts in zip(data["non_facts"], read, strict=True):
        for key in ("all", item["kind"], f"lang:{item['lang']}"):
            report.clean[key].add(not facts)
        if facts:
            report.failures.append(
                f"LEAK {item['id']} [{item['lang']}] {item['kind']}: {item['text']!r} -> {show(facts)}"
            )


async def replay(messages: list[str], reader: Reader) -> list[ExtractedFact]:
    """Live facts after the messages, with the store's upsert-by-key and supersede-by-subject
    (and a model's `replaces`, which name live facts by key)."""
    live: dict[str, ExtractedFact] = {}
    for text in messages:
        for fact in await reader(text, list(live.values())):
            for replaced in fact.replaces:
                live.pop(replaced, None)
            live.pop(fact.key, None)
            for key in [k for k, old in live.items() if old.subject == fact.subject]:
                del live[key]
            live[fact.key] = fact
    return list(live.values())


async def score_sequences(
    data: dict[str, Any], report: Report, reader: Reader, concurrency: int
) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(messages: list[str]) -> list[ExtractedFact]:
        async with gate:
            return await replay(messages, reader)

    finals = await asyncio.gather(
        *(one(item["messages"]) for item in data["sequences"])
    )
    for item, live in zip(data["sequences"], finals, strict=True):
        contents = [f.content.casefold() for f in live]
        final_ok = item["final"] is None or any(
            item["final"].casefold() in c for c in contents
        )
        stale_ok = not any(s.casefold() == c for s in item["stale"] for c in contents)
        ok = final_ok and stale_ok
        kind = "restatement" if item["slot"] == "restatement" else "update"
        for key in ("all", kind, f"lang:{item['lang']}"):
            report.updates[key].add(ok)
        if not ok:
            report.failures.append(
                f"UPDATE {item['id']} [{item['lang']}] {item['slot']}: {item['messages']} -> {show(live)}"
            )


def throughput(data: dict[str, Any], seconds: float = 1.0) -> float:
    texts = [i["text"] for i in data["facts"]] + [i["text"] for i in data["non_facts"]]
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for text in texts:
            extract_facts(text, "user")
        done += len(texts)
    return done / (time.perf_counter() - started)


async def rules_reader(text: str, live: list[ExtractedFact]) -> list[ExtractedFact]:
    return extract_facts(text, "user")


class ModelReader:
    """Each message as one turn of one owner, the live facts as its memories (ids = keys)."""

    def __init__(self, settings: ModelExtractionConfig) -> None:
        self.settings = settings
        self.session = new_session()
        self.calls = 0
        self.failures: Counter[str] = Counter()
        self.tokens = Counter({"in": 0, "out": 0})

    async def __call__(
        self, text: str, live: list[ExtractedFact]
    ) -> list[ExtractedFact]:
        now = now_iso()
        turn = Turn("eval", "eval", None, "openai-chat", text, "", created_at=now)
        memories = [
            Memory(f.key, "eval", None, f.type, f.key, f.content, {}, now, now)
            for f in live[-self.settings.related_memories :]
        ]
        self.calls += 1
        try:
            answer, facts = await ask_model(
                self.session, self.settings, [turn], memories
            )
        except (CallFailed, BadAnswer) as exc:
            self.failures[exc.reason] += 1
            return []
        self.tokens["in"] += answer.usage.tokens_in or 0
        self.tokens["out"] += answer.usage.tokens_out or 0
        return list(facts[0])


def figures(report: Report, data: dict[str, Any]) -> dict[str, Any]:
    def table(tallies: dict[str, Tally]) -> dict[str, Any]:
        return {k: {"rate": t.rate, "n": t.total} for k, t in sorted(tallies.items())}

    return {
        "messages": len(data["facts"])
        + len(data["non_facts"])
        + sum(len(s["messages"]) for s in data["sequences"]),
        "recall": table(report.recall),
        "clean": table(report.clean),
        "polarity": table(report.polarity),
        "updates": table(report.updates),
    }


def print_table(name: str, rows: dict[str, Any]) -> None:
    print(f"\n{name}")
    for key, row in rows.items():
        print(
            f"  {key:<22} {row['rate'] if row['rate'] is not None else '-':>6}   (n={row['n']})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--set", type=Path, default=DEFAULT_SET, help="the labelled set (JSON)"
    )
    parser.add_argument(
        "--failures",
        action="store_true",
        help="list every miss, leak and failed update",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--extractor",
        choices=["rules", "model"],
        default="rules",
        help="what reads the messages (default: the rules)",
    )
    parser.add_argument(
        "--model-url", help="the model's base URL, as in OPENAI_BASE_URL"
    )
    parser.add_argument("--model-name", help="the model name sent in each request")
    parser.add_argument(
        "--model-key-env",
        metavar="VAR",
        help="the environment variable holding its API key (none: no key sent)",
    )
    parser.add_argument(
        "--model-timeout",
        type=float,
        default=60.0,
        help="seconds per call (default 60)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=4, help="model calls at once (default 4)"
    )
    args = parser.parse_args(argv)
    if args.extractor == "model" and not (args.model_url and args.model_name):
        parser.error("--extractor model needs --model-url and --model-name")
    data = json.loads(args.set.read_text(encoding="utf-8"))
    result, report = asyncio.run(evaluate(data, args))
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(
            f"extractor: {result['extractor']}   messages: {result['messages']}   "
            f"extraction: {result['extraction_msgs_per_s']} messages/s"
        )
        if "model" in result:
            print(
                f"model calls: {result['model']['calls']}   failed: {result['model']['failures']}   "
                f"tokens: {result['model']['tokens']}"
            )
        for name in ("recall", "clean", "polarity", "updates"):
            print_table(name, result[name])
    if args.failures:
        print("\n" + "\n".join(report.failures))
    return 0


async def evaluate(
    data: dict[str, Any], args: argparse.Namespace
) -> tuple[dict[str, Any], Report]:
    model: ModelReader | None = None
    reader: Reader = rules_reader
    concurrency = 1
    if args.extractor == "model":
        key = os.environ.get(args.model_key_env) if args.model_key_env else None
        if args.model_key_env and not key:
            raise SystemExit(f"{args.model_key_env} is not set")
        model = ModelReader(
            ModelExtractionConfig(
                url=args.model_url,
                api_key=key,
                model=args.model_name,
                timeout_s=args.model_timeout,
            )
        )
        reader, concurrency = model, max(1, args.concurrency)
    report = Report()
    started = time.perf_counter()
    try:
        texts = [i["text"] for i in data["facts"]]
        score_facts(data, report, await read_all(texts, reader, concurrency))
        texts = [i["text"] for i in data["non_facts"]]
        score_non_facts(data, report, await read_all(texts, reader, concurrency))
        await score_sequences(data, report, reader, concurrency)
    finally:
        if model is not None:
            await model.session.close()
    elapsed = time.perf_counter() - started
    result = figures(report, data)
    result["extractor"] = args.extractor
    if model is None:
        result["extraction_msgs_per_s"] = round(throughput(data))
    else:
        result["extraction_msgs_per_s"] = (
            round(model.calls / elapsed, 2) if elapsed else 0
        )
        result["model"] = {
            "name": args.model_name,
            "calls": model.calls,
            "failures": dict(model.failures),
            "tokens": dict(model.tokens),
        }
    return result, report


if __name__ == "__main__":
    raise SystemExit(main())
