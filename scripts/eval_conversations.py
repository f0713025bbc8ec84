"""Conversation recall (a benchmark, not a test): replay the multi-session conversations of
tests/datasets/conversations/ through a running memtap, then ask each question through
retrieve-preview and score what would be injected against simple baselines.

    .venv/bin/python scripts/eval_conversations.py             # all five conversations
    .venv/bin/python scripts/eval_conversations.py --quick     # two conversations, 20 questions each
    .venv/bin/python scripts/eval_conversations.py --limit-conversations 3 --json
    .venv/bin/python scripts/eval_conversations.py --dataset tests/datasets/conversations_blind
                                                   # two personas written blind (2026-12-06)
    .venv/bin/python scripts/eval_conversations.py --extractor model \
        --model-url http://127.0.0.1:11434/v1 --model-name qwen2.5:7b [--model-key-env VAR]
                                                   # memtap with extraction.kind: model

What it does, in one run:
1. starts `memtap serve` (a subprocess, loopback port, data dir in a temp folder) in front of
   the provider stand-in (tests/support/standin.py), which answers every request with the
   data set's assistant turn;
2. replays each conversation as a client does: one API key per persona, every user turn a
   chat-completions request carrying the session's history so far, the session in
   `X-Memtap-Session`; then waits until the outbox is empty;
3. if `POST /_memtap/api/import/conversations` answers (not 404), imports the same turns
   with their timestamps under a second key per persona ("memtap (import)");
4. asks every question through `POST /_memtap/api/retrieve-preview` (no session: a new chat)
   and scores, per system: answer recall (the answer's words are all in the injected text,
   tests/support/conversations.py), evidence recall (share of the evidence turns that are in
   it; for memtap: a memory whose provenance request carried the turn) and mean tokens.

Systems: memtap; BM25 top-5 raw user turns; BM25 raw user turns cut to the tokens memtap
injected for that question; BM25 raw user turns cut to 600 tokens; the full conversation.
Raw turns are shown as `[YYYY-MM-DD] text`, so a "when" question is answerable from them.
A live replay cannot know those dates (every turn is sent today), so one more baseline,
"BM25 at memtap's budget, replay-dated", prints each turn with the replay's day instead:
the comparison with the same knowledge as the live replay (the imported conversations are
compared with the data set's dates).
Tokens are memtap's own estimate (4 characters a token).

With `--extractor model` the memtap under test runs `extraction.kind: model` against that
endpoint (its rate and budget limits lifted, so the figures are the model's; a batch whose
call fails still goes to the rules, as in production): the same figures are printed, plus
how many batches each extractor kept and the fallbacks by reason (from `/_memtap/metrics`).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtap.engine.memory_block import CLOSE, OPEN, PREAMBLE
from memtap.engine.stopwords import STOPWORDS
from memtap.engine.text.tokens import estimate_tokens
from tests.support.conversations import (
    Conversation,
    Question,
    Turn,
    answer_found,
    load_all,
    words,
)
from tests.support.standin import Standin

BUDGET = 600
SYSTEM = {"role": "system", "content": "You are a helpful assistant. Answer briefly."}
QUICK_CONVERSATIONS, QUICK_QUESTIONS = 2, 20
_TOKEN = re.compile(r"\w+", re.UNICODE)


# -- BM25 over raw turns ---------------------------------------------------------------------
def terms(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over a fixed list of documents."""

    def __init__(self, documents: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(terms(d)) for d in documents]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.docs))
        df: Counter[str] = Counter()
        for doc in self.docs:
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def rank(self, query: str) -> list[int]:
        q = set(terms(query))
        scores = []
        for i, doc in enumerate(self.docs):
            s = 0.0
            for t in q & doc.keys():
                tf = doc[t]
                s += (
                    self.idf[t]
                    * tf
                    * (self.k1 + 1)
                    / (
                        tf
                        + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                    )
                )
            if s > 0:
                scores.append((s, i))
        return [i for _, i in sorted(scores, key=lambda p: (-p[0], p[1]))]


def shown(turn: Turn, day: str | None = None) -> str:
    """A raw turn as the baselines print it: with its own date, or with `day` instead."""
    return f"[{day or turn.ts[:10]}] {turn.content}"


def cut_to_budget(
    turns: list[Turn], budget: int, day: str | None = None
) -> tuple[str, list[str]]:
    """Best-ranked turns first until `budget` tokens; the last one trimmed to fit."""
    parts, ids, used = [], [], 0
    for turn in turns:
        text = shown(turn, day)
        room = budget - used
        if room <= 0:
            break
        if estimate_tokens(text) > room:
            text = text[: room * 4]
        parts.append(text)
        ids.append(turn.id)
        used += estimate_tokens(text)
    return "\n".join(parts), ids


# -- scoring ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Score:
    questions: int = 0
    answered: int = 0
    evidence: float = 0.0
    tokens: int = 0
    empty: int = 0
    vector_skipped: int = 0
    """Questions whose vector legs were skipped: the keywords answered (memtap only)."""
    by_kind: dict[str, list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0])
    )

    def add(
        self, question: Question, text: str, evidence_ids: set[str], tokens: int
    ) -> bool:
        found = answer_found(question.answer, text)
        self.questions += 1
        self.answered += found
        self.evidence += len(set(question.evidence) & evidence_ids) / len(
            question.evidence
        )
        self.tokens += tokens
        self.empty += tokens == 0
        self.by_kind[question.kind][0] += found
        self.by_kind[question.kind][1] += 1
        return found

    def to_json(self) -> dict[str, Any]:
        n = max(1, self.questions)
        return {
            "answer_recall": round(self.answered / n, 3),
            "evidence_recall": round(self.evidence / n, 3),
            "mean_tokens": round(self.tokens / n, 1),
            "empty": self.empty,
            "vector_skipped": self.vector_skipped,
            "by_kind": {
                k: round(v[0] / max(1, v[1]), 3)
                for k, v in sorted(self.by_kind.items())
            },
        }


# -- the running memtap ----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def model_extraction_yaml(args: argparse.Namespace) -> str:
    """The `extraction` section of `--extractor model`: the endpoint, its limits lifted."""
    key = f"${{{args.model_key_env}}}" if args.model_key_env else "null"
    return (
        "extraction:\n  kind: model\n  model:\n"
        f"    url: {json.dumps(args.model_url)}\n    model: {json.dumps(args.model_name)}\n"
        f"    api_key: {key}\n    timeout_s: {args.model_timeout}\n"
        "    calls_per_minute: 1000000\n    owner_calls_per_minute: 1000000\n"
        "    daily_tokens: 1000000000\n"
    )


def start_memtap(
    port: int,
    upstream: str,
    data_dir: Path,
    embedding_source: str = "",
    extraction: str = "",
    config_file: Path | None = None,
) -> tuple[subprocess.Popen[bytes], Any]:
    """`memtap serve` of this venv, its output in data_dir/memtap.log (closed by the caller).
    With an embedding source or an extraction section, a config file of its own that sets
    only those; else `config_file` when given (flags still set the port, upstream and data
    dir)."""
    command = [
        str(Path(sys.executable).with_name("memtap")),
        "serve",
        "--listen",
        f"127.0.0.1:{port}",
        "--upstream",
        upstream,
        "--data-dir",
        str(data_dir),
        "--log-level",
        "warning",
    ]
    if embedding_source or extraction:
        config = data_dir / "memtap.yaml"
        embedding = (
            f"embedding:\n  source: {embedding_source}\n" if embedding_source else ""
        )
        config.write_text(embedding + extraction)
        command += ["-c", str(config)]
    elif config_file is not None:
        command += ["-c", str(config_file)]
    log = open(data_dir / "memtap.log", "wb")  # noqa: SIM115 - closed after the process
    return subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ)
    ), log


def owner_of(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:24]


async def wait_ready(
    client: aiohttp.ClientSession, base: str, process: subprocess.Popen[bytes]
) -> None:
    for _ in range(300):
        if process.poll() is not None:
            raise SystemExit(f"memtap serve exited with {process.returncode}")
        try:
            async with client.get(base + "/_memtap/readyz") as r:
                if r.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("memtap did not become ready")


async def wait_drained(
    client: aiohttp.ClientSession, base: str, *, vectors: bool = True
) -> None:
    """Until every captured turn is extracted and (`vectors`) every memory and episode
    window has its vectors, the multilingual model's included."""
    while True:
        async with client.get(base + "/_memtap/api/engine-status") as r:
            status = await r.json()
        vector = status.get("vector") or {}
        pending = vector.get("pending", 0) if isinstance(vector, dict) else 0
        episodes = status.get("episodes") or {}
        if isinstance(episodes, dict):
            pending += int(episodes.get("pending_vectors") or 0)
            pending += int(episodes.get("second_pending") or 0)
        if status["outbox"]["depth"] == 0 and (not vectors or not pending):
            return
        await asyncio.sleep(0.5)


async def replay(
    client: aiohttp.ClientSession,
    base: str,
    standin: Standin,
    conversation: Conversation,
    key: str,
) -> dict[str, str]:
    """Each user turn as a chat request with its session's history; returns request id -> turn id."""
    request_turn: dict[str, str] = {}
    history: dict[str, list[dict[str, str]]] = defaultdict(list)
    turns = conversation.turns
    for user, assistant in zip(turns[0::2], turns[1::2], strict=True):
        messages = [
            SYSTEM,
            *history[user.session],
            {"role": "user", "content": user.content},
        ]
        standin.reply_text = assistant.content
        headers = {"Authorization": f"Bearer {key}", "X-Memtap-Session": user.session}
        body = {"model": "gpt-4o-mini", "messages": messages}
        async with client.post(
            base + "/v1/chat/completions", json=body, headers=headers
        ) as r:
            reply = await r.json()
            if r.status != 200:
                raise SystemExit(f"chat request failed: {r.status} {reply}")
            request_id = r.headers.get("X-Memtap-Request-Id")
        if request_id:
            request_turn[request_id] = user.id
        history[user.session] += [
            {"role": "user", "content": user.content},
            {"role": "assistant", "content": reply["choices"][0]["message"]["content"]},
        ]
    return request_turn


async def try_import(
    client: aiohttp.ClientSession, base: str, conversation: Conversation, key: str
) -> bool:
    lines = "".join(
        json.dumps(
            {
                "api_key": key,
                "session": t.session,
                "role": t.role,
                "content": t.content,
                "ts": t.ts,
            },
            ensure_ascii=False,
        )
        + "\n"
        for t in conversation.turns
    )
    for media_type in ("application/x-ndjson", "application/jsonl", "text/plain"):
        async with client.post(
            base + "/_memtap/api/import/conversations",
            data=lines.encode(),
            headers={"Content-Type": media_type},
        ) as r:
            if r.status == 404:
                return False
            if r.status == 415:  # try the next name for JSON lines
                continue
            if r.status >= 300:
                raise SystemExit(f"import failed: {r.status} {await r.text()}")
            return True
    raise SystemExit("import: no JSON-lines media type accepted")


def injected_text(preview: dict[str, Any]) -> str:
    """The block without its frame and preamble (words of the preamble are no answer)."""
    block = str(preview.get("block") or "")
    return "\n".join(
        line for line in block.splitlines() if line not in (OPEN, CLOSE, PREAMBLE)
    )


async def provenance(
    client: aiohttp.ClientSession,
    base: str,
    memory_id: str,
    cache: dict[str, str | None],
) -> str | None:
    if memory_id not in cache:
        async with client.get(f"{base}/_memtap/api/memories/{memory_id}") as r:
            cache[memory_id] = (
                (await r.json()).get("metadata", {}).get("request_id")
                if r.status == 200
                else None
            )
    return cache[memory_id]


def source_turn(content: str, turn_words: list[tuple[str, set[str]]]) -> str | None:
    """The turn an injected text was taken from, by its words, when provenance does not say
    (an episode snippet, an imported turn): the turn holding most of them, if >= 60 %."""
    mine = words(content)
    if len(mine) < 3:
        return None
    share, best = max(
        ((len(mine & ws) / len(mine), tid) for tid, ws in turn_words),
        default=(0.0, None),
    )
    return best if share >= 0.6 else None


# -- the run ---------------------------------------------------------------------------------
async def apply_settings(
    client: aiohttp.ClientSession, base: str, pairs: list[str]
) -> None:
    """`--setting memory.episodes.keep_assistant=true`: runtime settings (values as JSON)."""
    body = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        body[name] = json.loads(value)
    async with client.put(base + "/_memtap/api/settings", json=body) as r:
        if r.status != 200:
            raise SystemExit(f"settings refused: {await r.text()}")


async def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    conversations = (load_all(Path(args.dataset)) if args.dataset else load_all())[
        : args.limit_conversations or None
    ]
    if args.quick:
        conversations = conversations[:QUICK_CONVERSATIONS]
    started = time.perf_counter()
    standin = Standin(record=False)
    await standin.start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        extraction = model_extraction_yaml(args) if args.extractor == "model" else ""
        process, log = start_memtap(
            port, standin.url, Path(tmp), args.embedding_source, extraction
        )
        try:
            async with aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=60)
            ) as client:
                await wait_ready(client, base, process)
                if args.setting:
                    await apply_settings(client, base, args.setting)
                return await run(client, base, standin, conversations, args, started)
        finally:
            process.terminate()
            process.wait(timeout=30)
            log.close()
            await standin.stop()


async def run(
    client: aiohttp.ClientSession,
    base: str,
    standin: Standin,
    conversations: list[Conversation],
    args: argparse.Namespace,
    started: float,
) -> dict[str, Any]:
    systems = [
        "memtap",
        "bm25_top5",
        "bm25_memtap_budget",
        "bm25_memtap_budget_replay_dated",
        f"bm25_{BUDGET}",
        "full_conversation",
    ]
    # The day the replay sends every turn: what a live replay's episodes are dated with.
    replay_day = datetime.now(UTC).date().isoformat()
    provenance_of: dict[str, dict[str, str]] = {}
    replay_s = time.perf_counter()
    for conversation in conversations:
        provenance_of[conversation.id] = await replay(
            client, base, standin, conversation, f"sk-eval-{conversation.id}"
        )
        print(
            f"replayed {conversation.id}: {len(conversation.turns)} turns",
            file=sys.stderr,
        )
    imported = False
    for conversation in conversations:
        imported = (
            await try_import(
                client, base, conversation, f"sk-eval-import-{conversation.id}"
            )
            or imported
        )
        if not imported:
            break
    if imported:
        systems.insert(1, "memtap_import")
    await wait_drained(client, base)
    replay_s = time.perf_counter() - replay_s
    extraction = await extraction_figures(client, base, args.extractor)
    async with client.get(base + "/_memtap/api/owners") as r:
        owners_seen = {
            item["owner"]: item["live"] for item in (await r.json())["items"]
        }
    live = {
        c.id: owners_seen.get(owner_of(f"sk-eval-{c.id}"), 0) for c in conversations
    }
    # Why turns taught nothing: the request log's reasons (its last 500 requests at most).
    async with client.get(
        base + "/_memtap/api/requests", params={"limit": "1000"}
    ) as r:
        reasons = Counter(
            str(item.get("skipped_reason")) for item in (await r.json())["items"]
        )
    scores = {name: Score() for name in systems}
    misses: list[dict[str, Any]] = []
    memories: dict[str, str | None] = {}
    for conversation in conversations:
        user_turns = [t for t in conversation.turns if t.role == "user"]
        turn_words = [(t.id, words(t.content)) for t in conversation.turns]
        bm25 = BM25([t.content for t in user_turns])
        full = "\n".join(f"{t.role}: {shown(t)}" for t in conversation.turns)
        questions = conversation.questions[: QUICK_QUESTIONS if args.quick else None]
        for question in questions:
            ranked = [user_turns[i] for i in bm25.rank(question.question)]
            owners = [("memtap", f"sk-eval-{conversation.id}")]
            if imported:
                owners.append(("memtap_import", f"sk-eval-import-{conversation.id}"))
            memtap_tokens = 0
            for name, key in owners:
                async with client.post(
                    base + "/_memtap/api/retrieve-preview",
                    json={"owner": owner_of(key), "query": question.question},
                ) as r:
                    preview = await r.json()
                text, tokens = injected_text(preview), int(preview.get("tokens") or 0)
                scores[name].vector_skipped += "vector_skipped" in preview.get(
                    "resolution", {}
                )
                turn_of = provenance_of[conversation.id] if name == "memtap" else {}
                evidence = set()
                for hit in preview["results"]:
                    source = await provenance(client, base, hit["id"], memories)
                    turn = turn_of.get(source or "") or source_turn(
                        str(hit.get("content") or ""), turn_words
                    )
                    if turn:
                        evidence.add(turn)
                found = scores[name].add(question, text, evidence, tokens)
                if name == "memtap":
                    memtap_tokens = tokens
                    if not found:
                        misses.append(
                            {
                                "id": question.id,
                                "kind": question.kind,
                                "question": question.question,
                                "answer": question.answer,
                                "injected": text[:300],
                                "bm25_top1": shown(ranked[0])[:200] if ranked else "",
                            }
                        )
            top5 = ranked[:5]
            scores["bm25_top5"].add(
                question,
                "\n".join(map(shown, top5)),
                {t.id for t in top5},
                estimate_tokens("\n".join(map(shown, top5))) if top5 else 0,
            )
            for name, budget, day in (
                ("bm25_memtap_budget", memtap_tokens, None),
                ("bm25_memtap_budget_replay_dated", memtap_tokens, replay_day),
                (f"bm25_{BUDGET}", BUDGET, None),
            ):
                text, ids = cut_to_budget(ranked, budget, day)
                scores[name].add(
                    question, text, set(ids), estimate_tokens(text) if text else 0
                )
            scores["full_conversation"].add(
                question,
                full,
                {t.id for t in conversation.turns},
                estimate_tokens(full),
            )
    memtap, budget = scores["memtap"].to_json(), scores["bm25_memtap_budget"].to_json()
    targets = {  # issue 17's, at <= 600 injected tokens per request
        "ratio_to_bm25_at_memtap_budget": round(
            memtap["answer_recall"] / budget["answer_recall"], 2
        )
        if budget["answer_recall"]
        else None,
        "ratio_target": 1.2,
        "single_fact": memtap["by_kind"].get("single", 0.0),
        "single_fact_target": 0.85,
        "mean_tokens_within_600": memtap["mean_tokens"] <= BUDGET,
    }
    # The same comparison with what a live replay can know: BM25's turns dated as memtap saw
    # them (the replay's day), like memtap's own live episodes.
    alike = scores["bm25_memtap_budget_replay_dated"].to_json()
    targets["ratio_to_bm25_dated_alike"] = (
        round(memtap["answer_recall"] / alike["answer_recall"], 2)
        if alike["answer_recall"]
        else None
    )
    if "memtap_import" in scores:
        # Imported turns keep their own dates, like the baselines' `[YYYY-MM-DD]` raw turns;
        # a live replay is dated on the day it runs, so its "when" answers cannot match.
        imported = scores["memtap_import"].to_json()
        targets["import_ratio_to_bm25_at_memtap_budget"] = (
            round(imported["answer_recall"] / budget["answer_recall"], 2)
            if budget["answer_recall"]
            else None
        )
        targets["when_imported"] = imported["by_kind"].get("when", 0.0)
    return {
        "conversations": len(conversations),
        "targets": targets,
        "turns": sum(len(c.turns) for c in conversations),
        "questions": scores["memtap"].questions,
        "import_endpoint": imported,
        "memtap_live_memories": live,
        "recent_skipped_reasons": dict(reasons),
        "systems": {name: score.to_json() for name, score in scores.items()},
        "replay_seconds": round(replay_s, 1),
        "total_seconds": round(time.perf_counter() - started, 1),
        "memtap_misses": misses,
        "extraction": extraction,
    }


EXTRACTION_METRIC = re.compile(
    r'^memtap_extraction_(batches|fallbacks|model_tokens)_total\{\w+="([\w]+)"\} ([0-9.e+]+)$',
    re.MULTILINE,
)


async def extraction_figures(
    client: aiohttp.ClientSession, base: str, extractor: str
) -> dict[str, Any]:
    """Which extractor kept how many batches, the fallbacks by reason, the model's tokens."""
    async with client.get(base + "/_memtap/metrics") as r:
        text = await r.text()
    out: dict[str, Any] = {
        "kind": extractor,
        "batches": {},
        "fallbacks": {},
        "model_tokens": {},
    }
    for metric, label, value in EXTRACTION_METRIC.findall(text):
        out[metric if metric != "model_tokens" else "model_tokens"][label] = int(
            float(value)
        )
    return out


def table(report: dict[str, Any]) -> str:
    lines = [
        (
            f"{report['conversations']} conversations, {report['turns']} turns, {report['questions']} questions "
            f"(replay + extraction {report['replay_seconds']} s, total {report['total_seconds']} s)"
        ),
        f"{'system':<22}{'answer':>8}{'evidence':>10}{'tokens':>9}{'empty':>7}  answer recall by kind",
    ]
    for name, s in report["systems"].items():
        kinds = " ".join(f"{k}={v:.2f}" for k, v in s["by_kind"].items())
        lines.append(
            f"{name:<22}{s['answer_recall']:>8.3f}{s['evidence_recall']:>10.3f}{s['mean_tokens']:>9.1f}"
            f"{s['empty']:>7}  {kinds}"
        )
    t = report["targets"]
    lines.append(
        f"targets: memtap / BM25 at its budget = {t['ratio_to_bm25_at_memtap_budget']} (>= 1.2), "
        f"single-fact {t['single_fact']:.2f} (>= 0.85), mean tokens <= {BUDGET}: "
        f"{t['mean_tokens_within_600']}"
    )
    lines.append(
        f"replayed live, against BM25 dated alike (the replay's day): "
        f"{t['ratio_to_bm25_dated_alike']} (>= 1.2)"
    )
    if "import_ratio_to_bm25_at_memtap_budget" in t:
        lines.append(
            f"imported conversations: memtap / BM25 at its budget = "
            f"{t['import_ratio_to_bm25_at_memtap_budget']} (>= 1.2), "
            f"'when' answered {t['when_imported']:.2f}"
        )
    skipped = {
        name: s["vector_skipped"]
        for name, s in report["systems"].items()
        if name.startswith("memtap")
    }
    lines.append(
        f"questions whose vector legs were skipped (memory.vector_skip_coverage): {skipped}"
    )
    lines.append(
        f"memtap live memories per conversation: {report['memtap_live_memories']}"
    )
    lines.append(f"recent requests' skipped_reason: {report['recent_skipped_reasons']}")
    x = report["extraction"]
    lines.append(
        f"extraction ({x['kind']}): batches by extractor {x['batches']}, "
        f"fallbacks {x['fallbacks']}, model tokens {x['model_tokens']}"
    )
    if not report["import_endpoint"]:
        lines.append(
            "(POST /_memtap/api/import/conversations answered 404: no import figures)"
        )
    return "\n".join(lines)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--limit-conversations",
        type=int,
        default=0,
        help="only the first N conversations",
    )
    parser.add_argument(
        "--dataset",
        default="",
        metavar="DIR",
        help="a folder of conversation files in the same format (default tests/datasets/conversations; "
        "for a set written apart, to measure on text the engine was not tuned against)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_CONVERSATIONS} conversations, {QUICK_QUESTIONS} questions each",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the figures (and memtap's misses) as JSON",
    )
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a runtime setting for the run, e.g. memory.episodes.keep_assistant=true",
    )
    parser.add_argument(
        "--embedding-source",
        default="",
        choices=["", "auto", "onnx", "static", "none"],
        help="embedding.source of the memtap under test (default: its config/memtap.yaml)",
    )
    parser.add_argument(
        "--extractor",
        choices=["rules", "model"],
        default="rules",
        help="extraction.kind of the memtap under test (default: rules)",
    )
    parser.add_argument(
        "--model-url", help="the extraction model's base URL, as in OPENAI_BASE_URL"
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
    args = parser.parse_args(argv)
    if args.extractor == "model" and not (args.model_url and args.model_name):
        parser.error("--extractor model needs --model-url and --model-name")
    if args.model_key_env and not os.environ.get(args.model_key_env):
        parser.error(f"{args.model_key_env} is not set")
    return args


if __name__ == "__main__":
    arguments = parse()
    result = asyncio.run(evaluate(arguments))
    print(
        json.dumps(result, indent=2, ensure_ascii=False)
        if arguments.json
        else table(result)
    )
