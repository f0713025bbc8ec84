"""Qdrant store benchmark: upsert and hybrid-search figures, local mode and (when QDRANT_URL is
set) a real server. `scripts/bench_memory.py --store qdrant` runs `run_qdrant_bench`; this file
also runs alone:

    .venv/bin/python scripts/bench_qdrant.py [--sizes 1000,10000] [--queries 100] [--url URL]

Vectors are random unit vectors of the MiniLM size (384): the figures are the store's, not the
embedding model's (query embedding excluded). Local mode is qdrant-client's in-process engine:
it is for trying memtap without a server, not for speed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memtap.config.schema import MemoryConfig, QdrantConfig
from memtap.engine.clock import now_iso
from memtap.engine.embeddings.base import Vectors, l2_normalize
from memtap.engine.qdrant.memories import QdrantMemoryStore
from memtap.engine.qdrant.payload import point_id
from memtap.engine.qdrant.transport import open_transport
from memtap.engine.qdrant.vectors import QdrantDenseIndex
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.types import Memory, NewMemory, RetrievalRequest

WORDS = [
    "postgres",
    "sqlite",
    "redis",
    "kafka",
    "docker",
    "kubernetes",
    "terraform",
    "vim",
    "emacs",
    "helix",
    "rust",
    "go",
    "python",
    "typescript",
    "react",
    "vue",
    "svelte",
    "tabs",
    "spaces",
    "dark",
    "light",
    "mode",
    "zsh",
    "fish",
    "bash",
    "linux",
    "macos",
    "windows",
    "aws",
    "gcp",
    "azure",
]
OWNERS = 10


class RandomEmbedder:
    """Unit vectors seeded by the text: stable per text, 384 dims like all-MiniLM-L6-v2."""

    name, model, dim = "bench", "random", 384
    signature = "bench:random:384"

    async def embed(self, texts: Sequence[str], *, urgent: bool = False) -> Vectors:
        rows = [
            np.random.default_rng(abs(hash(t)) % (1 << 32)).standard_normal(self.dim)
            for t in texts
        ]
        return l2_normalize(np.asarray(rows, dtype=np.float32))

    def batch_stats(self) -> None:
        return None

    async def close(self) -> None:
        return None


def _text(rng: np.random.Generator) -> str:
    return "I prefer " + " ".join(rng.choice(WORDS, size=6))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def bench_one(
    label: str, config: QdrantConfig, size: int, queries: int
) -> dict[str, Any]:
    transport = await open_transport(
        config, location=None if (config.url or config.path) else ":memory:"
    )
    collection = f"bench_{uuid.uuid4().hex[:8]}"
    store = QdrantMemoryStore(transport, collection, RandomEmbedder())
    rng = np.random.default_rng(7)
    try:
        await store.collection.ensure()
        now = now_iso()
        started = time.perf_counter()
        batch: list[Memory] = []
        for i in range(size):
            batch.append(
                Memory(
                    id=str(uuid.uuid4()),
                    owner=f"owner{i % OWNERS}",
                    session=None,
                    type="factual",
                    key=f"k{i}",
                    content=_text(rng),
                    metadata={},
                    created_at=now,
                    updated_at=now,
                )
            )
            if len(batch) == 256:
                await store.points.write(
                    [(point_id(m.owner, m.key, m.id), m, None) for m in batch]
                )
                batch = []
        if batch:
            await store.points.write(
                [(point_id(m.owner, m.key, m.id), m, None) for m in batch]
            )
        bulk_s = time.perf_counter() - started

        single: list[float] = []
        for i in range(min(100, size)):
            t0 = time.perf_counter()
            await store.upsert_memory(
                NewMemory(owner="owner0", content=_text(rng), key=f"single{i}"),
                now_iso(),
            )
            single.append((time.perf_counter() - t0) * 1000)

        # The one ranking (engine.retrieval) over the store's keyword arm and its dense arm.
        ctx = RetrievalContext(
            store,
            MemoryConfig(top_k=20, max_items=20, min_similarity=0.35),
            QdrantDenseIndex(store, None),
        )
        search: list[float] = []
        for _ in range(queries):
            query = " ".join(rng.choice(WORDS, size=3))
            t0 = time.perf_counter()
            await retrieve(
                ctx, RetrievalRequest(owner="owner3", query=query), side_effects=False
            )
            search.append((time.perf_counter() - t0) * 1000)
        result = {
            "target": label,
            "points": size,
            "owners": OWNERS,
            "bulk_upsert_per_s": round(size / bulk_s),
            "upsert_memory_ms_p50": round(statistics.median(single), 2),
            "hybrid_ms_p50": round(statistics.median(search), 2),
            "hybrid_ms_p99": round(_pct(search, 0.99), 2),
        }
    finally:
        if not transport.local:
            await transport.call("drop", lambda c: c.delete_collection(collection))
        await store.close()
    return result


LOCAL_MAX = 10_000
"""Local mode above this takes hours (every filter is evaluated in Python per point)."""


async def run_qdrant_bench(
    sizes: Sequence[int], queries: int, url: str | None
) -> list[dict[str, Any]]:
    """Local mode (on disk) for each size up to LOCAL_MAX, then a server at `url` for each size."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            if size > LOCAL_MAX:
                print(
                    f"local mode: skipping {size} points (> {LOCAL_MAX})",
                    file=sys.stderr,
                )
                continue
            results.append(
                await bench_one(
                    "local(path)", QdrantConfig(path=f"{tmp}/q{size}"), size, queries
                )
            )
            print(results[-1], file=sys.stderr, flush=True)
    if url:
        for size in sizes:
            server = QdrantConfig(
                url=url, api_key=os.environ.get("QDRANT_API_KEY"), timeout_s=10.0
            )
            results.append(await bench_one("server", server, size, queries))
            print(results[-1], file=sys.stderr, flush=True)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes", default="1000,10000", help="points per run, comma separated"
    )
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--url",
        default=os.environ.get("QDRANT_URL"),
        help="a Qdrant server (default $QDRANT_URL)",
    )
    args = parser.parse_args(argv)
    asyncio.run(
        run_qdrant_bench(
            [int(s) for s in args.sizes.split(",")], args.queries, args.url
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
