"""Retrieval quality on a labelled recall set: recall@5, MRR@5 and recall per query kind, for the
keyword, semantic and hybrid strategies, with each local embedding source.

    .venv/bin/python scripts/eval_recall.py                       # onnx and static
    .venv/bin/python scripts/eval_recall.py --source onnx --json  # machine-readable

Everything runs through the real store and retrieval code: memories are written to a fresh
SQLite file (older facts superseded by newer ones about the same subject, as extraction does),
vectors are built by the real reindex, and queries go through `engine.retrieval.retrieve`.
The static table is distilled from the ONNX model into a temp dir unless `--static-table`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.engine.clock import iso
from memtap.engine.embeddings.projected import ProjectedQueries
from memtap.engine.embeddings.static import build_static
from memtap.engine.factory import build_vector_index
from memtap.engine.retrieval.retrieve import RetrievalContext, retrieve
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver, load_sqlite_vec
from memtap.engine.sqlite.memories import SqliteRecordStore
from memtap.engine.sqlite.migrations import migrate
from memtap.engine.sqlite.sql import memories
from memtap.engine.sqlite.vectors import SqliteVecIndex
from memtap.engine.types import NewMemory, RetrievalRequest

DATASETS = Path(__file__).resolve().parent.parent / "tests" / "datasets"
DEFAULT_SET = DATASETS / "recall_set.json"
EXTRA_SET = DATASETS / "recall_short_present.json"
"""Short facts and conflicting facts without a subject link (merged in unless --no-extra)."""
STRATEGIES = ("keyword", "semantic", "hybrid")
K = 5


@dataclass(slots=True)
class Score:
    queries: int = 0
    found: int = 0
    reciprocal: float = 0.0
    by_kind: dict[str, list[int]] = field(default_factory=dict)
    newer_first: list[int] = field(default_factory=lambda: [0, 0])
    both_returned: list[int] = field(default_factory=lambda: [0, 0])
    """Conflicting pairs (a query with `older`) where both came back: never wanted."""
    unrelated_empty: list[int] = field(default_factory=lambda: [0, 0])
    vector_skipped: int = 0
    """Questions whose vector leg was skipped: the keywords answered (hybrid only)."""
    misses: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "recall@5": round(self.found / max(self.queries, 1), 3),
            "mrr@5": round(self.reciprocal / max(self.queries, 1), 3),
            "by_kind": {
                k: round(v[0] / max(v[1], 1), 3)
                for k, v in sorted(self.by_kind.items())
            },
            "newer_first": round(self.newer_first[0] / max(self.newer_first[1], 1), 3),
            "both_returned": self.both_returned[0],
            "unrelated_empty": round(
                self.unrelated_empty[0] / max(self.unrelated_empty[1], 1), 3
            ),
            "vector_skipped": self.vector_skipped,
            "misses": self.misses,
        }


def memory_id(owner: str, local_id: str) -> str:
    return f"{owner}-{local_id}"


async def load_set(db: Database, data: dict[str, Any]) -> None:
    now = datetime.now(UTC)
    rows = [
        (owner, m) for owner, spec in data["owners"].items() for m in spec["memories"]
    ]
    # Oldest first, so a newer fact supersedes the older one about the same subject.
    rows.sort(key=lambda r: -r[1]["age_days"])

    def write(conn: Any) -> None:
        for owner, m in rows:
            stamp = iso(now - timedelta(days=m["age_days"]))
            new = NewMemory(
                owner=owner,
                content=m["content"],
                id=memory_id(owner, m["id"]),
                created_at=stamp,
                updated_at=stamp,
            )
            subject = m.get("subject")
            memories.upsert(conn, new, stamp, subject=subject)
            if subject:
                memories.supersede(conn, owner, subject, new.id or "", stamp)

    await db.write(write)


async def evaluate(
    data: dict[str, Any],
    embedding: EmbeddingConfig,
    workdir: Path,
    min_similarity: float | None = None,
    vector_skip_coverage: float | None = None,
    retrieval_timeout_ms: int | None = None,
) -> dict[str, Any]:
    memory = MemoryConfig(strategy="hybrid")
    if retrieval_timeout_ms is not None:
        memory = replace(memory, retrieval_timeout_ms=retrieval_timeout_ms)
    if min_similarity is not None:
        memory = replace(memory, min_similarity=min_similarity)
    if vector_skip_coverage is not None:
        memory = replace(memory, vector_skip_coverage=vector_skip_coverage)
    config = Config(
        data_dir=str(workdir),
        memory=memory,
        embedding=embedding,
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )
    db = await Database.open(
        workdir / "eval.db",
        choose_driver(),
        extension_loaders=[("sqlite-vec", load_sqlite_vec)],
    )
    tier: SqliteVecIndex | None = None
    try:
        await db.write_outside_transaction(lambda conn: migrate(conn))
        await load_set(db, data)
        holder = _Holder(config)
        tier = await build_vector_index(holder, db, None)
        if tier is None:
            raise SystemExit(
                f"no vector tier for embedding source {embedding.source!r}"
            )
        await tier.reindex(None, False)
        if isinstance(tier.source, ProjectedQueries):
            await tier.source.settle()  # `always`: the projection is built at start
        scores = {s: Score() for s in STRATEGIES}
        ctx = RetrievalContext(SqliteRecordStore(db), config.memory, tier)
        for owner, spec in data["owners"].items():
            for q in spec["queries"]:
                for strategy in STRATEGIES:
                    req = RetrievalRequest(
                        owner=owner,
                        query=q["query"],
                        strategy=strategy,
                        limit=K,
                        max_tokens=16000,
                    )
                    result = await retrieve(ctx, req, side_effects=False)
                    ranked = [h.memory.id for h in result.hits][:K]
                    scores[strategy].vector_skipped += (
                        "vector_skipped" in result.resolution
                    )
                    _score(scores[strategy], owner, q, ranked)
        return {
            "source": tier.embedding(),
            "queries": scores["hybrid"].queries,
            "min_similarity": config.memory.min_similarity,
            "vector_skip_coverage": config.memory.vector_skip_coverage,
            **{s: sc.to_json() for s, sc in scores.items()},
        }
    finally:
        if tier is not None:
            await tier.close()
        await db.close()


def _score(score: Score, owner: str, q: dict[str, Any], ranked: list[str]) -> None:
    if q["expect"] is None:
        # Nothing related is stored: the relevance floor must leave the answer empty.
        score.unrelated_empty[1] += 1
        score.unrelated_empty[0] += not ranked
        if ranked:
            score.misses.append(f"{owner}: {q['query']} (unrelated, got {len(ranked)})")
        return
    expect = memory_id(owner, q["expect"])
    score.queries += 1
    kind = score.by_kind.setdefault(q["kind"], [0, 0])
    kind[1] += 1
    if expect in ranked:
        score.found += 1
        kind[0] += 1
        score.reciprocal += 1.0 / (ranked.index(expect) + 1)
    else:
        score.misses.append(f"{owner}: {q['query']}")
    if q.get("older"):
        older = memory_id(owner, q["older"])
        score.newer_first[1] += 1
        score.both_returned[1] += 1
        if expect in ranked and older in ranked:
            score.both_returned[0] += 1
            score.misses.append(
                f"{owner}: {q['query']} (newer and older both returned)"
            )
        if expect in ranked and (
            older not in ranked or ranked.index(expect) < ranked.index(older)
        ):
            score.newer_first[0] += 1


@dataclass(slots=True)
class _Holder:
    current: Config

    def subscribe(self, callback: object) -> Callable[[], None]:
        """A fixed configuration: nothing ever changes."""
        return lambda: None


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--source", choices=("onnx", "static", "both"), default="both")
    parser.add_argument("--data", type=Path, default=DEFAULT_SET)
    parser.add_argument(
        "--static-table", type=Path, help="a built static table (default: build one)"
    )
    parser.add_argument(
        "--min-similarity", type=float, help="override memory.min_similarity"
    )
    parser.add_argument(
        "--vector-skip-coverage",
        type=float,
        help="override memory.vector_skip_coverage (0: hybrid always searches by meaning)",
    )
    parser.add_argument(
        "--no-extra",
        action="store_true",
        help=f"leave out {EXTRA_SET.name} (short facts, conflicts without a slot link)",
    )
    parser.add_argument(
        "--query-projection",
        choices=("off", "auto", "always"),
        default="off",
        help="embedding.query_projection for onnx; always = every query projected into "
        "the model's space (what a busy model's queries get), off = the model (default)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    if not args.no_extra:
        extra = json.loads(EXTRA_SET.read_text(encoding="utf-8"))
        data = {**data, "owners": {**data["owners"], **extra["owners"]}}
    results = []
    with tempfile.TemporaryDirectory(prefix="memtap-eval-") as tmp:
        work = Path(tmp)
        if args.source in ("onnx", "both"):
            (work / "onnx").mkdir()
            results.append(
                await evaluate(
                    data,
                    EmbeddingConfig(
                        source="onnx", query_projection=args.query_projection
                    ),
                    work / "onnx",
                    args.min_similarity,
                    args.vector_skip_coverage,
                )
            )
        if args.source in ("static", "both"):
            table = args.static_table
            if table is None:
                table = work / "static.npz"
                report = await build_static(table)
                print(
                    f"built static table in {report.seconds}s ({report.bytes / 1e6:.1f} MB)",
                    file=sys.stderr,
                )
            (work / "static").mkdir()
            results.append(
                await evaluate(
                    data,
                    EmbeddingConfig(source="static", static_path=str(table)),
                    work / "static",
                    args.min_similarity,
                    args.vector_skip_coverage,
                )
            )
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for result in results:
        print(
            f"\n== embedding {result['source']} ({result['queries']} queries, top {K}, "
            f"min_similarity {result['min_similarity']}, vector_skip_coverage "
            f"{result['vector_skip_coverage']}: hybrid skipped the vector leg for "
            f"{result['hybrid']['vector_skipped']} questions)"
        )
        print(
            f"{'strategy':<10}{'recall@5':>10}{'MRR':>8}{'lexical':>9}{'paraphr.':>10}{'temporal':>10}"
            f"{'short':>7}{'present':>9}{'newer1st':>10}{'both':>6}{'unrel.=0':>10}"
        )
        for strategy in STRATEGIES:
            r = result[strategy]
            kinds = r["by_kind"]
            print(
                f"{strategy:<10}{r['recall@5']:>10.3f}{r['mrr@5']:>8.3f}{kinds.get('lexical', 0):>9.3f}"
                f"{kinds.get('paraphrase', 0):>10.3f}{kinds.get('temporal', 0):>10.3f}"
                f"{kinds.get('short', 0):>7.3f}{kinds.get('present', 0):>9.3f}{r['newer_first']:>10.3f}"
                f"{r['both_returned']:>6}{r['unrelated_empty']:>10.3f}"
            )
        for strategy in ("keyword", "hybrid"):
            for miss in result[strategy]["misses"]:
                if strategy == "hybrid" or "verbose" in sys.argv:
                    print(f"  {strategy} miss: {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
