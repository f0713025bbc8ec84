"""Episode store cost (a benchmark, not a test): database growth per 10,000 turns and the
latency of the episode arms of hybrid retrieval (keyword FTS5 + exact cosine over the owner's
windows) at many windows for one owner.

    .venv/bin/python scripts/bench_episodes.py                 # 10k turns, 100k windows
    .venv/bin/python scripts/bench_episodes.py --windows 20000 # quicker
    .venv/bin/python scripts/bench_episodes.py --recall 30000  # first-pass recall, real vectors

Turns are the conversation set's user messages (tests/datasets/conversations/), cycled with a
counter so each is a new episode; vectors are 384-d (all-MiniLM-L6-v2's size) from a
deterministic bag-of-words embedder, so the query embedding itself (shared with the fact
tier, cached) is not what is timed here.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memtap.engine.clock import now_iso
from memtap.engine.episode_types import NewEpisode
from memtap.engine.memory_rules import Live
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.episodes import SqliteEpisodeStore
from tests.support.conversations import load_all
from tests.support.hash_embedder import HashEmbedder

QUERIES = [
    "What is my cat called?",
    "Where do I live now?",
    "Which gym do I climb at?",
    "When did I sign the lease?",
    "What did the puppy chew up?",
]


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


async def fill(
    store: SqliteEpisodeStore, owner: str, texts: list[str], count: int
) -> None:
    batch: list[NewEpisode] = []
    for i in range(count):
        batch.append(
            NewEpisode(
                owner,
                f"s{i // 40}",
                "user",
                f"{texts[i % len(texts)]} (#{i})",
                now_iso(),
            )
        )
        if len(batch) == 200:
            await store.add(batch, now_iso(), 10**9)
            batch = []
    if batch:
        await store.add(batch, now_iso(), 10**9)
    while await store.embed_pending(512):
        pass


def recall_pool(size: int) -> tuple[list[str], list[str]]:
    """(windows, questions): the data sets' windows, then windows recombined from their
    sentences (1-3 each, seeded) up to `size`."""
    import json
    import random

    from memtap.engine.episodes.chunks import sentences, windows

    conversations = load_all()
    base = [w for c in conversations for t in c.turns for w in windows(t.content)]
    for name in ("extraction_set", "extraction_heldout", "recall_set"):
        data = json.loads((ROOT / "tests" / "datasets" / f"{name}.json").read_text())
        base.extend(s for s in _strings(data) if len(s) > 12)
    base = list(dict.fromkeys(base))
    bank = list(dict.fromkeys(s for b in base for s in sentences(b)))
    rng = random.Random(3)
    extra: set[str] = set()
    while len(base) + len(extra) < size:
        extra.add(" ".join(rng.sample(bank, rng.choice([1, 2, 2, 3]))))
    questions = [q.question for c in conversations for q in c.questions]
    return base + sorted(extra), questions


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


async def first_pass_recall(size: int) -> None:
    import numpy as np

    from memtap.engine.embeddings.onnx import open_onnx
    from memtap.engine.sqlite import sign_codes

    pool, questions = recall_pool(size)
    embedder = await open_onnx()
    started = time.perf_counter()
    rows = np.concatenate(
        [await embedder.embed(pool[i : i + 256]) for i in range(0, len(pool), 256)]
    )
    rows = rows.astype(np.float16).astype(np.float32)  # what the store keeps
    queries = await embedder.embed(questions)
    print(
        f"{len(pool)} windows, {len(questions)} questions embedded in {time.perf_counter() - started:.0f} s"
    )
    n = len(rows)
    # Scale the first pass as if the pool were 100k rows: the candidates it keeps are the
    # same share of the rows, so a top k is `k * n / 100k` deep here.
    codes = sign_codes.SignCodes.of(rows)
    for k in (8, 32, 64):
        depth = max(1, round(k * n / 100_000))
        wanted = found = 0
        for query in queries:
            truth = set(np.argsort(-(rows @ query))[:depth].tolist())
            picked = codes.nearest(query, n, sign_codes.candidate_count(n, depth))
            scores = rows[picked] @ query
            got = set(picked[np.argsort(-scores)[:depth]].tolist())
            found += len(truth & got)
            wanted += depth
        print(
            f"top {k} of 100k (top {depth} of {n}): first pass + rescoring keeps {found / wanted:.3f} of the exact top"
        )
    await embedder.close()


async def main(args: argparse.Namespace) -> None:
    if args.recall:
        await first_pass_recall(args.recall)
        return
    texts = [t.content for c in load_all() for t in c.turns if t.role == "user"]
    embedder = HashEmbedder(dim=384)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "memtap.db"
        db = await Database.open(path, choose_driver())
        await db.write_outside_transaction(migrations.migrate)
        store = SqliteEpisodeStore(db, source=lambda: embedder)
        await db.write_outside_transaction(
            lambda c: c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        )
        empty = size(path)
        started = time.perf_counter()
        await fill(store, "growth", texts, args.turns)
        await db.write_outside_transaction(
            lambda c: c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        )
        grown = size(path) - empty
        counts = await store.counts()
        print(
            f"{args.turns} turns -> {counts['windows']} windows, +{grown / 2**20:.1f} MiB "
            f"({grown / args.turns:.0f} B a turn; {time.perf_counter() - started:.1f} s to store and embed)"
        )
        await fill(store, "big", texts, args.windows)
        live = Live(now=now_iso(), cutoff=None, owner="big")
        # Each arm alone, at the depths a request asks of it (the default settings).
        from memtap.config.schema import MemoryConfig
        from memtap.engine.episodes.recall import VECTOR_DEPTH, pool_size

        pool = pool_size(MemoryConfig())
        arms = {
            "keyword": lambda query: store.keyword(query, live, pool),
            "vector": lambda query: store.vector(
                query, live, pool, pool * VECTOR_DEPTH
            ),
        }
        for arm, search in arms.items():
            await search(QUERIES[0])  # warm: the owner's matrix loads once
            timings = []
            for i in range(args.repeat):
                t0 = time.perf_counter()
                await search(QUERIES[i % len(QUERIES)])
                timings.append((time.perf_counter() - t0) * 1000)
            timings.sort()
            print(
                f"{arm:7s} arm at {(await store.counts())['windows'] - counts['windows']} windows of one owner: "
                f"p50 {statistics.median(timings):.2f} ms, p95 {timings[int(len(timings) * 0.95)]:.2f} ms"
            )
        # Both arms as a request runs them (concurrently, at the default depths), with the
        # floor and the snippets: what the target "hybrid <= 10 ms at 100k" is about.
        from memtap.engine.episodes.recall import recall_episodes
        from memtap.engine.types import RetrievalRequest

        cfg = MemoryConfig()
        timings = []
        cpu_started = time.process_time()
        for i in range(args.repeat):
            t0 = time.perf_counter()
            await recall_episodes(
                store,
                cfg,
                RetrievalRequest(
                    owner="big", query=QUERIES[i % len(QUERIES)], strategy="hybrid"
                ),
            )
            timings.append((time.perf_counter() - t0) * 1000)
        # CPU time of the process (all threads) per request: what a busy machine's wait does
        # not inflate.
        cpu_ms = (time.process_time() - cpu_started) * 1000 / args.repeat
        timings.sort()
        print(
            f"hybrid (both arms, floor, snippets): p50 {statistics.median(timings):.2f} ms, "
            f"p95 {timings[int(len(timings) * 0.95)]:.2f} ms, CPU {cpu_ms:.2f} ms a request"
        )
        stats = store.cache.stats()
        cached = stats.get("windows", args.windows)
        print(
            f"vector cache: {stats['bytes'] / 2**20:.0f} MiB for {cached} windows "
            f"({stats['bytes'] / max(cached, 1):.0f} B a window)"
        )
        await db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--windows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument(
        "--recall",
        type=int,
        default=0,
        metavar="N",
        help="measure the vector first pass's recall on N real windows instead",
    )
    asyncio.run(main(parser.parse_args()))
