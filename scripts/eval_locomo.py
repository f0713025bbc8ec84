"""Long-conversation recall on the LoCoMo dev split (a benchmark, not a test): the honest one.

The data (`../shared/datasets/locomo-dev/*.json`, three of LoCoMo's ten conversations, CC
BY-NC 4.0) is read where it lies and never copied into the repository. Its README says how
memtap is measured; this script does exactly that, in one run, against baselines measured in
the same run:

    .venv/bin/python scripts/eval_locomo.py                  # all three, live and imported
    .venv/bin/python scripts/eval_locomo.py --only 26 --mode live --misses misses.json
    .venv/bin/python scripts/eval_locomo.py --json > figures.json
    .venv/bin/python scripts/eval_locomo.py --dataset tests/datasets/locomo_multilingual
                          # our own set in the same format: a de/es/pt/fr speaker with an
                          # English partner, questions in English (issue 35, item 7)

1. `memtap serve` (a subprocess: loopback port, a fresh data dir, `config/memtap.yaml` unless
   `--config`) in front of the provider stand-in (tests/support/standin.py);
2. live: each speaker is an owner (their own API key); every turn of a speaker is sent as that
   owner's chat-completions user message, in order, with the other speaker's previous turn as
   the assistant message before it (the stand-in answers with the other speaker's next turn,
   or `--reply fixed` a constant text);
3. imported: the same turns through `POST /_memtap/api/import/conversations` with their
   session dates (`ts`), one owner per speaker (their own turns as `user`, the other's as
   `assistant`);
4. once the outbox is drained, every question is asked to `retrieve-preview` for both owners
   (default strategy and budget); what the two inject is what a model would see. Each owner
   is asked one question first, then a pause: the multilingual model loads on a routed
   owner's first question, and a kept data dir scored again would otherwise rank its first
   questions without it.

Scoring (the README's): an answer is found when at least half of its content words
(lower-cased, punctuation and stop words removed, lightly stemmed) are in the text; tokens
are characters / 4. Baselines over the raw turns of both speakers ("Speaker: text", with the
session date in the imported comparison): BM25 top-5; BM25 and dense (memtap's own local
model) cut to memtap's mean token count; BM25 with each turn's neighbours at 1,100 tokens;
every turn (the ceiling). Categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop
(5, adversarial, has no answer string and is not scored).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval_conversations import (
    BM25,
    apply_settings,
    free_port,
    injected_text,
    owner_of,
    start_memtap,
    wait_drained,
    wait_ready,
)

from memtap.engine.stopwords import STOPWORDS
from tests.support.standin import Standin

DATASET = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo-dev"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
NEIGHBOUR_BUDGET = 1100
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
_WORD = re.compile(r"\w+", re.UNICODE)
_SUFFIXES = ("ing", "ed", "es", "s")


# -- the data --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Said:
    id: str
    speaker: str
    text: str
    ts: datetime
    session: str


@dataclass(frozen=True, slots=True)
class Asked:
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass(frozen=True, slots=True)
class Dialogue:
    id: str
    speakers: tuple[str, str]
    turns: tuple[Said, ...]
    questions: tuple[Asked, ...]


def session_time(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" as UTC."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load(path: Path) -> Dialogue:
    raw = json.loads(path.read_text())
    conversation = raw.get("conversation", raw)
    speakers = (conversation["speaker_a"], conversation["speaker_b"])
    turns: list[Said] = []
    numbers = sorted(
        int(k.split("_")[1])
        for k, v in conversation.items()
        if re.fullmatch(r"session_\d+", k) and isinstance(v, list)
    )
    for n in numbers:
        start = session_time(conversation[f"session_{n}_date_time"])
        for i, turn in enumerate(conversation[f"session_{n}"]):
            text = str(turn.get("text") or "").strip()
            if not text:
                continue
            turns.append(
                Said(
                    turn["dia_id"],
                    turn["speaker"],
                    text,
                    start + timedelta(seconds=30 * i),
                    f"session_{n}",
                )
            )
    questions = tuple(
        Asked(
            str(q["question"]),
            str(q["answer"]),
            tuple(q.get("evidence") or ()),
            int(q["category"]),
        )
        for q in raw["qa"]
        if int(q.get("category", 5)) in CATEGORIES and "answer" in q
    )
    return Dialogue(path.stem, speakers, tuple(turns), questions)


# -- scoring ---------------------------------------------------------------------------------
def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def found(answer: str, text: str) -> bool:
    wanted = content_words(answer)
    if not wanted:
        return False
    return len(wanted & content_words(text)) * 2 >= len(wanted)


def tokens_of(text: str) -> int:
    return (len(text) + 3) // 4


def dated(turn: Said) -> str:
    return f"[{turn.ts.day} {turn.ts:%B %Y}] {turn.speaker}: {turn.text}"


def plain(turn: Said) -> str:
    return f"{turn.speaker}: {turn.text}"


def cut(lines: list[str], budget: int) -> str:
    out, used = [], 0
    for line in lines:
        room = budget - used
        if room <= 0:
            break
        if tokens_of(line) > room:
            line = line[: room * 4]
        out.append(line)
        used += tokens_of(line)
    return "\n".join(out)


def with_neighbours(
    order: list[int], turns: tuple[Said, ...], budget: int, show: Any
) -> str:
    """Best-ranked turns, each with the turn before and after it, no turn twice, in
    conversation order within each group."""
    taken: set[int] = set()
    lines: list[str] = []
    used = 0
    for i in order:
        group = [j for j in (i - 1, i, i + 1) if 0 <= j < len(turns) and j not in taken]
        text = "\n".join(show(turns[j]) for j in group)
        if not group or used + tokens_of(text) > budget:
            continue
        taken.update(group)
        lines.append(text)
        used += tokens_of(text)
    return "\n".join(lines)


@dataclass(slots=True)
class Score:
    answered: int = 0
    questions: int = 0
    tokens: int = 0
    by_category: dict[str, list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0])
    )

    def add(self, asked: Asked, text: str) -> bool:
        hit = found(asked.answer, text)
        self.questions += 1
        self.answered += hit
        self.tokens += tokens_of(text)
        kind = CATEGORIES[asked.category]
        self.by_category[kind][0] += hit
        self.by_category[kind][1] += 1
        return hit

    def to_json(self) -> dict[str, Any]:
        n = max(1, self.questions)
        return {
            "answer_recall": round(self.answered / n, 3),
            "mean_tokens": round(self.tokens / n, 1),
            "by_category": {
                k: round(v[0] / max(1, v[1]), 3)
                for k, v in sorted(self.by_category.items())
            },
        }


# -- driving memtap --------------------------------------------------------------------------
def key_of(dialogue: Dialogue, speaker: str, mode: str) -> str:
    return f"sk-locomo-{mode}-{dialogue.id}-{speaker.lower()}"


async def replay(
    client: aiohttp.ClientSession,
    base: str,
    standin: Standin,
    dialogue: Dialogue,
    fixed: bool,
) -> None:
    turns = dialogue.turns
    for i, turn in enumerate(turns):
        messages: list[dict[str, str]] = [SYSTEM]
        if (
            i > 0
            and turns[i - 1].speaker != turn.speaker
            and turns[i - 1].session == turn.session
        ):
            messages.append({"role": "assistant", "content": turns[i - 1].text})
        messages.append({"role": "user", "content": turn.text})
        following = (
            turns[i + 1]
            if i + 1 < len(turns) and turns[i + 1].session == turn.session
            else None
        )
        standin.reply_text = "Okay." if fixed or following is None else following.text
        headers = {"Authorization": f"Bearer {key_of(dialogue, turn.speaker, 'live')}"}
        async with client.post(
            base + "/v1/chat/completions",
            json={"model": "gpt-4o-mini", "messages": messages},
            headers=headers,
        ) as r:
            if r.status != 200:
                raise SystemExit(f"chat request failed: {r.status} {await r.text()}")
            await r.read()


async def import_dated(
    client: aiohttp.ClientSession, base: str, dialogue: Dialogue
) -> None:
    lines = []
    for speaker in dialogue.speakers:
        key = key_of(dialogue, speaker, "import")
        for turn in dialogue.turns:
            role = "user" if turn.speaker == speaker else "assistant"
            lines.append(
                json.dumps(
                    {
                        "api_key": key,
                        "session": turn.session,
                        "role": role,
                        "content": turn.text,
                        "ts": turn.ts.isoformat().replace("+00:00", "Z"),
                    },
                    ensure_ascii=False,
                )
            )
    async with client.post(
        base + "/_memtap/api/import/conversations",
        data=("\n".join(lines) + "\n").encode(),
        headers={"Content-Type": "application/x-ndjson"},
    ) as r:
        if r.status >= 300:
            raise SystemExit(f"import failed: {r.status} {await r.text()}")
        report = await r.json()
    if report.get("errors"):
        print(f"import {dialogue.id}: errors {report['errors'][:3]}", file=sys.stderr)


async def preview(
    client: aiohttp.ClientSession, base: str, owner: str, query: str
) -> str:
    async with client.post(
        base + "/_memtap/api/retrieve-preview", json={"owner": owner, "query": query}
    ) as r:
        if r.status != 200:
            raise SystemExit(f"retrieve-preview failed: {r.status} {await r.text()}")
        return injected_text(await r.json())


async def warm_models(
    client: aiohttp.ClientSession,
    base: str,
    dialogues: list[Dialogue],
    modes: list[str],
) -> None:
    """One question for every owner, then a pause: the multilingual model loads on an
    owner's first routed question (~1.3 s, off the request), and a process that scores a
    kept data dir would otherwise rank its first questions without it."""
    for mode in modes:
        for dialogue in dialogues:
            for speaker in dialogue.speakers:
                owner = owner_of(key_of(dialogue, speaker, mode))
                await preview(client, base, owner, "How are you?")
    await asyncio.sleep(3)


# -- the run ---------------------------------------------------------------------------------
async def dense_ranker(texts: list[str]) -> Any:
    from memtap.engine.embeddings.onnx import open_onnx

    model = await open_onnx(threads=1)
    matrix = np.asarray(model.embed_sync(texts), dtype=np.float32)

    def rank(query: str) -> list[int]:
        q = np.asarray(model.embed_sync([query]), dtype=np.float32)[0]
        return [int(i) for i in np.argsort(-(matrix @ q), kind="stable")]

    return rank


async def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    files = sorted(Path(args.dataset).glob("*.json"))
    dialogues = [load(p) for p in files if not args.only or p.stem in args.only]
    if not dialogues:
        raise SystemExit(f"no conversations in {args.dataset}")
    modes = ["live", "import"] if args.mode == "both" else [args.mode]
    standin = Standin(record=False)
    await standin.start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(args.data_dir) if args.data_dir else Path(tmp)
        fed = data.is_dir() and (data / "memtap.db").exists()
        data.mkdir(parents=True, exist_ok=True)
        config = (
            Path(args.config)
            if args.config
            else Path(__file__).resolve().parents[1] / "config" / "memtap.yaml"
        )
        process, log = start_memtap(port, standin.url, data, config_file=config)
        try:
            async with aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=120)
            ) as client:
                await wait_ready(client, base, process)
                if args.setting:
                    await apply_settings(client, base, args.setting)
                for dialogue in [] if fed else dialogues:
                    if "live" in modes:
                        await replay(
                            client, base, standin, dialogue, args.reply == "fixed"
                        )
                    if "import" in modes:
                        await import_dated(client, base, dialogue)
                    print(
                        f"sent {dialogue.id}: {len(dialogue.turns)} turns",
                        file=sys.stderr,
                    )
                await wait_drained(client, base, vectors=args.score_after == "vectors")
                fed_s = time.perf_counter() - started
                return await score(client, base, dialogues, modes, args, fed_s)
        finally:
            process.terminate()
            process.wait(timeout=60)
            log.close()
            await standin.stop()


async def score(
    client: aiohttp.ClientSession,
    base: str,
    dialogues: list[Dialogue],
    modes: list[str],
    args: argparse.Namespace,
    fed_s: float,
) -> dict[str, Any]:
    report: dict[str, Any] = {
        "conversations": [d.id for d in dialogues],
        "questions": sum(len(d.questions) for d in dialogues),
        "modes": {},
    }
    misses: dict[str, list[dict[str, Any]]] = {}
    await warm_models(client, base, dialogues, modes)
    for mode in modes:
        show = dated if mode == "import" else plain
        memtap = Score()
        texts: dict[tuple[str, int], str] = {}
        missed: dict[tuple[str, int], dict[str, Any]] = {}
        for dialogue in dialogues:
            for qi, asked in enumerate(dialogue.questions):
                parts = [
                    await preview(
                        client,
                        base,
                        owner_of(key_of(dialogue, s, mode)),
                        asked.question,
                    )
                    for s in dialogue.speakers
                ]
                text = "\n".join(p for p in parts if p)
                texts[(dialogue.id, qi)] = text
                if not memtap.add(asked, text):
                    missed[(dialogue.id, qi)] = {
                        "conversation": dialogue.id,
                        "category": CATEGORIES[asked.category],
                        "question": asked.question,
                        "answer": asked.answer,
                        "evidence": list(asked.evidence),
                        "evidence_text": [
                            plain(t) for t in dialogue.turns if t.id in asked.evidence
                        ][:3],
                        "injected_tokens": tokens_of(text),
                        "injected": text,
                    }
                    misses.setdefault(mode, []).append(missed[(dialogue.id, qi)])
        budget = max(1, round(memtap.tokens / max(1, memtap.questions)))
        systems = {
            "memtap": memtap,
            "bm25_top5": Score(),
            f"bm25_at_memtap_budget_{budget}": Score(),
            f"dense_at_memtap_budget_{budget}": Score(),
            f"bm25_neighbours_{NEIGHBOUR_BUDGET}": Score(),
            "full_context": Score(),
        }
        for dialogue in dialogues:
            lines = [show(t) for t in dialogue.turns]
            bm25 = BM25([t.text for t in dialogue.turns])
            dense = (
                await dense_ranker([t.text for t in dialogue.turns])
                if not args.no_dense
                else None
            )
            full = "\n".join(lines)
            for qi, asked in enumerate(dialogue.questions):
                order = bm25.rank(asked.question)
                seen = set(order)
                order += [
                    i for i in range(len(lines)) if i not in seen
                ]  # BM25 ties: conversation order
                systems["bm25_top5"].add(asked, "\n".join(lines[i] for i in order[:5]))
                at_budget = cut([lines[i] for i in order], budget)
                if (
                    systems[f"bm25_at_memtap_budget_{budget}"].add(asked, at_budget)
                    and (dialogue.id, qi) in missed
                ):
                    # What memtap missed and plain BM25 found: the failures to look at.
                    missed[(dialogue.id, qi)]["bm25_at_budget_found"] = [
                        line
                        for line in at_budget.splitlines()
                        if content_words(asked.answer) & content_words(line)
                    ][:5]
                if dense is not None:
                    systems[f"dense_at_memtap_budget_{budget}"].add(
                        asked, cut([lines[i] for i in dense(asked.question)], budget)
                    )
                systems[f"bm25_neighbours_{NEIGHBOUR_BUDGET}"].add(
                    asked,
                    with_neighbours(order, dialogue.turns, NEIGHBOUR_BUDGET, show),
                )
                systems["full_context"].add(asked, full)
        if args.no_dense:
            del systems[f"dense_at_memtap_budget_{budget}"]
        figures = {name: s.to_json() for name, s in systems.items()}
        best_raw = max(
            figures[f"bm25_at_memtap_budget_{budget}"]["answer_recall"],
            figures.get(f"dense_at_memtap_budget_{budget}", {"answer_recall": 0})[
                "answer_recall"
            ],
        )
        figures["ratio_to_best_raw_at_memtap_budget"] = (
            round(figures["memtap"]["answer_recall"] / best_raw, 3)
            if best_raw
            else None
        )
        report["modes"][mode] = figures
    report["seconds_to_feed"] = round(fed_s, 1)
    if args.misses:
        Path(args.misses).write_text(json.dumps(misses, indent=1, ensure_ascii=False))
    return report


def table(report: dict[str, Any]) -> str:
    lines = [
        (
            f"LoCoMo dev: conversations {', '.join(report['conversations'])}, {report['questions']} questions "
            f"(fed and drained in {report['seconds_to_feed']} s)"
        )
    ]
    for mode, figures in report["modes"].items():
        lines.append(f"\n== {mode} ==")
        lines.append(
            f"{'system':<30}{'answer':>8}{'tokens':>9}  "
            + " ".join(f"{c:>11}" for c in CATEGORIES.values())
        )
        for name, s in figures.items():
            if not isinstance(s, dict):
                continue
            cats = " ".join(
                f"{s['by_category'].get(c, 0):>11.3f}" for c in CATEGORIES.values()
            )
            lines.append(
                f"{name:<30}{s['answer_recall']:>8.3f}{s['mean_tokens']:>9.1f}  {cats}"
            )
        lines.append(
            f"memtap / better of BM25 and dense at memtap's budget: {figures['ratio_to_best_raw_at_memtap_budget']}"
        )
        below = below_bm25(figures)
        lines.append(
            "categories below BM25 at memtap's budget (a target): "
            + (", ".join(f"{c} {m:.3f} < {b:.3f}" for c, m, b in below) or "none")
        )
    return "\n".join(lines)


def below_bm25(figures: dict[str, Any]) -> list[tuple[str, float, float]]:
    """(category, memtap, BM25) where memtap finds less than BM25 over the raw turns at
    memtap's own budget."""
    bm25 = next(
        (v for k, v in figures.items() if k.startswith("bm25_at_memtap_budget_")), None
    )
    if bm25 is None:
        return []
    ours = figures["memtap"]["by_category"]
    return [
        (c, ours.get(c, 0.0), b)
        for c, b in bm25["by_category"].items()
        if ours.get(c, 0.0) < b
    ]


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dataset",
        default=str(DATASET),
        metavar="DIR",
        help="folder of LoCoMo conversation files",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="ID",
        help="only this conversation (e.g. 26)",
    )
    parser.add_argument("--mode", choices=["live", "import", "both"], default="both")
    parser.add_argument(
        "--reply",
        choices=["next", "fixed"],
        default="next",
        help="what the stand-in answers: the other speaker's next turn, or a constant text",
    )
    parser.add_argument(
        "--config", default="", help="memtap's YAML file (default config/memtap.yaml)"
    )
    parser.add_argument(
        "--no-dense", action="store_true", help="skip the dense baseline (saves ~1 min)"
    )
    parser.add_argument(
        "--misses", default="", metavar="FILE", help="write memtap's misses as JSON"
    )
    parser.add_argument(
        "--data-dir",
        default="",
        metavar="DIR",
        help="keep memtap's data here; a folder that holds one already is scored as it is "
        "(no replay: for trying ranking changes on the same memory)",
    )
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a runtime setting for the run, e.g. memory.max_tokens=600",
    )
    parser.add_argument(
        "--score-after",
        choices=["vectors", "outbox"],
        default="vectors",
        help="when scoring starts: every memory and episode window has its vector "
        "(vectors), or the outbox is empty, as the acceptance run waits (outbox)",
    )
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse()
    result = asyncio.run(evaluate(arguments))
    print(json.dumps(result, indent=1) if arguments.json else table(result))
