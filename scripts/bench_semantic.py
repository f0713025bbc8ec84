"""Semantic-tier benchmarks: hybrid retrieval latency per owner size and RSS per embedding source.

    .venv/bin/python scripts/bench_semantic.py                   # static + onnx, 10k and 100k
    .venv/bin/python scripts/bench_semantic.py --sizes 10000 --sources static --json

For each source and size N, one owner gets N memories (plus 2,000 rows of other owners) in a
fresh SQLite file. Vectors are random unit vectors written straight into the vec0 table:
KNN cost depends on the row count and width, not on the text, and embedding 100k texts
would only measure the embedder. Timed: `engine.retrieval.retrieve` with strategy hybrid
(FTS5 + KNN + RRF + re-read + budget), p50/p99 over `--queries` runs,
- excluding the query embedding: the same query repeated (the embedding cache answers),
- including it: a different query each time (cache misses);
plus the KNN alone, both sqlite-vec's own (`vectors.knn`) and the tier's cached one with the
re-read of its hits (`vectors.knn_live`, what retrieval uses). RSS is measured in a child
process per source (source + 10k-row search): the peak (VmHWM) and at the end (VmRSS).
`--embed-concurrency 4,16` measures only concurrent ONNX query embeddings, batched against one
run per request. `run_semantic_bench()` is the entry point for `scripts/bench_memory.py` (a `--semantic` section).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.engine.clock import now_iso
from memtap.engine.embeddings.static import build_static
from memtap.engine.factory import build_vector_index
from memtap.engine.memory_rules import Live
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver, load_sqlite_vec
from memtap.engine.sqlite.memories import SqliteRecordStore
from memtap.engine.sqlite.migrations import migrate
from memtap.engine.sqlite.sql import vectors
from memtap.engine.sqlite.vector_cache import VectorCache
from memtap.engine.sqlite.vectors import SqliteVecIndex
from memtap.engine.types import RetrievalRequest

WORDS = [
    "postgres",
    "redis",
    "kafka",
    "python",
    "rust",
    "golang",
    "typescript",
    "react",
    "docker",
    "kubernetes",
    "terraform",
    "aws",
    "gcp",
    "azure",
    "linux",
    "debian",
    "fedora",
    "macos",
    "vim",
    "neovim",
    "emacs",
    "vscode",
    "tabs",
    "spaces",
    "pytest",
    "jest",
    "coffee",
    "tea",
    "bike",
    "train",
    "remote",
    "office",
    "berlin",
    "lisbon",
    "london",
    "dog",
    "cat",
    "chess",
    "guitar",
    "running",
    "climbing",
    "sushi",
    "pizza",
    "vegan",
    "dark-mode",
    "light-mode",
    "monorepo",
    "microservices",
    "graphql",
    "grpc",
    "rest",
    "sqlite",
    "mongodb",
    "grafana",
    "prometheus",
    "loki",
    "jenkins",
    "gitlab",
    "github",
    "nginx",
    "caddy",
    "tailwind",
    "svelte",
    "vue",
    "django",
    "flask",
]
VERBS = (
    "I prefer",
    "I use",
    "I like",
    "I avoid",
    "We run",
    "My team picked",
    "I switched to",
    "I always use",
)


@dataclass(frozen=True, slots=True)
class _Holder:
    current: Config

    def subscribe(self, callback: object) -> Callable[[], None]:
        """A fixed configuration: nothing ever changes."""
        return lambda: None


def _vocabulary() -> list[str]:
    # A few thousand distinct terms, so each one matches a realistic share of memories
    # (a real memory set is not 100k permutations of 70 words).
    syllables = (
        "ka",
        "lo",
        "mi",
        "ren",
        "tu",
        "sa",
        "vor",
        "el",
        "dan",
        "qui",
        "po",
        "zet",
        "ri",
        "mun",
    )
    made = [a + b + c for a in syllables for b in syllables for c in syllables]
    return WORDS + made


VOCAB = _vocabulary()


def fact(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)} {rng.choice(VOCAB)} for {rng.choice(VOCAB)} and {rng.choice(VOCAB)}"


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


async def fill(db: Database, owner: str, n: int, dim: int) -> None:
    rng = random.Random(7)
    vec_rng = np.random.default_rng(7)
    now = now_iso()
    rows = [(owner, n)] + [(f"other{i}", 200) for i in range(10)]
    for who, count in rows:
        for start in range(0, count, 5000):
            size = min(5000, count - start)
            block = vec_rng.standard_normal((size, dim)).astype(np.float32)
            block /= np.linalg.norm(block, axis=1, keepdims=True)

            def write(
                conn: Any,
                who: str = who,
                start: int = start,
                size: int = size,
                block: Any = block,
            ) -> None:
                for i in range(size):
                    mid = f"{who}-{start + i}"
                    conn.execute(
                        "INSERT INTO memories(id, owner, type, content, created_at, updated_at, needs_reindex) "
                        "VALUES (?, ?, 'factual', ?, ?, ?, 0)",
                        (mid, who, fact(rng), now, now),
                    )
                    conn.execute(
                        f"INSERT INTO {vectors.VEC_TABLE}(memory_id, owner, embedding) VALUES (?, ?, ?)",
                        (mid, who, block[i].tobytes()),
                    )
                # Written behind the tier's back: tell its cache (as another process would).
                vectors.bump_version(conn)

            await db.write(write)


async def bench_one(
    source: str,
    n: int,
    queries: int,
    static_table: Path | None,
    work: Path,
    hybrid: bool = True,
    cold_load: bool = True,
) -> dict[str, Any]:
    embedding = EmbeddingConfig(
        source=source,  # type: ignore[arg-type]
        static_path=str(static_table) if static_table else None,
    )
    config = Config(
        data_dir=str(work),
        memory=MemoryConfig(
            strategy="hybrid", min_similarity=-1.0, retrieval_timeout_ms=10_000
        ),
        embedding=embedding,
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )
    db = await Database.open(
        work / f"bench-{source}-{n}.db",
        choose_driver(),
        extension_loaders=[("sqlite-vec", load_sqlite_vec)],
    )
    tier: SqliteVecIndex | None = None
    try:
        await db.write_outside_transaction(lambda conn: migrate(conn))
        tier = await build_vector_index(_Holder(config), db, None)
        assert tier is not None
        t0 = time.perf_counter()
        await fill(db, "owner", n, tier.source.dim)
        fill_s = time.perf_counter() - t0
        ctx = RetrievalContext(SqliteRecordStore(db), config.memory, tier)
        rng = random.Random(3)
        texts = [
            f"which {rng.choice(VOCAB)} setup fits {rng.choice(VOCAB)}?"
            for _ in range(queries)
        ]

        cpu: list[float] = []  # process CPU time per query: all threads, and far less
        # sensitive than wall time to other jobs on a shared machine

        async def one(query: str) -> float:
            started, cpu_started = time.perf_counter(), time.process_time()
            await retrieve(
                ctx,
                RetrievalRequest(owner="owner", query=query, limit=10),
                side_effects=False,
            )
            cpu.append((time.process_time() - cpu_started) * 1000)
            return (time.perf_counter() - started) * 1000

        cached: list[float] = []
        fresh: list[float] = []
        cached_cpu: list[float] = []
        fresh_cpu: list[float] = []
        if hybrid:
            for q in texts[:5]:
                await one(q)  # warm-up: page cache, onnxruntime arenas
            await tier.settle()  # the owner's KNN cache, loaded by the first query
            cpu.clear()
            cached = [await one(texts[0]) for _ in range(queries)]
            cached_cpu = list(cpu)
            cpu.clear()
            fresh = [await one(f"{q} #{i}") for i, q in enumerate(texts)]
            fresh_cpu = list(cpu)
        vector = (await tier.source.embed([texts[0]]))[0]
        knn_ms = []  # sqlite-vec's own KNN (what the tier used before the cache)
        for _ in range(queries):
            started = time.perf_counter()
            await db.read(lambda conn: vectors.knn(conn, vector, "owner", None, 20))
            knn_ms.append((time.perf_counter() - started) * 1000)
        load_ms = 0.0
        if cold_load:  # a cold owner's cache load (a second matrix: not in the RSS run)
            started = time.perf_counter()
            await db.read(
                lambda conn: vectors.warm_owner(
                    conn, VectorCache(), "owner", vector.shape[0]
                )
            )
            load_ms = (time.perf_counter() - started) * 1000
        cached_ms = []  # the tier's KNN as retrieval runs it: cached matrix + re-read of
        cache = tier.cache  # the hits through the live filter, one reader hop
        live = Live(now=now_iso(), cutoff=None, owner="owner")
        for _ in range(queries):
            started = time.perf_counter()
            await db.read(lambda conn: vectors.knn_live(conn, cache, vector, live, 20))
            cached_ms.append((time.perf_counter() - started) * 1000)
        tier_ms = []
        for i in range(queries):
            started = time.perf_counter()
            await tier.search(live, f"semantic only {texts[i]}", 20, backfill=False)
            tier_ms.append((time.perf_counter() - started) * 1000)
        embed_ms = []
        for i in range(queries):
            started = time.perf_counter()
            await tier.source.embed([f"uncached query number {i} about {texts[i]}"])
            embed_ms.append((time.perf_counter() - started) * 1000)
        return {
            "source": tier.embedding(),
            "memories": n,
            "fill_s": round(fill_s, 1),
            "file_mb": round(
                sum(p.stat().st_size for p in work.glob(f"bench-{source}-{n}.db*"))
                / 1e6,
                1,
            ),
            "hybrid_excl_embed_cpu_ms_p50": pct(cached_cpu, 0.5) if hybrid else None,
            "hybrid_incl_embed_cpu_ms_p50": pct(fresh_cpu, 0.5) if hybrid else None,
            "hybrid_excl_embed_ms": {"p50": pct(cached, 0.5), "p99": pct(cached, 0.99)}
            if hybrid
            else None,
            "hybrid_incl_embed_ms": {"p50": pct(fresh, 0.5), "p99": pct(fresh, 0.99)}
            if hybrid
            else None,
            "knn_vec0_ms": {"p50": pct(knn_ms, 0.5), "p99": pct(knn_ms, 0.99)},
            "knn_cached_ms": {"p50": pct(cached_ms, 0.5), "p99": pct(cached_ms, 0.99)},
            "cache_load_ms": round(load_ms, 1),
            "cache": tier.cache.stats().to_json(),
            "vector_search_incl_embed_ms": {
                "p50": pct(tier_ms, 0.5),
                "p99": pct(tier_ms, 0.99),
            },
            "query_embed_ms": {
                "p50": pct(embed_ms, 0.5),
                "mean": round(statistics.mean(embed_ms), 3),
            },
        }
    finally:
        if tier is not None:
            await tier.close()
        await db.close()


def rss_child(source: str, static_table: Path | None, work: Path) -> dict[str, Any]:
    """Max RSS of a fresh process that opens `source`, fills 10k rows and runs 50 hybrid queries."""
    cmd = [
        sys.executable,
        __file__,
        "--rss-child",
        source,
        "--queries",
        "50",
        "--work",
        str(work),
    ]
    if static_table:
        cmd += ["--static-table", str(static_table)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


async def run_semantic_bench(
    sizes: list[int],
    sources: list[str],
    queries: int = 200,
    static_table: Path | None = None,
    rss: bool = True,
    hybrid_max: int = 100_000,
) -> list[dict[str, Any]]:
    """Rows of results. Full hybrid retrieval is timed up to `hybrid_max` rows per owner;
    above that only the vector path (the keyword query's cost grows with the owner's rows)."""
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memtap-bench-") as tmp:
        work = Path(tmp)
        if "static" in sources and static_table is None:
            static_table = work / "static.npz"
            report = await build_static(static_table)
            results.append(
                {
                    "static_build": {
                        "seconds": report.seconds,
                        "mb": round(report.bytes / 1e6, 1),
                    }
                }
            )
        for source in sources:
            for n in sizes:
                results.append(
                    await bench_one(
                        source, n, queries, static_table, work, hybrid=n <= hybrid_max
                    )
                )
            if rss:
                results.append(
                    await asyncio.to_thread(rss_child, source, static_table, work)
                )
    return results


async def _child(
    source: str, queries: int, static_table: Path | None, work: Path
) -> None:
    await bench_one(
        source, 10_000, queries, static_table, work / "child", cold_load=False
    )
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec, so a child spawned by a big
    # parent (the 100k runs) reported the parent's peak.
    status = Path("/proc/self/status").read_text(encoding="ascii")
    hwm_kb = next(
        int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("VmHWM")
    )
    rss_kb = next(
        int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("VmRSS")
    )
    print(
        json.dumps(
            {
                "rss_source": source,
                "max_rss_mb": round(hwm_kb / 1024, 1),
                "rss_end_mb": round(rss_kb / 1024, 1),
            }
        )
    )


async def embed_concurrency_bench(
    levels: list[int], rounds: int = 10
) -> list[dict[str, Any]]:
    """Concurrent single-query embeddings with the packaged ONNX model: coalesced into
    batches (what memtap does) against one model run per request (the baseline, same
    process, same run)."""
    from memtap.engine.embeddings.coalesce import Coalescer
    from memtap.engine.embeddings.onnx import open_onnx

    embedder = await open_onnx()
    rows: list[dict[str, Any]] = []
    try:
        embedder.embed_sync(["warm-up"])
        for concurrency in levels:
            row: dict[str, Any] = {"concurrency": concurrency}
            for name, max_texts in (("one_run_each", 1), ("coalesced", 64)):
                batches = Coalescer(embedder.embed_sync, max_texts=max_texts)
                waits: list[float] = []

                async def one(text: str, batches: Coalescer = batches) -> float:
                    started = time.perf_counter()
                    await batches.embed([text])
                    return (time.perf_counter() - started) * 1000

                for r in range(rounds):
                    waits += await asyncio.gather(
                        *(
                            one(f"question {r}.{i} about my setup?")
                            for i in range(concurrency)
                        )
                    )
                row[name] = {
                    "p50": pct(waits, 0.5),
                    "p99": pct(waits, 0.99),
                    "runs": batches.stats.runs,
                }
            row["p99_ratio"] = round(
                row["coalesced"]["p99"] / row["one_run_each"]["p99"], 2
            )
            rows.append(row)
    finally:
        await embedder.close()
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="semantic-tier benchmarks")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--sources", default="static,onnx")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--static-table", type=Path)
    parser.add_argument("--no-rss", action="store_true")
    parser.add_argument(
        "--hybrid-max",
        type=int,
        default=100_000,
        help="time full hybrid up to this size",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--embed-concurrency",
        help="only: concurrent ONNX query embeddings at these levels, e.g. 4,16",
    )
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.embed_concurrency:
        levels = [int(v) for v in args.embed_concurrency.split(",")]
        for row in asyncio.run(embed_concurrency_bench(levels)):
            print(json.dumps(row) if args.json else row)
        return 0
    if args.rss_child:
        (args.work / "child").mkdir(parents=True, exist_ok=True)
        asyncio.run(_child(args.rss_child, args.queries, args.static_table, args.work))
        return 0
    results = asyncio.run(
        run_semantic_bench(
            [int(s) for s in args.sizes.split(",")],
            args.sources.split(","),
            args.queries,
            args.static_table,
            rss=not args.no_rss,
            hybrid_max=args.hybrid_max,
        )
    )
    for row in results:
        print(json.dumps(row) if args.json else row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
